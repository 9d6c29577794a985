"""Tesseract's hOCR output turned into the same :class:`Fragment` lines born-digital pages give.

Why hOCR and not plain text: the segmentation downstream (furniture, columns, paragraphs,
examples) works on positioned lines with a type size, and the evidence list needs to know how
sure the recogniser was.  hOCR carries all of it per line: the box, the baseline, Tesseract's
estimate of the line's type size (``x_size``) and each word's confidence (``x_wconf``).

Geometry is rebuilt from the baseline and the size rather than copied from the line's box,
because a recognised box hugs the ink (a line without descenders is shorter), while PyMuPDF's
line boxes, which every threshold downstream was tuned on, span the font's full height.
A line is split where its words stand far apart (interlinear glosses, tables), as PyMuPDF's own
lines are.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from core.ingest.layout import Fragment

# hOCR line classes Tesseract writes (plain lines, running heads, captions, floating text)
_LINE = re.compile(
    r"<span class='ocr_(?:line|header|caption|textfloat)'[^>]*title=\"([^\"]*)\"[^>]*>(.*?</span>)\s*</span>",
    re.S,
)
_WORD = re.compile(r"<span class='ocrx_word'[^>]*title='([^']*)'[^>]*>(.*?)</span>", re.S)
_TAG = re.compile(r"<[^>]+>")
_BBOX = re.compile(r"bbox (-?\d+) (-?\d+) (-?\d+) (-?\d+)")
_BASELINE = re.compile(r"baseline (-?[\d.]+) (-?[\d.]+)")
_X_SIZE = re.compile(r"x_size ([\d.]+)")
_WCONF = re.compile(r"x_wconf (\d+)")

# Tesseract's x_size is about 0.86 of the em of the type (measured on the shared grammars: body
# text set in 11 pt reads as x_size 39-40 px at 300 dpi); dividing by it gives PyMuPDF's sizes.
X_SIZE_PER_EM = 0.86
SIZE_STEP = 0.5  # sizes are rounded to half points so that lines of one font share one size
WORD_GAP_EMS = 1.6  # words further apart than this are separate fragments (gloss columns, tables)
ASCENT, DESCENT = 0.9, 0.3  # of the size, above and below the baseline: a PyMuPDF line box


@dataclass(frozen=True)
class OcrWord:
    text: str
    x0: float
    x1: float
    confidence: float


@dataclass(frozen=True)
class OcrPage:
    """One recognised page: its fragments (in PDF points) and its mean word confidence (0-100)."""

    fragments: list[Fragment]
    confidence: float | None  # None when nothing was recognised
    words: int


def parse_hocr(text: str, dpi: int) -> OcrPage:
    """Fragments in PDF points (72 per inch) from the hOCR of a page rendered at ``dpi``."""
    scale = 72.0 / dpi
    fragments: list[Fragment] = []
    confidences: list[tuple[float, int]] = []
    for line_match in _LINE.finditer(text):
        title, body = line_match.groups()
        words = _words(body, scale)
        if not words:
            continue
        size, baseline = _size_and_baseline(title, scale)
        for group in _split_at_gaps(words, size):
            line_text = " ".join(w.text for w in group)
            chars = sum(len(w.text) for w in group)
            confidence = sum(w.confidence * len(w.text) for w in group) / chars
            confidences.append((confidence, chars))
            fragments.append(Fragment(
                line_text, group[0].x0, baseline - ASCENT * size, group[-1].x1, baseline + DESCENT * size,
                size, False, False, round(confidence, 1),
            ))
    chars = sum(n for _, n in confidences)
    mean = round(sum(c * n for c, n in confidences) / chars, 1) if chars else None
    return OcrPage(fragments, mean, sum(1 for _ in _WORD.finditer(text)))


def _words(body: str, scale: float) -> list[OcrWord]:
    out = []
    for title, inner in _WORD.findall(body):
        word = html.unescape(_TAG.sub("", inner)).strip()
        box = _BBOX.search(title)
        if not word or box is None:
            continue
        conf = _WCONF.search(title)
        out.append(OcrWord(word, int(box.group(1)) * scale, int(box.group(3)) * scale,
                           float(conf.group(1)) if conf else 0.0))
    return out


def _size_and_baseline(title: str, scale: float) -> tuple[float, float]:
    box = _BBOX.search(title)
    assert box is not None  # every hOCR line has a box
    x0, _y0, x1, y1 = (int(v) for v in box.groups())
    x_size = _X_SIZE.search(title)
    height = float(x_size.group(1)) if x_size else float(y1 - _y0)
    size = max(SIZE_STEP, round(height * scale / X_SIZE_PER_EM / SIZE_STEP) * SIZE_STEP)
    baseline = _BASELINE.search(title)
    offset = 0.0
    if baseline is not None:  # slope and offset from the box's bottom left: take the line's middle
        slope, constant = float(baseline.group(1)), float(baseline.group(2))
        offset = slope * (x1 - x0) / 2 + constant
    return size, (y1 + offset) * scale


def _split_at_gaps(words: list[OcrWord], size: float) -> list[list[OcrWord]]:
    groups = [[words[0]]]
    for word in words[1:]:
        if word.x0 - groups[-1][-1].x1 > WORD_GAP_EMS * size:
            groups.append([word])
        else:
            groups[-1].append(word)
    return groups
