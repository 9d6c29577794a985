"""A decision the window showed as stored survives SIGKILL (issue 19 "Never lose a linguist's work").

A real GrammarLens window in its own process (:mod:`tests.gui.coding_process`) codes a pass from the
keyboard and prints ``ACK <feature> <code>`` only once the window shows the decision as stored.  It is
killed with SIGKILL at a random (seeded) moment, 20 times, always on the same project file so that damage
would accumulate: sometimes while it starts and opens the project (which may write a backup), mostly in
the middle of coding.  After every kill the project opens with :func:`core.store.open_project`,
``PRAGMA integrity_check`` is ok, and the stored decisions are exactly the acknowledged ones (plus, for
the one decision in flight when the kill came, either its old or its new value): nothing shown was lost,
nothing unseen appeared.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from core.store import open_project
from core.store.decisions import current_decisions

REPO = Path(__file__).resolve().parents[2]
KILLS = 20
SEED = 19
START_TIMEOUT_S = 60  # a process that never says READY (two busy cores may slow start-up a lot)


class CodingProcess:
    """The window process and what it printed, read by a thread as it comes."""

    def __init__(self, project: Path, settings: Path, seed: int, log: Path) -> None:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
        self.stderr = log.open("w", encoding="utf-8")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.gui.coding_process", str(project), str(settings), str(seed)],
            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=self.stderr, text=True, bufsize=1)
        self.lines: list[str] = []
        self.ready = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if not line.endswith("\n"):
                break  # cut short by the kill: not a complete message
            self.lines.append(line.rstrip("\n"))
            if line.startswith("READY"):
                self.ready.set()

    def kill(self) -> list[str]:
        """SIGKILL (no clean-up of any kind runs), then everything it printed before dying."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)
        self._reader.join(30)
        self.stderr.close()
        return list(self.lines)


def _stored(project_path: Path) -> dict[str, str | None]:
    """Open the project as anyone would after the crash; check it; the current value of every decided feature."""
    with open_project(project_path) as project:
        assert project.conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        return {fid: d.value for fid, d in current_decisions(project).items()}


def _acknowledged(lines: list[str], before: dict[str, str | None]) -> tuple[dict[str, str | None], tuple | None]:
    """What the person saw stored (``before`` updated by every ACK, in order), and the decision in flight."""
    expected, pending = dict(before), None
    for line in lines:
        word, *rest = line.split()
        assert word in ("READY", "TRY", "ACK"), f"the window process said: {line}"
        if word == "TRY":
            pending = tuple(rest)
        elif word == "ACK":
            assert tuple(rest) == pending
            expected[rest[0]] = rest[1]
            pending = None
    return expected, pending


@pytest.mark.slow
def test_decisions_shown_as_stored_survive_twenty_kills(demo_project, gui_store, tmp_path) -> None:
    gui_store.sync()  # the child reads the same settings: no model, no key
    settings = Path(gui_store.fileName())
    rng = random.Random(SEED)
    started = time.monotonic()
    stored = _stored(demo_project)
    assert stored == {}
    acked = in_flight_kept = in_flight_lost = during_start = 0
    for run in range(KILLS):
        child = CodingProcess(demo_project, settings, rng.randrange(1 << 30), tmp_path / f"stderr-{run}.txt")
        if rng.random() < 0.2:  # while it starts: imports, opening the project, its backup, the first pass
            time.sleep(rng.uniform(0.2, 2.0))
        else:
            assert child.ready.wait(START_TIMEOUT_S), (tmp_path / f"stderr-{run}.txt").read_text()
            time.sleep(rng.uniform(0.0, 1.5))
        during_start += not child.ready.is_set()
        assert child.process.poll() is None, (tmp_path / f"stderr-{run}.txt").read_text()  # alive until killed
        lines = child.kill()
        expected, pending = _acknowledged(lines, stored)
        now = _stored(demo_project)
        if pending is not None:  # sent but not yet shown when the kill came: old or new value, nothing else
            fid, code = pending
            assert now.get(fid) in (expected.get(fid), code), (run, fid, code, now.get(fid))
            in_flight_kept += now.get(fid) == code != expected.get(fid)
            in_flight_lost += now.get(fid) == expected.get(fid) != code
            expected[fid] = now.get(fid)
            if expected[fid] is None:
                del expected[fid]
        assert now == expected, (run, {f: (expected.get(f), now.get(f)) for f in set(now) | set(expected)
                                       if expected.get(f) != now.get(f)})
        acked += sum(line.startswith("ACK") for line in lines)
        stored = now
    elapsed = time.monotonic() - started
    print(f"\n{KILLS} kills ({during_start} during start-up), {acked} decisions acknowledged and all stored, "
          f"{len(stored)} features decided; in flight at the kill: {in_flight_kept} stored, {in_flight_lost} not; "
          f"{elapsed:.0f} s")
    assert acked >= 100  # the kills really came in the middle of coding


def test_the_window_commits_with_a_synced_log_so_a_power_cut_loses_nothing_shown(qtbot, main_window,
                                                                                  demo_project) -> None:
    """kill -9 cannot lose a commit in WAL mode; an OS crash can, unless the log is synced at every commit."""
    assert main_window.open_project(demo_project)
    assert main_window.projects.project.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
