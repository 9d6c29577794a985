"""The evidence list as a Qt table: a thin adapter over core retrieval hits.

The model only presents :class:`core.retrieval.Hit` objects (rank, score, paragraph) in the
order it is given (the window state puts pinned paragraphs first; a pinned paragraph the
retrieval never found comes as a row of rank 0, shown without rank or score); which of them the model cited
and which the linguist pinned are sets of paragraph ids handed in beside them.  The Section
column holds the whole heading path; the view shows its chapter over its deepest heading, and
the tooltip holds the whole path and paragraph.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any, Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from core.ingest.sections import SEPARATOR

COLUMNS = ("Rank", "Page", "Section", "Snippet", "Score")
SECTION_COLUMN, SNIPPET_COLUMN = 2, 3
SNIPPET_CHARS = 400  # more than any column shows: the view elides it to the width it has
CITED_BACKGROUND = QColor(0, 170, 140, 45)
PINNED_BACKGROUND = QColor(120, 80, 200, 45)
OUTSIDE_FOREGROUND = QColor(110, 110, 110)
PIN_MARK, CITED_MARK = "◆", "✓"  # glyphs every UI font has (no emoji font is assumed)
LOW_OCR_FOREGROUND = QColor(160, 80, 0)  # a scanned paragraph read with little confidence: words may be wrong

if TYPE_CHECKING:  # type names only
    from core.models import Paragraph
    from core.retrieval.pipeline import Hit

_Index = QModelIndex | QPersistentModelIndex


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


class EvidenceModel(QAbstractTableModel):
    """Rows are retrieval hits in rank order; cited rows are tinted and marked."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.hits: list[Hit] = []
        self.cited: set[int] = set()
        self.pins: set[int] = set()

    def set_hits(self, hits: Sequence[Hit], cited: set[int] | None = None, pins: set[int] | None = None) -> None:
        self.beginResetModel()
        self.hits = list(hits)
        self.cited = set(cited or ())
        self.pins = set(pins or ())
        self.endResetModel()

    def set_cited(self, cited: set[int], pins: set[int] | None = None) -> None:
        self.cited = set(cited)
        if pins is not None:
            self.pins = set(pins)
        if self.hits:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.hits) - 1, len(COLUMNS) - 1))

    def hit(self, row: int) -> Hit:
        return self.hits[row]

    def row_of_paragraph(self, paragraph_id: int) -> int:
        return next((i for i, h in enumerate(self.hits) if h.paragraph.id == paragraph_id), -1)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.hits)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        horizontal = orientation == Qt.Orientation.Horizontal
        if horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(COLUMNS):
            return COLUMNS[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.hits):
            return None
        hit = self.hits[index.row()]
        paragraph = hit.paragraph
        cited = paragraph.id in self.cited
        pinned = paragraph.id in self.pins
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                rank = [str(hit.rank)] if hit.rank > 0 else []  # rank 0: pinned, never retrieved
                return " ".join(rank + ([PIN_MARK] if pinned else []) + ([CITED_MARK] if cited else []))
            if column == 1:
                return paragraph.page_label
            if column == SECTION_COLUMN:
                return section_text(hit)
            if column == SNIPPET_COLUMN:
                return low_confidence_mark(paragraph) + snippet(paragraph.text)
            if column == 4:
                return f"{hit.score:.2f}" if hit.rank > 0 else ""
        if role == Qt.ItemDataRole.ToolTipRole:
            return tooltip(paragraph, cited=cited, pinned=pinned, part=_part_label(hit))
        if role == Qt.ItemDataRole.ForegroundRole and column == SNIPPET_COLUMN and paragraph.low_confidence:
            return QBrush(LOW_OCR_FOREGROUND)
        if role == Qt.ItemDataRole.ForegroundRole and _part_label(hit) and not (cited or pinned):
            return QBrush(OUTSIDE_FOREGROUND)
        if role == Qt.ItemDataRole.BackgroundRole and (cited or pinned):
            return QBrush(PINNED_BACKGROUND if pinned else CITED_BACKGROUND)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (0, 1, 4):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.AccessibleTextRole:
            marks = (", pinned" if pinned else "") + (", cited" if cited else "")
            marks += ", read by OCR with low confidence" if paragraph.low_confidence else ""
            part = f", {_part_label(hit)}" if _part_label(hit) else ""
            return f"Rank {hit.rank}, page {paragraph.page_label}, score {hit.score:.2f}{marks}{part}"
        if role == Qt.ItemDataRole.UserRole:
            return paragraph.id
        return None


def low_confidence_mark(paragraph: Paragraph) -> str:
    """``[OCR 63] `` before the snippet of a paragraph read from a scan with little confidence."""
    if not paragraph.low_confidence or paragraph.ocr_confidence is None:
        return ""
    return f"[OCR {paragraph.ocr_confidence:.0f}] "


def _part_label(hit: Hit) -> str:
    """"front matter", "back matter", "dictionary", or "" for the grammar proper (and pinned rows of rank 0)."""
    part = getattr(hit, "part", None)
    return part.label if part is not None else ""


def section_text(hit: Hit) -> str:
    """The Section cell: the heading path, led by the part of the book when it is not the grammar proper."""
    section, part = hit.paragraph.section or "", _part_label(hit)
    if not part:
        return section
    return f"{part}{SEPARATOR}{section}" if section else part


def tooltip(paragraph: Paragraph, *, cited: bool = False, pinned: bool = False, part: str = "") -> str:
    """The whole paragraph as rich text, so Qt wraps it (a plain-text tooltip would be one endless line)."""
    outside = f"From the {part}, not the grammar proper." if part else ""
    low = (f"Scanned page read by OCR with low confidence ({paragraph.ocr_confidence or 0:.0f}/100): "
           "words may be misread; check the page.")
    marks = [m for m, on in (("Pinned as deciding evidence.", pinned), ("Cited by the model.", cited),
                             (outside, bool(part)), (low, paragraph.low_confidence)) if on]
    head = "".join(f"<i>{m}</i><br>" for m in marks)
    if paragraph.section:
        head += f"<b>{html.escape(paragraph.section)}</b><br>"
    where = f"p. {html.escape(paragraph.page_label)} (PDF page {paragraph.pdf_page})"
    body = html.escape(" ".join(paragraph.text.split()))
    return f"<qt>{head}{where}<p>{body}</p></qt>"
