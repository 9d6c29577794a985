"""Image-only PDFs made from born-digital pages: a clean 300-dpi scan, or one degraded like a real one.

The degradations are what a library scanner or a photocopy does to a page, seeded so that a run
is repeatable: a small skew (the page rendered through a rotated matrix), blur (the lens), uneven
light (a gradient across the page, darker toward the spine), grain (Gaussian noise), and JPEG
compression.  Only PyMuPDF and numpy are used; no image library is needed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pymupdf

from core.ingest.pdf_open import open_pdf

SCAN_DPI = 300


def make_scan(source: Path, pages: list[int], target: Path, *, degrade: bool = False, seed: int = 0,
              dpi: int = SCAN_DPI) -> Path:
    """Write ``pages`` (0-based) of ``source`` as an image-only PDF ``target`` (no text, no page labels)."""
    rng = np.random.default_rng(seed)
    with open_pdf(source) as src, pymupdf.open() as out:
        for index in pages:
            page = src.load_page(index)
            pixmap = _degraded(page, dpi, rng) if degrade else page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
            new = out.new_page(width=page.rect.width, height=page.rect.height)
            if degrade:
                new.insert_image(new.rect, stream=pixmap.tobytes("jpeg", jpg_quality=55))
            else:
                new.insert_image(new.rect, pixmap=pixmap)
        target.parent.mkdir(parents=True, exist_ok=True)
        out.save(target, deflate=True)
    return target


def _degraded(page: pymupdf.Page, dpi: int, rng: np.random.Generator) -> pymupdf.Pixmap:
    zoom = dpi / 72.0
    angle = float(rng.uniform(-0.8, 0.8))  # degrees of skew
    matrix = pymupdf.Matrix(zoom, zoom).prerotate(angle)
    rendered = page.get_pixmap(matrix=matrix, colorspace=pymupdf.csGRAY, alpha=False)
    image = np.frombuffer(rendered.samples, dtype=np.uint8).reshape(rendered.height, rendered.width).astype(float)
    # the rotated render is larger than the page: cut the page size back out of its middle
    height, width = int(page.rect.height * zoom), int(page.rect.width * zoom)
    top, left = max(0, (image.shape[0] - height) // 2), max(0, (image.shape[1] - width) // 2)
    image = image[top:top + height, left:left + width]
    image = _blur(_blur(image))
    light = np.linspace(float(rng.uniform(0.72, 0.85)), 1.0, image.shape[1])[None, :]
    if rng.random() < 0.5:
        light = light[:, ::-1]
    image = image * light + rng.normal(0.0, 14.0, image.shape)
    samples = np.clip(image, 0, 255).astype(np.uint8)
    return pymupdf.Pixmap(pymupdf.csGRAY, samples.shape[1], samples.shape[0], samples.tobytes(), False)


def _blur(image: np.ndarray) -> np.ndarray:
    """A 1-2-1 blur in both directions (about a Gaussian of one pixel)."""
    padded = np.pad(image, 1, mode="edge")
    rows = 0.25 * padded[:-2, :] + 0.5 * padded[1:-1, :] + 0.25 * padded[2:, :]
    return 0.25 * rows[:, :-2] + 0.5 * rows[:, 1:-1] + 0.25 * rows[:, 2:]
