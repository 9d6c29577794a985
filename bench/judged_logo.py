"""Leave-one-grammar-out figures for the judged benchmark (``bench judged --logo``).

The default ranking's knobs were chosen while looking at the judged grades, so its figures on
them are optimistic.  Here every knob setting of a small grid is run on every pair; for each
grammar the setting with the best mean NDCG@10 on the *other* grammars' pairs is chosen and
scored on that grammar's pairs (ties go to the default).  The mean over grammars of those
held-out scores is what a grammar nobody tuned for can expect.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from bench.judged import DEFAULT_DATA, DEFAULT_GRAMMARS, DEFAULT_PROJECTS, run_judged_bench
from core.progress import Progress
from core.retrieval.settings import RetrievalSettings

# The knobs of the default ranking that were chosen on these grades: how many further candidates
# the vocabulary brings (core.retrieval.candidates) and the weight of BM25/embedding agreement.
GRID_WIDENING = (0, 25, 50)
GRID_SIGNAL_WEIGHT = (0.1, 0.25, 0.5)


def grid(base: RetrievalSettings) -> dict[str, RetrievalSettings]:
    """Named settings of the grid, the default first."""
    out = {"default": base}
    for widen in GRID_WIDENING:
        for weight in GRID_SIGNAL_WEIGHT:
            s = base.with_(vocabulary_query_top=widen, vocabulary_top=widen, signal_weight=weight)
            if s != base:
                out[f"widen={widen},signal={weight}"] = s
    return out


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def logo_report(per_setting: dict[str, list[dict]]) -> dict:
    """Leave-one-grammar-out choice and scores from each setting's per-pair results (``per_pair`` rows)."""
    names = list(per_setting)
    files = sorted({p["file"] for p in per_setting[names[0]]})
    folds: dict[str, dict[str, Any]] = {}  # held-out grammar -> its chosen setting and scores
    chosen_pairs: list[dict] = []
    for held in files:
        train_score = {
            name: _mean([float(p["ndcg@10"]) for p in per_setting[name]
                         if p["file"] != held and p["ndcg@10"] is not None])
            or 0.0
            for name in names
        }
        best = max(names, key=lambda n: (round(train_score[n], 9), n == "default"))
        held_rows = [p for p in per_setting[best] if p["file"] == held]
        chosen_pairs.extend(held_rows)
        folds[held] = {
            "chosen": best,
            "ndcg@10": _mean([float(p["ndcg@10"]) for p in held_rows if p["ndcg@10"] is not None]),
            "decisive@5": _mean([float(p["decisive@5"]) for p in held_rows]),
            "pairs": len(held_rows),
        }
    graded = [f["ndcg@10"] for f in folds.values() if f["ndcg@10"] is not None]
    return {
        "grid": names,
        "folds": folds,
        # mean over held-out grammars (each grammar weighs the same) and over all held-out pairs
        "ndcg@10_mean_of_grammars": _mean(graded),
        "decisive@5_mean_of_grammars": _mean([f["decisive@5"] for f in folds.values()]),
        "ndcg@10_pairs": _mean([float(p["ndcg@10"]) for p in chosen_pairs if p["ndcg@10"] is not None]),
        "decisive@5_pairs": _mean([float(p["decisive@5"]) for p in chosen_pairs]),
    }


def run_logo(
    data: Path = DEFAULT_DATA,
    grammars: Path = DEFAULT_GRAMMARS,
    projects: Path = DEFAULT_PROJECTS,
    *,
    features: Sequence[str] = (),
    files: Sequence[str] = (),
    base: RetrievalSettings | None = None,
    progress: Progress | None = None,
) -> dict:
    """Run the grid on the judged pairs and report leave-one-grammar-out figures."""
    settings = grid(base or RetrievalSettings())
    report = run_judged_bench(data, grammars, projects, features=features, files=files, settings=settings,
                              progress=progress)
    per_setting = {name: r["per_pair"] for name, r in report["rankings"].items()}
    out = logo_report(per_setting)
    out["in_sample"] = {name: {"ndcg@10": r["ndcg@10"], "decisive@5": r["decisive@5"]}
                        for name, r in report["rankings"].items()}
    return out


def format_logo(report: dict) -> str:
    lines = ["Leave-one-grammar-out (knobs chosen on the other grammars' pairs, scored on the held-out one):",
             f"{'held-out grammar':<28} {'chosen setting':<28} {'pairs':>5} {'NDCG@10':>8} {'top-5':>6}"]
    for file, f in report["folds"].items():
        nd = "-" if f["ndcg@10"] is None else f"{f['ndcg@10']:.3f}"
        lines.append(f"{file:<28} {f['chosen']:<28} {f['pairs']:>5} {nd:>8} {f['decisive@5']:>6.3f}")
    lines += [
        f"mean of grammars: NDCG@10 {report['ndcg@10_mean_of_grammars']:.4f}, "
        f"grade 2 in top 5 {report['decisive@5_mean_of_grammars']:.4f}",
        f"over held-out pairs: NDCG@10 {report['ndcg@10_pairs']:.4f}, "
        f"grade 2 in top 5 {report['decisive@5_pairs']:.4f}",
        f"default in sample: NDCG@10 {report['in_sample']['default']['ndcg@10']:.4f}, "
        f"grade 2 in top 5 {report['in_sample']['default']['decisive@5']:.4f}",
    ]
    return "\n".join(lines)
