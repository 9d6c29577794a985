"""Python's cyclic garbage collector runs on the GUI thread only, never in a worker.

Why: CPython runs a collection in whichever thread allocates when a generation's count passes its
threshold, and it frees every unreachable cycle, Qt wrappers included (a widget kept alive only by
a lambda connected to its own signal is such a cycle).  Freed in a worker, a wrapper's C++ object
is destroyed off the GUI thread, holding the GIL, while the GUI thread, inside Qt, waits for the
GIL or a lock the destructor wants: both wait for ever, and no timeout thread can end it, since it
needs the GIL too.  Seen in the test suite (faulthandler: the GUI thread in ``QSplitter.addWidget``,
a worker in the collection that ``core.collector`` set off by switching the collector back on after
an index build); a full run once stopped there for 11 minutes.

So the window switches the automatic collector off (:func:`core.collector.hand_over`) and a timer
on the GUI thread runs the generation CPython would have run, when its count passes the same
threshold: garbage goes as before, only from one thread.  Workers never touch Qt objects
(``core`` never imports Qt), so reference counting frees nothing of Qt's there either.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

from core.collector import hand_over, paused

INTERVAL_MS = 100  # how often the GUI thread looks at the counts (a look costs about a microsecond)


class GuiThreadCollector(QObject):
    """Runs due garbage collections on the thread that owns it (the GUI thread); one per application."""

    def __init__(self, parent: QObject, interval_ms: int = INTERVAL_MS) -> None:
        super().__init__(parent)
        hand_over()
        self.collections = [0, 0, 0]  # per generation, for tests and curious benches
        self._timer = QTimer(self, interval=interval_ms)
        self._timer.timeout.connect(self.collect_due)
        self._timer.start()

    def collect_due(self) -> int | None:
        """Collect the oldest generation whose count passed its threshold; which one, or None.

        Not while a worker's long build has the collector paused: its objects all stay alive, and
        walking them here would stall the window as the pause keeps it from stalling the worker.
        """
        if paused():
            return None
        counts, thresholds = gc.get_count(), gc.get_threshold()
        for generation in (2, 1, 0):
            if thresholds[generation] and counts[generation] > thresholds[generation]:
                gc.collect(generation)
                self.collections[generation] += 1
                return generation
        return None


def install(app: QObject) -> GuiThreadCollector:
    """The application's collector, made once (the app and every test window share one QApplication)."""
    existing = app.findChild(GuiThreadCollector)
    return existing if existing is not None else GuiThreadCollector(app)
