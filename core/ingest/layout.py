"""From PyMuPDF text lines to physical rows in reading order.

PyMuPDF's ``get_text("dict")`` yields *lines*, which in typeset grammars are often pieces of a
physical line: every word-column of an interlinear gloss is a line of its own, and on
two-column pages lines of both columns share baselines.  This module

1. turns each PyMuPDF line into a :class:`Fragment` (text, box, size, bold),
2. finds the column gutter of two-column pages,
3. groups fragments sharing a baseline inside one column into a :class:`Row`,
4. returns the rows in reading order (full-width rows split the page into bands; within a
   band the left column is read before the right one).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

BOLD_FLAG = 16
SUPERSCRIPT_FLAG = 1


@dataclass(slots=True)
class Fragment:
    """One PyMuPDF line: a run of text on one baseline with one box."""

    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    size: float
    bold: bool  # every span bold
    opens_bold: bool = False  # the first span bold: a dictionary headword or a run-in term
    confidence: float | None = None  # OCR: Tesseract's mean word confidence (0-100); None: a text layer

    @property
    def width(self) -> float:
        return self.x1 - self.x0


@dataclass(slots=True)
class Row:
    """A physical line of one column: fragments on a shared baseline, left to right."""

    fragments: list[Fragment]
    column: int = 0  # 0 = single column or left, 1 = right, -1 = spans the gutter
    x0: float = 0.0
    y0: float = 0.0
    x1: float = 0.0
    y1: float = 0.0
    size: float = 0.0
    bold: bool = False
    text: str = field(default="")

    def finish(self) -> Row:
        """Compute the row's box, dominant size and text (one pass: this runs per printed line)."""
        frags = self.fragments
        if len(frags) == 1:  # most rows of prose and of dictionaries
            f = frags[0]
            self.x0, self.y0, self.x1, self.y1 = f.x0, f.y0, f.x1, f.y1
            self.size, self.bold = f.size, f.bold
            self.text = f.text.strip()
            return self
        frags.sort(key=_x0)
        x0, y0, x1, y1 = frags[0].x0, frags[0].y0, frags[0].x1, frags[0].y1
        best_size, best_chars, bold = frags[0].size, -1, True
        weights: dict[float, int] = {}
        texts = []
        for f in frags:
            y0 = f.y0 if f.y0 < y0 else y0
            x1 = f.x1 if f.x1 > x1 else x1
            y1 = f.y1 if f.y1 > y1 else y1
            n = weights[f.size] = weights.get(f.size, 0) + len(f.text)
            if n > best_chars:
                best_size, best_chars = f.size, n
            bold = bold and f.bold
            stripped = f.text.strip()
            if stripped:
                texts.append(stripped)
        self.x0, self.y0, self.x1, self.y1 = x0, y0, x1, y1
        self.size, self.bold = best_size, bold
        self.text = " ".join(texts)
        return self


def _x0(fragment: Fragment) -> float:
    return fragment.x0


def fragments_from_dict(page_dict: dict) -> list[Fragment]:
    """Flatten a ``get_text("dict")`` result into fragments, dropping empty lines.

    This runs once per PyMuPDF line of the book (tens of thousands of times in a dictionary), so
    the common case, a line of one span, takes the shortest path.
    """
    out: list[Fragment] = []
    append = out.append
    for block in page_dict["blocks"]:
        if block.get("type", 0) != 0:
            continue
        for line in block["lines"]:
            spans = line["spans"]
            if len(spans) == 1:
                span = spans[0]
                text = span["text"]
                if not text or text.isspace():
                    continue
                bold = opens_bold = bool(span["flags"] & BOLD_FLAG) or "Bold" in span["font"]
                size = span["size"]
            elif not spans:
                continue
            else:
                size, longest, bold = spans[0]["size"], -1, True
                opens_bold = None
                parts = []
                for s in spans:
                    t = s["text"]
                    parts.append(t)
                    if not t or t.isspace():
                        continue
                    flags = s["flags"]
                    span_bold = bool(flags & BOLD_FLAG) or "Bold" in s["font"]
                    if opens_bold is None:
                        opens_bold = span_bold
                    if bold and not span_bold:
                        bold = False
                    if not flags & SUPERSCRIPT_FLAG and len(t) > longest:
                        size, longest = s["size"], len(t)
                text = "".join(parts)
                if not text or text.isspace():
                    continue
            x0, y0, x1, y1 = line["bbox"]
            append(Fragment(text, x0, y0, x1, y1, round(size, 1), bold, bool(opens_bold)))
    return out


def find_gutter(fragments: list[Fragment], page_width: float) -> float | None:
    """The x of a two-column gutter, or None for a single-column page.

    A gutter is a vertical strip in the middle third crossed by (almost) no text while both
    sides carry substantial, prose-like (wide) lines.  Interlinear glosses and tables have
    gaps too, but their pieces are narrow, and prose lines on single-column pages cross the
    middle, so neither is mistaken for two columns.
    """
    lengths = [len(f.text) for f in fragments]
    total = sum(lengths)
    if total < 200:
        return None
    wide_from = 0.6 * page_width
    full_width = sum(n for f, n in zip(fragments, lengths, strict=True) if f.x1 - f.x0 >= wide_from)
    if full_width > 0.2 * total:  # prose lines run across the middle: one column
        return None
    lo, hi = 0.35 * page_width, 0.65 * page_width
    x0 = np.fromiter((f.x0 for f in fragments), float, len(fragments))
    x1 = np.fromiter((f.x1 for f in fragments), float, len(fragments))
    weight = np.array(lengths, dtype=float)
    xs = np.arange(lo, hi + 0.1, 3.0)
    crossing = (((x0[:, None] < xs) & (xs < x1[:, None])) * weight[:, None]).sum(axis=0)
    best = int(np.argmin(crossing))
    best_x, best_cross = float(xs[best]), float(crossing[best])
    if best_x is None or best_cross is None or best_cross > 0.05 * total:
        return None
    left = [f for f in fragments if f.x1 <= best_x]
    right = [f for f in fragments if f.x0 >= best_x]
    for side in (left, right):
        chars = sum(len(f.text) for f in side)
        if chars < 0.2 * total:
            return None
        wide = sum(len(f.text) for f in side if f.width >= 0.25 * page_width)
        if wide < 0.5 * chars:
            return None
    return best_x


def build_rows(fragments: list[Fragment], page_width: float) -> list[Row]:
    """Group fragments into rows and return them in reading order."""
    gutter = find_gutter(fragments, page_width)
    if gutter is None:
        return _rows_of(fragments, column=0)
    spanning = [f for f in fragments if f.x0 < gutter < f.x1]
    left = [f for f in fragments if f.x1 <= gutter]
    right = [f for f in fragments if f.x0 >= gutter]
    span_rows = _rows_of(spanning, column=-1)
    ordered: list[Row] = []
    top = float("-inf")
    for band_end in [r.y0 for r in span_rows] + [float("inf")]:
        ordered += _rows_of(_in_band(left, top, band_end), column=0)
        ordered += _rows_of(_in_band(right, top, band_end), column=1)
        following = [r for r in span_rows if r.y0 == band_end]
        ordered += following
        if following:
            top = following[0].y1
    return ordered


def _in_band(fragments: list[Fragment], top: float, end: float) -> list[Fragment]:
    """The fragments whose vertical middle lies in [top, end)."""
    return [f for f in fragments if top <= (f.y0 + f.y1) / 2 < end]


def _rows_of(fragments: list[Fragment], column: int) -> list[Row]:
    """Cluster fragments by baseline (their bottom edge) into rows, top to bottom."""
    rows: list[Row] = []
    last: Row | None = None
    last_y1 = last_size = 0.0
    for frag in sorted(fragments, key=_baseline_key):
        if last is not None:
            size = frag.size if frag.size > last_size else last_size
            if abs(frag.y1 - last_y1) <= 0.45 * size:
                last.fragments.append(frag)
                continue
        last = Row([frag], column=column, y1=frag.y1)
        last_y1, last_size = frag.y1, frag.size
        rows.append(last)
    for row in rows:
        row.finish()
    return rows


def _baseline_key(fragment: Fragment) -> tuple[float, float]:
    return (fragment.y1, fragment.x0)
