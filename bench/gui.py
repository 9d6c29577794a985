"""GUI speed measurements: first page, first evidence, UI-thread stalls, a coding pass at a coder's pace.

Why these: a linguist opens a 700-page grammar many times a day (the first page must be there in
well under a second, the first feature's evidence within 3 s of the window), classification runs for
seconds to minutes while the window must stay responsive (no stall of the UI thread over 100 ms),
and a coder in a pass presses a key every second or faster (the next evidence must be there).

Run as ``python main.py bench gui [PDF]`` (see cli/gui_commands.py).  The stall probe is a
5 ms QTimer on the UI thread; a stall is the gap between two ticks minus the interval.  The
classification runs against the local OpenAI-compatible server (devtools/openai_server.py)
so the measurement needs no key, with the app's default retrieval (the MiniLM reranker) unless
``--reranker`` says otherwise.

``first_evidence_s`` is measured in child processes (``bench gui-first-evidence``), each a new app:
*cold* is a project as ingested (no vectors, no model loaded, nothing cached), *warm* the same
project in a new process once the first one has embedded it (the model still loads at start-up),
*reopen* the project closed and opened again in the same process (model loaded, indexes built).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from PySide6.QtCore import QElapsedTimer, QEventLoop, QSettings, QTimer

from bench.gui_report import report_results
from bench.paths import REPO, SHARED_GRAMMARS
from bench.stub_server import stub_server_class

if TYPE_CHECKING:
    from gui.window.main_window import MainWindow

FIRST_EVIDENCE_FEATURE = "81A"
KEY_PACES_S = (1.0, 0.5)  # seconds between two "next feature" keys of the coding-pass measurement
KEY_STEPS = 30

DEFAULT_PDF = SHARED_GRAMMARS / "078_Papuan_Malay.pdf"
PROBE_MS = 5


@dataclass
class StallProbe:
    """Records the longest gap between ticks of a UI-thread timer."""

    timer: QTimer
    clock: QElapsedTimer
    last: int = 0
    gaps: list[int] | None = None

    @classmethod
    def start(cls) -> StallProbe:
        probe = cls(QTimer(), QElapsedTimer(), 0, [])
        probe.timer.setInterval(PROBE_MS)
        probe.timer.timeout.connect(probe._tick)
        probe.clock.start()
        probe.last = 0
        probe.timer.start()
        return probe

    def _tick(self) -> None:
        now = self.clock.elapsed()
        assert self.gaps is not None
        self.gaps.append(now - self.last)
        self.last = now

    def stop(self) -> dict:
        self.timer.stop()
        gaps = sorted(self.gaps or [0])
        stalls = [g - PROBE_MS for g in gaps]
        return {
            "ticks": len(gaps),
            "max_stall_ms": max(stalls),
            "p99_stall_ms": stalls[int(0.99 * (len(stalls) - 1))],
            "stalls_over_100ms": sum(1 for s in stalls if s > 100),
        }


def _wait(app, predicate, timeout_s: float) -> bool:
    """Run a nested event loop until ``predicate()`` holds (checked every 10 ms) or time runs out."""
    if predicate():
        return True
    deadline = time.monotonic() + timeout_s
    loop = QEventLoop()
    check = QTimer()
    check.setInterval(10)
    check.timeout.connect(lambda: loop.quit() if predicate() or time.monotonic() > deadline else None)
    check.start()
    loop.exec()
    check.stop()
    return bool(predicate())


def _bench_window(folder: Path, server_url: str, reranker: str | None, size: tuple[int, int]) -> MainWindow:
    """A main window with the bench's own settings file in ``folder``: the local server, and the app's
    default retrieval unless ``reranker`` is given (the person's own settings are never touched)."""
    from core.retrieval import RetrievalSettings
    from gui.common.settings import AppSettings, save_settings
    from gui.window.main_window import MainWindow

    settings = AppSettings.local_server(server_url, reranker=RetrievalSettings().reranker)
    if reranker is not None:
        settings.retrieval = settings.retrieval.with_(reranker=reranker or None)
    store = QSettings(str(folder / "bench.ini"), QSettings.Format.IniFormat)
    save_settings(settings, store)
    window = MainWindow(store)
    window.resize(*size)
    return window


@contextlib.contextmanager
def answer_server(url: str | None) -> Iterator[str]:
    """The OpenAI-compatible server the window classifies against: ``url``, or one started here.

    From a source checkout the bench starts the test server of :mod:`devtools.openai_server`
    (it answers SOV to a prompt that contains "SOV").  The built app does not carry devtools, so
    there the caller gives a running server (the packaging smoke test starts one beside the bundle).
    """
    if url:
        yield url
        return
    server = stub_server_class()().start()
    server.add_rule("SOV", "SOV")
    try:
        yield server.url
    finally:
        server.stop()


def first_evidence_child(project: Path, feature_id: str = FIRST_EVIDENCE_FEATURE, *, reranker: str | None = None,
                         timeout_s: float = 600.0, llm_url: str | None = None) -> dict:
    """In a new app process: seconds from the window showing to the feature's evidence, then to its final order.

    Waits until the book is embedded (the next process finds it so), then closes the project and opens
    it again in this process (``reopen``).  Run by ``bench gui-first-evidence``.
    """
    from gui.app import make_application

    app = make_application()
    out: dict = {"project": str(project), "feature": feature_id}
    with tempfile.TemporaryDirectory() as tmp, answer_server(llm_url) as server_url:
        window = _bench_window(Path(tmp), server_url, reranker, (1280, 800))
        out["reranker"] = window.settings.retrieval.reranker
        features, state = window.features, window.state
        seen: dict[str, float] = {}

        def evidence() -> None:
            if state.hits and state.feature is not None and state.feature.id == feature_id:
                now = time.perf_counter()
                seen.setdefault("first", now)
                seen.setdefault("first_provisional", float(any(h.provisional for h in state.hits)))
                if not any(h.provisional for h in state.hits):
                    seen.setdefault("final", now)

        features.evidenceChanged.connect(evidence)
        features.preparation.finished.connect(lambda: seen.setdefault("embedded", time.perf_counter()))
        features.preparation.progressed.connect(lambda *_: seen.setdefault("first_slice", time.perf_counter()))
        model_probe = _model_ready_probe(window, seen)
        started = time.perf_counter()
        window.show()
        window.open_project(project, feature=feature_id)
        out["open_call_s"] = round(time.perf_counter() - started, 3)  # the window's own opening, on the UI thread
        probe = StallProbe.start()  # from here on: what the background work costs the UI thread
        _wait(app, lambda: "final" in seen, timeout_s)
        out["ui_stall_until_final_evidence"] = probe.stop()
        _wait(app, lambda: features.preparation.done or features.preparation.last_error is not None, timeout_s)

        def since(key: str) -> float | None:
            return round(seen[key] - started, 3) if key in seen else None

        model_probe.stop()
        out.update(evidence_s=since("first"), first_was_provisional=bool(seen.get("first_provisional")),
                   final_evidence_s=since("final"), book_embedded_s=since("embedded"),
                   model_ready_s=since("model_ready"), first_slice_s=since("first_slice"),
                   paragraphs=features.preparation.embedded[1])
        if features.preparation.last_error is not None:
            out["preparation_error"] = str(features.preparation.last_error)
        window.projects.close()
        app.processEvents()
        seen.clear()
        started = time.perf_counter()
        window.open_project(project, feature=feature_id)
        _wait(app, lambda: "final" in seen, timeout_s)
        out["reopen"] = {"evidence_s": since("first"), "final_evidence_s": since("final")}
        window.close()
    return out


def _model_ready_probe(window: MainWindow, seen: dict[str, float]) -> QTimer:
    """A UI-thread timer that notes when the reranker has loaded (in its child process): part of the breakdown."""
    from gui.common import backend

    probe = QTimer()
    probe.setInterval(20)

    def look() -> None:
        retrieval = window.settings.retrieval
        if "model_ready" not in seen and not backend.model_loading(retrieval) and backend.model_ready(retrieval):
            seen["model_ready"] = time.perf_counter()

    probe.timeout.connect(look)
    probe.start()
    return probe


def measure_first_evidence(project: Path, work: Path, *, reranker: str | None = None,
                           feature_id: str = FIRST_EVIDENCE_FEATURE, llm_url: str | None = None) -> dict:
    """``first_evidence_s``: cold (a project as ingested, new process) and warm (embedded, new process)."""
    target = work / "first-evidence.grammarlens"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    shutil.copy(project, target)
    runs: dict = {}
    for name in ("cold", "warm"):
        command = [sys.executable, str(REPO / "main.py"), "bench", "gui-first-evidence", str(target),
                   "--feature", feature_id, "--json"]
        if reranker is not None:
            command += ["--reranker", reranker]
        if llm_url:
            command += ["--llm-url", llm_url]
        env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
        done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=1200)
        if done.returncode != 0:
            runs[name] = {"error": done.stderr.strip()[-2000:]}
            continue
        runs[name] = json.loads(done.stdout)
    cold, warm = runs.get("cold", {}), runs.get("warm", {})
    return {
        "cold": cold.get("evidence_s"), "cold_final": cold.get("final_evidence_s"),
        "cold_book_embedded": cold.get("book_embedded_s"), "warm": warm.get("evidence_s"),
        "warm_final": warm.get("final_evidence_s"), "reopen": (cold.get("reopen") or {}).get("evidence_s"),
        "reopen_final": (cold.get("reopen") or {}).get("final_evidence_s"), "runs": runs,
    }


def measure_key_pace(app, window, interval_s: float, steps: int = KEY_STEPS, feature_set: str = "grambank",
                     *, first_minute: bool = False) -> dict:
    """A coding pass where "next" comes every ``interval_s``: time from each key to that feature's evidence.

    Measured with the look-ahead on, once the book's preparation is over (a pass starts after the
    project opened), or with ``first_minute`` at once after a cold open while the book still embeds.
    A feature whose evidence had not come when the next key came is ``missed`` (its evidence is never
    shown: the coder has moved on), and ``final_missed`` counts those whose re-ranked order had not
    come.  UI stalls are those of the whole pass.
    """
    coding, features, state = window.coding, window.features, window.state
    if not first_minute:
        _wait(app, lambda: features.preparation.done or features.preparation.last_error is not None
              or not features.preparation.running, 600)
    coding.passes.lookahead.enabled = True
    coding.passes.lookahead.set_project(state.project_path)
    coding.passes.start_pass(feature_set)
    _wait(app, lambda: state.evidence_known and not features.retrieving, 120)
    shown: dict[str, float] = {}
    final: dict[str, float] = {}

    def evidence() -> None:
        if state.feature is not None and state.hits:
            now = time.perf_counter()
            shown.setdefault(state.feature.id, now)
            if not any(h.provisional for h in state.hits):
                final.setdefault(state.feature.id, now)

    features.evidenceChanged.connect(evidence)
    keys: list[tuple[str | None, float]] = []
    timer = QTimer()
    timer.setInterval(int(interval_s * 1000))

    def press() -> None:
        if len(keys) >= steps:
            timer.stop()
            return
        started = time.perf_counter()
        keys.append((None, started))
        keys[-1] = (coding.passes.next(), started)

    timer.timeout.connect(press)
    probe = StallProbe.start()
    timer.start()
    _wait(app, lambda: len(keys) >= steps, steps * interval_s + 120)
    timer.stop()
    _wait(app, lambda: keys[-1][0] in final, 60)
    stalls = probe.stop()
    features.evidenceChanged.disconnect(evidence)
    coding.passes.stop_pass()
    times, finals, missed, final_missed = [], [], 0, 0
    for n, (fid, at) in enumerate(keys):
        until = keys[n + 1][1] if n + 1 < len(keys) else float("inf")
        if fid is None:
            continue
        if fid in shown and at <= shown[fid] <= until:
            times.append((shown[fid] - at) * 1000)
        else:
            missed += 1
        if fid in final and at <= final[fid] <= until:
            finals.append((final[fid] - at) * 1000)
        else:
            final_missed += 1
    return {"interval_s": interval_s, "steps": len(keys), "missed": missed, "final_missed": final_missed,
            "first_minute": first_minute,
            "median_ms": round(statistics.median(times), 1) if times else None,
            "max_ms": round(max(times), 1) if times else None,
            "final_median_ms": round(statistics.median(finals), 1) if finals else None,
            "final_max_ms": round(max(finals), 1) if finals else None,
            "depth_at_end": coding.passes.lookahead.depth(), "ui_stalls": stalls}


def run_bench(pdf: Path = DEFAULT_PDF, *, reranker: str | None = None, repeats: int = 3,
              as_json: bool = False, demo: bool = False, only: str | None = None, llm_url: str | None = None) -> int:
    """The whole GUI bench (see the module docstring); ``only`` = "first-evidence" or "key-pace" runs one part."""
    from core.ingest import ingest_pdf
    from core.store import create_project
    from gui.app import build_demo_project, make_application

    app = make_application()
    results: dict = {"pdf": "demo" if demo else str(pdf)}
    with tempfile.TemporaryDirectory() as tmp, answer_server(llm_url) as server_url:
        started = time.perf_counter()
        if demo:
            project_path = build_demo_project(Path(tmp) / "demo")
        else:
            project_path = Path(tmp) / "bench.grammarlens"
            with create_project(project_path) as project:
                ingest_pdf(project, pdf)
        results["ingest_s"] = round(time.perf_counter() - started, 2)
        if only in (None, "first-evidence"):
            results["first_evidence_s"] = measure_first_evidence(project_path, Path(tmp), reranker=reranker,
                                                                 llm_url=server_url)
            if only == "first-evidence":
                return report_results(results, as_json, only)

        window = _bench_window(Path(tmp), server_url, reranker, (1400, 900))
        results["reranker"] = window.settings.retrieval.reranker
        window.show()
        _wait(app, lambda: window.catalog is not None, 30)
        if only == "key-pace":
            window.open_project(project_path)
            results["key_pace"] = [measure_key_pace(app, window, pace) for pace in KEY_PACES_S]
            window.close()
            return report_results(results, as_json, only)
        if only == "first-minute":  # a pass at a key a second from the opening of a project never embedded
            window.open_project(project_path)
            results["key_pace"] = [measure_key_pace(app, window, 1.0, steps=60, first_minute=True)]
            window.close()
            return report_results(results, as_json, only)

        # 1. first page of the ingested grammar (the project is closed and reopened each time)
        times = []
        for _ in range(repeats):
            window.projects.close()
            app.processEvents()
            rendered: list[float] = []  # the bench times the first page itself: the window keeps no bench field

            def first_page(_page: int, seen: list[float] = rendered) -> None:
                seen.append(time.perf_counter())

            window.pdf_view.pageRendered.connect(first_page)
            started = time.perf_counter()
            window.open_project(project_path)
            _wait(app, lambda seen=rendered: bool(seen), 30)
            window.pdf_view.pageRendered.disconnect(first_page)
            times.append(rendered[0] - started if rendered else float("nan"))
        results["pages"] = window.pdf_view.page_count
        results["first_page_s"] = {"median": round(statistics.median(times), 3), "max": round(max(times), 3),
                                   "runs": [round(t, 3) for t in times]}

        # 2. UI stalls while retrieval (with the reranker) and classification run in the background
        probe = StallProbe.start()
        started = time.perf_counter()
        window.select_feature("81A")  # retrieval; the first one loads the embedding model
        _wait(app, lambda: not window.features.retrieving, 300)
        results["retrieve_s"] = round(time.perf_counter() - started, 2)
        results["ui_stall_during_first_retrieval"] = probe.stop()
        probe = StallProbe.start()
        started = time.perf_counter()
        window.features.classify()
        ok = _wait(app, lambda: not window.features.classifying, 300)
        results["classify_s"] = round(time.perf_counter() - started, 2)
        results["ui_stall_during_classification"] = probe.stop()
        results["value"] = window.value_panel.value_label.text() if ok else "timed out"
        from bench.gui_coding import measure_next_feature

        results["next_feature"] = measure_next_feature(app, window, _wait)  # 3. a coding pass, look-ahead on/off
        results["key_pace"] = [measure_key_pace(app, window, pace) for pace in KEY_PACES_S]  # 4. at a coder's pace
        window.close()
    return report_results(results, as_json, only)
