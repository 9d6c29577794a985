"""Headless command line of GrammarLens (``python main.py SUBCOMMAND ...``).

Each ``cli/*_commands.py`` module contributes subcommands through ``register(commands, bench)``,
where ``commands`` is the top-level subparser collection and ``bench`` the one under
``main.py bench``.  Handlers return an exit code; :class:`core.errors.GrammarLensError` is
printed as a clear message with exit code 2, never as a traceback.  Option values are checked by
the ``type=`` functions of :mod:`cli.arg_types` before a handler runs, and output paths by
:mod:`core.output_paths`; a bad command line is reported the same way (``error:`` + ``hint:``, 2).
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
import traceback
from typing import NoReturn, Sequence

from core.build_info import version_line
from core.errors import Cancelled, GrammarLensError


class UsageError(GrammarLensError):
    """A command line argparse refuses (unknown option, missing or bad value): exit code 2 like any bad input."""


class _Parser(argparse.ArgumentParser):
    """argparse that reports bad command lines as :class:`UsageError` (``error:`` + ``hint:``, exit code 2).

    Also one fix: ``--opt=--`` is the value "--", checked by the option's type and choices
    (Python 3.11's argparse drops that "--" and hands the handler an empty list, unchecked).
    """

    def error(self, message: str) -> NoReturn:
        raise UsageError(message, f"See the options with: {self.prog} --help")

    def _get_values(self, action: argparse.Action, arg_strings: list[str]):
        if action.option_strings and action.nargs in (None, argparse.OPTIONAL) and arg_strings == ["--"]:
            value = self._get_value(action, "--")
            self._check_value(action, value)
            return value
        return super()._get_values(action, arg_strings)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="grammarlens",
        description="GrammarLens: find what a descriptive grammar says about a typological feature.",
    )
    parser.add_argument("--version", action="version", version=version_line())
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    bench_parser = commands.add_parser("bench", help="benchmarks: speed and quality numbers")
    bench = bench_parser.add_subparsers(dest="bench_command", metavar="BENCH", required=True)
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.endswith("_commands"):
            importlib.import_module(f"{__name__}.{info.name}").register(commands, bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns its exit code (``--help`` and ``--version`` exit through SystemExit).

    0 success, 1 partly done (the command says what failed) or a bug, 2 a problem the user can fix
    (a bad command line or value, a missing file...), 130 cancelled.  A bug never prints a bare
    traceback: it is named as a bug, and ``GRAMMARLENS_DEBUG=1`` shows the traceback as well.
    """
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "handler", None):
            parser.print_help()
            return 2
        return _run_escaped(args)
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
    except BrokenPipeError:
        _silence_stdout()  # the reader went away (``... | head``): stop quietly, as a killed pipeline would
        return 128 + 13  # SIGPIPE
    except Exception as exc:
        if os.environ.get("GRAMMARLENS_DEBUG", "") not in ("", "0"):
            traceback.print_exc()
        print(f"error: GrammarLens hit a bug: {type(exc).__name__}: {exc}", file=sys.stderr)
        print("hint: Please report it with the command you ran; run it again with GRAMMARLENS_DEBUG=1 to see the "
              "traceback.", file=sys.stderr)
        return 1


def _run_escaped(args: argparse.Namespace) -> int:
    """Run the handler with stdout and stderr escaping control characters (see :mod:`cli.terminal_text`)."""
    from cli.terminal_text import EscapingWriter
    from core.store.opening import on_backup_problem

    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = EscapingWriter(out), EscapingWriter(err)
    try:
        with on_backup_problem(_print_backup_warning):  # a backup that fails never stops a command, but is said
            return int(args.handler(args) or 0)
    finally:
        sys.stdout, sys.stderr = out, err


def _print_backup_warning(project: object, problem: GrammarLensError) -> None:
    print(f"warning: no backup was made of {project}: {problem.message} {problem.hint}".rstrip(), file=sys.stderr)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that Python's final flush does not complain about the closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real stdout (tests capture it): nothing to silence
        pass
