"""The window shows errors (issue 19): a failure in an action, a slot, a paint event or a background job
opens the error dialog (a user's error: message and hint; a bug: with the traceback to copy), a burst of one
error opens one dialog, the failed step is abandoned and the next action works."""

from __future__ import annotations

import sqlite3
import threading

import pytest
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from core import coding
from core.errors import GrammarLensError
from core.store import open_project
from gui.common.error_reporting import install_exception_hooks
from gui.common.operations import Operation

SLOW_MS = 20_000


@pytest.fixture
def hooked_window(qtbot, main_window, demo_project):
    """The window with the app's exception hooks installed (as gui.app.run_app does) and the demo's 81A shown.

    pytest-qt's own capture of exceptions in Qt slots is off for these tests (qt_no_exception_capture):
    the app's hook is what is tested.
    """
    uninstall = install_exception_hooks(main_window.show_error)
    with qtbot.waitSignal(main_window.retrievalFinished, timeout=SLOW_MS):
        assert main_window.open_project(demo_project, feature="81A")
    yield main_window
    uninstall()


def _visible_boxes(window) -> list[QMessageBox]:
    return [box for box in window.findChildren(QMessageBox) if box.isVisible()]


def _code(qtbot, window, value: str) -> None:
    """Code the feature on screen as the coding panel's Set does, and wait until it is stored."""
    with qtbot.waitSignal(window.projects.changes.changed, timeout=5000):
        assert window.coding.set_value(value)


@pytest.mark.qt_no_exception_capture
def test_a_bug_in_a_menu_action_shows_one_dialog_with_details_and_the_window_goes_on(
        qtbot, hooked_window, demo_project, capsys) -> None:
    window = hooked_window
    broken = QAction("Broken step", window)
    counts = {"runs": 0}

    def broken_step() -> None:  # a bug that also leaves a write transaction open on the window's connection
        counts["runs"] += 1
        window.projects.project.conn.execute("BEGIN IMMEDIATE")
        raise ZeroDivisionError(f"division by zero in run {counts['runs']}")

    broken.triggered.connect(broken_step)
    window.menuBar().actions()[0].menu().addAction(broken)  # the Project menu
    with qtbot.waitSignal(window.errorShown, timeout=5000) as shown:
        broken.trigger()
    assert "division by zero" in shown.args[0]
    box = window.last_message_box
    assert box.isVisible() and box.icon() == QMessageBox.Icon.Critical
    assert "Something went wrong inside GrammarLens" in box.text() and "bug" in box.informativeText()
    details = box.detailedText()
    assert "Traceback" in details and "ZeroDivisionError" in details and "broken_step" in details
    assert "GrammarLens 0." in details and "Python" in details  # versions for the bug report
    assert "ZeroDivisionError" in capsys.readouterr().err  # still printed for a terminal, as before
    assert not window.projects.project.conn.in_transaction  # the failed step was abandoned (rolled back)

    # a burst of the same bug (the person clicks again and again): still one dialog
    for _ in range(30):
        broken.trigger()
        QApplication.processEvents()  # as between two clicks
    qtbot.waitUntil(lambda: counts["runs"] == 31 and "again: 31 times" in window.statusBar().currentMessage(),
                    timeout=5000)
    assert window.errors.boxes_opened == 1 and _visible_boxes(window) == [box]
    box.close()

    # the window still works: the next action stores a decision (no lock left behind)
    _code(qtbot, window, "1")
    with open_project(demo_project) as project:
        assert coding.current(project, "81A").value == "1"


@pytest.mark.qt_no_exception_capture
def test_a_paint_event_failing_on_every_repaint_opens_one_dialog(qtbot, hooked_window) -> None:
    window = hooked_window

    class Broken(QWidget):
        paints = 0

        def paintEvent(self, event) -> None:
            Broken.paints += 1
            raise KeyError(f"row {Broken.paints}")  # the message differs, the place does not: one error

    widget = Broken(window.statusBar())
    window.statusBar().addPermanentWidget(widget)  # a status message hides the others
    widget.setMinimumSize(20, 10)
    widget.show()
    with qtbot.waitSignal(window.errorShown, timeout=5000):
        widget.update()  # painted by the event loop, as every repaint is
    for _ in range(10):
        widget.update()
        qtbot.wait(5)
    qtbot.waitUntil(lambda: Broken.paints >= 11, timeout=5000)
    qtbot.wait(50)  # the queued reports of the repaints
    assert window.errors.boxes_opened == 1
    assert "KeyError" in window.last_message_box.detailedText()
    widget.hide()
    window.statusBar().removeWidget(widget)
    window.last_message_box.close()


@pytest.mark.qt_no_exception_capture
def test_a_background_bug_is_shown_even_when_its_failure_callback_stays_quiet(qtbot, hooked_window) -> None:
    window = hooked_window
    quiet: list[BaseException] = []

    def user_error(progress):
        raise GrammarLensError("The grammar is gone.", "Put it back.")

    def bug(progress):
        return {}["missing key"]

    # a user's error handled by its callback (as the look-ahead does): no dialog
    with qtbot.assertNotEmitted(window.errorShown, wait=300):
        op = Operation(window.runner, user_error).failure(quiet.append).run_in_background()
        qtbot.waitUntil(lambda: not op.running, timeout=5000)
    # a bug: the quiet callback runs (its panel is put back), and the dialog shows it with its traceback
    with qtbot.waitSignal(window.errorShown, timeout=5000):
        Operation(window.runner, bug).failure(quiet.append).run_in_background()
    assert [type(e).__name__ for e in quiet] == ["GrammarLensError", "KeyError"]
    box = window.last_message_box
    assert box.icon() == QMessageBox.Icon.Critical and "in bug" in box.detailedText()
    assert window.errors.boxes_opened == 1
    box.close()


@pytest.mark.qt_no_exception_capture
def test_a_locked_project_says_what_to_do_without_a_traceback_and_the_retry_works(
        qtbot, hooked_window, demo_project) -> None:
    window = hooked_window
    window.projects.project.conn.execute("PRAGMA busy_timeout = 300")  # core waits 10 s for a lock: not here
    other = sqlite3.connect(demo_project)  # another program holds the write lock
    other.execute("BEGIN IMMEDIATE")
    try:
        with qtbot.waitSignal(window.errorShown, timeout=15_000):
            assert not window.coding.set_value("2")
        box = window.last_message_box
        assert box.isVisible() and box.icon() == QMessageBox.Icon.Warning
        assert "locked" in box.text() and box.informativeText()  # what went wrong, what to do
        assert box.detailedText() == ""  # the person's to act on: no traceback
    finally:
        other.rollback()
        other.close()
    box.close()
    _code(qtbot, window, "2")  # the lock is gone: the same action works now
    assert window.coding_panel.view.current_code == "2"
    assert window.errors.boxes_opened == 1


@pytest.mark.qt_no_exception_capture
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_bug_in_a_python_thread_is_shown_from_the_gui_thread(qtbot, hooked_window) -> None:
    window = hooked_window
    thread = threading.Thread(target=lambda: {}["gone"], name="helper")
    with qtbot.waitSignal(window.errorShown, timeout=5000):
        thread.start()
        thread.join()
    box = window.last_message_box
    assert box.isVisible() and "KeyError" in box.detailedText() and "gone" in box.text()
    box.close()


def test_a_burst_is_one_dialog_but_a_later_retry_is_told_again(qtbot) -> None:
    from PySide6.QtWidgets import QWidget as Parent

    from gui.common.error_reporting import ErrorReporter

    parent = Parent()
    qtbot.addWidget(parent)
    now = [100.0]
    reporter = ErrorReporter(parent, clock=lambda: now[0])
    locked = GrammarLensError("The project is locked.", "Close the other program.")
    first = reporter.report("Not saved", locked)
    first.close()
    now[0] += 1.0  # the same failure a second later, its box already closed: still the same burst
    assert reporter.report("Not saved", locked) is first and reporter.boxes_opened == 1
    now[0] += 5.0  # the person tried again after a while: told again
    second = reporter.report("Not saved", locked)
    assert second is not first and reporter.boxes_opened == 2 and second.detailedText() == ""
    other = GrammarLensError("The disk is full.", "Free some space.")
    assert reporter.report("Not saved", other) is not second and reporter.boxes_opened == 3  # another error
    for box in parent.findChildren(QMessageBox):
        box.close()
