"""One ranking from several signals: vocabulary, BM25, embeddings, paragraph kind.

``combined = vocabulary + signal_weight * mean(z(bm25), z(dense)) - kind_penalty * is_furniture``

* The vocabulary score (core.retrieval.vocabulary) is in interpretable units, "phrases matched",
  and carries most of the weight: stating a value is what makes a paragraph decisive.
* BM25 and embedding similarity are z-scored over the candidates (their raw scales differ by
  model and query) and averaged; with ``signal_weight`` 0.25 one standard deviation of agreement
  is worth a quarter phrase, enough to order paragraphs the vocabulary cannot tell apart.
* Tables of contents, indexes and bibliographies name topics without stating values; five
  phrases' worth is subtracted from them, which puts them below any prose that matches the
  feature (they stay in the list as a last resort for grammars that say nothing else).

These are three knobs; `bench rerank` reports leave-one-grammar-out numbers for them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.retrieval.settings import RetrievalSettings


def zscore(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64)
    sd = values.std()
    return (values - values.mean()) / sd if sd > 0 else np.zeros_like(values)


@dataclass(frozen=True)
class Ranked:
    """Candidate indices best first, their final scores, and each candidate's signals."""

    order: list[int]
    scores: np.ndarray
    signals: list[dict[str, float]]


def combine(
    settings: RetrievalSettings,
    bm25: np.ndarray,
    vocabulary: np.ndarray,
    dense: np.ndarray | None,
    furniture: np.ndarray | None = None,
    bm25_vocabulary: np.ndarray | None = None,
) -> Ranked:
    """Order candidates (given in BM25 order) by ``settings.ranking``; ties keep the given order."""
    n = len(bm25)
    furniture = np.zeros(n) if furniture is None else np.asarray(furniture, dtype=np.float64)
    if settings.ranking == "bm25":
        scores = np.asarray(bm25, dtype=np.float64)
    elif settings.ranking == "dense":
        scores = np.asarray(dense if dense is not None else bm25, dtype=np.float64)
    elif settings.ranking == "vocabulary":
        scores = np.asarray(vocabulary, dtype=np.float64)
    elif settings.ranking == "combined":
        parts = [zscore(bm25)] + ([zscore(dense)] if dense is not None else [])
        if bm25_vocabulary is not None:
            parts.append(zscore(bm25_vocabulary))
        scores = vocabulary + settings.signal_weight * np.mean(parts, axis=0) - settings.kind_penalty * furniture
    else:
        raise ValueError(f"unknown ranking {settings.ranking!r}")
    order = sorted(range(n), key=lambda i: (-scores[i], i))
    signals = []
    for i in range(n):
        entry = {"bm25": float(bm25[i]), "vocabulary": float(vocabulary[i]), "furniture": float(furniture[i])}
        if dense is not None:
            entry["dense"] = float(dense[i])
        if bm25_vocabulary is not None:
            entry["bm25_vocabulary"] = float(bm25_vocabulary[i])
        entry["score"] = float(scores[i])
        signals.append(entry)
    return Ranked(order=order, scores=scores, signals=signals)
