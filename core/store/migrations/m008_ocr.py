"""Schema 8: OCR of scanned pages, kept page by page, and how sure it was.

``ocr_pages`` holds each recognised page as soon as Tesseract finishes it, keyed by the PDF's
sha256 (the document row exists only once the whole book is read): an ingest that is cancelled
or killed continues where it stopped, and a page Tesseract failed on is remembered with its
error.  Paragraphs carry the mean word confidence of their OCR'd lines (NULL for a text layer),
and documents say which Tesseract model read them, so both can be shown.
"""

from __future__ import annotations

import sqlite_utils


def migrate(db: sqlite_utils.Database) -> None:
    db.table("ocr_pages").create(
        {
            "sha256": str,  # the PDF's, as documents.sha256
            "pdf_page": int,  # 1-based
            "dpi": int,
            "language": str,  # Tesseract's models, e.g. "eng" or "fra"
            "status": str,  # ok | failed
            "confidence": float,  # mean word confidence 0-100, NULL when nothing was recognised
            "fragments": str,  # JSON [[text, x0, y0, x1, y1, size, confidence], ...] in PDF points
            "error": str,
            "rotation": int,  # 180: an upside-down scan, read turned round (fragments are upright)
            "seconds": float,
            "read_at": str,
        },
        pk=("sha256", "pdf_page"),
        not_null={"dpi", "language", "status", "fragments", "read_at"},
    )
    db.table("paragraphs").add_column("ocr_confidence", float)
    db.table("documents").add_column("ocr_language", str)
    db.table("documents").add_column("ocr_pages", int)
