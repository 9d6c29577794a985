"""The section-match signal: does the heading a paragraph sits under name the feature's topic?

A typologist reads a grammar through its table of contents first: for Grambank GB107 (negation by
an affix) they open "Negation", for GB020 (articles) "Articles and demonstratives" or "Noun
phrase", and read paragraphs there that may never say "negation" or "article" again.  BM25 sees a
heading only as a few words diluted in a long paragraph; this signal scores the heading itself.

The feature's *section terms* are its name, its topic phrases, and for Grambank features the units
and functions its coders look for (``feature_grouping_for_coding.csv``: "article, NP,
demonstrative"; "definiteness, deixis").  A heading scores the share of its own content words (by
their rarity among the book's headings) that are section terms, so "Negation" scores 1.0 for GB107
and "Negation in relative clauses" less.  A paragraph's score is the best over its section path,
the innermost heading counting fully and each outer one half as much as the one inside it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

import numpy as np

from core.catalog.model import Feature
from core.retrieval.book_parts import heading_name
from core.retrieval.tokenize import tokenize

# Abbreviations of Grambank's units and functions, spelled out as grammars title their sections.
_EXPANSIONS = {
    "np": "noun phrase", "vp": "verb phrase", "tam": "tense aspect mood", "pp": "adpositional phrase",
}
# Words every heading may carry that say nothing about its topic.
_GENERIC = frozenset({
    "introduction", "overview", "general", "remarks", "summary", "conclusion", "conclusions", "notes",
    "discussion", "other", "types", "type", "forms", "form", "use", "uses", "function", "functions",
    "structure", "structures", "properties", "marking", "marker", "markers", "system", "systems", "basic",
    "further", "issues", "aspects", "miscellaneous", "preliminaries", "survey", "formation",
})


def _plural(token: str) -> str:
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    return token[:-1] if len(token) > 3 and token.endswith("s") and not token.endswith("ss") else token


# Derivational endings of the metalanguage's headings: "Negation", "Negative", "Negator" and "Negated"
# head the same topic, as do "Classifiers" and "Classifying nouns", "Possession" and "Possessive".
_DERIVATIONAL = ("ness", "ion", "ive", "ing", "er", "or", "ed", "al")
_MIN_STEM = 4


def fold(token: str) -> str:
    """A heading word reduced to its stem: plural folded ("articles" ~ "article", "inventories" ~
    "inventory"), then up to two derivational endings ("negation" ~ "negative", "classifier" ~ "classifying").

    Both the feature's phrases and the book's headings are folded alike, so a stem only has to be
    consistent, not a word.
    """
    token = _plural(token)
    for _ in range(2):  # "derivational" ~ "derivation" ~ "derivat"
        ending = next((e for e in _DERIVATIONAL if token.endswith(e) and len(token) - len(e) >= _MIN_STEM), "")
        if not ending:
            break
        token = token[: -len(ending)]
    return token[:-1] + "y" if token.endswith("i") else token


_GENERIC_STEMS = frozenset(fold(word) for word in _GENERIC)


def _terms(text: str) -> list[str]:
    return [fold(t) for t in tokenize(text) if not t.isdigit()]


# The units a coder looks at ("verb", "NP") locate a topic less precisely than its functions and
# topic phrases ("negation", "definiteness"): a heading "Verbs" is only half a match for GB107.
UNIT_WEIGHT = 0.5


def section_phrases(feature: Feature) -> tuple[tuple[frozenset[str], float], ...]:
    """The phrases a heading about this feature's topic would use, each a set of terms with a weight.

    A phrase counts only when all its words are in the heading: "word order" matches "Basic word
    order", not "Word-formation".  Grambank's questions are not headings, so its names are left out;
    a WALS name is its chapter title ("Consonant Inventories").
    """
    weighted: list[tuple[str, float]] = [(t, 1.0) for t in feature.vocabulary.topic]
    if feature.dataset == "WALS":
        weighted.append((feature.name, 1.0))
    coding = feature.coding or {}
    for key, weight in (("function", 1.0), ("units", UNIT_WEIGHT)):
        for unit in re.split(r"[,;/]", str(coding.get(key, ""))):
            if unit.strip():
                weighted.append((_EXPANSIONS.get(unit.strip().lower(), unit.strip()), weight))
    out: dict[frozenset[str], float] = {}
    for text, weight in weighted:
        terms = frozenset(t for t in _terms(text) if t not in _GENERIC_STEMS and len(t) > 1)
        if terms:
            out[terms] = max(weight, out.get(terms, 0.0))
    return tuple(out.items())


def section_terms(feature: Feature) -> frozenset[str]:
    """Every word of the feature's section phrases (for display and tests)."""
    return frozenset(t for terms, _ in section_phrases(feature) for t in terms)


def heading_match(terms: Sequence[str], phrases: Sequence[tuple[frozenset[str], float]],
                  idf: dict[str, float]) -> float:
    """Share of a heading's words (by rarity) covered by whole phrases of the feature, each at its weight."""
    if not terms:
        return 0.0
    present = set(terms)
    credit: dict[str, float] = {}
    for phrase, weight in phrases:
        if phrase <= present:
            for t in phrase:
                credit[t] = max(credit.get(t, 0.0), weight)
    if not credit:
        return 0.0
    total = sum(idf.get(t, 1.0) for t in terms)
    return sum(idf.get(t, 1.0) * credit.get(t, 0.0) for t in terms) / total


@dataclass
class SectionIndex:
    """A book's distinct section paths, with the rarity of each heading word among its headings."""

    sections: list[str]
    headings: list[list[list[str]]] = field(init=False)  # per section, per heading (outermost first): terms
    idf: dict[str, float] = field(init=False)

    def __post_init__(self) -> None:
        distinct_headings: set[str] = set()
        self.headings = []
        for section in self.sections:
            parts = [h for h in section.split(" > ") if h.strip()] if section else []
            distinct_headings.update(parts)
            self.headings.append([_heading_terms(h) for h in parts])
        df: Counter[str] = Counter()
        for heading in distinct_headings:
            df.update(set(_heading_terms(heading)))
        n = max(len(distinct_headings), 1)
        self.idf = {t: math.log(1.0 + n / c) for t, c in df.items()}

    def scores(self, feature: Feature) -> np.ndarray:
        """Each section's match with the feature, 0..1."""
        phrases = section_phrases(feature)
        out = np.zeros(len(self.sections))
        if not phrases:
            return out
        memo: dict[tuple[str, ...], float] = {}
        for i, headings in enumerate(self.headings):
            best, weight = 0.0, 1.0
            for terms in reversed(headings):  # innermost first
                key = tuple(terms)
                if key not in memo:
                    memo[key] = heading_match(terms, phrases, self.idf)
                best = max(best, weight * memo[key])
                weight *= 0.5
            out[i] = best
        return out


@lru_cache(maxsize=65536)
def _heading_terms_cached(heading: str) -> tuple[str, ...]:
    return tuple(t for t in _terms(heading_name(heading)) if t not in _GENERIC_STEMS)


def _heading_terms(heading: str) -> list[str]:
    return list(_heading_terms_cached(heading))


@dataclass
class BookSections:
    """Section scores of every paragraph of a book, through the index of its distinct sections."""

    index: SectionIndex
    of_paragraph: np.ndarray  # per paragraph: position of its section in index.sections

    @classmethod
    def build(cls, sections: Sequence[str]) -> BookSections:
        positions: dict[str, int] = {}
        of_paragraph = np.fromiter((positions.setdefault(s, len(positions)) for s in sections), dtype=np.int64,
                                   count=len(sections))
        return cls(SectionIndex(list(positions)), of_paragraph)

    def paragraph_scores(self, feature: Feature) -> np.ndarray:
        """Every paragraph's section match with ``feature`` (0..1)."""
        return self.index.scores(feature)[self.of_paragraph]
