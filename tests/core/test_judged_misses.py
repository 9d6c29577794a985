"""The per-query error analysis (bench.judged_misses): which pairs fall short, where their deciding
paragraphs rank, and why."""

from __future__ import annotations

import numpy as np

from bench.fusion_fit import PairSignals
from bench.judged_misses import format_misses, misses, pair_misses

WEIGHTS = {"signal_weight": 0.25, "section_weight": 1.25, "dictionary_penalty": 0.0}


def _pair(feature: str, vocabulary: list[float], gains: list[int], file: str = "g.pdf") -> PairSignals:
    n = len(vocabulary)
    signals = {
        "bm25": np.linspace(2.0, 0.1, n), "bm25_vocabulary": np.linspace(1.0, 0.1, n),
        "vocabulary": np.array(vocabulary, dtype=np.float64), "section": np.zeros(n),
        "outside": np.zeros(n), "dictionary": np.zeros(n), "furniture": np.zeros(n),
    }
    return PairSignals(feature, file, signals, np.array(gains, dtype=np.float64), np.ones(n, dtype=bool),
                       [g for g in gains if g] + [0], keys=[f"k{i}" for i in range(n)],
                       labels=[str(i + 1) for i in range(n)], sections=[f"Chapter {i}" for i in range(n)],
                       texts=[f"paragraph {i}" for i in range(n)])


def test_a_deciding_paragraph_without_the_features_words_is_a_miss_named_for_it() -> None:
    # seven paragraphs that name the topic outrank the one deciding paragraph, which names nothing
    pair = _pair("GB084", [1.0] * 7 + [0.0], [0] * 7 + [2])
    row = pair_misses(pair, WEIGHTS)
    assert row["deciding"][0]["rank"] == 8 and row["reason"] == "no phrase"
    assert [a["rank"] for a in row["above"]] == [1, 2, 3, 4]  # the first few that outrank it, best first
    assert row["above"][0]["vocabulary"] == 1.0 and row["above"][0]["grade"] == 0


def test_fewer_phrases_is_told_apart_from_no_phrase() -> None:
    pair = _pair("GB091", [2.0] * 6 + [0.5], [0] * 6 + [2])
    assert pair_misses(pair, WEIGHTS)["reason"] == "fewer phrases"


def test_only_pairs_that_fall_short_are_listed_worst_first() -> None:
    good = _pair("GB020", [3.0, 1.0, 0.5], [2, 1, 0], file="good.pdf")
    bad = _pair("GB084", [1.0] * 7 + [0.0], [0] * 7 + [2], file="bad.pdf")
    rows = misses([good, bad], WEIGHTS)
    assert [r["file"] for r in rows] == ["bad.pdf"]
    text = format_misses(rows)
    assert "GB084 bad.pdf" in text and "why: no phrase" in text and "#8" in text


def test_the_paragraphs_place_shows_in_each_line() -> None:
    pair = _pair("GB084", [1.0] * 7 + [0.0], [0] * 7 + [2])
    pair.signals["opening"] = np.array([1.0] + [0.0] * 7)
    pair.signals["fragment"] = np.array([0.0, 1.0] + [0.0] * 6)
    text = format_misses([pair_misses(pair, WEIGHTS)])
    lines = [line for line in text.splitlines() if line.strip().startswith("#")]
    assert "OPENS" in lines[1] and "FRAGMENT" not in lines[1]  # lines[0] is the deciding paragraph, #8
    assert "FRAGMENT" in lines[2] and "OPENS" not in lines[2]
    assert "OPENS" not in lines[0] and "FRAGMENT" not in lines[0]
