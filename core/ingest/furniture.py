"""Running heads, running feet, page numbers and margin line numbers: the page furniture.

Furniture is printed on most pages at the same place, apart from the text block.  It must not
leak into paragraph text (a running head inside evidence misleads both BM25 and the LLM), but
it is where the printed page number lives, so it is kept aside for :mod:`core.ingest.page_numbers`.

Detection works over the whole document, because a single page cannot tell a running head from
a first line of text: the top-most (bottom-most) baseline of a page is a candidate when it
lies in the top (bottom) 15% of the page and is set off from the text by a gap; a candidate
is furniture when many pages have one at the same height, or when it is a bare page number.
Dictionary-style running heads (a different headword on every page) are caught by position,
not by repeated text.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from core.ingest.layout import Fragment

EDGE_BAND = 0.15  # share of page height searched for heads (top) and feet (bottom)
MARGIN_BAND = 0.08  # share of page width where bare numbers are line numbers
POSITION_TOLERANCE = 3.0  # points

_ROMAN = re.compile(r"^(?=[ivxlcdm]+$)m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$")
_ARABIC = re.compile(r"^\d{1,4}$")


def is_page_number_token(token: str) -> bool:
    """True for '12' or 'xiv' (lower-case roman, as front matter prints them)."""
    token = token.strip()
    return bool(_ARABIC.match(token) or (token and _ROMAN.match(token)))


@dataclass(slots=True)
class EdgeLine:
    """The top-most or bottom-most baseline of a page, a running head/foot candidate."""

    where: str  # "head" or "foot"
    baseline: float
    fragments: list[Fragment]
    gap: float  # distance to the nearest other text

    @property
    def text(self) -> str:
        return " ".join(f.text.strip() for f in sorted(self.fragments, key=lambda f: f.x0))

    @property
    def size(self) -> float:
        return max(f.size for f in self.fragments)


def edge_lines(fragments: list[Fragment], page_height: float) -> list[EdgeLine]:
    """The head and foot candidates of one page (zero, one or two)."""
    if not fragments:
        return []
    out: list[EdgeLine] = []
    top_y1 = min(f.y1 for f in fragments)
    if top_y1 <= EDGE_BAND * page_height:
        tol = 0.45 * max(f.size for f in fragments if f.y1 - top_y1 < 6)
        group = [f for f in fragments if abs(f.y1 - top_y1) <= tol]
        ids = {id(f) for f in group}
        rest = [f.y0 for f in fragments if id(f) not in ids and f.y0 > top_y1 - tol]
        gap = (min(rest) - max(f.y1 for f in group)) if rest else page_height
        out.append(EdgeLine("head", round(top_y1, 1), group, gap))
    bottom_y1 = max(f.y1 for f in fragments)
    if min(f.y0 for f in fragments if abs(f.y1 - bottom_y1) < 1) >= (1 - EDGE_BAND) * page_height:
        tol = 0.45 * max(f.size for f in fragments if bottom_y1 - f.y1 < 6)
        group = [f for f in fragments if abs(f.y1 - bottom_y1) <= tol]
        ids = {id(f) for f in group}
        if not (out and any(id(f) in ids for f in out[0].fragments)):
            rest = [f.y1 for f in fragments if id(f) not in ids and f.y1 < bottom_y1 + tol]
            gap = (min(f.y0 for f in group) - max(rest)) if rest else page_height
            out.append(EdgeLine("foot", round(bottom_y1, 1), group, gap))
    return out


def margin_line_numbers(fragments: list[Fragment], page_width: float) -> list[Fragment]:
    """Bare numbers in the far left/right margins: review-copy line numbers, not text."""
    return [
        f
        for f in fragments
        if f.text.strip().isdigit() and (f.x1 <= MARGIN_BAND * page_width or f.x0 >= (1 - MARGIN_BAND) * page_width)
    ]


def running_positions(candidates: list[list[EdgeLine]], page_count: int) -> set[tuple[str, int]]:
    """Heights (rounded) where many pages carry a set-off edge line: the running heads/feet."""
    counts: Counter[tuple[str, int]] = Counter()
    for page_candidates in candidates:
        seen = set()
        for edge in page_candidates:
            if edge.gap >= 0.8 * edge.size:
                key = (edge.where, int(round(edge.baseline / 2)))
                if key not in seen:
                    seen.add(key)
                    counts[key] += 1
    needed = max(2, min(3, page_count), int(0.1 * page_count))
    positions = set()
    for (where, slot), n in counts.items():
        if n >= needed:
            positions.update({(where, slot - 1), (where, slot), (where, slot + 1)})
    return positions


def is_furniture(edge: EdgeLine, positions: set[tuple[str, int]], body_size: float) -> bool:
    """Whether one page's edge line is furniture, given the document's running positions."""
    if edge.size > body_size + 1.5:  # chapter titles are set larger than running heads
        return False
    if (edge.where, int(round(edge.baseline / 2))) in positions:
        return True  # the text block never reaches the running positions, whatever the gap
    tokens = edge.text.split()
    return len(tokens) == 1 and is_page_number_token(tokens[0]) and edge.gap >= edge.size


def page_number_candidates(edges: list[EdgeLine]) -> list[str]:
    """Printed page numbers found in a page's furniture, most likely first.

    A fragment that is only a number is the strongest candidate; a number at either end of a
    longer head (``12 2 Phonology``) comes next.
    """
    strong: list[str] = []
    weak: list[str] = []
    for edge in edges:
        for frag in edge.fragments:
            tokens = frag.text.split()
            if frag.confidence is not None:  # recognised: a misread number is read as it was meant too
                tokens = [ocr_number_reading(t) for t in tokens]
            if len(tokens) == 1 and is_page_number_token(tokens[0]):
                strong.append(tokens[0])
            elif len(tokens) > 1:
                for token in (tokens[0], tokens[-1]):
                    if is_page_number_token(token):
                        weak.append(token)
    return strong + weak


_DIGIT_MISREADS = str.maketrans({"l": "1", "I": "1", "|": "1", "O": "0", "o": "0", "S": "5", "B": "8", "Z": "2"})
_ROMAN_MISREADS = str.maketrans({"l": "i", "1": "i", "|": "i", "j": "i", "!": "i", "I": "i", "V": "v", "X": "x"})


def ocr_number_reading(token: str) -> str:
    """The page number an OCR'd token most likely shows: Tesseract confuses 1/l/I, 0/O, 5/S, and
    reads a roman ii as "il" or "ll".  Tokens that are neither stay as they are; the offset vote
    over neighbouring pages (core.ingest.page_numbers) throws out a wrong guess."""
    bare = token.strip(".,;:·•-–—()[]'\"")
    if not bare or is_page_number_token(bare):
        return bare or token
    if any(c.isdigit() for c in bare) and len(bare) <= 4:
        digits = bare.translate(_DIGIT_MISREADS)
        if _ARABIC.match(digits):
            return digits
    if len(bare) <= 6:
        roman = bare.translate(_ROMAN_MISREADS)
        if _ROMAN.match(roman):
            return roman
    return token
