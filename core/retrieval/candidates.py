"""Which paragraphs of a book are re-ranked: the paper's BM25 top, widened by the feature's vocabulary.

The paper re-ranks the BM25 top 50 of the question ("Is the order verb-final?").  A reranker can
only re-order what that first stage found, and grammars state values in their own words:
"Moloko is an SVO language", "Komnzo has no articles", "the adjective follows the noun".  So the
candidates are the union of

* the question's BM25 top ``bm25_top`` (the paper's candidates, always kept, in BM25 order);
* the BM25 top ``vocabulary_query_top`` for the feature's name and vocabulary phrases
  (core.retrieval.ranking.vocabulary_query), which finds the book's own wording of the topic;
* the ``vocabulary_top`` paragraphs that match the most vocabulary phrases anywhere in the book
  (core.retrieval.vocabulary.PhraseIndex), which finds statements of a value that share few words
  with either query;
* the first ``section_top`` paragraphs of the sections whose headings best name the feature's topic
  (core.retrieval.sections), which finds what a linguist reading the table of contents would open
  ("Negation" for GB107) even when its paragraphs share no word with the feature.

Everything here is lexical and language-agnostic (the phrases are English metalanguage), and it
costs milliseconds once the book's indexes are built.  With both widening knobs at 0 the
candidates are exactly the paper's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from core.catalog.model import Feature
from core.collector import collector_paused
from core.retrieval.bm25 import BM25Index
from core.retrieval.expansion import retrieval_vocabulary
from core.retrieval.ranking import bm25_query, vocabulary_query
from core.retrieval.settings import RetrievalSettings
from core.retrieval.tokenize import tokenize
from core.retrieval.vocabulary import PhraseIndex


@dataclass(frozen=True)
class Candidates:
    """Candidate paragraph indices (paper's BM25 top first) with both BM25 signals for each."""

    indices: list[int]
    bm25: np.ndarray  # the question's BM25
    bm25_vocabulary: np.ndarray | None  # BM25 of the vocabulary query (None: paper's candidates only)
    section: np.ndarray | None = None  # the section match of each candidate (None: no sections given)


def widened(settings: RetrievalSettings) -> bool:
    """Whether the settings ask for more than the paper's candidates (never for the BM25 baseline)."""
    return settings.ranking != "bm25" and (
        settings.vocabulary_query_top > 0 or settings.vocabulary_top > 0 or settings.section_top > 0
    )


def _top(scores: np.ndarray, n: int) -> list[int]:
    """The ``n`` best indices with a positive score, best first; ties keep document order."""
    if n <= 0:
        return []
    n = min(n, len(scores))
    picked = np.argpartition(-scores, n - 1)[:n] if n < len(scores) else np.arange(len(scores))
    return [int(i) for i in sorted(picked.tolist(), key=lambda i: (-scores[i], i)) if scores[i] > 0]


# A section must name the topic at least this well (0..1) to bring its paragraphs in as candidates.
SECTION_CANDIDATE_MIN = 0.5


def _by_section(section: np.ndarray, eligible: np.ndarray | None, n: int) -> list[int]:
    """The ``n`` paragraphs of the best-matching sections, best section first, in reading order within one."""
    if n <= 0:
        return []
    wanted = section >= SECTION_CANDIDATE_MIN
    if eligible is not None:
        wanted &= eligible
    picked = np.flatnonzero(wanted)
    return [int(i) for i in sorted(picked.tolist(), key=lambda i: (-section[i], i))[:n]]


def select_candidates(
    index: BM25Index, phrases: PhraseIndexSource, feature: Feature, settings: RetrievalSettings,
    section: np.ndarray | None = None, eligible: np.ndarray | None = None,
) -> Candidates:
    """The candidates of one book for ``feature`` (see the module docstring).

    ``section`` is every paragraph's section match with the feature and ``eligible`` which
    paragraphs a section may bring in (not front or back matter); without them no section widening.
    """
    question = index.scores(tokenize(bm25_query(feature, settings)))
    first = _top(question, settings.bm25_top)
    if not first:  # no paragraph shares a word with the question: keep the paper's fallback order
        first = [i for i, _ in index.top(tokenize(bm25_query(feature, settings)), settings.bm25_top)]
    if not widened(settings):
        return Candidates(first, question[first], None, None if section is None else section[first])
    by_vocabulary_query = index.scores(tokenize(vocabulary_query(feature)))
    extra = _top(by_vocabulary_query, settings.vocabulary_query_top)
    if settings.vocabulary_top > 0:
        matched = phrases().scores(retrieval_vocabulary(feature), settings.value_weight)
        extra += sorted(matched, key=lambda i: (-matched[i], i))[: settings.vocabulary_top]
    if section is not None:
        extra += _by_section(section, eligible, settings.section_top)
    indices = list(dict.fromkeys(first + extra))
    return Candidates(indices, question[indices], by_vocabulary_query[indices],
                      None if section is None else section[indices])


class PhraseIndexSource:
    """A book's PhraseIndex, built on first use (only widened retrievals need it)."""

    def __init__(self, texts_of: Callable[[], list[str]]) -> None:
        self._texts_of = texts_of
        self._built: PhraseIndex | None = None

    def __call__(self) -> PhraseIndex:
        if self._built is None:

            with collector_paused():
                self._built = PhraseIndex(self._texts_of())
        return self._built
