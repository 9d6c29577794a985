"""How good a re-ranking model must be (bench.judged_headroom): rank agreement, simulated models, calibration."""

from __future__ import annotations

import numpy as np
import pytest

from bench.fusion_fit import PairSignals
from bench.judged_headroom import format_headroom, headroom, noise_at, rank_agreement, ranks, spearman

WEIGHTS = {"signal_weight": 0.2, "section_weight": 1.25, "dictionary_penalty": 0.0}


def _pair(gains: list[int], vocabulary: list[float] | None = None, graded: list[bool] | None = None,
          file: str = "g.pdf") -> PairSignals:
    n = len(gains)
    signals = {
        "bm25": np.linspace(2.0, 0.1, n), "bm25_vocabulary": np.linspace(1.0, 0.1, n),
        "vocabulary": np.array(vocabulary if vocabulary is not None else [1.0] * n, dtype=np.float64),
        "dense": np.linspace(0.9, 0.1, n), "section": np.zeros(n), "outside": np.zeros(n),
        "dictionary": np.zeros(n), "furniture": np.zeros(n),
    }
    mask = np.array(graded if graded is not None else [True] * n)
    return PairSignals("GB020", file, signals, np.array(gains, dtype=np.float64), mask, [g for g in gains if g])


def test_ties_share_their_mean_rank() -> None:
    assert ranks(np.array([3.0, 1.0, 3.0, 2.0])).tolist() == [3.5, 1.0, 3.5, 2.0]


def test_spearman_is_one_for_the_same_order_minus_one_reversed_and_none_when_constant() -> None:
    a = np.array([0.1, 0.5, 0.3, 0.9])
    assert spearman(a, a * 10 + 1) == pytest.approx(1.0)
    assert spearman(a, -a) == pytest.approx(-1.0)
    assert spearman(a, np.ones(4)) is None


def test_rank_agreement_reads_graded_candidates_only_and_skips_pairs_that_say_nothing() -> None:
    # the ungraded middle candidate would break the perfect agreement if it counted
    pair = _pair([2, 0, 1, 0], graded=[True, False, True, True])
    pair.signals["dense"] = np.array([0.9, 0.95, 0.5, 0.1])
    one_grade = _pair([1, 1, 1, 1])  # a single grade: no order to agree with
    too_few = _pair([2, 0], graded=[True, True])
    assert rank_agreement([pair, one_grade, too_few], lambda p: p.signals["dense"]) == pytest.approx(1.0)


def test_a_perfect_simulated_model_agrees_fully_and_a_noisy_one_less_and_ranks_worse() -> None:
    # neither the vocabulary nor BM25 can tell the paragraphs apart: the model's similarity decides
    pairs = [_pair([0, 0, 0, 0, 0, 1, 0, 0, 2, 2, 0, 1], file=f"g{k}.pdf") for k in range(4)]
    for pair in pairs:
        pair.signals["bm25"][:] = 1.0
        pair.signals["bm25_vocabulary"][:] = 1.0
    result = headroom(pairs, WEIGHTS, signal_weights=[1.0], noises=(0.0, 3.0), seeds=3)
    perfect, noisy = result["simulated"]
    assert perfect["agreement"] == pytest.approx(1.0) and noisy["agreement"] < 0.6
    assert perfect["unguarded_ndcg@10"] == pytest.approx(1.0)
    assert noisy["unguarded_ndcg@10"] < perfect["unguarded_ndcg@10"]
    assert result["real_agreement"]["dense"] < 0  # the real similarity here runs against the grades
    text = format_headroom(result)
    assert "dense" in text and "0.00     1.000" in text


def test_noise_at_interpolates_the_curve_and_says_none_beyond_it() -> None:
    curve = [(1.0, 0.80), (0.0, 0.90), (2.0, 0.70)]
    assert noise_at(curve, 0.85) == pytest.approx(0.5)
    assert noise_at(curve, 0.75) == pytest.approx(1.5)
    assert noise_at(curve, 0.95) is None  # not even a perfect model reaches it
    assert noise_at(curve, 0.60) == 2.0  # still above at the noisiest point

