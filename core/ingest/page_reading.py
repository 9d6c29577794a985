"""Pass one of an ingest: every page's text lines, from its text layer or, when that fails, from OCR.

Each page's text layer is checked first (:mod:`core.ingest.text_layer`): a good layer is used
as it is, and pages without one (scans) or with a poor one are recognised by Tesseract at full
resolution, in parallel (:mod:`core.ingest.ocr_run`).  Recognised pages are stored in the project
as they finish (:mod:`core.store.ocr_pages`), so an ingest stopped half-way continues where it
stopped; only the finished book's document, pages and paragraphs wait for the end.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pymupdf
from pymupdf.utils import get_label_pno

from core.errors import PdfError
from core.ingest.layout import Fragment, fragments_from_dict
from core.ingest.ocr_language import DEFAULT, describe, detect_language
from core.ingest.ocr_run import OcrRate, PageOcr, default_jobs, run_ocr
from core.ingest.pdf_open import scanned_error
from core.ingest.tesseract import check_languages, installed_languages, tesseract_path
from core.ingest.text_layer import LayerVerdict, check_layer
from core.progress import Progress
from core.store.database import ProjectDatabase
from core.store.ocr_pages import StoredOcrPage, load_ocr_pages, save_ocr_page

# Ligatures are expanded (no TEXT_PRESERVE_LIGATURES); images are not extracted.
TEXT_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
OcrMode = Literal["auto", "force", "never"]
LANGUAGE_SAMPLE_PAGES = 2  # pages OCR'd with English first when nothing else tells the metalanguage


@dataclass(frozen=True)
class OcrOptions:
    """How scanned pages are read: ``mode`` auto (check each text layer), force (OCR every page) or
    never (trust the text layer); ``language`` Tesseract's model(s), None to detect; ``jobs`` 0 for
    every core."""

    mode: OcrMode = "auto"
    language: str | None = None
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

    def summary(self) -> str:
        """One sentence for the window's status line ('' when OCR did nothing worth saying)."""
        parts = []
        if self.pages:
            how = "detected" if self.detected else "chosen"
            parts.append(f"OCR read {self.pages} page(s) in {describe(self.language)}, {how}"
                         + (f", mean confidence {self.confidence:.0f}" if self.confidence is not None else ""))
        if self.failed:
            parts.append(f"{len(self.failed)} page(s) could not be read: PDF page "
                         + ", ".join(str(page) for page, _ in self.failed[:8]))
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
    for i in range(n):
        page = doc.load_page(i)
        fragments = fragments_from_dict(page.get_text("dict", flags=TEXT_FLAGS))
        pages.append(PageText(page.rect.width, page.rect.height, fragments, labels[i]))
        text = "\n".join(f.text for f in fragments)
        verdicts.append(check_layer(text, bool(page.get_images(full=False))).verdict)
        if i % 10 == 0 or i == n - 1:
            progress.step(i + 1, n, "reading pages")
    report = OcrReport(poor_layer=[i + 1 for i, v in enumerate(verdicts) if v is LayerVerdict.POOR])
    if options.mode == "never":
        wanted = []
    elif options.mode == "force":
        wanted = [i for i, v in enumerate(verdicts) if v is not LayerVerdict.BLANK or not pages[i].fragments]
    else:
        wanted = [i for i, v in enumerate(verdicts) if v in (LayerVerdict.IMAGE, LayerVerdict.POOR)]
    if not wanted:
        if not any(p.fragments for p in pages):
            raise scanned_error(Path(doc.name).name) if options.mode != "never" else PdfError(
                f"{Path(doc.name).name} has no text layer, and OCR was turned off (--ocr never).",
                "Ingest it with --ocr auto to read its pages with Tesseract.")
        return pages, report
    if tesseract_path() is None or not installed_languages():
        if options.mode == "auto" and len(wanted) < 0.5 * n and all(pages[i].fragments for i in wanted):
            report.poor_layer = []  # no OCR here: the layer, poor or not, is all there is
            return pages, report
        raise scanned_error(Path(doc.name).name)
    _ocr(doc, pages, wanted, verdicts, project, digest, options, progress, report)
    return pages, report


def _ocr(doc: pymupdf.Document, pages: list[PageText], wanted: list[int], verdicts: list[LayerVerdict],
         project: ProjectDatabase | None, digest: str, options: OcrOptions, progress: Progress,
         report: OcrReport) -> None:
    stored = load_ocr_pages(project, digest) if project is not None and digest else {}
    jobs = options.jobs or default_jobs()
    language = options.language
    rate = OcrRate(total=len(wanted))

    def keep(result: PageOcr, model: str) -> None:
        record = StoredOcrPage(result.index + 1, result.dpi, model, "failed" if result.error else "ok",
                               result.confidence, fragments_json(result.fragments), result.error,
                               round(result.seconds, 3))
        stored[record.pdf_page] = record
        if project is not None and digest:
            save_ocr_page(project, digest, record)

    def usable(index: int, model: str) -> bool:
        record = stored.get(index + 1)
        return record is not None and record.status == "ok" and record.language == model and record.dpi == options.dpi

    earlier = Counter(r.language for r in stored.values() if r.status == "ok")
    if language is None and earlier:  # an interrupted ingest decided already
        language = earlier.most_common(1)[0][0]
        report.detected = True
    if language is None:
        good_text = [" ".join(f.text for f in p.fragments) for p, v in zip(pages, verdicts, strict=True)
                     if v is LayerVerdict.GOOD]
        language = detect_language(good_text)
        if language is None:  # a whole scan: read a few pages with English, then judge by them
            check_languages(DEFAULT)
            sample = _sample_pages(wanted)
            todo = [i for i in sample if not usable(i, DEFAULT)]
            run_ocr(doc, todo, language=DEFAULT, dpi=options.dpi, jobs=jobs, progress=progress,
                    on_page=lambda r: keep(r, DEFAULT), rate=OcrRate(total=len(todo)))
            texts = [" ".join(f[0] for f in json.loads(stored[i + 1].fragments)) for i in sample if i + 1 in stored]
            language = detect_language(texts) or DEFAULT
        report.detected = True
    check_languages(language)
    report.language = language
    todo = [i for i in wanted if not usable(i, language)]
    rate.done = len(wanted) - len(todo)
    rate.started = time.monotonic()  # the rate counts this run's pages only
    report.resumed = rate.done
    run_ocr(doc, todo, language=language, dpi=options.dpi, jobs=jobs, progress=progress,
            on_page=lambda r: keep(r, language), rate=rate)
    confidences = []
    for i in wanted:
        record = stored[i + 1]
        if record.status != "ok":
            report.failed.append((i + 1, record.error))
            continue  # the page keeps whatever text layer it had
        pages[i].fragments = fragments_from_json(record.fragments)
        pages[i].confidence = record.confidence
        report.pages += 1
        if record.confidence is not None:
            confidences.append(record.confidence)
    report.confidence = round(sum(confidences) / len(confidences), 1) if confidences else None


def _sample_pages(wanted: list[int]) -> list[int]:
    """Pages well inside the book (past title, contents and preface), where prose is."""
    if len(wanted) <= LANGUAGE_SAMPLE_PAGES:
        return list(wanted)
    return [wanted[len(wanted) * k // (LANGUAGE_SAMPLE_PAGES + 2)] for k in range(2, LANGUAGE_SAMPLE_PAGES + 2)]


def fragments_json(fragments: list[Fragment]) -> str:
    return json.dumps([[f.text, round(f.x0, 2), round(f.y0, 2), round(f.x1, 2), round(f.y1, 2), f.size,
                        f.confidence] for f in fragments], ensure_ascii=False)


def fragments_from_json(text: str) -> list[Fragment]:
    return [Fragment(t, x0, y0, x1, y1, size, False, False, conf) for t, x0, y0, x1, y1, size, conf in json.loads(text)]
