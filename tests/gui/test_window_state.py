"""The window's plain state, without Qt: page labels, what a new feature clears, which evidence comes first.

This module imports nothing from PySide6, and checks that the state module does not either.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from core.models import Document, LabelSource, Paragraph, ParagraphKind, Rect
from core.retrieval import Hit
from gui.common.window_state import CITED, EVIDENCE, PINNED, WindowState

REPO = Path(__file__).resolve().parents[2]

def _doc(doc_id: int) -> Document:
    return Document(doc_id, f"sha{doc_id}", f"g{doc_id}.pdf", f"/tmp/g{doc_id}.pdf", f"Grammar {doc_id}", 10,
                    LabelSource.PDF_LABELS, 3)


def _para(pid: int, doc_id: int = 1, page: int = 4) -> Paragraph:
    return Paragraph(pid, doc_id, pid, page, str(page), LabelSource.PDF_LABELS, "4 Word order", ParagraphKind.PROSE,
                     f"text {pid}", (Rect(page, 10, 10, 100, 40),))


def _state_with_hits(*ids: int) -> WindowState:
    state = WindowState()
    state.open_project(Path("/tmp/p.grammarlens"), [_doc(1), _doc(2)])
    state.show_document(_doc(1), {})
    state.choose_feature(object())  # type: ignore[arg-type] - any feature object
    state.set_hits([Hit(rank, 1.0 / rank, _para(pid, doc_id=2 if pid >= 100 else 1))
                    for rank, pid in enumerate(ids, start=1)])
    return state


def test_state_module_imports_no_qt() -> None:
    code = "import sys, gui.common.window_state; sys.exit('PySide6' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], cwd=REPO).returncode == 0


def test_printed_labels_map_to_pdf_pages_and_back() -> None:
    state = WindowState()
    state.show_document(_doc(1), {1: "i", 2: "ii", 3: "1", 4: "2", 9: "i"})
    assert state.page_for_label("ii") == 2
    assert state.page_for_label(" II ") == 2  # case and spaces do not matter
    assert state.page_for_label("i") == 1  # a label printed twice goes to its first page
    assert state.page_for_label("2") == 4  # the printed number, not the PDF page
    assert state.page_for_label("99") is None
    assert state.label_of(3) == "1" and state.label_of(7) == "7"  # unlabelled pages show the PDF number
    unlabelled = WindowState()
    unlabelled.show_document(_doc(2), {})
    assert unlabelled.page_for_label("5") == 5 and unlabelled.page_for_label("v") is None


def test_a_new_feature_clears_evidence_value_and_pins_and_late_results_are_recognised() -> None:
    state = _state_with_hits(1, 2)
    first = state.feature
    state.set_classification(None, [2])
    state.set_pins([1])
    assert state.evidence_known and state.cited == {2}
    second = object()
    state.choose_feature(second)  # type: ignore[arg-type]
    assert (state.hits, state.cited, state.pins, state.classification, state.evidence_known) == ([], set(), set(),
                                                                                                  None, False)
    assert state.is_current(second) and not state.is_current(first)  # type: ignore[arg-type]
    state.close_project()
    assert state.project_path is None and state.documents == [] and state.feature is None and not state.has_grammar


def test_the_deciding_paragraph_comes_first_pins_then_cited_then_rank_one() -> None:
    state = _state_with_hits(10, 11, 12)
    assert state.best_row() == 0
    state.set_classification(None, [12])
    assert state.ordered_hits()[state.best_row()].paragraph.id == 12
    state.set_pins([11])
    rows = state.ordered_hits()
    assert [h.paragraph.id for h in rows] == [11, 10, 12]  # pins listed first, the rest by rank
    assert state.best_row() == 0 and rows[0].paragraph.id == 11
    assert WindowState().best_row() == -1


def test_marks_cover_only_the_grammar_on_screen_with_the_strongest_kind() -> None:
    state = _state_with_hits(1, 2, 3, 100)
    state.set_classification(None, [2, 3])
    state.set_pins([3])
    marks = {m.paragraph.id: m.kind for m in state.marks()}
    assert marks == {1: EVIDENCE, 2: CITED, 3: PINNED}  # 100 is in the other grammar
    state.show_document(_doc(2), {})
    assert {m.paragraph.id for m in state.marks()} == {100}
    state.set_documents([_doc(1)])  # grammar 2 removed: nothing of it stays on screen
    assert state.document is None and state.marks() == []
