"""CLI: ``bench gui`` (first page, first evidence, UI-thread stalls, a coding pass) and ``demo`` (write the sample
grammar PDF).

Qt is imported only inside the bench handler, so the rest of the CLI never loads it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from cli import arg_types

DEFAULT_BENCH_PDF = Path(__file__).resolve().parent.parent.parent / "shared" / "grammars" / "078_Papuan_Malay.pdf"


def register(commands: argparse._SubParsersAction, bench: argparse._SubParsersAction) -> None:
    p = commands.add_parser("demo", help="write the demo grammar PDF (an invented language) to a file")
    p.add_argument("pdf", type=arg_types.path, help="where to write it (a new .pdf file)")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    p.set_defaults(handler=_demo)

    p = bench.add_parser("gui", help="desktop app: first page and first evidence of a long grammar, UI stalls, "
                                      "a coding pass at a coder's pace")
    p.add_argument("pdf", type=arg_types.path, nargs="?", default=DEFAULT_BENCH_PDF,
                   help="grammar PDF (default: the 770-page one)")
    p.add_argument("--demo", action="store_true", help="the demo grammar instead of a PDF")
    p.add_argument("--only", choices=("first-evidence", "key-pace", "first-minute"),
                   help="one part: first evidence (cold/warm, new processes), the coding pass at 1 and 2 keys/s, or "
                        "the first minute (a pass at a key a second from a cold open, while the book embeds)")
    p.add_argument("--reranker", type=arg_types.optional_model_name,
                   help="embedding model for retrieval ('' for none; default: the app's default)")
    p.add_argument("--repeats", type=arg_types.int_range(1, 100), default=3, help="how many times to open the grammar")
    p.add_argument("--json", action="store_true", help="print the numbers as JSON")
    p.add_argument("--llm-url", type=arg_types.url, default=None,
                   help="OpenAI-compatible server to classify against (default: the checkout's test server)")
    p.set_defaults(handler=_bench_gui)

    p = bench.add_parser("gui-quit", help="desktop app: seconds from the window's close to the process gone, idle "
                                           "and while the reranker model loads (each in a new process)")
    p.add_argument("--one", choices=("idle", "model loading", "pass"), help=argparse.SUPPRESS)  # one child's run
    p.add_argument("--json", action="store_true", help="print the numbers as JSON")
    p.set_defaults(handler=_bench_gui_quit)

    p = bench.add_parser("gui-first-evidence", help="(used by bench gui) one new app process: seconds from the "
                                                    "window to a project's first evidence")
    p.add_argument("project", type=arg_types.path, help="project file")
    p.add_argument("--feature", type=arg_types.feature_id, default="81A")
    p.add_argument("--reranker", type=arg_types.optional_model_name,
                   help="embedding model for retrieval ('' for none; default: the app's default)")
    p.add_argument("--llm-url", type=arg_types.url, default=None, help="OpenAI-compatible server (see bench gui)")
    p.add_argument("--json", action="store_true", help="print the numbers as JSON")
    p.set_defaults(handler=_bench_gui_first_evidence)


def _demo(args: argparse.Namespace) -> int:
    from core.demo import write_demo_grammar
    from core.output_paths import check_output_file

    check_output_file(args.pdf, overwrite=args.force, force_option="--force", pdf=True)
    print(write_demo_grammar(args.pdf))
    return 0


def _bench_gui(args: argparse.Namespace) -> int:
    import os

    from core.errors import GrammarLensError

    if not args.demo and not args.pdf.is_file():
        raise GrammarLensError(f"{args.pdf} is not a file.", "Give the path of a grammar PDF, or --demo.")
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from bench.gui import run_bench

    return run_bench(args.pdf, reranker=args.reranker, repeats=args.repeats, as_json=args.json, demo=args.demo,
                     only=args.only, llm_url=args.llm_url)


def _bench_gui_quit(args: argparse.Namespace) -> int:
    import json
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from bench.gui_quit import measure_once, run_quit_bench

    if args.one:
        print(json.dumps(measure_once(args.one)))
        return 0
    return run_quit_bench(as_json=args.json)


def _bench_gui_first_evidence(args: argparse.Namespace) -> int:
    import json
    import os

    from core.errors import GrammarLensError

    if not args.project.is_file():
        raise GrammarLensError(f"{args.project} is not a file.", "Give the path of a project (.grammarlens).")
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from bench.gui import first_evidence_child

    out = first_evidence_child(args.project, args.feature, reranker=args.reranker, llm_url=args.llm_url)
    print(json.dumps(out, indent=None if args.json else 2))
    return 0 if out.get("evidence_s") is not None else 1
