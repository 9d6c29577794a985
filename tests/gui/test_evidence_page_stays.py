"""The page stays put (issue 28): the re-ranked order updates the list and offers its first paragraph, never jumps.

Real paragraphs of the demo grammar, real hits (core.retrieval.pipeline.Hit) with parts of the book.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import Qt

from core.models import Paragraph
from core.retrieval.book_parts import BookPart
from core.retrieval.pipeline import Hit
from core.store import open_project, repository
from gui.common.window_state import WindowState
from gui.features.evidence_model import SECTION_COLUMN
from gui.features.evidence_panel import OFFER_LINK, EvidencePanel


@pytest.fixture
def paragraphs(demo_project) -> list[Paragraph]:
    with open_project(demo_project) as project:
        return [p for p in repository.list_paragraphs(project) if len(p.text) > 150][:5]


def _hits(paragraphs: list[Paragraph], provisional: bool = False) -> list[Hit]:
    return [Hit(i + 1, 5.0 - i, p, provisional=provisional) for i, p in enumerate(paragraphs)]


def _panel(qtbot) -> tuple[EvidencePanel, list[Paragraph]]:
    panel = EvidencePanel()
    qtbot.addWidget(panel)
    panel.resize(560, 420)
    panel.show()
    chosen: list[Paragraph] = []
    panel.paragraphChosen.connect(chosen.append)
    return panel, chosen


def test_rows_after_rerank_keep_what_is_read_and_offer_the_new_first() -> None:
    state = WindowState()
    a, b, c = (Paragraph(i, 1, i, i, str(i), "pdf_labels", "", "prose", f"text {i}") for i in (1, 2, 3))  # type: ignore[arg-type]
    state.set_hits([Hit(1, 3.0, b), Hit(2, 2.0, a), Hit(3, 1.0, c)], reranked=True)
    assert state.rows_after_rerank(a.id) == (1, 0)  # a still listed (row 1), b offered
    assert state.rows_after_rerank(b.id) == (0, -1)  # b is read and first: nothing to offer
    assert state.rows_after_rerank(99) == (-1, 0)  # the paragraph read left the list: it is not forced either
    assert state.rows_after_rerank(None) == (0, -1)  # nothing read: the best row is shown
    state.choose_feature(None)
    assert not state.reranked


def test_the_reranked_order_updates_the_list_and_the_page_stays(qtbot, paragraphs) -> None:
    panel, chosen = _panel(qtbot)
    state = WindowState()
    state.choose_feature(object())  # type: ignore[arg-type] - any feature
    state.set_hits(_hits(paragraphs, provisional=True))
    panel.present(state)
    assert chosen == [paragraphs[0]]  # the first order's best paragraph is shown at once
    # the re-ranked order puts another paragraph first
    reranked = [paragraphs[3], paragraphs[0], paragraphs[1], paragraphs[2], paragraphs[4]]
    state.set_hits(_hits(reranked), reranked=True)
    panel.present(state)
    assert chosen == [paragraphs[0]]  # nothing reported: the page did not move
    assert panel.table.currentIndex().row() == 1  # the paragraph being read stays selected, in its new row
    assert [h.paragraph.id for h in panel.model.hits] == [p.id for p in reranked]
    assert OFFER_LINK in panel.title.text() and f"p. {paragraphs[3].page_label}" in panel.title.text()
    panel.title.linkActivated.emit(OFFER_LINK)  # the coder takes the offer
    assert chosen == [paragraphs[0], paragraphs[3]] and panel.table.currentIndex().row() == 0
    assert OFFER_LINK not in panel.title.text()


def test_a_reranked_order_with_the_same_first_paragraph_offers_nothing(qtbot, paragraphs) -> None:
    panel, chosen = _panel(qtbot)
    state = WindowState()
    state.choose_feature(object())  # type: ignore[arg-type]
    state.set_hits(_hits(paragraphs, provisional=True))
    panel.present(state)
    state.set_hits(_hits([paragraphs[0], paragraphs[2], paragraphs[1]]), reranked=True)
    panel.present(state)
    assert chosen == [paragraphs[0]] and OFFER_LINK not in panel.title.text()


def test_front_matter_is_named_in_the_section_column_and_greyed(qtbot, paragraphs) -> None:
    panel, _chosen = _panel(qtbot)
    state = WindowState()
    state.choose_feature(object())  # type: ignore[arg-type]
    acknowledgements = replace(paragraphs[1], section="Acknowledgements")
    state.set_hits([Hit(1, 2.0, paragraphs[0]), Hit(2, -90.0, acknowledgements, part=BookPart.FRONT)])
    panel.present(state)
    model = panel.model
    assert model.index(0, SECTION_COLUMN).data() == paragraphs[0].section
    assert model.index(1, SECTION_COLUMN).data() == "front matter > Acknowledgements"
    assert model.index(1, SECTION_COLUMN).data(Qt.ItemDataRole.ForegroundRole) is not None
    assert model.index(0, SECTION_COLUMN).data(Qt.ItemDataRole.ForegroundRole) is None
    assert "front matter, not the grammar proper" in model.index(1, 0).data(Qt.ItemDataRole.ToolTipRole)
