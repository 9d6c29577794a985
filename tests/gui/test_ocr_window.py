"""A scanned grammar opened in the window: OCR progress with pages/s and time left, Cancel keeps the pages
read, opening the PDF again continues; low-confidence evidence is marked in the evidence list."""

from __future__ import annotations

import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from core.ingest.page_reading import OcrOptions
from core.store import PROJECT_SUFFIX, open_project
from core.store.ocr_pages import count_ocr_pages
from core.store.repository import list_documents, list_paragraphs
from gui.common.window_state import WindowState
from gui.features.evidence_model import SNIPPET_COLUMN
from gui.features.evidence_panel import EvidencePanel
from gui.project.ocr_options import OcrOptionsDialog, load_ocr_options, save_ocr_options
from tests.fixtures_ingest import write_sample_book
from tests.fixtures_ocr import rasterise, require_tesseract
from tests.gui.test_evidence_panel import Row

SLOW_MS = 180_000


def _keep_shot(widget, path: Path) -> None:
    """Save a screenshot; GRAMMARLENS_SHOTS names a folder that keeps a copy for a person to look at."""
    widget.grab().save(str(path))
    folder = os.environ.get("GRAMMARLENS_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(folder) / path.name)


@pytest.mark.slow
def test_a_scan_read_in_the_window_shows_progress_cancels_keeping_pages_and_resumes(qtbot, main_window, tmp_path):
    require_tesseract("eng")
    window = main_window
    save_ocr_options(window.store, OcrOptions(language="eng"))
    book = write_sample_book(tmp_path / "teshi.pdf", labels=False)
    scan = rasterise(book.path, tmp_path / "teshi scan.pdf")
    window.resize(1280, 800)
    window.show()
    window.open_pdf(scan)
    qtbot.waitUntil(lambda: "pages/s" in window.task_bar.label.text(), timeout=SLOW_MS)
    assert " left, " in window.task_bar.label.text() and "(OCR eng, 300 dpi)" in window.task_bar.label.text()
    _keep_shot(window, tmp_path / "ocr_progress.png")
    with qtbot.waitSignal(window.ingestFinished, timeout=SLOW_MS) as finished:
        window.task_bar.cancel()
    assert finished.args == [False]
    assert "kept" in window.statusBar().currentMessage()
    project = tmp_path / f"teshi scan{PROJECT_SUFFIX}"
    with open_project(project, readonly=True) as db:
        kept = count_ocr_pages(db)
        assert list_documents(db) == [] and kept >= 1

    with qtbot.waitSignal(window.ingestFinished, timeout=SLOW_MS) as finished:
        window.open_pdf(scan)  # the same PDF again: its project continues
    assert finished.args == [True]
    assert "OCR: 5 page(s) in English (eng)" in window.statusBar().currentMessage()
    assert window.state.project_path == project
    with open_project(project, readonly=True) as db:
        paragraphs = list_paragraphs(db)
    assert any("verb-final language" in p.text for p in paragraphs)
    _keep_shot(window, tmp_path / "ocr_done.png")


def test_low_confidence_evidence_is_marked_in_the_list(qtbot, tmp_path, demo_project) -> None:
    with open_project(demo_project) as project:
        paragraphs = [p for p in list_paragraphs(project) if len(p.text) > 150][:4]
    paragraphs[1] = replace(paragraphs[1], ocr_confidence=52.0)
    paragraphs[2] = replace(paragraphs[2], ocr_confidence=93.0)
    state = WindowState()
    state.choose_feature(object())  # type: ignore[arg-type] - any feature
    state.set_hits([Row(i + 1, 4.0 / (i + 1), p) for i, p in enumerate(paragraphs)])
    panel = EvidencePanel()
    qtbot.addWidget(panel)
    panel.resize(560, 300)
    panel.show()
    panel.show_evidence(state)
    model = panel.model
    low, sure = model.index(1, SNIPPET_COLUMN), model.index(2, SNIPPET_COLUMN)
    assert low.data().startswith("[OCR 52] ") and not sure.data().startswith("[OCR")
    assert "low confidence (52/100)" in low.data(Qt.ItemDataRole.ToolTipRole)
    assert low.data(Qt.ItemDataRole.ForegroundRole) is not None and sure.data(Qt.ItemDataRole.ForegroundRole) is None
    _keep_shot(panel, tmp_path / "ocr_evidence.png")


def test_the_ocr_options_dialog_round_trips_through_the_settings(qtbot, gui_store) -> None:
    store = gui_store
    save_ocr_options(store, OcrOptions(mode="force", language="fra", dpi=400))
    dialog = OcrOptionsDialog(load_ocr_options(store))
    qtbot.addWidget(dialog)
    assert dialog.options() == OcrOptions(mode="force", language="fra", dpi=400)
    dialog.mode.setCurrentIndex(dialog.mode.findData("never"))
    dialog.language.setCurrentIndex(0)  # detect
    assert dialog.options() == OcrOptions(mode="never", language=None, dpi=400)
