"""Smoke-test a frozen GrammarLens bundle: what a linguist does first, run as separate processes.

    python packaging/smoke_test.py dist/GrammarLens-lite
    python packaging/smoke_test.py dist/GrammarLens-full --grammar ../shared/grammars/074_Chakali.pdf

Checks, in order: ``--version`` (which must name the variant and build date); the desktop app starts
offscreen on its demo project and closes itself (``gui --demo --quit-after``), and again on the real X11
platform (xcb) on a private Xvfb server when Xvfb is installed (a bundle or machine lacking the xcb
libraries fails there); ``bench gui`` on the generated demo grammar (``demo``, on xcb too when Xvfb is
there), which drives the whole window (open, retrieve, classify against the local OpenAI-compatible
server of devtools/openai_server.py, which this script runs: the bundle leaves devtools out; a coding
pass with look-ahead); a real grammar is ingested into a new project and WALS 81A retrieved from it,
headless; then the variant's reranker behaviour: the lite build refuses a reranker with a message that
names the full build. The full build must hold every data file and package metadata the reranker reads
when run from the checkout (packaging/runtime_files.py names any that is missing), rerank with the
bundled MiniLM model offline in an order of its own (its top 20 follow its scores and differ from BM25's
order on the same book, so a reranker silently falling back to BM25 fails), and rerank again with the
Hugging Face offline switches unset, as on a user's machine.

Every run uses a fresh temporary home, so the user's settings and projects are never touched and a
missing file inside the bundle cannot be papered over by one lying around on the build machine.
Exit code 0 when every check passes; each failure prints the command and the end of its output.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent
GRAMMARS = ROOT.parent / "shared" / "grammars"
# The shortest of the shared grammars (228 pages): a real book with a chapter on word order, yet a quick ingest.
DEFAULT_GRAMMAR = GRAMMARS / "354_Iranian_Armenian.pdf"
FEATURE = "81A"


@dataclass
class Outcome:
    """One check's result, with what is needed to understand a failure."""

    name: str
    ok: bool
    seconds: float
    detail: str = ""


@dataclass
class SmokeTest:
    """Runs the bundle's executable in an isolated home and collects outcomes."""

    app: Path  # the launcher for the command line
    gui_app: Path  # the double-clicked one (the same file except on Windows)
    variant: str
    grammar: Path
    home: Path
    timeout_s: float = 300.0
    display: str | None = None  # a private X server for the checks on the xcb platform
    llm_url: str = ""  # the OpenAI-compatible test server this script runs (the bundle carries none)
    outcomes: list[Outcome] = field(default_factory=list)

    def env(self, platform: str = "offscreen", online: bool = False) -> dict[str, str]:
        """The user's environment, pointed at a throwaway home on every OS, offline, on ``platform``
        (offscreen or xcb); ``online`` leaves the Hugging Face offline switches unset, as on a user's machine."""
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("PYTHON", "QT_", "XDG_", "HF_", "TRANSFORMERS_"))}
        env.update({
            "HOME": str(self.home), "USERPROFILE": str(self.home),
            "APPDATA": str(self.home / "AppData" / "Roaming"), "LOCALAPPDATA": str(self.home / "AppData" / "Local"),
            "XDG_CONFIG_HOME": str(self.home / ".config"), "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "XDG_CACHE_HOME": str(self.home / ".cache"), "XDG_RUNTIME_DIR": str(self.home / "runtime"),
            "QT_QPA_PLATFORM": platform, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
            "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
        })
        if platform == "xcb" and self.display:
            env["DISPLAY"] = self.display
        if online:
            del env["HF_HUB_OFFLINE"], env["TRANSFORMERS_OFFLINE"]
        env.pop("OPENAI_API_KEY", None)
        return env

    def run(self, args: list[str], timeout_s: float | None = None,
            platform: str = "offscreen", online: bool = False) -> subprocess.CompletedProcess[str]:
        """Run the executable; a hang becomes a failed check (returncode -9), never a stuck CI job."""
        command = [str(self.gui_app if args[:1] == ["gui"] else self.app), *args]
        try:
            return subprocess.run(command, cwd=self.home, env=self.env(platform, online), capture_output=True,
                                  text=True, encoding="utf-8", errors="replace", timeout=timeout_s or self.timeout_s)
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            err = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else (exc.stderr or "")
            return subprocess.CompletedProcess(command, -9, out, err + f"\n[timed out after {exc.timeout} s]")

    def check(self, name: str, args: list[str], verify, timeout_s: float | None = None,
              platform: str = "offscreen", online: bool = False) -> subprocess.CompletedProcess[str]:
        """Run one command and record whether ``verify(result)`` holds (it returns '' or a reason)."""
        started = time.perf_counter()
        result = self.run(args, timeout_s, platform, online)
        try:
            reason = verify(result)
        except Exception as exc:
            reason = f"{type(exc).__name__}: {exc}"
        seconds = time.perf_counter() - started
        detail = ""
        if reason:
            detail = (f"{reason}\n  command: {' '.join(result.args)}\n  exit code: {result.returncode}\n"
                      f"  stdout (end): {result.stdout[-1500:]}\n  stderr (end): {result.stderr[-2500:]}")
        self.outcomes.append(Outcome(name, not reason, seconds, detail))
        print(f"{'ok  ' if not reason else 'FAIL'} {name} ({seconds:.1f} s)", flush=True)
        if reason:
            print(detail, flush=True)
        return result

    def run_all(self) -> bool:
        project = self.home / "smoke.grammarlens"
        version = self.check("--version", ["--version"], _expect_version, timeout_s=60)
        print(f"     {(version.stdout + version.stderr).strip()}", flush=True)
        self.check("gui starts offscreen on the demo and quits", ["gui", "--demo", "--quit-after", "4"],
                   self._expect_gui, timeout_s=120)
        demo = self.home / "demo_grammar.pdf"
        self.check("demo writes the sample grammar", ["demo", str(demo)],
                   lambda r: "" if r.returncode == 0 and demo.is_file() else "no demo PDF was written", timeout_s=60)
        bench_gui = ["bench", "gui", str(demo), "--repeats", "1", "--json", "--llm-url", self.llm_url]
        self.check("bench gui on the demo grammar", bench_gui, _expect_bench_gui, timeout_s=180)
        if self.display:
            self.check(f"gui starts on xcb (Xvfb {self.display}) on the demo and quits",
                       ["gui", "--demo", "--quit-after", "4"], self._expect_gui, timeout_s=120, platform="xcb")
            self.check("bench gui on the demo grammar, on xcb", bench_gui, _expect_bench_gui, timeout_s=180,
                       platform="xcb")
        self.check(f"ingest {self.grammar.name}", ["ingest", str(self.grammar), "--project", str(project)],
                   _expect_ingest)
        self.check(f"retrieve {FEATURE} (default ranking)", ["retrieve", str(project), "--feature", FEATURE, "--json"],
                   lambda r: _expect_hits(r, dense=self.variant == "full"))
        if self.variant == "lite":
            self.check("lite build explains the missing reranker",
                       ["retrieve", str(project), "--feature", FEATURE, "--rerank", "all-MiniLM-L6-v2", "--no-save"],
                       _expect_lite_message, timeout_s=60)
        else:
            self.check_runtime_files()
            bm25 = self.run(["retrieve", str(project), "--feature", FEATURE, "--rerank", "none", "--ranking", "bm25",
                             "--top", "20", "--no-save", "--json"], timeout_s=120)
            self.check("full build reranks with MiniLM offline, in an order of its own (not BM25's)",
                       ["retrieve", str(project), "--feature", FEATURE, "--rerank", "all-MiniLM-L6-v2",
                        "--ranking", "dense", "--top", "20", "--no-save", "--json"],
                       lambda r: _expect_hits(r, dense=True, topical=False) or _expect_own_order(r, bm25))
            self.check("full build reranks with HF_HUB_OFFLINE unset (no network needed)",
                       ["retrieve", str(project), "--feature", FEATURE, "--rerank", "all-MiniLM-L6-v2",
                        "--no-save", "--json"], lambda r: _expect_hits(r, dense=True), online=True)
        return all(o.ok for o in self.outcomes)

    def check_runtime_files(self) -> None:
        """Every data file and package metadata the reranker reads when run from the checkout is in the bundle.

        Names the missing file itself (``kernels/_internals/python_depends.json``), where the rerank
        check below only shows the error a user would see.
        """
        sys.path.insert(0, str(ROOT / "packaging"))
        from runtime_files import missing_from_bundle, trace_reranker

        started = time.perf_counter()
        try:
            traced = trace_reranker()
            missing = missing_from_bundle(self.app.parent, traced)
            detail = f"missing from the bundle: {', '.join(missing)}" if missing else ""
        except Exception as exc:  # the trace itself failed: report it as this check's failure
            missing, detail = ["?"], f"{type(exc).__name__}: {exc}"
        seconds = time.perf_counter() - started
        name = "the bundle has every data file and package metadata the reranker reads"
        self.outcomes.append(Outcome(name, not missing, seconds, detail))
        print(f"{'ok  ' if not missing else 'FAIL'} {name} ({seconds:.1f} s)", flush=True)
        if missing:
            print(detail, flush=True)

    def _expect_gui(self, result: subprocess.CompletedProcess[str]) -> str:
        if result.returncode != 0:
            return "the app did not exit cleanly"
        if "Traceback" in result.stderr:
            return "a traceback was printed"
        demos = list(self.home.rglob("*demo*.grammarlens"))
        return "" if demos else "no demo project was written, so the start-up path did not run"


def _expect_version(result: subprocess.CompletedProcess[str]) -> str:
    text = result.stdout + result.stderr
    if result.returncode != 0:
        return "non-zero exit"
    if not re.search(r"GrammarLens \d+\.\d+", text):
        return "no 'GrammarLens X.Y' in the output"
    return "" if re.search(r"(lite|full) build of \d{4}-\d\d-\d\d", text) else "no variant and build date in the output"


def _expect_bench_gui(result: subprocess.CompletedProcess[str]) -> str:
    """The window ran every step of ``bench gui``: page shown, evidence retrieved, value classified, pass stepped.

    Its exit code 1 (a speed target missed) is accepted: a smoke test checks that the frozen app has
    what the bench needs (the local server, the window, the look-ahead), not how fast a busy CI
    machine is; the numbers are ``bench gui``'s job.
    """
    if result.returncode not in (0, 1) or "Traceback" in result.stderr:
        return "bench gui crashed"
    numbers = json.loads(result.stdout)
    if numbers["pages"] < 5:
        return f"the demo grammar showed {numbers['pages']} pages"
    if numbers["value"] != "SOV":
        return f"classification against the local server gave {numbers['value']!r}, not SOV"
    steps = numbers["next_feature"]["lookahead"]["runs_ms"] + numbers["next_feature"]["no_lookahead"]["runs_ms"]
    return "" if steps and all(ms == ms for ms in steps) else "a coding-pass step never showed its evidence"


def _expect_ingest(result: subprocess.CompletedProcess[str]) -> str:
    if result.returncode != 0:
        return "ingest failed"
    match = re.search(r"(\d+) pages, (\d+) paragraphs", result.stdout)
    if not match:
        return "no 'N pages, M paragraphs' line"
    return "" if int(match.group(2)) >= 100 else f"only {match.group(2)} paragraphs from a real grammar"


def _expect_hits(result: subprocess.CompletedProcess[str], *, dense: bool, topical: bool = True) -> str:
    """Enough hits, on word order (for the default ranking), with or without a reranker score as expected."""
    if result.returncode != 0:
        return "retrieve failed"
    hits = json.loads(result.stdout)["hits"]
    if len(hits) < 5:
        return f"only {len(hits)} hits"
    if topical and not any("order" in (h["text"] + h["section"]).lower() for h in hits[:10]):
        return "no hit among the top 10 mentions word order"
    has_dense = all("dense" in h["signals"] for h in hits)
    if dense and not has_dense:
        return "the hits carry no reranker (dense) score"
    if not dense and any("dense" in h["signals"] for h in hits):
        return "the lite build reranked with a model it should not have"
    return ""


def _expect_own_order(result: subprocess.CompletedProcess[str], bm25: subprocess.CompletedProcess[str]) -> str:
    """The reranker's top 20 follow its own scores and differ from BM25's order on the same candidates.

    A reranker that silently fell back to BM25 (a model that failed to load, a provisional ranking)
    would give BM25's order back, or scores that decide nothing; both fail here.
    """
    if bm25.returncode != 0:
        return f"the BM25 retrieval to compare with failed: {bm25.stderr[-500:]}"
    hits, lexical = json.loads(result.stdout)["hits"], json.loads(bm25.stdout)["hits"]
    if any(h.get("provisional") for h in hits):
        return "the reranked hits are marked provisional"
    if not hits or any("dense" not in h["signals"] for h in hits):
        return "the hits carry no reranker (dense) score"
    dense = [h["signals"]["dense"] for h in hits]
    if len(set(dense)) < len(dense) // 2:
        return f"the reranker's scores barely differ: {dense[:10]}"
    if dense != sorted(dense, reverse=True):
        return "the hits are not in the order of the reranker's scores"
    ours, theirs = [h["paragraph_id"] for h in hits], [h["paragraph_id"] for h in lexical]
    if ours == theirs:
        return "the reranked order is BM25's order: the reranker did not rank"
    return ""


def _expect_lite_message(result: subprocess.CompletedProcess[str]) -> str:
    if result.returncode != 2:
        return "expected exit code 2 (a user error with a hint)"
    if "Traceback" in result.stderr or "No module named" in result.stderr:
        return "a bare import error reached the user"
    if "lite build" in result.stderr and "full build" in result.stderr:
        return ""
    return "no mention of the lite/full build"


@contextlib.contextmanager
def private_x_display():
    """A private Xvfb server's DISPLAY (Xvfb picks a free number), or None where Xvfb is not installed."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None or sys.platform != "linux":
        yield None
        return
    read_fd, write_fd = os.pipe()
    server = subprocess.Popen([xvfb, "-displayfd", str(write_fd), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                              pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
    with os.fdopen(read_fd) as numbers:
        number = numbers.readline().strip()
    try:
        yield f":{number}" if number else None
    finally:
        server.terminate()
        server.wait(timeout=10)


def executable(folder: Path, names: tuple[str, ...] = ("GrammarLens.exe", "GrammarLens")) -> Path:
    """The first launcher of ``names`` in a one-folder bundle."""
    for name in names:
        if (folder / name).is_file():
            return folder / name
    raise SystemExit(f"No {names[-1]} executable in {folder}; build it with packaging/build.py")


@contextlib.contextmanager
def answer_server() -> Iterator[str]:
    """The checkout's OpenAI-compatible test server (devtools), answering SOV where a prompt says SOV.

    The bundle leaves devtools out, so this script, run from the checkout, brings the server.
    """
    sys.path.insert(0, str(ROOT))
    from devtools.openai_server import OpenAIStubServer

    server = OpenAIStubServer().start()
    server.add_rule("SOV", "SOV")
    try:
        yield server.url
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Smoke-test a frozen GrammarLens bundle.")
    parser.add_argument("bundle", type=Path, help="the bundle folder, e.g. dist/GrammarLens-lite")
    parser.add_argument("--variant", choices=("lite", "full"), help="default: from the folder name")
    parser.add_argument("--grammar", type=Path, default=DEFAULT_GRAMMAR, help=f"default {DEFAULT_GRAMMAR.name}")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per command (default 300)")
    args = parser.parse_args(argv)
    variant = args.variant or ("full" if args.bundle.name.endswith("full") else "lite")
    if not args.grammar.is_file():
        raise SystemExit(f"{args.grammar} is missing: the smoke test ingests a real grammar from ../shared/grammars")
    started = time.perf_counter()
    with (tempfile.TemporaryDirectory(prefix="grammarlens-smoke-") as home, private_x_display() as display,
          answer_server() as llm_url):
        folder = args.bundle.resolve()
        cli = executable(folder, ("GrammarLens-cli.exe", "GrammarLens.exe", "GrammarLens"))
        test = SmokeTest(cli, executable(folder), variant, args.grammar.resolve(), Path(home),
                         timeout_s=args.timeout, display=display, llm_url=llm_url)
        ok = test.run_all()
    failed = [o.name for o in test.outcomes if not o.ok]
    print(f"smoke test of the {variant} build: {'all' if ok else 'NOT all'} {len(test.outcomes)} checks good"
          f"{'' if ok else ' - failing: ' + ', '.join(failed)} ({time.perf_counter() - started:.0f} s)", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
