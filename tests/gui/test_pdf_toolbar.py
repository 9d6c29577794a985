"""The PDF toolbar: printed page numbers, the grammar chooser, and find in the PDF."""

from __future__ import annotations

from dataclasses import replace

import pymupdf
import pytest
from PySide6.QtCore import Qt

from core.store import open_project, repository
from gui.common.operations import OperationRunner
from gui.common.window_state import WindowState
from gui.pdf.pdf_toolbar import PdfToolbar
from gui.pdf.pdf_view import PdfView


@pytest.fixture
def toolbar(qtbot, demo_project):
    with open_project(demo_project) as project:
        (document,) = repository.list_documents(project)
        labels = repository.page_labels(project, document.id)
    state = WindowState()
    state.open_project(demo_project, [document])
    view = PdfView()
    view.resize(600, 500)
    view.load(document.path)
    state.show_document(document, labels)
    runner = OperationRunner()
    bar = PdfToolbar(state, view, runner)
    qtbot.addWidget(bar)
    qtbot.addWidget(view)
    bar.set_documents([document])
    bar.show_document(document)
    bar.show()
    view.show()
    yield bar
    assert runner.shutdown(5000)


def test_typing_a_printed_page_number_goes_there(qtbot, toolbar) -> None:
    view, state = toolbar.view, toolbar.state
    toolbar.page_edit.clear()
    qtbot.keyClicks(toolbar.page_edit, "ii")
    qtbot.keyClick(toolbar.page_edit, Qt.Key.Key_Return)
    assert view.current_page == 2
    assert toolbar.go_to_label("3") and state.labels[view.current_page] == "3"
    with qtbot.waitSignal(toolbar.message, timeout=1000) as said:
        assert not toolbar.go_to_label("999")
    assert "999" in said.args[0]
    view.go_to_page(1)
    assert toolbar.page_edit.text() == "i"  # the field follows the view, in printed numbers
    assert toolbar.page_total.text().strip() == "(11 pp.)"


def test_the_grammar_chooser_shows_only_with_two_grammars_and_reports_the_choice(qtbot, toolbar) -> None:
    first = toolbar.state.documents[0]
    assert toolbar.document_combo.isHidden()
    second = replace(first, id=first.id + 1, title="A second grammar")
    toolbar.set_documents([first, second])
    assert not toolbar.document_combo.isHidden()
    with qtbot.waitSignal(toolbar.documentChosen, timeout=1000) as chosen:
        toolbar.document_combo.setCurrentIndex(1)
    assert chosen.args == [second.id]


def test_find_counts_every_match_and_steps_through_them(qtbot, toolbar) -> None:
    with pymupdf.open(toolbar.state.document.path) as doc:
        expected = sum(len(page.search_for("Maalo")) for page in doc)
    assert expected > 1
    toolbar.view.go_to_page(1)
    toolbar.find_edit.setText("Maalo")
    with qtbot.waitSignal(toolbar.matchesChanged, timeout=10_000):
        qtbot.keyClick(toolbar.find_edit, Qt.Key.Key_Return)
    assert len(toolbar.matches) == expected and toolbar.find_label.text().strip() == f"1/{expected}"
    assert toolbar.view.current_page == toolbar.matches[0][0]
    toolbar.step(-1)  # wraps around to the last match
    assert toolbar.find_label.text().strip() == f"{expected}/{expected}"
    with qtbot.waitSignal(toolbar.matchesChanged, timeout=1000):
        toolbar.find_text("")  # an empty search clears the matches
    assert toolbar.matches == [] and toolbar.find_label.text() == ""
