"""Who is coding: asked once, at the first act, kept in the settings and shared with the CLI (issue 29)."""

from __future__ import annotations

import getpass
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtGui import QPainter

from core.coding import reviewer
from core.store import open_project
from core.store.decisions import current_decisions
from tests.fixtures_gui import open_then_evidence

WAIT_MS = 20_000
SCREENSHOT = "/tmp/grammarlens-first-act-name-question.png"


@pytest.fixture
def nameless(monkeypatch):
    """Nobody gave a name: no $GRAMMARLENS_REVIEWER (tests/conftest.py sets one for every other test)."""
    monkeypatch.delenv(reviewer.ENV_VAR, raising=False)


def _open_81a(qtbot, window, project) -> None:
    open_then_evidence(qtbot, window, project, lambda: window.select_feature("81A"), WAIT_MS)


def _when_asked(window, act) -> list[bool]:
    """Run ``act(dialog)`` from inside the modal question's own event loop once it shows; the returned list
    gets one True each time it did."""
    asked: list[bool] = []

    def poll() -> None:
        dialog = window.coder_dialog
        if dialog is None or not dialog.isVisible():
            QTimer.singleShot(20, poll)
            return
        asked.append(True)
        act(dialog)

    QTimer.singleShot(0, poll)
    return asked


def _answer_when_asked(window, qtbot, name: str | None, shot: str | None = None) -> list[bool]:
    """Answer the modal question from inside its own event loop (type ``name`` and OK, or Not now)."""

    def answer(dialog) -> None:
        if name is None:
            dialog.reject()
            return
        dialog.name_edit.setText(name)
        if shot:
            picture = window.grab()
            painter = QPainter(picture)
            painter.drawPixmap(window.mapFromGlobal(dialog.mapToGlobal(dialog.rect().topLeft())), dialog.grab())
            painter.end()
            picture.save(shot)
        dialog.buttons.accepted.emit()

    return _when_asked(window, answer)


def _reviewers(project: Path) -> dict[str, str]:
    with open_project(project, readonly=True) as db:
        return {fid: d.reviewer for fid, d in current_decisions(db).items()}


def test_the_first_act_asks_the_name_once_and_every_act_carries_it(qtbot, nameless, main_window, demo_project,
                                                                    gui_store) -> None:
    window = main_window
    _open_81a(qtbot, window, demo_project)
    asked = _answer_when_asked(window, qtbot, "Ana Souza", SCREENSHOT)
    assert window.coding.set_value("SOV")
    assert asked == [True] and _reviewers(demo_project) == {"81A": "Ana Souza"}
    assert gui_store.value("reviewer") == "Ana Souza" and window.settings.reviewer == "Ana Souza"
    assert "Ana Souza" in window.coding_panel.status_label.text()
    first = window.coder_dialog
    with qtbot.waitSignal(window.retrievalFinished, timeout=WAIT_MS):
        window.select_feature("GB107")
    assert window.coding.set_value("?") and window.coder_dialog is first  # not asked again
    assert _reviewers(demo_project) == {"81A": "Ana Souza", "GB107": "Ana Souza"}


def test_not_now_uses_the_login_name_and_is_not_asked_again(qtbot, nameless, main_window, demo_project) -> None:
    window = main_window
    _open_81a(qtbot, window, demo_project)
    asked = _answer_when_asked(window, qtbot, None)
    assert window.coding.set_value("SOV") and asked == [True]
    first = window.coder_dialog
    assert window.coding.set_value("SVO") and window.coder_dialog is first
    assert _reviewers(demo_project) == {"81A": getpass.getuser()} and window.settings.reviewer == ""


def test_a_name_from_the_environment_is_never_asked(qtbot, main_window, demo_project, monkeypatch) -> None:
    monkeypatch.setenv(reviewer.ENV_VAR, "Bo")
    _open_81a(qtbot, main_window, demo_project)
    assert main_window.coding.set_value("SOV") and main_window.coder_dialog is None
    assert _reviewers(demo_project) == {"81A": "Bo"}


def test_the_apps_own_settings_share_the_name_with_the_cli(qtbot, nameless, gui_store, tmp_path) -> None:
    """The app's QSettings (not a bench's file) keep the name where core's lookup (the CLI's) reads it."""
    from gui.app import make_application
    from gui.common.settings import AppSettings, load_settings, save_settings

    make_application()
    before = Path(QSettings().fileName()).parent.parent
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(tmp_path / "qt"))
    try:
        save_settings(AppSettings(reviewer="Ana Souza"), QSettings())
        assert reviewer.saved_name() == "Ana Souza" == reviewer.reviewer_name()
        assert load_settings(QSettings()).reviewer == "Ana Souza"
        save_settings(AppSettings(reviewer="Ana Souza"), gui_store)  # another settings file: its own
        save_settings(AppSettings(), gui_store)
        assert reviewer.saved_name() == "Ana Souza" and load_settings(gui_store).reviewer == ""
    finally:
        QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(before))


def test_a_resolution_in_the_two_coder_queue_is_a_first_act_too(qtbot, nameless, main_window, two_coder_files) -> None:
    from core.coding.decisions import current
    from tests.fixtures_two_coders import SLOW_MS, open_compared_queue

    a, b, _ids = two_coder_files
    window = main_window
    queue = open_compared_queue(qtbot, window, a, b)
    asked = _answer_when_asked(window, qtbot, "Cy")
    with qtbot.waitSignal(queue.resolved, timeout=SLOW_MS):
        queue.take_b.click()
    assert asked == [True]
    with open_project(a, readonly=True) as db:
        assert current(db, "GB107").reviewer == "Cy"


def test_a_window_closed_while_it_asks_makes_no_act_and_no_error(qtbot, nameless, main_window, demo_project) -> None:
    """The question is open (the first act, made by keys in a pass) when the window is closed: by a script's timer,
    ``--quit-after`` or a session ending.  The act must not be made (the project is closed by then), and nothing may
    fail: before, the act ran on the closed database (``sqlite3.ProgrammingError``) and the process left with 0."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    window = main_window
    _open_81a(qtbot, window, demo_project)
    QTest.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.coding.pass_active, timeout=WAIT_MS)

    def close(dialog) -> None:
        window.close()  # what a script's timer or --quit-after does while the question waits
        # the dialog as context: the check is dropped with it, never run in a later test on a deleted dialog
        QTimer.singleShot(2000, dialog, lambda: dialog.isVisible() and (left_open.append(True), dialog.reject()))

    left_open: list[bool] = []  # the question outlived its window (the old code: only the app's quit ended it)
    asked = _when_asked(window, close)
    QTest.keyClick(window.pass_bar, Qt.Key.Key_1)
    QTest.keyClick(window.pass_bar, Qt.Key.Key_Return)  # the first act: asks, and waits in the question
    assert asked == [True] and not window.isVisible() and left_open == []
    assert _reviewers(demo_project) == {}  # not made (not under the login name either)
    assert window.errors.boxes_opened == 0
