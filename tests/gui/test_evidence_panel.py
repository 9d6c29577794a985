"""The evidence panel: readable at the default window size, pins first, a chosen row reports its paragraph."""

from __future__ import annotations

import html
from dataclasses import dataclass, replace

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QStyleOptionViewItem

from core.models import Paragraph
from core.store import open_project, repository
from gui.common.window_state import WindowState
from gui.features.evidence_model import SECTION_COLUMN, SNIPPET_COLUMN
from gui.features.evidence_panel import EvidencePanel

# The panel's width in a 1280 x 800 window (the main window's default splitter sizes).
DEFAULT_WIDTH, DEFAULT_HEIGHT = 560, 420
LONG_SECTION = "4 Word order > 4.1 Basic order of subject, object and verb in declarative main clauses"


@dataclass(frozen=True)
class Row:
    rank: int
    score: float
    paragraph: Paragraph


@pytest.fixture
def evidence(demo_project) -> WindowState:
    with open_project(demo_project) as project:
        paragraphs = [p for p in repository.list_paragraphs(project) if len(p.text) > 150][:6]
    state = WindowState()
    state.choose_feature(object())  # type: ignore[arg-type] - any feature
    rows = [Row(i + 1, 5.0 / (i + 1), replace(p, section=LONG_SECTION) if i == 0 else p)
            for i, p in enumerate(paragraphs)]
    state.set_hits(rows)
    return state


def _panel(qtbot) -> EvidencePanel:
    panel = EvidencePanel()
    qtbot.addWidget(panel)
    panel.resize(DEFAULT_WIDTH, DEFAULT_HEIGHT)
    panel.show()
    return panel


def test_snippets_take_the_room_and_the_tooltip_holds_the_whole_paragraph(qtbot, evidence) -> None:
    panel = _panel(qtbot)
    panel.show_evidence(evidence)
    assert panel.title.text().endswith(f"{len(evidence.hits)} paragraphs")
    table, model = panel.table, panel.model
    snippet_width = table.columnWidth(SNIPPET_COLUMN)
    assert snippet_width >= 0.5 * table.viewport().width()  # the text gets most of the table
    # two lines of snippet per row: about twice the characters a single line would show
    assert table.rowHeight(0) >= 2 * table.fontMetrics().lineSpacing()
    first = evidence.hits[0].paragraph
    tip = model.index(0, SNIPPET_COLUMN).data(Qt.ItemDataRole.ToolTipRole)
    assert html.escape(" ".join(first.text.split()))[-60:] in tip  # the end of the paragraph too
    assert LONG_SECTION.split(" > ")[1] in tip


def test_long_section_paths_show_the_chapter_over_the_deepest_heading(qtbot, evidence) -> None:
    panel = _panel(qtbot)
    panel.show_evidence(evidence)
    index = panel.model.index(0, SECTION_COLUMN)
    assert index.data() == LONG_SECTION  # the whole path is the cell's text ...
    option = QStyleOptionViewItem()
    option.rect = panel.table.visualRect(index)
    panel.table.itemDelegateForColumn(SECTION_COLUMN).initStyleOption(option, index)
    chapter, heading = option.text.split("\u2028")  # ... shown as the chapter over the deepest heading
    assert chapter == "4 Word order" and heading.startswith("4.1 Basic") and heading.endswith("…")
    assert option.fontMetrics.horizontalAdvance(heading) <= panel.table.columnWidth(SECTION_COLUMN) - 8
    assert option.rect.height() >= 2 * option.fontMetrics.lineSpacing()  # both lines fit the row


def test_pins_come_first_and_choosing_a_row_reports_its_paragraph(qtbot, evidence) -> None:
    panel = _panel(qtbot)
    pinned = evidence.hits[3].paragraph
    evidence.set_pins([pinned.id])
    evidence.set_classification(None, [evidence.hits[1].paragraph.id])
    panel.show_evidence(evidence)
    assert panel.model.index(0, 0).data() == "4 ◆" and panel.paragraph(0) == pinned
    with qtbot.waitSignal(panel.paragraphChosen, timeout=1000) as chosen:
        panel.show_row(evidence.best_row())
    assert chosen.args == [pinned] and panel.table.currentIndex().row() == 0
    rect = panel.table.visualRect(panel.model.index(2, SNIPPET_COLUMN))
    with qtbot.waitSignal(panel.paragraphChosen, timeout=1000) as clicked:
        qtbot.mouseClick(panel.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert clicked.args == [panel.paragraph(2)]


def test_the_title_says_when_nothing_was_found(qtbot) -> None:
    panel = _panel(qtbot)
    state = WindowState()
    state.choose_feature(object())  # type: ignore[arg-type]
    panel.show_evidence(state)
    assert panel.title.text() == "<b>Evidence</b>"  # not searched yet
    state.set_hits([])
    panel.show_evidence(state)
    assert "nothing found" in panel.title.text()
