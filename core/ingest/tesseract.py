"""The Tesseract command line: where it is, which language models it has, one page per process.

Why the command and not PyMuPDF's built-in OCR (``get_textpage_ocr``) or OCRmyPDF: on three
prose pages of a shared grammar rendered at 300 dpi, the ``tesseract`` command matched the
born-digital words as well or better (0.92-1.00 against 0.92-0.99) in about half the time per
page (1.8-2.4 s against 3.1-4.7 s), and it gives what the built-in call does not: word
confidences and type sizes (hOCR).  Each page is a process of its own, so pages run in parallel
on every core without Python worker processes, and a Tesseract crash on one page loses that
page, never the application.  OCRmyPDF wraps the same Tesseract but writes a new PDF (plus
Ghostscript for PDF/A), work GrammarLens does not need: it reads the recognised lines directly.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

from core.errors import PdfError

# Tesseract model -> the Debian/Ubuntu package that installs it (the names follow one rule, but the
# message names the package so that nobody has to know the rule)
LANGUAGE_NAMES = {
    "eng": "English", "fra": "French", "spa": "Spanish", "por": "Portuguese", "deu": "German",
    "rus": "Russian", "ind": "Indonesian", "nld": "Dutch",
}
INSTALL_HINT = ("Install Tesseract (Debian/Ubuntu: 'sudo apt-get install tesseract-ocr tesseract-ocr-eng'; "
                "macOS: 'brew install tesseract tesseract-lang'; Windows: the UB Mannheim installer), "
                "or run the PDF through OCR (e.g. ocrmypdf) first.")


# Tesseract's script models (capitalised names) come in packages named after ISO 15924 codes
SCRIPT_PACKAGES = {"Latin": "tesseract-ocr-script-latn", "Armenian": "tesseract-ocr-script-armn",
                   "Cyrillic": "tesseract-ocr-script-cyrl", "Greek": "tesseract-ocr-script-grek"}


def package_of(model: str) -> str:
    return SCRIPT_PACKAGES.get(model) or f"tesseract-ocr-{model.replace('_', '-').lower()}"


def tesseract_path() -> str | None:
    return shutil.which("tesseract")


@functools.cache
def installed_languages(binary: str | None = None) -> frozenset[str]:
    """The language models this Tesseract can load (``tesseract --list-langs``)."""
    binary = binary or tesseract_path()
    if binary is None:
        return frozenset()
    try:
        out = subprocess.run([binary, "--list-langs"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    lines = (out.stdout + out.stderr).splitlines()
    return frozenset(line.strip() for line in lines[1:] if line.strip() and " " not in line.strip())


def check_languages(language: str) -> None:
    """Raise a :class:`PdfError` naming the package to install when a model of ``language`` is missing.

    ``language`` is Tesseract's form, one or more models joined by ``+`` (``fra``, ``spa+eng``).
    """
    if tesseract_path() is None:
        raise PdfError("Tesseract is not installed, and this PDF has pages that need OCR.", INSTALL_HINT)
    have = installed_languages()
    missing = [m for m in language.split("+") if m not in have]
    if missing:
        packages = " ".join(package_of(m) for m in missing)
        names = ", ".join(f"{m} ({LANGUAGE_NAMES.get(m, 'model')})" for m in missing)
        raise PdfError(
            f"Tesseract has no language model for {names}.",
            f"Install it (Debian/Ubuntu: 'sudo apt-get install {packages}'; macOS: 'brew install tesseract-lang'), "
            f"or choose an installed language with --ocr-language ({', '.join(sorted(have)) or 'none'}).",
        )


def tesseract_env() -> dict[str, str]:
    """One thread per Tesseract: pages run in parallel, and OpenMP threads inside each fight them."""
    return {**os.environ, "OMP_THREAD_LIMIT": "1"}


def start_page(image: Path, out_base: Path, language: str, dpi: int, *, block: bool = False) -> subprocess.Popen:
    """Start recognising one page image; the hOCR lands in ``out_base.hocr``.

    ``block`` reads the image as one block of lines without page layout analysis (``--psm 6``),
    which keeps the lone short lines (a page number in the foot) that the analysis drops.
    """
    binary = tesseract_path()
    if binary is None:
        raise PdfError("Tesseract is not installed, and this PDF has pages that need OCR.", INSTALL_HINT)
    mode = ["--psm", "6"] if block else []
    return subprocess.Popen(
        [binary, str(image), str(out_base), "--dpi", str(dpi), "-l", language, *mode, "hocr"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=tesseract_env(),
    )


def has_osd() -> bool:
    return tesseract_path() is not None and "osd" in installed_languages()


def start_orientation(image: Path, out_base: Path) -> subprocess.Popen:
    """Start the orientation and script detection (``--psm 0``) of a page image; it writes ``out_base.osd``."""
    binary = tesseract_path()
    if binary is None:
        raise PdfError("Tesseract is not installed, and this PDF has pages that need OCR.", INSTALL_HINT)
    return subprocess.Popen([binary, str(image), str(out_base), "--psm", "0", "-l", "osd"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=tesseract_env())


def read_rotation(osd: Path, min_confidence: float = 2.0) -> int:
    """The clockwise turn (0, 90, 180, 270) an ``.osd`` report asks for; 0 when unsure or unreadable."""
    try:
        fields = dict(line.split(":", 1) for line in osd.read_text().splitlines() if ":" in line)
        rotate, confidence = int(fields["Rotate"].strip()), float(fields["Orientation confidence"].strip())
    except (OSError, KeyError, ValueError):
        return 0
    return rotate if confidence >= min_confidence else 0
