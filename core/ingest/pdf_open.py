"""Opening a PDF safely: every way a file can fail gets one clear, actionable message."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pymupdf

from core.errors import PdfError
from core.store import file_guard

MAX_PAGES = 5000  # beyond this a "grammar" is almost certainly not one book
SCANNED_CHARS_PER_PAGE = 25  # fewer extractable characters per page than this: image-only


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def open_pdf(path: str | os.PathLike[str]) -> pymupdf.Document:
    """Open ``path`` as a readable, text-bearing PDF or raise :class:`PdfError`."""
    pdf = Path(path)
    if not pdf.exists():
        raise PdfError(f"{pdf} does not exist.", "Check the path.")
    if pdf.is_dir():
        raise PdfError(f"{pdf} is a folder, not a PDF.", "Give the path of a PDF file.")
    file_guard.refuse_open_project(pdf, "as a grammar PDF")  # before any open(): see core.store.file_guard
    try:
        with open(pdf, "rb") as fh:
            head = fh.read(1024)
    except OSError as exc:
        raise PdfError(f"Cannot read {pdf}: {exc.strerror}.", "Check the file's permissions.") from exc
    if b"%PDF-" not in head:
        raise PdfError(
            f"{pdf.name} is not a PDF file.",
            "GrammarLens reads grammars as PDF; convert other formats (e.g. DOCX) to PDF first.",
        )
    try:
        doc = pymupdf.open(pdf, filetype="pdf")
    except Exception as exc:  # MuPDF raises a variety of errors for broken files
        raise PdfError(
            f"{pdf.name} is damaged and cannot be opened ({exc}).",
            "Download the file again or re-export it from its source.",
        ) from exc
    if doc.needs_pass:
        doc.close()
        raise PdfError(
            f"{pdf.name} is protected by a password.",
            "Open it in a PDF reader with the password and save an unprotected copy, then ingest that copy.",
        )
    if doc.page_count == 0:
        doc.close()
        raise PdfError(f"{pdf.name} has no pages (it may be truncated).", "Download the file again.")
    if doc.page_count > MAX_PAGES:
        doc.close()
        raise PdfError(
            f"{pdf.name} has {doc.page_count} pages; GrammarLens accepts up to {MAX_PAGES}.",
            "Split the file into volumes and ingest each volume into the same project.",
        )
    return doc


def ocr_available() -> bool:
    """Whether Tesseract is installed, so scanned pages can be read through PyMuPDF's OCR."""
    return shutil.which("tesseract") is not None and bool(os.environ.get("TESSDATA_PREFIX") or _find_tessdata())


def _find_tessdata() -> str | None:
    for candidate in ("/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata",
                      "/usr/share/tessdata", "/opt/homebrew/share/tessdata", "/usr/local/share/tessdata"):
        if Path(candidate).is_dir():
            return candidate
    return None


def scanned_error(name: str) -> PdfError:
    return PdfError(
        f"{name} contains no extractable text: it looks like a scanned book, which needs OCR.",
        "Install Tesseract (Debian/Ubuntu: 'sudo apt-get install tesseract-ocr'; macOS: 'brew install tesseract'; "
        "Windows: the UB Mannheim installer) and ingest again, or run the PDF through OCR (e.g. ocrmypdf) first.",
    )
