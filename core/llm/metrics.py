"""The paper's evaluation: micro/macro/weighted F1 and the Matthews correlation coefficient.

Same definitions as scikit-learn's ``f1_score`` (labels = classes seen in gold or predictions,
an undefined precision or recall counts as 0) and ``matthews_corrcoef`` (the multiclass form),
written out here because the project does not depend on scikit-learn.  Micro F1 of a
single-label task equals accuracy, as the paper notes.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class Scores:
    n: int
    micro_f1: float
    macro_f1: float
    weighted_f1: float
    mcc: float


def per_class_f1(gold: Sequence[str], pred: Sequence[str]) -> dict[str, tuple[float, int]]:
    """label -> (F1, support in gold) over every label seen in either list."""
    labels = sorted(set(gold) | set(pred))
    tp: Counter[str] = Counter()
    fp: Counter[str] = Counter()
    fn: Counter[str] = Counter()
    for g, p in zip(gold, pred, strict=True):
        if g == p:
            tp[g] += 1
        else:
            fp[p] += 1
            fn[g] += 1
    out = {}
    for label in labels:
        precision = tp[label] / (tp[label] + fp[label]) if tp[label] + fp[label] else 0.0
        recall = tp[label] / (tp[label] + fn[label]) if tp[label] + fn[label] else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        out[label] = (f1, tp[label] + fn[label])
    return out


def matthews(gold: Sequence[str], pred: Sequence[str]) -> float:
    """Multiclass Matthews correlation (Gorodkin's R_K); 0 when undefined."""
    s = len(gold)
    if s == 0:
        return 0.0
    t, p = Counter(gold), Counter(pred)
    c = sum(1 for g, q in zip(gold, pred, strict=True) if g == q)
    labels = set(t) | set(p)
    cov_ytyp = c * s - sum(p[k] * t[k] for k in labels)
    cov_ypyp = s * s - sum(p[k] ** 2 for k in labels)
    cov_ytyt = s * s - sum(t[k] ** 2 for k in labels)
    denom = math.sqrt(cov_ytyt * cov_ypyp)
    return cov_ytyp / denom if denom else 0.0


def scores(gold: Sequence[str], pred: Sequence[str]) -> Scores:
    if len(gold) != len(pred):
        raise ValueError("gold and predictions differ in length")
    n = len(gold)
    if n == 0:
        return Scores(0, 0.0, 0.0, 0.0, 0.0)
    per = per_class_f1(gold, pred)
    micro = sum(1 for g, p in zip(gold, pred, strict=True) if g == p) / n
    macro = sum(f for f, _ in per.values()) / len(per)
    weighted = sum(f * support for f, support in per.values()) / n
    return Scores(n, micro, macro, weighted, matthews(gold, pred))
