"""Which language a grammar describes, read from its title: PDF metadata and the title page.

Only the book's *own* title counts.  Front matter also lists other books of a series ("In this
series: 1. Schrock, Terrill B. The Ik language ... 2. Brindle, Jonathan. A dictionary and grammatical
outline of Chakali ..."), and references and indexes name many languages; those pages are never read
for the name, and on a title page only its first lines are.  The name stops where the title's
wording does (":", "(", a line break, a lower-case word), and a qualifier such as "(Papua New
Guinea)" is dropped from the name but used to find the right Glottocode ("Ulwa (Papua New Guinea)"
is yaul1241, plain "Ulwa" ulwa1239).

When the metadata and the title page disagree, or the only reading has no known Glottocode, the guess
is marked unsure (``source`` starts with "unsure:") so that the CLI and the app ask the user.
Glottocodes and the searchable language list come from resources/languages.tsv (WALS + Grambank).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Sequence

from core.catalog.languages import glottocode_for, name_key
from core.models import Language

METADATA, TITLE_PAGE, USER = "pdf-metadata", "title-page", "user"
UNSURE_PREFIX = "unsure:"
FRONT_PAGES = 8  # pages of front matter searched for the title page
TITLE_LINES = 4  # lines at the top of a page that can hold its title

_WORD = r"[^\W\d_][\w'’\-]*"
# "A grammar of X", "A dictionary and grammatical outline of X", "A sketch of X", "A grammar of the X language"
_OF = re.compile(
    r"\b(?:grammar|dictionary|outline|sketch|description|study|phonology|morphology|syntax|introduction|"
    r"handbook|lexicon)\s+of\s+(?:the\s+)?(?P<rest>.+)", re.IGNORECASE | re.DOTALL)
# "The X language(s)", "X: a grammar", "X grammar", "X reference grammar"
_LANGUAGE = re.compile(rf"^(?:the\s+)?(?P<name>{_WORD}(?:[ \-]{_WORD}){{0,3}})\s+languages?\b", re.IGNORECASE)
_COLON = re.compile(rf"^(?P<name>{_WORD}(?:[ \-]{_WORD}){{0,3}})\s*:\s*(?:an?\s+)?(?:\w+\s+){{0,3}}"
                    r"(?:grammar|description|sketch|dictionary)\b", re.IGNORECASE)
_NAME_GRAMMAR = re.compile(rf"^(?P<name>{_WORD}(?:[ \-]{_WORD}){{0,3}})\s+(?:reference\s+|descriptive\s+)?grammar\b",
                           re.IGNORECASE)
_SERIES_PAGE = re.compile(
    r"in this series|other books in|also in this series|also available in|published in this series|"
    r"series editors?\b|chief editor|editorial board|series information|seriesinfo", re.IGNORECASE)
_NOT_TITLE_PAGE = re.compile(r"^\s*(?:contents|table of contents|references|bibliography|index)\b", re.IGNORECASE)
_LIST_ENTRY = re.compile(r"\b(?:grammar|dictionary|outline|sketch|description)\s+of\s+|\blanguages?\s*:",
                         re.IGNORECASE)
_CITATION_PAGE = re.compile(r"\b(?:19|20)\d\d\.\s")  # "Angela Kluge. 2017. A grammar of ..." (the imprint page)
_LEAD_WORDS = {"a", "an", "the", "short", "descriptive", "reference", "concise", "grammar", "sketch"}
_STOP_WORDS = {"and", "with", "by", "in", "of", "from", "for", "as", "language", "languages", "grammar", "dictionary",
               "a", "an", "the"}
_MAX_WORDS = 4


@dataclass(frozen=True)
class LanguageGuess:
    """A reading of the grammar's language and where it came from."""

    name: str | None
    glottocode: str | None
    source: str  # pdf-metadata | title-page | pdf-metadata+title-page | "" (nothing found)
    confident: bool
    title: str = ""  # the title the name was read from

    def as_language(self) -> Language | None:
        """The language to store: the source is prefixed with "unsure:" when the guess needs the user's word."""
        if not self.name:
            return None
        return Language(self.name, self.glottocode, self.source if self.confident else UNSURE_PREFIX + self.source)


def is_unsure(language: Language | None) -> bool:
    """True when the project's language is missing or only an unsure guess (the app should ask)."""
    return language is None or not language.name or language.source.startswith(UNSURE_PREFIX)


# -- the name in a title ---------------------------------------------------------------------------

def name_from_title(title: str) -> tuple[str, str] | None:
    """(name, qualifier) from one title, e.g. "A grammar of Ulwa (Papua New Guinea)" -> ("Ulwa", "Papua New Guinea")."""
    text = unicodedata.normalize("NFC", title or "").strip()
    text = re.sub(r"[ \t]+", " ", text)
    match = _OF.search(text)
    if match:
        found = _name_at(match.group("rest"))
        if found:
            return found
    flat = " ".join(text.split())
    for pattern in (_LANGUAGE, _COLON, _NAME_GRAMMAR):
        match = pattern.search(flat)
        if match:
            words = [w for w in match.group("name").split() if w.casefold() not in _LEAD_WORDS]
            found = _name_at(" ".join(words))
            if found:
                return found
    return None


def _name_at(rest: str) -> tuple[str, str] | None:
    """The capitalised words at the start of ``rest`` (stopping at a line break or punctuation), and a qualifier."""
    rest = rest.lstrip()
    line = rest.split("\n", 1)[0]
    words: list[str] = []
    for token in re.split(r"(\s+|[:;,.(\[])", line):
        if not token or token.isspace():
            continue
        if token in ":;,.([" or not (token[0].isupper() or token[0] in "!ǃǂǁǀ'") or token.casefold() in _STOP_WORDS:
            break
        words.append(token.strip("'’"))
        if len(words) == _MAX_WORDS:
            break
    if not words:
        return None
    name = " ".join(words)
    after = line[line.find(words[-1]) + len(words[-1]):]
    qualifier = re.match(r"\s*\(([^)]{2,60})\)", after)
    return _known_prefix(name), qualifier.group(1).strip() if qualifier else ""


def _known_prefix(name: str) -> str:
    """The longest leading part of ``name`` that is a known language ("Pite Saami Joshua" -> "Pite Saami")."""
    words = name.split()
    for n in range(len(words), 0, -1):
        if glottocode_for(" ".join(words[:n])):
            return " ".join(words[:n])
    return name


# -- the grammar's title -------------------------------------------------------------------------

def _is_title_page(text: str) -> bool:
    if not text.strip() or _SERIES_PAGE.search(text) or _NOT_TITLE_PAGE.match(text):
        return False
    if len(_LIST_ENTRY.findall(text)) >= 2:  # several titles on one page: a list of books, whatever its heading
        return False
    return not _CITATION_PAGE.search(text[:400])


def title_page_name(pages: Sequence[str]) -> tuple[str, str, str] | None:
    """(name, qualifier, title lines) from the first front-matter page whose top lines are a grammar's title.

    Series lists, imprint pages citing the book, contents, references and indexes are skipped.
    """
    for text in list(pages)[:FRONT_PAGES]:
        if not _is_title_page(text):
            continue
        lines = [line.strip() for line in text.splitlines() if line.strip()][:TITLE_LINES]
        top = "\n".join(lines)
        found = name_from_title(top)
        if found:
            return found[0], found[1], top
    return None


def identify_language(title: str, pages: Sequence[str] | str) -> LanguageGuess:
    """Read the language from the PDF's metadata title and its title page, and say how sure the reading is.

    ``pages`` holds the text of the first pages, one string per page with one line per text line
    (a single string is taken as one page).  Confident when both sources agree, or when the one
    source found gives a name with a known Glottocode.
    """
    page_list = [pages] if isinstance(pages, str) else list(pages)
    meta = name_from_title(title) if title else None
    page = title_page_name(page_list)
    if meta and page and name_key(meta[0]) != name_key(page[0]):
        # Disagreement: the title page is what the reader sees; metadata is often stale.  Ask the user.
        return _guess(page[0], page[1], TITLE_PAGE, False, page[2])
    if meta and page:
        return _guess(meta[0], meta[1] or page[1], f"{METADATA}+{TITLE_PAGE}", True, title)
    if meta:
        return _guess(meta[0], meta[1], METADATA, None, title)
    if page:
        return _guess(page[0], page[1], TITLE_PAGE, None, page[2])
    return LanguageGuess(None, None, "", False)


def _guess(name: str, qualifier: str, source: str, confident: bool | None, title: str) -> LanguageGuess:
    code = glottocode_for(name, qualifier)
    return LanguageGuess(name, code, source, bool(code) if confident is None else confident, title)


def guess_language(title: str, first_pages_text: Sequence[str] | str) -> Language | None:
    """The language to store for a new project (an unsure guess keeps an "unsure:" source), or None."""
    return identify_language(title, first_pages_text).as_language()
