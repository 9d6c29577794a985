"""Cohen's kappa (core/sample/kappa.py) against hand-computed cases, perfect agreement and chance level."""

from __future__ import annotations

import pytest

from core.sample.kappa import cohen_kappa


def test_kappa_of_a_hand_computed_two_by_two_table_leaves_out_pairs_without_a_value() -> None:
    # Ten items both raters coded, as a 2x2 table:       B=1  B=0
    #                                            A=1      4    2     (A: six 1s, four 0s)
    #                                            A=0      1    3     (B: five 1s, five 0s)
    # p_o = (4 + 3) / 10 = 0.7
    # p_e = P_A(1) P_B(1) + P_A(0) P_B(0) = 0.6 * 0.5 + 0.4 * 0.5 = 0.5
    # kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4
    a = ["1"] * 4 + ["1"] * 2 + ["0"] * 1 + ["0"] * 3
    b = ["1"] * 4 + ["0"] * 2 + ["1"] * 1 + ["0"] * 3
    # two more items where a side has no value ("?" and uncoded): left out, and counted
    k = cohen_kappa(a + ["?", "1"], b + ["1", None])
    assert (k.n, k.agreed, k.excluded) == (10, 7, 2)
    assert k.observed == pytest.approx(0.7)
    assert k.expected == pytest.approx(0.5)
    assert k.kappa == pytest.approx(0.4)
    assert k.shown() == "0.40 (n 10)"  # n beside every kappa


def test_kappa_of_three_categories_hand_computed() -> None:
    # WALS 81A-like codes over 6 items: A = 1 1 2 2 3 3, B = 1 2 2 2 3 1
    # p_o = 4/6 (items 1, 3, 4, 5 agree)
    # A: 1->2, 2->2, 3->2; B: 1->2, 2->3, 3->1; p_e = (2*2 + 2*3 + 2*1) / 36 = 12/36 = 1/3
    # kappa = (2/3 - 1/3) / (1 - 1/3) = 0.5
    k = cohen_kappa(["1", "1", "2", "2", "3", "3"], ["1", "2", "2", "2", "3", "1"])
    assert k.kappa == pytest.approx(0.5)


def test_perfect_agreement_is_one() -> None:
    assert cohen_kappa(["0", "1", "1", "0", "1"], ["0", "1", "1", "0", "1"]).kappa == pytest.approx(1.0)


def test_agreement_at_chance_level_is_zero() -> None:
    # each rater says 1 half the time; they agree on half the items, as independent raters would: p_o = p_e = 0.5
    k = cohen_kappa(["1", "1", "0", "0"], ["1", "0", "1", "0"])
    assert k.observed == pytest.approx(0.5) and k.expected == pytest.approx(0.5)
    assert k.kappa == pytest.approx(0.0)


def test_worse_than_chance_is_negative() -> None:
    assert cohen_kappa(["1", "0", "1", "0"], ["0", "1", "0", "1"]).kappa == pytest.approx(-1.0)


def test_both_raters_constant_on_one_label_is_undefined_not_one() -> None:
    k = cohen_kappa(["0", "0", "0"], ["0", "0", "0"])
    assert k.observed == 1.0 and k.expected == 1.0
    assert k.kappa is None and k.shown() == "n/a (n 3: both sides gave one and the same value to every item)"


def test_no_item_with_values_on_both_sides_is_undefined() -> None:
    k = cohen_kappa(["?", None], ["1", "0"])
    assert (k.n, k.excluded, k.kappa) == (0, 2, None)


def test_raters_of_different_item_counts_are_refused() -> None:
    with pytest.raises(ValueError):
        cohen_kappa(["1"], ["1", "0"])
