"""Tokenizer, BM25 (against rank-bm25 as the oracle), NDCG, vocabulary and the evidence budget."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from core.catalog import load_catalog
from core.retrieval import estimate_tokens, pack_budget
from core.retrieval.bm25 import BM25Index
from core.retrieval.ndcg import ndcg
from core.retrieval.tokenize import tokenize
from core.retrieval.vocabulary import vocabulary_scores

RERANKERS = Path(__file__).resolve().parents[3] / "shared" / "bench" / "rerankers"


def test_tokenizer_strips_diacritics_but_keeps_ipa_letters() -> None:
    assert tokenize("Gã ŋɔ́ɔ ʔàbà ɛ̃") == ["ga", "ŋɔɔ", "ʔaba", "ɛ"]
    # precomposed and decomposed spellings give the same term
    assert tokenize("caf\u00e9") == tokenize("cafe\u0301") == ["cafe"]


def test_tokenizer_splits_glosses_and_folds_small_caps() -> None:
    assert tokenize("yarro-ngomay house-ABL1 3SG=NOM") == ["yarro", "ngomay", "house", "abl1", "3sg", "nom"]
    assert tokenize("NEG") == tokenize("neg") == tokenize("Neg")
    assert tokenize("ﬁnal") == ["final"]  # ligature from PDF extraction


def test_tokenizer_drops_metalanguage_stopwords_only_when_asked() -> None:
    assert tokenize("the order of the verb") == ["order", "verb"]
    assert tokenize("the order", keep_stopwords=True) == ["the", "order"]


def _corpora() -> list[list[list[str]]]:
    out = [[tokenize(t) for t in ["a b c", "b b d", "", "c c c c e", "ŋa-ba=ka ŋa", "x"]]]
    for path in sorted(RERANKERS.glob("*.csv"))[:3]:
        with open(path, newline="", encoding="utf-8") as fh:
            out.append([tokenize(r["Paragraph"]) for r in csv.DictReader(fh)])
    return out


@pytest.mark.parametrize("query", ["word order subject object verb order", "ŋa b c", "svo sov basic", "zzz"])
def test_bm25_equals_rank_bm25(query: str) -> None:
    for corpus in _corpora():
        q = tokenize(query)
        expected = BM25Okapi(corpus).get_scores(q)
        got = BM25Index(corpus).scores(q)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
        top = BM25Index(corpus).top(q, 5)
        assert [i for i, _ in top] == sorted(range(len(corpus)), key=lambda i: (-expected[i], i))[:5]


def test_ndcg_against_hand_computed_values() -> None:
    # grades in ranked order [3, 2, 3, 0, 1]; ideal [3, 3, 2, 1, 0]
    dcg3 = 3 + 2 / math.log2(3) + 3 / math.log2(4)
    idcg3 = 3 + 3 / math.log2(3) + 2 / math.log2(4)
    assert ndcg([3, 2, 3, 0, 1], 3) == pytest.approx(dcg3 / idcg3)
    assert ndcg([3, 2, 3, 0, 1], 3) == pytest.approx(0.9778, abs=1e-4)  # (3 + 1.2619 + 1.5) / (3 + 1.8928 + 1.0)
    assert ndcg([5, 4, 0], 2) == 1.0
    assert ndcg([0, 0, 0], 5) == 0.0
    assert ndcg([0, 1], 1) == 0.0


def test_vocabulary_rewards_stated_values_and_ignores_in_order_to() -> None:
    feature = load_catalog().get("81A")
    scores = vocabulary_scores(
        ["The basic word order is SOV.", "In order to go, take the suffix.", "Word order in the noun phrase."],
        feature.vocabulary, value_weight=2.0,
    )
    assert scores[0] > scores[2] > scores[1] == 0.0


def test_pack_budget_keeps_ranking_order_and_whole_paragraphs() -> None:
    texts = ["a" * 400, "b" * 4000, "c" * 800, "d" * 40]  # 100, 1000, 200, 10 tokens
    assert [estimate_tokens(t) for t in texts] == [100, 1000, 200, 10]
    assert pack_budget(texts, 320) == [texts[0], texts[2], texts[3]]
    assert pack_budget(texts, 99) == [texts[3]]
    assert pack_budget(texts, 0) == []
    assert estimate_tokens("abcde") == 2


def test_metalanguage_idioms_do_not_count_as_the_topic() -> None:
    """'In most cases' is not about grammatical case; 'case suffixes' is."""
    from core.catalog import load_catalog
    from core.retrieval.vocabulary import vocabulary_scores

    feature = load_catalog().get("49A")
    idiom, topic = vocabulary_scores(
        ["In most cases the verb comes last, and in this case it is marked.",
         "Nouns take case suffixes: nominative, accusative and genitive."],
        feature.vocabulary, value_weight=2.0,
    )
    assert idiom == 0.0 and topic > 1.0


def test_case_meaning_instance_is_not_grammatical_case() -> None:
    """Counting occurrences ('we found no cases of') or situations ('cases where') names no case system."""
    from core.catalog import load_catalog
    from core.retrieval.vocabulary import vocabulary_scores

    feature = load_catalog().get("GB070")
    scores = vocabulary_scores(
        ["We found no cases of a verb without a subject.",
         "There are cases where the object is fronted, and a case of doubling.",
         "It is often the case that only the final constituent is questioned, as is the case for negation.",
         "Nouns carry no case markers; the function of a noun phrase is shown by word order."],
        feature.vocabulary, value_weight=2.0,
    )
    assert list(scores[:3]) == [0.0, 0.0, 0.0]
    assert scores[3] > 0.0
