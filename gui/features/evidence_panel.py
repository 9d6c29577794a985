"""The evidence panel: the paragraphs found for the feature, readable in a window of 1280 x 800.

Why the column set-up: at the default size the panel is about 430 pixels wide, and a
linguist decides from the text, so the snippet column takes every pixel the short columns
(rank, printed page, score) leave; the section column uses the row's two lines for the chapter
over the deepest heading ("3 Morphophonology" / "3.2.2 Schwa alternations in…": one path elided in
its middle left "3 Morph…er slot", which says nothing), and the tooltip holds the whole path and
paragraph.  Choosing a row (click, keys, or :meth:`show_row` from the window) reports the
paragraph with ``paragraphChosen``; the window scrolls the PDF to it.  Rows are two lines high
and the snippet wraps into them: twice the text in the same table.

The page stays put: when the re-ranked order replaces the first one (:meth:`present` with
``state.reranked``), the list updates, the paragraph being read stays selected and the page does not
move; a new first paragraph is *offered* in the title ("first now: p. 23 ›"), one click away.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.ingest.sections import SEPARATOR as SECTION_SEPARATOR
from core.models import Paragraph
from gui.common.window_state import WindowState
from gui.features.evidence_model import SECTION_COLUMN, SNIPPET_COLUMN, EvidenceModel

SECTION_WIDTH = 120
RERANKING_NOTE = "· reranking…"  # beside the title while the embedding model's order is still to come
TITLE_TIP = ("Paragraphs ranked for the feature. \"reranking…\": shown in BM25 and vocabulary order while the "
             "embedding model re-ranks them. Front matter, back matter and dictionary parts are named in the Section "
             "column and listed after the grammar proper.")
OFFER_LINK = "#offer"  # the title's link to the re-ranked order's new first paragraph
SNIPPET_LINES = 2
LINE_BREAK = "\u2028"  # Unicode's line separator: an item view breaks the line there ("\n" it drops)


class SectionDelegate(QStyledItemDelegate):
    """The heading path in two lines: the chapter, then the deepest heading, each elided at its end.

    The deepest heading carries the full section number in a numbered grammar ("3.2.2 …"), so the
    levels between are not lost; a path of one heading is shown on its own.
    """

    def initStyleOption(self, option: QStyleOptionViewItem,
                        index: QModelIndex | QPersistentModelIndex) -> None:
        super().initStyleOption(option, index)
        option.features |= QStyleOptionViewItem.ViewItemFeature.WrapText  # the break between the two lines
        option.textElideMode = Qt.TextElideMode.ElideRight
        option.text = section_lines(option.text, option.fontMetrics, option.rect.width() - 8)


def section_lines(path: str, metrics: QFontMetrics, width: int) -> str:
    """Chapter and deepest heading of a " > " heading path, one per line, elided to ``width`` (if known)."""
    parts = [part.strip() for part in path.split(SECTION_SEPARATOR) if part.strip()]
    lines = [parts[0], parts[-1]] if len(parts) > 1 else parts
    if width > 0:
        lines = [metrics.elidedText(line, Qt.TextElideMode.ElideRight, width) for line in lines]
    return LINE_BREAK.join(lines)


class EvidencePanel(QWidget):
    """A title with the count and the evidence table."""

    paragraphChosen = Signal(object)  # the Paragraph of the row the person (or the window) chose

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 0, 6, 6)
        self.title = QLabel("<b>Evidence</b>")
        self.title.setToolTip(TITLE_TIP)
        self.reranking = False  # the rows shown are provisional (see show_evidence)
        self.offered = -1  # row the re-ranked order put first, offered in the title (-1: none)
        self.title.linkActivated.connect(self._take_offer)
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
        self.table.setItemDelegateForColumn(SECTION_COLUMN, SectionDelegate(self.table))
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
        """Show the state's evidence, pinned paragraphs first.

        Provisional evidence (BM25 and vocabulary, the embedding model's order still to come) says so
        in the title: "reranking…" stays until the re-ranked rows replace these.
        """
        self.model.set_hits(state.ordered_hits(), state.cited, state.pins)
        self.offered = -1
        self.title.setToolTip(TITLE_TIP)
        count = len(state.hits)
        self.reranking = any(getattr(h, "provisional", False) for h in state.hits)
        if count:
            note = f" <span style='color: gray'>{RERANKING_NOTE}</span>" if self.reranking else ""
            self.title.setText(f"<b>Evidence</b> — {count} paragraphs{note}")
        elif state.evidence_known and state.feature is not None:
            self.title.setText("<b>Evidence</b> — nothing found; try a reranker or another grammar")
        else:
            self.title.setText("<b>Evidence</b>")

    def present(self, state: WindowState) -> None:
        """New evidence: list it and show its best row; a re-ranked order: :meth:`show_reranked`."""
        if state.reranked:
            self.show_reranked(state)
        else:
            self.show_evidence(state)
            self.show_row(state.best_row())

    def show_reranked(self, state: WindowState) -> None:
        """The re-ranked order replaces the rows; the paragraph being read stays chosen, a new first one is offered."""
        current = self.table.currentIndex()
        reading = self.model.hit(current.row()).paragraph.id if current.isValid() else None
        self.show_evidence(state)
        keep, offer = state.rows_after_rerank(reading)
        if reading is None:
            self.show_row(keep)  # nothing was being read: show the best row as for any new evidence
            return
        if keep >= 0:  # selected again without reporting it: the page does not move
            index = self.model.index(keep, SNIPPET_COLUMN)
            self.table.selectionModel().blockSignals(True)
            self.table.setCurrentIndex(index)
            self.table.selectionModel().blockSignals(False)
            self.table.scrollTo(index)
        if offer >= 0:
            self.offered = offer
            label = html.escape(self.model.hit(offer).paragraph.page_label)
            self.title.setText(f"{self.title.text()} <span style='color: gray'>· re-ranked, first now:</span> "
                               f"<a href='{OFFER_LINK}'>p. {label} ›</a>")
            self.title.setToolTip("The re-ranked order put another paragraph first; the page stays where you "
                                  "read. Click to go to it.")

    def _take_offer(self, _link: str = "") -> None:
        row, self.offered = self.offered, -1
        if row >= 0:
            self.show_row(row)
            self.title.setText(self.title.text().split(" <span style='color: gray'>· re-ranked")[0])

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
