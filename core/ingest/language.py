"""Guessing which language a grammar describes, from its title (PDF metadata or first pages).

The guess is only a default: the user can give the name and Glottocode at ingest time and edit
them later.  Glottocodes come from the WALS/Grambank language list in resources/languages.tsv.
"""

from __future__ import annotations

import re
from functools import lru_cache

from core.models import Language
from core.resources import resources_dir

_TITLE_PATTERNS = [
    re.compile(r"\b(?:grammar|grammatical (?:sketch|outline|description)|description|sketch|dictionary)\s+of\s+"
               r"(?:the\s+)?(?P<name>[A-Z][\w'’\-]*(?:[ -][A-Z(][\w'’\-)]*){0,3})"),
    re.compile(r"^(?P<name>[A-Z][\w'’\-]*(?: [A-Z][\w'’\-]*){0,2}) (?:grammar|reference grammar)\b"),
]


@lru_cache(maxsize=1)
def _glottocodes() -> dict[str, str]:
    table: dict[str, str] = {}
    path = resources_dir() / "languages.tsv"
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line and not line.startswith("#"):
                name, code = line.split("\t")
                table.setdefault(name.lower(), code)
    return table


def glottocode_for(name: str) -> str | None:
    """The Glottocode of a language name, trying 'Armenian (Iranian)'-style variants too."""
    table = _glottocodes()
    key = name.lower().strip()
    if key in table:
        return table[key]
    words = key.split()
    if len(words) == 2 and f"{words[1]} ({words[0]})" in table:
        return table[f"{words[1]} ({words[0]})"]
    return None


def guess_language(title: str, first_pages_text: str) -> Language | None:
    """Name and Glottocode from a title such as 'A grammar of Papuan Malay'."""
    for text in (title, first_pages_text):
        for pattern in _TITLE_PATTERNS:
            match = pattern.search(" ".join(text.split()))
            if match:
                name = match.group("name").strip(" ,.:;")
                name = re.sub(r"\s+(?:and|with|by|in)\b.*$", "", name)
                return Language(name=name, glottocode=glottocode_for(name), source="guessed")
    return None
