"""Projects crafted or damaged outside GrammarLens (issue 26, finding 12): bad rects, foreign triggers and
views, terminal escape codes, a newline in the name, files far too large for what they are."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
from pathlib import Path

import pytest

from core import coding
from core.store import backups, open_project
from tests.cli_runs import run_main
from tests.fixtures_llm import make_llm_project


def cli(*args: str) -> subprocess.CompletedProcess:
    return run_main(*args, timeout=180, text=False, env={**__import__("os").environ, "HF_HUB_OFFLINE": "1"})


def _sql(path: Path, *statements: str) -> None:
    conn = sqlite3.connect(path)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()


@pytest.fixture
def testish(tmp_path: Path) -> Path:
    holder = make_llm_project(tmp_path / "testish.grammarlens")
    holder.project.close()
    return holder.path


def test_rects_of_the_wrong_shape_are_damage_not_a_crash(testish: Path) -> None:
    _sql(testish, "UPDATE paragraphs SET rects = '[[1, 2]]' WHERE id = (SELECT min(id) FROM paragraphs)")
    for args in (["paragraphs", str(testish)], ["retrieve", str(testish), "--feature", "81A", "--rerank", "none"]):
        result = cli(*args)
        err = result.stderr.decode()
        assert result.returncode == 2, err
        assert "malformed paragraph" in err and "restore" in err and "bug" not in err


def test_a_foreign_trigger_or_view_is_refused_at_opening_and_the_file_left_untouched(testish: Path) -> None:
    _sql(testish, "CREATE TRIGGER wipe AFTER INSERT ON decisions BEGIN DELETE FROM decisions; END")
    before = hashlib.sha256(testish.read_bytes()).hexdigest()
    result = cli("code", str(testish), "--feature", "GB020", "--value", "1")
    assert result.returncode == 2 and b"trigger 'wipe'" in result.stderr and b"never creates" in result.stderr
    assert hashlib.sha256(testish.read_bytes()).hexdigest() == before
    _sql(testish, "DROP TRIGGER wipe", "CREATE VIEW everything AS SELECT * FROM decisions")
    assert b"view 'everything'" in cli("language", str(testish)).stderr
    _sql(testish, "DROP VIEW everything")
    assert cli("code", str(testish), "--feature", "GB020", "--value", "1").returncode == 0  # GrammarLens's own: fine


def test_escape_codes_stored_in_a_project_are_printed_escaped(testish: Path) -> None:
    _sql(testish, "UPDATE language SET name = 'Evil' || char(27) || ']0;pwned' || char(7) || char(27) || '[2J'")
    result = cli("language", str(testish))
    assert result.returncode == 0, result.stderr
    assert b"\x1b" not in result.stdout and b"\x07" not in result.stdout
    assert b"Evil\\x1b]0;pwned\\x07\\x1b[2J" in result.stdout


def test_a_newline_in_the_projects_name_does_not_stop_rotation(tmp_path: Path) -> None:
    path = tmp_path / "two\nlines.grammarlens"
    with open_project(path, create=True) as project:
        for i in range(backups.KEEP_LAST + 3):
            coding.add_note(project, "GB020", f"n{i}")
            backups.make_backup(project, "manual")
    listed = backups.list_backups(path)
    assert len(listed) == backups.KEEP_LAST  # seen, and pruned to the newest five (today's newest among them)
    assert len(list(backups.backup_dir(path).iterdir())) == backups.KEEP_LAST
    assert all("\n" in b.path.name for b in listed)


def test_leftover_partial_files_are_removed_at_the_next_start_but_not_one_in_use(tmp_path: Path) -> None:
    from core.store.file_use import in_use

    path = tmp_path / "ulwa.grammarlens"
    open_project(path, create=True).close()
    folder = backups.backup_dir(path)
    folder.mkdir(exist_ok=True)
    dead = folder / "ulwa.20261201T000000000000Z.open.grammarlens-backup.123.partial"
    dead.write_bytes(b"x" * 1000)
    staged = tmp_path / "ulwa.grammarlens.restoring.99.partial"
    staged.write_bytes(b"y" * 1000)
    busy = folder / "ulwa.20261202T000000000000Z.open.grammarlens-backup.456.partial"
    busy.write_bytes(b"z")
    with in_use(busy):
        open_project(path).close()
        assert not dead.exists() and not staged.exists() and busy.exists()
    open_project(path).close()
    assert not busy.exists()


def test_a_bibtex_file_far_too_large_is_refused_before_it_is_read(testish: Path) -> None:
    result = cli("bibtex", str(testish), "--set", "/dev/zero")
    assert result.returncode == 2 and b"not a regular file" in result.stderr
    big = testish.with_name("big.bib")
    with open(big, "wb") as fh:
        fh.truncate(3 * 2**30)  # sparse: takes no room
    result = cli("bibtex", str(testish), "--set", str(big))
    assert result.returncode == 2 and b"more than the 1 MB" in result.stderr


def test_a_symlink_to_the_project_is_not_a_backup_of_it(tmp_path: Path) -> None:
    """A symlink to a project named as the backup to restore is still the project itself."""
    path = tmp_path / "p.grammarlens"
    open_project(path, create=True).close()
    link = tmp_path / "link.grammarlens-backup"
    link.symlink_to(path)
    from core.errors import ProjectError
    from core.store.restore import restore_backup

    with pytest.raises(ProjectError, match="the project itself"):
        restore_backup(path, link)


def test_an_act_on_a_feature_with_many_pins_does_not_copy_them(tmp_path: Path) -> None:
    """With 10,000 pins every act copied them all (320 KB an act); now only a change of the pins stores pins."""
    from core.models import LabelSource
    from core.store.repository import insert_document

    path = tmp_path / "pins.grammarlens"
    with open_project(path, create=True) as project:
        pages = [(i, str(i), LabelSource.PDF_LABELS, 595.0, 842.0, 100) for i in range(1, 2001)]
        insert_document(project, sha256="1" * 64, file_name="big.pdf", path=str(tmp_path / "big.pdf"), title="Big",
                        page_count=2000, label_source=LabelSource.PDF_LABELS, pdf_page_of_printed_1=1, pages=pages,
                        paragraphs=[])
        coding.pin(project, "GB020", page_labels=[str(i) for i in range(1, 2001)])
        for i in range(10):
            coding.add_note(project, "GB020", f"note {i}")
        coding.code(project, "GB020", "1")
        stored = project.conn.execute("SELECT count(*) FROM decision_pins").fetchone()[0]
        assert stored == 2000  # one copy, shared by the 11 later rows
        current = coding.current(project, "GB020")
        assert current is not None and len(current.pins) == 2000 and current.note == "note 9"
        coding.unpin(project, "GB020", page_labels=["7"])
        assert len(coding.current(project, "GB020").pins) == 1999
        coding.undo(project, "GB020")  # the unpin undone: the 2,000 pins count again
        assert len(coding.current(project, "GB020").pins) == 2000
        assert all(len(d.pins) in (1999, 2000) for d in coding.history(project, "GB020") if d.action != "undo")


def test_a_killed_exports_staging_folder_is_removed_by_the_next_export_but_not_a_live_one(tmp_path: Path) -> None:
    from core.export.staging import staged_folder
    from core.store.file_use import in_use

    target = tmp_path / "export"
    dead = tmp_path / ".export.deadbeef.partial"
    dead.mkdir()
    (dead / "values.csv").write_text("half written", encoding="utf-8")
    live = tmp_path / ".export.cafe0123.partial"
    live.mkdir()
    with in_use(live):  # another export writing at this moment
        with staged_folder(target) as staging:
            (staging / "values.csv").write_text("whole", encoding="utf-8")
        assert not dead.exists() and live.exists()
    assert (target / "values.csv").read_text(encoding="utf-8") == "whole"
