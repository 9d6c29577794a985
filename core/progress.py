"""Progress reporting and cancellation for long core jobs, without any GUI toolkit.

A job receives a :class:`Progress` and calls :meth:`Progress.step` between units of work.
``step`` raises :class:`~core.errors.Cancelled` once cancellation was requested, so a job
stops at a clean boundary (the current transaction is rolled back by the caller's ``with``).
The GUI wraps it with a signal-emitting callback; the CLI prints to stderr; tests call it
directly and need no threads.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable

from core.errors import Cancelled

ProgressCallback = Callable[[int, int, str], None]


@dataclass
class Progress:
    """Counts done/total units, forwards them to ``callback`` and carries a cancel flag."""

    callback: ProgressCallback | None = None
    _cancel: threading.Event = field(default_factory=threading.Event)

    def cancel(self) -> None:
        """Ask the job to stop at its next :meth:`step` (safe from any thread)."""
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def check(self) -> None:
        """Raise :class:`Cancelled` if cancellation was requested."""
        if self._cancel.is_set():
            raise Cancelled()

    def step(self, done: int, total: int, message: str = "") -> None:
        """Report progress, then honour a pending cancellation."""
        if self.callback is not None:
            self.callback(done, total, message)
        self.check()


def null_progress() -> Progress:
    """A progress object that reports nowhere and is never cancelled."""
    return Progress()
