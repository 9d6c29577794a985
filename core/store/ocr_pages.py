"""Pages read by OCR, stored one by one as they finish (schema 7), and the OCR facts of a document.

Each page is its own small transaction, so what Tesseract has read survives a cancel, an error
or a ``kill -9`` of the ingest, and the next ingest of the same PDF reads only what is missing.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.store.database import ProjectDatabase
from core.timestamps import now_iso


@dataclass(frozen=True)
class StoredOcrPage:
    pdf_page: int  # 1-based
    dpi: int
    language: str
    status: str  # ok | failed
    confidence: float | None
    fragments: str  # JSON, as written by core.ingest
    error: str
    seconds: float
    rotation: int = 0  # 180: an upside-down scan read turned round


def save_ocr_page(project: ProjectDatabase, sha256: str, page: StoredOcrPage) -> None:
    """Store (or replace) one recognised page."""
    with project.transaction():
        project.conn.execute(
            "INSERT OR REPLACE INTO ocr_pages (sha256, pdf_page, dpi, language, status, confidence, fragments, "
            "error, seconds, rotation, read_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (sha256, page.pdf_page, page.dpi, page.language, page.status, page.confidence, page.fragments,
             page.error, page.seconds, page.rotation, now_iso()),
        )


def load_ocr_pages(project: ProjectDatabase, sha256: str) -> dict[int, StoredOcrPage]:
    """Every stored page of the PDF ``sha256``, by 1-based PDF page."""
    rows = project.conn.execute(
        "SELECT pdf_page, dpi, language, status, confidence, fragments, error, seconds, rotation FROM ocr_pages "
        "WHERE sha256 = ? ORDER BY pdf_page",
        (sha256,),
    ).fetchall()
    return {r[0]: StoredOcrPage(r[0], r[1], r[2], r[3], r[4], r[5], r[6] or "", r[7] or 0.0, r[8] or 0) for r in rows}


def set_document_ocr(project: ProjectDatabase, document_id: int, language: str | None, pages: int) -> None:
    """Record which Tesseract models read the document and how many of its pages were OCR'd."""
    with project.transaction():
        project.conn.execute("UPDATE documents SET ocr_language = ?, ocr_pages = ? WHERE id = ?",
                             (language, pages, document_id))


def document_ocr(project: ProjectDatabase, document_id: int) -> tuple[str | None, int]:
    """``(ocr_language, ocr_pages)`` of a document: ``(None, 0)`` for a born-digital one."""
    row = project.conn.execute("SELECT ocr_language, ocr_pages FROM documents WHERE id = ?",
                               (document_id,)).fetchone()
    return (row[0], row[1] or 0) if row else (None, 0)


def count_ocr_pages(project: ProjectDatabase, sha256: str | None = None) -> int:
    """Pages read by OCR and kept (of one PDF, or of any)."""
    if sha256 is None:
        return int(project.conn.execute("SELECT count(*) FROM ocr_pages WHERE status = 'ok'").fetchone()[0])
    return int(project.conn.execute("SELECT count(*) FROM ocr_pages WHERE status = 'ok' AND sha256 = ?",
                                    (sha256,)).fetchone()[0])
