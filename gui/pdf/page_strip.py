"""A grammar's pages laid out top to bottom in a scene, as cheap white placeholders in PDF points.

Why an object of its own: where each page lies (its item, its top, its size) is what scrolling,
rendering, highlights and clicks all ask, and it changes only when a document is laid out.  Sizes come
from the PDF's page boxes, which MuPDF reads without parsing content, so a 770-page grammar is laid
out at once; the pixmaps are :class:`gui.pdf.lazy_render.LazyRenderer`'s.
"""

from __future__ import annotations

import bisect

import pymupdf
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QPen
from PySide6.QtWidgets import QGraphicsRectItem, QGraphicsScene

PAGE_GAP = 12.0


class PageStrip:
    """The page items of one document in ``scene`` (each page's highlights and pixmap are its children)."""

    def __init__(self, scene: QGraphicsScene) -> None:
        self.scene = scene
        self.items: list[QGraphicsRectItem] = []
        self.tops: list[float] = []
        self.sizes: list[tuple[float, float]] = []

    def lay_out(self, doc: pymupdf.Document) -> None:
        """One white placeholder per page, centred in a column as wide as the widest page."""
        y = PAGE_GAP
        for number in range(doc.page_count):
            box = doc.page_cropbox(number)
            item = QGraphicsRectItem(0, 0, box.width, box.height)
            item.setPos(0, y)
            item.setBrush(QBrush(Qt.GlobalColor.white))
            item.setPen(QPen(Qt.PenStyle.NoPen))
            self.scene.addItem(item)
            self.items.append(item)
            self.tops.append(y)
            self.sizes.append((box.width, box.height))
            y += box.height + PAGE_GAP
        widest = self.widest()
        for item, (width, _) in zip(self.items, self.sizes, strict=True):
            item.setX((widest - width) / 2)
        self.scene.setSceneRect(QRectF(-PAGE_GAP, 0, widest + 2 * PAGE_GAP, y))

    def clear(self) -> None:
        """Forget the pages (the scene was cleared with them)."""
        self.items.clear()
        self.tops.clear()
        self.sizes.clear()

    @property
    def count(self) -> int:
        return len(self.items)

    def widest(self) -> float:
        return max((width for width, _ in self.sizes), default=0.0)

    def item(self, pdf_page: int) -> QGraphicsRectItem:
        """The scene item of a 1-based page: highlights of that page are its children."""
        return self.items[pdf_page - 1]

    def item_or_none(self, pdf_page: int) -> QGraphicsRectItem | None:
        return self.items[pdf_page - 1] if 1 <= pdf_page <= self.count else None

    def index_at(self, scene_y: float) -> int:
        """The 0-based page whose top is at or above ``scene_y`` (the first page above the first top)."""
        return max(0, bisect.bisect_right(self.tops, scene_y) - 1)
