"""The rectangles drawn over a grammar's pages: evidence, cited, pinned and search highlights, and the selection.

Why apart from :class:`gui.pdf.pdf_view.PdfView`: which colour and outline each kind gets, and keeping
the overlay items so they can be replaced, is one job; the view only hands over the page items the
rectangles belong to (they are their children, in PDF points, so they follow zoom and scrolling).
Pinned paragraphs are drawn violet with a solid outline, so they stand apart from retrieved (amber)
and cited (teal) ones, which are fills only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsRectItem

from core.models import Rect

EVIDENCE_COLOUR = QColor(255, 214, 0, 55)  # amber: a retrieved paragraph
CITED_COLOUR = QColor(0, 170, 140, 90)  # teal: a paragraph the model cited for its value
SEARCH_COLOUR = QColor(80, 140, 255, 100)  # blue: a text-search hit
PINNED_COLOUR = QColor(120, 80, 200, 80)  # violet: a paragraph the linguist pinned as deciding the value
PINNED_PEN = QColor(100, 50, 190)  # the pinned paragraph's outline: a pin reads even where it is also cited
SELECTED_PEN = QColor(200, 60, 0)


@dataclass(frozen=True)
class Highlight:
    """A set of rectangles drawn in one colour, e.g. the rects of one paragraph."""

    rects: tuple[Rect, ...]
    kind: str  # "evidence", "cited", "pinned", "search"
    key: object = None  # what it belongs to (a paragraph id), so it can be selected


_COLOURS = {"evidence": EVIDENCE_COLOUR, "cited": CITED_COLOUR, "pinned": PINNED_COLOUR, "search": SEARCH_COLOUR}


class Overlays:
    """The highlight and selection items over the pages.

    ``page_item(pdf_page)`` is a page's item (None: no such page).
    """

    def __init__(self, page_item: Callable[[int], QGraphicsRectItem | None]) -> None:
        self._page_item = page_item
        self.highlights: list[QGraphicsRectItem] = []
        self.selected: list[QGraphicsRectItem] = []

    def forget(self) -> None:
        """The scene was cleared with the document: the items are gone already."""
        self.highlights.clear()
        self.selected.clear()

    def set_highlights(self, highlights: Iterable[Highlight]) -> None:
        """Replace every highlight (and the selection outline)."""
        _remove(self.highlights + self.selected)
        self.forget()
        outline = QPen(PINNED_PEN)
        outline.setWidthF(1.5)
        outline.setCosmetic(True)
        for highlight in highlights:
            colour = _COLOURS.get(highlight.kind, EVIDENCE_COLOUR)
            pen = outline if highlight.kind == "pinned" else QPen(Qt.PenStyle.NoPen)
            for rect in highlight.rects:
                item = self._rect_item(rect, QBrush(colour), pen, z=1)
                if item is not None:
                    item.setData(0, highlight.kind)
                    item.setData(1, highlight.key)
                    self.highlights.append(item)

    def outline(self, rects: Iterable[Rect]) -> None:
        """Outline a paragraph's rectangles as the selected one (replacing the previous selection)."""
        _remove(self.selected)
        self.selected.clear()
        pen = QPen(SELECTED_PEN)
        pen.setWidthF(2.0)
        pen.setCosmetic(True)
        for rect in rects:
            item = self._rect_item(rect, QBrush(Qt.BrushStyle.NoBrush), pen, z=2, pad=2.0)
            if item is not None:
                self.selected.append(item)

    def _rect_item(self, rect: Rect, brush: QBrush, pen: QPen, *, z: float,
                   pad: float = 0.0) -> QGraphicsRectItem | None:
        parent = self._page_item(rect.pdf_page)
        if parent is None:
            return None
        width, height = rect.x1 - rect.x0 + 2 * pad, rect.y1 - rect.y0 + 2 * pad
        item = QGraphicsRectItem(rect.x0 - pad, rect.y0 - pad, width, height, parent)
        item.setBrush(brush)
        item.setPen(pen)
        item.setZValue(z)
        item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, False)
        return item


def _remove(items: Iterable[QGraphicsRectItem]) -> None:
    for item in items:
        scene = item.scene()
        if scene is not None:
            scene.removeItem(item)
