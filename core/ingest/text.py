"""Joining printed lines into paragraph text: end-of-line hyphenation and whitespace.

A hyphen at the end of a line is either a soft break inside a word (``con-`` / ``junctions``)
or a real hyphen that happened to fall at the line end (``clause-`` / ``initial``).  The
grammar itself decides: if the joined word occurs elsewhere in the book it was a soft break;
if the hyphenated compound occurs elsewhere it was real; otherwise a lower-case continuation
is taken as a soft break, which is what typesetting produces most often.  Example paragraphs
are never dehyphenated: there ``-`` and ``=`` are morpheme boundaries.
"""

from __future__ import annotations

import re
from typing import Callable, Container, Iterable

_WORD = re.compile(r"[^\W\d_]+(?:[-‐][^\W\d_]+)*")
_TRAILING_PIECE = re.compile(r"([^\W\d_]+(?:[-‐][^\W\d_]+)*)[-‐]$")
_LEADING_PIECE = re.compile(r"^([^\W\d_]+)")
_SPACES = re.compile(r"[ \t\u00a0]+")


def build_vocabulary(texts: Iterable[str]) -> set[str]:
    """All lower-cased words (hyphenated compounds kept whole) of a document."""
    vocabulary = set(_WORD.findall("\n".join(texts).lower()))  # one pass of the regex over the book
    for word in [w for w in vocabulary if "-" in w]:
        vocabulary.update(word.split("-"))
    return vocabulary


class LazyVocabulary:
    """The book's vocabulary, built on the first question only.

    Only a line ending in a hyphen before a word needs it; a book without such lines (many
    dictionaries set their columns ragged, without hyphenation) never pays for reading every word.
    """

    def __init__(self, texts: Callable[[], Iterable[str]]) -> None:
        self._texts = texts
        self._words: set[str] | None = None

    def __contains__(self, word: object) -> bool:
        if self._words is None:
            self._words = build_vocabulary(self._texts())
        return word in self._words


def clean(text: str) -> str:
    """Drop soft hyphens and collapse runs of spaces."""
    if "\u00ad" in text:
        text = text.replace("\u00ad", "")
    if "  " in text or "\t" in text or "\u00a0" in text:
        text = _SPACES.sub(" ", text)
    return text.strip()


def join_prose_lines(lines: list[str], vocabulary: Container[str]) -> str:
    """Join printed lines into one paragraph, undoing end-of-line hyphenation."""
    out = ""
    for raw in lines:
        line = clean(raw)
        if not line:
            continue
        if not out:
            out = line
            continue
        if out.endswith(("-", "‐")) and len(out) > 1 and out[-2].isalpha() and line[0].isalpha():
            out = (out[:-1] if _is_soft_break(out, line, vocabulary) else out) + line  # a soft hyphen goes
        elif out.endswith(("–", "-", "/")) and len(out) > 1 and out[-2].isalnum() and line[0].isdigit():
            out = out + line  # a page range (3–21) or a DOI broken after its dash or slash
        else:
            out = out + " " + line
    return out


def _is_soft_break(before: str, after: str, vocabulary: Container[str]) -> bool:
    head_match = _TRAILING_PIECE.search(before.split(" ")[-1])
    tail_match = _LEADING_PIECE.match(after)
    if not head_match or not tail_match:
        return False
    head, tail = head_match.group(1).lower(), tail_match.group(1).lower()
    joined = head.split("-")[-1] + tail
    compound = head + "-" + tail
    if compound in vocabulary and joined not in vocabulary:
        return False
    if joined in vocabulary:
        return True
    return after[0].islower()
