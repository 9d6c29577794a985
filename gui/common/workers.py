"""The one place where GrammarLens runs work off the UI thread.

Shaped like superqt's ``WorkerBase``: a :class:`QRunnable` does the work, a separate signals
``QObject`` (living on the GUI thread) carries results back, the work is wrapped in
try/except so a failure becomes an ``errored`` signal instead of a dead thread, ``finished``
is always emitted, and the :class:`WorkerPool` keeps strong references to live workers so
Python never collects one mid-flight.  Cancellation goes through :class:`core.progress.Progress`:
core jobs check it between chunks and raise :class:`core.errors.Cancelled`.

Workers never touch widgets.  A job that needs the project opens its own connection
(SQLite connections are not shared across threads).
"""

from __future__ import annotations

import sys
import time
import traceback
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

from core.errors import Cancelled
from core.progress import Progress

Job = Callable[[Progress], Any]

PROGRESS_INTERVAL_S = 0.05  # at most 20 progress signals a second: a flood would stall the UI thread


def make_worker_imports_safe() -> None:
    """Keep PySide's import hook from running source inspection for modules imported in workers.

    PySide6 replaces ``__import__`` to support ``from __feature__ import snake_case`` and, for every
    new Python module, runs ``inspect.getsource`` on it -- also in worker threads, where our jobs
    import a lot lazily (keyring backends, openai resources, torch for the reranker).  That is
    slow and has been seen to crash when it races the UI thread.  GrammarLens never uses
    ``__feature__``, so answering "does not use PySide" for every module is exact.  Idempotent;
    a PySide without this hook is left alone.
    """
    feature = sys.modules.get("PySide6.support.feature")
    if feature is not None and hasattr(feature, "_mod_uses_pyside"):
        feature._mod_uses_pyside = lambda module: False


class WorkerSignals(QObject):
    """Signals of one worker; created on the GUI thread so slots run there."""

    progress = Signal(int, int, str)  # done, total, message
    result = Signal(object)
    errored = Signal(object)  # the exception (GrammarLensError for user errors, anything else is a bug)
    cancelled = Signal()
    finished = Signal()


class Worker(QRunnable):
    """Runs ``job(progress)`` on a pool thread and reports through :attr:`signals`."""

    def __init__(self, job: Job, name: str = "work") -> None:
        super().__init__()
        self.setAutoDelete(False)  # the pool keeps the Python reference; Qt must not delete it under us
        self.job = job
        self.name = name
        self.signals = WorkerSignals()
        self._last_emit = 0.0
        self.progress = Progress(callback=self._report)
        self.done = False

    def _report(self, done: int, total: int, message: str) -> None:
        now = time.monotonic()
        if done >= total or now - self._last_emit >= PROGRESS_INTERVAL_S:
            self._last_emit = now
            self.signals.progress.emit(done, total, message)

    def cancel(self) -> None:
        """Ask the job to stop at its next progress step (safe from any thread)."""
        self.progress.cancel()

    @Slot()
    def run(self) -> None:
        try:
            self.progress.check()
            value = self.job(self.progress)
        except Cancelled:
            self.signals.cancelled.emit()
        except Exception as exc:
            if self.progress.cancelled:  # failed because it was stopped (a model killed at quitting): cancelled
                self.signals.cancelled.emit()
                return
            exc.__traceback_text__ = traceback.format_exc()  # type: ignore[attr-defined]
            self.signals.errored.emit(exc)
        else:
            if self.progress.cancelled:
                self.signals.cancelled.emit()
            else:
                self.signals.result.emit(value)
        finally:
            self.done = True
            self.signals.finished.emit()


class WorkerPool(QObject):
    """Starts workers, keeps them alive until they finish, and cancels them all on shutdown."""

    def __init__(self, parent: QObject | None = None, max_threads: int = 2) -> None:
        super().__init__(parent)
        make_worker_imports_safe()
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(max_threads)
        self._live: set[Worker] = set()

    def start(
        self,
        job: Job,
        *,
        name: str = "work",
        on_result: Callable[[Any], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        on_progress: Callable[[int, int, str], None] | None = None,
        on_cancelled: Callable[[], None] | None = None,
        on_finished: Callable[[], None] | None = None,
    ) -> Worker:
        """Run ``job`` in the background; callbacks run on the GUI thread."""
        worker = Worker(job, name)
        s = worker.signals
        if on_result:
            s.result.connect(on_result)
        if on_error:
            s.errored.connect(on_error)
        if on_progress:
            s.progress.connect(on_progress)
        if on_cancelled:
            s.cancelled.connect(on_cancelled)
        if on_finished:
            s.finished.connect(on_finished)
        s.finished.connect(lambda w=worker: self._live.discard(w))
        self._live.add(worker)
        self.pool.start(worker)
        return worker

    @property
    def live(self) -> list[Worker]:
        return [w for w in self._live if not w.done]

    def cancel_all(self) -> None:
        for worker in list(self._live):
            worker.cancel()

    def shutdown(self, timeout_ms: int = 30000) -> bool:
        """Cancel everything and wait for the threads; true when all stopped in time."""
        self.cancel_all()
        return self.pool.waitForDone(timeout_ms)
