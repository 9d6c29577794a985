"""Background operations, read as one sentence: ``Operation(runner, job).success(cb).run_in_background()``.

Why: every panel has long work (retrieval, classification, a profile refresh, an estimate), and
the window used to track it in a dict keyed by strings ("retrieve", "classify"), with labels and
"quiet" flags pinned onto workers afterwards.  Here each caller keeps the :class:`Operation` it
started (cancel it, ask whether it still runs), says what happens on success, failure or cancel,
and asks for the task bar with :meth:`Operation.with_progress`.  The :class:`OperationRunner`
knows which operations the person can see and cancel (the task bar listens to it) and reports
failures nobody handled, and every bug (a failure callback may not swallow one).  Threads,
signals and cancellation are :mod:`gui.common.workers`' job; the idea follows Anki's
``QueryOp(parent, op).success(...).failure(...).with_progress(...)``.
"""

from __future__ import annotations

from typing import Callable, Generic, TypeVar

from PySide6.QtCore import QObject, Signal

from core.errors import GrammarLensError
from core.progress import Progress
from gui.common.error_dialog import SHOWN_MARK
from gui.common.workers import Worker, WorkerPool

T = TypeVar("T")


class OperationRunner(QObject):
    """Starts operations on one worker pool and keeps the list of visible ones (with a label)."""

    changed = Signal()  # the visible operations changed (one started or finished)
    progressed = Signal(str, int, int, str)  # label, done, total, message of a visible operation
    failed = Signal(str, object)  # label, exception: a failure no ``failure`` callback handled, or any bug

    def __init__(self, pool: WorkerPool | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = pool or WorkerPool(self)
        self._visible: list[Operation] = []
        self._live: set[Operation] = set()  # strong references: a caller may drop its operation

    def visible(self) -> list[Operation]:
        """Running operations shown in the task bar, oldest first."""
        return list(self._visible)

    @property
    def busy(self) -> bool:
        return bool(self._visible)

    def cancel_visible(self) -> None:
        """What Cancel (Esc) does: stop every operation the person can see; quiet ones go on."""
        for operation in list(self._visible):
            operation.cancel()

    def shutdown(self, timeout_ms: int = 30000) -> bool:
        """Cancel everything and wait for the threads (the window's close); true when all stopped."""
        return self.pool.shutdown(timeout_ms)

    # called by Operation
    def _started(self, operation: Operation) -> None:
        self._live.add(operation)
        if operation.label:
            self._visible.append(operation)
            self.changed.emit()

    def _finished(self, operation: Operation) -> None:
        self._live.discard(operation)
        if operation in self._visible:
            self._visible.remove(operation)
            self.changed.emit()


class Operation(Generic[T]):
    """One job run off the UI thread; callbacks run on the UI thread, in the order they were added.

    ``job`` takes a :class:`core.progress.Progress` (check it between chunks, report with
    ``step``) and returns the result handed to ``success``.  ``finished`` callbacks run last,
    whatever happened.  What a callback returns is ignored (typed ``object`` so that a callback may be
    a call that happens to return something, such as an error box).
    """

    def __init__(self, runner: OperationRunner, job: Callable[[Progress], T]) -> None:
        self.runner = runner
        self.job = job
        self.label = ""
        self.worker: Worker | None = None
        self._done = False  # set on the UI thread once every callback has run
        self._superseded = False  # replaced by a newer operation: a late result is dropped
        self._success: list[Callable[[T], object]] = []
        self._failure: list[Callable[[BaseException], object]] = []
        self._cancelled: list[Callable[[], object]] = []
        self._progress: list[Callable[[int, int, str], object]] = []
        self._finished: list[Callable[[], object]] = []

    # ------------------------------------------------------------------ building
    def success(self, callback: Callable[[T], object]) -> Operation[T]:
        self._success.append(callback)
        return self

    def failure(self, callback: Callable[[BaseException], object]) -> Operation[T]:
        self._failure.append(callback)
        return self

    def cancelled(self, callback: Callable[[], object]) -> Operation[T]:
        self._cancelled.append(callback)
        return self

    def progress(self, callback: Callable[[int, int, str], object]) -> Operation[T]:
        self._progress.append(callback)
        return self

    def finished(self, callback: Callable[[], object]) -> Operation[T]:
        self._finished.append(callback)
        return self

    def with_progress(self, label: str) -> Operation[T]:
        """Show this operation in the task bar under ``label``, with its progress and Cancel."""
        self.label = label
        return self

    def run_in_background(self) -> Operation[T]:
        if self.worker is not None:
            raise RuntimeError("an operation runs once; build a new one")
        self.worker = self.runner.pool.start(
            self.job, name=self.label or "operation", on_result=self._on_result, on_error=self._on_error,
            on_progress=self._on_progress, on_cancelled=self._on_cancelled, on_finished=self._on_finished)
        self.runner._started(self)
        return self

    # ------------------------------------------------------------------ state
    @property
    def running(self) -> bool:
        """True from the start until its callbacks have run (not merely until the thread is done)."""
        return self.worker is not None and not self._done

    def cancel(self) -> None:
        """Ask the job to stop at its next progress step; ``cancelled`` callbacks run when it has.

        A job that had already finished still delivers its result (an ingest that committed did
        add the grammar); :func:`replace` is the way to drop a result nobody wants.
        """
        if self.worker is not None:
            self.worker.cancel()

    # ------------------------------------------------------------------ worker signals (UI thread)
    def _on_result(self, value: object) -> None:
        if self._superseded:
            self._on_cancelled()  # replaced after its job returned: the result is nobody's any more
            return
        for callback in self._success:
            callback(value)  # type: ignore[arg-type]

    def _on_error(self, exc: BaseException) -> None:
        """``failure`` callbacks handle a user's error; nobody may swallow a bug.

        A :class:`core.errors.GrammarLensError` goes to the ``failure`` callbacks (a panel says it
        in place, a quiet look-ahead drops it), or to the runner when there are none.  Any other
        exception is a bug in GrammarLens: the callbacks still run (they put their panel back),
        then the runner reports it with its traceback, unless a callback already showed it.
        """
        for callback in self._failure:
            callback(exc)
        if not self._failure or not (isinstance(exc, GrammarLensError) or getattr(exc, SHOWN_MARK, False)):
            self.runner.failed.emit(self.label or "A background task failed", exc)

    def _on_cancelled(self) -> None:
        for callback in self._cancelled:
            callback()

    def _on_progress(self, done: int, total: int, message: str) -> None:
        for callback in self._progress:
            callback(done, total, message)
        if self.label:
            self.runner.progressed.emit(self.label, done, total, message)

    def _on_finished(self) -> None:
        self._done = True
        self.runner._finished(self)
        for callback in self._finished:
            callback()


def replace(old: Operation | None, new: Operation[T]) -> Operation[T]:
    """Cancel ``old`` (a result nobody wants any more) and start ``new``; returns ``new``, running."""
    if old is not None and old.running:
        old._superseded = True
        old.cancel()
    return new.run_in_background()
