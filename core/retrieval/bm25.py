"""Okapi BM25 over one grammar's paragraphs, with an inverted index.

The formula is the one of ``rank_bm25.BM25Okapi`` (the paper's baseline, kept as the oracle in
the tests): ``idf = ln(N - df + 0.5) - ln(df + 0.5)``, idfs below zero raised to
``epsilon * mean(idf)``, term weight ``tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))``,
and a query term counted as often as it occurs in the query.  ``rank_bm25`` scans every document
for every query term; here each term keeps a posting list (document indices and term counts), so a
query touches only the documents that contain its terms.  That is what keeps a query on a
770-page grammar in the low milliseconds.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

import numpy as np


@dataclass(frozen=True)
class BM25Params:
    """The three constants of Okapi BM25 (rank_bm25's defaults)."""

    k1: float = 1.5
    b: float = 0.75
    epsilon: float = 0.25


class BM25Index:
    """An immutable BM25 index over a list of already tokenised documents."""

    def __init__(self, corpus: Sequence[Sequence[str]], params: BM25Params = BM25Params()) -> None:
        self.params = params
        self.size = len(corpus)
        lengths = np.fromiter((len(doc) for doc in corpus), dtype=np.float64, count=self.size)
        self.doc_len = lengths
        self.avgdl = float(lengths.mean()) if self.size and lengths.sum() > 0 else 1.0
        postings: dict[str, tuple[list[int], list[int]]] = {}
        for index, doc in enumerate(corpus):
            for term, count in Counter(doc).items():
                docs, counts = postings.setdefault(term, ([], []))
                docs.append(index)
                counts.append(count)
        self._postings = {
            term: (np.asarray(docs, dtype=np.int64), np.asarray(counts, dtype=np.float64))
            for term, (docs, counts) in postings.items()
        }
        self.idf = self._idf({term: len(docs) for term, (docs, _) in postings.items()})
        # The length part of the denominator depends only on the document: compute it once.
        self._norm = params.k1 * (1 - params.b + params.b * lengths / self.avgdl)

    def _idf(self, df: dict[str, int]) -> dict[str, float]:
        raw = {term: math.log(self.size - n + 0.5) - math.log(n + 0.5) for term, n in df.items()}
        if not raw:
            return {}
        floor = self.params.epsilon * (sum(raw.values()) / len(raw))
        return {term: (value if value >= 0 else floor) for term, value in raw.items()}

    def scores(self, query: Sequence[str]) -> np.ndarray:
        """BM25 score of every document for the tokenised ``query`` (0 where no term matches)."""
        out = np.zeros(self.size, dtype=np.float64)
        k1 = self.params.k1
        for term, repeat in Counter(query).items():
            posting = self._postings.get(term)
            if posting is None:
                continue
            docs, tf = posting
            out[docs] += repeat * self.idf[term] * (tf * (k1 + 1) / (tf + self._norm[docs]))
        return out

    def top(self, query: Sequence[str], n: int) -> list[tuple[int, float]]:
        """The ``n`` best ``(document index, score)`` pairs, best first; ties keep document order."""
        scores = self.scores(query)
        if n <= 0 or self.size == 0:
            return []
        n = min(n, self.size)
        candidates = np.argpartition(-scores, n - 1)[:n] if n < self.size else np.arange(self.size)
        order = sorted(candidates.tolist(), key=lambda i: (-scores[i], i))
        return [(i, float(scores[i])) for i in order]
