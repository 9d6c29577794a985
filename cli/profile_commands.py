"""CLI: ``profile`` (batch runs and the profile table), ``export``, ``bibtex`` and ``feature-list``."""

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
from core.output_paths import refuse_project
from core.retrieval.budget import DEFAULT_BUDGET_TOKENS

DEFAULT_MAX_COST_USD = 5.0
MAX_CONCURRENCY = 256
MAX_TIMEOUT_S = 86_400.0
MAX_BUDGET_TOKENS = 1_000_000


def register(commands: argparse._SubParsersAction, bench: argparse._SubParsersAction) -> None:
    p = commands.add_parser("profile", help="run a feature set as one resumable job and show the language's profile")
    p.add_argument("file", type=arg_types.path, nargs="+",
                   help="project file (.grammarlens); with --batch-out / --batch-in several, or a sample: "
                        "a folder of projects or a file listing them")
    p.add_argument("--features", type=arg_types.line, metavar="SET",
                   help="word-order-case-negation-questions (81A, 49A, GB107, 116A*; also 'paper'), grambank, wals, "
                        "a saved list's name, or ids like 81A,GB107; "
                        "without it, only show the stored profile")
    add_server_options(p)
    p.add_argument("--config", choices=["baseline", "rag", "rag-guidelines"], default="rag")
    p.add_argument("--concurrency", type=arg_types.int_range(1, MAX_CONCURRENCY), default=4,
                   help="requests at once (default 4)")
    p.add_argument("--timeout", type=arg_types.float_range(0, MAX_TIMEOUT_S, low_open=True), default=None,
                   help="seconds per request")
    p.add_argument("--no-llm", action="store_true", help="retrieval only: store each feature's evidence, ask no model")
    p.add_argument("--no-reranker", action="store_true", help="rank by BM25 and vocabulary only (no embedding model)")
    p.add_argument("--budget", type=arg_types.int_range(1, MAX_BUDGET_TOKENS), default=None,
                   help=f"evidence token budget per feature (default {DEFAULT_BUDGET_TOKENS})")
    p.add_argument("--estimate", action="store_true", help="print the token and cost estimate, run nothing")
    p.add_argument("--max-cost", type=arg_types.float_range(0, 1_000_000), default=DEFAULT_MAX_COST_USD,
                   help="refuse to start above this estimated cost in USD unless --yes "
                        f"(default {DEFAULT_MAX_COST_USD})")
    p.add_argument("--yes", action="store_true", help="start even above --max-cost")
    p.add_argument("--restart", action="store_true", help="start a new job instead of resuming the last one")
    p.add_argument("--cldf", type=arg_types.path, action="append", default=[],
                   help="CLDF folder (WALS, Grambank or their parent) to compare with; repeatable")
    p.add_argument("--batch-out", type=arg_types.path, metavar="REQUESTS.jsonl",
                   help="write the unanswered features' prompts as a batch file (OpenAI Batch API, vLLM run_batch) "
                        "instead of asking the model")
    p.add_argument("--batch-in", type=arg_types.path, metavar="RESULTS.jsonl",
                   help="import the answers of a batch results file into the project(s)")
    p.add_argument("--answer-format", choices=["auto", "json_schema", "conclusion"], default="auto",
                   help="conclusion: the paper's text answers, for servers without JSON-schema output")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.set_defaults(handler=_profile)

    p = commands.add_parser("export", help="export the profile as CLDF, CSV or JSON")
    p.add_argument("file", type=arg_types.path)
    p.add_argument("--format", choices=["cldf", "csv", "json"], required=True)
    p.add_argument("--out", type=arg_types.path, required=True,
                   help="folder to write into (created if missing; its parent must exist)")
    p.add_argument("--force", action="store_true", help="overwrite an export already in the --out folder")
    p.add_argument("--reviewed-only", action="store_true", help="only values a reviewer accepted or overrode")
    p.add_argument("--no-unknown", action="store_true",
                   help="CLDF: leave out the values coded \"?\" (not enough information); CSV/JSON keep every row")
    p.add_argument("--cldf", type=arg_types.path, action="append", default=[],
                   help="CLDF folder for agreement columns (csv/json)")
    p.set_defaults(handler=_export)

    p = commands.add_parser("bibtex", help="show or replace the grammar's BibTeX entry used as the export's source")
    p.add_argument("file", type=arg_types.path)
    p.add_argument("--set", type=arg_types.path, metavar="FILE.bib", help="replace the entry with this file's")
    p.set_defaults(handler=_bibtex)

    p = commands.add_parser("feature-list", help="save or show custom feature lists for 'profile --features NAME'")
    p.add_argument("file", type=arg_types.path)
    p.add_argument("name", type=arg_types.line, nargs="?", help="list name (omit to show all lists)")
    p.add_argument("--ids", type=arg_types.line, help="comma-separated feature ids to save under NAME")
    p.set_defaults(handler=_feature_list)


def _agreement(project, entries, folders: list[Path]):
    if not folders:
        return None
    from core.profile import compare, load_reference_values
    from core.store.repository import get_language

    language = get_language(project)
    refs = load_reference_values(folders, (language.glottocode if language else None) or "")
    return compare(entries, refs)


def _profile(args: argparse.Namespace) -> int:
    from core.profile import build_profile, estimate, open_job, resolve_feature_set, run_job
    from core.store import open_project

    if args.batch_out or args.batch_in:
        from cli.batch_commands import profile_batch_files

        return profile_batch_files(args, batch_settings_from_args(args))
    if len(args.file) > 1:
        raise GrammarLensError("Several project files go only with --batch-out or --batch-in.",
                               "Run the profile of one project at a time.")
    args.file = args.file[0]
    out: dict = {}
    if args.features:
        settings = batch_settings_from_args(args)
        with open_project(args.file) as project:
            ids = resolve_feature_set(project, args.features)
            job = open_job(project, args.features, ids, settings, restart=args.restart)
            guess = estimate(project, job.pending, settings)
        print(f"profile job {job.id}: {len(ids)} feature(s), {len(job.done)} already finished; "
              f"{'retrieval only' if settings.mode == 'retrieval' else guess.describe()}", file=sys.stderr)
        out.update(job=job.id, estimate=guess.__dict__)
        if args.estimate:
            if args.json:
                print(json.dumps(out))
            return 0
        if (settings.mode == "llm" and not guess.local and not args.yes
                and (guess.cost_usd is None or guess.cost_usd > args.max_cost)):
            raise GrammarLensError(
                f"The estimated cost ({'unknown' if guess.cost_usd is None else f'${guess.cost_usd:.2f}'}) "
                f"is above --max-cost ${args.max_cost:.2f}.", "Add --yes to start anyway, or choose fewer features.")
        result = run_job(args.file, job.id, settings, stderr_progress(f"profile {args.features}"))
        out.update(ran=result.ran, skipped=result.skipped, failed=result.failed, state=result.state)
        print(f"ran {len(result.ran)}, skipped {len(result.skipped)} finished, failed {len(result.failed)}",
              file=sys.stderr)
        for fid, message in result.failed.items():
            print(f"warning: {fid} failed: {message}", file=sys.stderr)
    with open_project(args.file, readonly=True) as project:
        chosen = resolve_feature_set(project, args.features) if args.features else None
        entries = build_profile(project, chosen)
        agreement = _agreement(project, entries, args.cldf)
    if args.json:
        out.update(profile=[e.to_json() for e in entries], agreement=agreement.to_json() if agreement else None)
        print(json.dumps(out, ensure_ascii=False))
        return 0 if not out.get("failed") else 1
    _print_profile(entries, agreement)
    return 0 if not out.get("failed") else 1


def _print_profile(entries, agreement) -> None:
    if not entries:
        print("No features run yet. Start with: profile FILE --features word-order-case-negation-questions")
        return
    for e in entries:
        value = e.label or "-"
        ref = agreement.reference(e.feature_id) if agreement else None
        extra = f"  {ref.dataset}: {ref.label} ({agreement.verdict(e.feature_id)})" if ref else ""
        pages = f"pp. {', '.join(e.pages)}" if e.pages else ""
        print(f"{e.feature_id:<7} {e.status:<23} {value[:30]:<30} {pages[:30]:<30}{extra}")
    if agreement is not None:
        rate = f"{agreement.rate:.0%}" if agreement.rate is not None else "n/a"
        print(f"agreement with the databases: {agreement.agreed}/{agreement.compared} ({rate})")


def _export(args: argparse.Namespace) -> int:
    from core.export import export_profile
    from core.output_paths import check_export_folder
    from core.profile import build_profile
    from core.store import open_project

    check_export_folder(args.out, args.format, option="--out", overwrite=args.force, force_option="--force")
    with open_project(args.file) as project:
        agreement = _agreement(project, build_profile(project), args.cldf) if args.format != "cldf" else None
        path = export_profile(project, args.format, args.out, reviewed_only=args.reviewed_only, agreement=agreement,
                              include_unknown=not args.no_unknown, overwrite=args.force,
                              on_warning=lambda m: print(f"warning: {m}", file=sys.stderr))
    print(f"wrote {path}" + (" (validated with pycldf)" if args.format == "cldf" else ""))
    return 0


def _bibtex(args: argparse.Namespace) -> int:
    from cli.bounded_input import MAX_BIBTEX_BYTES, read_bounded_text
    from core.export import get_bibtex, set_bibtex
    from core.store import open_project

    text = None
    if args.set:  # read before the project is open (and never the project itself: see core.output_paths.refuse_project)
        refuse_project(args.set, "--set", "a BibTeX file (.bib)")
        try:
            text = read_bounded_text(args.set, "--set", MAX_BIBTEX_BYTES)
        except OSError as exc:
            raise GrammarLensError(f"Cannot read {args.set}: {exc.strerror or exc}.", "Check the path.") from exc
        except UnicodeDecodeError:
            raise GrammarLensError(f"{args.set} is not UTF-8 text.",
                                   "Give a BibTeX file saved as UTF-8.") from None
    with open_project(args.file) as project:
        if text is not None:
            set_bibtex(project, text)
        print(get_bibtex(project), end="")
    return 0


def _feature_list(args: argparse.Namespace) -> int:
    from core.profile import get_feature_list, list_feature_lists, save_feature_list
    from core.store import open_project

    with open_project(args.file) as project:
        if args.name and args.ids:
            ids = save_feature_list(project, args.name, [i for i in args.ids.split(",") if i.strip()])
            print(f"saved {args.name}: {', '.join(ids)}")
            return 0
        if args.name:
            saved = get_feature_list(project, args.name)
            if saved is None:
                raise GrammarLensError(f"No feature list {args.name!r}.", "Save one with --ids 81A,GB107.")
            print(", ".join(saved))
            return 0
        for name, ids in list_feature_lists(project).items():
            print(f"{name}: {', '.join(ids)}")
    return 0
