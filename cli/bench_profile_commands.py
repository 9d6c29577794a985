"""CLI: ``bench profile`` (whole profiles of the shared grammars scored against Grambank's values) and
``bench profile-speed`` (wall time, CPU and peak memory of one grammar's whole profile)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cli import arg_types
from cli.batch_settings import batch_settings_from_args
from cli.progress_printer import stderr_progress
from cli.server_options import add_server_options
from core.errors import GrammarLensError

_SHARED = Path(__file__).resolve().parent.parent.parent / "shared"


def register(commands: argparse._SubParsersAction, bench: argparse._SubParsersAction) -> None:
    p = bench.add_parser("profile", help="profiles of the shared grammars against Grambank: accuracy, macro-F1, MCC")
    p.add_argument("--gold", type=arg_types.path, required=True,
                   help="gold values (file, language, glottocode, feature, value), e.g. "
                        "../shared/bench/profile/grambank_gold.csv")
    p.add_argument("--grammars", type=arg_types.path, default=_SHARED / "grammars",
                   help="folder with the PDFs and grammars.csv (default ../shared/grammars)")
    p.add_argument("--work", type=arg_types.path, default=Path("build") / "bench_profile",
                   help="folder for the ingested projects, reused by later runs (default build/bench_profile)")
    p.add_argument("--features", type=arg_types.line, metavar="SET",
                   help="ids like GB020,GB107 or a set (grambank); default: every feature of the gold file")
    p.add_argument("--languages", type=arg_types.line,
                   help="comma-separated language names or Glottocodes (default: all in the gold file)")
    add_server_options(p)
    p.add_argument("--config", choices=["baseline", "rag", "rag-guidelines"], default="rag")
    p.add_argument("--concurrency", type=arg_types.int_range(1, 256), default=4, help="requests at once (default 4)")
    p.add_argument("--no-llm", action="store_true", help="retrieval only: print evidence statistics, ask no model")
    p.add_argument("--no-reranker", action="store_true", help="rank by BM25 and vocabulary only (no embedding model)")
    p.add_argument("--budget", type=arg_types.int_range(1, 1_000_000), default=None,
                   help="evidence token budget per feature")
    p.add_argument("--yes", action="store_true", help="allow a hosted model (every language x feature is a request)")
    p.add_argument("--batch-out", type=arg_types.path, metavar="REQUESTS.jsonl",
                   help="write every language's prompts as one batch file (OpenAI Batch API, vLLM run_batch); "
                        "ask nothing")
    p.add_argument("--batch-in", type=arg_types.path, metavar="RESULTS.jsonl",
                   help="import the answers of a batch results file (same options as --batch-out) and score them")
    p.add_argument("--summary", action="store_true", help="overall and per-language rows only")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.set_defaults(handler=_bench_profile)

    p = bench.add_parser("profile-speed", help="wall time, CPU and peak memory of a whole profile against an "
                                               "instant local server: cold, the book's embedding, embedded")
    p.add_argument("pdf", type=arg_types.path, nargs="?", default=_SHARED / "grammars" / "078_Papuan_Malay.pdf",
                   help="grammar PDF (default: the 770-page Papuan Malay grammar)")
    p.add_argument("--features", type=arg_types.line, default="grambank", metavar="SET",
                   help="feature set or ids (default grambank: 195 features)")
    p.add_argument("--work", type=arg_types.path, default=Path("build") / "bench_profile_speed",
                   help="folder for the ingested project and its copies (default build/bench_profile_speed)")
    p.add_argument("--runs", type=arg_types.line, default="cold,embed,embedded",
                   help="which runs, comma-separated: cold, embed, embedded (default all three)")
    p.add_argument("--concurrency", type=arg_types.int_range(1, 256), default=4, help="requests at once (default 4)")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.set_defaults(handler=_bench_profile_speed)


def _settings(args: argparse.Namespace):
    """The profile run's settings; a hosted model is asked about a thousand questions only with --yes."""
    settings = batch_settings_from_args(args)
    if settings.mode == "llm" and not settings.llm.is_local() and not args.yes \
            and not (args.batch_out or args.batch_in):
        raise GrammarLensError("bench profile sends one request per language and feature (about 1,000 for the "
                               "whole gold file) to a hosted model.",
                               "Add --yes to go ahead, use --base-url with a local server, or --no-llm.")
    return settings


def _bench_profile(args: argparse.Namespace) -> int:
    from bench.profile import format_report, run_bench_profile
    from core.coding.feature_sets import resolve_feature_set
    from core.output_paths import check_output_file, check_output_folder
    from core.profile.scoring import load_gold

    check_output_folder(args.work, option="--work", overwrite=True, parents=True)
    if args.batch_out:
        check_output_file(args.batch_out, option="--batch-out")
    gold = load_gold(args.gold)
    features = resolve_feature_set(None, args.features) if args.features else None
    languages = [x.strip() for x in args.languages.split(",") if x.strip()] if args.languages else None
    if (args.batch_out or args.batch_in) and args.no_llm:
        raise GrammarLensError("--batch-out / --batch-in are for a model's answers; --no-llm asks none.",
                               "Leave out --no-llm.")
    report = run_bench_profile(gold, args.grammars, args.work, _settings(args), feature_ids=features,
                               languages=languages, progress=stderr_progress("bench profile"),
                               batch_out=args.batch_out, batch_in=args.batch_in)
    if args.batch_out:
        print(f"wrote {report.batch_written:,} request(s) to {args.batch_out}; score the answers with the same "
              f"options and --batch-in RESULTS.jsonl")
        return 0
    if args.json:
        print(json.dumps(report.to_json(), indent=1))
    else:
        print(format_report(report, per_feature=not args.summary))
    sys.stdout.flush()
    return 0


def _bench_profile_speed(args: argparse.Namespace) -> int:
    from bench.profile_speed import format_speed_report, run_profile_speed
    from core.output_paths import check_output_folder

    if not args.pdf.is_file():
        raise GrammarLensError(f"{args.pdf} is not a file.", "Give the path of a grammar PDF.")
    runs = tuple(r.strip() for r in args.runs.split(",") if r.strip())
    unknown = [r for r in runs if r not in ("cold", "embed", "embedded")]
    if unknown or not runs:
        raise GrammarLensError(f"Unknown run(s): {', '.join(unknown) or 'none given'}.",
                               "Use cold, embed and/or embedded, comma-separated.")
    check_output_folder(args.work, option="--work", overwrite=True, parents=True)
    report = run_profile_speed(args.pdf, args.work, args.features, runs=runs, concurrency=args.concurrency,
                               progress=stderr_progress("bench profile-speed"))
    print(json.dumps(report.to_json(), indent=1) if args.json else format_speed_report(report))
    return 0 if all(r.returncode == 0 for r in report.runs.values()) else 1
