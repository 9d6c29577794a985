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
from typing import Callable

from core.ingest.layout import Fragment

# hOCR line classes Tesseract writes (plain lines, running heads, captions, floating text)
_PAR = re.compile(r"<p class='ocr_par'[^>]*>(.*?)</p>", re.S)
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

# Tesseract's x_size is about 0.95 of the em of the type (measured on the shared grammars: body
# text set in 10.9 pt reads as x_size 43-45 px at 300 dpi); dividing by it gives PyMuPDF's sizes.
X_SIZE_PER_EM = 0.95
SIZE_STEP = 0.5  # sizes are rounded to half points so that lines of one font share one size
WORD_GAP_EMS = 0.8  # words further apart than this are separate fragments (example numbers, glosses, tables)
SHORT_LINE = 16  # characters: shorter lines take the page's body size when theirs is near it
ASCENT, DESCENT = 0.88, 0.25  # of the size, above and below the baseline: a PyMuPDF line box


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
    for par in _PAR.findall(text):
        lines = []
        for title, body in _LINE.findall(par):
            words = _words(body, scale)
            if words:
                lines.append((words, *_size_and_baseline(title, scale)))
        size = _paragraph_size([(words, line_size) for words, line_size, _ in lines])
        for words, line_size, baseline in lines:
            fragments += _fragments(words, size(line_size), baseline, confidences)
    _snap_short_lines(fragments)
    chars = sum(n for _, n in confidences)
    mean = round(sum(c * n for c, n in confidences) / chars, 1) if chars else None
    return OcrPage(fragments, mean, sum(1 for _ in _WORD.finditer(text)))


def _snap_short_lines(fragments: list[Fragment]) -> None:
    """A short line ("type.", a paragraph's last word) gets the page's body size when its own is
    near it: with few letters Tesseract's size estimate is a guess, and a size change would end
    the paragraph it closes."""
    weights: dict[float, int] = {}
    for f in fragments:
        weights[f.size] = weights.get(f.size, 0) + len(f.text)
    if not weights:
        return
    body = max(weights, key=lambda s: weights[s])
    for f in fragments:
        # a paragraph's closing words (final punctuation, lower case) may be far off; a short
        # heading ("Introduction") keeps a size a little above the body's
        closing = f.text.endswith((".", ",", ";", ":", ")", "?", "!")) or f.text[:1].islower()
        if len(f.text) < SHORT_LINE and f.size != body and abs(f.size - body) <= (0.35 if closing else 0.08) * body:
            shift = body - f.size
            f.size = body
            f.y0 -= ASCENT * shift
            f.y1 += DESCENT * shift


def _paragraph_size(lines: list[tuple[list[OcrWord], float]]) -> Callable[[float], float]:
    """Lines of one recognised paragraph share its commonest size (by characters) when theirs is
    near it: Tesseract's estimate wobbles from line to line, and a size change ends a paragraph
    downstream."""
    weights: dict[float, int] = {}
    for words, size in lines:
        weights[size] = weights.get(size, 0) + sum(len(w.text) for w in words)
    if not weights:
        return lambda size: size
    common = max(weights, key=lambda s: weights[s])
    return lambda size: common if abs(size - common) <= 0.15 * common else size


def _fragments(words: list[OcrWord], size: float, baseline: float,
               confidences: list[tuple[float, int]]) -> list[Fragment]:
    out = []
    for group in _split_at_gaps(words, size):
        chars = sum(len(w.text) for w in group)
        confidence = sum(w.confidence * len(w.text) for w in group) / chars
        confidences.append((confidence, chars))
        out.append(Fragment(
            " ".join(w.text for w in group), group[0].x0, baseline - ASCENT * size, group[-1].x1,
            baseline + DESCENT * size, size, False, False, round(confidence, 1),
        ))
    return out


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
