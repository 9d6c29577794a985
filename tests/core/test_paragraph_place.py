"""A section's first paragraph and fragments (core.retrieval.paragraph_place): the flags and their effect."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from core.catalog import load_catalog
from core.models import LabelSource, Paragraph, ParagraphKind
from core.retrieval.candidate_place import CandidatePlace
from core.retrieval.combine import combine
from core.retrieval.paragraph_place import fragment_flags, is_fragment, opening_flags
from core.retrieval.pipeline import retrieve
from core.retrieval.settings import RetrievalSettings
from core.store import open_project
from tests.fixtures_retrieval import build_project


def _p(section: str, kind: ParagraphKind, text: str, document: int = 1) -> Paragraph:
    return Paragraph(id=0, document_id=document, seq=0, pdf_page=1, page_label="1", label_source=LabelSource.PDF_LABELS,
                     section=section, kind=kind, text=text)


PROSE, HEADING = ParagraphKind.PROSE, ParagraphKind.HEADING
LONG = "Nouns carry no overt case markers; the function of a noun phrase is shown by word order alone."


def test_the_first_paragraph_after_a_heading_opens_its_section_once_per_document() -> None:
    book = [
        _p("", PROSE, "Title page"),  # before any heading: no section to open
        _p("4 Noun morphology", HEADING, "4 Noun morphology"),
        _p("4 Noun morphology", PROSE, LONG),
        _p("4 Noun morphology", PROSE, LONG),
        _p("4 Noun morphology > 4.1 Plural", PROSE, LONG),
        _p("4 Noun morphology", PROSE, LONG),  # the section path again, further on: not a new opening
        _p("4 Noun morphology", PROSE, LONG, document=2),  # another document's section of that name
    ]
    assert opening_flags(book).tolist() == [0, 0, 1, 0, 1, 0, 1]


def test_a_fragment_has_fewer_than_eight_content_words_and_is_not_a_heading() -> None:
    assert is_fragment(_p("4 Noun morphology", PROSE, "tive (9–10, Section 5.3)."))
    assert is_fragment(_p("4 Noun morphology", PROSE, "⁇"))
    assert not is_fragment(_p("4 Noun morphology", PROSE, LONG))
    assert not is_fragment(_p("4 Noun morphology", HEADING, "4 Noun morphology"))  # a heading is the section's name
    assert fragment_flags([_p("", PROSE, "⁇"), _p("", PROSE, LONG)]).tolist() == [1.0, 0.0]


def test_an_opening_paragraph_gains_by_its_section_match_and_a_fragment_loses() -> None:
    settings = RetrievalSettings(reranker=None, opening_weight=0.35, fragment_penalty=0.25, opening_bonus=0.0)
    bm25 = np.array([2.0, 2.0, 2.0])
    vocabulary = np.array([1.0, 1.0, 1.0])
    section = np.array([1.0, 1.0, 0.0])
    opening = np.array([0.0, 1.0, 1.0])
    place = CandidatePlace.of(3, section=section, opening=opening)
    plain = combine(settings.with_(opening_weight=0.0), bm25, vocabulary, None, place=place)
    assert plain.order == [0, 1, 2]  # ties keep the given order
    ranked = combine(settings, bm25, vocabulary, None, place=place)
    assert ranked.order == [1, 0, 2]  # the opening of a matching section first; under no match, no bonus
    assert ranked.scores[1] - ranked.scores[0] == pytest.approx(0.35) and ranked.scores[2] == plain.scores[2]
    cut = combine(settings, bm25, vocabulary, None,
                  place=CandidatePlace.of(3, section=section, fragment=np.array([1.0, 0.0, 0.0])))
    assert cut.order == [1, 0, 2] and cut.signals[0]["fragment"] == 1.0


def test_retrieval_ranks_the_opening_statement_of_a_matching_section_above_a_fragment_of_it(tmp_path: Path) -> None:
    grammar = [
        ("5 Word order", HEADING, "5 Word order"),
        ("5 Word order", PROSE, "The verb comes last in the clause, after the subject and the object, in every kind "
                                "of clause the corpus holds."),
        ("5 Word order", PROSE, "The order of constituents in a clause varies with information structure, as the "
                                "examples below show for topicalised objects."),
        ("5 Word order", PROSE, "(SOV, see 5.2)."),
        ("6 Tense", PROSE, "Verbs take no tense marking."),
    ]
    path = build_project(tmp_path / "order.grammarlens", grammar)
    feature = load_catalog().get("81A")
    placed = RetrievalSettings(reranker=None, final_top=10, opening_weight=0.35, fragment_penalty=0.25)
    with open_project(path) as project:
        hits = retrieve(project, feature, placed)
        plain = retrieve(project, feature, placed.with_(opening_weight=0.0, fragment_penalty=0.0))
    by_text = {h.paragraph.text: h for h in hits}
    opening, fragment = by_text[grammar[1][2]], by_text[grammar[3][2]]
    assert opening.signals["opening"] == 1.0 and by_text[grammar[2][2]].signals["opening"] == 0.0
    assert fragment.signals["fragment"] == 1.0 and opening.signals["fragment"] == 0.0
    assert plain[0].paragraph.text == grammar[3][2]  # "(SOV, see 5.2)." names a value: it led
    assert [h.paragraph.text for h in hits[:2]] == [grammar[1][2], grammar[3][2]]


def test_the_opening_bonus_lifts_a_sections_first_paragraph_whatever_its_heading() -> None:
    settings = RetrievalSettings(reranker=None, opening_weight=0.35, fragment_penalty=0.0, opening_bonus=0.1)
    bm25 = np.array([2.0, 2.0, 2.0])
    vocabulary = np.array([1.0, 1.0, 1.0])
    section = np.array([0.0, 0.0, 1.0])
    opening = np.array([0.0, 1.0, 1.0])
    place = CandidatePlace.of(3, section=section, opening=opening)
    ranked = combine(settings, bm25, vocabulary, None, place=place)
    plain = combine(settings.with_(opening_bonus=0.0), bm25, vocabulary, None, place=place)
    assert plain.order == [2, 0, 1]  # without the bonus, an opening under no matching heading gains nothing
    assert ranked.order == [2, 1, 0]  # with it, it comes before a paragraph further into its section
    assert ranked.scores[1] - plain.scores[1] == pytest.approx(0.1) and ranked.scores[0] == plain.scores[0]
    assert ranked.scores[2] - plain.scores[2] == pytest.approx(0.1)  # on top of opening_weight x section
