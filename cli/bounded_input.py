"""Reading a file named on the command line with a size limit, so that ``/dev/zero`` or a 20 GB file is refused.

A BibTeX entry is a few kB; a file a thousand times larger is a mistake (a wrong path, a device,
a log file) and reading all of it first exhausts memory before anything can be said.  At most
``limit + 1`` bytes are read: one more than allowed says "too large" without reading the rest.
"""

from __future__ import annotations

import stat
from pathlib import Path

from core.errors import GrammarLensError

MAX_BIBTEX_BYTES = 1_000_000  # a BibTeX entry for one grammar is a few kB
MAX_GROUPS_BYTES = 50_000_000  # a table of language groups: a few hundred kB for every language of Glottolog
MAX_RESULTS_BYTES = 50 * 2**30  # a batch results file: OpenAI's answers to 50,000 requests are well under this


def check_input_file(path: Path, option: str, limit: int) -> None:
    """Refuse, before reading, what is not a regular file (a folder, ``/dev/zero``, a pipe) or is over ``limit``."""
    try:
        st = path.stat()
    except OSError as exc:
        raise GrammarLensError(f"Cannot read {option} {path}: {exc.strerror or exc}.", "Check the path.") from exc
    if not stat.S_ISREG(st.st_mode):
        raise GrammarLensError(f"{option} {path} is not a regular file.", "Give the path of a file.")
    if st.st_size > limit:
        raise GrammarLensError(f"{option} {path} is {st.st_size / 1e6:,.0f} MB, more than the {limit / 1e6:,.0f} MB "
                               "such a file can sensibly hold.", "Check the path (nothing was changed).")


def read_bounded_text(path: Path, option: str, limit: int) -> str:
    """The UTF-8 text of ``path``, refused with a clear message when larger than ``limit`` bytes.

    OSError and UnicodeDecodeError reach the caller (it words them for its option).
    """
    check_input_file(path, option, limit)
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise GrammarLensError(f"{option} {path} is larger than {limit / 1e6:g} MB, far more than it should hold.",
                               "Check the path: give the small text file meant here (nothing was changed).")
    return data.decode("utf-8")
