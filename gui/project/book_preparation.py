"""Getting an open project ready for retrieval in the background: indexes, the model, every paragraph's vector.

Why: the first evidence of a session used to wait for everything at once (BM25 and phrase indexes,
then loading the embedding model, then embedding the feature's candidates), 10-35 s before a list
appeared.  When a project opens, :class:`BookPreparation` builds the indexes in a worker, starts the
embedding model (in its child process, see core.retrieval.model_process, so loading it holds no
worker thread), and then embeds the whole book (core.retrieval.book_embeddings) as a chain of short
jobs of at most :data:`SLICE_S` seconds each.  Short jobs matter: the window has two worker threads,
and the person's own work (a retrieval, a classification, the look-ahead) must never queue behind a
minute of embedding; before each slice the chain also waits (up to :data:`YIELD_MAX_MS`) while other
jobs run.  Everything is stored batch by batch, so closing the window, a crash or a kill loses at most
one batch and the next opening continues.  The jobs are quiet (no task bar); ``progressed`` reports
how far the book is.  The paragraphs the coder needs next go first: the candidates of the feature on
screen and of those the coding pass names ahead (:meth:`BookPreparation.use_upcoming`), feature after
feature, then the rest of the book, so a pass at a key a second finds re-ranked evidence while the book
still embeds.  After each slice :attr:`BookPreparation.featuresReady` names the upcoming features whose
candidates all have a vector (and whose query vectors are computed): their re-ranking asks the model
nothing, so it never waits for a batch in flight, and it is started then rather than embedding the
candidates itself in a worker that cannot be interrupted (the feature controller and the look-ahead).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Sequence

from PySide6.QtCore import QObject, QTimer, Signal

from gui.common import backend
from gui.common.operations import Operation, OperationRunner
from gui.common.settings import AppSettings

SLICE_S = 0.6  # longest embedding job: a retrieval that finds both threads busy waits at most this long
RETRY_MS = 250  # while the model loads, look again this often
YIELD_MS = 50  # while other jobs run, look again this often ...
YIELD_MAX_MS = 1000  # ... but not longer than this before the next slice
RATE_MEMORY = 0.3  # weight of the newest slice in the paragraphs-a-second estimate


class BookPreparation(QObject):
    """Prepares the open project for retrieval in the background (see the module docstring)."""

    progressed = Signal(int, int)  # paragraphs with a vector, all paragraphs
    finished = Signal()  # indexes built and every paragraph embedded (or nothing to embed)
    featuresReady = Signal(object)  # after each slice (and when stopped): tuple of the upcoming features now ready

    def __init__(self, runner: OperationRunner, settings: Callable[[], AppSettings],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner, self.settings = runner, settings
        self.project_path: Path | None = None
        self.done = False
        self.embedded = (0, 0)  # (with a vector, total) as last reported
        self.last_error: BaseException | None = None
        self._goal: tuple | None = None  # (project, settings) being prepared
        self._operation: Operation | None = None
        self._yield_started = 0.0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._next_slice)
        self._upcoming: Callable[[], Sequence[str]] = lambda: ()
        self._seconds_left: Callable[[], dict[str, float]] = dict
        self.rate: float | None = None  # paragraphs embedded a second, recently (for core.retrieval.schedule)
        self._first: str | None = None  # the feature on screen waiting for its re-ranked order: its candidates first
        self.ready: set[str] = set()  # features whose candidates all have a vector (this project and settings)

    def use_upcoming(self, source: Callable[[], Sequence[str]]) -> None:
        """Where to learn which features come next (the coding pass's look-ahead): their paragraphs go first."""
        self._upcoming = source

    def use_seconds_left(self, source: Callable[[], dict[str, float]]) -> None:
        """Where to learn how long the coder will stay on each upcoming feature (the look-ahead, from their pace):
        a feature that would be left before its candidates are embedded is passed over."""
        self._seconds_left = source

    def want_first(self, feature_id: str | None) -> None:
        """Embed this feature's candidates before any other's (the feature on screen waits for its re-ranked order)."""
        self._first = feature_id

    def waits_for(self, feature_id: str) -> bool:
        """True while this preparation is embedding the book and the feature's candidates are not all done yet:
        a re-ranking started now would embed them itself, in a worker nothing can interrupt."""
        return self.running and not self.done and self.last_error is None and feature_id not in self.ready

    # ------------------------------------------------------------------ what the controller asks
    def warm_model(self) -> None:
        """Start loading the configured embedding model now (the window is starting); returns at once."""
        retrieval = self.settings().retrieval
        if retrieval.reranker and retrieval.ranking != "bm25" and backend.model_process_mode():
            Operation(self.runner, lambda _progress: backend.start_model(retrieval)).failure(
                lambda _exc: None).run_in_background()

    def start(self, project_path: Path | None, *, again: bool = False) -> None:
        """Prepare ``project_path`` (None: stop).

        A project prepared (or being prepared, or failed) with today's settings is left alone unless
        ``again`` (a grammar was added: its paragraphs need vectors too).
        """
        retrieval = self.settings().retrieval
        goal = None if project_path is None else (str(project_path), retrieval.to_json())
        if not again and goal is not None and goal == self._goal and (self.running or self.done or self.last_error):
            return
        self.cancel()
        self.project_path, self._goal, self.done, self.last_error = project_path, goal, False, None
        self.ready = set()
        if project_path is None:
            return
        self._operation = (Operation(self.runner, lambda progress: backend.prepare_project(project_path, retrieval,
                                                                                            progress))
                           .success(lambda _built: self._scheduled(goal, 0))
                           .failure(lambda exc: self._failed(goal, exc))
                           .run_in_background())

    def ensure(self) -> None:
        """Start again if the settings changed since (a new model needs its own vectors)."""
        if self.project_path is not None:
            self.start(self.project_path)

    def cancel(self) -> None:
        """Stop (the project closes): what was embedded is stored; the next opening continues."""
        self._goal = None
        self._timer.stop()
        if self._operation is not None and self._operation.running:
            self._operation.cancel()

    @property
    def running(self) -> bool:
        return self._timer.isActive() or (self._operation is not None and self._operation.running)

    # ------------------------------------------------------------------ the chain of slices
    def _scheduled(self, goal: tuple | None, delay_ms: int) -> None:
        if goal is None or goal != self._goal:
            return  # cancelled or replaced meanwhile
        self._yield_started = 0.0
        self._timer.start(delay_ms)

    def _next_slice(self) -> None:
        goal, path = self._goal, self.project_path
        if goal is None or path is None or self.last_error is not None:
            return
        others = [w for w in self.runner.pool.live
                  if self._operation is None or w is not self._operation.worker]
        now = time.monotonic()
        if others:
            if not self._yield_started:
                self._yield_started = now
            if now - self._yield_started < YIELD_MAX_MS / 1000:
                self._timer.start(YIELD_MS)  # the person's work first
                return
        self._yield_started = 0.0
        retrieval = self.settings().retrieval
        if retrieval.to_json() != goal[1]:
            self.start(path)  # the settings changed: prepare for the new ones
            return
        upcoming = tuple(dict.fromkeys(([self._first] if self._first else []) + list(self._upcoming())))
        left, rate = self._seconds_left(), self.rate
        self._operation = (Operation(self.runner, lambda progress: backend.embed_slice(path, retrieval, progress,
                                                                                        SLICE_S, upcoming, left, rate))
                           .success(lambda run: self._sliced(goal, run))
                           .failure(lambda exc: self._failed(goal, exc))
                           .run_in_background())

    def _sliced(self, goal: tuple, result: Any) -> None:
        if goal != self._goal:
            return
        if result is None:  # the model is still loading
            self._scheduled(goal, RETRY_MS)
            return
        run = result.run
        if run.embedded and run.seconds > 0:
            rate = run.embedded / run.seconds
            self.rate = rate if self.rate is None else RATE_MEMORY * rate + (1 - RATE_MEMORY) * self.rate
        self.embedded = (run.total - run.remaining, run.total)
        self.done = run.complete
        self.ready.update(result.ready)
        self.progressed.emit(*self.embedded)
        self.featuresReady.emit(tuple(result.ready))
        if run.complete:
            self.finished.emit()
        else:
            self._scheduled(goal, 0)

    def _failed(self, goal: tuple | None, exc: BaseException) -> None:
        """A failed preparation stays quiet: the retrieval that needs the model says what is wrong."""
        if goal == self._goal:
            self.last_error = exc  # kept with its goal: the same settings are not tried again until asked
            self._timer.stop()
            self.featuresReady.emit(())  # whoever waited for it goes on without it
