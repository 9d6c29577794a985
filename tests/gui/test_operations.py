"""Background operations: callbacks on the UI thread, unhandled failures reported, cancel, replace."""

from __future__ import annotations

import threading
import time

import pytest
from PySide6.QtCore import QThread

from core.errors import GrammarLensError
from gui.common.operations import Operation, OperationRunner, replace

WAIT_MS = 5000


@pytest.fixture
def runner(qtbot):
    runner = OperationRunner()
    yield runner
    assert runner.shutdown(5000)


def _slow(started: threading.Event):
    def job(progress):
        started.set()
        for i in range(5000):
            progress.step(i, 5000, f"step {i}")
            threading.Event().wait(0.002)
        return "finished"
    return job


def test_success_runs_on_the_ui_thread_then_finished(qtbot, runner) -> None:
    seen: list[tuple[str, object]] = []
    op = (Operation(runner, lambda progress: threading.current_thread().name)
          .success(lambda value: seen.append(("success", QThread.currentThread() is runner.thread())))
          .finished(lambda: seen.append(("finished", None))))
    op.run_in_background()
    qtbot.waitUntil(lambda: len(seen) == 2, timeout=WAIT_MS)
    assert seen == [("success", True), ("finished", None)] and not op.running
    with pytest.raises(RuntimeError):
        op.run_in_background()  # an operation runs once


def test_a_failure_nobody_handles_reaches_the_runner(qtbot, runner) -> None:
    def boom(progress):
        raise GrammarLensError("The grammar is gone.", "Put it back.")

    with qtbot.waitSignal(runner.failed, timeout=WAIT_MS) as failed:
        Operation(runner, boom).with_progress("Reading").run_in_background()
    assert failed.args[0] == "Reading" and failed.args[1].message == "The grammar is gone."
    handled: list[BaseException] = []
    with qtbot.assertNotEmitted(runner.failed, wait=200):
        op = Operation(runner, boom).failure(handled.append).run_in_background()
        qtbot.waitUntil(lambda: not op.running and bool(handled), timeout=WAIT_MS)
    assert isinstance(handled[0], GrammarLensError)


def test_visible_operations_report_progress_and_cancel_together(qtbot, runner) -> None:
    started = threading.Event()
    cancelled: list[bool] = []
    quiet_started = threading.Event()
    quiet = Operation(runner, _slow(quiet_started)).run_in_background()
    with qtbot.waitSignal(runner.progressed, timeout=WAIT_MS) as progressed:
        loud = (Operation(runner, _slow(started)).cancelled(lambda: cancelled.append(True))
                .with_progress("Counting").run_in_background())
    assert progressed.args[0] == "Counting"
    assert runner.visible() == [loud] and runner.busy  # the quiet one is not shown
    with qtbot.waitSignal(runner.changed, timeout=WAIT_MS):
        runner.cancel_visible()
    assert cancelled == [True] and runner.visible() == [] and quiet.running
    quiet.cancel()
    qtbot.waitUntil(lambda: not quiet.running, timeout=WAIT_MS)


def test_replace_cancels_the_old_operation_so_only_the_new_result_arrives(qtbot, runner) -> None:
    results: list[str] = []
    started = threading.Event()
    old = Operation(runner, _slow(started)).success(results.append).run_in_background()
    assert started.wait(3)
    new = replace(old, Operation(runner, lambda progress: "new").success(results.append))
    qtbot.waitUntil(lambda: not old.running and not new.running, timeout=WAIT_MS)
    assert results == ["new"]
    # a replaced operation whose job had already returned delivers nothing either
    done_early = Operation(runner, lambda progress: "stale").success(results.append).run_in_background()
    while not done_early.worker.done:  # returned; no event processed here, so the result is not delivered yet
        time.sleep(0.001)
    last = replace(done_early, Operation(runner, lambda progress: "fresh").success(results.append))
    qtbot.waitUntil(lambda: not last.running and not done_early.running, timeout=WAIT_MS)
    assert results == ["new", "fresh"]
