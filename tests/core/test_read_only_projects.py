"""A project on read-only media (a CD, a shared drive, a colleague's file) opens read-only.

Everything that only reads works; a write says "read-only" with the path and stores nothing.  The
media are real: as root (CI) the project's folder is bind-mounted read-only in a private mount
namespace (``unshare -m``), where even root gets EROFS; otherwise the folder and file lose their
write permissions.  The project was closed cleanly, so no -shm exists beside it and SQLite cannot
create one: the hardest case for a WAL database.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from core import coding
from core.models import Language
from core.store import open_project
from core.store.repository import set_language
from tests.fixtures_read_only import read_only_runner


@pytest.fixture
def read_only_project(tmp_path: Path):
    folder = tmp_path / "cdrom"
    folder.mkdir()
    path = folder / "colleague.grammarlens"
    with open_project(path, create=True) as project:
        set_language(project, Language(name="Ulwa", glottocode="yaul1241", source="user"))
        coding.code(project, "GB020", "1", note="definite article", reviewer="colleague")
    shutil.rmtree(folder / "colleague.grammarlens.backups", ignore_errors=True)
    assert sorted(p.name for p in folder.iterdir()) == ["colleague.grammarlens"]
    run = read_only_runner(folder, [path])
    before = path.read_bytes()
    yield path, run
    folder.chmod(0o755)
    assert path.read_bytes() == before  # not a byte written
    assert sorted(p.name for p in folder.iterdir()) == ["colleague.grammarlens"]


def test_reading_commands_work_on_a_read_only_project(read_only_project, tmp_path: Path) -> None:
    path, run = read_only_project
    shown = run("code", str(path), "--feature", "GB020", "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["value"] == "1"
    history = run("code", str(path), "--feature", "GB020", "--history")
    assert history.returncode == 0 and "definite article" in history.stdout, history.stderr
    language = run("language", str(path), "--json")
    assert language.returncode == 0 and json.loads(language.stdout)["glottocode"] == "yaul1241", language.stderr
    out = tmp_path / "exported"
    export = run("export", str(path), "--format", "csv", "--out", str(out))
    assert export.returncode == 0, export.stderr
    assert any(out.iterdir()) if out.is_dir() else out.exists()


def test_a_write_on_a_read_only_project_says_read_only_with_the_path(read_only_project) -> None:
    path, run = read_only_project
    refused = run("code", str(path), "--feature", "GB020", "--value", "0")
    assert refused.returncode == 2
    assert "read-only" in refused.stderr and str(path) in refused.stderr
    assert "Traceback" not in refused.stderr
