"""Copies, synced folders, hard links, symlinks and read-only places (issue 26, findings 7-9), with real processes."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core import coding
from core.errors import ProjectError
from core.store import backups, open_project
from tests.cli_runs import run_main
from tests.old_projects import old_project

REPO = Path(__file__).resolve().parents[2]


def worker(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tests.restore_workers", *args], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def cli(*args: str) -> subprocess.CompletedProcess:
    return run_main(*args)


def count_notes(path: Path) -> int:
    """Acts in the main file alone, as a colleague receiving a copy of it reads them."""
    conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        return int(conn.execute("SELECT count(*) FROM decisions WHERE note LIKE 'act-%'").fetchone()[0])
    finally:
        conn.close()


@pytest.fixture
def project_path(tmp_path: Path) -> Path:
    path = tmp_path / "komnzo.grammarlens"
    open_project(path, create=True).close()
    shutil.rmtree(backups.backup_dir(path), ignore_errors=True)
    return path


def test_a_copy_taken_2_s_after_the_200th_act_holds_all_200(project_path: Path, tmp_path: Path) -> None:
    """Finding 7: with the window open, a copy of the file held 0 of 200 acts (they sat in the -wal until close)."""
    window = worker("hold", str(project_path), "200", "20")
    try:
        assert window.stdout is not None and window.stdout.readline().strip() == "done"
        time.sleep(2.0)
        copy = tmp_path / "copy-for-a-colleague.grammarlens"
        shutil.copyfile(project_path, copy)  # the main file only, as a sync client or a person copies it
        assert Path(f"{project_path}-wal").exists()  # the window is still open
    finally:
        window.kill()
        window.wait()
    assert count_notes(copy) == 200


def test_two_hard_linked_names_raced_lose_no_act(project_path: Path, tmp_path: Path) -> None:
    """Finding 8: two hard-linked names written at once lost 300 of 600 acknowledged acts (integrity "ok")."""
    other = tmp_path / "second-name.grammarlens"
    os.link(project_path, other)
    writers = [worker("writer", str(name), tag, "2") for name, tag in ((project_path, "a"), (other, "b"))]
    acked: list[str] = []
    refused = 0
    for w in writers:
        out, err = w.communicate(timeout=60)
        assert w.returncode == 0, err
        result = json.loads(out.strip().splitlines()[-1])
        acked += result["acked"]
        refused += result["refused"]
    os.unlink(other)
    conn = sqlite3.connect(project_path)
    stored = {r[0] for r in conn.execute("SELECT note FROM decisions")}
    conn.close()
    assert [a for a in acked if a not in stored] == []
    assert refused > 0  # a refusal, said as such, rather than acts that silently vanish
    with pytest.raises(ProjectError, match="hard links"):
        os.link(project_path, other)
        with open_project(project_path) as project:
            coding.add_note(project, "GB020", "refused")


def test_a_symlinked_project_is_written_through_its_real_path(project_path: Path, tmp_path: Path) -> None:
    """Finding 8: a symlinked project could never be written ("write-ahead log ... deleted by another program")."""
    link_folder = tmp_path / "synced"
    link_folder.mkdir()
    link = link_folder / "komnzo.grammarlens"
    link.symlink_to(project_path)
    result = cli("code", str(link), "--feature", "GB020", "--value", "1")
    assert result.returncode == 0, result.stderr
    with open_project(link) as project:
        coding.add_note(project, "GB021", "through the link")
        assert project.path == project_path
    conn = sqlite3.connect(project_path)
    assert conn.execute("SELECT count(*) FROM decisions").fetchone()[0] >= 2
    conn.close()
    assert sorted(p.name for p in link_folder.iterdir()) == ["komnzo.grammarlens"]  # nothing beside the link


def test_an_older_schema_project_is_read_without_writing_to_it(tmp_path: Path) -> None:
    """Finding 9: an older-schema project on a writable disk was refused as "read-only" by code --json and language."""
    path = old_project(tmp_path / "old.grammarlens", 5, language="Oldish")
    before = path.read_bytes()
    shown = cli("language", str(path))
    assert shown.returncode == 0 and "Oldish" in shown.stdout, shown.stderr
    coded = cli("code", str(path), "--feature", "GB020", "--json")
    assert coded.returncode == 0, coded.stderr
    assert path.read_bytes() == before  # nothing written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.grammarlens"]  # and nothing left beside it
    assert cli("code", str(path), "--feature", "GB020", "--value", "1").returncode == 0  # writing upgrades it
