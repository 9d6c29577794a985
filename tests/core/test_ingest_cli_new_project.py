"""``ingest --project NEW`` never leaves an empty project behind; one that existed is never removed (issue 19).

Real processes (a Ctrl-C is a signal to a process), real PDFs: encrypted, not a PDF, scanned.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.catalog.glottocode import EXAMPLE
from core.models import Language
from core.store import create_project, open_project
from core.store.backups import backup_dir, make_backup
from core.store.repository import get_language, list_documents, set_language
from tests.cli_runs import run_main
from tests.core.test_ingest_bad_input import _encrypt, _scanned_pdf
from tests.fixtures_ingest import SampleBook
from tests.fixtures_shared import GRAMMARS

REPO = Path(__file__).resolve().parents[2]
UNKNOWN_CODE = "newi1234"  # well-formed, not in the bundled WALS/Grambank table


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return run_main(*args, timeout=300, env=env)


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _bad_pdf(kind: str, folder: Path, sample_book: SampleBook) -> Path:
    if kind == "encrypted":
        return _encrypt(sample_book.path, folder / "locked.pdf", user_pw="secret", owner_pw="owner")
    if kind == "not-a-pdf":
        path = folder / "notes.pdf"
        path.write_text("Grammar of Teshi, chapter 1\n" * 50, encoding="utf-8")
        return path
    return _scanned_pdf(folder / "scan.pdf")


@pytest.mark.parametrize("kind", ["encrypted", "not-a-pdf", "scanned"])
def test_a_failed_first_ingest_leaves_no_project(sample_book: SampleBook, tmp_path: Path, kind: str) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    pdf = _bad_pdf(kind, folder, sample_book)
    before = _names(folder)
    no_tesseract = {**os.environ, "PATH": str(tmp_path / "no-bin")}  # the scanned book needs OCR, which is absent
    out = run_cli("ingest", str(pdf), "--project", str(folder / "new.grammarlens"), env=no_tesseract)
    assert out.returncode == 2, out.stderr
    assert "\nerror: " in "\n" + out.stderr and "Traceback" not in out.stderr
    assert {"encrypted": "password", "not-a-pdf": "not a PDF", "scanned": "OCR"}[kind] in out.stderr
    assert _names(folder) == before  # no project, no -wal/-shm, no backups folder


def test_a_failed_ingest_keeps_an_existing_empty_project(sample_book: SampleBook, tmp_path: Path) -> None:
    project = tmp_path / "kept.grammarlens"
    create_project(project).close()
    inode = project.stat().st_ino
    pdf = _bad_pdf("not-a-pdf", tmp_path, sample_book)
    out = run_cli("ingest", str(pdf), "--project", str(project))
    assert out.returncode == 2 and "not a PDF" in out.stderr
    assert project.stat().st_ino == inode
    with open_project(project) as db:  # still a project, still empty
        assert list_documents(db) == []
        assert db.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_backups_folder_that_was_already_there_is_left_alone(sample_book: SampleBook, tmp_path: Path) -> None:
    """A backups folder that was there before the project was made is not this command's to remove."""
    project = tmp_path / "new.grammarlens"
    backup_dir(project).mkdir()
    (backup_dir(project) / "mine.txt").write_text("keep", encoding="utf-8")
    out = run_cli("ingest", str(_bad_pdf("not-a-pdf", tmp_path, sample_book)), "--project", str(project))
    assert out.returncode == 2
    assert not project.exists() and (backup_dir(project) / "mine.txt").read_text(encoding="utf-8") == "keep"


def test_only_what_the_command_made_is_removed(tmp_path: Path) -> None:
    from cli.ingest_commands import _MadeProject

    project = tmp_path / "new.grammarlens"
    db = create_project(project)
    made = _MadeProject(project)
    make_backup(db, "manual")  # a backup taken meanwhile goes with the project it belongs to
    db.close()
    made.remove()
    assert _names(tmp_path) == []

    create_project(project).close()
    made = _MadeProject(project)
    other = tmp_path / "other.grammarlens"
    create_project(other).close()
    os.replace(other, project)  # another program put its own project under the name meanwhile
    made.remove()
    assert project.exists()


@pytest.mark.slow
def test_ctrl_c_during_a_first_ingest_leaves_no_project(tmp_path: Path) -> None:
    pdf = GRAMMARS / "078_Papuan_Malay.pdf"  # about 20 s to read: the Ctrl-C lands mid-way
    project = tmp_path / "new.grammarlens"
    proc = subprocess.Popen([sys.executable, str(REPO / "main.py"), "ingest", str(pdf), "--project", str(project)],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not project.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert project.exists(), "the project was never created"
    time.sleep(0.5)  # into the reading of pages
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Interrupted" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_malformed_glottocode_fails_before_the_pdf_is_read(tmp_path: Path) -> None:
    not_a_pdf = tmp_path / "notes.pdf"
    not_a_pdf.write_text("not a pdf", encoding="utf-8")
    out = run_cli("ingest", str(not_a_pdf), "--project", str(tmp_path / "new.grammarlens"), "--glottocode", "bad!code")
    assert out.returncode == 2
    assert "not a Glottocode" in out.stderr and EXAMPLE in out.stderr  # the code, not the (unread) PDF
    assert "not a PDF" not in out.stderr
    assert _names(tmp_path) == ["notes.pdf"]


def test_ingest_notes_a_glottocode_the_table_does_not_know(sample_book: SampleBook, tmp_path: Path, capsys) -> None:
    from cli import main

    project = tmp_path / "p.grammarlens"
    assert main(["ingest", str(sample_book.path), "--project", str(project), "--glottocode", " NEWI1234"]) == 0
    err = capsys.readouterr().err
    assert f"note: {UNKNOWN_CODE} is not in GrammarLens's WALS/Grambank language table" in err
    with open_project(project) as db:
        assert get_language(db).glottocode == UNKNOWN_CODE  # stored, normalised


def test_language_notes_a_glottocode_the_table_does_not_know(tmp_path: Path, capsys) -> None:
    from cli import main

    project = tmp_path / "p.grammarlens"
    with create_project(project) as db:
        set_language(db, Language("Moloko", "molo1266", "user"))
    assert main(["language", str(project), "--glottocode", UNKNOWN_CODE]) == 0
    captured = capsys.readouterr()
    assert captured.err.startswith(f"note: {UNKNOWN_CODE} is not in") and "glottolog.org" in captured.err
    assert f"glottocode: {UNKNOWN_CODE}" in captured.out
    assert main(["language", str(project), "--glottocode", "molo1266"]) == 0
    assert "note:" not in capsys.readouterr().err  # a known code: nothing to say
