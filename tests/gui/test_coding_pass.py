"""Coding a language by hand in the window (issue 10): a keyboard coding pass, pins clicked in the PDF,
Undo, and everything still there after reopening and in the CLDF export, with no model configured."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt

from core import coding
from core.export import export_profile, read_cldf_values
from core.export.bibtex import bibkey, get_bibtex
from core.store import open_project

SLOW_MS = 20_000
CTRL = Qt.KeyboardModifier.ControlModifier


def _open(qtbot, window, project, feature="81A") -> None:
    with qtbot.waitSignal(window.retrievalFinished, timeout=SLOW_MS):
        assert window.open_project(project, feature=feature)


def _point_of(view, paragraph) -> QPoint:
    """Where the middle of a paragraph's first rectangle is in the PDF view's viewport."""
    rect = paragraph.rects[0]
    page = view.mapFromScene(view.pages.item(rect.pdf_page).sceneBoundingRect()).boundingRect().toRectF()
    return QPoint(int(page.left() + (rect.x0 + rect.x1) / 2 * view.zoom),
                  int(page.top() + (rect.y0 + rect.y1) / 2 * view.zoom))


def test_ten_features_coded_from_the_keyboard_with_a_clicked_pin_undo_reopen_and_export(
        qtbot, main_window, demo_project, gui_store, tmp_path) -> None:
    import pycldf

    window, bar, panel = main_window, main_window.pass_bar, main_window.coding_panel
    _open(qtbot, window, demo_project)
    assert not window.value_panel.accept_button.isEnabled()  # no model: nothing to accept ...
    assert panel.set_button.isEnabled() and panel.note_edit.isEnabled()  # ... but codable in the coding panel

    # Ctrl+K starts a pass over WALS at the feature on screen and gives the keys to the pass bar
    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow(), timeout=5000)
    with qtbot.waitSignal(window.coding.passes.passChanged, timeout=5000):
        qtbot.keyClick(window, Qt.Key.Key_K, CTRL)
    assert window.coding.pass_active and bar.hasFocus()
    total = len(coding.ordered_features(None, "wals"))
    assert bar.counter_label.text() == f"0 of {total} coded"

    coded: dict[str, str] = {}
    for n in range(10):
        fid = window.state.feature.id
        if n == 2:
            qtbot.keyClicks(bar, "?")  # Grambank's "not enough information"
        else:
            qtbot.keyClicks(bar, "1")  # WALS code 1: the first value of the set
        assert panel.selected_code() == ("?" if n == 2 else "1")
        with qtbot.waitSignal(window.coding.passes.featureRequested, timeout=5000):
            qtbot.keyClick(bar, Qt.Key.Key_Return)  # stores it and moves on
        coded[fid] = "?" if n == 2 else "1"
        assert window.state.feature.id != fid
    assert bar.counter_label.text() == f"10 of {total} coded"
    assert list(coded)[0] == "81A"
    listed = window.features_panel.model
    marks = {listed.feature(r).id: listed.index(r).data().split(" ")[0] for r in range(listed.rowCount())}
    assert {fid for fid, mark in marks.items() if mark in ("✔", "?")} == set(coded)  # progress in the list too
    assert marks[list(coded)[2]] == "?" and marks["81A"] == "✔"

    # back to 81A with the keys; its evidence is there; pin its best paragraph by clicking it in the PDF
    for _ in range(10):
        qtbot.keyClick(bar, Qt.Key.Key_Left)
    assert window.state.feature.id == "81A" and panel.view.current_code == "1"
    qtbot.waitUntil(lambda: window.state.evidence_known and window.coding.evidence.locator is not None, timeout=SLOW_MS)
    best = window.state.ordered_hits()[window.state.best_row()].paragraph
    window.show_paragraph(best)
    view = window.pdf_view
    with qtbot.waitSignal(view.paragraphClicked, timeout=2000):
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=_point_of(view, best))
    assert len(view.overlays.selected) == len(best.rects)  # the click outlined the paragraph
    with qtbot.waitSignal(window.projects.changes.changed, timeout=2000) as stored:
        qtbot.keyClick(view, Qt.Key.Key_P)
    assert stored.args[0].act == "pin" and window.state.pins == {best.id}
    assert window.evidence_panel.model.hit(0).paragraph.id == best.id  # pins are listed first
    assert {item.data(1) for item in view.overlays.highlights if item.data(0) == "pinned"} == {best.id}
    menu = view.context_menu(_point_of(view, best))  # the same point offers to unpin it
    assert menu is not None and menu.actions()[0].text().startswith("Unpin this paragraph")
    menu.deleteLater()

    # a note, then another value, then Undo (Ctrl+Z in the pass) restores SOV with its pin and note
    qtbot.keyClicks(panel.note_edit, "see the word-order chapter")
    with qtbot.waitSignal(window.projects.changes.changed, timeout=2000):
        qtbot.keyClick(panel.note_edit, Qt.Key.Key_Return)
    bar.setFocus()
    qtbot.keyClicks(bar, "2")
    with qtbot.waitSignal(window.projects.changes.changed, timeout=2000):
        qtbot.keyClick(bar, Qt.Key.Key_Return)
    qtbot.keyClick(bar, Qt.Key.Key_Left)
    assert window.state.feature.id == "81A" and panel.view.current_code == "2"
    with qtbot.waitSignal(window.projects.changes.changed, timeout=2000) as stored:
        qtbot.keyClick(bar, Qt.Key.Key_Z, CTRL)
    assert stored.args[0].act == "undo"
    assert panel.view.current_code == "1" and window.state.pins == {best.id}
    assert panel.view.note == "see the word-order chapter" and "SOV" in panel.status_label.text()
    history = panel.history.toolTip()
    assert "undid" in history and "(undone)" in history and "pinned p. " + best.page_label in history
    window.close()

    # reopen: values, pins, notes and history are all there
    from gui.window.main_window import MainWindow

    again = MainWindow(gui_store)
    qtbot.addWidget(again)
    again.resize(1280, 800)
    again.show()
    qtbot.waitUntil(lambda: again.catalog is not None, timeout=10000)
    _open(qtbot, again, demo_project)
    view81 = again.coding_panel.view
    assert view81.current_code == "1" and view81.note == "see the word-order chapter"
    assert again.state.pins == {best.id} and again.evidence_panel.model.hit(0).paragraph.id == best.id
    assert again.coding_panel.history.toolTip() == history
    with qtbot.waitSignal(again.coding.passes.passChanged, timeout=5000):
        again.pass_bar.startRequested.emit()
    assert again.pass_bar.counter_label.text() == f"10 of {total} coded"
    again.close()

    # the CLDF export holds the hand-coded values, 81A citing its pinned page; it validates
    with open_project(demo_project) as project:
        for fid, value in coded.items():
            assert coding.current(project, fid).value == value
        metadata = export_profile(project, "cldf", tmp_path / "cldf")
        key = bibkey(get_bibtex(project))
    pycldf.Dataset.from_metadata(metadata).validate()
    back = read_cldf_values(metadata)
    assert set(coded) <= set(back)
    assert back["81A"]["value"] == "1" and back["81A"]["source"] == [f"{key}[{best.page_label}]"]
    unknown = list(coded)[2]
    assert back[unknown]["value"] is None and back[unknown]["code_id"] is None
    assert back["81A"]["comment"].startswith("Coded by hand by") and "word-order chapter" in back["81A"]["comment"]
