"""CLI: ``bench judged``, the hand-graded retrieval benchmark for general features (bench.judged)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from cli import arg_types
from cli.progress_printer import stderr_progress

if TYPE_CHECKING:
    from core.retrieval.settings import RetrievalSettings


def register(commands: argparse._SubParsersAction, bench: argparse._SubParsersAction) -> None:
    from bench.judged import DEFAULT_DATA, DEFAULT_GRAMMARS, DEFAULT_PROJECTS

    p = bench.add_parser("judged", help="NDCG@10 and deciding paragraphs in the top 5 on hand-graded pairs")
    p.add_argument("--data", type=arg_types.path, default=DEFAULT_DATA, help="folder with pairs.csv and grades.csv")
    p.add_argument("--grammars", type=arg_types.path, default=DEFAULT_GRAMMARS,
                   help="folder with grammars.csv and the PDFs")
    p.add_argument("--projects", type=arg_types.path, default=DEFAULT_PROJECTS,
                   help="cache folder for the grammars' project files (re-ingested when ingestion changes)")
    p.add_argument("--feature", type=arg_types.feature_id, action="append", default=[],
                   help="only this feature (repeatable)")
    p.add_argument("--grammar", type=arg_types.line, action="append", default=[],
                   help="only this grammar file (repeatable)")
    p.add_argument("--unjudged", action="store_true",
                   help="list the ungraded top-10 paragraphs, shuffled, without saying which ranking found them")
    p.add_argument("--sheet", type=arg_types.path, help="write the ungraded paragraphs as a grading CSV")
    p.add_argument("--logo", action="store_true",
                   help="leave-one-grammar-out figures for the default ranking's knobs (bench.judged_logo)")
    p.add_argument("--ablation", action="store_true",
                   help="also run the default with each signal taken out, and compare re-ranked and first orders "
                        "per query (bench.judged_ablation)")
    p.add_argument("--misses", action="store_true",
                   help="per-query error analysis: where each short pair's deciding paragraphs rank and why "
                        "(bench.judged_misses)")
    p.add_argument("--model", type=arg_types.model_name, default=None,
                   help="the default ranking's embedding model (a name, a local folder or 'none'; default: the app's)")
    p.add_argument("--headroom", action="store_true",
                   help="NDCG@10 with simulated re-ranking models of known quality, beside the real signals' "
                        "agreement with the grades: how good a model must be to lift the ranking "
                        "(bench.judged_headroom)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=_bench_judged)


def _bench_judged(args: argparse.Namespace) -> int:
    from bench.judged import excerpt, rankings, run_judged_bench
    from bench.judged_report import format_report, write_grading_sheet
    from core.output_paths import check_output_file, check_output_folder

    check_output_folder(args.projects, option="--projects", overwrite=True, parents=True)
    if args.sheet:
        check_output_file(args.sheet, option="--sheet")

    if args.logo:
        from bench.judged_logo import format_logo, run_logo

        logo = run_logo(args.data, args.grammars, args.projects, features=args.feature, files=args.grammar,
                        base=_base(args), progress=None if args.json else stderr_progress("bench judged --logo"))
        print(json.dumps(logo, ensure_ascii=False) if args.json else format_logo(logo))
        return 0
    if args.misses or args.headroom:
        return _from_signals(args)
    settings = {name: ranking.with_(reranker=_base(args).reranker) if args.model and ranking.reranker else ranking
                for name, ranking in rankings().items()}
    if args.ablation:
        from bench.judged_ablation import ablation_rankings

        settings = {**settings, **ablation_rankings(_base(args))}
    report = run_judged_bench(
        args.data, args.grammars, args.projects, features=args.feature, files=args.grammar, settings=settings,
        progress=None if args.json else stderr_progress("bench judged"),
    )
    if args.ablation:
        from bench.judged_ablation import format_rerank_effect, rerank_effect

        report["rerank_effect"] = rerank_effect(report)
    if args.sheet:
        write_grading_sheet(report["unjudged"], args.sheet)
    if args.json:
        if not args.unjudged:
            report = {k: v for k, v in report.items() if k != "unjudged"}
        print(json.dumps(report, ensure_ascii=False))
        return 0
    print(format_report(report))
    if args.ablation:
        print()
        print(format_rerank_effect(report["rerank_effect"]))
    if args.unjudged:
        print(f"\n{len(report['unjudged'])} ungraded paragraphs in the rankings' top {report['k']}:")
        for e in report["unjudged"]:
            print(f"  {e['feature']:<6} {e['file']:<26} pdf {e['pdf_page']:>4} (p. {e['page_label']}) "
                  f"{e['text_hash']}  {excerpt(e['text'], 100)}")
    return 0


def _base(args: argparse.Namespace) -> RetrievalSettings:
    """The default ranking, with ``--model`` as its embedding model when given ('none': no model)."""
    from core.retrieval.settings import RetrievalSettings

    if not args.model:
        return RetrievalSettings()
    return RetrievalSettings().with_(reranker=None if args.model.lower() == "none" else args.model)


def _from_signals(args: argparse.Namespace) -> int:
    """``--misses`` and ``--headroom``: analyses of every candidate's signals, gathered once."""
    from bench.fusion_fit import collect
    from core.retrieval.fusion_weights import fitted_weights

    name = "--headroom" if args.headroom else "--misses"
    pairs = collect(args.data, args.grammars, args.projects, settings=_base(args),
                    progress=None if args.json else stderr_progress(f"bench judged {name}"))
    pairs = [p for p in pairs if (not args.feature or p.feature in args.feature)
             and (not args.grammar or p.file in args.grammar)]
    weights = fitted_weights()
    if args.headroom:
        from bench.judged_headroom import format_headroom, headroom

        result = headroom(pairs, weights, signal_weights=sorted({weights["signal_weight"], 0.5, 1.0}))
        print(json.dumps(result, ensure_ascii=False) if args.json else format_headroom(result))
        return 0
    from bench.judged_misses import format_misses, misses

    rows = misses(pairs, weights)
    print(json.dumps(rows, ensure_ascii=False) if args.json else format_misses(rows))
    return 0
