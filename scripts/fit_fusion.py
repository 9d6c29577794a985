#!/usr/bin/env python
"""Fit the combined ranking's weights on the judged benchmark and write resources/retrieval/fusion_weights.json.

Usage: python scripts/fit_fusion.py [--data benchmarks/judged] [--grammars ../shared/grammars]
                                    [--out resources/retrieval/fusion_weights.json] [--dry-run]

Every judged pair is retrieved once with all its candidates and their signals (bench/fusion_fit.py);
the weights of the grid (BM25/embedding agreement, section match, dictionary penalty) are then
scored in numpy.  It prints the leave-one-grammar-out figures (weights chosen on six grammars,
scored on the seventh) and writes the weights best over all pairs, with those figures, into the
resources file that retrieval reads (core/retrieval/fusion_weights.py).  Run it again whenever the
grades, the signals or the candidates change; it takes a minute once the grammars are embedded.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.fusion_fit import GRID, collect, evaluate, fit, grid_points, leave_one_grammar_out, rerank_harm  # noqa: E402
from bench.judged import DEFAULT_DATA, DEFAULT_GRAMMARS, DEFAULT_PROJECTS  # noqa: E402
from core.retrieval.fusion_weights import FALLBACK, weights_path  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--grammars", type=Path, default=DEFAULT_GRAMMARS)
    parser.add_argument("--projects", type=Path, default=DEFAULT_PROJECTS)
    parser.add_argument("--out", type=Path, default=weights_path())
    parser.add_argument("--dry-run", action="store_true", help="print the fit, write nothing")
    args = parser.parse_args(argv)

    pairs = collect(args.data, args.grammars, args.projects)
    points = grid_points()
    prefer = {name: FALLBACK[name] for name in GRID}
    logo = leave_one_grammar_out(pairs, points, prefer)
    best = fit(pairs, points, prefer)
    in_sample = evaluate(pairs, best)
    before = evaluate(pairs, {**prefer})
    harm = rerank_harm(pairs, best)
    print(f"grid: {len(points)} points over {sorted(GRID)}; {len(pairs)} pairs")
    print("leave-one-grammar-out:")
    for file, fold in logo["folds"].items():
        print(f"  {file:<28} {fold['pairs']:>3} pairs  NDCG@10 {fold['ndcg@10']:.3f}  top-5 {fold['decisive@5']:.3f}"
              f"  chosen {fold['chosen']}")
    print(f"  held-out pairs: NDCG@10 {logo['ndcg@10']:.4f}, grade 2 in top 5 {logo['decisive@5']:.4f}")
    print(f"fitted on all pairs: {best}: NDCG@10 {in_sample['ndcg@10']:.4f}, top-5 {in_sample['decisive@5']:.4f}")
    print(f"hand-set weights {prefer}: NDCG@10 {before['ndcg@10']:.4f}, top-5 {before['decisive@5']:.4f}")
    print(f"reranking lowers NDCG@5 on {harm['lower']} of {harm['pairs']} pairs, raises it on {harm['higher']}")
    if args.dry_run:
        return 0
    document = {
        "about": "Weights of GrammarLens's combined ranking (core/retrieval/combine.py), fitted by "
                 "scripts/fit_fusion.py on benchmarks/judged: the grid point with the best mean NDCG@10 over "
                 "all pairs; 'logo' holds the leave-one-grammar-out figures of the same procedure.",
        "weights": {**FALLBACK, **best},
        "grid": {name: list(values) for name, values in GRID.items()},
        "pairs": len(pairs),
        "in_sample": {k: round(v, 4) for k, v in in_sample.items()},
        "logo": {"ndcg@10": round(logo["ndcg@10"], 4), "decisive@5": round(logo["decisive@5"], 4),
                 "folds": {f: {**v, "ndcg@10": round(v["ndcg@10"], 4), "decisive@5": round(v["decisive@5"], 4)}
                           for f, v in logo["folds"].items()}},
        "rerank_lowers_ndcg@5": harm,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
