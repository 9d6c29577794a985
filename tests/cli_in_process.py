"""The command line run inside the test's own process: fast, and its output read back.

A subprocess (``python main.py ...``) is what a person runs and what the tests of start-up, signals
and concurrency need; most CLI tests only need the exit code and the two streams, and in-process
they skip the interpreter's start (about a second a call on two cores).
"""

from __future__ import annotations

import contextlib
import io

import cli


def run_cli(*argv: object, exit_as_code: bool = False) -> tuple[int, str, str]:
    """``cli.main`` on ``argv`` (each turned into a string): (exit code, stdout, stderr).

    argparse leaves through ``SystemExit`` (a bad option, ``--help``); with ``exit_as_code`` that exit is
    returned as the code a person's shell would see, otherwise it propagates and fails the test.
    """
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main([str(a) for a in argv])
        except SystemExit as exc:
            if not exit_as_code:
                raise
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    return code, out.getvalue(), err.getvalue()
