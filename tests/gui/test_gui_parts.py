"""GUI building blocks on their own: the demo grammar, the PDF view, workers, models, settings.

Offscreen Qt; any unexpected Qt warning fails the test.
"""

from __future__ import annotations

import threading

import pymupdf
import pytest

from core.errors import Cancelled, PdfError
from core.models import Rect

pytestmark = [
    pytest.mark.gui,
    pytest.mark.qt_log_level_fail("WARNING"),
    # The offscreen platform plugin says this whenever a dialog opens; it is about the plugin, not us.
    pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints\(\)"),
]

BIG_GRAMMAR = "078_Papuan_Malay.pdf"  # 770 pages


# --- the demo grammar ------------------------------------------------------------------
def test_demo_grammar_has_roman_then_arabic_labels_running_heads_and_examples(tmp_path):
    from core.demo import FRONT_MATTER_PAGES, write_demo_grammar

    path = write_demo_grammar(tmp_path / "demo.pdf")
    with pymupdf.open(path) as doc:
        labels = [page.get_label() for page in doc]
        assert labels[:FRONT_MATTER_PAGES] == ["i", "ii", "iii"]
        assert labels[FRONT_MATTER_PAGES:FRONT_MATTER_PAGES + 3] == ["1", "2", "3"]
        text = "\n".join(page.get_text() for page in doc)
    assert "subject-object-verb (SOV)" in text
    assert "(4)" in text and "Maalo-NOM" in text  # numbered interlinear examples
    # a running head on a page that does not open a chapter: printed number plus chapter title
    assert any(f"{n}    " in text or f"    {n}" in text for n in range(2, 9))


def test_demo_project_ingests_with_printed_pages_and_a_word_order_paragraph(demo_project):
    from core.models import ParagraphKind
    from core.store import open_project, repository

    with open_project(demo_project) as project:
        paragraphs = repository.list_paragraphs(project)
    word_order = [p for p in paragraphs if "subject-object-verb (SOV)" in p.text]
    assert len(word_order) == 1
    assert word_order[0].page_label == "6" and word_order[0].rects
    assert any(p.kind is ParagraphKind.EXAMPLE for p in paragraphs)
    assert not any(p.text.strip().startswith("4 Word order") and p.kind is ParagraphKind.PROSE for p in paragraphs)


# --- the PDF view ----------------------------------------------------------------------
def test_pdf_view_renders_only_visible_pages_of_a_long_grammar(qtbot, shared_dir):
    from gui.pdf.pdf_view import PdfView

    view = PdfView()
    qtbot.addWidget(view)
    view.resize(700, 900)
    view.show()
    with qtbot.waitSignal(view.pageRendered, timeout=5000) as first:
        view.load(shared_dir / "grammars" / BIG_GRAMMAR)
    assert first.args == [1]
    assert view.page_count == 770
    qtbot.waitUntil(lambda: not view.renderer.rendering, timeout=5000)
    assert len(view.renderer.rendered_pages()) <= 4  # lazily rendered, not 770 pages
    with qtbot.waitSignal(view.pageRendered, check_params_cb=lambda p: p == 400, timeout=5000):
        view.go_to_page(400)
    assert view.current_page == 400


def test_pdf_view_highlights_sit_on_the_paragraph_rects_and_zoom_keeps_the_page(qtbot, tmp_path):
    from core.demo import write_demo_grammar
    from gui.pdf.pdf_view import Highlight, PdfView

    view = PdfView()
    qtbot.addWidget(view)
    view.resize(600, 500)
    view.show()
    view.load(write_demo_grammar(tmp_path / "d.pdf"))
    rect = Rect(7, 50.0, 120.0, 370.0, 190.0)
    view.set_highlights([Highlight((rect,), "cited", 1), Highlight((Rect(5, 50, 60, 300, 90),), "evidence", 2)])
    view.show_rects((rect,))
    assert view.current_page == 7
    (cited,) = [i for i in view.overlays.highlights if i.data(0) == "cited"]
    assert cited.parentItem() is view.pages.item(7)  # drawn on page 7
    assert cited.rect().getCoords() == (50.0, 120.0, 370.0, 190.0)
    (outline,) = view.overlays.selected
    on_screen = view.mapFromScene(outline.sceneBoundingRect()).boundingRect()
    assert view.viewport().rect().intersects(on_screen)
    view.set_zoom(2.0)
    assert view.current_page == 7
    with pytest.raises(PdfError):
        broken = tmp_path / "broken.pdf"
        broken.write_bytes(b"%PDF-1.7\nthis is not really a PDF")
        view.load(broken)
    assert view.page_count == 11  # the failed load left the shown grammar in place


# --- workers ---------------------------------------------------------------------------
def test_worker_delivers_result_error_and_cancel_on_the_gui_thread(qtbot):
    from PySide6.QtCore import QThread

    from gui.common.workers import WorkerPool

    pool = WorkerPool()
    seen: dict[str, object] = {}

    def on_result(value):
        seen["result"] = value
        seen["gui_thread"] = QThread.currentThread() is pool.thread()

    pool.start(lambda progress: threading.current_thread().name, on_result=on_result,
               on_finished=lambda: seen.__setitem__("finished", 1))
    qtbot.waitUntil(lambda: "finished" in seen, timeout=3000)  # finished comes after result, always
    assert seen["gui_thread"] is True and seen["result"] != threading.main_thread().name

    def boom(progress):
        raise ValueError("bad")

    pool.start(boom, on_error=lambda exc: seen.__setitem__("error", exc),
               on_finished=lambda: seen.__setitem__("finished2", 1))
    qtbot.waitUntil(lambda: "finished2" in seen, timeout=3000)
    assert isinstance(seen["error"], ValueError)

    started = threading.Event()

    def long_job(progress):
        started.set()
        for i in range(10_000):
            progress.step(i, 10_000)
            threading.Event().wait(0.001)
        return "done"

    w = pool.start(long_job, on_result=lambda v: seen.__setitem__("long", v),
                   on_cancelled=lambda: seen.__setitem__("cancelled", True))
    assert started.wait(3)
    with qtbot.waitSignal(w.signals.finished, timeout=3000):
        w.cancel()
    assert seen.get("cancelled") is True and "long" not in seen
    assert pool.shutdown(3000) and pool.live == []


def test_progress_cancel_raises_cancelled_in_core_code():
    from core.progress import Progress

    progress = Progress()
    progress.cancel()
    with pytest.raises(Cancelled):
        progress.step(1, 2)


# --- item models -----------------------------------------------------------------------
def test_evidence_model_passes_qt_model_checks_and_marks_cited_rows(qtmodeltester, demo_project):
    from PySide6.QtCore import Qt

    from core.retrieval import Hit
    from core.store import open_project, repository
    from gui.features.evidence_model import EvidenceModel

    with open_project(demo_project) as project:
        paragraphs = repository.list_paragraphs(project)[:5]
    model = EvidenceModel()
    model.set_hits([Hit(i + 1, 1.0 / (i + 1), p) for i, p in enumerate(paragraphs)], {paragraphs[1].id})
    qtmodeltester.check(model)
    assert model.rowCount() == 5 and model.columnCount() == 5
    assert model.data(model.index(1, 0)) == "2 ✓"
    assert model.data(model.index(0, 1)) == paragraphs[0].page_label
    assert model.data(model.index(1, 0), Qt.ItemDataRole.BackgroundRole) is not None
    assert model.data(model.index(0, 0), Qt.ItemDataRole.BackgroundRole) is None


def test_feature_model_passes_qt_model_checks(qtmodeltester):
    from core.catalog import load_catalog
    from gui.features.feature_model import FeatureListModel

    model = FeatureListModel()
    model.set_features(load_catalog().search("subject object verb"))
    qtmodeltester.check(model)
    assert model.row_of("81A") >= 0


# --- settings --------------------------------------------------------------------------
def test_settings_round_trip_and_the_key_never_lands_in_the_settings_file(gui_store, tmp_path):
    from core.llm.settings import LlmSettings
    from core.retrieval.settings import RetrievalSettings
    from gui.common.settings import AppSettings, get_api_key, load_settings, save_settings, set_api_key

    settings = AppSettings(LlmSettings(model="llama3", base_url="http://127.0.0.1:9/v1", temperature=0.5),
                           RetrievalSettings(reranker=None, bm25_top=40, final_top=10, budget_tokens=3000),
                           reviewer="Ana")
    save_settings(settings, gui_store)
    assert load_settings(gui_store) == settings
    set_api_key(settings, "sk-secret-value-123")
    assert get_api_key(settings) == "sk-secret-value-123"
    gui_store.sync()
    assert "sk-secret" not in (tmp_path / "grammarlens.ini").read_text(encoding="utf-8")
