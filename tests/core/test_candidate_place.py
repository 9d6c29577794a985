"""The place signals travel as one value: missing ones count zero, wrong lengths are refused."""

from __future__ import annotations

import numpy as np
import pytest

from core.retrieval.candidate_place import CandidatePlace
from core.retrieval.combine import combine
from core.retrieval.settings import RetrievalSettings


def test_a_missing_place_signal_counts_zero_and_every_array_is_float() -> None:
    place = CandidatePlace.of(3, opening=np.array([True, False, True]))
    assert len(place) == 3
    assert place.opening.dtype == np.float64 and place.opening.tolist() == [1.0, 0.0, 1.0]
    for name in ("furniture", "section", "outside", "dictionary", "fragment"):
        assert getattr(place, name).tolist() == [0.0, 0.0, 0.0], name
    assert all(getattr(CandidatePlace.none(2), name).tolist() == [0.0, 0.0] for name in ("section", "fragment"))


def test_a_place_of_the_wrong_length_is_refused() -> None:
    with pytest.raises(ValueError, match="section"):
        CandidatePlace.of(3, section=np.array([1.0, 0.0]))
    with pytest.raises(ValueError, match="2 candidates given for 3"):
        combine(RetrievalSettings(reranker=None), np.ones(3), np.ones(3), None, place=CandidatePlace.none(2))


def test_no_place_ranks_as_a_place_of_zeros_and_a_given_one_moves_the_ranking() -> None:
    settings = RetrievalSettings(reranker=None)
    bm25, vocabulary = np.array([3.0, 2.0, 1.0]), np.array([1.0, 1.0, 1.0])
    bare = combine(settings, bm25, vocabulary, None)
    zeros = combine(settings, bm25, vocabulary, None, place=CandidatePlace.none(3))
    assert bare.order == zeros.order == [0, 1, 2] and bare.scores.tolist() == zeros.scores.tolist()
    furnished = combine(settings, bm25, vocabulary, None, place=CandidatePlace.of(3, furniture=np.array([1, 0, 0])))
    assert furnished.order == [1, 2, 0] and furnished.signals[0]["furniture"] == 1.0
