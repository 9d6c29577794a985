"""The hand-written WALS vocabulary (resources/vocabulary/wals.json) covers every WALS feature.

Each entry carries our own definition, one sentence per value code, and retrieval phrases
(``topic``: how grammars name the domain; ``values``: how they state a value).  These tests hold
the file to the CLDF tables in ../shared, so a feature or code added there, or a typo here,
fails at once, and they keep out the bare generic words ("non", "core", "small") that made the
old generated vocabularies match everything.
"""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest

from core.retrieval.tokenize import STOPWORDS
from core.retrieval.vocabulary import vocab_tokens
from tests.fixtures_shared import SHARED

VOCABULARY = Path(__file__).resolve().parents[2] / "resources" / "vocabulary" / "wals.json"
WALS = SHARED / "cldf" / "wals"

# Features whose definition and vocabulary are hand-written in core/catalog/curated.py (the paper's).
HAND_CURATED = {"81A", "49A"}

# Words that say nothing about any one feature when they stand alone as a phrase.
GENERIC = {
    "non", "core", "marked", "marking", "unmarked", "marker", "small", "large", "average", "other", "mixed", "none",
    "type", "types", "word", "form", "present", "absent", "simple", "complex", "different", "identical", "same",
    "special", "neither", "one", "two", "three", "four", "five", "low", "high", "initial", "final", "order",
    "language", "noun", "verb", "clause", "position", "construction", "strategy", "system", "neg", "moderately",
}


def _csv(name: str) -> list[dict[str, str]]:
    with open(WALS / name, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def vocabulary() -> dict[str, dict]:
    return json.loads(VOCABULARY.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def codes() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for row in _csv("codes.csv"):
        out.setdefault(row["Parameter_ID"], []).append(row["Number"])
    return out


def test_every_wals_feature_has_an_entry_except_the_hand_curated(vocabulary: dict[str, dict]) -> None:
    ids = {row["ID"] for row in _csv("parameters.csv")}
    assert len(ids) == 192
    assert set(vocabulary) == ids - HAND_CURATED
    assert "116A" in vocabulary


def test_definitions_are_sentences_of_our_own(vocabulary: dict[str, dict]) -> None:
    for fid, entry in vocabulary.items():
        definition = entry["definition"]
        assert len(definition) >= 60, fid
        assert not definition.startswith("WALS feature:"), fid  # the old generated placeholder


def test_every_value_code_is_defined_and_no_other(vocabulary: dict[str, dict], codes: dict[str, list[str]]) -> None:
    for fid, entry in vocabulary.items():
        defined = entry["value_definitions"]
        assert set(defined) == set(codes[fid]), fid
        for code, text in defined.items():
            assert len(text.strip()) >= 8, (fid, code)


def test_phrases_are_enough_specific_and_unique(vocabulary: dict[str, dict]) -> None:
    for fid, entry in vocabulary.items():
        assert len(entry["topic"]) >= 3, fid
        assert len(entry["values"]) >= 3, fid
        seen: Counter[tuple[str, ...]] = Counter()
        for phrase in entry["topic"] + entry["values"]:
            tokens = tuple(vocab_tokens(phrase))
            assert tokens, (fid, phrase)
            # A lone stop word or generic word matches everywhere; a stop-word idiom ("each other") is fine.
            assert not (len(tokens) == 1 and (tokens[0] in STOPWORDS or tokens[0] in GENERIC)), (fid, phrase)
            assert phrase == phrase.strip() and phrase == phrase.lower(), (fid, phrase)
            seen[tokens] += 1
        duplicates = [p for p, n in seen.items() if n > 1]
        assert not duplicates, (fid, duplicates)


def test_generic_check_would_catch_a_bare_word() -> None:
    """The check above is not vacuous: the old generated phrases fail it."""
    assert tuple(vocab_tokens("Small")) == ("small",) and "small" in GENERIC
    assert tuple(vocab_tokens("Himself")) == ("himself",) and "himself" in STOPWORDS
