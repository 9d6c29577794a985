"""A guard against PySide6 6.12.0's lost reference to ``None`` on Python 3.11.

What happens: with PySide6-Essentials 6.12.0 on CPython 3.11, every call of a Qt method that
returns void (``QPainter.setPen``, ``drawRect``, ``QLabel.setText``, ``QRect.setWidth``…) gives back
``None`` without taking a reference to it, so each call lowers ``None``'s reference count by one
(measured: 1,000 ``setPen`` calls, -1,000).  A process starts with a few thousand references, so
a few thousand calls later CPython aborts with "Fatal Python error: none_dealloc: deallocating
None".  Python 3.12 made ``None`` immortal, which hides the bug there.  A heatmap of 100 × 195
cells makes ~100,000 such calls per repaint; the rest of the window makes fewer, but a long
session gets there too.

The guard gives ``None`` what 3.12 gives it: a reference count no program can exhaust (2**60 more
references, added once; ``None`` is never freed anyway).  It is idempotent, free after the first
call, and does nothing on 3.12+.  Call it before heavy painting (the Sample window does); the app
should call it once at start-up too.
"""

from __future__ import annotations

import ctypes
import sys

_FLOOR = 1 << 40  # below this, top up again (a day of 60 repaints a second of the heatmap is ~5e11 calls)
_TOP_UP = 1 << 60  # far below the ssize_t limit (2**63) even after many top-ups


def keep_none_alive() -> bool:
    """Make ``None``'s reference count unexhaustible on CPython < 3.12; true when it topped it up."""
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    if sys.getrefcount(None) >= _FLOOR:
        return False
    ctypes.c_ssize_t.from_address(id(None)).value += _TOP_UP  # ob_refcnt: the first field of every object
    return True
