"""The command line as the tests run it: inside the test's own process, or as a person does, in a new one.

In-process (:func:`run_cli`) is fast (it skips the interpreter's start, about a second a call on two
cores) and is what most CLI tests need: the exit code and the two streams.  A real ``python main.py``
process (:func:`run_main`) is what start-up, signals, locks between programs and memory limits need.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def run_cli(*argv: object, exit_as_code: bool = False) -> tuple[int, str, str]:
    """``cli.main`` on ``argv`` (each turned into a string): (exit code, stdout, stderr).

    argparse leaves through ``SystemExit`` (a bad option, ``--help``); with ``exit_as_code`` that exit is
    returned as the code a person's shell would see, otherwise it propagates and fails the test.
    """
    import cli  # here, not at the top: tests.fixtures_read_only (loaded for every test) imports this module

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main([str(a) for a in argv])
        except SystemExit as exc:
            if not exit_as_code:
                raise
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    return code, out.getvalue(), err.getvalue()


def run_main(*args: object, timeout: float = 120, env: dict[str, str] | None = None,
             text: bool = True) -> subprocess.CompletedProcess:
    """``python main.py ARGS`` from the repository, its output captured (as text unless ``text=False``).

    An argument is passed as it is when it is ``str`` or ``bytes`` (a test may hand the command undecodable
    bytes), else as ``str(arg)`` (a Path).

    ``timeout`` is a safety net for a hung command (the test fails), not a timing; ``env`` replaces the
    environment when given.
    """
    argv = [a if isinstance(a, (str, bytes)) else str(a) for a in args]
    return subprocess.run([sys.executable, str(REPO / "main.py"), *argv], cwd=REPO, capture_output=True, text=text,
                          timeout=timeout, env=env)


def run_main_beside_the_window(*args: object, timeout: float = 300) -> None:
    """``python main.py ARGS`` as another program beside a test's window; it must succeed.

    Its environment names no OpenAI server or key and its keyring is the null one, so it can reach only
    the server its arguments name (the tests' local one) and never a person's stored key.
    """
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "GRAMMARLENS_API_KEY")}
    env.update({"PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring", "HF_HUB_OFFLINE": "1"})
    done = run_main(*args, timeout=timeout, env=env)
    assert done.returncode == 0, done.stderr
