"""Head and foot bands read again on their own, so that a lone page number is not lost.

Tesseract's page layout analysis drops an isolated short line, and a page number alone in the
foot ("17", "iv") is exactly that; read as one block of lines (``--psm 6``), it is found (the
sparse-text mode, ``--psm 11``, missed it too).  The two bands are stacked into one small image,
so this costs one quick process per page.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pymupdf

from core.ingest.furniture import is_page_number_token, ocr_number_reading
from core.ingest.layout import Fragment
from core.ingest.tesseract import start_page

EDGE_BAND = 0.12  # share of the page height read again at the top and at the bottom
EDGE_GAP_PX = 40
MIN_CONFIDENCE = 50.0  # band lines read with less are noise (numbers read at 60-96; the vote drops stray digits)


def start_edges(page: pymupdf.Page, image: Path, out_base: Path, language: str, dpi: int):
    """Render the page's two bands into ``image``, start Tesseract on it; returns the process and the
    band geometry (top band height, bottom band start in the image, band height; all in points)."""
    band = EDGE_BAND * page.rect.height
    rect = page.rect
    top = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False,
                          clip=pymupdf.Rect(rect.x0, rect.y0, rect.x1, rect.y0 + band))
    bottom = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False,
                             clip=pymupdf.Rect(rect.x0, rect.y1 - band, rect.x1, rect.y1))
    width = min(top.width, bottom.width)
    gap = np.full((EDGE_GAP_PX, width), 255, dtype=np.uint8)
    stacked = np.vstack([_array(top)[:, :width], gap, _array(bottom)[:, :width]])
    image.write_bytes(b"P5\n%d %d\n255\n" % (stacked.shape[1], stacked.shape[0]) + stacked.tobytes())
    geometry = (top.height * 72.0 / dpi, (top.height + EDGE_GAP_PX) * 72.0 / dpi, band)
    return start_page(image, out_base, language, dpi, block=True), geometry


def _array(pixmap: pymupdf.Pixmap) -> np.ndarray:
    return np.frombuffer(pixmap.samples, dtype=np.uint8).reshape(pixmap.height, pixmap.stride)[:, :pixmap.width]


def merge_edges(main: list[Fragment], edges: list[Fragment], page_height: float,
                band: tuple[float, float, float]) -> list[Fragment]:
    """The main reading's lines plus the head and foot lines only the band reading found."""
    top_height, bottom_start, band_height = band
    sizes = sorted(f.size for f in main)
    body = sizes[len(sizes) // 2] if sizes else 10.0
    added = []
    for f in edges:
        if (f.confidence or 0.0) < MIN_CONFIDENCE or not any(c.isalnum() for c in f.text):
            continue  # the grain of a poor scan, read as letters
        middle = (f.y0 + f.y1) / 2
        if middle <= top_height:
            shift = 0.0
        elif middle >= bottom_start:
            shift = page_height - band_height - bottom_start
        else:
            continue
        moved = Fragment(f.text, f.x0, f.y0 + shift, f.x1, f.y1 + shift, min(f.size, body), False, False,
                         f.confidence)
        if not any(_overlaps(moved, m) for m in main):
            added.append(moved)
    return main + added


def _overlaps(a: Fragment, b: Fragment) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def has_page_number(fragments: list[Fragment], page_height: float) -> bool:
    """Whether the main reading already found a lone number in the head or foot band (then the bands
    need no second reading; a number inside a head may be a chapter's, so it does not count)."""
    band = EDGE_BAND * page_height
    for f in fragments:
        if f.y1 <= band or f.y0 >= page_height - band:
            tokens = f.text.split()
            if len(tokens) == 1 and is_page_number_token(ocr_number_reading(tokens[0])):
                return True
    return False
