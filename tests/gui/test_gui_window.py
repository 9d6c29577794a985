"""The main window end to end, offscreen: real projects, real PDFs, a real local LLM server.

Any unexpected Qt warning fails a test (``qt_log_level_fail``).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from gui.common.settings import PROVIDER_COMPATIBLE, AppSettings

pytestmark = [
    pytest.mark.gui,
    pytest.mark.qt_log_level_fail("WARNING"),
    # The offscreen platform plugin says this whenever a dialog opens; it is about the plugin, not us.
    pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints\(\)"),
]

SLOW_MS = 20000


def _local_settings(url: str) -> AppSettings:
    # No embedding model: keeps the suite fast; retrieval is BM25 + vocabulary ranking.
    return AppSettings.local_server(url, model="gpt-4o", reranker=None, reviewer="Test Reviewer", timeout_s=10.0)


def _open_with_feature(qtbot, window, path: Path, feature: str = "81A") -> None:
    with qtbot.waitSignal(window.retrievalFinished, timeout=SLOW_MS):
        assert window.open_project(path, feature=feature)


def _click_row(qtbot, window, row: int) -> None:
    view, model = window.evidence_panel.table, window.evidence_panel.model
    view.scrollTo(model.index(row, 3))
    rect = view.visualRect(model.index(row, 3))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def _assert_outline_on(window, paragraph) -> None:
    """The clicked paragraph's page is shown and an outline sits over each of its rectangles."""
    view = window.pdf_view
    first_page = min(r.pdf_page for r in paragraph.rects)
    assert view.current_page in (first_page, first_page - 1, first_page + 1)
    outlines = view.overlays.selected
    assert len(outlines) == len(paragraph.rects)
    for item, rect in zip(outlines, paragraph.rects, strict=True):
        assert item.parentItem() is view.pages.item(rect.pdf_page)
        box = item.rect()
        assert abs(box.left() + 2 - rect.x0) < 0.01 and abs(box.bottom() - 2 - rect.y1) < 0.01
    on_screen = view.mapFromScene(outlines[0].sceneBoundingRect()).boundingRect()
    assert view.viewport().rect().intersects(on_screen)


def test_demo_project_shows_81A_evidence_offline_and_says_how_to_add_a_model(qtbot, main_window, demo_project):
    window = main_window
    _open_with_feature(qtbot, window, demo_project)
    assert window.banner.isVisible() and "local" in window.banner.label.text()
    assert not window.value_panel.classify_button.isEnabled()
    assert window.evidence_panel.model.rowCount() > 0
    texts = [h.paragraph.text for h in window.state.hits]
    row = next(i for i, t in enumerate(texts) if "subject-object-verb (SOV)" in t)
    assert row < 3  # the deciding paragraph is near the top
    assert window.pdf_view.overlays.highlights  # evidence is highlighted on the pages
    _click_row(qtbot, window, row)
    _assert_outline_on(window, window.state.hits[row].paragraph)
    bar = window.pdf_toolbar
    assert bar.page_edit.text() == window.state.hits[row].paragraph.page_label
    # page navigation by printed page number: "ii" is front matter, "3" the third arabic page
    assert bar.go_to_label("ii") and window.pdf_view.current_page == 2
    assert bar.go_to_label("3") and window.state.labels[window.pdf_view.current_page] == "3"
    assert not bar.go_to_label("999")


@pytest.mark.slow
def test_real_grammar_81A_classified_on_local_server_with_review_surviving_reopen(
    qtbot, main_window, real_grammar_project, llm_server, gui_store
):
    llm_server.add_rule("SOV", "SOV")
    window = main_window
    window.apply_settings(_local_settings(llm_server.url))
    assert not window.banner.isVisible()
    _open_with_feature(qtbot, window, real_grammar_project)
    panel, model, cited = window.value_panel, window.evidence_panel.model, window.state.cited
    assert model.rowCount() > 0
    assert panel.classify_button.isEnabled()
    with qtbot.waitSignal(window.classificationFinished, timeout=SLOW_MS):
        qtbot.mouseClick(panel.classify_button, Qt.MouseButton.LeftButton)
    cited = window.state.cited
    assert panel.value_label.text() == "SOV"
    assert llm_server.chat_requests, "the window must have asked the local server"
    assert panel.reasoning.toPlainText()
    assert model.rowCount() > 0 and cited
    cited_row = next(i for i, h in enumerate(model.hits) if h.paragraph.id in cited)
    _click_row(qtbot, window, cited_row)
    _assert_outline_on(window, model.hit(cited_row).paragraph)
    kinds = {item.data(0) for item in window.pdf_view.overlays.highlights}
    assert {"cited"} <= kinds

    # the linguist disagrees: another value of the set and a note, in the coding panel (the one place to code)
    coding = window.coding_panel
    row = next(r for r in range(coding.values.count()) if coding.values.item(r).text().split("   ", 1)[1]
               .startswith("SVO"))
    coding.values.setCurrentRow(row)
    with qtbot.waitSignal(window.projects.changes.changed, timeout=5000):
        qtbot.mouseClick(coding.set_button, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(coding.note_edit, "Section 7.1 says SOV; check the texts.")
    with qtbot.waitSignal(window.projects.changes.changed, timeout=5000):
        qtbot.keyClick(coding.note_edit, Qt.Key.Key_Return)
    assert panel.value_label.text() == "SOV" and panel.accept_button.isEnabled()  # the model's value stays shown
    assert coding.status_label.text().startswith("SVO · overridden by Test Reviewer")
    window.close()

    # a fresh window on the same project shows the override and the note, with reviewer and time
    from gui.window.main_window import MainWindow

    again = MainWindow(gui_store)
    qtbot.addWidget(again)
    again.show()
    qtbot.waitUntil(lambda: again.catalog is not None, timeout=10000)
    assert again.open_project(real_grammar_project, feature="81A")
    qtbot.waitUntil(lambda: again.state.classification is not None, timeout=5000)
    assert again.value_panel.value_label.text() == "SOV"
    assert again.coding_panel.status_label.text().startswith("SVO · overridden by Test Reviewer")
    history = again.coding_panel.history.toolTip()
    assert "Test Reviewer" in history and "Section 7.1 says SOV" in history and "overrode the model with SVO" in history
    assert time.strftime("%Y") in again.coding_panel.status_label.text()
    again.close()


@pytest.mark.slow
def test_cancelling_an_ingest_leaves_the_project_usable(qtbot, main_window, demo_project, shared_dir):
    from core.store import open_project, repository

    window = main_window
    _open_with_feature(qtbot, window, demo_project)
    progressed = []
    operation = window.ingest_pdf(shared_dir / "grammars" / "078_Papuan_Malay.pdf")
    assert operation is not None
    operation.progress(lambda *a: progressed.append(a))
    qtbot.waitUntil(lambda: bool(progressed), timeout=SLOW_MS)
    cancel = window.task_bar.cancel_button
    assert cancel.isVisible()
    with qtbot.waitSignal(window.ingestFinished, timeout=SLOW_MS) as finished:
        qtbot.mouseClick(cancel, Qt.MouseButton.LeftButton)
    assert finished.args == [False]
    assert not cancel.isVisible()
    with open_project(demo_project) as project:
        assert len(repository.list_documents(project)) == 1
    # still usable: pick another feature and get evidence for it
    with qtbot.waitSignal(window.retrievalFinished, timeout=SLOW_MS):
        window.select_feature("GB107")
    assert window.state.document is not None and window.pdf_view.page_count == 11


def test_broken_pdf_shows_a_message_that_says_what_to_do(qtbot, main_window, demo_project, tmp_path):
    window = main_window
    assert window.open_project(demo_project)
    broken = tmp_path / "broken grammar.pdf"
    broken.write_bytes(b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF garbage")
    with qtbot.waitSignal(window.errorShown, timeout=SLOW_MS):
        window.ingest_pdf(broken)
    box = window.last_message_box
    assert box is not None and box.isVisible()
    assert "broken grammar.pdf" in box.windowTitle() or "broken grammar.pdf" in box.text()
    assert box.informativeText()  # the hint: what to do about it
    assert window.state.document is not None  # the demo grammar is still shown
    box.close()


def test_closing_the_window_during_a_classification_cancels_cleanly(qtbot, main_window, demo_project, llm_server):
    llm_server.enqueue({"delay": 1.0})
    window = main_window
    window.apply_settings(_local_settings(llm_server.url))
    _open_with_feature(qtbot, window, demo_project)
    assert window.features.classify() is not None
    assert window.features.classifying
    started = time.perf_counter()
    window.close()
    assert time.perf_counter() - started < 15
    assert window.runner.pool.live == [] and window.projects.project is None


def test_settings_dialog_tests_the_connection_to_a_local_server(qtbot, main_window, llm_server):
    window = main_window
    dialog = window.open_settings()
    dialog.provider.setCurrentIndex(dialog.provider.findData(PROVIDER_COMPATIBLE))
    dialog.base_url.setText(llm_server.url)
    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.test_result.text().startswith(("✓", "✗")), timeout=SLOW_MS)
    assert dialog.test_result.text().startswith("✓"), dialog.test_result.text()
    qtbot.waitUntil(dialog.test_button.isEnabled, timeout=SLOW_MS)
    dialog.base_url.setText("http://127.0.0.1:9/v1")  # nothing listens on the discard port
    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.test_result.text().startswith("✗"), timeout=SLOW_MS)
    dialog.accept()
    assert window.settings.llm.base_url == "http://127.0.0.1:9/v1" and not window.banner.isVisible()


def test_window_restores_its_layout_and_has_shortcuts_and_accessible_names(qtbot, main_window, gui_store):
    from PySide6.QtWidgets import QAbstractButton, QLineEdit

    from gui.window.main_window import MainWindow

    window = main_window
    window.resize(780, 560)  # inside the offscreen screen (800 x 600): restoreGeometry clamps to the screen
    window.main_splitter.setSizes([190, 330, 260])
    sizes = window.main_splitter.sizes()
    window.close()
    again = MainWindow(gui_store)
    qtbot.addWidget(again)
    again.show()
    assert (again.width(), again.height()) == (780, 560)
    assert again.main_splitter.sizes() == sizes
    for action in (again.act_open, again.act_new, again.act_add, again.act_settings, again.act_classify,
                   again.act_accept, again.act_search, again.act_find_feature, again.act_goto, again.act_zoom_in):
        assert not action.shortcut().isEmpty(), action.text()
    unnamed = [w for w in again.findChildren(QAbstractButton) + again.findChildren(QLineEdit)
               if w.isVisible() and not w.accessibleName() and not w.text() and w.parent() is not None
               and type(w).__name__ not in ("QToolButton",)]
    assert unnamed == []
    # small and large windows: nothing overlaps, the PDF keeps a usable width
    again.resize(640, 420)
    qtbot.wait(10)
    assert again.pdf_view.width() >= 200
    again.resize(2400, 1400)
    qtbot.wait(10)
    assert again.pdf_view.width() > 900
    again.close()


def test_text_search_finds_highlights_and_steps_through_matches(qtbot, main_window, demo_project):
    """Find in PDF: matches are highlighted, the view jumps to them, and F3 steps to the next."""
    import pymupdf

    window = main_window
    _open_with_feature(qtbot, window, demo_project)
    word = "verb"
    with pymupdf.open(window.state.document.path) as doc:
        expected = sum(len(page.search_for(word)) for page in doc)
    assert expected > 1
    bar = window.pdf_toolbar
    bar.find_edit.setText(word)
    start = window.pdf_view.current_page  # on the best evidence paragraph: the search goes on from there
    with qtbot.waitSignal(bar.matchesChanged, timeout=10_000):
        qtbot.keyClick(bar.find_edit, Qt.Key.Key_Return)
    assert len(bar.matches) == expected
    first = next(i for i, (page, _rect) in enumerate(bar.matches) if page >= start) + 1
    assert bar.find_label.text().strip() == f"{first}/{expected}"
    first_page = bar.matches[bar.match_index][0]
    assert window.pdf_view.current_page == first_page
    assert {item.data(0) for item in window.pdf_view.overlays.highlights} >= {"search"}
    window.act_next_hit.trigger()  # F3
    assert bar.find_label.text().strip() == f"{first % expected + 1}/{expected}"
    bar.find_edit.setText("zzzqqq-not-in-the-grammar")
    with qtbot.waitSignal(bar.matchesChanged, timeout=10_000):
        bar.find_text(bar.find_edit.text())
    assert bar.find_label.text().strip() == "no match"
