"""A PDF viewer for grammars of hundreds of pages: lazy rendering, zoom and highlight overlays.

Why not render everything: a 770-page grammar would take many seconds and gigabytes.  The
scene holds one cheap white placeholder per page (sizes come from the PDF's page boxes, which
MuPDF reads without parsing content); only pages that become visible are rendered, one per
event-loop turn so scrolling never blocks, and a small LRU keeps recent pixmaps.

The scene works in PDF points with the origin at each page's top left, the same space as
:class:`core.models.Rect`, so highlight rectangles need no conversion.  Zoom is a view
transform; pixmaps are rendered at ``zoom x devicePixelRatio`` and scaled back, so text stays
sharp on high-DPI screens.

Pins: a click on a page (not a drag) reports the point in PDF space (``paragraphClicked``); P, or
the context menu, asks to pin the paragraph there (``pinRequested``).  The view does not know
paragraphs: ``pin_label`` (set by the coding wiring) names the menu entry, or says there is none.
Opening and rendering pages is :mod:`gui.pdf.page_pixmaps`'s; the highlight colours and overlay
items are :mod:`gui.pdf.highlights`'s.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from pathlib import Path

import pymupdf
from PySide6.QtCore import QPoint, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import QGraphicsPixmapItem, QGraphicsRectItem, QGraphicsScene, QGraphicsView, QMenu, QWidget

from core.models import Rect
from gui.pdf.highlights import Highlight, Overlays
from gui.pdf.page_pixmaps import CACHE_PAGES, PixmapCache, open_pdf

__all__ = ["Highlight", "PdfView", "open_pdf"]

PAGE_GAP = 12.0
MIN_ZOOM, MAX_ZOOM = 0.25, 6.0
CLICK_SLOP = 4  # pixels a press may move and still be a click (not a drag of the page)


class PdfView(QGraphicsView):
    """Shows one PDF as a vertical strip of pages."""

    pageChanged = Signal(int)  # 1-based PDF page at the top of the view
    zoomChanged = Signal(float)
    pageRendered = Signal(int)  # 1-based PDF page whose pixmap just arrived (used by tests and the bench)
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
        self._tops: list[float] = []
        self._sizes: list[tuple[float, float]] = []
        self._page_items: list[QGraphicsRectItem] = []
        self._pixmap_items: dict[int, QGraphicsPixmapItem] = {}
        self._cache = PixmapCache(CACHE_PAGES)
        self._queue: list[int] = []
        self._ahead: list[int] = []  # pages to render into the cache when nothing visible waits (prerender)
        self._overlays = Overlays(lambda pdf_page: self._page_items[pdf_page - 1]
                                  if 1 <= pdf_page <= self.page_count else None)
        self._current_page = 0
        self._press: QPoint | None = None
        self.clicked_point: tuple[int, float, float] | None = None  # the last page point clicked
        self.pin_label: Callable[[int, float, float], str | None] | None = None
        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.setInterval(0)
        self._render_timer.timeout.connect(self._render_next)
        self.verticalScrollBar().valueChanged.connect(self._on_scrolled)

    # --- document ---------------------------------------------------------------------
    def load(self, path: str | Path) -> None:
        """Show ``path``; raises :class:`PdfError` when it cannot be opened."""
        doc = open_pdf(path)
        self.close_document()
        self.doc, self.path = doc, Path(path)
        scene = self.scene()
        y = PAGE_GAP
        for number in range(doc.page_count):
            box = doc.page_cropbox(number)
            width, height = box.width, box.height
            item = QGraphicsRectItem(0, 0, width, height)
            item.setPos(0, y)
            item.setBrush(QBrush(Qt.GlobalColor.white))
            item.setPen(QPen(Qt.PenStyle.NoPen))
            scene.addItem(item)
            self._page_items.append(item)
            self._tops.append(y)
            self._sizes.append((width, height))
            y += height + PAGE_GAP
        max_w = max(w for w, _ in self._sizes)
        for item, (w, _) in zip(self._page_items, self._sizes, strict=True):
            item.setX((max_w - w) / 2)
        scene.setSceneRect(QRectF(-PAGE_GAP, 0, max_w + 2 * PAGE_GAP, y))
        self._apply_zoom(self.zoom)
        self.verticalScrollBar().setValue(0)
        self._current_page = 0
        self._on_scrolled()

    def close_document(self) -> None:
        self._render_timer.stop()
        self.scene().clear()
        self._page_items.clear()
        self._pixmap_items.clear()
        self._overlays.forget()
        self._tops.clear()
        self._sizes.clear()
        self._cache.clear()
        self._queue.clear()
        self._ahead.clear()
        self.clicked_point = None
        if self.doc is not None:
            self.doc.close()
        self.doc, self.path = None, None

    @property
    def page_count(self) -> int:
        return len(self._page_items)

    @property
    def current_page(self) -> int:
        """1-based PDF page at the top of the view (0 without a document)."""
        return self._current_page

    def is_rendered(self, pdf_page: int) -> bool:
        return (pdf_page - 1) in self._pixmap_items

    @property
    def rendering(self) -> bool:
        """True while visible pages still wait for their pixmaps (screenshots wait for this)."""
        return bool(self._queue)

    def rendered_pages(self) -> list[int]:
        """1-based pages whose pixmaps are in the scene now (a long grammar keeps only a few)."""
        return sorted(index + 1 for index in self._pixmap_items)

    def page_item(self, pdf_page: int) -> QGraphicsRectItem:
        """The scene item of a page: highlights of that page are its children."""
        return self._page_items[pdf_page - 1]

    # --- navigation and zoom -----------------------------------------------------------
    def go_to_page(self, pdf_page: int, y: float = 0.0, *, center: bool = False) -> None:
        """Scroll so that point ``y`` (PDF points) of ``pdf_page`` is at the top (or centre)."""
        if not self._page_items:
            return
        index = min(max(pdf_page, 1), self.page_count) - 1
        item = self._page_items[index]
        target = item.mapToScene(0, y)
        if center:
            self.centerOn(target.x() + self._sizes[index][0] / 2, target.y())
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
        if self._sizes:
            widest = max(w for w, _ in self._sizes) + 2 * PAGE_GAP
            self.set_zoom(max(self.viewport().width() - 4, 50) / widest)

    def _anchor(self) -> tuple[int, float]:
        if not self._page_items:
            return 0, 0.0
        top = self.mapToScene(0, 0).y()
        index = self._index_at(top)
        return index + 1, max(0.0, top - self._tops[index] + 24 / self.zoom)

    def _apply_zoom(self, zoom: float) -> None:
        self.zoom = zoom
        self.resetTransform()
        self.scale(zoom, zoom)
        for item in list(self._pixmap_items.values()):
            self.scene().removeItem(item)
        self._pixmap_items.clear()
        self._schedule_visible()

    def wheelEvent(self, event) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.zoom_in() if event.angleDelta().y() > 0 else self.zoom_out()
            event.accept()
            return
        super().wheelEvent(event)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._schedule_visible()

    # --- clicking and pinning ---------------------------------------------------------
    def point_at(self, pos: QPoint) -> tuple[int, float, float] | None:
        """(1-based PDF page, x, y in PDF points) under a viewport position; None between pages."""
        scene = self.mapToScene(pos)
        for index in self.visible_pages():
            item = self._page_items[index]
            local = item.mapFromScene(scene)
            width, height = self._sizes[index]
            if 0 <= local.x() <= width and 0 <= local.y() <= height:
                return index + 1, local.x(), local.y()
        return None

    def mousePressEvent(self, event) -> None:
        self._press = event.position().toPoint() if event.button() == Qt.MouseButton.LeftButton else None
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        super().mouseReleaseEvent(event)
        pos = event.position().toPoint()
        if self._press is not None and (pos - self._press).manhattanLength() <= CLICK_SLOP:
            point = self.point_at(pos)
            if point is not None:
                self.clicked_point = point
                self.paragraphClicked.emit(*point)
        self._press = None

    def keyPressEvent(self, event) -> None:
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

    def contextMenuEvent(self, event) -> None:
        menu = self.context_menu(event.pos())
        if menu is not None:
            menu.exec(event.globalPos())
            menu.deleteLater()

    # --- lazy rendering ---------------------------------------------------------------
    def _index_at(self, scene_y: float) -> int:
        return max(0, bisect.bisect_right(self._tops, scene_y) - 1)

    def visible_pages(self) -> list[int]:
        """0-based indexes of the pages that intersect the viewport."""
        if not self._page_items:
            return []
        area = self.mapToScene(self.viewport().rect()).boundingRect()
        first = self._index_at(area.top())
        last = self._index_at(area.bottom())
        return list(range(first, min(last, self.page_count - 1) + 1))

    def _on_scrolled(self, *_: object) -> None:
        if not self._page_items:
            return
        # the page under a point 40% down the view: the one the reader is looking at
        probe = self.mapToScene(0, int(self.viewport().height() * 0.4)).y()
        page = self._index_at(probe) + 1
        if page != self._current_page:
            self._current_page = page
            self.pageChanged.emit(page)
        self._schedule_visible()

    def _schedule_visible(self) -> None:
        visible = self.visible_pages()
        if not visible:
            return
        wanted = visible + [i for i in (visible[-1] + 1, visible[0] - 1) if 0 <= i < self.page_count]
        self._queue = [i for i in wanted if i not in self._pixmap_items]
        if self._queue:
            self._render_timer.start()

    def _render_scale(self) -> float:
        return self.zoom * self.devicePixelRatioF()

    def prerender(self, pdf_page: int) -> None:
        """Render a page into the pixmap cache while nothing visible waits, one page per event-loop turn.

        The coding pass calls it for the page the next feature will show, so that moving on places a
        ready pixmap instead of rendering (tens of milliseconds on a dense page).
        """
        index = pdf_page - 1
        if (self.doc is None or not 0 <= index < self.page_count or index in self._ahead
                or self._cache.has(index, self._render_scale())):
            return
        self._ahead.append(index)
        self._render_timer.start()

    def _render_next(self) -> None:
        """Render one queued page, then yield to the event loop before the next."""
        if self.doc is None:
            return
        if not self._queue:
            if self._ahead:  # idle: fill the cache for what comes next
                self._cache.pixmap(self.doc, self._ahead.pop(0), self._render_scale())
                if self._ahead:
                    self._render_timer.start()
            return
        index = self._queue.pop(0)
        if index not in self._pixmap_items:
            scale = self._render_scale()
            pixmap = self._cache.pixmap(self.doc, index, scale)
            item = QGraphicsPixmapItem(pixmap, self._page_items[index])
            item.setTransformationMode(Qt.TransformationMode.SmoothTransformation)
            item.setScale(1.0 / scale)
            item.setZValue(0)
            self._pixmap_items[index] = item
            self._drop_far_pixmaps()
            self.pageRendered.emit(index + 1)
        if self._queue or self._ahead:
            self._render_timer.start()

    def _drop_far_pixmaps(self) -> None:
        """Keep memory flat on long grammars: forget pixmap items far from the viewport."""
        if len(self._pixmap_items) <= CACHE_PAGES:
            return
        visible = self.visible_pages() or [0]
        centre = visible[len(visible) // 2]
        farthest = sorted(self._pixmap_items, key=lambda i: -abs(i - centre))
        for index in farthest[: len(self._pixmap_items) - CACHE_PAGES]:
            self.scene().removeItem(self._pixmap_items.pop(index))

    # --- highlights -------------------------------------------------------------------
    def set_highlights(self, highlights: list[Highlight]) -> None:
        """Replace every overlay (evidence, cited and search colours)."""
        self._overlays.set_highlights(highlights)

    def highlight_items(self) -> list[QGraphicsRectItem]:
        return list(self._overlays.highlights)

    def selected_items(self) -> list[QGraphicsRectItem]:
        return list(self._overlays.selected)

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
        self._overlays.outline(rects)

    def page_item_rect_in_view(self, pdf_page: int) -> QRectF:
        """Where a page currently lies in viewport coordinates (tests check highlights are on screen)."""
        item = self._page_items[pdf_page - 1]
        return self.mapFromScene(item.sceneBoundingRect()).boundingRect().toRectF()
