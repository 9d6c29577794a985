"""The window as a whole: a feature brings its deciding paragraph into view, the evidence is readable at
1280 x 800, the profile dock is the window's own, and the window module stays small and typed."""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtWidgets import QToolBar

from gui.features.evidence_model import SNIPPET_COLUMN

REPO = Path(__file__).resolve().parents[2]
SLOW_MS = 20_000


def test_choosing_a_feature_shows_its_best_paragraph_without_a_click(qtbot, main_window, demo_project) -> None:
    window = main_window
    assert window.open_project(demo_project)
    assert window.pdf_view.current_page <= 2  # the grammar opens on its cover
    with qtbot.waitSignal(window.retrievalFinished, timeout=SLOW_MS):
        window.select_feature("81A")
    best = window.state.ordered_hits()[window.state.best_row()].paragraph
    assert "subject-object-verb (SOV)" in best.text
    view = window.pdf_view
    assert abs(view.current_page - best.pdf_page) <= 1  # the PDF went there by itself
    outlines = view.overlays.selected
    assert len(outlines) == len(best.rects)
    on_screen = view.mapFromScene(outlines[0].sceneBoundingRect()).boundingRect()
    assert view.viewport().rect().intersects(on_screen)
    assert window.evidence_panel.table.currentIndex().row() == window.state.best_row()
    assert window.pdf_toolbar.page_edit.text() == best.page_label
    assert window.features_panel.model.feature(window.features_panel.list_view.currentIndex().row()).id == "81A"


def test_evidence_is_readable_in_the_default_window(qtbot, main_window, demo_project) -> None:
    window = main_window  # 1280 x 800, the default size
    with qtbot.waitSignal(window.retrievalFinished, timeout=SLOW_MS):
        assert window.open_project(demo_project, feature="81A")
    table = window.evidence_panel.table
    snippet_px = table.columnWidth(SNIPPET_COLUMN)
    average_char = table.fontMetrics().averageCharWidth()
    # two lines of at least 40 characters each (the old table showed about 20)
    assert snippet_px / average_char >= 40 and table.rowHeight(0) >= 2 * table.fontMetrics().lineSpacing()
    assert snippet_px >= 0.5 * table.viewport().width()


def test_the_profile_dock_belongs_to_the_window_and_opens_features_there(qtbot, main_window, demo_project) -> None:
    window = main_window
    assert window.open_project(demo_project)
    view = window.show_profile_view()
    assert window.show_profile_view() is view and window.profile_dock.isVisible()
    with qtbot.waitSignal(window.retrievalFinished, timeout=SLOW_MS):
        view.featureActivated.emit("GB107")
    assert window.state.feature.id == "GB107" and window.state.hits


def test_the_window_module_stays_small_and_typed() -> None:
    source = (REPO / "gui" / "window" / "main_window.py").read_text(encoding="utf-8")
    assert len(source.splitlines()) < 400
    assert not re.search(r"\bAny\b", source)  # no attribute typed Any (nor anything else)
    profile = (REPO / "gui" / "profile" / "profile_view.py").read_text(encoding="utf-8")
    assert "setattr(" not in profile and not re.search(r"\bwindow\.\w", profile)  # it never touches the window


def test_open_grammar_pdf_is_the_first_way_in_and_add_grammar_the_second(main_window) -> None:
    window = main_window
    project_menu = window.menuBar().actions()[0].menu()
    items = project_menu.actions()
    assert items[0] is window.act_open_pdf and window.act_open_pdf.text() == "Open &grammar PDF…"
    assert items.index(window.act_add) > items.index(window.act_new)  # after the ways to open or make a project
    assert items[items.index(window.act_add) - 1].isSeparator()
    toolbar = window.findChild(QToolBar, "mainToolbar")
    assert toolbar.actions()[0] is window.act_open_pdf and window.act_add not in toolbar.actions()
    assert window.act_add.shortcut().toString() == "Ctrl+I" and "second volume" in window.act_add.toolTip()
    assert not window.language_line.isVisible()  # no project open: no language to name
