"""Open grammar PDF…: which project a grammar PDF belongs to, and where each file chooser starts.

Why a module of its own: "open this PDF" must never ask a newcomer to invent a project file name
first, never add the PDF to the demo by mistake, and never make a second project for a PDF that
already has one.  So a PDF's project lies beside it (``ulwa.pdf`` → ``ulwa.grammarlens``): that file
is opened when it holds this very PDF (same sha256); when it holds something else the next free
name is taken (``ulwa-2.grammarlens``, and so on, each checked the same way); when the PDF's folder
cannot be written (a read-only share, a CD, a folder its owner made read-only) the project goes to
the data folder's ``projects`` instead.  The decision is plain data, tested without a window.

The choosers start where the files are: the open project's folder or its grammar's folder, or the
folder of the last PDF opened, else the data folder; never the home folder nor the program's own.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QSettings

from core.errors import GrammarLensError
from core.store import PROJECT_SUFFIX, open_project, repository
from core.store.ocr_pages import count_ocr_pages
from gui.common import projects
from gui.common.window_state import WindowState

LAST_PDF_FOLDER_KEY = "paths/last_pdf_folder"
MAX_TRIES = 1000  # ulwa-2 … ulwa-1000: beyond that something else is wrong
_SIBLINGS = ("", "-wal", "-shm", "-journal")


@dataclass(frozen=True)
class GrammarProject:
    """The project a PDF goes to: an existing one that holds it, or a free name for a new one."""

    path: Path
    holds_pdf: bool  # true: open it as it is; false: a new project, the PDF is read into it
    beside_pdf: bool  # false: the PDF's folder is not writable, so it lies in the data folder

    @property
    def note(self) -> str:
        """What the person should know about where the project went (empty when it lies beside the PDF)."""
        if self.beside_pdf:
            return ""
        return f"The PDF's folder cannot be written to, so the project is kept in {self.path.parent}."


def digest_of(pdf: Path) -> str | None:
    """The PDF's sha256, as ingestion stores it; None when it cannot be read (ingestion then says why)."""
    from core.ingest.pdf_open import sha256_of

    try:
        return sha256_of(pdf) if pdf.is_file() else None
    except (OSError, GrammarLensError):
        return None


def folder_writable(folder: Path) -> bool:
    """True when new files may be made in ``folder``.

    A folder whose owner took every write permission away is treated as read-only even for a
    superuser, who could write there anyway: nobody asked for a project to appear in it.
    """
    try:
        mode = folder.stat().st_mode
    except OSError:
        return False
    return stat.S_ISDIR(mode) and bool(mode & 0o222) and os.access(folder, os.W_OK | os.X_OK)


def _name_free(path: Path) -> bool:
    return not any(Path(f"{path}{suffix}").exists() for suffix in _SIBLINGS)


def holds_pdf(project_path: Path, digest: str) -> bool:
    """True when the project at ``project_path`` holds the PDF with this sha256 (read-only look, no backup)."""
    try:
        with open_project(project_path, readonly=True, backup=False) as project:
            return repository.find_document_by_sha256(project, digest) is not None
    except GrammarLensError:  # not a project, damaged, locked or newer: certainly not this PDF's
        return False


def reading_pdf(project_path: Path, digest: str) -> int:
    """Pages of the PDF ``digest`` that an interrupted reading left in the project (read-only look)."""
    try:
        with open_project(project_path, readonly=True, backup=False) as project:
            return count_ocr_pages(project, digest)
    except (GrammarLensError, sqlite3.Error):  # not a project, or one from before OCR pages were kept
        return 0


def project_for_grammar(pdf: Path, digest: str | None = None) -> GrammarProject:
    """The project of ``pdf``: beside it (or in the data folder), found by its sha256 or given a free name."""
    beside = folder_writable(pdf.parent)
    folder = pdf.parent if beside else projects.projects_dir()
    stem = pdf.stem.strip() or "grammar"
    for n in range(1, MAX_TRIES + 1):
        candidate = folder / f"{stem}{'' if n == 1 else f'-{n}'}{PROJECT_SUFFIX}"
        if _name_free(candidate):
            return GrammarProject(candidate, False, beside)
        if digest is not None and candidate.is_file() and holds_pdf(candidate, digest):
            return GrammarProject(candidate, True, beside)
        if digest is not None and candidate.is_file() and reading_pdf(candidate, digest):
            return GrammarProject(candidate, False, beside)  # a reading stopped half-way: it continues there
    return GrammarProject(projects.project_for_pdf(pdf), False, False)  # a thousand namesakes: the data folder


# ---------------------------------------------------------------------- where the choosers start
def _real_project(state: WindowState) -> Path | None:
    """The open project, unless it is the demo (whose folder is the app's, not the linguist's)."""
    path = state.project_path
    return None if path is None or projects.is_demo_project(path) else path


def project_start(state: WindowState) -> Path:
    """New project / Open project: the open project's folder, else the data folder's projects."""
    path = _real_project(state)
    return path.parent if path is not None and path.parent.is_dir() else projects.projects_dir()


def pdf_start(state: WindowState, store: QSettings, *, project_first: bool = False) -> Path:
    """A PDF chooser: the folder of the last PDF opened, or of the open project's grammar, or the project's.

    ``project_first`` (Add grammar PDF…: another volume of the open project's language) looks
    beside the open project's grammar before the last PDF's folder.
    """
    last = str(store.value(LAST_PDF_FOLDER_KEY, "") or "")
    remembered = [Path(last)] if last else []
    project = _real_project(state)
    around: list[Path] = []
    if project is not None:
        grammar = state.document or (state.documents[0] if state.documents else None)
        around = ([Path(grammar.path).parent] if grammar is not None and grammar.path else []) + [project.parent]
    for folder in (around + remembered) if project_first else (remembered + around):
        if folder.is_dir():
            return folder
    return project_start(state)


def remember_pdf_folder(store: QSettings, pdf: Path) -> None:
    """The next PDF chooser starts in this PDF's folder."""
    store.setValue(LAST_PDF_FOLDER_KEY, str(pdf.resolve().parent))
