"""Pausing Python's cyclic garbage collector while a long build allocates objects that all stay alive.

An ingest keeps every line of the book alive until the end while it allocates millions of
short-lived objects; building a book's retrieval indexes allocates a few hundred thousand that all
stay (paragraphs, postings, phrases).  Nothing there builds reference cycles, so the collector's
full passes find no garbage, yet each walks the whole heap holding the GIL: about a tenth of an
ingest, a third of an index build, and UI-thread stalls of up to 97 ms on the 770-page grammar.
The collector is process-wide, so it is paused rather than tuned, and switched back on (if it was
on) however the work ends; cycles other threads made meanwhile are collected then.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the ``with`` body with the cyclic garbage collector off (see the module docstring)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
