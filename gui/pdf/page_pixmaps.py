"""Opening a grammar's PDF and rendering its pages to pixmaps, with a small cache of the recent ones.

Why apart from :class:`gui.pdf.pdf_view.PdfView`: what MuPDF does (opening, with failures a person
can act on; rendering a page at a scale) and how many pixmaps stay in memory are one job; which
pages to render when is the view's.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

import pymupdf
from PySide6.QtGui import QImage, QPixmap

from core.errors import PdfError

CACHE_PAGES = 16


def open_pdf(path: str | Path) -> pymupdf.Document:
    """Open a PDF for viewing, turning MuPDF's failures into a :class:`PdfError` a person can act on."""
    target = Path(path)
    if not target.exists():
        raise PdfError(f"The PDF {target} is missing.", "It was moved or deleted; put it back or re-ingest it.")
    try:
        doc = pymupdf.open(target)
    except Exception as exc:  # MuPDF raises several types for damaged files
        raise PdfError(f"{target.name} cannot be opened as a PDF ({exc}).",
                       "The file is damaged or not a PDF. Try another copy of the grammar.") from exc
    if doc.needs_pass:
        doc.close()
        raise PdfError(f"{target.name} is password-protected.", "Save an unprotected copy and open that.")
    if doc.page_count == 0:
        doc.close()
        raise PdfError(f"{target.name} has no pages.", "The file is damaged or empty. Try another copy.")
    return doc


class PixmapCache:
    """Pixmaps of recently rendered pages, by (0-based page, scale); the least recently used go first."""

    def __init__(self, size: int = CACHE_PAGES) -> None:
        self.size = size
        self._items: OrderedDict[tuple[int, float], QPixmap] = OrderedDict()

    @staticmethod
    def _key(index: int, scale: float) -> tuple[int, float]:
        return index, round(scale, 3)

    def has(self, index: int, scale: float) -> bool:
        return self._key(index, scale) in self._items

    def pixmap(self, doc: pymupdf.Document, index: int, scale: float) -> QPixmap:
        """The page rendered at ``scale`` (pixels per PDF point): from the cache, else rendered now and kept."""
        key = self._key(index, scale)
        if key in self._items:
            self._items.move_to_end(key)
            return self._items[key]
        pix = doc[index].get_pixmap(matrix=pymupdf.Matrix(scale, scale), alpha=False)
        image = QImage(pix.samples, pix.width, pix.height, pix.stride, QImage.Format.Format_RGB888).copy()
        pixmap = QPixmap.fromImage(image)
        self._items[key] = pixmap
        while len(self._items) > self.size:
            self._items.popitem(last=False)
        return pixmap

    def clear(self) -> None:
        self._items.clear()
