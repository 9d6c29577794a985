"""A folder made really read-only for a child process, the way tests of read-only media need it.

As root (CI) the folder is bind-mounted read-only in a private mount namespace (``unshare -m``), where
even root gets EROFS; any other user gets the files and the folder stripped of write permission.
Root without ``unshare -m`` skips the test: it cannot make a folder read-only at all.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli_runs import run_main

REPO = Path(__file__).resolve().parents[1]
Run = Callable[..., subprocess.CompletedProcess]


def _can_unshare() -> bool:
    return os.geteuid() == 0 and shutil.which("unshare") is not None and subprocess.run(
        ["unshare", "-m", "true"], capture_output=True).returncode == 0


def read_only_runner(folder: Path, files: list[Path]) -> Run:
    """A ``run(*args)`` of ``main.py`` that sees ``folder`` (holding ``files``) read-only."""
    if _can_unshare():
        def run(*args: str) -> subprocess.CompletedProcess:
            script = 'mount --bind -o ro "$1" "$1" && shift && exec "$@"'
            return subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", str(folder), sys.executable, "main.py",
                                   *args], cwd=REPO, capture_output=True, text=True, timeout=120)
        return run
    if os.geteuid() != 0:
        for path in files:
            path.chmod(stat.S_IRUSR | stat.S_IRGRP)
        folder.chmod(stat.S_IRUSR | stat.S_IXUSR)

        return run_main
    pytest.skip("root without 'unshare -m' cannot make a folder read-only")
