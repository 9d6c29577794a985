"""Krippendorff's alpha, PABAK, Gwet's AC1 and bootstrap intervals, each against a case computed by hand here."""

from __future__ import annotations

import math
import random

import pytest

from core.sample.kappa import cohen_kappa
from core.sample.reliability import bootstrap, gwet_ac1, krippendorff_alpha, pabak, pooled, reliability


def test_nominal_alpha_of_two_coders_by_hand() -> None:
    # units (a,a) (a,b) (b,b) (b,b): coincidences o_aa = 2, o_ab = o_ba = 1, o_bb = 4; n_a = 3, n_b = 5, n = 8
    # D_o = (1 + 1) / 8 = 0.25; D_e = (3*5 + 5*3) / (8*7) = 30/56; alpha = 1 - 0.25 * 56/30 = 8/15
    assert krippendorff_alpha([("a", "a"), ("a", "b"), ("b", "b"), ("b", "b")]) == pytest.approx(8 / 15)


def test_alpha_of_three_coders_with_missing_values_by_hand() -> None:
    # unit 1 (1, 1, -): m = 2, o_11 += 2 * 1/1
    # unit 2 (1, 2, 2): m = 3, six ordered pairs of weight 1/2: o_12 += 1, o_21 += 1, o_22 += 1
    # unit 3 (2, 2, 2): m = 3, o_22 += 6 * 1/2 = 3;  unit 4 (-, 1, -): one value, not pairable
    # o_11 = 2, o_12 = o_21 = 1, o_22 = 4 -> n_1 = 3, n_2 = 5, n = 8: D_o = 2/8, D_e = 30/56, alpha = 8/15
    units = [("1", "1", None), ("1", "2", "2"), ("2", "2", "2"), (None, "1", "?")]
    assert krippendorff_alpha(units) == pytest.approx(8 / 15)


def test_ordinal_alpha_weighs_adjacent_disagreements_less_by_hand() -> None:
    # units (1,1) (1,2) (3,3) (2,3): o_11 = 2, o_12 = o_21 = 1, o_33 = 2, o_23 = o_32 = 1; n_1 = 3, n_2 = 2, n_3 = 3
    # ordinal d(c,k) = (sum of n_g from c to k - (n_c + n_k)/2)^2: d(1,2) = (5 - 2.5)^2 = 6.25, d(2,3) = 6.25,
    # d(1,3) = (8 - 3)^2 = 25.  D_o = (2*6.25 + 2*6.25) / 8 = 3.125
    # D_e = 2 * (3*2*6.25 + 2*3*6.25 + 3*3*25) / 56 = 600/56; alpha = 1 - 3.125 * 56/600 = 425/600
    units = [("1", "1"), ("1", "2"), ("3", "3"), ("2", "3")]
    assert krippendorff_alpha(units, ordered=["1", "2", "3"]) == pytest.approx(425 / 600)
    # nominal on the same data: D_o = 4/8, D_e = 2 * (3*2 + 2*3 + 3*3) / 56 = 42/56, alpha = 1 - 0.5/0.75 = 1/3
    assert krippendorff_alpha(units) == pytest.approx(1 / 3)


def test_alpha_of_two_coders_without_missing_values_is_close_to_kappa_and_undefined_without_variation() -> None:
    a, b = ["1", "1", "0", "0", "1"], ["1", "0", "0", "0", "1"]
    alpha = krippendorff_alpha(list(zip(a, b, strict=True)))
    k = cohen_kappa(a, b).kappa
    # alpha = 1 - (n - 1) * D_o' ... for 2 coders alpha = kappa-like; here by hand: o_11 = 4, o_10 = o_01 = 1,
    # o_00 = 4, n_1 = n_0 = 5, n = 10: D_o = 2/10, D_e = 50/90, alpha = 1 - 0.2 * 90/50 = 0.64; kappa = 0.6154
    assert alpha == pytest.approx(0.64) and k == pytest.approx(0.6153846)
    assert krippendorff_alpha([("1", "1"), ("1", "1")]) is None


def test_the_kappa_paradox_and_what_pabak_and_ac1_say_by_hand() -> None:
    # 7 items, 6 agree on "1", one "1" vs "0": p_o = 6/7, p_e = 1 * 6/7 = 6/7 -> kappa 0
    pairs = [("1", "1")] * 6 + [("1", "0")]
    assert cohen_kappa([a for a, _ in pairs], [b for _, b in pairs]).kappa == pytest.approx(0.0)
    # PABAK (two categories) = 2 * 6/7 - 1 = 5/7
    assert pabak(pairs) == pytest.approx(5 / 7)
    # AC1: pi_1 = (7 + 6) / 14 = 13/14, pi_0 = 1/14; p_e = 2 * (13/14)(1/14) / (2 - 1) = 26/196
    # AC1 = (6/7 - 26/196) / (1 - 26/196) = (168 - 26) / (196 - 26) = 142/170
    assert gwet_ac1(pairs) == pytest.approx(142 / 170)


def test_pooled_pabak_uses_each_features_own_number_of_values() -> None:
    # GB020 (2 values): 2 items, both agree; 81A (7 values): 2 items, 1 agrees.
    # p_o = 3/4; p_e = (2 * 1/2 + 2 * 1/7) / 4 = (1 + 2/7) / 4 = 9/28; PABAK = (3/4 - 9/28) / (1 - 9/28) = 12/19
    items = [("GB020", "1", "1"), ("GB020", "0", "0"), ("81A", "1", "1"), ("81A", "1", "2")]
    assert pooled(items, "pabak") == pytest.approx(12 / 19)


def test_bootstrap_interval_is_seeded_contains_the_estimate_and_matches_the_normal_approximation() -> None:
    def share(part):
        return sum(part) / len(part)

    items = [1] * 150 + [0] * 50  # agreement 0.75 over 200 items
    first = bootstrap(items, share, resamples=2000, seed=7)
    again = bootstrap(items, share, resamples=2000, seed=7)
    assert first == again  # the same seed, the same interval
    assert first.estimate == pytest.approx(0.75) and first.low < 0.75 < first.high
    # normal approximation: 0.75 -/+ 1.96 * sqrt(0.75 * 0.25 / 200) = 0.75 -/+ 0.060
    half = 1.96 * math.sqrt(0.75 * 0.25 / 200)
    assert first.low == pytest.approx(0.75 - half, abs=0.015) and first.high == pytest.approx(0.75 + half, abs=0.015)
    constant = bootstrap([1] * 30, share, resamples=200)
    assert (constant.low, constant.high) == (1.0, 1.0)  # every resample is all agreement


def test_reliability_summary_of_two_coders() -> None:
    rng = random.Random(1)
    items = [("GB020", rng.choice("01"), None) for _ in range(3)]  # one side uncoded: left out
    items += [("GB020", "1", "1")] * 12 + [("GB020", "0", "0")] * 6 + [("GB020", "1", "0")] * 2 + [("GB021", "?", "1")]
    r = reliability(items, resamples=300)
    assert r.n == 20
    assert r.agreement.estimate == pytest.approx(18 / 20)
    assert r.kappa.low is not None and r.kappa.low <= r.kappa.estimate <= r.kappa.high
    assert "bootstrap intervals" in r.shown() and "AC1" in r.shown()


def test_the_fast_pair_bootstrap_agrees_with_the_plain_one() -> None:
    from core.sample.kappa import kappa_of_pairs
    from core.sample.reliability import pair_intervals

    rng = random.Random(3)
    pairs = [(a, a if rng.random() < 0.8 else rng.choice("012")) for a in (rng.choice("012") for _ in range(300))]
    agreement, kappa, alpha = pair_intervals(pairs, resamples=1000, seed=5)
    assert kappa.estimate == pytest.approx(kappa_of_pairs(pairs).kappa)
    assert alpha.estimate == pytest.approx(krippendorff_alpha(pairs))
    plain = bootstrap(pairs, lambda p: kappa_of_pairs(p).kappa, resamples=1000, seed=5)
    assert kappa.low == pytest.approx(plain.low, abs=0.03) and kappa.high == pytest.approx(plain.high, abs=0.03)
    plain_alpha = bootstrap(pairs, krippendorff_alpha, resamples=1000, seed=5)
    assert alpha.low == pytest.approx(plain_alpha.low, abs=0.03)
    assert agreement.low < agreement.estimate < agreement.high
