"""Ingest one grammar PDF into a project: extract, clean, segment, label, store.

The work happens in two passes because a page alone cannot tell its running head from its
first line, nor a soft hyphen from a real one: pass one extracts every page's text lines once
(``get_text("dict")``, the only expensive call), pass two decides furniture, page labels,
paragraphs, sections and kinds over the whole book.  Only pages read by OCR are stored as they
finish (so a long OCR resumes, see :mod:`core.ingest.page_reading`); the document itself is
written at the end in one transaction: a cancel, an error or a ``kill -9`` leaves no half
document behind.
"""

from __future__ import annotations

import re
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Container

from core.changes import Act, ProjectChange, grammar_added
from core.collector import collector_paused
from core.ingest import furniture as furn
from core.ingest.language import FRONT_PAGES, glottocode_for, guess_language
from core.ingest.layout import Row, build_rows
from core.ingest.ocr_language import script_model
from core.ingest.page_numbers import PageLabel, labels_from_furniture, labels_from_pdf
from core.ingest.page_reading import OcrOptions, OcrReport, PageText, read_pages
from core.ingest.pdf_open import open_pdf, scanned_error, sha256_of
from core.ingest.sections import SEPARATOR, SectionIndex, marks_from_headings, marks_from_outline, section_kind
from core.ingest.segment import (
    Draft,
    PlacedRow,
    mark_hanging_columns,
    opens_entry,
    segment,
    split_dictionary_entries,
    split_hanging_indents,
)
from core.ingest.text import LazyVocabulary, clean, join_prose_lines
from core.models import LabelSource, Language, PageRow, Paragraph, ParagraphKind, Rect
from core.progress import Progress
from core.store.database import ProjectDatabase
from core.store.ocr_pages import set_document_ocr
from core.store.repository import find_document_by_sha256, get_language, insert_document, set_language

_TOC_ROW = re.compile(r"(?:\.\s?){3,}\s*[\divxlc]+$|\s[\divxlc]{1,4}$")


@dataclass(frozen=True)
class IngestResult:
    document_id: int
    already_present: bool
    pages: int
    paragraphs: int
    seconds: float
    language: Language | None
    ocr: OcrReport | None = None  # what OCR did (None when the book was already in the project)

    @property
    def change(self) -> ProjectChange:
        """The act's record (:mod:`core.changes`): a grammar added, perhaps a language guessed; nothing if it was in."""
        return ProjectChange(Act.IMPORT) if self.already_present else grammar_added()


def ingest_pdf(project: ProjectDatabase, pdf_path: str | Path, **options: Any) -> int:
    """Ingest ``pdf_path`` and return its document id (``options`` as for :func:`ingest`)."""
    return ingest(project, pdf_path, **options).document_id


def ingest(
    project: ProjectDatabase,
    pdf_path: str | Path,
    *,
    language: str | None = None,
    glottocode: str | None = None,
    progress: Progress | None = None,
    ocr: OcrOptions | None = None,
) -> IngestResult:
    """Read a grammar PDF into ``project``; the same file (by sha256) is never ingested twice.

    ``ocr`` says when and how pages are recognised (default: pages without a trustworthy text
    layer, at 300 dpi, the language detected, on every core).
    """
    with collector_paused():
        return _ingest(project, Path(pdf_path), language, glottocode, progress, ocr or OcrOptions())


def _ingest(project: ProjectDatabase, path: Path, language: str | None, glottocode: str | None,
            progress: Progress | None, ocr: OcrOptions) -> IngestResult:
    started = time.perf_counter()
    progress = progress or Progress()
    doc = open_pdf(path)
    try:
        digest = sha256_of(path)
        existing = find_document_by_sha256(project, digest)
        if existing is not None:
            return IngestResult(existing.id, True, existing.page_count, 0, 0.0, get_language(project))
        if ocr.script is None:  # examples printed in the described language's own script: its model too
            current = get_language(project)
            hints = [language or (current.name if current else ""), (doc.metadata or {}).get("title") or "", path.stem]
            ocr = replace(ocr, script=script_model(hints, glottocode or (current.glottocode if current else None)))
        pages, report = read_pages(doc, progress, project=project, digest=digest, options=ocr)
        title = (doc.metadata or {}).get("title") or ""
        toc = doc.get_toc(simple=False)
        # one line per text line, top to bottom: the language is read from a title page's first lines
        front_pages = ["\n".join(f.text for f in sorted(p.fragments, key=lambda f: (round(f.y0), f.x0)))
                       for p in pages[:FRONT_PAGES]]
    finally:
        doc.close()
    paragraphs, page_rows = build_paragraphs(pages, toc, progress)
    if not paragraphs:
        raise scanned_error(path.name)
    chosen_language = _choose_language(project, language, glottocode, title, front_pages)
    labels_source = _document_label_source(page_rows)
    printed_1 = next((p.pdf_page for p in page_rows
                      if p.page_label == "1" and p.label_source is not LabelSource.PDF_PAGE), None)
    seconds = time.perf_counter() - started
    progress.step(len(pages), len(pages), "saving")
    fields = {
        "sha256": digest, "file_name": path.name, "path": str(path.resolve()), "title": title or path.stem,
        "page_count": len(pages), "label_source": labels_source, "pdf_page_of_printed_1": printed_1,
        "pages": page_rows, "paragraphs": paragraphs, "seconds": seconds,
    }
    with project.transaction():  # the document and the language land together or not at all
        document_id = _store(project, chosen_language, fields)
        if report.pages:
            set_document_ocr(project, document_id, report.language, report.pages)
    return IngestResult(document_id, False, len(pages), len(paragraphs), seconds,
                        chosen_language or get_language(project), report)


def _store(project: ProjectDatabase, language: Language | None, fields: dict) -> int:
    document_id = insert_document(project, **fields)
    if language is not None:
        set_language(project, language)
    return document_id


def body_size_of(pages: list[PageText]) -> float:
    """The type size carrying most characters: the size of running text."""
    weights: Counter[float] = Counter()
    for page in pages:
        for f in page.fragments:
            weights[f.size] += len(f.text)
    return weights.most_common(1)[0][0] if weights else 10.0


def build_paragraphs(
    pages: list[PageText], toc: list, progress: Progress | None = None
) -> tuple[list[Paragraph], list[PageRow]]:
    """Pass two: furniture, labels, rows, paragraphs, sections and kinds for the whole book."""
    body_size = body_size_of(pages)
    edges = [furn.edge_lines(p.fragments, p.height) for p in pages]
    positions = furn.running_positions(edges, len(pages))
    furniture_edges = [[e for e in page_edges if furn.is_furniture(e, positions, body_size)] for page_edges in edges]
    labels = labels_from_pdf([p.label for p in pages]) or labels_from_furniture(
        [furn.page_number_candidates(e) for e in furniture_edges]
    )
    rows_by_page: list[list[Row]] = []
    page_rows: list[PageRow] = []
    for index, page in enumerate(pages):
        drop = {id(f) for e in furniture_edges[index] for f in e.fragments}
        drop.update(id(f) for f in furn.margin_line_numbers(page.fragments, page.width))
        body = [f for f in page.fragments if id(f) not in drop]
        rows_by_page.append(build_rows(body, page.width))
        chars = sum(len(f.text) for f in body)
        page_rows.append(PageRow(index + 1, labels[index].label, labels[index].source, page.width, page.height, chars))
        if progress is not None and index % 50 == 0:
            progress.check()
    margins = document_margins(rows_by_page, body_size)
    placed: list[PlacedRow] = []
    for index, rows in enumerate(rows_by_page):
        placed.extend(_place_rows(rows, index, pages[index].height, body_size, margins))
    mark_hanging_columns(placed)
    drafts = split_dictionary_entries(segment(placed, body_size))
    sections = SectionIndex(marks_from_outline(toc, [p.height for p in pages]))
    if not sections:
        sections = SectionIndex(marks_from_headings([
            (d.rows[0].page, d.rows[0].row.y0, " ".join(r.row.text for r in d.rows))
            for d in drafts if d.kind is ParagraphKind.HEADING
        ]))
    drafts = split_hanging_indents(
        drafts,
        lambda d: section_kind(sections.path_at(d.rows[0].page, d.rows[0].row.y0)) in ("bibliography", "index"),
    )
    vocabulary = LazyVocabulary(lambda: (r.row.text for r in placed))
    paragraphs = [
        _paragraph(d, labels, sections, vocabulary, len(pages)) for d in drafts
    ]
    if any(p.rotation for p in pages):
        paragraphs = [_on_the_page(p, pages) for p in paragraphs]
    return [p for p in paragraphs if p.text], page_rows


def _on_the_page(paragraph: Paragraph, pages: list[PageText]) -> Paragraph:
    """Rectangles of a scan's page that was read turned (upside down, sideways) put back where the PDF shows them."""
    rects = [Rect(r.pdf_page, *pages[r.pdf_page - 1].to_pdf(r.x0, r.y0, r.x1, r.y1)) for r in paragraph.rects]
    return replace(paragraph, rects=tuple(rects))


MarginKey = tuple[int, int]  # (page parity, column)


def document_margins(rows_by_page: list[list[Row]], body_size: float) -> dict[MarginKey, tuple[float, float]]:
    """The text block's left and right edge per page parity and column, over the whole book.

    A single page cannot tell: on a page of examples most rows start at the example text, and
    on a page of tables few rows reach the right margin.  Over the book, the left-most common
    start and the most common end of body-size rows are the margins (justified prose starts and
    ends there).
    """
    starts: dict[MarginKey, Counter[int]] = defaultdict(Counter)
    ends: dict[MarginKey, Counter[int]] = defaultdict(Counter)
    for index, rows in enumerate(rows_by_page):
        parity = index % 2
        for r in rows:
            if len(r.fragments) == 1 and abs(r.size - body_size) < 0.6:
                key = (parity, r.column)
                starts[key][round(r.x0)] += 1
                ends[key][round(r.x1)] += 1
    margins: dict[MarginKey, tuple[float, float]] = {}
    for key, counts in starts.items():
        top = counts.most_common(1)[0][1]
        # the left-most start that many rows share (reference lists, where indented lines
        # outnumber flush ones, would otherwise put the margin at the indent)
        left = min(x for x, n in counts.items() if n >= 0.2 * top)
        margins[key] = (left, ends[key].most_common(1)[0][0])
    return margins


def _place_rows(
    rows: list[Row], page: int, height: float, body_size: float, margins: dict[MarginKey, tuple[float, float]]
) -> list[PlacedRow]:
    """Attach column margins and footnote flags to a page's rows."""
    footnote_from = _footnote_start(rows, height, body_size)
    parity = page % 2
    by_column = {c: margins.get((parity, c)) or margins.get((parity, 0)) for c in (-1, 0, 1)}
    placed = []
    for i, r in enumerate(rows):
        column = r.column
        left, right = by_column.get(column) or margins.get((parity, column)) or (r.x0, r.x1)
        x0 = r.x0 + 40.0
        placed.append(PlacedRow(r, page, column, left if left < x0 else x0, i >= footnote_from, right))
    return placed


_FOOTNOTE_MARK = re.compile(r"^(\d{1,3}|[*†‡])")


def _footnote_start(rows: list[Row], height: float, body_size: float) -> int:
    """Index of the first footnote row: footnotes are the small print closing a page that opens
    with a note mark after a gap (small rows above the first mark, such as example sources,
    are not footnotes)."""
    run_start = len(rows)
    for i in range(len(rows) - 1, -1, -1):
        if (rows[i].size <= body_size - 0.9 or _ocr_note_line(rows, i, body_size)) and rows[i].y0 > 0.45 * height:
            run_start = i
        else:
            break
    for i in range(run_start, len(rows)):
        gap = rows[i].y0 - rows[i - 1].y1 if i > 0 else body_size
        set_off = gap >= 0.3 * body_size or rows[i - 1].column != rows[i].column
        # OCR loses or misreads superscript note marks: a recognised small-print run set off at
        # the foot is taken for notes even without one
        if set_off and (_FOOTNOTE_MARK.match(rows[i].text) or (i == run_start and _recognised(rows[i]))):
            return i
    return len(rows)


def _ocr_note_line(rows: list[Row], i: int, body_size: float) -> bool:
    """The page's last line, small print that OCR read larger (a URL's slashes and parentheses: 11.5 pt in
    9 pt notes), goes on the small line just above it, tightly spaced: it does not cut the notes off."""
    above = rows[i - 1] if 0 < i == len(rows) - 1 else None
    return (_recognised(rows[i]) and above is not None and above.size <= body_size - 0.9
            and above.column == rows[i].column and rows[i].y0 - above.y1 < 0.3 * body_size)


def _recognised(row: Row) -> bool:
    return any(f.confidence is not None for f in row.fragments)


def _paragraph(draft: Draft, labels: list[PageLabel], sections: SectionIndex, vocabulary: Container[str],
               n_pages: int) -> Paragraph:
    first = draft.rows[0]
    lines = [r.row.text for r in draft.rows]
    kind = draft.kind
    if kind in (ParagraphKind.EXAMPLE, ParagraphKind.TABLE):  # keep the printed lines: they align
        text = "\n".join(cleaned for cleaned in map(clean, lines) if cleaned)
    else:
        text = join_prose_lines(lines, vocabulary)
    path = sections.path_at(first.page, first.row.y0)
    special = section_kind(path)
    if special and kind is not ParagraphKind.HEADING:
        kind = ParagraphKind(special)
    elif kind is ParagraphKind.PROSE and first.page < 0.15 * n_pages and _looks_like_toc(lines):
        kind = ParagraphKind.TOC
    elif kind is ParagraphKind.PROSE and opens_entry(first.row, text):
        kind = ParagraphKind.ENTRY
    label = labels[first.page]
    return Paragraph(
        id=0, document_id=0, seq=0, pdf_page=first.page + 1, page_label=label.label, label_source=label.source,
        section=SEPARATOR.join(path), kind=kind, text=text, rects=_rects(draft.rows),
        example_number=draft.example_number, ocr_confidence=_ocr_confidence(draft.rows),
    )


def _ocr_confidence(rows: list[PlacedRow]) -> float | None:
    """The mean word confidence of a paragraph's OCR'd lines, by characters (None: a text layer)."""
    total = weight = 0.0
    for placed in rows:
        for f in placed.row.fragments:
            if f.confidence is not None:
                total += f.confidence * len(f.text)
                weight += len(f.text)
    return round(total / weight, 1) if weight else None


def _looks_like_toc(lines: list[str]) -> bool:
    hits = sum(1 for line in lines if _TOC_ROW.search(line.strip()))
    return len(lines) >= 2 and hits >= 0.6 * len(lines)


def _rects(rows: list[PlacedRow]) -> tuple[Rect, ...]:
    """One rectangle per run of rows on the same page and column."""
    runs: list[list] = []  # [page, column, x0, y0, x1, y1]: boxes grow in place, one Rect per run at the end
    last = None
    for placed in rows:
        r = placed.row
        if last is not None and last[0] == placed.page and last[1] == placed.column:
            if r.x0 < last[2]:
                last[2] = r.x0
            if r.y0 < last[3]:
                last[3] = r.y0
            if r.x1 > last[4]:
                last[4] = r.x1
            if r.y1 > last[5]:
                last[5] = r.y1
        else:
            last = [placed.page, placed.column, r.x0, r.y0, r.x1, r.y1]
            runs.append(last)
    return tuple(Rect(page + 1, x0, y0, x1, y1) for page, _column, x0, y0, x1, y1 in runs)


def _document_label_source(page_rows: list[PageRow]) -> LabelSource:
    sources = Counter(p.label_source for p in page_rows)
    return sources.most_common(1)[0][0] if sources else LabelSource.PDF_PAGE


def _choose_language(
    project: ProjectDatabase, name: str | None, glottocode: str | None, title: str, front_pages: list[str]
) -> Language | None:
    if name:
        return Language(name=name, glottocode=glottocode or glottocode_for(name), source="user")
    current = get_language(project)
    if current is not None:
        if glottocode and current.glottocode != glottocode:
            return Language(current.name, glottocode, "user")
        return None
    guessed = guess_language(title, front_pages)
    if guessed and glottocode:
        return Language(guessed.name, glottocode, "user")
    return guessed
