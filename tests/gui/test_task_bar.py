"""The task bar: the newest visible operation with its progress, Cancel, hidden when idle."""

from __future__ import annotations

import threading

from PySide6.QtCore import Qt

from gui.common.operations import Operation, OperationRunner
from gui.common.task_bar import TaskBar


def test_task_bar_shows_progress_and_cancels_the_visible_operation(qtbot) -> None:
    runner = OperationRunner()
    bar = TaskBar(runner)
    qtbot.addWidget(bar)
    bar.show()
    assert not bar.cancel_button.isVisible() and not bar.progress_bar.isVisible()
    quiet = Operation(runner, lambda progress: "catalog").run_in_background()
    qtbot.waitUntil(lambda: not quiet.running, timeout=3000)
    assert not bar.cancel_button.isVisible()  # quiet work never shows

    def job(progress):
        for i in range(10_000):
            progress.step(i, 10_000, f"page {i}")
            threading.Event().wait(0.001)

    cancelled = threading.Event()
    with qtbot.waitSignal(runner.progressed, timeout=3000):
        op = Operation(runner, job).cancelled(cancelled.set).with_progress("Reading grammar.pdf").run_in_background()
    qtbot.waitUntil(lambda: bar.progress_bar.maximum() == 10_000, timeout=3000)
    assert bar.cancel_button.isVisible() and bar.label.text().startswith("Reading grammar.pdf: page")
    with qtbot.waitSignal(runner.changed, timeout=3000):
        qtbot.mouseClick(bar.cancel_button, Qt.MouseButton.LeftButton)
    assert cancelled.is_set() and not op.running
    assert not bar.cancel_button.isVisible() and bar.label.text() == ""
    assert runner.shutdown(3000)
