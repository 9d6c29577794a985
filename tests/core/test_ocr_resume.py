"""An OCR stopped half-way (Cancel, or ``kill -9``) keeps the pages it read, and the next ingest continues."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.errors import Cancelled
from core.ingest.page_reading import OcrOptions
from core.ingest.pipeline import ingest
from core.progress import Progress
from core.store import create_project, open_project
from core.store.repository import list_documents, list_paragraphs
from tests.fixtures_ingest import write_sample_book
from tests.fixtures_ocr import rasterise

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.usefixtures("tesseract_eng")


def _read_at(project: Path) -> dict[int, str]:
    if not project.exists():
        return {}
    conn = sqlite3.connect(f"file:{project}?mode=ro", uri=True)
    try:
        return dict(conn.execute("SELECT pdf_page, read_at FROM ocr_pages WHERE status = 'ok'").fetchall())
    except sqlite3.OperationalError:  # the schema is not there yet
        return {}
    finally:
        conn.close()


@pytest.mark.slow
def test_kill_9_during_ocr_keeps_the_pages_read_and_the_next_ingest_continues(tmp_path: Path) -> None:
    book = write_sample_book(tmp_path / "teshi.pdf", labels=False)
    scan = rasterise(book.path, tmp_path / "scan.pdf")
    project = tmp_path / "scan.grammarlens"
    command = [sys.executable, str(REPO / "main.py"), "ingest", str(scan), "--project", str(project),
               "--ocr-language", "eng", "--ocr-jobs", "1", "--language", "Teshi"]
    proc = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 180
    while proc.poll() is None and time.monotonic() < deadline and len(_read_at(project)) < 2:
        time.sleep(0.05)
    assert proc.poll() is None, "the ingest ended before two pages were read"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    kept = _read_at(project)
    assert 2 <= len(kept) < 5
    conn = sqlite3.connect(project)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 0  # no half document
    conn.close()

    again = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert f"{len(kept)} of them kept from an earlier run" in again.stdout
    after = _read_at(project)
    assert {page: after[page] for page in kept} == kept  # not read a second time
    with open_project(project) as db:
        assert len(list_documents(db)) == 1
        assert any("verb-final language" in p.text for p in list_paragraphs(db))


def test_cancel_during_ocr_keeps_the_pages_read(tmp_path: Path) -> None:
    book = write_sample_book(tmp_path / "teshi.pdf", labels=False)
    scan = rasterise(book.path, tmp_path / "scan.pdf", pages=[0, 2, 3], dpi=200)
    progress = Progress()

    def cancel_after_first_page(done: int, total: int, message: str) -> None:
        if "OCR" in message and done >= 1:
            progress.cancel()

    progress.callback = cancel_after_first_page
    options = OcrOptions(language="eng", jobs=1)
    with create_project(tmp_path / "p.grammarlens") as project:
        with pytest.raises(Cancelled):
            ingest(project, scan, language="Teshi", progress=progress, ocr=options)
        assert list_documents(project) == []
        assert project.conn.execute("SELECT count(*) FROM ocr_pages").fetchone()[0] == 1
        result = ingest(project, scan, language="Teshi", ocr=options)
    assert result.ocr is not None and result.ocr.resumed == 1 and result.ocr.pages == 3
