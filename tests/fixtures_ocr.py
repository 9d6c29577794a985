"""Scanned (image-only) PDFs made from generated books, and the real Tesseract they need.

The OCR tests run the real ``tesseract`` command.  Where it (or a language model) is missing they
are skipped on a developer's machine, but under ``CI=true`` they fail: CI installs Tesseract
through ``scripts/setup.sh`` and must test OCR for real.
"""

from __future__ import annotations

import os
from pathlib import Path

import pymupdf
import pytest

from core.ingest.tesseract import installed_languages, package_of, tesseract_path


def require_tesseract(*models: str) -> None:
    """Skip (fail under CI) unless Tesseract and the given language models are installed."""
    missing = [m for m in models if m not in installed_languages()]
    if tesseract_path() is not None and not missing:
        return
    what = "tesseract-ocr " + " ".join(package_of(m) for m in missing or models)
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must test OCR for real: install {what} (scripts/setup.sh does)")
    pytest.skip(f"needs {what}")


@pytest.fixture
def tesseract_eng() -> None:
    require_tesseract("eng")


def rasterise(source: Path, target: Path, dpi: int = 300, pages: list[int] | None = None,
              upside_down: frozenset[int] = frozenset()) -> Path:
    """An image-only copy of ``source`` (pages rendered in grey at ``dpi``): no text, no page labels.

    Pages whose index is in ``upside_down`` are scanned turned round (as a sheet fed the wrong way).
    """
    with pymupdf.open(source) as src, pymupdf.open() as out:
        for index in pages if pages is not None else range(src.page_count):
            page = src.load_page(index)
            image = out.new_page(width=page.rect.width, height=page.rect.height)
            matrix = pymupdf.Matrix(dpi / 72, dpi / 72).prerotate(180 if index in upside_down else 0)
            image.insert_image(image.rect, pixmap=page.get_pixmap(matrix=matrix, colorspace=pymupdf.csGRAY))
        out.save(target, deflate=True)
    return target


def with_text_layer(scan: Path, target: Path, layer: list[str]) -> Path:
    """``scan`` with an invisible text layer over each page (as a scanner's OCR writes), one text per page."""
    with pymupdf.open(scan) as doc:
        for page, text in zip(doc, layer, strict=True):
            y = 60.0
            for line in text.split("\n"):
                page.insert_text((50, y), line, fontsize=10, render_mode=3)  # 3: invisible
                y += 13.0
        doc.save(target)
    return target
