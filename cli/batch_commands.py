"""``batch submit|status|fetch`` (the OpenAI Batch API) and ``bench batch`` (writing and importing at scale).

Batch files themselves are written and imported by ``profile ... --batch-out/--batch-in``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cli import arg_types
from cli.server_options import add_server_options
from core.output_paths import refuse_project

if TYPE_CHECKING:
    from core.llm.settings import LlmSettings
    from core.profile.batch import BatchSettings


def register(commands: argparse._SubParsersAction, bench: argparse._SubParsersAction) -> None:
    p = commands.add_parser("batch", help="send a requests file to the OpenAI Batch API and fetch its results",
                            description="Write requests with 'profile P.grammarlens --features SET --batch-out FILE', "
                                        "submit them here, fetch the results, then import them with "
                                        "'profile P.grammarlens --batch-in RESULTS'.")
    sub = p.add_subparsers(dest="batch_command", metavar="ACTION", required=True)
    s = sub.add_parser("submit", help="upload a requests file and start a batch (answered within 24 h)")
    s.add_argument("requests", type=arg_types.path, help="requests file (JSONL) written by --batch-out")
    s.add_argument("--model", type=arg_types.line, default=None,
                   help="ask this model instead of the one the file was written for")
    _server_options(s)
    s.set_defaults(handler=_submit)
    s = sub.add_parser("status", help="show a batch's state and how many requests are answered")
    s.add_argument("id", type=arg_types.batch_id, help="batch id printed by 'batch submit' (batch_...)")
    _server_options(s)
    s.set_defaults(handler=_status)
    s = sub.add_parser("fetch", help="download a finished batch's results (answers, then error lines)")
    s.add_argument("id", type=arg_types.batch_id, help="batch id (batch_...)")
    s.add_argument("--out", type=arg_types.path, required=True, help="results file to write (JSONL)")
    _server_options(s)
    s.set_defaults(handler=_fetch)

    b = bench.add_parser("batch", help="write and import a large batch file over generated projects: seconds and "
                                       "peak memory per step")
    b.add_argument("--projects", type=arg_types.int_range(1, 1_000), default=10, help="generated projects (default 10)")
    b.add_argument("--requests", type=arg_types.int_range(1, 10_000_000), default=20_000,
                   help="request lines in all (default 20000)")
    b.add_argument("--folder", type=arg_types.path, default=None, help="work folder (default: a temporary one)")
    b.add_argument("--json", action="store_true")
    b.set_defaults(handler=_bench)


def _server_options(p: argparse.ArgumentParser) -> None:
    add_server_options(p, model=False, base_url_help="another server with the Batch API (default OpenAI)")
    p.add_argument("--timeout", type=arg_types.float_range(0, 86_400, low_open=True), default=None,
                   help="seconds per call (default 120)")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")


def _settings(args: argparse.Namespace) -> LlmSettings:
    from core.llm.settings import LlmSettings

    settings = LlmSettings()
    if args.base_url:
        settings.base_url = args.base_url
    settings.api_key_env = getattr(args, "api_key_env", None)
    if args.timeout:
        settings.timeout_s = args.timeout
    return settings


def _submit(args: argparse.Namespace) -> int:
    from core.llm.batch_api import submit

    refuse_project(args.requests, "batch submit", "a requests file (JSONL)")
    state = submit(args.requests, _settings(args), model=args.model)
    if args.json:
        print(json.dumps(state.to_json()))
    else:
        print(f"submitted batch {state.id}: {state.total or 'all'} request(s) from {args.requests.name}")
        print(f"next: batch status {state.id}   then: batch fetch {state.id} --out results.jsonl")
    return 0


def _status(args: argparse.Namespace) -> int:
    from core.llm.batch_api import status

    state = status(args.id, _settings(args))
    print(json.dumps(state.to_json()) if args.json else state.describe())
    return 1 if state.status in ("failed",) else 0


def _fetch(args: argparse.Namespace) -> int:
    from core.llm.batch_api import fetch
    from core.output_paths import check_output_file

    check_output_file(args.out, option="--out")
    report = fetch(args.id, args.out, _settings(args))
    if args.json:
        print(json.dumps({"out": str(report.out_path), "answers": report.answers, "error_lines": report.error_lines,
                          "status": report.status.to_json()}))
    else:
        print(report.describe())
        print(f"next: profile PROJECT.grammarlens ... --batch-in {args.out}")
    for note in report.status.errors:
        print(f"warning: {note}", file=sys.stderr)
    return 0


def _bench(args: argparse.Namespace) -> int:
    from bench.batch import print_bench, run_bench
    from core.output_paths import check_output_folder

    if args.folder is not None:
        check_output_folder(args.folder, option="--folder", overwrite=True, parents=True)
    result = run_bench(projects=args.projects, requests=args.requests, folder=args.folder)
    print_bench(result, as_json=args.json)
    return 0


def _is_requests_file(path) -> bool:
    """True if the first line of ``path`` is a Batch API request (``url`` and ``body``, no ``response``)."""
    try:
        with open(path, "rb") as fh:  # refuse_project ran first: this is not a project file
            first = fh.readline(1_000_000)
        line = json.loads(first)
    except (OSError, ValueError, RecursionError):  # unreadable, not JSON, or nested too deeply: not a requests file
        return False
    return isinstance(line, dict) and "body" in line and "url" in line and "response" not in line


def profile_batch_files(args: argparse.Namespace, settings: BatchSettings) -> int:
    """``profile P1 [P2 ...] --batch-out FILE`` / ``--batch-in FILE`` (called by cli/profile_commands.py)."""
    from core.errors import GrammarLensError

    if args.batch_out and args.batch_in:
        raise GrammarLensError("Give --batch-out or --batch-in, not both.",
                               "Write the requests first; import the results once the batch has run.")
    args.file = sample_projects(args.file)
    if args.batch_out:
        return _write_batch_file(args, settings)
    return _import_batch_file(args)


def sample_projects(paths: list[Path]) -> list[Path]:
    """The project files named, a sample folder's or list file's expanded in place (core.sample.members).

    So that ``profile SAMPLE_DIR --batch-out FILE`` writes the prompts of a whole sample, as the Sample
    window and ``sample status`` read it; a project named twice is taken once.
    """
    from core.sample.members import find_projects

    return list(dict.fromkeys(project for path in paths for project in find_projects(path)))


def _write_batch_file(args: argparse.Namespace, settings: BatchSettings) -> int:
    """``--batch-out FILE``: 0 when every feature's request was written, 1 when some could not be."""
    from cli.progress_printer import stderr_progress
    from core.errors import GrammarLensError
    from core.output_paths import check_output_file
    from core.profile import resolve_feature_set
    from core.profile.batch_files import write_batch_requests
    from core.store import open_project

    check_output_file(args.batch_out, option="--batch-out")  # never over a project (one of these, even)
    if not args.features:
        raise GrammarLensError("--batch-out needs --features.", "For example: --features grambank.")
    if settings.mode != "llm":
        raise GrammarLensError("--batch-out writes prompts for a model; --no-llm asks none.", "Leave out --no-llm.")
    with open_project(args.file[0], readonly=True) as project:
        ids = resolve_feature_set(project, args.features)
    report = write_batch_requests(args.file, ids, args.batch_out, settings,
                                  stderr_progress("batch file"), feature_set=args.features)
    if args.json:
        print(json.dumps(report.to_json()))
    else:
        print(report.describe())
    for problem in report.problems:
        print(f"warning: {problem.message}", file=sys.stderr)
    return 0 if not report.problems else 1


def _import_batch_file(args: argparse.Namespace) -> int:
    """``--batch-in FILE``: 0 when at least the good lines are stored (even if some lines were not), else 2."""
    from cli.bounded_input import MAX_RESULTS_BYTES, check_input_file
    from cli.progress_printer import stderr_progress
    from core.errors import GrammarLensError
    from core.profile.batch_files import import_batch_results

    refuse_project(args.batch_in, "--batch-in", "a batch results file (JSONL)")
    check_input_file(args.batch_in, "--batch-in", MAX_RESULTS_BYTES)
    if _is_requests_file(args.batch_in):
        raise GrammarLensError(f"--batch-in {args.batch_in} is a requests file (written by --batch-out), not results.",
                               f"Submit it first: batch submit {args.batch_in}; then import what 'batch fetch' writes.")
    report = import_batch_results(args.file, args.batch_in, stderr_progress("import"))
    if args.json:
        print(json.dumps(report.to_json()))
    else:
        print(report.describe())
        for problem in report.problems:
            print(f"  {problem.describe()}")
        if report.problems_left_out:
            print(f"  ... and {report.problems_left_out:,} more")
        print(report.outcome())
    if not report.stored:  # bad input like any other: the error and hint on stderr too
        print(f"error: nothing was imported from --batch-in {args.batch_in}.", file=sys.stderr)
        print("hint: Give the results file of a batch written from this project "
              "('batch fetch ID --out RESULTS.jsonl').", file=sys.stderr)
    return 0 if report.stored else 2
