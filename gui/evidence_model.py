"""The evidence list as a Qt table: a thin adapter over core retrieval hits.

The model only presents :class:`core.retrieval.Hit` objects (rank, score, paragraph); which of
them the model cited is a set of paragraph ids handed in beside them.
"""

from __future__ import annotations

from typing import Any, Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

COLUMNS = ("Rank", "Page", "Section", "Snippet", "Score")
SNIPPET_CHARS = 160
CITED_BACKGROUND = QColor(0, 170, 140, 45)

_Index = QModelIndex | QPersistentModelIndex


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


class EvidenceModel(QAbstractTableModel):
    """Rows are retrieval hits in rank order; cited rows are tinted and marked."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.hits: list[Any] = []
        self.cited: set[int] = set()

    def set_hits(self, hits: Sequence[Any], cited: set[int] | None = None) -> None:
        self.beginResetModel()
        self.hits = list(hits)
        self.cited = set(cited or ())
        self.endResetModel()

    def set_cited(self, cited: set[int]) -> None:
        self.cited = set(cited)
        if self.hits:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.hits) - 1, len(COLUMNS) - 1))

    def hit(self, row: int) -> Any:
        return self.hits[row]

    def row_of_paragraph(self, paragraph_id: int) -> int:
        return next((i for i, h in enumerate(self.hits) if h.paragraph.id == paragraph_id), -1)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802 - Qt naming
        return 0 if parent.isValid() else len(self.hits)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(  # noqa: N802
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
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return f"{hit.rank} ✓" if cited else str(hit.rank)
            if column == 1:
                return paragraph.page_label
            if column == 2:
                return paragraph.section.split(" > ")[-1] if paragraph.section else ""
            if column == 3:
                return snippet(paragraph.text)
            if column == 4:
                return f"{hit.score:.2f}"
        if role == Qt.ItemDataRole.ToolTipRole:
            head = f"{paragraph.section}\n" if paragraph.section else ""
            mark = "Cited by the model.\n" if cited else ""
            where = f"p. {paragraph.page_label} (PDF page {paragraph.pdf_page})"
            return f"{mark}{head}{where}\n\n{snippet(paragraph.text, 900)}"
        if role == Qt.ItemDataRole.BackgroundRole and cited:
            return QBrush(CITED_BACKGROUND)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (0, 1, 4):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return f"Rank {hit.rank}, page {paragraph.page_label}, score {hit.score:.2f}{', cited' if cited else ''}"
        if role == Qt.ItemDataRole.UserRole:
            return paragraph.id
        return None
