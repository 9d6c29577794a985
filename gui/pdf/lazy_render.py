"""Rendering only the pages a reader sees, one per event-loop turn, and the next one ahead while idle.

Why not render everything: a 770-page grammar would take many seconds and gigabytes.  Pages that
become visible are queued and rendered one per turn of the event loop, so scrolling never blocks;
pixmap items far from the view are dropped and a small LRU (:class:`gui.pdf.page_pixmaps.PixmapCache`)
keeps recent pixmaps.  Pixmaps are rendered at ``zoom x devicePixelRatio`` and scaled back, so text
stays sharp on high-DPI screens.  The view says what is visible and at which scale; this object owns
the queue, the timer and the pixmap items.
"""

from __future__ import annotations

from collections.abc import Callable

import pymupdf
from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QGraphicsPixmapItem

from gui.pdf.page_pixmaps import CACHE_PAGES, PixmapCache
from gui.pdf.page_strip import PageStrip


class LazyRenderer(QObject):
    """Pixmaps for the visible pages of ``strip``; ``visible()`` gives 0-based pages, ``scale()`` the render scale."""

    pageRendered = Signal(int)  # 1-based PDF page whose pixmap just arrived

    def __init__(self, strip: PageStrip, visible: Callable[[], list[int]], scale: Callable[[], float],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.strip, self.visible, self.scale = strip, visible, scale
        self.doc: pymupdf.Document | None = None
        self._items: dict[int, QGraphicsPixmapItem] = {}
        self._cache = PixmapCache(CACHE_PAGES)
        self._queue: list[int] = []
        self._ahead: list[int] = []  # pages to render into the cache when nothing visible waits (prerender)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._render_next)

    @property
    def rendering(self) -> bool:
        """True while visible pages still wait for their pixmaps (screenshots wait for this)."""
        return bool(self._queue)

    def is_rendered(self, pdf_page: int) -> bool:
        return (pdf_page - 1) in self._items

    def rendered_pages(self) -> list[int]:
        """1-based pages whose pixmaps are in the scene now (a long grammar keeps only a few)."""
        return sorted(index + 1 for index in self._items)

    def clear(self) -> None:
        """The document closed: nothing queued, nothing cached (the scene dropped the items)."""
        self._timer.stop()
        self._items.clear()
        self._cache.clear()
        self._queue.clear()
        self._ahead.clear()
        self.doc = None

    def rescale(self) -> None:
        """The zoom changed: every pixmap item is dropped and the visible pages are rendered again."""
        for item in list(self._items.values()):
            self.strip.scene.removeItem(item)
        self._items.clear()
        self.schedule()

    def schedule(self) -> None:
        """Queue the visible pages (and one beyond each end) that have no pixmap yet."""
        visible = self.visible()
        if not visible:
            return
        wanted = visible + [i for i in (visible[-1] + 1, visible[0] - 1) if 0 <= i < self.strip.count]
        self._queue = [i for i in wanted if i not in self._items]
        if self._queue:
            self._timer.start()

    def prerender(self, pdf_page: int) -> None:
        """Render a page into the pixmap cache while nothing visible waits, one page per event-loop turn.

        The coding pass calls it for the page the next feature will show, so that moving on places a
        ready pixmap instead of rendering (tens of milliseconds on a dense page).
        """
        index = pdf_page - 1
        if (self.doc is None or not 0 <= index < self.strip.count or index in self._ahead
                or self._cache.has(index, self.scale())):
            return
        self._ahead.append(index)
        self._timer.start()

    def _render_next(self) -> None:
        """Render one queued page, then yield to the event loop before the next."""
        if self.doc is None:
            return
        if not self._queue:
            if self._ahead:  # idle: fill the cache for what comes next
                self._cache.pixmap(self.doc, self._ahead.pop(0), self.scale())
                if self._ahead:
                    self._timer.start()
            return
        index = self._queue.pop(0)
        if index not in self._items:
            scale = self.scale()
            item = QGraphicsPixmapItem(self._cache.pixmap(self.doc, index, scale), self.strip.items[index])
            item.setTransformationMode(Qt.TransformationMode.SmoothTransformation)
            item.setScale(1.0 / scale)
            item.setZValue(0)
            self._items[index] = item
            self._drop_far_pixmaps()
            self.pageRendered.emit(index + 1)
        if self._queue or self._ahead:
            self._timer.start()

    def _drop_far_pixmaps(self) -> None:
        """Keep memory flat on long grammars: forget pixmap items far from the viewport."""
        if len(self._items) <= CACHE_PAGES:
            return
        visible = self.visible() or [0]
        centre = visible[len(visible) // 2]
        farthest = sorted(self._items, key=lambda i: -abs(i - centre))
        for index in farthest[: len(self._items) - CACHE_PAGES]:
            self.strip.scene.removeItem(self._items.pop(index))
