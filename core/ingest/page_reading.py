"""Pass one of an ingest: every page's text lines, from its text layer or, when that fails, from OCR.

Each page's text layer is checked first (:mod:`core.ingest.text_layer`): a good layer is used
as it is, and pages without one (scans) or with a poor one are recognised by Tesseract at full
resolution, in parallel (:mod:`core.ingest.ocr_run`).  Recognised pages are stored in the project
as they finish (:mod:`core.store.ocr_pages`), so an ingest stopped half-way continues where it
stopped; only the finished book's document, pages and paragraphs wait for the end.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pymupdf
from pymupdf.utils import get_label_pno

from core.errors import PdfError
from core.ingest.layout import Fragment, fragments_from_dict
from core.ingest.ocr_language import describe, with_script
from core.ingest.ocr_run import OcrRate, default_jobs
from core.ingest.ocr_session import OcrSession, fragments_from_json
from core.ingest.pdf_open import scanned_error
from core.ingest.tesseract import check_languages, installed_languages, tesseract_path
from core.ingest.text_layer import LayerVerdict, check_layer
from core.progress import Progress
from core.store.database import ProjectDatabase

# Ligatures are expanded (no TEXT_PRESERVE_LIGATURES); images are not extracted.
TEXT_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
OcrMode = Literal["auto", "force", "never"]
MIN_LAYER_AGREEMENT = 0.8  # a hidden text layer agreeing less with Tesseract's reading is read again


@dataclass(frozen=True)
class OcrOptions:
    """How scanned pages are read: ``mode`` auto (check each text layer), force (OCR every page) or
    never (trust the text layer); ``language`` Tesseract's model(s), None to detect; ``jobs`` 0 for
    every core; ``script`` the model of the described language's own script (e.g. ``hye``), added to a
    detected language when installed (a chosen ``language`` is used as it is)."""

    mode: OcrMode = "auto"
    language: str | None = None
    script: str | None = None
    dpi: int = 300
    jobs: int = 0


@dataclass
class PageText:
    """What pass one keeps of a page."""

    width: float
    height: float
    fragments: list[Fragment]
    label: str  # the PDF's own label ('' when none)
    confidence: float | None = None  # OCR'd pages: Tesseract's mean word confidence
    rotation: int = 0  # 90/180/270: read turned that far; fragments, width and height are the turned page's

    def to_pdf(self, x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
        """A box of the turned page (see ``rotation``) where the PDF's own page shows it."""
        if not self.rotation:
            return x0, y0, x1, y1
        width, height = (self.height, self.width) if self.rotation in (90, 270) else (self.width, self.height)
        turn = pymupdf.Matrix(1, 1).prerotate(self.rotation)
        shift = pymupdf.Rect(0, 0, width, height).transform(turn)
        box = pymupdf.Rect(x0 + shift.x0, y0 + shift.y0, x1 + shift.x0, y1 + shift.y0).transform(~turn)
        return box.x0, box.y0, box.x1, box.y1


@dataclass
class OcrReport:
    """What OCR did in this ingest, for the summary line and the document's record."""

    language: str | None = None
    detected: bool = False  # the language was detected rather than chosen
    pages: int = 0  # pages whose text came from OCR
    resumed: int = 0  # of them, read by an earlier, interrupted ingest
    poor_layer: list[int] = field(default_factory=list)  # 1-based pages whose text layer was not trusted
    failed: list[tuple[int, str]] = field(default_factory=list)  # 1-based page, error
    confidence: float | None = None  # mean over OCR'd pages
    layer_agreement: float | None = None  # hidden text layers checked: word F1 against Tesseract's reading
    not_read: list[int] = field(default_factory=list)  # 1-based pages that needed OCR without Tesseract here

    def summary(self) -> str:
        """One sentence for the window's status line ('' when OCR did nothing worth saying)."""
        parts = []
        if self.pages:
            parts.append(f"OCR: {self.pages} page(s) in {describe(self.language)}"
                         + (f", confidence {self.confidence:.0f}" if self.confidence is not None else ""))
        if self.failed:
            parts.append(f"{len(self.failed)} page(s) could not be read: PDF page "
                         + ", ".join(str(page) for page, _ in self.failed[:8]))
        if self.not_read:
            parts.append(f"{len(self.not_read)} page(s) without a usable text layer were not read: "
                         "Tesseract is not installed")
        if self.poor_layer and not self.pages:
            parts.append(f"the text layer of {len(self.poor_layer)} page(s) looks poor")
        return "; ".join(parts) + "." if parts else ""


def pdf_page_labels(doc: pymupdf.Document) -> list[str]:
    """Every page's /PageLabels label ('' without labels), reading the label rules once.

    ``Page.get_label()`` re-reads the whole rule array for each page, which costs more than
    the text extraction on long books.
    """
    rules = sorted(doc._get_page_labels() or [])
    if not rules:
        return [""] * doc.page_count
    return [get_label_pno(i, rules) for i in range(doc.page_count)]


def read_pages(doc: pymupdf.Document, progress: Progress, *, project: ProjectDatabase | None = None,
               digest: str = "", options: OcrOptions | None = None) -> tuple[list[PageText], OcrReport]:
    """Every page's fragments, OCR'd where the text layer is missing or poor (see module doc)."""
    options = options or OcrOptions()
    n = doc.page_count
    labels = pdf_page_labels(doc)
    pages: list[PageText] = []
    verdicts: list[LayerVerdict] = []
    hidden: dict[int, str] = {}  # pages whose trusted-looking layer is invisible text over a picture
    for i in range(n):
        page = doc.load_page(i)
        fragments = fragments_from_dict(page.get_text("dict", flags=TEXT_FLAGS))
        pages.append(PageText(page.rect.width, page.rect.height, fragments, labels[i]))
        text = "\n".join(f.text for f in fragments)
        has_images = bool(page.get_images(full=False))
        verdicts.append(check_layer(text, has_images).verdict)
        if has_images and verdicts[-1] is LayerVerdict.GOOD and invisible_share(page) >= 0.8:
            hidden[i] = text
        if i % 10 == 0 or i == n - 1:
            progress.step(i + 1, n, "reading pages")
    report = OcrReport(poor_layer=[i + 1 for i, v in enumerate(verdicts) if v is LayerVerdict.POOR])
    wanted = _pages_to_read(options.mode, verdicts, pages)
    check_hidden = options.mode == "auto" and bool(hidden)
    if not wanted and not check_hidden:
        if not any(p.fragments for p in pages):
            raise scanned_error(Path(doc.name).name) if options.mode != "never" else PdfError(
                f"{Path(doc.name).name} has no text layer, and OCR was turned off (--ocr never).",
                "Ingest it with --ocr auto to read its pages with Tesseract.")
        return pages, report
    if tesseract_path() is None or not installed_languages():
        if options.mode == "auto" and len(wanted) < 0.5 * n:  # a book of type with a few pictures or poor pages
            report.not_read = [i + 1 for i in wanted]  # kept as they are, and said so
            return pages, report
        raise scanned_error(Path(doc.name).name)
    session = OcrSession(doc, project, digest, options.dpi, options.jobs or default_jobs(), progress)
    language = options.language or session.earlier_language()
    report.detected = options.language is None
    if language is None:
        good = [" ".join(f.text for f in p.fragments) for p, v in zip(pages, verdicts, strict=True)
                if v is LayerVerdict.GOOD]
        language = session.detect(good, wanted or sorted(hidden))
    if options.language is None:  # detected or resumed, not chosen: the described language's script too
        language = with_script(language, options.script, installed_languages())
    check_languages(language)
    report.language = language
    if check_hidden:
        report.layer_agreement = round(session.hidden_layer_agreement(hidden, language), 3)
        if report.layer_agreement < MIN_LAYER_AGREEMENT:  # a scanner's poor OCR: read those pages again
            wanted = sorted(set(wanted) | set(hidden))
            report.poor_layer = sorted(set(report.poor_layer) | {i + 1 for i in hidden})
    _read(session, pages, wanted, language, report)
    return pages, report


def _pages_to_read(mode: str, verdicts: list[LayerVerdict], pages: list[PageText]) -> list[int]:
    """The 0-based pages OCR reads: none (never); all but blank pages with a text layer (force); else poor or image."""
    if mode == "never":
        return []
    if mode == "force":
        return [i for i, v in enumerate(verdicts) if v is not LayerVerdict.BLANK or not pages[i].fragments]
    return [i for i, v in enumerate(verdicts) if v in (LayerVerdict.IMAGE, LayerVerdict.POOR)]


def invisible_share(page: pymupdf.Page) -> float:
    """The share of a page's characters drawn invisibly (render mode 3): a scanner's OCR layer."""
    total = invisible = 0
    for span in page.get_texttrace():
        count = len(span["chars"])
        total += count
        invisible += count if span["type"] == 3 else 0
    return invisible / total if total else 0.0


def _read(session: OcrSession, pages: list[PageText], wanted: list[int], language: str, report: OcrReport) -> None:
    rate = OcrRate(total=len(wanted))
    rate.done = report.resumed = sum(1 for i in wanted if session.usable(i, language))
    rate.started = time.monotonic()  # the rate counts this run's pages only
    session.read(wanted, language, rate)
    confidences = []
    for i in wanted:
        record = session.stored[i + 1]
        if record.status != "ok":
            report.failed.append((i + 1, record.error))
            continue  # the page keeps whatever text layer it had
        pages[i].fragments = fragments_from_json(record.fragments)
        pages[i].confidence = record.confidence
        pages[i].rotation = record.rotation
        if record.rotation in (90, 270):  # read sideways: lay the page out as it was read
            pages[i].width, pages[i].height = pages[i].height, pages[i].width
        report.pages += 1
        if record.confidence is not None:
            confidences.append(record.confidence)
    report.confidence = round(sum(confidences) / len(confidences), 1) if confidences else None
