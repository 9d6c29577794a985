"""Where the profile dock opens (gui/profile/profile_dock.py): at 1280×800 it takes no row from the evidence list.

The rows are measured on a real window, offscreen: the evidence table's viewport height over its
row height.  A screenshot of the window with the dock open is left in /tmp for a person to look at.
"""

from __future__ import annotations

import pytest
from PySide6.QtGui import QPainter

from gui.common.settings import AppSettings
from gui.profile.profile_dock import MIN_HEIGHT, PLACED_KEY
from tests.fixtures_gui import open_then_evidence

WAIT_MS = 20_000
SCREENSHOT = "/tmp/grammarlens-window-1280x800-profile-dock.png"


def _rows(window) -> float:
    table = window.evidence_panel.table
    return table.viewport().height() / table.verticalHeader().defaultSectionSize()


def _open_feature(qtbot, window, project) -> None:
    open_then_evidence(qtbot, window, project, lambda: window.select_feature("81A"), WAIT_MS)
    assert window.evidence_panel.model.rowCount() >= 10  # more evidence than fits: rows are what the view shows
    qtbot.wait(200)  # the status bar and the panels settle (the language, the coding panel's values)


def _open_dock(qtbot, window):
    view = window.show_profile_view()
    qtbot.waitUntil(lambda: view.summary_label.text() != "", timeout=WAIT_MS)  # the profile was read (or none)
    qtbot.wait(100)
    return view


def _screenshot(window, path: str) -> None:
    """The window with the floating dock drawn where it floats (a floating dock is a window of its own)."""
    picture = window.grab()
    dock = window.profile_dock
    if dock.isFloating():
        painter = QPainter(picture)
        painter.drawPixmap(window.mapFromGlobal(dock.mapToGlobal(dock.rect().topLeft())), dock.grab())
        painter.end()
    assert picture.save(path)


@pytest.mark.parametrize("offline", [True, False], ids=["offline-banner", "local-server"])
def test_at_1280x800_the_dock_takes_no_row_from_the_evidence_list(qtbot, main_window, demo_project, offline) -> None:
    window = main_window
    window.resize(1280, 800)
    if not offline:  # no banner: more room, which once docked the profile at the bottom (1.5 evidence rows)
        window.apply_settings(AppSettings.local_server("http://127.0.0.1:9/v1"))
    _open_feature(qtbot, window, demo_project)
    before = _rows(window)
    _open_dock(qtbot, window)
    dock = window.profile_dock
    assert dock.isVisible() and dock.isFloating()
    assert _rows(window) >= before  # the evidence list keeps every row it had
    # the dock floats over the feature list and the page, not over the column with the evidence
    evidence = window.evidence_panel
    evidence_rect = evidence.rect().translated(evidence.mapToGlobal(evidence.rect().topLeft()))
    assert not dock.frameGeometry().intersects(evidence_rect)
    assert dock.height() >= MIN_HEIGHT and dock.widget().table.viewport().height() >= 8 * 24  # the profile's own rows
    if offline:
        _screenshot(window, SCREENSHOT)


def test_at_1280x800_the_evidence_list_keeps_eight_rows_with_the_dock_open(qtbot, main_window, demo_project) -> None:
    window = main_window
    window.resize(1280, 800)
    _open_feature(qtbot, window, demo_project)
    _open_dock(qtbot, window)
    assert window.profile_dock.isVisible() and _rows(window) >= 8


def test_a_tall_window_docks_it_below_the_panels_and_the_place_is_kept(qtbot, main_window, demo_project,
                                                                       gui_store) -> None:
    window = main_window
    window.resize(1600, 1500)
    _open_feature(qtbot, window, demo_project)
    central = window.centralWidget()
    asked = central.sizeHint().height()
    _open_dock(qtbot, window)
    dock = window.profile_dock
    assert not dock.isFloating() and dock.height() >= MIN_HEIGHT
    assert central.height() >= asked  # the panels above keep the height they asked for
    assert str(gui_store.value(PLACED_KEY)) == "1"


def test_where_the_person_put_it_is_kept(qtbot, main_window, demo_project, gui_store) -> None:
    """Docked below by hand (double-clicking the floating dock's title), the dock comes back there."""
    from gui.window.main_window import MainWindow

    window = main_window
    window.resize(1280, 800)
    _open_dock(qtbot, window)
    window.profile_dock.setFloating(False)
    window.save_layout()
    window.close()
    again = MainWindow(gui_store)
    qtbot.addWidget(again)
    again.show()
    qtbot.waitUntil(lambda: again.catalog is not None, timeout=WAIT_MS)
    _open_dock(qtbot, again)
    assert again.profile_dock.isVisible() and not again.profile_dock.isFloating()
    again.close()


def _code_two_features_at_1280(qtbot, window, demo_project):
    """The window at 1280×800 with the dock open, 81A coded SOV and GB107 "?" in the coding panel: the dock."""
    window.resize(1280, 800)
    _open_feature(qtbot, window, demo_project)
    view = _open_dock(qtbot, window)
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        assert window.coding.set_value("SOV")
    with qtbot.waitSignal(window.retrievalFinished, timeout=WAIT_MS):
        window.select_feature("GB107")
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        assert window.coding.set_value("?")
    return view


def test_coding_in_the_window_recounts_the_docks_status_filter(qtbot, main_window, demo_project) -> None:
    """A value set in the coding panel reaches the dock: "coded (1)", then 'unknown "?" (1)'."""
    window = main_window
    view = _code_two_features_at_1280(qtbot, window, demo_project)
    combo = view.status_combo
    assert combo.itemText(combo.findData("coded")) == "coded (1)"
    assert combo.itemText(combo.findData("unknown")) == 'unknown "?" (1)'
    combo.setCurrentIndex(combo.findData("coded"))
    assert view.proxy.rowCount() == 1 and view.proxy.index(0, 0).data() == "81A"
    qtbot.wait(50)
    assert window.profile_dock.grab().save("/tmp/grammarlens-profile-dock-coded.png")


def test_the_docks_not_coded_yet_counts_the_set_the_coder_is_coding(qtbot, main_window, demo_project) -> None:
    """Issue 29: coding Grambank by keys, "not coded yet" said 0 with 194 of 195 untouched."""
    window = main_window
    _open_feature(qtbot, window, demo_project)
    view = _open_dock(qtbot, window)
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        assert window.coding.passes.start_pass("grambank")  # the dock takes the pass's set
    assert view.feature_set() == "grambank"
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        assert window.coding.set_value("?")  # the pass's first Grambank feature
    combo = view.status_combo
    assert combo.itemText(combo.findData("uncoded")) == "not coded yet (194)"
    combo.setCurrentIndex(combo.findData("uncoded"))
    assert view.proxy.rowCount() == 194
    view.set_feature_set("81A,49A")  # typed in the dock: kept, the pass does not take it back on its next step
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        window.coding.passes.next()
    assert view.feature_set() == "81A,49A" and combo.itemText(combo.findData("uncoded")) == "not coded yet (2)"


def test_at_1280x800_all_features_shows_the_coded_and_the_not_coded_ones(qtbot, main_window, demo_project) -> None:
    """Issue 29: the dock's first choice lists every feature of the set; the two coded ones among the rest."""
    window = main_window
    view = _code_two_features_at_1280(qtbot, window, demo_project)
    combo = view.status_combo
    assert combo.currentText() == "All features (10)" and combo.itemText(combo.findData("uncoded")) == \
        "not coded yet (8)"
    statuses = sorted(view.proxy.index(r, 3).data() for r in range(view.proxy.rowCount()))
    assert statuses == sorted(["coded", "unknown"] + ["not coded yet"] * 8)
    qtbot.wait(100)
    _screenshot(window, "/tmp/grammarlens-profile-dock-all-features.png")
