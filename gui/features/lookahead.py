"""Evidence retrieved ahead of the linguist, so that the next feature of a coding pass shows at once.

Why: a coder moves on every few seconds, and retrieval (BM25, the vocabulary ranking and, with a
reranker, embeddings) takes from tens of milliseconds to seconds per feature.  While the linguist
reads one feature, :class:`LookAhead` retrieves the next few in the background, one at a time and
nearest first, and keeps their hits in memory; moving on then shows the evidence without any work
(the feature controller asks :meth:`LookAhead.hits` before it retrieves).  The cache itself is
core's :class:`core.coding.lookahead.EvidenceCache` (thread-safe: the worker fills it, the UI
thread reads it).

Work runs as quiet :class:`gui.common.operations.Operation` (not in the task bar: the person did not ask
for it) on the window's worker pool; it is cancelled when the project closes, when its feature is
no longer wanted, or with :meth:`LookAhead.cancel`.  One cache per project and retrieval settings,
so new settings or a new grammar never show stale evidence.

How far ahead adapts to the coder (:func:`depth`): the pass names up to :data:`AHEAD` features, and
the look-ahead retrieves as many of them as the coder would reach in :data:`HORIZON_S` seconds at
their recent pace (a key a second: 3; two a second: 6), never fewer than :data:`MIN_AHEAD`, and more
when retrievals are slow.  While the embedding model still loads (the first minute after opening),
what is retrieved ahead is provisional (BM25 and vocabulary, see core.retrieval.pipeline): shown at
once, re-ranked when shown, and retrieved again once the model is loaded (EvidenceCache.missing), so
coming back never shows a stale order.  Evidence of the feature on screen is kept only when final.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from PySide6.QtCore import QObject, QTimer, Signal

from core.catalog.model import Feature
from core.coding.lookahead import EvidenceCache, Prefetched
from core.store import open_project
from gui.common.operations import Operation, OperationRunner
from gui.common.settings import AppSettings

AHEAD = 8  # features the pass names ahead of the one on screen (the most looked ahead)
MIN_AHEAD = 2  # features retrieved ahead however slow the coder
HORIZON_S = 3.0  # look this many seconds ahead of the coder's pace
PACE_MEMORY = 0.5  # weight of the newest interval between two features in the coder's pace
# Look ahead only once the feature on screen is shown: a worker started at once competes with the
# evidence list and the page rendering for Python's GIL (measured: ~10 ms of each step).
START_DELAY_MS = 120


class LookAhead(QObject):
    """The GUI side of :class:`core.coding.lookahead.EvidenceCache`: filled in the background, read at once."""

    ready = Signal(str)  # feature id whose evidence is now at hand

    def __init__(self, runner: OperationRunner, settings: Callable[[], AppSettings],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner, self.settings = runner, settings
        self.enabled = True
        self.project_path: Path | None = None
        self._cache: EvidenceCache | None = None
        self._cache_key: tuple[str, str] | None = None
        self._operation: Operation | None = None
        self._running: list[str] = []  # ids the running operation retrieves
        self._pending: list[str] = []  # ids wanted once it is done
        self.pace_s: float | None = None  # the coder's recent seconds per feature (None: not known yet)
        self._shown: tuple[str, float] | None = None  # the feature the last prefetch was for, and when
        self._upcoming: tuple[str, ...] = ()  # the feature on screen and those the pass names next
        self._delay = QTimer(self)
        self._delay.setSingleShot(True)
        self._delay.setInterval(START_DELAY_MS)
        self._delay.timeout.connect(self._start)

    # ------------------------------------------------------------------ what others ask
    def set_project(self, path: Path | None) -> None:
        """A project was opened, closed or got another grammar: forget everything retrieved so far."""
        self.cancel()
        self._cache, self._cache_key, self._upcoming = None, None, ()
        self.project_path = path

    def cache(self) -> EvidenceCache | None:
        """The cache of the open project under today's retrieval settings (a new one when they changed)."""
        if self.project_path is None:
            return None
        retrieval = self.settings().retrieval
        key = (str(self.project_path), retrieval.to_json())
        if key != self._cache_key:
            self._cache, self._cache_key = EvidenceCache(retrieval), key
        return self._cache

    def hits(self, feature: Feature) -> list[Any] | None:
        """The feature's evidence if it was retrieved ahead (with today's settings), else None."""
        cache = self.cache()
        found = cache.get(feature.id) if cache is not None else None
        return None if found is None else list(found.hits)

    def put(self, feature: Feature, hits: Sequence[Any]) -> None:
        """Keep evidence retrieved elsewhere (the feature on screen), so coming back to it is instant too.

        Provisional evidence is not kept: its re-ranked order follows, and is kept then.
        """
        cache = self.cache()
        if cache is not None and not any(getattr(h, "provisional", False) for h in hits):
            cache.put(Prefetched(feature.id, tuple(hits), 0.0))

    def depth(self) -> int:
        """How many of the upcoming features to retrieve now (see the module docstring)."""
        if self.pace_s is None:
            return MIN_AHEAD + 1
        cache = self.cache()
        seconds = (cache.mean_seconds() if cache is not None else None) or 0.0
        horizon = max(HORIZON_S, 4 * seconds)  # slow retrievals need a longer head start
        return max(MIN_AHEAD, min(AHEAD, math.ceil(horizon / max(self.pace_s, 0.05))))

    def _note_pace(self, current: str) -> None:
        """The coder moved to ``current``: update their pace (seconds per feature, smoothed)."""
        now = time.monotonic()
        if self._shown is not None and self._shown[0] != current:
            interval = min(now - self._shown[1], 30.0)
            self.pace_s = interval if self.pace_s is None else \
                PACE_MEMORY * interval + (1 - PACE_MEMORY) * self.pace_s
        if self._shown is None or self._shown[0] != current:
            self._shown = (current, now)

    def prefetch(self, features: Sequence[Feature], current: Feature | None = None) -> None:
        """Retrieve these features' evidence in the background, nearest first; drops what is no longer wanted.

        ``features`` are the pass's next ones after ``current`` (the feature on screen, by default the
        one before the first of ``features``); only the first :meth:`depth` of them are retrieved.
        """
        cache = self.cache()
        if not self.enabled or cache is None:
            return
        self._upcoming = tuple(dict.fromkeys(([current.id] if current is not None else []) + [f.id for f in features]))
        if features:
            self._note_pace(current.id if current is not None else f"before {features[0].id}")
        wanted = cache.missing([f.id for f in features[: self.depth()]])
        if self.busy_retrieving and not set(self._running) & set(wanted):
            self._operation.cancel() if self._operation is not None else None  # what it got stays cached
        self._pending = wanted
        self._delay.start()

    def features_ready(self, feature_ids: Sequence[str]) -> None:
        """The book's preparation embedded these features' candidates: retrieve again at once those of them
        looked ahead provisionally, so the coder reaching them sees the re-ranked order without waiting."""
        cache = self.cache()
        if not self.enabled or cache is None:
            return
        near = set(self._upcoming[1:1 + self.depth()])  # those the look-ahead retrieves (not the one on screen)
        stale = cache.mark_ready([f for f in feature_ids if f in near])
        if stale:
            self._pending = list(dict.fromkeys([*self._pending, *stale]))
            if not self.busy_retrieving:
                self._start()

    def seconds_left(self) -> dict[str, float]:
        """How long the coder is expected to stay before leaving each upcoming feature, at their recent pace
        (the book's preparation passes over a feature it cannot embed in time); none while the pace is not
        known, or when the coder stays on the feature on screen longer than their pace (they read it: it goes first)."""
        if self.pace_s is None or self._shown is None or not self._upcoming or self._shown[0] != self._upcoming[0]:
            return {}
        now = time.monotonic()
        if now - self._shown[1] > self.pace_s:
            return {}
        return {fid: self._shown[1] + (k + 1) * self.pace_s - now for k, fid in enumerate(self._upcoming)}

    def upcoming(self) -> tuple[str, ...]:
        """Ids of the features the coder meets next, nearest first: the book embeds their paragraphs first
        (gui.project.book_preparation), so their evidence is re-ranked from the first minute."""
        return self._upcoming if self.project_path is not None else ()

    def cancel(self) -> None:
        """Stop retrieving ahead (the project closes, the pass ends)."""
        self._pending = []
        self._delay.stop()
        if self._operation is not None and self._operation.running:
            self._operation.cancel()

    @property
    def busy_retrieving(self) -> bool:
        return self._operation is not None and self._operation.running

    @property
    def busy(self) -> bool:
        """True while a look-ahead retrieval runs or waits (the bench waits for it to finish)."""
        return bool(self._pending) or self.busy_retrieving

    # ------------------------------------------------------------------ the background work
    def _start(self) -> None:
        cache, path = self.cache(), self.project_path
        if self.busy_retrieving or cache is None or path is None:
            return
        ids, self._pending = cache.missing(self._pending), []
        if not ids:
            return
        self._running = ids

        def job(progress) -> list[str]:
            with open_project(path) as project:  # the worker's own connection
                return cache.prefetch(project, ids, progress)

        def finished() -> None:
            for fid in self._running:
                if cache.get(fid) is not None:
                    self.ready.emit(fid)
            self._running = []
            self._start()

        # A look-ahead that fails stays quiet: the feature is retrieved again, visibly, when shown.
        self._operation = (Operation(self.runner, job).failure(lambda _exc: None).finished(finished)
                           .run_in_background())
