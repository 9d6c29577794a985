"""The features panel: typing filters the catalog, a click reports the feature, the window's choice stays quiet."""

from __future__ import annotations

from PySide6.QtCore import Qt

from core.catalog import load_catalog
from gui.features.features_panel import FILTER_DELAY_MS, FeaturesPanel


def test_search_filters_and_a_click_chooses_a_feature(qtbot) -> None:
    panel = FeaturesPanel()
    qtbot.addWidget(panel)
    panel.resize(260, 500)
    panel.show()
    catalog = load_catalog()
    panel.set_catalog(catalog)
    assert panel.model.rowCount() == len(catalog)
    qtbot.keyClicks(panel.search_edit, "word order")
    qtbot.waitUntil(lambda: panel.model.rowCount() < len(catalog), timeout=3000)
    assert panel.model.feature(0).id == "81A"  # the term grammars use finds the feature
    assert "features" in panel.status_label.text()
    rect = panel.list_view.visualRect(panel.model.index(0))
    with qtbot.waitSignal(panel.featureChosen, timeout=3000) as chosen:
        qtbot.mouseClick(panel.list_view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert chosen.args[0].id == "81A"


def test_the_window_selecting_a_feature_does_not_report_it_back(qtbot) -> None:
    panel = FeaturesPanel()
    qtbot.addWidget(panel)
    catalog = load_catalog()
    panel.set_catalog(catalog)
    with qtbot.assertNotEmitted(panel.featureChosen):
        panel.show_feature(catalog.get("GB107"))
    assert panel.model.feature(panel.list_view.currentIndex().row()).id == "GB107"
    panel.search_edit.setText("GB1")
    panel.refresh()  # the filter keeps the chosen feature selected
    assert panel.model.feature(panel.list_view.currentIndex().row()).id == "GB107"
    panel.search_edit.setText("number of cases")
    panel.refresh()
    with qtbot.waitSignal(panel.featureChosen, timeout=3000) as chosen:
        qtbot.keyClick(panel.search_edit, Qt.Key.Key_Return)  # Enter picks the first match
    assert chosen.args[0].id == "49A"


def test_a_catalog_that_fails_to_load_says_so(qtbot) -> None:
    from core.errors import GrammarLensError

    panel = FeaturesPanel()
    qtbot.addWidget(panel)
    panel.set_failed(GrammarLensError("features.json is damaged.", "Reinstall."))
    assert "features.json is damaged." in panel.status_label.text()


# ---------------------------------------------------------------------- a click never moves the list (issue 20)
def _panel(qtbot) -> FeaturesPanel:
    panel = FeaturesPanel()
    qtbot.addWidget(panel)
    panel.resize(260, 500)
    panel.show()
    panel.set_catalog(load_catalog())
    qtbot.waitUntil(lambda: panel.list_view.verticalScrollBar().maximum() > 100, timeout=3000)
    return panel


def _click_row(qtbot, panel: FeaturesPanel, row: int) -> None:
    rect = panel.list_view.visualRect(panel.model.index(row))
    qtbot.mouseClick(panel.list_view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def _edge_rows(panel: FeaturesPanel) -> tuple[int, int]:
    """(a row in the middle of the view, the half-hidden row at its bottom edge)."""
    view = panel.list_view
    top = view.indexAt(view.viewport().rect().topLeft()).row()
    bottom = view.indexAt(view.viewport().rect().bottomLeft()).row()
    assert not view.shows_whole(panel.model.index(bottom)), "the test needs a half-hidden row at the bottom"
    return top + 3, bottom


def test_a_click_leaves_the_list_where_it_is(qtbot) -> None:
    panel = _panel(qtbot)
    bar = panel.list_view.verticalScrollBar()
    bar.setValue(40)
    for row in _edge_rows(panel):
        with qtbot.waitSignal(panel.featureChosen, timeout=3000) as chosen:
            _click_row(qtbot, panel, row)
        assert chosen.args[0].id == panel.model.feature(row).id
        assert bar.value() == 40  # not even the half-hidden row at the edge pulls the list up


def test_the_keyboard_and_a_choice_made_elsewhere_still_bring_the_feature_into_view(qtbot) -> None:
    panel = _panel(qtbot)
    view, bar = panel.list_view, panel.list_view.verticalScrollBar()
    _click_row(qtbot, panel, _edge_rows(panel)[1] - 1)  # the last whole row
    before = bar.value()
    qtbot.keyClick(view, Qt.Key.Key_Down)
    qtbot.keyClick(view, Qt.Key.Key_Down)
    assert bar.value() > before and view.viewport().rect().intersects(view.visualRect(view.currentIndex()))
    far = panel.model.feature(panel.model.rowCount() - 5)
    panel.show_feature(far)  # the coding pass or the profile chose it
    assert view.shows_whole(view.currentIndex()) and panel.model.feature(view.currentIndex().row()).id == far.id


def test_enter_right_after_typing_opens_the_first_match_only(qtbot) -> None:
    panel = _panel(qtbot)
    chosen: list[str] = []
    panel.featureChosen.connect(lambda feature: chosen.append(feature.id))
    qtbot.keyClicks(panel.search_edit, "GB035")
    qtbot.keyClick(panel.search_edit, Qt.Key.Key_Return)  # before the typing delay filtered the list
    qtbot.wait(FILTER_DELAY_MS * 2)
    assert chosen == ["GB035"]
    assert panel.model.feature(panel.list_view.currentIndex().row()).id == "GB035"


# ---------------------------------------------------------------------- the same in the window
WAIT_MS = 20_000


def _window_with_project(qtbot, main_window, demo_project):
    assert main_window.open_project(demo_project)
    qtbot.waitUntil(lambda: main_window.state.project_path is not None, timeout=WAIT_MS)
    return main_window


def test_clicking_features_in_the_window_never_moves_the_list(qtbot, main_window, demo_project) -> None:
    window = _window_with_project(qtbot, main_window, demo_project)
    panel = window.features_panel
    bar = panel.list_view.verticalScrollBar()
    bar.setValue(40)
    for row in _edge_rows(panel):
        with qtbot.waitSignal(window.retrievalFinished, timeout=WAIT_MS):
            _click_row(qtbot, panel, row)
        assert window.state.feature.id == panel.model.feature(row).id
        assert bar.value() == 40  # the window showing the chosen feature left the list alone


def test_typing_gb035_and_enter_opens_and_retrieves_gb035(qtbot, main_window, demo_project) -> None:
    window = _window_with_project(qtbot, main_window, demo_project)
    panel = window.features_panel
    chosen: list[str] = []
    shown: list[str | None] = []
    panel.featureChosen.connect(lambda feature: chosen.append(feature.id))
    window.features.featureChanged.connect(lambda: shown.append(getattr(window.state.feature, "id", None)))
    panel.focus_search()
    with qtbot.waitSignal(window.retrievalFinished, timeout=WAIT_MS):
        qtbot.keyClicks(panel.search_edit, "GB035")
        qtbot.keyClick(panel.search_edit, Qt.Key.Key_Return)
    qtbot.wait(FILTER_DELAY_MS * 2)
    assert chosen == shown == ["GB035"]  # 1A (the unfiltered list's first row) was never opened
    assert window.state.feature.id == "GB035" and window.state.evidence_known
    assert panel.model.feature(panel.list_view.currentIndex().row()).id == "GB035"
