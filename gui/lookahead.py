"""Evidence retrieved ahead of the linguist, so that the next feature of a coding pass shows at once.

Why: a coder moves on every few seconds, and retrieval (BM25, the vocabulary ranking and, with a
reranker, embeddings) takes from tens of milliseconds to seconds per feature.  While the linguist
reads one feature, :class:`LookAhead` retrieves the next few in the background, one at a time and
nearest first, and keeps their hits in memory; moving on then shows the evidence without any work
(the feature controller asks :meth:`LookAhead.hits` before it retrieves).

Work runs as quiet :class:`gui.operations.Operation` (not in the task bar: the person did not ask
for it) on the window's worker pool; it is cancelled when the project closes, when its feature is
no longer wanted, or with :meth:`LookAhead.cancel`.  Hits are keyed by project, feature and the
retrieval settings, so new settings or a new grammar never show stale evidence.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable, Sequence

from PySide6.QtCore import QObject, Signal

from core.catalog.model import Feature
from gui import backend
from gui.operations import Operation, OperationRunner
from gui.settings import AppSettings

KEEP_FEATURES = 64  # hits of this many features stay in memory (a few hundred KB)
AHEAD = 3  # features retrieved ahead of the one on screen


class LookAhead(QObject):
    """A small cache of retrieval results, filled in the background for the features coming next."""

    ready = Signal(str)  # feature id whose evidence is now at hand

    def __init__(self, runner: OperationRunner, settings: Callable[[], AppSettings],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner, self.settings = runner, settings
        self.enabled = True
        self.project_path: Path | None = None
        self._cache: OrderedDict[tuple[str, str], list[Any]] = OrderedDict()
        self._queue: list[Feature] = []
        self._operation: Operation | None = None
        self._running: Feature | None = None

    # ------------------------------------------------------------------ what others ask
    def set_project(self, path: Path | None) -> None:
        """A project was opened, closed or got another grammar: forget everything retrieved so far."""
        self.cancel()
        self._cache.clear()
        self.project_path = path

    def hits(self, feature: Feature) -> list[Any] | None:
        """The feature's evidence if it was retrieved ahead (with today's settings), else None."""
        key = self._key(feature.id)
        found = self._cache.get(key)
        if found is not None:
            self._cache.move_to_end(key)
        return None if found is None else list(found)

    def put(self, feature: Feature, hits: Sequence[Any]) -> None:
        """Keep evidence retrieved elsewhere (the feature on screen), so coming back to it is instant too."""
        self._cache[self._key(feature.id)] = list(hits)
        while len(self._cache) > KEEP_FEATURES:
            self._cache.popitem(last=False)

    def prefetch(self, features: Sequence[Feature]) -> None:
        """Retrieve these features' evidence in the background, nearest first; drops what is no longer wanted."""
        if not self.enabled or self.project_path is None:
            return
        wanted = [f for f in features if self.hits(f) is None]
        if self._running is not None and all(f.id != self._running.id for f in wanted):
            self._operation.cancel() if self._operation is not None else None
        self._queue = [f for f in wanted if self._running is None or f.id != self._running.id]
        self._start_next()

    def cancel(self) -> None:
        """Stop retrieving ahead (the project closes, the pass ends)."""
        self._queue = []
        if self._operation is not None and self._operation.running:
            self._operation.cancel()

    @property
    def busy(self) -> bool:
        """True while a look-ahead retrieval runs or waits (the bench waits for it to finish)."""
        return bool(self._queue) or (self._operation is not None and self._operation.running)

    # ------------------------------------------------------------------ the background work
    def _key(self, feature_id: str) -> tuple[str, str]:
        return (f"{self.project_path}|{feature_id}", self.settings().retrieval.to_json())

    def _start_next(self) -> None:
        if self._operation is not None and self._operation.running:
            return
        while self._queue and self.hits(self._queue[0]) is not None:
            self._queue.pop(0)
        if not self._queue or self.project_path is None:
            return
        feature, path, settings = self._queue.pop(0), self.project_path, self.settings()
        key = self._key(feature.id)
        self._running = feature

        def done(hits: list[Any]) -> None:
            if path == self.project_path and key == self._key(feature.id):
                self.put(feature, hits)
                self.ready.emit(feature.id)

        def finished() -> None:
            self._running = None
            self._start_next()

        # A look-ahead that fails stays quiet: the feature is retrieved again, visibly, when shown.
        self._operation = (Operation(self.runner, lambda progress: backend.retrieve(path, feature, settings, progress))
                           .success(done).failure(lambda _exc: None).finished(finished).run_in_background())
