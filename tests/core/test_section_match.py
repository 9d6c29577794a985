"""The section-match signal (core.retrieval.sections): headings read as a linguist reads a table of contents."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.catalog import load_catalog
from core.models import ParagraphKind
from core.retrieval.pipeline import retrieve
from core.retrieval.sections import BookSections, SectionIndex, fold, section_phrases, section_terms
from core.retrieval.settings import RetrievalSettings
from core.store import create_project, open_project
from tests.fixtures_retrieval import build_project
from tests.fixtures_shared import GRAMMARS

CATALOG = load_catalog()
HEADINGS = [
    "5 Word classes > 5.3 Verbs > 5.3.6 Negation",
    "13 Negative clauses > 13.1 Negation with tida",
    "3 Word-formation",
    "1 Introduction > 1.6 Typological profile > 1.6.1.4 Basic word order",
    "2 Phonology > 2.1 Segment inventory > 2.1.1 Consonant system > 2.1.1.1 Consonant inventory",
    "2 Phonology > 2.4 Haplology",
    "8 Noun phrases > 8.2 Articles and demonstratives",
    "7 Syntax > 7.3 Relative clauses",
]


def _scores(feature_id: str) -> dict[str, float]:
    index = SectionIndex(HEADINGS)
    return dict(zip(HEADINGS, index.scores(CATALOG.get(feature_id)).tolist(), strict=True))


def test_a_heading_naming_the_topic_scores_and_a_word_in_passing_does_not() -> None:
    gb107 = _scores("GB107")
    assert gb107["5 Word classes > 5.3 Verbs > 5.3.6 Negation"] == pytest.approx(1.0)
    assert gb107["13 Negative clauses > 13.1 Negation with tida"] > 0.3
    assert gb107["2 Phonology > 2.4 Haplology"] == 0.0
    wals81 = _scores("81A")
    assert wals81["1 Introduction > 1.6 Typological profile > 1.6.1.4 Basic word order"] == pytest.approx(1.0)
    assert wals81["3 Word-formation"] == 0.0  # "word" alone is not the phrase "word order"
    assert wals81["7 Syntax > 7.3 Relative clauses"] < 0.5
    consonants = _scores("1A")
    best = max(consonants, key=consonants.get)
    assert best.endswith("Consonant inventory") and consonants["2 Phonology > 2.4 Haplology"] == 0.0
    articles = _scores("GB020")  # "article" is a topic phrase (full weight), "demonstrative" a unit (half)
    assert articles["8 Noun phrases > 8.2 Articles and demonstratives"] == pytest.approx(0.75)


def test_the_feature_brings_its_own_phrases() -> None:
    assert fold("inventories") == "inventory" and fold("articles") == "article" and fold("class") == "class"
    gb020 = section_terms(CATALOG.get("GB020"))
    assert {fold("article"), fold("definiteness"), fold("demonstrative")} <= gb020
    assert "are" not in gb020 and "there" not in gb020  # Grambank's question is not a heading
    units = dict(section_phrases(CATALOG.get("GB107")))
    assert units[frozenset({fold("verb")})] == 0.5  # a unit ("verb") locates less well than a function ("negation")
    assert units[frozenset({fold("negation")})] == 1.0


def test_paragraphs_of_the_right_section_rank_even_without_the_features_words(tmp_path: Path) -> None:
    """GB107 in a book whose negation section never says "negation": other sections say "negative" in passing."""
    book = [
        ("2 Phonology > 2.3 Tone", ParagraphKind.PROSE,
         "High tone spreads rightwards onto a toneless syllable; a negative verb keeps the tone of its root."),
        ("4 Numerals", ParagraphKind.PROSE, "Negative numbers are rare in texts; counting uses the hands."),
        ("6 Clauses > 6.2 Questions", ParagraphKind.PROSE,
         "A polar question ends in the particle ka; the verb is not marked."),
        ("6 Clauses > 6.4 Negation", ParagraphKind.PROSE,
         "The prefix ma- precedes the verb root: ma-dò 'not-go', ma-sepo-ra 'not-cook-PST'."),
        ("6 Clauses > 6.4 Negation", ParagraphKind.PROSE,
         "With nominal predicates the free word bai follows the predicate instead."),
    ]
    path = build_project(tmp_path / "neg.grammarlens", book)
    settings = RetrievalSettings(reranker=None)
    with open_project(path) as project:
        without = retrieve(project, CATALOG.get("GB107"), settings.with_(section_weight=0.0))
        hits = retrieve(project, CATALOG.get("GB107"), settings)
    sections = [h.paragraph.section for h in hits]
    assert sections[0] == "6 Clauses > 6.4 Negation" and hits[0].signals["section"] == pytest.approx(1.0)
    assert sections.index("4 Numerals") > max(i for i, s in enumerate(sections) if s.endswith("Negation"))
    # without the signal, a paragraph that says "negative verb" in passing leads
    assert without[0].paragraph.section == "2 Phonology > 2.3 Tone"


def test_book_sections_map_every_paragraph_to_its_section_score() -> None:
    sections = ["A > Negation", "A > Negation", "B > Tone", ""]
    book = BookSections.build(sections)
    scores = book.paragraph_scores(CATALOG.get("GB107"))
    assert len(book.index.sections) == 3 and scores.tolist()[:2] == [1.0, 1.0] and scores[2] == 0.0 == scores[3]


@pytest.mark.slow
def test_on_a_shared_grammar_negation_is_found_in_its_sections(tmp_path: Path) -> None:
    """Iranian Armenian (228 pages): GB107's first paragraphs come from the grammar's sections on negation."""
    from core.ingest import ingest

    pdf = GRAMMARS / "354_Iranian_Armenian.pdf"
    path = tmp_path / "armenian.grammarlens"
    with create_project(path) as project:
        ingest(project, pdf)
        hits = retrieve(project, CATALOG.get("GB107"), RetrievalSettings(reranker=None))
    assert all(h.part.value == "body" for h in hits[:5])
    assert any("negat" in h.paragraph.section.lower() for h in hits[:3])
    assert max(h.signals["section"] for h in hits[:5]) >= 0.5


def test_a_heading_is_matched_by_its_stem_not_only_its_exact_word() -> None:
    """ "Negative constructions" heads negation, "Classifying nouns" classifiers, "Possessive" possession."""
    assert fold("negation") == fold("negative") == fold("negator") == fold("negated")
    assert fold("classifiers") == fold("classifying") == fold("classifier")
    assert fold("possession") == fold("possessive") == fold("possessor")
    assert fold("derivational") == fold("derivation") and fold("verbal") == fold("verbs")
    assert fold("word") == "word" and fold("order") == "order"  # short stems keep their endings
    headings = ["5 Word classes > 5.2 Nouns > 5.2.6 Classifying nouns", "12 Negative constructions",
                "5 Word classes > 5.9 Numerals", "2 Phonology > 2.4 Haplology"]
    index = SectionIndex(headings)
    classifiers = dict(zip(headings, index.scores(CATALOG.get("GB057")).tolist(), strict=True))
    assert classifiers["5 Word classes > 5.2 Nouns > 5.2.6 Classifying nouns"] >= 0.5
    assert classifiers["2 Phonology > 2.4 Haplology"] == 0.0
    negation = dict(zip(headings, index.scores(CATALOG.get("GB107")).tolist(), strict=True))
    assert negation["12 Negative constructions"] >= 0.5 and negation["5 Word classes > 5.9 Numerals"] == 0.0
