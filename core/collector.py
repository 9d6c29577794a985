"""Pausing Python's cyclic garbage collector while a long build allocates objects that all stay alive.

An ingest keeps every line of the book alive until the end while it allocates millions of
short-lived objects; building a book's retrieval indexes allocates a few hundred thousand that all
stay (paragraphs, postings, phrases).  Nothing there builds reference cycles, so the collector's
full passes find no garbage, yet each walks the whole heap holding the GIL: about a tenth of an
ingest, a third of an index build, and UI-thread stalls of up to 97 ms on the 770-page grammar.
The collector is process-wide, so it is paused rather than tuned, and switched back on (if it was
on) when the last pause ends, however the work ends; cycles other threads made meanwhile are
collected then.

A desktop app runs the collector itself, on its GUI thread (:func:`hand_over`, see
``gui/common/gui_collector.py``): a pause ending in a worker then never switches the automatic
collector back on, which would run the next collection, and free Qt objects, in that worker.
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import Iterator

_lock = threading.Lock()
_pauses = 0  # pauses running now, in any thread
_enable_after = False  # whether the automatic collector was on when the first of them began
_handed_over = False  # the app collects on its own thread: never switch the automatic collector on


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the ``with`` body with the cyclic garbage collector off (see the module docstring).

    Counted, so that two threads pausing at once never switch it on under each other.
    """
    global _pauses, _enable_after
    with _lock:
        if _pauses == 0:
            _enable_after = gc.isenabled()
        _pauses += 1
        gc.disable()
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0 and _enable_after and not _handed_over:
                gc.enable()


def hand_over() -> None:
    """Switch the automatic collector off for good: the caller runs collections itself, on one thread."""
    global _handed_over, _enable_after
    with _lock:
        _handed_over = True
        _enable_after = False
        gc.disable()


def paused() -> bool:
    """True while some thread's long build has the collector paused (the app's own collections wait too)."""
    return _pauses > 0
