"""Fitting the combined ranking's weights on the judged benchmark, leave-one-grammar-out.

Every judged pair is retrieved once with all its candidates (not just the top 20), keeping each
candidate's raw signals and its grade.  The combination (core.retrieval.combine) is then recomputed
from those signals for every point of a small grid of weights, in numpy, without running retrieval
again: the same formula the app runs, so a weight chosen here ranks the same in the app.

Leave-one-grammar-out: for each grammar the weights with the best mean NDCG@10 on the *other*
grammars' pairs are scored on its own pairs; the mean over those held-out pairs is what a grammar
nobody tuned for can expect.  The weights shipped (``resources/retrieval/fusion_weights.json``,
written by ``scripts/fit_fusion.py``) are those best over all pairs.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import numpy as np

from bench.judged import (
    DECISIVE_K,
    DEFAULT_DATA,
    DEFAULT_GRAMMARS,
    DEFAULT_PROJECTS,
    GradeKey,
    K,
    grammar_project,
    grammar_rows,
    judged_ndcg,
    load_grades,
    load_pairs,
    loose_hash,
    text_hash,
)
from core.catalog import load_catalog
from core.progress import Progress
from core.retrieval.combine import keep_first_order, keep_first_set, outside_flags, zscore
from core.retrieval.settings import RetrievalSettings

# The grid: weights of BM25/embedding agreement, of the section match, the dictionary penalty, the bonus of a
# section's first paragraph (by its section match, and whatever its heading) and the penalty of a fragment
# (core.retrieval.paragraph_place).  1,200 points: the dictionary penalty, never chosen in any fold of the
# earlier 1,536-point grids (0.5-2.0), and the far ends of the others were dropped to make room for the
# opening bonus and a signal weight of 0.2 without a fit of a quarter of an hour.
GRID = {
    "signal_weight": (0.1, 0.2, 0.25, 0.3, 0.5),
    "section_weight": (0.5, 1.0, 1.25, 1.5, 2.0),
    "dictionary_penalty": (0.0,),
    "opening_weight": (0.0, 0.25, 0.35, 0.5),
    "fragment_penalty": (0.0, 0.25, 0.5),
    "opening_bonus": (0.0, 0.05, 0.1, 0.15),
}
ALL_CANDIDATES = 100_000
STABLE_TOP, STABLE_MARGIN = RetrievalSettings.stable_top, RetrievalSettings.stable_margin
STABLE_SET_TOP, STABLE_SET_MARGIN = RetrievalSettings.stable_set_top, RetrievalSettings.stable_set_margin


@dataclass(frozen=True)
class PairSignals:
    """One judged pair: every candidate's raw signals (in candidate order) and grade (0 when ungraded)."""

    feature: str
    file: str
    signals: dict[str, np.ndarray]
    gains: np.ndarray
    graded: np.ndarray  # whether each candidate has a grade at all
    pool: list[int]  # every grade given for the pair (the ideal ranking's gains)
    # per candidate, for the error analysis (bench.judged_misses): text hash, page label, section path, text
    keys: list[str] = field(default_factory=list)
    ids: list[int] = field(default_factory=list)  # paragraph ids
    labels: list[str] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)


def collect(
    data: Path = DEFAULT_DATA, grammars: Path = DEFAULT_GRAMMARS, projects: Path = DEFAULT_PROJECTS, *,
    settings: RetrievalSettings | None = None, progress: Progress | None = None,
) -> list[PairSignals]:
    """Retrieve every judged pair with all its candidates and their signals."""
    from core.retrieval.pipeline import candidate_ids, retrieve
    from core.store import open_project

    progress = progress or Progress()
    settings = (settings or RetrievalSettings()).with_(final_top=ALL_CANDIDATES)
    catalog = load_catalog()
    grades = load_grades(data)
    rows = grammar_rows(grammars)
    pairs = load_pairs(data)
    out: list[PairSignals] = []
    paths: dict[str, Path] = {}
    for step, pair in enumerate(pairs):
        progress.step(step, len(pairs), f"{pair.feature} {pair.file}")
        if pair.file not in paths:
            paths[pair.file] = grammar_project(Path(grammars) / pair.file, Path(projects))
        feature = catalog.get(pair.feature)
        sha = rows[pair.file]["sha256"]
        with open_project(paths[pair.file]) as project:
            hits = retrieve(project, feature, settings)
            # in candidate order, as the app's combination sees them: its ties keep that order
            position = {pid: k for k, pid in enumerate(candidate_ids(project, [feature], settings))}
            hits.sort(key=lambda h: position[h.paragraph.id])
        found = [grades.get(GradeKey(feature.id, sha, h.paragraph.pdf_page, text_hash(h.paragraph.text)),
                            loose_hash(h.paragraph.text)) for h in hits]
        names = sorted({k for h in hits for k in h.signals} - {"score"})
        signals = {n: np.array([h.signals.get(n, np.nan) for h in hits], dtype=np.float64) for n in names}
        out.append(PairSignals(feature.id, pair.file, signals, np.array([g or 0 for g in found], dtype=np.float64),
                               np.array([g is not None for g in found]), grades.pool(feature.id, sha),
                               keys=[text_hash(h.paragraph.text) for h in hits], ids=[h.paragraph.id for h in hits],
                               labels=[h.paragraph.page_label or str(h.paragraph.pdf_page) for h in hits],
                               sections=[h.paragraph.section for h in hits], texts=[h.paragraph.text for h in hits]))
    progress.step(len(pairs), len(pairs), "done")
    return out


def scores(pair: PairSignals, weights: dict[str, float], *, with_model: bool = True,
           value_weight_ratio: float = 1.0) -> np.ndarray:
    """The combined score of each candidate (core.retrieval.combine's formula) under ``weights``.

    ``with_model=False`` leaves the embedding similarity out, as the app's first, provisional order does.
    """
    s = pair.signals
    outside = s.get("outside", np.zeros(len(s["bm25"])))
    section = s.get("section", np.zeros(len(s["bm25"])))
    parts = [zscore(s["bm25"])]
    if with_model and "dense" in s and not np.isnan(s["dense"]).any():
        parts.append(zscore(s["dense"]))
    if "bm25_vocabulary" in s:
        parts.append(zscore(s["bm25_vocabulary"]))
    return (
        value_weight_ratio * s["vocabulary"] + weights["signal_weight"] * np.mean(parts, axis=0)
        + weights["section_weight"] * section - weights["dictionary_penalty"] * s.get("dictionary", 0.0)
        - 100.0 * outside_flags(outside, s["vocabulary"], section) - 5.0 * s.get("furniture", 0.0)
        + weights.get("opening_weight", 0.0) * s.get("opening", 0.0) * section
        + weights.get("opening_bonus", 0.0) * s.get("opening", 0.0)
        - weights.get("fragment_penalty", 0.0) * s.get("fragment", 0.0)
    )


def order(values: np.ndarray) -> np.ndarray:
    """Best first; ties in candidate order (a stable sort of the negated scores)."""
    return np.argsort(-values, kind="stable")


def final_order(pair: PairSignals, weights: dict[str, float], top: int = STABLE_TOP,
                margin: float = STABLE_MARGIN, set_top: int = STABLE_SET_TOP,
                set_margin: float = STABLE_SET_MARGIN) -> np.ndarray:
    """The app's final order: the model's, keeping the first order's lead and top five unless clearly beaten
    (core.retrieval.combine)."""
    final = scores(pair, weights)
    if "dense" not in pair.signals or (top <= 0 and set_top <= 0):
        return order(final)
    first = order(scores(pair, weights, with_model=False)).tolist()
    kept = keep_first_order(first, order(final).tolist(), final, top, margin)
    return np.array(keep_first_set(first, kept, final, set_top, set_margin))


def pair_metrics(pair: PairSignals, ranking: np.ndarray) -> dict[str, float | None]:
    top = ranking[:K]
    gains = pair.gains[top]
    judged = ranking[pair.graded[ranking]][:K]  # the ranking with its ungraded paragraphs left out
    return {
        "ndcg@10": judged_ndcg(gains.tolist(), pair.pool, K),
        # NDCG@10 over graded paragraphs only: a variant that brings ungraded paragraphs into the top 10 reads
        # low on "ndcg@10" until they are graded; this figure says whether it orders the graded ones better
        "judged_ndcg@10": judged_ndcg(pair.gains[judged].tolist(), pair.pool, K),
        "ndcg@5": judged_ndcg(pair.gains[ranking[:DECISIVE_K]].tolist(), pair.pool, DECISIVE_K),
        "decisive@5": float(2 in gains[:DECISIVE_K]),
        "outside@5": float(pair.signals.get("outside", np.zeros(len(ranking)))[ranking[:DECISIVE_K]].sum()),
        "ungraded@10": float((~pair.graded[top]).sum()),
    }


def _mean(values: Iterable[float | None]) -> float:
    kept = [v for v in values if v is not None]
    return float(np.mean(kept)) if kept else 0.0


def grid_points(grid: Mapping[str, Sequence[float]] = GRID) -> list[dict[str, float]]:
    names = list(grid)
    return [dict(zip(names, values, strict=True)) for values in itertools.product(*(grid[n] for n in names))]


def evaluate(pairs: Sequence[PairSignals], weights: dict[str, float], with_model: bool = True) -> dict[str, float]:
    """Mean metrics of ``weights`` over ``pairs``."""
    rows = [pair_metrics(p, final_order(p, weights) if with_model else order(scores(p, weights, with_model=False)))
            for p in pairs]
    return {name: _mean(r[name] for r in rows) for name in rows[0]} if rows else {}


def fit(pairs: Sequence[PairSignals], points: Sequence[dict[str, float]], prefer: dict[str, float]) -> dict[str, float]:
    """The grid point with the best mean NDCG@10 over ``pairs`` (ties: the one nearest ``prefer``)."""
    def key(point: dict[str, float]) -> tuple[float, float]:
        distance = sum(abs(point[n] - prefer.get(n, 0.0)) for n in point)
        return (round(evaluate(pairs, point)["ndcg@10"], 6), -distance)

    return max(points, key=key)


def leave_one_grammar_out(pairs: Sequence[PairSignals], points: Sequence[dict[str, float]],
                          prefer: dict[str, float]) -> dict:
    """Weights chosen on the other grammars, scored on each held-out grammar's pairs."""
    files = sorted({p.file for p in pairs})
    folds, held_rows = {}, []
    for held in files:
        chosen = fit([p for p in pairs if p.file != held], points, prefer)
        held_pairs = [p for p in pairs if p.file == held]
        rows = [pair_metrics(p, final_order(p, chosen)) for p in held_pairs]
        held_rows.extend(rows)
        folds[held] = {"chosen": chosen, "pairs": len(rows), "ndcg@10": _mean(r["ndcg@10"] for r in rows),
                       "decisive@5": _mean(r["decisive@5"] for r in rows)}
    return {"folds": folds, "ndcg@10": _mean(r["ndcg@10"] for r in held_rows),
            "decisive@5": _mean(r["decisive@5"] for r in held_rows),
            "outside@5": sum(float(r["outside@5"] or 0) for r in held_rows)}


def rerank_harm(pairs: Sequence[PairSignals], weights: dict[str, float]) -> dict[str, int]:
    """Per pair: does the order with the embedding model lower NDCG@5 below the first, lexical order?"""
    lower = higher = 0
    for p in pairs:
        if "dense" not in p.signals:
            continue
        first = pair_metrics(p, order(scores(p, weights, with_model=False)))["ndcg@5"] or 0.0
        final = pair_metrics(p, final_order(p, weights))["ndcg@5"] or 0.0
        lower += final < first - 1e-9
        higher += final > first + 1e-9
    return {"pairs": len(pairs), "lower": lower, "higher": higher}
