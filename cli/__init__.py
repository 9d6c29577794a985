"""Headless command line of GrammarLens (``python main.py SUBCOMMAND ...``).

Each ``cli/*_commands.py`` module contributes subcommands through ``register(commands, bench)``,
where ``commands`` is the top-level subparser collection and ``bench`` the one under
``main.py bench``.  Handlers return an exit code; :class:`core.errors.GrammarLensError` is
printed as a clear message with exit code 2, never as a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from typing import Sequence

from core import __version__
from core.errors import Cancelled, GrammarLensError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="grammarlens",
        description="GrammarLens: find what a descriptive grammar says about a typological feature.",
    )
    parser.add_argument("--version", action="version", version=f"GrammarLens {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    bench_parser = commands.add_parser("bench", help="benchmarks: speed and quality numbers")
    bench = bench_parser.add_subparsers(dest="bench_command", metavar="BENCH", required=True)
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.endswith("_commands"):
            importlib.import_module(f"{__name__}.{info.name}").register(commands, bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return int(args.handler(args) or 0)
    except Cancelled:
        print("Cancelled; nothing half-done was kept.", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print("Interrupted; nothing half-done was kept.", file=sys.stderr)
        return 130
    except GrammarLensError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        if exc.hint:
            print(f"hint: {exc.hint}", file=sys.stderr)
        return 2
