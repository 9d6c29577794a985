"""While a project is open, only SQLite opens its files in this process (core.store.file_guard).

Closing any descriptor of a file drops every POSIX lock the process holds on it; the guard makes
a Python ``open()`` of an open project (or of its -wal/-shm) fail before the descriptor exists, and
the store refuses to write when the file was swapped or its -wal deleted under it.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from core import coding
from core.errors import GrammarLensError, ProjectError
from core.ingest.pdf_open import open_pdf
from core.store import file_guard, open_project
from tests.process_locks import locks_on

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def live(tmp_path: Path):
    project = open_project(tmp_path / "live.grammarlens", create=True)
    project.conn.execute("SELECT count(*) FROM decisions").fetchone()
    yield project
    project.close()


def _open_and_close(path) -> None:
    """A plain ``open()`` (the guard's audit hook refuses it before the file exists as an object)."""
    with open(path, "rb"):
        pass


@pytest.mark.parametrize("how", [
    _open_and_close,
    lambda p: os.open(p, os.O_RDONLY),
    lambda p: Path(p).read_bytes(),
    lambda p: shutil.copy(p, str(p) + ".copy"),
    lambda p: _open_and_close(str(p) + "-wal"),
    lambda p: _open_and_close(str(p) + "-shm"),
], ids=["open", "os.open", "read_bytes", "shutil.copy", "wal", "shm"])
def test_python_cannot_open_an_open_project_and_its_locks_stay(live, how) -> None:
    if Path("/proc/locks").exists():
        assert locks_on(live.path)
        before = locks_on(live.path)
    with pytest.raises(ProjectError, match="open GrammarLens project"):
        how(live.path)
    if Path("/proc/locks").exists():
        assert locks_on(live.path) == before


def test_the_guard_follows_other_names_of_the_file_and_ends_with_the_connection(live, tmp_path: Path) -> None:
    link = tmp_path / "other-name.grammarlens"
    link.symlink_to(live.path)
    with pytest.raises(ProjectError):
        _open_and_close(link)
    live.close()
    assert not file_guard.is_open(live.path)
    with open(live.path, "rb") as fh:  # closed: an ordinary file again
        assert fh.read(16) == b"SQLite format 3\x00"


def test_an_open_project_is_refused_as_a_grammar_pdf(live) -> None:
    with pytest.raises(GrammarLensError, match="cannot be used as a grammar PDF"):
        open_pdf(live.path)


def test_reading_a_grammars_record_never_hands_an_open_project_to_mupdf(live) -> None:
    """The exports' PDF record (core.store.document_sources) skipped the guard; MuPDF's close dropped the locks."""
    from core.store.document_sources import pdf_record

    before = locks_on(live.path) if Path("/proc/locks").exists() else None
    assert pdf_record(str(live.path)) == {}
    if before is not None:
        assert before and locks_on(live.path) == before


def test_only_the_guarded_opens_call_mupdf_on_a_path() -> None:
    """Every MuPDF open of a user's file goes through core.ingest.pdf_open.open_pdf (issue 29).

    The one exception is the store's record reader, which cannot import ingest and checks the guard itself
    (the test above); ``pymupdf.open()`` with no argument makes a new, empty document and is allowed.
    """
    allowed = {"core/ingest/pdf_open.py", "core/store/document_sources.py"}
    found = []
    for folder in ("core", "gui", "cli", "bench"):
        for path in sorted((REPO / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            for match in re.finditer(r"\b(?:pymupdf|fitz)\.(?:open|Document)\((?!\))", text):
                found.append(f"{path.relative_to(REPO).as_posix()}:{text.count(chr(10), 0, match.start()) + 1}")
    assert [f for f in found if f.split(":")[0] not in allowed] == []


def test_a_write_is_refused_when_the_wal_was_deleted_under_the_connection(live) -> None:
    coding.code(live, "GB020", "1")
    os.unlink(f"{live.path}-wal")  # what a second process does once it believes it is the last user
    with pytest.raises(ProjectError, match="write-ahead log .* was deleted"):
        coding.code(live, "GB020", "0")


def test_a_write_is_refused_when_the_file_was_replaced_under_the_connection(live, tmp_path: Path) -> None:
    other = open_project(tmp_path / "other.grammarlens", create=True)
    other.close()
    os.replace(tmp_path / "other.grammarlens", live.path)
    with pytest.raises(ProjectError, match="replaced or moved"):
        coding.code(live, "GB020", "0")


def test_no_file_dialog_is_built_outside_gui_file_dialogs() -> None:
    """Qt's stock dialogs and icon providers open files to sniff them: only gui/common/file_dialogs.py may build one."""
    offenders = []
    pattern = re.compile(r"QFileDialog|QFileIconProvider|QAbstractFileIconProvider|QMimeDatabase")
    for source in sorted((REPO / "gui").rglob("*.py")):
        if source.name == "file_dialogs.py":
            continue
        for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), start=1):
            if pattern.search(line):
                offenders.append(f"{source.relative_to(REPO)}:{number}: {line.strip()}")
    assert offenders == []
