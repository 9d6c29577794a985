"""Issue 30, item 9: ``compare`` and ``sample`` read colleagues' projects in a folder nobody may write to.

The folder is really read-only: as root it is bind-mounted read-only in a private mount namespace
(``unshare -m``, where even root gets EROFS), otherwise it loses its write permissions (as
tests/core/test_read_only_projects.py does).  Commands run as child processes; not a byte of the
folder changes and nothing is left beside the projects.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.fixtures_read_only import read_only_runner
from tests.fixtures_sample import code_values


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
    run = read_only_runner(folder, [a, b])
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
