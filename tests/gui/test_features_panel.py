"""The features panel: typing filters the catalog, a click reports the feature, the window's choice stays quiet."""

from __future__ import annotations

from PySide6.QtCore import Qt

from core.catalog import load_catalog
from gui.features_panel import FeaturesPanel


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
