"""The section heading path above each paragraph, from the PDF outline or from headings.

Typeset grammars nearly always carry an outline (bookmarks) whose entries point at the
heading's page and height; a paragraph's path is the chain of entries in force at its
position.  Without an outline, the heading paragraphs found by the segmenter are used, nested
by their numbering (``2.3.1`` is under ``2.3``).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache

SEPARATOR = " > "
_NUMBERED = re.compile(r"^(\d+(?:\.\d+)*)\.?\s+\S")
_LETTER = re.compile(r"^([^\W\d_])(?:\s?\1)?$", re.I)  # a letter heading of a dictionary or index: A a, Aa, B


@dataclass(frozen=True)
class SectionMark:
    page: int  # 0-based
    y: float
    path: tuple[str, ...]


def marks_from_outline(toc: list, page_heights: list[float]) -> list[SectionMark]:
    """Section marks from ``doc.get_toc(simple=False)`` entries (level, title, page, dest)."""
    marks: list[SectionMark] = []
    stack: list[str] = []
    for entry in toc:
        level, title, page = entry[0], " ".join(str(entry[1]).split()), entry[2]
        if page < 1 or page > len(page_heights):
            continue
        y = 0.0
        dest = entry[3] if len(entry) > 3 and isinstance(entry[3], dict) else {}
        point = dest.get("to")
        if point is not None:
            # outline points use PDF's bottom-up coordinates; text boxes are top-down
            y = max(0.0, page_heights[page - 1] - float(point.y))
        stack = stack[: max(0, level - 1)]
        stack.append(title)
        marks.append(SectionMark(page - 1, y, tuple(stack)))
    marks.sort(key=lambda m: (m.page, m.y))
    return marks


def marks_from_headings(headings: list[tuple[int, float, str]]) -> list[SectionMark]:
    """Section marks from detected heading paragraphs (page, y, text), nested by numbering."""
    marks: list[SectionMark] = []
    stack: list[tuple[int, str]] = []
    for page, y, text in headings:
        match = _NUMBERED.match(text)
        depth = match.group(1).count(".") + 1 if match else 1
        if not match and stack and _LETTER.match(text.strip()):
            depth = stack[0][0] + 1  # a dictionary's letter (A a, B b) is a section of its part, not a new part
        stack = [s for s in stack if s[0] < depth]
        stack.append((depth, text))
        marks.append(SectionMark(page, y, tuple(t for _, t in stack)))
    return marks


class SectionIndex:
    """Answers "which section is in force at (page, y)?" by binary search."""

    def __init__(self, marks: list[SectionMark]) -> None:
        self._marks = marks
        self._keys = [(m.page, m.y) for m in marks]

    def path_at(self, page: int, y: float) -> tuple[str, ...]:
        i = bisect.bisect_right(self._keys, (page, y + 2.0)) - 1
        return self._marks[i].path if i >= 0 else ()

    def __bool__(self) -> bool:
        return bool(self._marks)


_TOC_TITLES = re.compile(r"^(table of )?contents$|^inhalt", re.I)
_BIB_TITLES = re.compile(r"^(references|bibliography|works cited|literature( cited)?|sources|cited works)$", re.I)
_INDEX_TITLES = re.compile(r"\bindex(es)?\b|^indices$", re.I)


@lru_cache(maxsize=4096)
def section_kind(path: tuple[str, ...]) -> str | None:
    """'toc', 'bibliography' or 'index' when the section path says so."""
    for title in path:
        bare = re.sub(r"^[\d.]+\s*", "", title).strip()
        if _TOC_TITLES.match(bare):
            return "toc"
        if _BIB_TITLES.match(bare):
            return "bibliography"
        if _INDEX_TITLES.search(bare) and len(bare) < 40:
            return "index"
    return None
