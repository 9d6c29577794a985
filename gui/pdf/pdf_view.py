"""A PDF viewer for grammars of hundreds of pages: lazy rendering, zoom and highlight overlays.

The view is composed of objects with one job each: :class:`gui.pdf.page_strip.PageStrip` lays the
pages out as placeholders (sizes from the PDF's page boxes), :class:`gui.pdf.lazy_render.LazyRenderer`
renders only what is visible, one page per event-loop turn, and :class:`gui.pdf.highlights.Overlays`
draws the highlight and selection items.  The view itself scrolls, zooms and turns clicks into page
points.  Tests and benches read those parts (``view.pages``, ``view.renderer``, ``view.overlays``);
the widget has nothing that exists only for them.

The scene works in PDF points with the origin at each page's top left, the same space as
:class:`core.models.Rect`, so highlight rectangles need no conversion.  Zoom is a view transform.

Pins: a click on a page (not a drag) reports the point in PDF space (``paragraphClicked``); P, or
the context menu, asks to pin the paragraph there (``pinRequested``).  The view does not know
paragraphs: ``pin_label`` (set by the coding wiring) names the menu entry, or says there is none.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pymupdf
from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import (
    QAction,
    QColor,
    QContextMenuEvent,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView, QMenu, QWidget

from core.models import Rect
from gui.pdf.highlights import Highlight, Overlays
from gui.pdf.lazy_render import LazyRenderer
from gui.pdf.page_pixmaps import open_pdf
from gui.pdf.page_strip import PAGE_GAP, PageStrip

__all__ = ["Highlight", "PdfView", "open_pdf"]

MIN_ZOOM, MAX_ZOOM = 0.25, 6.0
CLICK_SLOP = 4  # pixels a press may move and still be a click (not a drag of the page)


class PdfView(QGraphicsView):
    """Shows one PDF as a vertical strip of pages."""

    pageChanged = Signal(int)  # 1-based PDF page at the top of the view
    zoomChanged = Signal(float)
    pageRendered = Signal(int)  # 1-based PDF page whose pixmap just arrived (the renderer's, passed on)
    paragraphClicked = Signal(int, float, float)  # 1-based PDF page, x, y in PDF points: a click on a page
    pinRequested = Signal(int, float, float)  # pin (or unpin) the paragraph at this point: P or the context menu

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("PDF page view")
        self.setScene(QGraphicsScene(self))
        self.setBackgroundBrush(QColor(96, 99, 104))
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.SmoothPixmapTransform)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.doc: pymupdf.Document | None = None
        self.path: Path | None = None
        self.zoom = 1.0
        self.pages = PageStrip(self.scene())
        self.renderer = LazyRenderer(self.pages, self.visible_pages, lambda: self.zoom * self.devicePixelRatioF(), self)
        self.renderer.pageRendered.connect(self.pageRendered)
        self.overlays = Overlays(self.pages.item_or_none)
        self._current_page = 0
        self._press: QPoint | None = None
        self.clicked_point: tuple[int, float, float] | None = None  # the last page point clicked
        self.pin_label: Callable[[int, float, float], str | None] | None = None
        self.verticalScrollBar().valueChanged.connect(self._on_scrolled)

    # --- document ---------------------------------------------------------------------
    def load(self, path: str | Path) -> None:
        """Show ``path``; raises :class:`PdfError` when it cannot be opened."""
        doc = open_pdf(path)
        self.close_document()
        self.doc, self.path = doc, Path(path)
        self.renderer.doc = doc
        self.pages.lay_out(doc)
        self._apply_zoom(self.zoom)
        self.verticalScrollBar().setValue(0)
        self._current_page = 0
        self._on_scrolled()

    def close_document(self) -> None:
        self.renderer.clear()
        self.scene().clear()
        self.pages.clear()
        self.overlays.forget()
        self.clicked_point = None
        if self.doc is not None:
            self.doc.close()
        self.doc, self.path = None, None

    @property
    def page_count(self) -> int:
        return self.pages.count

    @property
    def current_page(self) -> int:
        """1-based PDF page at the top of the view (0 without a document)."""
        return self._current_page

    # --- navigation and zoom -----------------------------------------------------------
    def go_to_page(self, pdf_page: int, y: float = 0.0, *, center: bool = False) -> None:
        """Scroll so that point ``y`` (PDF points) of ``pdf_page`` is at the top (or centre)."""
        if not self.pages.count:
            return
        index = min(max(pdf_page, 1), self.page_count) - 1
        target = self.pages.items[index].mapToScene(0, y)
        if center:
            self.centerOn(target.x() + self.pages.sizes[index][0] / 2, target.y())
        else:
            margin = 24 / self.zoom
            self.verticalScrollBar().setValue(int(self.transform().map(target).y() - margin * self.zoom))
        self._on_scrolled()

    def set_zoom(self, zoom: float) -> None:
        zoom = min(max(zoom, MIN_ZOOM), MAX_ZOOM)
        if abs(zoom - self.zoom) < 1e-3:
            return
        page, offset = self._anchor()
        self._apply_zoom(zoom)
        if page:
            self.go_to_page(page, offset)
        self.zoomChanged.emit(zoom)

    def zoom_in(self) -> None:
        self.set_zoom(self.zoom * 1.2)

    def zoom_out(self) -> None:
        self.set_zoom(self.zoom / 1.2)

    def fit_width(self) -> None:
        if self.pages.count:
            self.set_zoom(max(self.viewport().width() - 4, 50) / (self.pages.widest() + 2 * PAGE_GAP))

    def _anchor(self) -> tuple[int, float]:
        if not self.pages.count:
            return 0, 0.0
        top = self.mapToScene(0, 0).y()
        index = self.pages.index_at(top)
        return index + 1, max(0.0, top - self.pages.tops[index] + 24 / self.zoom)

    def _apply_zoom(self, zoom: float) -> None:
        self.zoom = zoom
        self.resetTransform()
        self.scale(zoom, zoom)
        self.renderer.rescale()

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.zoom_in() if event.angleDelta().y() > 0 else self.zoom_out()
            event.accept()
            return
        super().wheelEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.renderer.schedule()

    # --- clicking and pinning ---------------------------------------------------------
    def point_at(self, pos: QPoint) -> tuple[int, float, float] | None:
        """(1-based PDF page, x, y in PDF points) under a viewport position; None between pages."""
        scene = self.mapToScene(pos)
        for index in self.visible_pages():
            local = self.pages.items[index].mapFromScene(scene)
            width, height = self.pages.sizes[index]
            if 0 <= local.x() <= width and 0 <= local.y() <= height:
                return index + 1, local.x(), local.y()
        return None

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._press = event.position().toPoint() if event.button() == Qt.MouseButton.LeftButton else None
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        pos = event.position().toPoint()
        if self._press is not None and (pos - self._press).manhattanLength() <= CLICK_SLOP:
            point = self.point_at(pos)
            if point is not None:
                self.clicked_point = point
                self.paragraphClicked.emit(*point)
        self._press = None

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_P and not event.modifiers() and self.clicked_point is not None:
            self.pinRequested.emit(*self.clicked_point)
            event.accept()
            return
        super().keyPressEvent(event)

    def context_menu(self, pos: QPoint) -> QMenu | None:
        """The menu for a viewport position: pin or unpin the paragraph there (None when there is none)."""
        point = self.point_at(pos)
        label = self.pin_label(*point) if point is not None and self.pin_label is not None else None
        if point is None or label is None:
            return None
        menu = QMenu(self)
        action = QAction(label + "\tP", menu)
        action.triggered.connect(lambda: self.pinRequested.emit(*point))
        menu.addAction(action)
        return menu

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        menu = self.context_menu(event.pos())
        if menu is not None:
            menu.exec(event.globalPos())
            menu.deleteLater()

    # --- what is visible -------------------------------------------------------------
    def visible_pages(self) -> list[int]:
        """0-based indexes of the pages that intersect the viewport."""
        if not self.pages.count:
            return []
        area = self.mapToScene(self.viewport().rect()).boundingRect()
        first, last = self.pages.index_at(area.top()), self.pages.index_at(area.bottom())
        return list(range(first, min(last, self.page_count - 1) + 1))

    def _on_scrolled(self, *_: object) -> None:
        if not self.pages.count:
            return
        # the page under a point 40% down the view: the one the reader is looking at
        probe = self.mapToScene(0, int(self.viewport().height() * 0.4)).y()
        page = self.pages.index_at(probe) + 1
        if page != self._current_page:
            self._current_page = page
            self.pageChanged.emit(page)
        self.renderer.schedule()

    def prerender(self, pdf_page: int) -> None:
        """Render the page the next feature will show into the cache while idle (:meth:`LazyRenderer.prerender`)."""
        self.renderer.prerender(pdf_page)

    # --- highlights -------------------------------------------------------------------
    def set_highlights(self, highlights: list[Highlight]) -> None:
        """Replace every overlay (evidence, cited and search colours)."""
        self.overlays.set_highlights(highlights)

    def show_rects(self, rects: tuple[Rect, ...]) -> None:
        """Scroll to the first rectangle and outline all of them (the selected paragraph)."""
        self.outline_rects(rects)
        if rects:
            first = min(rects, key=lambda r: (r.pdf_page, r.y0))
            # a quarter down the view: the reader sees what comes before the paragraph (its heading) too
            lead = self.viewport().height() / 4 / self.zoom
            self.go_to_page(first.pdf_page, max(0.0, first.y0 - lead))

    def outline_rects(self, rects: tuple[Rect, ...]) -> None:
        """Outline a paragraph's rectangles as the selected one, without scrolling."""
        self.overlays.outline(rects)
