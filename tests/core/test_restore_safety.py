"""Restores that never lose work, with real processes (issue 26, findings 1-6).

Each test is one finding of the issue: it failed on the code before the fix (named in its
docstring) and passes now.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core import coding
from core.models import Language
from core.store import backups, open_project
from core.store.migrations import MIGRATIONS
from core.store.repository import set_language
from tests.cli_runs import run_main
from tests.old_projects import old_project

REPO = Path(__file__).resolve().parents[2]


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return run_main(*args, timeout=timeout)


def worker(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tests.restore_workers", *args], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def notes(path: Path) -> set[str]:
    """Every note ever written in a project or backup file (read as immutable: nothing changes)."""
    conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        return {r[0] for r in conn.execute("SELECT note FROM decisions WHERE note IS NOT NULL")}
    finally:
        conn.close()


def live_notes(path: Path) -> set[str]:
    with open_project(path, readonly=True) as project:
        return {r[0] for r in project.conn.execute("SELECT note FROM decisions WHERE note IS NOT NULL")}


@pytest.fixture
def project_path(tmp_path: Path) -> Path:
    path = tmp_path / "moloko.grammarlens"
    with open_project(path, create=True) as project:
        set_language(project, Language(name="Moloko", glottocode="molo1266", source="user"))
    shutil.rmtree(backups.backup_dir(path), ignore_errors=True)
    return path


def _same_day_backups(path: Path, count: int) -> list[backups.Backup]:
    made = []
    with open_project(path, backup=False) as project:
        for i in range(count):
            coding.add_note(project, "GB020", f"state-{i}")
            made.append(backups.make_backup(project, "manual"))
    return made


def test_restore_from_the_oldest_of_five_same_day_backups_keeps_every_backup(project_path: Path) -> None:
    """Finding 1: the before-restore backup's rotation deleted the backup being restored ("unable to open")."""
    made = _same_day_backups(project_path, 5)
    oldest = made[0].path
    result = cli("restore", str(project_path), "--from", str(oldest))
    assert result.returncode == 0, result.stderr
    assert oldest.exists()
    assert all(b.path.exists() for b in made)  # trying backups one by one destroys none of them
    assert "state-0" in live_notes(project_path) and "state-4" not in live_notes(project_path)
    for b in made[1:]:  # and the next one can be tried too
        assert cli("restore", str(project_path), "--from", str(b.path)).returncode == 0
    assert all(b.path.exists() for b in made)
    assert "state-4" in live_notes(project_path)


def _import_project(folder: Path) -> tuple[Path, Path, int]:
    """The Testish project with a results file answering every Grambank and WALS feature (774 lines)."""
    from tests.batch_results import write_long_results

    path, results, count = write_long_results(folder, "testish.grammarlens")
    shutil.rmtree(backups.backup_dir(path), ignore_errors=True)
    return path, results, count


def _classifications(path: Path) -> int:
    with open_project(path, readonly=True) as project:
        return int(project.conn.execute("SELECT count(*) FROM classifications").fetchone()[0])


@pytest.mark.slow
def test_three_writers_and_an_import_across_20_restores_lose_no_acknowledged_act(tmp_path: Path) -> None:
    """Finding 2: acts committed between the before-restore backup and the restore were in neither, and an
    import running across a restore reported "3,510 stored" while the file held 1,174.

    Every acknowledged act is in a before-restore backup or in the file afterwards; the import either
    says a restore replaced its answers (and the file holds none of them) or its count is the file's.
    """
    path, results, total = _import_project(tmp_path)
    (source,) = _same_day_backups(path, 1)
    writers = [worker("writer", str(path), f"w{i}", "12") for i in range(3)]
    time.sleep(1.0)
    restorer = worker("restorer", str(path), str(source.path), "20", "0.3")
    time.sleep(0.5)
    importer = subprocess.Popen([sys.executable, "main.py", "profile", str(path), "--batch-in", str(results), "--json"],
                                cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = restorer.communicate(timeout=240)
    assert restorer.returncode == 0, err
    safeties = [Path(p) for p in json.loads(out.strip().splitlines()[-1])["safeties"]]
    acked: list[str] = []
    for w in writers:
        out, err = w.communicate(timeout=60)
        assert w.returncode == 0, err
        acked += json.loads(out.strip().splitlines()[-1])["acked"]
    imported_out, imported_err = importer.communicate(timeout=240)
    assert len(safeties) == 20 and all(p.exists() for p in safeties) and source.path.exists()
    kept = live_notes(path)
    for p in safeties:
        kept |= notes(p)
    lost = [a for a in acked if a not in kept]
    assert len(acked) > 300 and lost == [], f"{len(lost)} of {len(acked)} acknowledged acts lost: {lost[:5]}"
    in_file = _classifications(path)
    if importer.returncode == 0:  # its count is what the project held when it ended: the file's, or, when a
        # restore came after its end (a quick import), that restore's before-restore backup's
        imported = json.loads(imported_out.strip().splitlines()[-1])["imported"]
        assert imported == in_file or imported in {_classifications(p) for p in safeties}, (imported, in_file)
    else:
        assert "restored from a backup" in imported_err and "not in the project any more" in imported_err
        assert in_file == 0, imported_err
    print(f"20 restores, 3 writers: {len(acked)} acts acknowledged, {len(lost)} lost; import exit "
          f"{importer.returncode}, {in_file} of {total} answers in the file")


def test_another_projects_backup_and_a_newer_schema_are_refused_leaving_the_file_unchanged(
        project_path: Path, tmp_path: Path) -> None:
    """Findings 3 and 6: another project's backup was restored silently; a newer schema bricked the project."""
    _same_day_backups(project_path, 1)
    demo = tmp_path / "demo.grammarlens"
    with open_project(demo, create=True) as other:
        set_language(other, Language(name="Demo", glottocode=None, source="user"))
        foreign = backups.make_backup(other, "manual").path
    newer = tmp_path / "newer.grammarlens-backup"
    shutil.copy(backups.list_backups(project_path)[0].path, newer)
    conn = sqlite3.connect(newer)
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    conn.close()
    before = sha(project_path)
    refused = cli("restore", str(project_path), "--from", str(foreign))
    assert refused.returncode == 2 and "another project (Demo" in refused.stderr
    assert "--other-project" in refused.stderr and "Nothing was changed" in refused.stderr
    assert sha(project_path) == before
    too_new = cli("restore", str(project_path), "--from", str(newer))
    assert too_new.returncode == 2 and "newer GrammarLens" in too_new.stderr and "Nothing was changed" in too_new.stderr
    assert sha(project_path) == before
    itself = cli("restore", str(project_path), "--from", str(project_path))
    assert itself.returncode == 2 and "the project itself" in itself.stderr
    assert sha(project_path) == before
    project_id = refused.stderr.split("--other-project ")[1].split()[0]
    forced = cli("restore", str(project_path), "--from", str(foreign), "--other-project", project_id)
    assert forced.returncode == 0, forced.stderr  # said explicitly, naming both: done, the old state kept
    with open_project(project_path, readonly=True) as project:
        assert project.conn.execute("SELECT name FROM language").fetchone()[0] == "Demo"


def test_a_stale_wal_beside_a_missing_project_is_never_replayed(project_path: Path) -> None:
    """Finding 4: 'restore P' replayed the -wal of the deleted project into the fresh copy: "damaged"."""
    (good,) = _same_day_backups(project_path, 1)
    holder = worker("hold", str(project_path), "50", "30")
    assert holder.stdout is not None and holder.stdout.readline().strip() == "done"
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    assert Path(f"{project_path}-wal").stat().st_size > 0
    project_path.unlink()  # deleted (or moved away) while open: its -wal stays
    result = cli("restore", str(project_path))
    assert result.returncode == 0, result.stderr
    with open_project(project_path, readonly=True) as project:
        assert project.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert live_notes(project_path) == notes(good.path)
    assert list(project_path.parent.glob("moloko.grammarlens-wal.stale-*"))  # moved aside, not deleted


def test_a_backup_named_in_the_future_neither_stops_backups_nor_counts_as_newest(project_path: Path) -> None:
    """Finding 5: a backup named next year stopped automatic backups, and 'restore P' brought back its stale state."""
    (stale,) = _same_day_backups(project_path, 1)
    future = datetime.now(UTC) + timedelta(days=300)
    renamed = stale.path.with_name(f"moloko.{future.strftime('%Y%m%dT%H%M%S%fZ')}.open.grammarlens-backup")
    stale.path.rename(renamed)
    with open_project(project_path, backup=False) as project:
        coding.add_note(project, "GB020", "latest")
    assert cli("code", str(project_path), "--feature", "GB021", "--value", "1").returncode == 0  # an ordinary act
    taken = [b for b in backups.list_backups(project_path) if b.path != renamed]
    assert taken and "latest" in notes(taken[0].path)  # a backup was made despite the "future" one
    assert backups.list_backups(project_path)[0].path != renamed  # newest = latest acts, not latest name
    with open_project(project_path, backup=False) as project:
        coding.add_note(project, "GB020", "after")
    assert cli("restore", str(project_path)).returncode == 0
    assert "latest" in live_notes(project_path)


def test_a_failed_backup_is_said_at_once_and_in_the_list(project_path: Path) -> None:
    """Finding 6: a file where the backups folder goes: exit 0, no warning, and 'restore --list' said 'No backups'."""
    backups.backup_dir(project_path).write_text("not a folder")
    result = cli("code", str(project_path), "--feature", "GB020", "--value", "1")
    assert result.returncode == 0, result.stderr
    assert "warning: no backup was made" in result.stderr and "backup folder" in result.stderr
    listed = cli("restore", str(project_path), "--list")
    assert listed.returncode == 0 and "The last backup FAILED" in listed.stdout and "backup folder" in listed.stdout


@pytest.mark.slow
def test_kill_9_during_a_restore_20_times_leaves_a_whole_file_and_every_backup(project_path: Path) -> None:
    """kill -9 at random moments of a restore: the file opens, intact, old or new state, no backup lost."""
    with open_project(project_path, backup=False) as project:
        for i in range(400):  # a few hundred kB, so that a restore takes a moment
            coding.add_note(project, "GB020", f"old-{i} " + "x" * 300)
        source = backups.make_backup(project, "manual")
        coding.add_note(project, "GB020", "new-state")
    rng = random.Random(26)
    states = set()
    for _ in range(20):
        kept = {b.path for b in backups.list_backups(project_path)}
        proc = worker("restore-once", str(project_path), str(source.path))
        assert proc.stdout is not None and proc.stdout.readline().strip() == "start"
        time.sleep(rng.uniform(0.0, 0.25))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        with open_project(project_path, backup=False) as project:
            assert project.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            last = project.conn.execute("SELECT note FROM decisions ORDER BY id DESC LIMIT 1").fetchone()[0]
        states.add("old" if last.startswith("old-399") else "new" if last == "new-state" else last)
        assert kept <= {b.path for b in backups.list_backups(project_path)}
        with open_project(project_path, backup=False) as project:  # back to the "new" state for the next round
            coding.add_note(project, "GB020", "new-state")
    assert states <= {"old", "new"}
    print(f"kill -9 during restore: 20 kills, states seen {sorted(states)}")
    assert not list(project_path.parent.glob("*.partial"))  # the next start removed what killed runs left
    assert not list(backups.backup_dir(project_path).glob("*.partial"))


def test_no_restore_without_the_before_restore_backup(project_path: Path, tmp_path: Path) -> None:
    """When the state a restore would replace cannot be kept as a backup first, nothing is restored."""
    (saved,) = _same_day_backups(project_path, 1)
    elsewhere = tmp_path / "kept-elsewhere.grammarlens-backup"
    shutil.copy(saved.path, elsewhere)
    with open_project(project_path, backup=False) as project:
        coding.add_note(project, "GB020", "current")
    shutil.rmtree(backups.backup_dir(project_path))
    backups.backup_dir(project_path).write_text("a file where the backups folder goes")
    before = sha(project_path)
    result = cli("restore", str(project_path), "--from", str(elsewhere))
    assert result.returncode == 2 and "Nothing was restored" in result.stderr, result.stderr
    assert sha(project_path) == before and "current" in live_notes(project_path)


def _old_backup(path: Path, language: str) -> Path:
    """A backup written before projects had an id (schema 6), of a project of ``language``."""
    return old_project(path, 6, language=language)


def test_an_old_backup_without_an_id_is_judged_by_its_language(project_path: Path, tmp_path: Path) -> None:
    """Backups made before project ids: the demo language's is refused, the project's own is restored."""
    demo = _old_backup(tmp_path / "demo.grammarlens-backup", "Demo")
    before = sha(project_path)
    refused = cli("restore", str(project_path), "--from", str(demo))
    assert refused.returncode == 2 and "another project (Demo, id none)" in refused.stderr
    assert sha(project_path) == before
    own = _old_backup(tmp_path / "own.grammarlens-backup", "Moloko")
    assert cli("restore", str(project_path), "--from", str(own)).returncode == 0
    assert cli("restore", str(project_path), "--from", str(demo), "--other-project", "none").returncode == 0
