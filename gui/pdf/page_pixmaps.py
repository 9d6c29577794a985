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

from core.errors import PdfError, ProjectError
from core.ingest import pdf_open

CACHE_PAGES = 16


def open_pdf(path: str | Path) -> pymupdf.Document:
    """Open a PDF for viewing through core's one guarded open (:func:`core.ingest.pdf_open.open_pdf`).

    Why not MuPDF directly: a path that is an open project file must be refused before MuPDF opens
    and closes it (that drops the project's SQLite locks); core's open does that and turns every
    other failure (damaged, password, no pages) into a :class:`PdfError`, the one error the view's
    callers catch.  Only a missing file gets the viewer's own advice: an ingested grammar that is
    gone was moved, not mistyped.
    """
    target = Path(path)
    if not target.exists():
        raise PdfError(f"The PDF {target} is missing.", "It was moved or deleted; put it back or re-ingest it.")
    try:
        return pdf_open.open_pdf(target)
    except ProjectError as exc:  # an open project given as the grammar: still "cannot show this PDF" to the view
        raise PdfError(exc.message, exc.hint) from exc


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
