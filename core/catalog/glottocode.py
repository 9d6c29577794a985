"""Glottocodes: checked where they are set, so that no export ever meets a malformed one.

A Glottocode is four lowercase letters or digits and four digits (``molo1266``), the pattern
CLDF's ``Glottocode`` column enforces.  A well-formed code that the bundled WALS/Grambank table
(``resources/languages.tsv``) does not list is accepted with a note: Glottolog has about 26,000
languoids and the table only the 3,500 or so of WALS and Grambank.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from core.catalog.languages import language_table
from core.errors import GrammarLensError

GLOTTOCODE = re.compile(r"^[a-z0-9]{4}[0-9]{4}$")
EXAMPLE = "molo1266"  # Moloko, in the bundled table
FORMAT_HINT = (f"A Glottocode is four lowercase letters or digits and four digits, e.g. {EXAMPLE} (Moloko); "
               "look it up at glottolog.org, or leave it empty.")


class GlottocodeCheck(NamedTuple):
    """A checked Glottocode: the code to store (None for none), whether the bundled table knows it, a note."""

    code: str | None
    known: bool
    note: str  # "" when there is nothing to say


def is_glottocode(code: str | None) -> bool:
    """True when ``code`` has the Glottocode format (nothing else is checked)."""
    return code is not None and GLOTTOCODE.match(code) is not None


@lru_cache(maxsize=1)
def known_glottocodes() -> frozenset[str]:
    """The Glottocodes of the bundled WALS and Grambank language table."""
    return frozenset(code for _name, code in language_table())


def check_glottocode(code: str | None) -> GlottocodeCheck:
    """Check a Glottocode someone typed; surrounding blanks and capitals are forgiven.

    Raises :class:`GrammarLensError` for a malformed code.  An empty code means "none".
    """
    text = (code or "").strip()
    if not text:
        return GlottocodeCheck(None, False, "")
    normal = text.lower()
    if not GLOTTOCODE.match(normal):
        raise GrammarLensError(f"{text!r} is not a Glottocode.", FORMAT_HINT)
    if normal in known_glottocodes():
        return GlottocodeCheck(normal, True, "")
    return GlottocodeCheck(normal, False, f"{normal} is not in GrammarLens's WALS/Grambank language table; "
                                          "it was stored as given (check it at glottolog.org).")
