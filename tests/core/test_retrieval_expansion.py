"""Class vocabulary (core.retrieval.expansion): one statement of an isolating grammar decides every
bound-marker feature."""

from __future__ import annotations

from pathlib import Path

from core.catalog import load_catalog
from core.models import ParagraphKind
from core.retrieval.expansion import NO_INFLECTION, asks_bound_morphology, retrieval_vocabulary
from core.retrieval.pipeline import retrieve
from core.retrieval.settings import RetrievalSettings
from core.retrieval.vocabulary import vocab_tokens
from core.store import open_project
from tests.fixtures_retrieval import build_project

CATALOG = load_catalog()


def test_only_questions_about_bound_markers_take_the_class_phrases() -> None:
    for feature_id in ("GB084", "GB091", "GB044", "GB070", "GB155"):
        feature = CATALOG.get(feature_id)
        assert asks_bound_morphology(feature), feature_id
        assert set(NO_INFLECTION) <= set(retrieval_vocabulary(feature).values)
    # a particle, an article, a classifier, a WALS chapter: their own phrases only
    for feature_id in ("GB299", "GB020", "GB057", "81A"):
        feature = CATALOG.get(feature_id)
        assert not asks_bound_morphology(feature), feature_id
        assert retrieval_vocabulary(feature) == feature.vocabulary
    # the catalog's own vocabulary is untouched
    assert not set(NO_INFLECTION) & set(CATALOG.get("GB084").vocabulary.values)


def test_no_phrase_contains_another_so_one_statement_counts_once() -> None:
    tokens = [tuple(vocab_tokens(p)) for p in NO_INFLECTION]
    for a in tokens:
        for b in tokens:
            if a != b:
                assert not any(b == a[i:i + len(b)] for i in range(len(a) - len(b) + 1)), (a, b)


def test_an_isolating_grammars_statement_leads_the_evidence_for_a_future_tense_suffix(tmp_path: Path) -> None:
    """GB084 asks for a future-tense affix; the grammar never says "future" where it settles the question."""
    book = [
        ("5 Word classes > 5.3 Verbs", ParagraphKind.PROSE,
         "Morphological properties play only a minor role in defining verbs, due to the lack of inflectional "
         "morphology; verbs take no affixes for person, tense or aspect."),
        ("5 Word classes > 5.4 Adverbs", ParagraphKind.PROSE,
         "The adverb nanti 'later' often refers to a future event; tense is inferred from context."),
        ("7 Clauses > 7.2 Time", ParagraphKind.PROSE,
         "Temporal nouns such as besok 'tomorrow' locate an event in the future."),
        ("2 Phonology > 2.1 Vowels", ParagraphKind.PROSE, "There are five vowels; no vowel is nasal."),
    ]
    path = build_project(tmp_path / "isolating.grammarlens", book)
    with open_project(path) as project:
        hits = retrieve(project, CATALOG.get("GB084"), RetrievalSettings(reranker=None))
        # the same book, for a feature that is not about a bound marker: the statement does not lead
        particle = retrieve(project, CATALOG.get("GB299"), RetrievalSettings(reranker=None))
    assert "lack of inflectional morphology" in hits[0].paragraph.text
    assert hits[0].signals["vocabulary"] >= 1.0  # a value phrase once: worth two topic phrases once
    assert all("lack of inflectional" not in h.paragraph.text or h.signals["vocabulary"] < 1.0 for h in particle)
