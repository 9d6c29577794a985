"""NDCG@k as the paper defines it for its reranker benchmark.

Gains are the 0-5 relevance grades themselves (linear gain), discounted by ``log2(rank + 1)``;
the ideal ordering is the same candidates sorted by grade (the 50 BM25 paragraphs, not the
whole grammar).  With this definition the paper's BM25 order scores 0.7598 mean NDCG@20 on the
seven shared grammars.
"""

from __future__ import annotations

import math
from typing import Sequence


def dcg(grades: Sequence[float], k: int) -> float:
    return sum(g / math.log2(i + 2) for i, g in enumerate(list(grades)[:k]))


def ndcg(grades_in_ranked_order: Sequence[float], k: int) -> float:
    """NDCG@k of a ranking, given the grades in the order it ranked the candidates."""
    ideal = dcg(sorted(grades_in_ranked_order, reverse=True), k)
    return dcg(grades_in_ranked_order, k) / ideal if ideal > 0 else 0.0
