"""Help → Keys lists every key; keys go back to the pass; quitting waits for no model (issue 29)."""

from __future__ import annotations

import threading
import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication

from gui.coding.coding_pass import CodingPassBar
from gui.window.keys_dialog import PASS_KEYS, SECTIONS
from tests.fixtures_gui import open_then_evidence

WAIT_MS = 20_000


def test_help_lists_every_key_of_the_window(qtbot, main_window) -> None:
    window = main_window
    help_menu = window.menuBar().actions()[-1].menu()
    assert window.act_keys in help_menu.actions() and window.act_keys.shortcut() == QKeySequence("F1")
    window.act_keys.trigger()
    dialog = next(w for w in QApplication.topLevelWidgets() if w.windowTitle() == "Keys of GrammarLens")
    qtbot.waitUntil(dialog.isVisible, timeout=2000)
    rows = dialog.rows()
    listed = {keys for keys, _what in rows}
    for action in window.actions() + window.evidence_panel.table.actions():
        for shortcut in action.shortcuts():
            text = shortcut.toString(QKeySequence.SequenceFormat.NativeText)
            assert any(text in keys.split(" or ") for keys in listed), f"{text} ({action.text()}) not listed"
    assert set(PASS_KEYS) <= set(rows) and ("F1", "Keys") in rows
    titles = [dialog.table.item(r, 0).text() for r in range(dialog.table.rowCount())
              if dialog.table.item(r, 1) is None]
    assert titles == list(SECTIONS)
    dialog.resize(720, 700)
    qtbot.wait(50)
    assert dialog.grab().save("/tmp/grammarlens-help-keys.png")
    dialog.close()


@pytest.mark.parametrize("keys, signal, args", [
    ((Qt.Key.Key_5,), "valueKeyPressed", ["5"]),
    ((Qt.Key.Key_Question,), "unknownKeyPressed", []),
    ((Qt.Key.Key_Return,), "confirmPressed", []),
    ((Qt.Key.Key_Right, Qt.Key.Key_N), "nextRequested", []),
    ((Qt.Key.Key_Left, Qt.Key.Key_B), "previousRequested", []),
    ((Qt.Key.Key_U,), "nextUncodedRequested", []),
    ((Qt.Key.Key_Down,), "rowStepPressed", [1]),
    ((Qt.Key.Key_Up,), "rowStepPressed", [-1]),
    ((Qt.Key.Key_Space,), "pinRowPressed", []),
])
def test_each_pass_key_listed_does_what_the_list_says(qtbot, keys, signal, args) -> None:
    bar = CodingPassBar()
    qtbot.addWidget(bar)
    for key in keys:
        text = "?" if key == Qt.Key.Key_Question else (" " if key == Qt.Key.Key_Space else "")
        with qtbot.waitSignal(getattr(bar, signal), timeout=1000) as got:
            qtbot.keyClick(bar, key, Qt.KeyboardModifier.NoModifier) if not text else qtbot.keyClicks(bar, text)
        assert got.args == args
    with qtbot.waitSignal(bar.undoPressed, timeout=1000):
        qtbot.keyClick(bar, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)


def _pass_on(qtbot, window, project) -> None:
    # Ctrl+K: the pass starts, its bar has the keys
    open_then_evidence(qtbot, window, project, window.act_pass.trigger, WAIT_MS)
    qtbot.waitUntil(lambda: window.pass_bar.hasFocus(), timeout=2000)


def test_keys_return_to_the_pass_after_a_dropdown_a_note_or_a_button(qtbot, main_window, demo_project) -> None:
    window = main_window
    window.activateWindow()
    _pass_on(qtbot, window, demo_project)
    bar, panel = window.pass_bar, window.coding_panel

    panel.note_edit.setFocus()  # typing a note keeps the focus while typing…
    qtbot.keyClicks(panel.note_edit, "checked 4.1")
    assert panel.note_edit.hasFocus()
    with qtbot.waitSignal(window.projects.changes.changed, timeout=WAIT_MS):
        qtbot.keyClick(panel.note_edit, Qt.Key.Key_Return)  # …and Enter stores it and gives the keys back
    qtbot.waitUntil(bar.hasFocus, timeout=2000)

    bar.filter_combo.setFocus()  # a dropdown chosen (clicked, then closed)
    qtbot.waitUntil(bar.hasFocus, timeout=2000)
    panel.set_button.setFocus()  # a button clicked: Space would press it again
    qtbot.waitUntil(bar.hasFocus, timeout=2000)
    window.evidence_panel.table.setFocus()  # an evidence row clicked
    qtbot.waitUntil(bar.hasFocus, timeout=2000)
    window.pdf_view.setFocus()  # the page keeps the keys: a click there, then P pins that paragraph
    qtbot.wait(100)
    assert window.pdf_view.hasFocus()

    window.coding.passes.stop_pass()
    panel.set_button.setFocus()  # no pass: nothing is taken back
    qtbot.wait(100)
    assert panel.set_button.hasFocus()
    assert window.pass_focus.returned >= 4


def test_closing_while_the_model_loads_leaves_no_job_and_no_model_process(qtbot, gui_store, demo_project,
                                                                         minilm_path) -> None:
    """What blocked quitting (30 s here, 3-5 s on a free machine): a retrieval waiting for the model's child."""
    from core.retrieval import dense
    from core.retrieval.model_process import _LIVE
    from gui.app import make_application
    from gui.common.settings import AppSettings
    from gui.window.main_window import MainWindow

    make_application()
    window = MainWindow(gui_store)
    qtbot.addWidget(window)
    window.apply_settings(AppSettings(retrieval=AppSettings().retrieval.with_(reranker=str(minilm_path))))
    window.show()
    qtbot.waitUntil(lambda: window.catalog is not None, timeout=WAIT_MS)
    assert window.open_project(demo_project)
    window.select_feature("81A")
    qtbot.waitUntil(lambda: dense.model_loading(str(minilm_path)), timeout=WAIT_MS)  # its child imports torch
    qtbot.wait(300)  # the retrieval's reranking step waits for it
    errors: list = []
    window.errorShown.connect(errors.append)
    window.close()
    assert not window.runner.pool.live and not _LIVE  # the job ended (cancelled), the model's child is gone
    qtbot.wait(100)
    assert errors == []  # a job stopped by quitting is cancelled, not an error to show
    stop = time.monotonic() + 2.0
    while time.monotonic() < stop:  # no job or timer left behind starts a model child after the close
        qtbot.wait(100)
        assert not _LIVE and not window.runner.pool.live


def test_no_model_child_starts_once_quitting_stopped_them(minilm_path) -> None:
    """A job past its last look at cancellation would start a fresh child that outlives the window."""
    from core.retrieval import dense
    from core.retrieval.model_process import ModelError, live_count

    dense.use_model_process(True)
    try:
        dense.stop_model_processes()
        with pytest.raises(ModelError, match="quitting"):
            dense.load_model(str(minilm_path))
        dense.start_model(str(minilm_path))  # an early start says nothing and starts nothing
        assert live_count() == 0 and not dense.model_loading(str(minilm_path))
        dense.allow_model_processes()  # a new window
        assert dense.load_model(str(minilm_path)).encode(["SOV order"]).shape[0] == 1
        assert live_count() == 1
    finally:
        dense.stop_model_processes()
        dense.use_model_process(False)
    assert live_count() == 0


def test_a_thread_waiting_for_a_loading_model_ends_soon_after_the_child_is_stopped(minilm_path) -> None:
    """Closing a child wakes a thread waiting on its pipe within POLL_S, whatever the pipe does."""
    from core.retrieval import dense
    from core.retrieval.model_process import POLL_S, ModelError, ModelProcess

    served = ModelProcess(str(minilm_path), "bi", "cpu", loader=dense.load_in_model_process, wait=False)
    outcome: list = []
    waiting = threading.Thread(target=lambda: outcome.append(_error_of(served.wait_ready)))
    waiting.start()
    time.sleep(0.1)
    started = time.monotonic()
    served.close(now=True)
    waiting.join(timeout=10)
    assert not waiting.is_alive() and isinstance(outcome[0], ModelError)
    assert time.monotonic() - started < 5 + 2 * POLL_S


def _error_of(call) -> BaseException | None:
    try:
        call()
    except BaseException as exc:
        return exc
    return None
