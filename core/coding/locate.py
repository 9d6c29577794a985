"""Which paragraph lies under a point of a PDF page: what the linguist pins by clicking the page.

Why an index of its own: a click must answer at once, and a 770-page grammar has ~6,600
paragraphs; grouping their rectangles by (document, PDF page) once makes each look-up a scan of
the ten or so paragraphs of one page.  Coordinates are PDF points from the page's top left, the
space of :class:`core.models.Rect` and of the GUI's PDF scene.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable

from core.models import Paragraph

# A click in the white space between two lines, or just beside a short last line, still means the
# paragraph the reader is looking at; a few points of slack on every side.
SLACK = 3.0


class ParagraphLocator:
    """Paragraph rectangles of a project grouped by (document id, 1-based PDF page)."""

    def __init__(self, paragraphs: Iterable[Paragraph]) -> None:
        self._by_page: dict[tuple[int, int], list[Paragraph]] = defaultdict(list)
        for paragraph in paragraphs:
            for page in {r.pdf_page for r in paragraph.rects}:
                self._by_page[(paragraph.document_id, page)].append(paragraph)

    def at(self, document_id: int, pdf_page: int, x: float, y: float) -> Paragraph | None:
        """The paragraph whose rectangle holds (x, y); the smallest such one when several do (a footnote in a box)."""
        best: tuple[float, Paragraph] | None = None
        for paragraph in self._by_page.get((document_id, pdf_page), ()):
            for r in paragraph.rects:
                if r.pdf_page != pdf_page:
                    continue
                if r.x0 - SLACK <= x <= r.x1 + SLACK and r.y0 - SLACK <= y <= r.y1 + SLACK:
                    area = (r.x1 - r.x0) * (r.y1 - r.y0)
                    if best is None or area < best[0]:
                        best = (area, paragraph)
        return best[1] if best else None

    def on_page(self, document_id: int, pdf_page: int) -> list[Paragraph]:
        return list(self._by_page.get((document_id, pdf_page), ()))
