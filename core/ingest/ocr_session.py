"""One ingest's OCR: the pages stored so far, the language chosen, and the reads that fill them in.

Every page Tesseract reads is kept at once (in the project when there is one), whatever read it:
a language sample, the check of a hidden text layer, or the book itself.  A page already read
with the same model and resolution, by this ingest or by an interrupted one, is never read again.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

import pymupdf

from core.ingest.layout import Fragment
from core.ingest.ocr_language import DEFAULT, detect_language
from core.ingest.ocr_run import OcrRate, PageOcr, run_ocr
from core.ingest.tesseract import check_languages
from core.ingest.text_layer import layer_agreement
from core.progress import Progress
from core.store.database import ProjectDatabase
from core.store.ocr_pages import StoredOcrPage, load_ocr_pages, save_ocr_page

SAMPLE_PAGES = 2  # pages read to judge the metalanguage, or a hidden text layer


@dataclass
class OcrSession:
    doc: pymupdf.Document
    project: ProjectDatabase | None
    digest: str
    dpi: int
    jobs: int
    progress: Progress
    stored: dict[int, StoredOcrPage] = field(default_factory=dict)  # by 1-based PDF page

    def __post_init__(self) -> None:
        if self.project is not None and self.digest:
            self.stored = load_ocr_pages(self.project, self.digest)

    def keep(self, result: PageOcr, model: str) -> None:
        record = StoredOcrPage(result.index + 1, result.dpi, model, "failed" if result.error else "ok",
                               result.confidence, fragments_json(result.fragments), result.error,
                               round(result.seconds, 3), result.rotation)
        self.stored[record.pdf_page] = record
        if self.project is not None and self.digest:
            save_ocr_page(self.project, self.digest, record)

    def usable(self, index: int, model: str) -> bool:
        record = self.stored.get(index + 1)
        return record is not None and record.status == "ok" and record.language == model and record.dpi == self.dpi

    def read(self, indexes: list[int], model: str, rate: OcrRate | None = None) -> None:
        """Read the pages not yet read with ``model`` (``rate`` counts them for the progress line)."""
        todo = [i for i in indexes if not self.usable(i, model)]
        rate = rate or OcrRate(total=len(todo))
        run_ocr(self.doc, todo, language=model, dpi=self.dpi, jobs=self.jobs, progress=self.progress,
                on_page=lambda r: self.keep(r, model), rate=rate)

    def text(self, index: int) -> str:
        record = self.stored.get(index + 1)
        return " ".join(f[0] for f in json.loads(record.fragments)) if record is not None else ""

    def earlier_language(self) -> str | None:
        """The model an interrupted ingest of this PDF was using."""
        earlier = Counter(r.language for r in self.stored.values() if r.status == "ok")
        return earlier.most_common(1)[0][0] if earlier else None

    def detect(self, texts: list[str], scanned: list[int]) -> str:
        """The metalanguage from ``texts`` (trusted text layers), else from a few scanned pages read in English."""
        language = detect_language(texts)
        if language is None and scanned:
            check_languages(DEFAULT)
            sample = sample_pages(scanned)
            self.read(sample, DEFAULT)
            language = detect_language([self.text(i) for i in sample])
        return language or DEFAULT

    def hidden_layer_agreement(self, layers: dict[int, str], model: str) -> float:
        """How far a hidden text layer (a scanner's OCR under the picture) agrees with Tesseract's reading,
        on a few sample pages: the word F1 of the two, averaged."""
        sample = sample_pages(sorted(layers))
        self.read(sample, model)
        scores = [layer_agreement(layers[i], self.text(i)) for i in sample if self.usable(i, model)]
        return sum(scores) / len(scores) if scores else 1.0


def sample_pages(indexes: list[int]) -> list[int]:
    """Pages well inside the book (past title, contents and preface), where prose is."""
    if len(indexes) <= SAMPLE_PAGES:
        return list(indexes)
    return [indexes[len(indexes) * k // (SAMPLE_PAGES + 2)] for k in range(2, SAMPLE_PAGES + 2)]


def fragments_json(fragments: list[Fragment]) -> str:
    return json.dumps([[f.text, round(f.x0, 2), round(f.y0, 2), round(f.x1, 2), round(f.y1, 2), f.size,
                        f.confidence] for f in fragments], ensure_ascii=False)


def fragments_from_json(text: str) -> list[Fragment]:
    return [Fragment(t, x0, y0, x1, y1, size, False, False, conf) for t, x0, y0, x1, y1, size, conf in json.loads(text)]
