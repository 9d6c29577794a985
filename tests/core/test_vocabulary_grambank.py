"""The hand-written Grambank vocabulary (resources/vocabulary/grambank.json) covers every Grambank feature.

Each entry holds retrieval phrases written from the feature's Grambank summary and procedure:
``topic`` (how grammars name the domain: "definite article", "noun class") and ``values`` (how a
grammar states a value, absence included: "has no articles", "there is no dual").  The tests hold
the file to ../shared/cldf/grambank/parameters.csv, so a feature missing here fails at once, and
they keep out the bare generic words ("non", "core", "morphological") that made the old
vocabularies, built from the words of each feature's name, match nearly every paragraph.
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

VOCABULARY = Path(__file__).resolve().parents[2] / "resources" / "vocabulary" / "grambank.json"
PARAMETERS = SHARED / "cldf" / "grambank" / "parameters.csv"

# Words that say nothing about any one feature when they stand alone as a phrase (the words of
# Grambank's question wording that the old name-derived vocabularies were made of, among others).
GENERIC = {
    "non", "core", "morphological", "morphology", "marked", "marking", "unmarked", "marker", "markers", "verb",
    "verbs", "noun", "nouns", "word", "words", "form", "forms", "used", "use", "language", "present", "absent",
    "productive", "overt", "phonologically", "bound", "free", "independent", "distinction", "different", "same",
    "special", "other", "several", "there", "clause", "construction", "strategy", "system", "element", "pattern",
    "main", "simple", "person", "number", "class", "order", "position", "initial", "final", "neg", "one", "two",
    "three", "object", "subject", "argument", "category", "type", "dependent",
}


def _grambank_ids() -> list[str]:
    with open(PARAMETERS, newline="", encoding="utf-8") as fh:
        return [row["ID"] for row in csv.DictReader(fh)]


@pytest.fixture(scope="module")
def vocabulary() -> dict[str, dict]:
    return json.loads(VOCABULARY.read_text(encoding="utf-8"))


def test_file_is_one_object_of_topic_and_value_lists(vocabulary: dict[str, dict]) -> None:
    assert isinstance(vocabulary, dict)
    for fid, entry in vocabulary.items():
        assert set(entry) == {"topic", "values"}, fid
        for key in ("topic", "values"):
            assert isinstance(entry[key], list), (fid, key)
            assert all(isinstance(p, str) for p in entry[key]), (fid, key)


def test_every_grambank_feature_has_an_entry_and_nothing_else(vocabulary: dict[str, dict]) -> None:
    ids = _grambank_ids()
    assert len(ids) == 195
    assert set(vocabulary) == set(ids)


def test_each_feature_names_its_topic_and_its_values(vocabulary: dict[str, dict]) -> None:
    for fid, entry in vocabulary.items():
        assert len(entry["topic"]) >= 3, fid
        assert len(entry["values"]) >= 3, fid


def test_phrases_are_specific_lowercase_and_unique(vocabulary: dict[str, dict]) -> None:
    for fid, entry in vocabulary.items():
        seen: Counter[tuple[str, ...]] = Counter()
        for phrase in entry["topic"] + entry["values"]:
            tokens = tuple(vocab_tokens(phrase))
            assert tokens, (fid, phrase)
            assert not all(t in STOPWORDS for t in tokens), (fid, phrase)
            assert not (len(tokens) == 1 and tokens[0] in GENERIC), (fid, phrase)
            assert phrase == phrase.strip() and phrase == phrase.lower(), (fid, phrase)
            seen[tokens] += 1
        # Duplicates are judged as the matcher sees phrases (plural -s folded, punctuation split), and
        # across both lists: a phrase listed twice would only count once anyway.
        duplicates = [p for p, n in seen.items() if n > 1]
        assert not duplicates, (fid, duplicates)


def test_absence_is_stated_too(vocabulary: dict[str, dict]) -> None:
    """Grammars state a feature's absence ("has no articles"); most entries must be able to find that."""
    negatives = ("no", "not", "lack", "lacks", "without", "never", "absent", "only")
    with_absence = [
        fid for fid, entry in vocabulary.items()
        if any(set(vocab_tokens(p)) & set(negatives) for p in entry["values"])
    ]
    assert len(with_absence) >= 0.75 * len(vocabulary)


def test_the_checks_are_not_vacuous() -> None:
    """The old name-derived phrases fail the checks above."""
    assert tuple(vocab_tokens("Morphological")) == ("morphological",) and "morphological" in GENERIC
    assert all(t in STOPWORDS for t in vocab_tokens("there are"))
    assert tuple(vocab_tokens("articles")) == tuple(vocab_tokens("article"))
