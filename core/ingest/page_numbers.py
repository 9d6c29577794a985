"""Printed page labels: from the PDF's /PageLabels, else read from the running heads and feet.

Numbers read from furniture are noisy (a chapter number in a head, a year in a foot), so each
page's candidates are checked against their neighbours: printed numbers advance one per PDF
page, so the right candidate shares its *offset* (printed value minus PDF page) with the pages
around it.  Pages that print no number (chapter openings, blank pages) get the number their
neighbours imply; pages outside any numbered run fall back to the PDF page number, marked so.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.models import LabelSource

WINDOW = 20  # pages on each side that vote for an offset

_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}


def roman_to_int(text: str) -> int:
    total, prev = 0, 0
    for ch in reversed(text.lower()):
        value = _ROMAN_VALUES[ch]
        total = total - value if value < prev else total + value
        prev = max(prev, value)
    return total


def int_to_roman(value: int) -> str:
    parts = [(1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"),
             (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")]
    out = []
    for number, letters in parts:
        while value >= number:
            out.append(letters)
            value -= number
    return "".join(out)


@dataclass(frozen=True)
class PageLabel:
    label: str
    source: LabelSource
    printed: bool  # True when the number was actually read on this page


def labels_from_pdf(raw_labels: list[str]) -> list[PageLabel] | None:
    """Use the PDF's own labels when it has any (``raw_labels`` holds '' for unlabelled pages)."""
    if not any(raw_labels):
        return None
    return [
        PageLabel(label, LabelSource.PDF_LABELS, True) if label else PageLabel(str(i + 1), LabelSource.PDF_PAGE, False)
        for i, label in enumerate(raw_labels)
    ]


def labels_from_furniture(candidates: list[list[str]]) -> list[PageLabel]:
    """Infer every page's printed label from per-page candidate numbers (see module doc)."""
    n = len(candidates)
    arabic = _choose(candidates, n, roman=False)
    roman = _choose(candidates, n, roman=True)
    labels: list[PageLabel | None] = [None] * n
    for i in range(n):
        arabic_offset, roman_offset = arabic[i], roman[i]
        if arabic_offset is not None:
            labels[i] = PageLabel(str(arabic_offset + i + 1), LabelSource.RUNNING_HEADS, True)
        elif roman_offset is not None:
            labels[i] = PageLabel(int_to_roman(roman_offset + i + 1), LabelSource.RUNNING_HEADS, True)
    _fill(labels, arabic, lambda off, i: str(off + i + 1))
    _fill(labels, roman, lambda off, i: int_to_roman(off + i + 1) if off + i + 1 > 0 else "")
    return [lab if lab is not None and lab.label else PageLabel(str(i + 1), LabelSource.PDF_PAGE, False)
            for i, lab in enumerate(labels)]


def _value(token: str, roman: bool) -> int | None:
    if roman:
        return roman_to_int(token) if token.isalpha() else None
    return int(token) if token.isdigit() else None


def _choose(candidates: list[list[str]], n: int, *, roman: bool) -> list[int | None]:
    """Per page, the offset (value - pdf page) of the best-supported candidate, or None."""
    offsets: list[list[int]] = []
    for i, tokens in enumerate(candidates):
        page_offsets = []
        for token in tokens:
            value = _value(token, roman)
            if value is not None:
                page_offsets.append(value - (i + 1))
        offsets.append(page_offsets)
    chosen: list[int | None] = [None] * n
    for i, page_offsets in enumerate(offsets):
        if not page_offsets:
            continue
        lo, hi = max(0, i - WINDOW), min(n, i + WINDOW + 1)
        best, best_support = None, 0
        for off in page_offsets:
            support = sum(1 for j in range(lo, hi) if j != i and off in offsets[j])
            if support > best_support:
                best, best_support = off, support
        if best is not None:
            chosen[i] = best
        elif n <= 3:
            chosen[i] = page_offsets[0]
    return chosen


def _fill(labels: list[PageLabel | None], chosen: list[int | None], render) -> None:
    """Give unlabelled pages the number implied by the numbered pages around them."""
    known = [(i, off) for i, off in enumerate(chosen) if off is not None]
    if not known:
        return
    for k, (i, off) in enumerate(known):
        next_i, next_off = known[k + 1] if k + 1 < len(known) else (len(labels), off)
        if next_off != off:
            next_i = i + 1  # a change of numbering: only pages before the next run's start are implied
            for j in range(i + 1, known[k + 1][0]):
                if labels[j] is None:
                    # belongs to whichever run is nearer on the page axis
                    nearer = off if j - i <= known[k + 1][0] - j else known[k + 1][1]
                    labels[j] = PageLabel(render(nearer, j), LabelSource.RUNNING_HEADS, False)
            continue
        for j in range(i + 1, next_i):
            if labels[j] is None:
                labels[j] = PageLabel(render(off, j), LabelSource.RUNNING_HEADS, False)
