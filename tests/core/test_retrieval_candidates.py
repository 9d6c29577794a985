"""Candidate selection: the question's BM25 top, widened by the feature's vocabulary (core.retrieval.candidates)."""

from __future__ import annotations

import numpy as np

from core.catalog import load_catalog
from core.retrieval.bm25 import BM25Index
from core.retrieval.candidates import PhraseIndexSource, select_candidates
from core.retrieval.settings import RetrievalSettings
from core.retrieval.tokenize import tokenize
from core.retrieval.vocabulary import PhraseIndex, vocabulary_scores

BOOK = [
    "The order of affixes on the verb: subject prefixes precede the object suffixes.",
    "Order of the dominant clause constituents is discussed with the subject and the object below.",
    "Moloko is an SVO language: the verb stands between the two core arguments.",  # no question word but 'SVO'
    "Tone spreads from the verb stem leftwards over the prefixes.",
    "Nouns take no case suffixes; word order alone shows who did what.",
    "In order to go to the market, one takes the path by the river.",
]


def _pool(settings: RetrievalSettings) -> list[int]:
    feature = load_catalog().get("81A")
    index = BM25Index([tokenize(t) for t in BOOK])
    return select_candidates(index, PhraseIndexSource(lambda: BOOK), feature, settings).indices


def test_the_papers_candidates_miss_a_statement_in_the_grammars_own_words() -> None:
    paper = RetrievalSettings(bm25_top=2, vocabulary_query_top=0, vocabulary_top=0, reranker=None)
    assert 2 not in _pool(paper)
    # the BM25 baseline never widens, whatever the knobs say
    assert _pool(RetrievalSettings(bm25_top=2, ranking="bm25", reranker=None)) == _pool(paper)


def test_vocabulary_brings_the_statement_in_and_keeps_the_paper_candidates_first() -> None:
    paper = _pool(RetrievalSettings(bm25_top=2, vocabulary_query_top=0, vocabulary_top=0, reranker=None))
    widened = _pool(RetrievalSettings(bm25_top=2, vocabulary_query_top=0, vocabulary_top=3, reranker=None))
    assert 2 in widened and widened[: len(paper)] == paper
    by_query = _pool(RetrievalSettings(bm25_top=2, vocabulary_query_top=3, vocabulary_top=0, reranker=None))
    assert by_query[: len(paper)] == paper and len(by_query) > len(paper) and len(set(by_query)) == len(by_query)


def test_phrase_index_scores_equal_a_full_scan() -> None:
    vocabulary = load_catalog().get("81A").vocabulary
    full = vocabulary_scores(BOOK, vocabulary, 2.0)
    indexed = PhraseIndex(BOOK).scores(vocabulary, 2.0)
    assert set(indexed) == {i for i, s in enumerate(full) if s > 0}
    np.testing.assert_allclose([indexed[i] for i in sorted(indexed)], [full[i] for i in sorted(indexed)])
    assert 5 not in indexed  # 'in order to' is not word order
