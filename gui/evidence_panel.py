"""The evidence panel: the paragraphs found for the feature, readable in a window of 1280 x 800.

Why the column set-up: at the default size the panel is about 430 pixels wide, and a
linguist decides from the text, so the snippet column takes every pixel the short columns
(rank, printed page, score) leave; the section path is elided in the middle ("4 Word order … 4.2
Marked orders"), keeping both the chapter and the subsection, and the tooltip holds the whole
paragraph.  Choosing a row (click, keys, or :meth:`show_row` from the window) reports the
paragraph with ``paragraphChosen``; the window scrolls the PDF to it.  Rows are two lines high
and the snippet wraps into them: twice the text in the same table.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QHeaderView, QLabel, QStyledItemDelegate, QStyleOptionViewItem,
                               QTableView, QVBoxLayout, QWidget)

from core.models import Paragraph
from gui.evidence_model import SECTION_COLUMN, SNIPPET_COLUMN, EvidenceModel
from gui.window_state import WindowState

SECTION_WIDTH = 120
SNIPPET_LINES = 2


class MiddleElideDelegate(QStyledItemDelegate):
    """Elides text in the middle, on one line: a heading path keeps its chapter and its last heading."""

    def initStyleOption(self, option: QStyleOptionViewItem,  # noqa: N802 - Qt naming
                        index: QModelIndex | QPersistentModelIndex) -> None:
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideMiddle
        option.features &= ~QStyleOptionViewItem.ViewItemFeature.WrapText


class EvidencePanel(QWidget):
    """A title with the count and the evidence table."""

    paragraphChosen = Signal(object)  # the Paragraph of the row the person (or the window) chose

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 0, 6, 6)
        self.title = QLabel("<b>Evidence</b>")
        layout.addWidget(self.title)
        self.model = EvidenceModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setAccessibleName("Evidence paragraphs")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)  # the snippet gets two lines; the last one is elided
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.setAlternatingRowColors(True)
        rows = self.table.verticalHeader()
        rows.setVisible(False)
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.table.fontMetrics().lineSpacing() * SNIPPET_LINES + 8)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setItemDelegateForColumn(SECTION_COLUMN, MiddleElideDelegate(self.table))
        header = self.table.horizontalHeader()
        header.setMinimumSectionSize(28)
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(SECTION_COLUMN, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(SNIPPET_COLUMN, QHeaderView.ResizeMode.Stretch)
        header.resizeSection(SECTION_COLUMN, SECTION_WIDTH)
        layout.addWidget(self.table, 1)
        self.table.selectionModel().currentRowChanged.connect(self._row_changed)
        self.table.clicked.connect(lambda index: self._emit(index.row()))

    def show_evidence(self, state: WindowState) -> None:
        """Show the state's evidence, pinned paragraphs first."""
        self.model.set_hits(state.ordered_hits(), state.cited, state.pins)
        count = len(state.hits)
        if count:
            self.title.setText(f"<b>Evidence</b> — {count} paragraphs")
        elif state.evidence_known and state.feature is not None:
            self.title.setText("<b>Evidence</b> — nothing found; try a reranker or another grammar")
        else:
            self.title.setText("<b>Evidence</b>")

    def show_marks(self, state: WindowState) -> None:
        """Cited or pinned paragraphs changed, the rows did not."""
        self.model.set_cited(state.cited, state.pins)

    def show_row(self, row: int) -> None:
        """Select ``row``, scroll the table to it and report its paragraph (as a click would)."""
        if not 0 <= row < self.model.rowCount():
            return
        index = self.model.index(row, SNIPPET_COLUMN)
        self.table.selectionModel().blockSignals(True)
        self.table.setCurrentIndex(index)
        self.table.selectionModel().blockSignals(False)
        self.table.scrollTo(index)
        self._emit(row)

    def paragraph(self, row: int) -> Paragraph:
        return self.model.hit(row).paragraph

    def _row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self._emit(current.row())

    def _emit(self, row: int) -> None:
        if 0 <= row < self.model.rowCount():
            self.paragraphChosen.emit(self.model.hit(row).paragraph)
