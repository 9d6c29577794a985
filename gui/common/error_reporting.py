"""Every failure reaches the person, in the window's error dialog, once per burst of the same error.

Why: an exception escaping a slot, a menu action, a paint event or a background job used to be
printed to the terminal only, which a linguist never sees: the click seemed to do nothing.
:class:`ErrorReporter` shows a failure with :func:`gui.common.error_dialog.error_box` (a
:class:`core.errors.GrammarLensError`: its message and hint; anything else: a bug, with the
traceback to copy), asks the window to abandon the failed step (roll back a transaction left
open), and folds a burst of the same error (a paint event failing on every repaint, a job failing
for feature after feature) into the one dialog already shown.  :func:`install_exception_hooks`
sends exceptions nobody caught to it: ``sys.excepthook`` (PySide6 calls it for an exception that
escapes a Python slot or virtual override) and ``threading.excepthook``, always on the GUI thread.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Callable

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtWidgets import QMessageBox, QWidget

from core.errors import GrammarLensError, error_text
from gui.common.error_dialog import SHOWN_MARK, error_box

BURST_S = 2.0  # the same error again within this time of the last one, or while its box is open: one burst
MAX_OPEN = 3  # distinct errors shown at once; more go to the status bar only
UNCAUGHT_TITLE = "GrammarLens hit a problem"

Report = Callable[[str, BaseException], object]


def signature(exc: BaseException) -> tuple[str, ...]:
    """What makes two failures "the same error": a user error's message; a bug's type and the line that raised it.

    A bug's message often names the feature or row it failed on (``KeyError('81A')``, then ``'82A'``),
    so a job failing feature after feature is still one burst.
    """
    if isinstance(exc, GrammarLensError):
        return type(exc).__name__, exc.message
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    where = f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}" if tb is not None else str(exc)
    return type(exc).__name__, where


@dataclass
class _Burst:
    box: QMessageBox
    last: float
    repeats: int = 0


class ErrorReporter(QObject):
    """Shows failures over ``parent`` (window-modal boxes that never block), one box per burst."""

    shown = Signal(str)  # the error's one-line text, for every report (a repeat too)

    def __init__(self, parent: QWidget, status: Callable[[str, int], None] | None = None,
                 abandon: Callable[[], None] | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(parent)
        self.window = parent
        self.status = status or (lambda _text, _ms: None)
        self.abandon = abandon or (lambda: None)
        self.clock = clock
        self.last_box: QMessageBox | None = None
        self.boxes_opened = 0
        self._bursts: dict[tuple[str, ...], _Burst] = {}

    def report(self, title: str, exc: BaseException) -> QMessageBox:
        """Tell about ``exc`` (a new box, or the open one of its burst); returns the box that shows it."""
        if not isinstance(exc, GrammarLensError):
            self.abandon()  # a bug may have left the step half-way: nothing of it may stay pending
        text = error_text(exc)
        now, key = self.clock(), signature(exc)
        self._forget_old(now)
        burst = self._bursts.get(key)
        open_boxes = [b.box for b in self._bursts.values() if b.box.isVisible()]
        if burst is not None and (burst.box.isVisible() or now - burst.last < BURST_S):
            burst.last, burst.repeats = now, burst.repeats + 1
            self.status(f"{text} (again: {burst.repeats + 1} times)", 10000)
            box = burst.box
        elif len(open_boxes) >= MAX_OPEN:
            self.status(text, 10000)  # the person has enough to read; the status bar still says it
            box = open_boxes[-1]
        else:
            box = error_box(self.window, title, exc)
            self._bursts[key] = _Burst(box, now)
            self.boxes_opened += 1
            self.status(text, 10000)
        self.last_box = box
        self.shown.emit(text)
        return box

    def _forget_old(self, now: float) -> None:
        for key, burst in list(self._bursts.items()):
            if not burst.box.isVisible() and now - burst.last >= BURST_S:
                del self._bursts[key]
                if burst.box is not self.last_box:
                    burst.box.deleteLater()


class _Relay(QObject):
    """Carries an uncaught exception to the GUI thread (queued: never shown from inside a paint or a worker)."""

    caught = Signal(str, object)

    def __init__(self, report: Report) -> None:
        super().__init__()
        self._report = report
        self.caught.connect(self._deliver, Qt.ConnectionType.QueuedConnection)

    @Slot(str, object)
    def _deliver(self, title: str, exc: object) -> None:
        if not getattr(exc, SHOWN_MARK, False):
            self._report(title, exc)  # type: ignore[arg-type]


def install_exception_hooks(report: Report) -> Callable[[], None]:
    """Send every exception nobody caught to ``report`` on the GUI thread; returns the function that undoes it.

    The traceback is still printed (the previous hooks run first), so a terminal shows it as before.
    Call on the GUI thread, once the window that shows errors exists (:func:`gui.app.run_app`).
    """
    relay = _Relay(report)
    previous_sys, previous_threading = sys.excepthook, threading.excepthook

    def relay_exception(exc: BaseException, tb) -> None:
        try:
            text = "".join(traceback.format_exception(type(exc), exc, tb))
            exc.__traceback_text__ = text  # type: ignore[attr-defined]
        except AttributeError:
            pass
        relay.caught.emit(UNCAUGHT_TITLE, exc)

    def sys_hook(exc_type, exc, tb) -> None:
        previous_sys(exc_type, exc, tb)
        if isinstance(exc, Exception):  # not KeyboardInterrupt, SystemExit
            relay_exception(exc, tb)

    def threading_hook(args: threading.ExceptHookArgs) -> None:
        previous_threading(args)
        if isinstance(args.exc_value, Exception):
            relay_exception(args.exc_value, args.exc_traceback)

    sys.excepthook, threading.excepthook = sys_hook, threading_hook

    def uninstall() -> None:
        if sys.excepthook is sys_hook:
            sys.excepthook = previous_sys
        if threading.excepthook is threading_hook:
            threading.excepthook = previous_threading
        relay.deleteLater()

    return uninstall
