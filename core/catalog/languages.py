"""The bundled language table: WALS and Grambank languages by name and Glottocode.

``resources/languages.tsv`` (built by ``scripts/build_languages.py`` from the two databases' CLDF
language tables, CC-BY 4.0) is the app's one list of languages: the language guess and picker
read it, Glottocodes are checked against it, and sample exports take its coordinates.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from core.resources import resources_dir


@dataclass(frozen=True)
class LanguageChoice:
    """A WALS/Grambank language for the app's language picker."""

    name: str
    glottocode: str


@lru_cache(maxsize=1)
def language_table() -> tuple[tuple[str, str], ...]:
    """(name, Glottocode) of every bundled WALS/Grambank language, in the file's order."""
    rows: list[tuple[str, str]] = []
    path = resources_dir() / "languages.tsv"
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line and not line.startswith("#") and "\t" in line:
                name, code = line.split("\t")[:2]
                rows.append((name.strip(), code.strip()))
    return tuple(rows)


def name_key(text: str) -> str:
    """Case- and diacritic-free form for matching ("Wára" == "wara")."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).split())


@lru_cache(maxsize=1)
def _glottocodes() -> tuple[dict[str, str], dict[str, set[str]]]:
    exact: dict[str, str] = {}
    parts: dict[str, set[str]] = {}
    for name, code in language_table():
        exact.setdefault(name_key(name), code)
        pieces = re.split(r"[-/]", name)
        if len(pieces) > 1:  # "Anta-Komnzo-Wára-Wérè-Kémä": each dialect name finds the language
            for piece in pieces:
                parts.setdefault(name_key(piece), set()).add(code)
    return exact, parts


def glottocode_for(name: str, qualifier: str = "") -> str | None:
    """The Glottocode of a language name, using a qualifier ("Ulwa", "Papua New Guinea") and name variants.

    Tries "Name (Qualifier)", the name, "Armenian (Iranian)" for "Iranian Armenian", and one part of a
    hyphenated WALS/Grambank name ("Komnzo" in "Anta-Komnzo-Wára-Wérè-Kémä") when only one language has it.
    """
    exact, parts = _glottocodes()
    key = name_key(name)
    if not key:
        return None
    if qualifier and f"{key} ({name_key(qualifier)})" in exact:
        return exact[f"{key} ({name_key(qualifier)})"]
    if key in exact:
        return exact[key]
    words = key.split()
    if len(words) == 2 and f"{words[1]} ({words[0]})" in exact:
        return exact[f"{words[1]} ({words[0]})"]
    codes = parts.get(key, set())
    return next(iter(codes)) if len(codes) == 1 else None


def search_languages(query: str = "", limit: int = 50) -> list[LanguageChoice]:
    """WALS and Grambank languages matching ``query`` by name or Glottocode, best matches first.

    Case and diacritics are ignored; exact matches come first, then names starting with the query,
    then names containing it.  An empty query lists the first ``limit`` languages alphabetically.
    """
    q = name_key(query)
    scored: list[tuple[int, str, LanguageChoice]] = []
    for name, code in language_table():
        k = name_key(name)
        if not q:
            rank = 3
        elif k == q or code == q:
            rank = 0
        elif k.startswith(q) or code.startswith(q):
            rank = 1
        elif q in k:
            rank = 2
        else:
            continue
        scored.append((rank, k, LanguageChoice(name, code)))
    scored.sort(key=lambda t: (t[0], t[1]))
    return [c for _r, _k, c in scored[:limit]]


@dataclass(frozen=True)
class LanguagePlace:
    """Where a language is spoken, as WALS and Grambank place it (for a sample's export and map)."""

    name: str
    glottocode: str
    macroarea: str = ""
    latitude: float | None = None
    longitude: float | None = None


@lru_cache(maxsize=1)
def language_places() -> dict[str, LanguagePlace]:
    """Glottocode -> its place, from the macroarea and coordinate columns of ``resources/languages.tsv``.

    The name is the first of the table's names for that Glottocode (names are sorted); a language
    the databases do not place has an empty macroarea and no coordinates.
    """
    out: dict[str, LanguagePlace] = {}
    path = resources_dir() / "languages.tsv"
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#") or "\t" not in line:
            continue
        cells = [c.strip() for c in line.split("\t")] + ["", "", ""]
        name, code, area, lat, lon = cells[:5]
        if code and code not in out:
            out[code] = LanguagePlace(name, code, area, _coordinate(lat, 90.0), _coordinate(lon, 180.0))
    return out


def place_of(glottocode: str | None) -> LanguagePlace | None:
    """The place of the language with ``glottocode`` (None when the bundled table does not know it)."""
    return language_places().get(glottocode or "")


def _coordinate(text: str, limit: float) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if -limit <= value <= limit else None
