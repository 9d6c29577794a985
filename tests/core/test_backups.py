"""Backups beside the project, the ``restore`` command, and damaged files named as such."""

from __future__ import annotations

import hashlib
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlite_utils

from core import coding
from core.errors import ProjectError
from core.store import backups, open_project
from core.store.migrations import MIGRATIONS
from tests.cli_runs import run_cli
from tests.old_projects import old_project


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _value(path: Path, feature: str) -> str | None:
    with open_project(path, backup=False) as project:
        decision = coding.current(project, feature)
    return decision.code if decision else None


@pytest.fixture
def project_path(tmp_path: Path) -> Path:
    path = tmp_path / "ulwa.grammarlens"
    open_project(path, create=True).close()
    return path


def test_opening_keeps_one_backup_an_hour_and_the_copy_is_a_whole_project(project_path: Path) -> None:
    with open_project(project_path) as project:
        coding.code(project, "GB020", "1")
    first = backups.list_backups(project_path)
    assert [b.reason for b in first] == ["open"]
    open_project(project_path).close()
    assert backups.list_backups(project_path) == first  # not again within the hour
    assert backups.backup_dir(project_path) == project_path.with_name("ulwa.grammarlens.backups")
    copy = first[0].path
    assert copy.name.endswith(".open.grammarlens-backup") and backups.check_backup(copy) is None
    assert not Path(f"{copy}-wal").exists()  # one self-contained file
    db = sqlite_utils.Database(copy)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    db.close()


def test_rotation_keeps_the_last_five_and_the_newest_of_each_of_the_last_seven_days(project_path: Path) -> None:
    with open_project(project_path):
        template = backups.list_backups(project_path)[0].path
    now = datetime.now(UTC)
    stamps = [now - timedelta(days=day, hours=hour) for day in range(10) for hour in (1, 3)]
    for stamp in stamps:
        name = f"ulwa.{stamp.strftime('%Y%m%dT%H%M%S%fZ')}.hourly.grammarlens-backup"
        shutil.copy(template, template.with_name(name))
    template.unlink()
    backups.prune(project_path)
    kept = backups.list_backups(project_path)
    expected_last = sorted(stamps, reverse=True)[:5]
    per_day = {}
    for stamp in sorted(stamps, reverse=True):
        if (now.date() - stamp.date()).days < backups.KEEP_DAYS:
            per_day.setdefault(stamp.date(), stamp)
    assert sorted(b.created for b in kept) == sorted(set(expected_last) | set(per_day.values()))


def test_restore_round_trip_in_the_cli_keeps_the_replaced_state(project_path: Path) -> None:
    with open_project(project_path) as project:
        coding.code(project, "GB020", "1")
        saved = backups.make_backup(project, "manual")
        coding.code(project, "GB020", "0")
    code, out, err = run_cli("restore", str(project_path), "--list")
    assert code == 0 and saved.path.name in out and "manual" in out and " ok " in out
    code, out, err = run_cli("restore", str(project_path), "--from", str(saved.path))
    assert code == 0, err
    assert _value(project_path, "GB020") == "1"
    safety = [b for b in backups.list_backups(project_path) if b.reason == "before-restore"]
    assert len(safety) == 1 and str(safety[0].path) in out
    assert run_cli("restore", str(project_path), "--from", str(safety[0].path))[0] == 0
    assert _value(project_path, "GB020") == "0"  # a restore can itself be undone


def test_restore_reaches_a_connection_that_stays_open(project_path: Path) -> None:
    """The window keeps its connection while the CLI restores: it reads the restored state, nothing breaks.

    Its first act after the restore was computed from a state that is gone: it is refused (nothing
    written, the restore named); the next one goes through.
    """
    with open_project(project_path) as window:
        coding.code(window, "GB020", "1")
        saved = backups.make_backup(window, "manual")
        coding.code(window, "GB020", "0")
        assert run_cli("restore", str(project_path), "--from", str(saved.path))[0] == 0
        assert coding.current(window, "GB020").code == "1"
        with pytest.raises(ProjectError, match="was restored from a backup"):
            coding.code(window, "81A", "SOV")
        assert coding.current(window, "81A") is None
        coding.code(window, "81A", "SOV")  # and it can go on writing
        assert coding.current(window, "81A") is not None
        assert window.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_damaged_project_is_named_damaged_with_its_backup_and_left_untouched(project_path: Path) -> None:
    with open_project(project_path) as project:
        coding.code(project, "GB020", "1")
        good = backups.make_backup(project, "manual")
    with open(project_path, "r+b") as fh:  # page 1 overwritten: the header is gone
        fh.write(b"\x00" * 4096)
    before = _sha(project_path)
    with pytest.raises(ProjectError) as raised:
        open_project(project_path)
    assert "is damaged" in raised.value.message and good.path.name in raised.value.message
    assert "not a GrammarLens project" not in raised.value.message
    assert "main.py restore" in raised.value.hint
    code, out, err = run_cli("code", str(project_path), "--feature", "GB020", "--json")
    assert code == 2 and "damaged" in err and "Traceback" not in err
    assert _sha(project_path) == before  # never written to
    code, out, err = run_cli("restore", str(project_path))  # the newest intact backup
    assert code == 0, err
    assert _value(project_path, "GB020") == "1"
    aside = list(project_path.parent.glob("ulwa.grammarlens.damaged-*"))
    assert len(aside) == 1 and _sha(aside[0]) == before  # kept, not deleted


def test_a_damaged_page_inside_the_file_is_damaged_too(project_path: Path) -> None:
    with open_project(project_path) as project:
        for i in range(300):
            coding.add_note(project, "GB020", f"note {i} " + "x" * 200)
    size = project_path.stat().st_size
    with open(project_path, "r+b") as fh:
        fh.seek(size // 2)
        fh.write(b"\xff" * 8192)
    with pytest.raises(ProjectError, match="is damaged"):
        open_project(project_path)


def test_a_file_that_never_was_a_project_is_not_called_damaged(tmp_path: Path) -> None:
    other = tmp_path / "notes.txt"
    other.write_text("just text, long enough to not be empty " * 100)
    with pytest.raises(ProjectError, match="not a GrammarLens project"):
        open_project(other)


def test_an_upgrade_is_preceded_by_a_backup(tmp_path: Path) -> None:
    path = old_project(tmp_path / "old.grammarlens", 4)
    with open_project(path) as project:
        assert project.schema_version() == len(MIGRATIONS)
    reasons = [b.reason for b in backups.list_backups(path)]
    assert "before-upgrade-4" in reasons
    upgrade = next(b for b in backups.list_backups(path) if b.reason == "before-upgrade-4")
    old = sqlite_utils.Database(upgrade.path)
    assert old.execute("PRAGMA user_version").fetchone()[0] == 4
    old.close()


def test_a_backup_that_cannot_be_written_does_not_lock_the_project_away(project_path: Path) -> None:
    backups.backup_dir(project_path).write_text("a file where the backup folder goes")
    with open_project(project_path) as project:
        assert project.backup_problem is not None and "backup folder" in project.backup_problem.message
        coding.code(project, "GB020", "1")
    with open(project_path, "rb") as fh:  # closed: the guard let go of it
        assert fh.read(6) == b"SQLite"
