"""Bad PDFs and bad project files: one clear message each, and nothing half-written or touched."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
from pathlib import Path

import pymupdf
import pytest

from core.errors import Cancelled, PdfError, ProjectError
from core.ingest import ingest
from core.ingest.pdf_open import ocr_available
from core.progress import Progress
from core.store import create_project, open_project
from core.store.repository import list_documents, list_paragraphs
from tests.fixtures_ingest import SampleBook, write_sample_book


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _project_with_one_book(tmp_path: Path) -> Path:
    path = tmp_path / "kept.grammarlens"
    with create_project(path) as project:
        ingest(project, write_sample_book(tmp_path / "first.pdf").path)
    return path


def _assert_unchanged(project_path: Path, documents: int, paragraphs: int) -> None:
    with open_project(project_path) as project:
        assert len(list_documents(project)) == documents
        assert len(list_paragraphs(project)) == paragraphs
        assert project.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def _encrypt(source: Path, target: Path, *, user_pw: str, owner_pw: str) -> Path:
    with pymupdf.open(source) as doc:
        doc.save(target, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw=user_pw, owner_pw=owner_pw,
                 permissions=pymupdf.PDF_PERM_PRINT)
    return target


def test_a_user_password_is_refused_with_advice(sample_book: SampleBook, tmp_path: Path) -> None:
    project_path = _project_with_one_book(tmp_path)
    locked = _encrypt(sample_book.path, tmp_path / "locked.pdf", user_pw="secret", owner_pw="owner")
    with open_project(project_path) as project, pytest.raises(PdfError) as info:
        ingest(project, locked)
    assert "password" in info.value.message and "unprotected copy" in info.value.hint
    _assert_unchanged(project_path, 1, 19)


def test_an_owner_only_password_opens_and_ingests(sample_book: SampleBook, tmp_path: Path) -> None:
    restricted = _encrypt(sample_book.path, tmp_path / "restricted.pdf", user_pw="", owner_pw="owner")
    with pymupdf.open(restricted) as doc:
        assert doc.is_encrypted or doc.metadata.get("encryption")
    with create_project(tmp_path / "p.grammarlens") as project:
        result = ingest(project, restricted)
        assert result.paragraphs == len(sample_book.truth)


@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty", "not-a-pdf", "folder"])
def test_broken_files_get_one_clear_message(sample_book: SampleBook, tmp_path: Path, damage: str) -> None:
    project_path = _project_with_one_book(tmp_path)
    target = tmp_path / f"{damage}.pdf"
    data = sample_book.path.read_bytes()
    if damage == "truncated":
        target.write_bytes(data[: len(data) // 3])
    elif damage == "garbage":
        target.write_bytes(b"%PDF-1.7\n" + os.urandom(4000))
    elif damage == "empty":
        target.write_bytes(b"")
    elif damage == "not-a-pdf":
        target.write_text("Grammar of Teshi, chapter 1\n" * 50, encoding="utf-8")
    else:
        target.mkdir()
    with open_project(project_path) as project, pytest.raises(PdfError) as info:
        ingest(project, target)
    message = str(info.value)
    assert target.name in message and "\n" in message  # what happened, then what to do
    assert "Traceback" not in message
    _assert_unchanged(project_path, 1, 19)


def _scanned_pdf(path: Path, pages: int = 3) -> Path:
    """Pages that carry only a picture of text, like a scanned book."""
    with pymupdf.open() as source:
        page = source.new_page(width=300, height=400)
        page.insert_text((40, 80), "Chapter 1. Word order is SOV.", fontsize=14)
        pixmap = page.get_pixmap(dpi=100)
    with pymupdf.open() as doc:
        for _ in range(pages):
            doc.new_page(width=300, height=400).insert_image(pymupdf.Rect(0, 0, 300, 400), pixmap=pixmap)
        doc.save(path)
    return path


def test_a_scanned_pdf_says_ocr_is_needed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # a machine without Tesseract
    assert not ocr_available()
    project_path = _project_with_one_book(tmp_path)
    with open_project(project_path) as project, pytest.raises(PdfError) as info:
        ingest(project, _scanned_pdf(tmp_path / "scan.pdf"))
    assert "OCR" in info.value.message and "tesseract" in info.value.hint.lower()
    _assert_unchanged(project_path, 1, 19)


@pytest.mark.skipif(not ocr_available(), reason="needs Tesseract (apt-get install tesseract-ocr)")
def test_a_scanned_pdf_is_read_through_ocr_when_tesseract_exists(tmp_path: Path) -> None:
    with create_project(tmp_path / "p.grammarlens") as project:
        ingest(project, _scanned_pdf(tmp_path / "scan.pdf"))
        assert any("SOV" in p.text for p in list_paragraphs(project))


@pytest.mark.slow
def test_a_2000_page_pdf_ingests(tmp_path: Path) -> None:
    path = tmp_path / "huge.pdf"
    with pymupdf.open() as doc:
        for n in range(2000):
            page = doc.new_page(width=420, height=600)
            page.insert_text((50, 50), "A grammar of Teshi", fontsize=9)
            page.insert_text((200, 565), str(n + 1), fontsize=9)
            for line in range(6):
                page.insert_text((50, 100 + 14 * line), f"Line {line} of page {n + 1} says the order is verb-final.",
                                 fontsize=10)
        doc.save(path)
    with create_project(tmp_path / "p.grammarlens") as project:
        result = ingest(project, path)
        assert result.pages == 2000
        labels = dict(project.conn.execute("SELECT pdf_page, page_label FROM pages").fetchall())
    assert labels[1] == "1" and labels[2000] == "2000"
    # nothing marks where these paragraphs end, but none may run over more than one page break
    assert result.paragraphs >= 1000
    with open_project(tmp_path / "p.grammarlens") as project:
        assert max(len({r.pdf_page for r in p.rects}) for p in list_paragraphs(project)) <= 2


def test_cancelling_an_ingest_keeps_the_project_as_it_was(tmp_path: Path) -> None:
    project_path = _project_with_one_book(tmp_path)
    second = write_sample_book(tmp_path / "second.pdf", columns=2)
    progress = Progress(callback=lambda done, total, message: progress.cancel() if done >= 1 else None)
    with open_project(project_path) as project, pytest.raises(Cancelled):
        ingest(project, second.path, progress=progress)
    _assert_unchanged(project_path, 1, 19)


# -- project files ------------------------------------------------------------------------------

def test_a_file_that_is_not_a_project_is_left_untouched(tmp_path: Path) -> None:
    other = tmp_path / "notes.grammarlens"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (text TEXT)")
        conn.execute("INSERT INTO notes VALUES ('my field notes')")
    conn.close()
    before = _digest(other)
    with pytest.raises(ProjectError) as info:
        open_project(other)
    assert "not a GrammarLens project" in info.value.message
    assert _digest(other) == before


@pytest.mark.parametrize("content", [b"hello, not a database" * 20, b""], ids=["text", "empty"])
def test_a_non_sqlite_file_is_refused(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "x.grammarlens"
    path.write_bytes(content)
    with pytest.raises(ProjectError):
        open_project(path)
    assert path.read_bytes() == content


def test_a_corrupt_project_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = _project_with_one_book(tmp_path)
    data = bytearray(path.read_bytes())
    for offset in range(4096 * 3, min(len(data), 4096 * 6)):  # smash some pages after the header
        data[offset] = 0xA5
    path.write_bytes(bytes(data))
    before = _digest(path)
    with pytest.raises(ProjectError) as info:
        open_project(path)
    assert "damaged" in info.value.message or "not a GrammarLens" in info.value.message
    assert _digest(path) == before


def test_a_project_sqlite_cannot_write_refuses_every_write_for_every_user(tmp_path: Path) -> None:
    """Root and other users alike (it was skipped as root and failed for others, issue 29).

    File permissions stop only other users, so the condition is one no user gets past: a folder where
    SQLite keeps the project's shared index (``-shm``).  The project opens, reads work, and a write
    says "read-only" with the path and changes nothing.
    """
    path = _project_with_one_book(tmp_path)
    with open_project(path) as project:
        paragraphs = len(list_paragraphs(project))
    before = _digest(path)
    (tmp_path / f"{path.name}-shm").mkdir()
    with open_project(path) as project:
        assert len(list_paragraphs(project)) == paragraphs
        with pytest.raises(ProjectError) as info:
            with project.transaction():
                project.conn.execute("DELETE FROM paragraphs")
    assert info.value.message == f"Project file {path} is read-only."
    assert info.value.hint.startswith("Nothing was written.")
    assert _digest(path) == before
    (tmp_path / f"{path.name}-shm").rmdir()
    _assert_unchanged(path, 1, paragraphs)


def test_a_folder_where_the_projects_log_belongs_is_named_in_the_error(tmp_path: Path) -> None:
    """SQLite only says "unable to open database file"; the error names the folder in the way, for root too."""
    path = _project_with_one_book(tmp_path)
    with open_project(path) as project:
        paragraphs = len(list_paragraphs(project))
    before = _digest(path)
    wal = tmp_path / f"{path.name}-wal"
    wal.mkdir()
    with pytest.raises(ProjectError) as info:
        open_project(path)
    assert f"{wal.name} beside it is a folder" in info.value.message
    assert str(wal) in info.value.hint
    assert _digest(path) == before
    wal.rmdir()
    _assert_unchanged(path, 1, paragraphs)


def test_a_read_only_project_refuses_writes_even_as_root(tmp_path: Path) -> None:
    """Without write permission another user gets a read-only project by itself; root asks for one (``readonly``)."""
    path = _project_with_one_book(tmp_path)
    path.chmod(stat.S_IRUSR)
    before = _digest(path)
    try:
        with open_project(path, readonly=os.access(path, os.W_OK)) as project, \
                pytest.raises(ProjectError) as info:
            assert project.readonly
            with project.transaction():
                project.conn.execute("DELETE FROM paragraphs")
        assert "read-only" in info.value.message and str(path) in info.value.message
    finally:
        path.chmod(stat.S_IRUSR | stat.S_IWUSR)
    assert _digest(path) == before


def test_a_locked_project_gives_a_clear_error_and_loses_nothing(tmp_path: Path, sample_book: SampleBook) -> None:
    path = _project_with_one_book(tmp_path)
    blocker = sqlite3.connect(path, timeout=0.1)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(ProjectError) as info:
            with open_project(path) as project:
                ingest(project, write_sample_book(tmp_path / "other.pdf", columns=2).path)
        assert "locked" in info.value.message
    finally:
        blocker.rollback()
        blocker.close()
    _assert_unchanged(path, 1, 19)


def test_a_project_from_a_newer_grammarlens_is_refused(tmp_path: Path) -> None:
    path = _project_with_one_book(tmp_path)
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 999")
    conn.close()
    with pytest.raises(ProjectError) as info:
        open_project(path)
    assert "newer GrammarLens" in info.value.message
