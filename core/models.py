"""Plain data records shared by ingestion, storage, retrieval and the GUI.

These are frozen dataclasses, not ORM objects: the store turns rows into them and back, and
Qt item models only present them (STYLE.md: plain models, thin adapters).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple


class ParagraphKind(StrEnum):
    """What a paragraph is, so retrieval can weigh prose above tables of contents."""

    PROSE = "prose"
    EXAMPLE = "example"  # numbered example: number, object-language line(s), gloss, translation
    TABLE = "table"
    HEADING = "heading"
    TOC = "toc"
    BIBLIOGRAPHY = "bibliography"
    INDEX = "index"
    ENTRY = "entry"  # dictionary entry: headword, pronunciation, part of speech, gloss, examples


class LabelSource(StrEnum):
    """Where a paragraph's printed page number comes from, best first."""

    PDF_LABELS = "pdf_labels"  # the PDF's own /PageLabels
    RUNNING_HEADS = "running_heads"  # a number printed in the running head or foot
    PDF_PAGE = "pdf_page"  # nothing printed was found: the 1-based PDF page number


LOW_OCR_CONFIDENCE = 75.0  # below this mean word confidence an OCR'd paragraph is marked (see bench ocr)


@dataclass(frozen=True)
class Rect:
    """A rectangle on one PDF page, in PDF points with the origin at the top left."""

    pdf_page: int  # 1-based
    x0: float
    y0: float
    x1: float
    y1: float

    def as_list(self) -> list[float]:
        return [self.pdf_page, round(self.x0, 2), round(self.y0, 2), round(self.x1, 2), round(self.y1, 2)]


class PageRow(NamedTuple):
    """One page of an ingested PDF as the store keeps it (``pages``): its printed number, its source, its size.

    A named tuple: ingest builds thousands, and the store also takes a plain 6-tuple in this order.
    """

    pdf_page: int  # 1-based
    page_label: str
    label_source: LabelSource
    width: float
    height: float
    chars: int  # characters of body text (furniture left out)


@dataclass(frozen=True)
class Paragraph:
    """One paragraph of a grammar, as stored in the project file."""

    id: int
    document_id: int
    seq: int  # reading order within its document
    pdf_page: int  # 1-based page where the paragraph starts
    page_label: str  # printed page number of that page (e.g. "xiv", "127")
    label_source: LabelSource
    section: str  # heading path, outermost first, joined by " > "
    kind: ParagraphKind
    text: str
    rects: tuple[Rect, ...] = field(default=())
    example_number: str | None = None
    ocr_confidence: float | None = None  # OCR'd text: mean word confidence 0-100; None: a text layer

    @property
    def low_confidence(self) -> bool:
        """Read by OCR with little confidence: worth a look at the page before trusting the words."""
        return self.ocr_confidence is not None and self.ocr_confidence < LOW_OCR_CONFIDENCE

    def to_json(self) -> dict:
        """The JSON shape printed by ``main.py paragraphs --json``."""
        return {
            "id": self.id,
            "document_id": self.document_id,
            "pdf_page": self.pdf_page,
            "page_label": self.page_label,
            "label_source": self.label_source.value,
            "section": self.section,
            "kind": self.kind.value,
            "example_number": self.example_number,
            "rects": [r.as_list() for r in self.rects],
            "text": self.text,
            "ocr_confidence": self.ocr_confidence,
            "low_confidence": self.low_confidence,
        }


@dataclass(frozen=True)
class Document:
    """A grammar PDF ingested into a project."""

    id: int
    sha256: str
    file_name: str
    path: str
    title: str
    page_count: int
    label_source: LabelSource
    pdf_page_of_printed_1: int | None


@dataclass(frozen=True)
class Language:
    """The language a project describes; editable because the guess can be wrong."""

    name: str
    glottocode: str | None
    source: str  # "user", or where the guess came from ("pdf-metadata", "title-page"); "unsure:..." asks the user
