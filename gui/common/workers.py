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


# PySide6 6.11's shibokensupport/feature.py, read from the installed package: the module behind ``__feature__``.
FEATURE_MODULE = "PySide6.support.feature"
FEATURE_PROBE = "_mod_uses_pyside"


def _uses_no_feature(module: object) -> bool:
    """PySide's question "does this module use ``from __feature__ import ...``?", answered for GrammarLens: no."""
    return False


def make_worker_imports_safe() -> bool:
    """Keep PySide's import hook from reading the source of every module a worker imports.

    What it works around.  Importing PySide6 replaces ``builtins.__import__`` with a C function
    (``__feature_import__``, there for the opt-in ``from __feature__ import snake_case, true_property``).
    After every import of a module it has not seen, in any thread, it calls
    ``feature.feature_imported(module)``, which calls ``_mod_uses_pyside(module)``: that runs
    ``inspect.getsource(module)`` (through the global, unlocked ``linecache``) and searches the text
    for "PySide6".  Our workers import a lot lazily (keyring backends, the openai SDK's resources,
    pymupdf), so each first job re-reads hundreds of source files on a pool thread while the UI thread
    may be using ``linecache`` too (tracebacks, warnings).  The window crashed in a worker's import
    when this was added (commit e81b67b, the 770-page bench; no traceback was kept); the same
    hook is reported to segfault when ``getsource`` itself imports (pyzo/pyzo#851) and to cost
    seconds at start-up (napari/napari#8584).  Measured here: a worker importing openai, keyring
    and pymupdf (≈800 modules) takes 1.34-1.42 s with the probe and 1.16-1.33 s without.

    Why not a supported switch: PySide 6.11 has none.  The module's public names are the features,
    ``info``, ``reset`` and ``set_selection`` (documented "internal use"); ``set_selection(-1, name)``
    marks one module as ignored, which needs its name before it is imported, and the hook cannot be
    turned off without losing PySide's own signature support.  So the probe is replaced, and only it:
    GrammarLens never writes ``from __feature__`` (tests/gui/test_workers_import_hook.py checks the
    tree), so "no module uses a feature" is exact, not an approximation.  Returns whether the probe
    was found (a PySide without it is left alone, and the test says so when PySide changes).
    Idempotent.
    """
    feature = sys.modules.get(FEATURE_MODULE)
    if feature is None or not callable(getattr(feature, FEATURE_PROBE, None)):
        return False
    setattr(feature, FEATURE_PROBE, _uses_no_feature)  # the name is private to PySide: see above
    return True


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
