"""Issue 30, item 9: ``compare`` and ``sample`` read colleagues' projects in a folder nobody may write to.

The folder is really read-only: as root it is bind-mounted read-only in a private mount namespace
(``unshare -m``, where even root gets EROFS), otherwise it loses its write permissions (as
tests/core/test_read_only_projects.py does).  Commands run as child processes; not a byte of the
folder changes and nothing is left beside the projects.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures_sample import code_values

REPO = Path(__file__).resolve().parents[2]


def _can_unshare() -> bool:
    return os.geteuid() == 0 and shutil.which("unshare") is not None and subprocess.run(
        ["unshare", "-m", "true"], capture_output=True).returncode == 0


@pytest.fixture
def shelf(demo_copy, tmp_path: Path):
    """A read-only folder holding two coders' projects of one language; yields (a, b, run)."""
    folder = tmp_path / "shelf"
    a, b = demo_copy("shelf/ana.grammarlens"), demo_copy("shelf/ben.grammarlens")
    code_values(a, {"GB020": "1", "GB021": "0"}, "ana")
    code_values(b, {"GB020": "0", "GB021": "0"}, "ben")
    for leftover in folder.iterdir():
        if leftover.name.endswith(".backups"):
            shutil.rmtree(leftover)
    names = sorted(p.name for p in folder.iterdir())
    if _can_unshare():
        def run(*args: str) -> subprocess.CompletedProcess:
            script = 'mount --bind -o ro "$1" "$1" && shift && exec "$@"'
            return subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", str(folder), sys.executable, "main.py",
                                   *args], cwd=REPO, capture_output=True, text=True, timeout=120)
    elif os.geteuid() != 0:
        for p in (a, b):
            p.chmod(stat.S_IRUSR | stat.S_IRGRP)
        folder.chmod(stat.S_IRUSR | stat.S_IXUSR)

        def run(*args: str) -> subprocess.CompletedProcess:
            return subprocess.run([sys.executable, "main.py", *args], cwd=REPO, capture_output=True, text=True,
                                  timeout=120)
    else:
        pytest.skip("root without 'unshare -m' cannot make a folder read-only")
    before = {p.name: p.read_bytes() for p in (a, b)}
    yield a, b, run
    folder.chmod(0o755)
    assert {p.name: p.read_bytes() for p in (a, b)} == before
    assert sorted(p.name for p in folder.iterdir()) == names


def test_compare_and_sample_read_projects_in_a_read_only_folder(shelf, tmp_path: Path) -> None:
    a, b, run = shelf
    compared = run("compare", str(a), str(b), "--json")
    assert compared.returncode == 0, compared.stderr
    assert json.loads(compared.stdout)["current"]["n"] == 2
    status = run("sample", "status", str(a.parent), "--json")
    assert status.returncode == 0, status.stderr
    assert len(json.loads(status.stdout)["languages"]) == 2
    exported = run("sample", "export", str(a.parent), "--format", "long", "--out", str(tmp_path / "long.csv"))
    assert exported.returncode == 0, exported.stderr
