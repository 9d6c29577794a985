"""A failed first ingest removes the project it created (issue 19): a PDF that cannot be read (encrypted,
scanned, damaged) or whose reading is cancelled leaves no project file, -wal or -shm behind, the window is
as it was (the demo, or nothing, still open) and the error is shown; a project the window did not create
is never removed."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest
from PySide6.QtWidgets import QMessageBox

from core.store import PROJECT_SUFFIX, create_project, open_project
from core.store.repository import list_documents
from gui.common import projects
from tests.fixtures_gui import REAL_GRAMMAR
from tests.fixtures_ingest import write_sample_book

SLOW_MS = 30_000


def _encrypted(tmp_path: Path) -> Path:
    book = write_sample_book(tmp_path / "teshi.pdf").path
    target = tmp_path / "locked grammar.pdf"
    with pymupdf.open(book) as doc:
        doc.save(target, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="owner")
    return target


def _scanned(tmp_path: Path) -> Path:
    """Pages that carry only a picture of text, like a scanned book."""
    with pymupdf.open() as source:
        page = source.new_page(width=300, height=400)
        page.insert_text((40, 80), "Chapter 1. Word order is SOV.", fontsize=14)
        pixmap = page.get_pixmap(dpi=100)
    target = tmp_path / "scanned grammar.pdf"
    with pymupdf.open() as doc:
        for _ in range(3):
            doc.new_page(width=300, height=400).insert_image(pymupdf.Rect(0, 0, 300, 400), pixmap=pixmap)
        doc.save(target)
    return target


def _project_files() -> list[str]:
    """Everything in the folder where the window makes projects for dropped PDFs."""
    folder = projects.data_dir() / "projects"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def _snapshot(window) -> tuple:
    return (window.state.project_path, [d.id for d in window.state.documents], window.windowTitle(),
            window.pdf_view.page_count)


@pytest.mark.parametrize("kind", ["encrypted", "scanned"])
def test_an_unreadable_pdf_dropped_on_the_demo_leaves_no_project_and_the_demo_open(
        qtbot, main_window, demo_project, tmp_path, monkeypatch, kind) -> None:
    monkeypatch.setattr(projects, "demo_project_path", lambda: demo_project)  # the demo is what is open
    monkeypatch.setenv("PATH", str(tmp_path))  # no Tesseract: a scanned book cannot be read
    window = main_window
    with qtbot.waitSignal(window.projectOpened, timeout=5000):
        assert window.open_project(demo_project)
    before = _snapshot(window)
    pdf = _encrypted(tmp_path) if kind == "encrypted" else _scanned(tmp_path)
    finished: list[bool] = []
    window.ingestFinished.connect(finished.append)
    with qtbot.waitSignals([window.errorShown, window.ingestFinished], timeout=SLOW_MS):
        window.ingest_pdf(pdf)
    assert finished == [False]  # nothing added
    box = window.last_message_box
    assert box.isVisible() and pdf.name in box.windowTitle() and box.icon() == QMessageBox.Icon.Warning
    assert ("password" if kind == "encrypted" else "OCR") in box.text() and box.informativeText()
    assert _project_files() == []  # neither the project nor its -wal/-shm
    assert _snapshot(window) == before  # the demo still open and shown
    assert projects.recent_projects(window.store)[0] == demo_project
    box.close()


def test_a_cancelled_first_ingest_with_no_project_open_leaves_nothing(qtbot, main_window, shared_dir) -> None:
    window = main_window
    before = _snapshot(window)
    assert before[0] is None
    pdf = shared_dir / "grammars" / REAL_GRAMMAR
    with qtbot.waitSignal(window.runner.progressed, timeout=SLOW_MS):
        window.ingest_pdf(pdf)
    assert any(name.endswith(PROJECT_SUFFIX) for name in _project_files())  # the job made its project...
    with qtbot.waitSignal(window.ingestFinished, timeout=SLOW_MS) as finished:
        window.task_bar.cancel()  # Esc
    assert finished.args == [False]
    assert _project_files() == []  # ... and removed it again
    assert _snapshot(window) == before
    assert "cancelled" in window.statusBar().currentMessage()


def test_a_failed_ingest_never_removes_a_project_the_window_did_not_create(
        qtbot, main_window, tmp_path) -> None:
    window = main_window
    existing = tmp_path / f"chosen{PROJECT_SUFFIX}"
    create_project(existing).close()  # made by the person (New project…), still empty
    with qtbot.waitSignal(window.ingestFinished, timeout=SLOW_MS):
        window.ingest_pdf(_encrypted(tmp_path), existing)
    window.last_message_box.close()
    with open_project(existing) as project:
        assert list_documents(project) == []  # still there, untouched
    assert window.state.project_path is None


def test_a_readable_pdf_dropped_on_the_demo_gets_its_own_project(qtbot, main_window, demo_project, tmp_path,
                                                                   monkeypatch) -> None:
    monkeypatch.setattr(projects, "demo_project_path", lambda: demo_project)
    window = main_window
    assert window.open_project(demo_project)
    with qtbot.waitSignal(window.projectOpened, timeout=SLOW_MS) as opened:
        window.ingest_pdf(write_sample_book(tmp_path / "teshi.pdf").path)
    made = Path(opened.args[0])
    assert made.parent == projects.data_dir() / "projects" and made.name in _project_files()
    assert len(window.state.documents) == 1
