"""How good a re-ranking model must be to lift the judged benchmark (``bench judged --headroom``).

Why: the ablation says the embedding model buys little (the first, lexical order is within 0.02
NDCG@10 of the re-ranked one), and four rounds of new signals and weights moved the default by
hundredths.  Is the rest of the gap to the target the model's, or the combination's?  This answers it
without grading anything new: the model's similarity is replaced by a *simulated* model whose quality
is known -- each candidate's own grade plus Gaussian noise of a chosen spread -- and the app's
combination (:mod:`bench.fusion_fit`, the same formula and first-order guards) is run with it.

Each simulated model is printed with its rank agreement with the grades (mean Spearman over the
pairs, graded candidates only), beside the agreement of the real signals.  A candidate model (a
cross-encoder, a larger bi-encoder) measured on the same pairs can then be placed on the curve: its
agreement says what NDCG@10 it would buy before anyone wires it in.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Sequence

import numpy as np

from bench.fusion_fit import PairSignals, evaluate, final_order, pair_metrics

# the spread of the simulated model's error, in grade steps (grades are 0, 1, 2)
NOISES = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0)
SEEDS = 5
REAL_SIGNALS = ("vocabulary", "bm25", "bm25_vocabulary", "dense", "section")
TARGET = 0.85  # issue 28's NDCG@10 target on the judged set


def ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..n, ties sharing their mean rank (as Spearman's coefficient wants)."""
    values = np.asarray(values, dtype=np.float64)
    order = np.argsort(values, kind="stable")
    out = np.empty(len(values))
    sorted_values = values[order]
    start = 0
    while start < len(values):
        end = start
        while end + 1 < len(values) and sorted_values[end + 1] == sorted_values[start]:
            end += 1
        out[order[start:end + 1]] = (start + end) / 2.0 + 1.0
        start = end + 1
    return out


def spearman(a: np.ndarray, b: np.ndarray) -> float | None:
    """Spearman's rank correlation, or None where either side is constant."""
    ra, rb = ranks(a), ranks(b)
    if ra.std() == 0 or rb.std() == 0:
        return None
    return float(np.corrcoef(ra, rb)[0, 1])


def rank_agreement(pairs: Sequence[PairSignals], values_of: Callable[[PairSignals], np.ndarray]) -> float:
    """Mean Spearman of a per-candidate signal with the grades, over graded candidates of each pair.

    Pairs with fewer than three graded candidates or a single grade among them say nothing and are left out.
    """
    found = []
    for pair in pairs:
        graded = pair.graded
        if graded.sum() < 3:
            continue
        rho = spearman(np.asarray(values_of(pair))[graded], pair.gains[graded])
        if rho is not None and not np.isnan(rho):
            found.append(rho)
    return float(np.mean(found)) if found else 0.0


def signal(name: str) -> Callable[[PairSignals], np.ndarray]:
    """The pair's raw signal ``name`` (as collected), for :func:`rank_agreement`."""
    return lambda pair: pair.signals[name]


def with_model(pairs: Sequence[PairSignals], noise: float, rng: np.random.Generator) -> list[PairSignals]:
    """The pairs with their model similarity replaced by grade + N(0, noise²) per candidate."""
    return [dataclasses.replace(p, signals={**p.signals, "dense": p.gains + noise * rng.standard_normal(len(p.gains))})
            for p in pairs]


def _unguarded_ndcg(pairs: Sequence[PairSignals], weights: dict[str, float]) -> float:
    """Mean NDCG@10 of the model's order alone, without the first order's lead and top five kept."""
    values = [pair_metrics(p, final_order(p, weights, top=0, set_top=0))["ndcg@10"] for p in pairs]
    kept = [v for v in values if v is not None]
    return float(np.mean(kept)) if kept else 0.0


def headroom(pairs: Sequence[PairSignals], weights: dict[str, float], signal_weights: Sequence[float],
             noises: Sequence[float] = NOISES, seeds: int = SEEDS) -> dict:
    """The real signals' agreement, and NDCG@10 of the combination with simulated models of each noise.

    For each noise and each weight of the agreement term (the shipped one and larger ones, as a
    better model would earn) the figures are means over ``seeds`` draws; "unguarded" drops the
    first order's guards, which protect the coder's first view from a weak model's reshuffles.
    """
    real = {name: rank_agreement(pairs, signal(name)) for name in REAL_SIGNALS
            if all(name in p.signals and not np.isnan(p.signals[name]).any() for p in pairs)}
    shipped = evaluate(pairs, weights)["ndcg@10"]
    rows = []
    for noise in noises:
        for signal_weight in signal_weights:
            point = {**weights, "signal_weight": signal_weight}
            ndcg, unguarded, agreement = [], [], []
            for seed in range(seeds):
                simulated = with_model(pairs, noise, np.random.default_rng(seed))
                ndcg.append(evaluate(simulated, point)["ndcg@10"])
                unguarded.append(_unguarded_ndcg(simulated, point))
                agreement.append(rank_agreement(simulated, signal("dense")))
            rows.append({"noise": noise, "signal_weight": signal_weight, "agreement": float(np.mean(agreement)),
                         "ndcg@10": float(np.mean(ndcg)), "unguarded_ndcg@10": float(np.mean(unguarded))})
    at_shipped = [(r["noise"], r["ndcg@10"]) for r in rows if r["signal_weight"] == weights["signal_weight"]]
    return {"pairs": len(pairs), "shipped_ndcg@10": shipped, "real_agreement": real, "simulated": rows,
            "target": TARGET, "model_acts_like_noise": noise_at(at_shipped, shipped),
            "noise_for_target": noise_at(at_shipped, TARGET)}


def noise_at(curve: Sequence[tuple[float, float]], ndcg: float) -> float | None:
    """The noise at which NDCG@10 falls to ``ndcg`` on a (noise, NDCG@10) curve, interpolated linearly.

    Why: a real model's Spearman over the graded candidates does not place it on the simulated curve
    (its errors follow the words, the simulation's do not); the NDCG@10 it reaches in the same
    combination does.  None when the curve never reaches ``ndcg`` (0.0 noise already falls short).
    """
    points = sorted(curve)
    if not points or points[0][1] < ndcg:
        return None
    for (n0, v0), (n1, v1) in zip(points, points[1:], strict=False):
        if v0 >= ndcg >= v1:
            return n0 if v0 == v1 else n0 + (n1 - n0) * (v0 - ndcg) / (v0 - v1)
    return points[-1][0]


def _noise(value: float | None) -> str:
    return "(beyond the curve)" if value is None else f"{value:.2f}"


def format_headroom(result: dict) -> str:
    lines = [f"Headroom on {result['pairs']} judged pairs: the shipped ranking has NDCG@10 "
             f"{result['shipped_ndcg@10']:.3f}.", "",
             "rank agreement with the grades (mean Spearman per pair, graded candidates):"]
    lines += [f"  {name:<16} {rho:6.3f}" for name, rho in result["real_agreement"].items()]
    lines += ["", "a simulated model (grade + noise) in place of the embedding similarity:",
              f"  {'noise':>5} {'agreement':>9} {'weight':>6} {'NDCG@10':>8} {'unguarded':>9}"]
    lines += [f"  {r['noise']:5.2f} {r['agreement']:9.3f} {r['signal_weight']:6.2f} {r['ndcg@10']:8.3f} "
              f"{r['unguarded_ndcg@10']:9.3f}" for r in result["simulated"]]
    acts, needed = result["model_acts_like_noise"], result["noise_for_target"]
    lines += ["", f"at the shipped weight the embedding model acts like noise {_noise(acts)}; NDCG@10 "
                  f"{result['target']:.2f} needs noise {_noise(needed)}"]
    lines += ["", "weight: the agreement term's weight (BM25, BM25 of the vocabulary and the model, averaged); "
              "unguarded: without the first order's lead and top five kept (core.retrieval.combine)."]
    return "\n".join(lines)
