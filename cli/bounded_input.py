"""Reading a file named on the command line with a size limit, so that ``/dev/zero`` or a 20 GB file is refused.

A BibTeX entry is a few kB; a file a thousand times larger is a mistake (a wrong path, a device,
a log file) and reading all of it first exhausts memory before anything can be said.  At most
``limit + 1`` bytes are read: one more than allowed says "too large" without reading the rest.
"""

from __future__ import annotations

from pathlib import Path

from core.errors import GrammarLensError

MAX_BIBTEX_BYTES = 1_000_000  # a BibTeX entry for one grammar is a few kB


def read_bounded_text(path: Path, option: str, limit: int) -> str:
    """The UTF-8 text of ``path``, refused with a clear message when larger than ``limit`` bytes.

    OSError and UnicodeDecodeError reach the caller (it words them for its option).
    """
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise GrammarLensError(f"{option} {path} is larger than {limit / 1e6:g} MB, far more than it should hold.",
                               "Check the path: give the small text file meant here (nothing was changed).")
    return data.decode("utf-8")
