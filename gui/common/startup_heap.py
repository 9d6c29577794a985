"""Keep Python's cyclic garbage collector from stalling the window: freeze the start-up heap once.

Why: a full (generation 2) collection walks every tracked object of the process while holding the
GIL.  After start-up that is mostly long-lived things: Qt and PyMuPDF bindings, the openai, httpx
and pydantic modules imported ahead of the first classification, and the feature catalog.  On the
770-page grammar the first retrieval allocates enough (paragraphs, the BM25 and phrase indexes) to
set off two full collections in its worker; each took 130-190 ms, and the UI thread, waiting for
the GIL, stalled just as long (``bench gui``).  ``gc.freeze()`` moves the objects alive at that
moment into a permanent generation that later collections skip, so they walk only what was made
since: the same collections take ~40 ms.

Freezing is cheap (it relinks one list) and safe for objects that live as long as the app.  Garbage
cycles that exist at that moment are kept for good, so it is done once per process, right after
the start-up job, not after every project (an index dropped on closing a project must stay
collectable).
"""

from __future__ import annotations

import gc
import threading

_lock = threading.Lock()
_frozen = False


def freeze_startup_heap() -> bool:
    """Move everything alive now out of the collector's reach; true the first time, a no-op after."""
    global _frozen
    with _lock:
        if _frozen:
            return False
        gc.freeze()
        _frozen = True
        return True
