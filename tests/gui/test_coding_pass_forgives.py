"""A coding pass that forgives (issue 20): Ctrl+Z after Enter takes back the feature just left, a key that is no
value says so at once, and the pass continues where it stood after a restart.  Driven with keys on the demo project.
"""

from __future__ import annotations

from PySide6.QtCore import Qt

from core import coding
from core.store import open_project

SLOW_MS = 20_000
CTRL = Qt.KeyboardModifier.ControlModifier
SHOTS = "/tmp"


def _shot(bar, name: str) -> None:
    """The pass bar as it is drawn (its layout settled first), for a person to look at."""
    bar.layout().activate()
    bar.grab().save(f"{SHOTS}/{name}")


def _open(qtbot, window, project, feature="GB020") -> None:
    with qtbot.waitSignal(window.retrievalFinished, timeout=SLOW_MS):
        assert window.open_project(project, feature=feature)


def _start_grambank_pass(qtbot, window) -> None:
    """Ctrl+K as a person presses it, then Grambank chosen in the bar's set list."""
    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow(), timeout=5000)
    with qtbot.waitSignal(window.coding.passes.passChanged, timeout=5000):
        qtbot.keyClick(window, Qt.Key.Key_K, CTRL)
    bar = window.pass_bar
    assert window.coding.pass_active and bar.hasFocus()
    bar.set_combo.setCurrentText("grambank")
    bar.set_combo.textActivated.emit("grambank")  # what choosing it in the list does
    assert window.coding.passes.pass_view().feature_set == "grambank"
    bar.setFocus()


def _store(qtbot, window, key: str) -> str:
    """Type a value's key and Enter on the pass bar; the feature it was stored on (the pass has moved on)."""
    bar, fid = window.pass_bar, window.state.feature.id
    qtbot.keyClicks(bar, key)
    with qtbot.waitSignal(window.coding.passes.featureRequested, timeout=5000):
        qtbot.keyClick(bar, Qt.Key.Key_Return)
    assert window.state.feature.id != fid
    return fid


def _current(project_path, fid: str) -> str | None:
    with open_project(project_path, readonly=True) as project:
        d = coding.current(project, fid)
        return d.value if d else None


def test_ctrl_z_after_enter_undoes_the_feature_just_left_then_further_back(qtbot, main_window, demo_project) -> None:
    window, bar = main_window, main_window.pass_bar
    _open(qtbot, window, demo_project)
    _start_grambank_pass(qtbot, window)
    first = _store(qtbot, window, "1")  # GB020 present, on to GB021
    second = _store(qtbot, window, "0")  # GB021 absent, on to GB022
    assert (first, second) == ("GB020", "GB021") and window.state.feature.id == "GB022"
    assert bar.counter_label.text().startswith("2 of ")

    # the slip was on the feature just left: Ctrl+Z takes it back, shows that feature and says so
    with qtbot.waitSignal(window.projects.changes.changed, timeout=2000) as stored:
        qtbot.keyClick(bar, Qt.Key.Key_Z, CTRL)
    assert stored.args[0].act == "undo" and window.state.feature.id == "GB021"
    assert _current(demo_project, "GB021") is None and _current(demo_project, "GB020") == "1"
    assert bar.notice_label.isVisible() and not bar.keys_label.isVisible()
    assert bar.notice_label.text() == "↶ Undid GB021 = absent (0): back to not coded."
    assert window.coding_panel.view.current_code is None and bar.counter_label.text().startswith("1 of ")
    _shot(bar, "pass_bar_after_undo.png")

    # again: one act further back, to GB020
    with qtbot.waitSignal(window.projects.changes.changed, timeout=2000):
        qtbot.keyClick(bar, Qt.Key.Key_Z, CTRL)
    assert window.state.feature.id == "GB020" and _current(demo_project, "GB020") is None
    assert bar.notice_label.text() == "↶ Undid GB020 = present (1): back to not coded."
    qtbot.keyClick(bar, Qt.Key.Key_Z, CTRL)  # nothing of the pass left: said, nothing changed
    assert bar.notice_label.text() == "⚠ Nothing of this coding pass left to undo."
    assert window.state.feature.id == "GB020" and bar.counter_label.text().startswith("0 of ")
    with open_project(demo_project, readonly=True) as project:
        assert [d.action for d in coding.history(project, "GB020")] == ["code", "undo"]

    # an act undone already under Your value is skipped: Ctrl+Z goes on to the act before it
    first = _store(qtbot, window, "0")
    _store(qtbot, window, "1")  # GB021
    qtbot.keyClick(bar, Qt.Key.Key_Left)
    with qtbot.waitSignal(window.projects.changes.changed, timeout=2000):
        window.coding_panel.undo_button.click()  # GB021's own latest decision
    bar.setFocus()
    with qtbot.waitSignal(window.projects.changes.changed, timeout=2000):
        qtbot.keyClick(bar, Qt.Key.Key_Z, CTRL)
    assert window.state.feature.id == first and _current(demo_project, first) is None
    assert bar.notice_label.text().startswith("↶ Undid GB020 = absent (0)")


def test_ctrl_z_leaves_a_feature_someone_else_decided_since(qtbot, main_window, demo_project) -> None:
    window, bar = main_window, main_window.pass_bar
    _open(qtbot, window, demo_project)
    _start_grambank_pass(qtbot, window)
    _store(qtbot, window, "1")  # GB020 present; the pass is on GB021
    with open_project(demo_project) as cli:  # what `main.py code P --feature GB020 --value 0` does meanwhile
        coding.code(cli, "GB020", "0", reviewer="Bo")
    with open_project(demo_project, readonly=True) as project:
        before = coding.history(project, "GB020")
    qtbot.keyClick(bar, Qt.Key.Key_Z, CTRL)
    said = bar.notice_label.text()
    assert said.startswith("⚠ GB020 not undone: Bo changed it since (absent (0), ")
    assert said.endswith("Ctrl+Z again goes further back.")
    assert window.state.feature.id == "GB021"  # stays where it was
    with open_project(demo_project, readonly=True) as project:
        assert coding.history(project, "GB020") == before and coding.current(project, "GB020").value == "0"
    _shot(bar, "pass_bar_undo_refused.png")


def test_a_key_that_is_no_value_says_so_and_enter_then_stores_nothing(qtbot, main_window, demo_project) -> None:
    window, bar, panel = main_window, main_window.pass_bar, main_window.coding_panel
    _open(qtbot, window, demo_project)
    _start_grambank_pass(qtbot, window)
    assert window.state.feature.id == "GB020"
    qtbot.keyClicks(bar, "7")
    assert bar.notice_label.isVisible() and bar.notice_label.text() == "⚠ 7 is not a value of GB020 (0, 1, ?)."
    assert panel.selected_code() is None
    _shot(bar, "pass_bar_wrong_key.png")
    qtbot.keyClick(bar, Qt.Key.Key_Return)
    assert window.state.feature.id == "GB020" and _current(demo_project, "GB020") is None  # nothing stored
    assert bar.notice_label.text() == "⚠ Nothing stored: type a value of GB020 first (0, 1, ?), then Enter."

    # a letter the pass has no use for says so too; the right key then works as ever
    qtbot.keyClicks(bar, "x")
    assert bar.notice_label.text().startswith("⚠ “x” is not a key of the coding pass; the values of GB020 are 0, 1, ?")
    qtbot.keyClicks(bar, "1")
    assert not bar.notice_label.isVisible() and bar.keys_label.isVisible()  # the next key clears what was said
    _store(qtbot, window, "")  # Enter: 1 stored

    # on a coded feature the slip unselects its value, so Enter does not store it again
    qtbot.keyClick(bar, Qt.Key.Key_Left)
    assert window.state.feature.id == "GB020" and panel.selected_code() == "1"
    qtbot.keyClicks(bar, "5")
    assert panel.selected_code() is None
    qtbot.keyClick(bar, Qt.Key.Key_Return)
    with open_project(demo_project, readonly=True) as project:
        assert len(coding.history(project, "GB020")) == 1 and window.state.feature.id == "GB020"


def test_a_restart_continues_the_pass_at_its_feature_with_its_set_and_filter(
        qtbot, main_window, demo_project, gui_store) -> None:
    window, bar = main_window, main_window.pass_bar
    _open(qtbot, window, demo_project)
    _start_grambank_pass(qtbot, window)
    index = bar.filter_combo.findData(coding.UNCODED)
    bar.filter_combo.setCurrentIndex(index)
    bar.filter_combo.activated.emit(index)  # what choosing "uncoded" in the list does
    bar.setFocus()
    _store(qtbot, window, "1")
    _store(qtbot, window, "?")
    qtbot.keyClick(bar, Qt.Key.Key_Right)
    where = window.state.feature.id
    assert where == "GB023" and window.coding.passes.pass_view().position == "feature 2 of 193 uncoded"
    window.close()

    from gui.window.main_window import MainWindow

    again = MainWindow(gui_store)  # the app started anew: same settings, another window
    qtbot.addWidget(again)
    again.resize(1280, 800)
    again.show()
    qtbot.waitUntil(lambda: again.catalog is not None, timeout=10000)
    _open(qtbot, again, demo_project, feature="81A")  # even with another feature on screen
    bar = again.pass_bar
    assert not again.coding.pass_active  # offered, not imposed
    assert bar.start_button.isVisible() and bar.start_button.text() == f"Continue coding pass at {where}"
    assert bar.set_combo.currentText() == "grambank" and bar.filter_combo.currentData() == coding.UNCODED
    assert f"stopped at {where}" in bar.notice_label.text()
    _shot(bar, "pass_bar_continue_offer.png")
    again.activateWindow()
    qtbot.waitUntil(lambda: again.isActiveWindow(), timeout=5000)
    with qtbot.waitSignal(again.coding.passes.featureRequested, timeout=5000):
        qtbot.keyClick(again, Qt.Key.Key_K, CTRL)
    view = again.coding.passes.pass_view()
    assert again.state.feature.id == where and (view.feature_set, view.filter) == ("grambank", coding.UNCODED)
    assert view.position == "feature 2 of 193 uncoded" and bar.counter_label.text().startswith("2 of 195")
    assert not bar.start_button.isVisible()

    # stopping the pass forgets it: the next opening offers a new one
    again.coding.passes.stop_pass()
    assert not [k for k in gui_store.allKeys() if k.startswith("coding_pass/")]
    assert bar.start_button.text() == "Start coding pass"
    again.close()
