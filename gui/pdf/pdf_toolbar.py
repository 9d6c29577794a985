"""The PDF toolbar: which grammar, which printed page, zoom, and find-in-PDF.

Why here and not in the window: page labels ("xiv", "127") are what a linguist types and reads,
so the toolbar turns them into PDF pages through the window state; find runs in a background
operation over its own MuPDF document and keeps its matches, and the window only redraws the
highlights when ``matchesChanged`` says so.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

from core.models import Document
from gui.common import backend
from gui.common.operations import Operation, OperationRunner, replace
from gui.common.window_state import WindowState
from gui.pdf.pdf_view import PdfView

Match = backend.PdfMatch  # (page: 1-based pdf page, rect: in PDF points)


class PdfToolbar(QWidget):
    """Grammar chooser, page field, zoom buttons and the find field, in one row for the main toolbar."""

    documentChosen = Signal(int)  # document id
    matchesChanged = Signal()  # find results changed (redraw the highlights)
    message = Signal(str, int)  # a line for the status bar, shown for so many ms

    def __init__(self, state: WindowState, view: PdfView, runner: OperationRunner,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state, self.view, self.runner = state, view, runner
        self.matches: list[Match] = []
        self.match_index = -1
        self._search: Operation | None = None
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)

        self.document_combo = QComboBox()
        self.document_combo.setAccessibleName("Grammar")
        self.document_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.document_combo.setMinimumContentsLength(14)
        self.document_combo.currentIndexChanged.connect(self._document_picked)
        row.addWidget(self.document_combo)
        row.addWidget(QLabel(" Page "))
        self.page_edit = QLineEdit()
        self.page_edit.setAccessibleName("Printed page number")
        self.page_edit.setToolTip("Type a printed page number (e.g. 127 or xiv) and press Enter (Ctrl+G)")
        self.page_edit.setMaximumWidth(64)
        self.page_edit.returnPressed.connect(lambda: self.go_to_label(self.page_edit.text()))
        row.addWidget(self.page_edit)
        self.page_total = QLabel("")
        row.addWidget(self.page_total)
        self._zoom_out, self._zoom_in, self._fit = QToolButton(), QToolButton(), QToolButton()
        self.zoom_label = QLabel("100%")
        self.zoom_label.setMinimumWidth(44)
        self.zoom_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        for widget in (self._zoom_out, self.zoom_label, self._zoom_in, self._fit):
            row.addWidget(widget)
        self.find_edit = QLineEdit()
        self.find_edit.setPlaceholderText("Find in PDF (Ctrl+F)")
        self.find_edit.setAccessibleName("Find text in the PDF")
        self.find_edit.setClearButtonEnabled(True)
        self.find_edit.setMaximumWidth(220)
        self.find_edit.returnPressed.connect(lambda: self.find_text(self.find_edit.text()))
        row.addWidget(self.find_edit)
        self.find_label = QLabel("")
        self.find_label.setAccessibleName("Find results")
        row.addWidget(self.find_label)
        row.addStretch(1)

        view.pageChanged.connect(self.show_page)
        view.zoomChanged.connect(lambda zoom: self.zoom_label.setText(f"{zoom * 100:.0f}%"))

    def set_zoom_actions(self, zoom_out: QAction, zoom_in: QAction, fit: QAction) -> None:
        """The window owns the actions (menus, shortcuts); the toolbar shows them as buttons."""
        for button, action, short in ((self._zoom_out, zoom_out, "−"), (self._zoom_in, zoom_in, "+"),
                                      (self._fit, fit, "Fit")):
            action.setIconText(short)  # the menus keep the full text
            button.setDefaultAction(action)
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
            button.setAutoRaise(True)

    # ------------------------------------------------------------------ grammar and page
    def set_documents(self, documents: list[Document]) -> None:
        """Fill the grammar chooser; it only shows when the project holds more than one grammar."""
        self.document_combo.blockSignals(True)
        self.document_combo.clear()
        for doc in documents:
            self.document_combo.addItem(doc.title or doc.file_name, doc.id)
        self.document_combo.blockSignals(False)
        self.document_combo.setVisible(len(documents) > 1)

    def show_document(self, document: Document) -> None:
        """The grammar on screen changed: select it, show its page count, drop the old find results."""
        index = self.document_combo.findData(document.id)
        if index >= 0 and index != self.document_combo.currentIndex():
            self.document_combo.blockSignals(True)
            self.document_combo.setCurrentIndex(index)
            self.document_combo.blockSignals(False)
        self.page_total.setText(f" ({self.view.page_count} pp.) ")
        self.show_page(self.view.current_page or 1)
        self.clear_matches()

    def clear(self) -> None:
        """No grammar on screen (no project, or one without a grammar): nothing of the last one stays."""
        self.set_documents([])
        self.page_edit.clear()
        self.page_total.setText("")
        self.clear_matches()

    def show_page(self, pdf_page: int) -> None:
        if not self.page_edit.hasFocus():
            self.page_edit.setText(self.state.label_of(pdf_page))

    def go_to_label(self, text: str) -> bool:
        """Scroll to the page printed ``text``; false (and a status message) when the grammar has none."""
        page = self.state.page_for_label(text)
        if page is None:
            self.message.emit(f"No page is printed “{text.strip()}” in this grammar.", 5000)
            return False
        self.view.go_to_page(page)
        self.view.setFocus()
        return True

    def focus_page(self) -> None:
        self.page_edit.setFocus()
        self.page_edit.selectAll()

    def _document_picked(self, index: int) -> None:
        document_id = self.document_combo.itemData(index)
        if document_id is not None:
            self.documentChosen.emit(int(document_id))

    # ------------------------------------------------------------------ find
    def focus_find(self) -> None:
        self.find_edit.setFocus()
        self.find_edit.selectAll()

    def find_text(self, text: str) -> Operation | None:
        """Find ``text`` in the grammar on screen, in the background; jumps to the first match after this page."""
        text = text.strip()
        if self.state.document is None or not text:
            self.clear_matches()
            return None
        pdf_path, start_page = Path(self.state.document.path), self.view.current_page

        def found(matches: list[Match]) -> None:
            self.matches = list(matches)
            self.matchesChanged.emit()
            if not self.matches:
                self.find_label.setText(" no match ")
                return
            self.match_index = next((i for i, m in enumerate(self.matches) if m.page >= start_page), 0) - 1
            self.step(1)

        self._search = replace(self._search, Operation(self.runner, lambda p: backend.search_pdf(pdf_path, text, p))
                               .success(found).with_progress(f"Searching “{text}”"))
        return self._search

    @property
    def searching(self) -> bool:
        return self._search is not None and self._search.running

    def step(self, delta: int) -> None:
        """Go to the next (1) or previous (-1) match, wrapping around (F3, Shift+F3)."""
        if not self.matches:
            return
        self.match_index = (self.match_index + delta) % len(self.matches)
        page, rect = self.matches[self.match_index]
        self.view.go_to_page(page, max(0.0, rect[1] - 60))
        self.find_label.setText(f" {self.match_index + 1}/{len(self.matches)} ")

    def clear_matches(self) -> None:
        had = bool(self.matches)
        self.matches, self.match_index = [], -1
        self.find_label.setText("")
        if had:
            self.matchesChanged.emit()
