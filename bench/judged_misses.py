"""Per-query error analysis of the judged benchmark (``bench judged --misses``).

A mean NDCG says how much is missing, not why.  For every pair whose ranking falls short (the best
deciding paragraph below the top 5, or NDCG@10 under a threshold) this lists where its deciding
paragraphs rank, with the signals behind each (phrases matched, section match, BM25 and embedding
agreement, part of the book), the paragraphs that outrank them, and a one-word reason:

* ``not a candidate``: a deciding paragraph of the graded pool is not among the candidates at all;
* ``no phrase``: it names none of the feature's phrases and sits under no heading that names the topic;
* ``fewer phrases``: the paragraphs above it match more phrases (the vocabulary decides the order);
* ``section``: the paragraphs above it win by their heading;
* ``agreement``: BM25 and embedding similarity put it below paragraphs with the same phrases.

It works on the signals ``bench.fusion_fit.collect`` gathers once, so it runs in seconds after them.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from bench.fusion_fit import PairSignals, final_order, pair_metrics, scores
from bench.judged import DECISIVE_K, excerpt
from core.retrieval.combine import zscore

NDCG_THRESHOLD = 0.7
SHOWN_ABOVE = 4


def _signals(pair: PairSignals, i: int, values: np.ndarray) -> dict[str, float]:
    s = pair.signals
    agreement = [zscore(s[name]) for name in ("bm25", "bm25_vocabulary", "dense")
                 if name in s and not np.isnan(s[name]).any()]
    return {
        "score": float(values[i]), "vocabulary": float(s["vocabulary"][i]),
        "section": float(s.get("section", np.zeros(len(values)))[i]),
        "agreement": float(np.mean([a[i] for a in agreement])) if agreement else 0.0,
        "outside": float(s.get("outside", np.zeros(len(values)))[i]),
        "dictionary": float(s.get("dictionary", np.zeros(len(values)))[i]),
        "opening": float(s.get("opening", np.zeros(len(values)))[i]),
        "fragment": float(s.get("fragment", np.zeros(len(values)))[i]),
    }


def _row(pair: PairSignals, i: int, rank: int, values: np.ndarray) -> dict:
    return {"rank": rank, "grade": int(pair.gains[i]) if pair.graded[i] else None,
            "page": pair.labels[i] if pair.labels else "", "path": pair.sections[i] if pair.sections else "",
            "text": excerpt(pair.texts[i], 110) if pair.texts else "", **_signals(pair, i, values)}


def _reason(best: dict, above: list[dict]) -> str:
    if best["vocabulary"] == 0 and best["section"] < 0.5:
        return "no phrase"
    if not above:
        return ""
    if max(a["vocabulary"] for a in above) > best["vocabulary"] + 0.25:
        return "fewer phrases"
    if max(a["section"] for a in above) > best["section"] + 0.25:
        return "section"
    return "agreement"


def pair_misses(pair: PairSignals, weights: dict[str, float]) -> dict:
    """Where the pair's deciding paragraphs rank under ``weights``, and what outranks the best of them."""
    ranking = final_order(pair, weights)
    values = scores(pair, weights)
    rank_of = {int(i): r + 1 for r, i in enumerate(ranking)}
    deciding = sorted((rank_of[int(i)], int(i)) for i in np.flatnonzero(pair.gains == 2))
    metrics = pair_metrics(pair, ranking)
    out: dict = {"feature": pair.feature, "file": pair.file, "ndcg@10": metrics["ndcg@10"],
                 "deciding_in_pool": pair.pool.count(2), "deciding_candidates": len(deciding),
                 "deciding": [_row(pair, i, r, values) for r, i in deciding[:3]], "above": [], "reason": ""}
    if not deciding:
        out["reason"] = "not a candidate" if pair.pool.count(2) else "no deciding paragraph graded"
        return out
    best_rank, _ = deciding[0]
    above = [_row(pair, int(i), r + 1, values) for r, i in enumerate(ranking[:best_rank - 1])
             if pair.gains[int(i)] < 2]
    out["above"] = above[:SHOWN_ABOVE]
    out["reason"] = _reason(out["deciding"][0], above) if best_rank > DECISIVE_K else ""
    return out


def misses(pairs: Sequence[PairSignals], weights: dict[str, float],
           threshold: float = NDCG_THRESHOLD) -> list[dict]:
    """The pairs that fall short (deciding paragraph below the top 5, or NDCG@10 < threshold), worst first."""
    rows = [pair_misses(p, weights) for p in pairs]
    short = [r for r in rows if (r["ndcg@10"] is not None and r["ndcg@10"] < threshold)
             or (r["deciding_in_pool"] and (not r["deciding"] or r["deciding"][0]["rank"] > DECISIVE_K))]
    return sorted(short, key=lambda r: (r["ndcg@10"] if r["ndcg@10"] is not None else 1.0))


def _line(row: dict) -> str:
    grade = "-" if row["grade"] is None else str(row["grade"])
    part = " OUT" if row["outside"] else (" DICT" if row["dictionary"] else "")
    part += (" OPENS" if row.get("opening") else "") + (" FRAGMENT" if row.get("fragment") else "")
    return (f"    #{row['rank']:<3} g{grade} score {row['score']:6.2f} = phr {row['vocabulary']:.2f} "
            f"sec {row['section']:.2f} agr {row['agreement']:+.2f}{part}  p.{row['page']} "
            f"[{row['path'][-50:]}] {row['text']}")


def format_misses(rows: list[dict]) -> str:
    lines = [f"{len(rows)} pairs fall short (a deciding paragraph below the top {DECISIVE_K}, "
             f"or NDCG@10 < {NDCG_THRESHOLD}), worst first:"]
    for row in rows:
        ndcg = "-" if row["ndcg@10"] is None else f"{row['ndcg@10']:.3f}"
        lines.append(f"\n{row['feature']} {row['file']}: NDCG@10 {ndcg}; deciding paragraphs: "
                     f"{row['deciding_candidates']} candidates of {row['deciding_in_pool']} graded"
                     + (f"; why: {row['reason']}" if row["reason"] else ""))
        lines.extend(["  deciding:"] + [_line(r) for r in row["deciding"]] if row["deciding"] else [])
        lines.extend(["  above the first of them:"] + [_line(r) for r in row["above"]] if row["above"] else [])
    return "\n".join(lines)
