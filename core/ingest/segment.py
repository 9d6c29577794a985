"""Cutting the stream of rows into paragraphs: prose, numbered examples, tables, headings.

The rows of all pages arrive in reading order (furniture removed, footnotes after the main
text of their page).  A paragraph ends at a vertical gap, an indented first line, a change of
type size, a heading, or the start of a numbered example; it *continues* across a column or
page break when the next column starts flush left with text of the same size, so a paragraph
running over a page break stays one paragraph with rectangles on both pages.

A numbered example starts with a row whose first fragment is the number alone, ``(12)``, set
off from the example text.  Everything indented at least as far as the example text — the
object-language line(s), the gloss line, sub-examples ``a.``/``b.``, the translation and the
source — belongs to it; the example ends where text returns to the margin.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise

from core.ingest.entries import starts_entry
from core.ingest.layout import Row
from core.models import ParagraphKind

EXAMPLE_NUMBER = re.compile(r"^\((\d{1,4}(?:[.\-]\d{1,3})?[a-z]?)\)$")
EXAMPLE_NUMBER_PREFIX = re.compile(r"^\((\d{1,4}(?:[.\-]\d{1,3})?[a-z]?)\)\s+\S")
LIST_ITEM = re.compile(r"^([•·▪◦–—*]|\(?[a-z]\)|\d{1,2}\.)\s")
NUMBERED_HEADING = re.compile(r"^\d{1,2}(?:\.\d{1,2}){1,4}\.?\s+[A-Z\u00c0-\u024f]")  # 3.2.1 Rhotics
_PAGE_RANGE_END = re.compile(r"\d+\s*[-\u2013]\s*\d+\W*$")  # a reference's pages: 809-829.
SHORT_OCR_LINE = 16  # characters (as core.ingest.hocr.SHORT_LINE)
TERMINAL = (".", "!", "?", ":", ";", "”", "’", '"', ")", "]")


@dataclass(slots=True)
class PlacedRow:
    """A row with where it stands: page, column, and that column's left margin."""

    row: Row
    page: int  # 0-based PDF page index
    column: int
    left: float  # left margin of the row's column on its page
    footnote: bool = False
    right: float = 0.0  # right edge of the row's column (where full lines end)
    hanging: bool = False  # the column is set with hanging indents (dictionaries, reference lists)


@dataclass(slots=True)
class Draft:
    """A paragraph being assembled from rows."""

    kind: ParagraphKind
    rows: list[PlacedRow] = field(default_factory=list)
    example_number: str | None = None
    content_x: float = 0.0  # examples: left edge of the example text after the number
    number_x: float = 0.0  # examples: left edge of the number

    @property
    def last(self) -> PlacedRow:
        return self.rows[-1]


def example_number_of(row: Row) -> str | None:
    """The example number if ``row`` opens a numbered example."""
    first = row.fragments[0].text.strip()
    match = EXAMPLE_NUMBER.match(first)
    if match and (len(row.fragments) > 1 or row.text == first):
        return match.group(1)
    return None


def _is_heading(row: Row, body_size: float) -> bool:
    text = row.text
    if len(text) > 160 or len(text) < 2 or text.endswith((",", ";")):
        return False
    if row.fragments[0].confidence is not None:
        return _is_ocr_heading(row, body_size)
    if row.size >= body_size + 1.0 and row.size > 0:
        return True
    return row.bold and len(row.fragments) <= 3 and any(c.isalpha() for c in text)


def _is_ocr_heading(row: Row, body_size: float) -> bool:
    """A heading on a page read by OCR.  OCR gives no bold, and a line's size is estimated from its ink,
    so parentheses or brackets make a line look larger: a heading by size must also begin like one (a
    capital, not the lower-case tail of a reference, ``ties 19(5). 809-829.``) and not end a sentence.
    A numbered heading (``6.4.2.1 Subjunctive ...``), set in bold at body size in print, counts by its
    number: otherwise a scanned book loses most of its section headings, which retrieval reads."""
    text = row.text
    letters = [c for c in text if c.isalpha()]
    if len(letters) < 2 or letters[0].islower() or text.endswith((".", ":")) or _PAGE_RANGE_END.search(text):
        return False
    if row.size >= body_size + 1.0 and row.size > 0:
        return True
    return len(text) <= 100 and NUMBERED_HEADING.match(text) is not None


def _set_off(placed: PlacedRow, prior: PlacedRow | None, body_size: float) -> bool:
    """Headings stand apart: larger type, or space above them (a bold word that merely starts
    a line inside a dictionary entry or a list is not a heading)."""
    if placed.row.size >= body_size + 1.0:
        return True
    if prior is None or prior.page != placed.page or prior.column != placed.column:
        return True
    return placed.row.y0 - prior.row.y1 > 0.4 * placed.row.size


def _is_table_row(row: Row) -> bool:
    frags = row.fragments
    if len(frags) < 2:
        return False
    gaps = [b.x0 - a.x1 for a, b in pairwise(frags)]
    return max(gaps) >= 1.5 * row.size


def segment(rows: list[PlacedRow], body_size: float) -> list[Draft]:
    """Turn rows in reading order into paragraph drafts (see module doc)."""
    drafts: list[Draft] = []
    current: Draft | None = None
    pending_table: list[PlacedRow] = []

    def close() -> None:
        nonlocal current
        if current is not None and current.rows:
            drafts.append(current)
        current = None

    def flush_table() -> None:
        nonlocal pending_table, current
        if not pending_table:
            return
        if len(pending_table) >= 2:
            close()
            drafts.append(Draft(ParagraphKind.TABLE, list(pending_table)))
        else:
            for placed in pending_table:
                _add_prose(placed)
        pending_table = []

    def _add_prose(placed: PlacedRow) -> None:
        nonlocal current
        if current is None or current.kind is not ParagraphKind.PROSE or _starts_new_prose(current, placed, body_size):
            close()
            current = Draft(ParagraphKind.PROSE)
        current.rows.append(placed)

    previous: PlacedRow | None = None
    for placed in rows:
        prior, previous = previous, placed
        row = placed.row
        number = None if placed.footnote else example_number_of(row)
        in_example = current is not None and current.kind is ParagraphKind.EXAMPLE
        if in_example and number is None and current is not None and _continues_example(current, placed):
            current.rows.append(placed)
            continue
        if number is not None or _opens_orphan_example(placed, prior, body_size):
            flush_table()
            close()
            content_x = (row.fragments[1].x0 if len(row.fragments) > 1 else row.x1) if number else row.x0
            current = Draft(ParagraphKind.EXAMPLE, [placed], example_number=number, content_x=content_x,
                            number_x=row.x0 if number else placed.left)
            continue
        if not placed.footnote and _is_heading(row, body_size) and _set_off(placed, prior, body_size):
            flush_table()
            if (
                current is not None and current.kind is ParagraphKind.HEADING
                and current.last.page == placed.page and row.y0 - current.last.row.y1 < 0.6 * row.size
                and abs(current.last.row.size - row.size) < 0.5
            ):
                current.rows.append(placed)
            else:
                close()
                current = Draft(ParagraphKind.HEADING, [placed])
            continue
        if _is_table_row(row) and not placed.footnote:
            last = pending_table[-1] if pending_table else None
            if last is not None and (last.page != placed.page or row.y0 - last.row.y1 > 2.5 * row.size):
                flush_table()
            pending_table.append(placed)
            continue
        flush_table()
        _add_prose(placed)
    flush_table()
    close()
    return _rejoin_across_floats(drafts)


_CAPTION = re.compile(r"^(Table|Figure|Fig\.|Map|Photo|Chart)\s+[\dIVX]", re.I)


def _rejoin_across_floats(drafts: list[Draft]) -> list[Draft]:
    """Join a paragraph cut by a page break to its continuation placed after floats.

    When a table or figure opens the next page, the sentence that ran off the previous page
    resumes below it.  The continuation is the first prose on that page that starts flush
    left in lower case; footnotes, tables, examples and captions in between are skipped.
    """
    merged: set[int] = set()
    for i, draft in enumerate(drafts):
        if i in merged or draft.kind is not ParagraphKind.PROSE or draft.last.footnote:
            continue
        if draft.last.row.text.endswith(TERMINAL) or len({r.page for r in draft.rows}) > 1:
            continue
        for j in range(i + 1, min(i + 24, len(drafts))):
            other = drafts[j]
            first = other.rows[0]
            if first.page > draft.last.page + 1 or other.kind is ParagraphKind.HEADING:
                break
            if first.page == draft.last.page and not first.footnote:
                break  # more text follows on the same page: the paragraph did not run off it
            if first.footnote or other.kind is not ParagraphKind.PROSE:
                continue
            if _CAPTION.match(first.row.text):
                continue
            flush = first.row.x0 - first.left <= 0.5 * first.row.size
            if flush and first.row.text[:1].islower() and j not in merged:
                draft.rows.extend(other.rows)
                merged.add(j)
                break
            full_lines = sum(1 for r in other.rows if r.right > 0 and r.row.x1 >= r.right - r.row.size)
            if flush and full_lines >= 1 and len(other.rows) >= 2:
                break  # a real paragraph of running text: the sentence did not resume here
    return [d for k, d in enumerate(drafts) if k not in merged]


SUB_LABEL = re.compile(r"^([a-z]|[ivx]{1,4}|\d{1,3})[.)]?(\s|$)")


def _continues_example(draft: Draft, placed: PlacedRow) -> bool:
    """Whether a row still belongs to the open numbered example.

    Rows indented as far as the example text belong to it; rows flush with the margin end it.
    Rows in between (sub-example labels, line numbers of a text excerpt, a translation set a
    little left of the words) belong to it unless they look like the first line of a prose
    paragraph: a full-width line, or a line set off by a gap.
    """
    row, last = placed.row, draft.last
    if placed.footnote:
        return False
    if placed.page == last.page and placed.column == last.column and row.y0 - last.row.y1 > 3.0 * row.size:
        return False
    if row.x0 >= draft.content_x - 1.5:
        return True
    if row.x0 <= placed.left + 0.3 * row.size or row.x0 <= draft.number_x + 0.3 * row.size:
        return False
    if SUB_LABEL.match(row.text):
        return True
    full_width = placed.right > 0 and row.x1 >= placed.right - row.size
    close_below = placed.page != last.page or row.y0 - last.row.y1 <= 0.6 * row.size
    return close_below and not full_width


def _opens_orphan_example(placed: PlacedRow, prior: PlacedRow | None, body_size: float) -> bool:
    """An OCR'd page opening inside an example whose first lines Tesseract dropped: one example, not a line each."""
    row = placed.row
    return (row.fragments[0].confidence is not None and not placed.footnote
            and (prior is None or prior.page != placed.page) and row.x0 - placed.left >= 2.5 * row.size
            and not _CAPTION.match(row.text) and not _is_heading(row, body_size))


def _starts_new_prose(draft: Draft, placed: PlacedRow, body_size: float) -> bool:
    row, last = placed.row, draft.last
    prev = last.row
    if placed.footnote != last.footnote:
        return True
    if abs(row.size - prev.size) > 0.9 and not _size_is_a_guess(placed, prev.size):
        return True
    indent = row.x0 - placed.left
    indented = 0.5 * row.size < indent < 6 * row.size
    if placed.hanging and last.hanging and placed.page == last.page and not placed.footnote:
        # entries start flush left and continue indented: only a flush row starts one
        return indent <= 0.3 * row.size or row.y0 - prev.y1 > 0.8 * row.size
    if LIST_ITEM.match(row.text) and row.x0 <= prev.x0 + 1:
        return True
    if placed.page != last.page or placed.column != last.column:
        # A column or page break: continue with flush-left text of the same size when the
        # previous line is unfinished (no final punctuation, a lower-case continuation) or ran
        # to the right margin (a paragraph's last line is normally short).  A paragraph never
        # runs over more than one page break: text without any indentation must not fuse pages.
        if indented or (placed.page != last.page and draft.rows[0].page != last.page):
            return True
        unfinished = not prev.text.endswith(TERMINAL) or row.text[:1].islower()
        ran_to_margin = last.right > 0 and prev.x1 >= last.right - 2 * prev.size
        return not (unfinished or ran_to_margin)
    gap = row.y0 - prev.y1
    if gap > 0.8 * row.size:
        return True
    if placed.footnote:
        # footnotes start with their number hanging left of the text
        # (a recognised one may have lost its number: hanging left is enough)
        recognised = row.fragments[0].confidence is not None
        return bool(recognised or re.match(r"^\d{1,3}\s", row.text)) and row.x0 < prev.x0 - 1
    if indented and abs(row.x0 - prev.x0) > 1.5:
        return True
    # back at the margin after an indented block (a quotation ends)
    return (not indented and indent <= 0.5 * row.size and prev.x0 - placed.left > 1.5 * row.size
            and not prev.text.endswith("-"))


def _size_is_a_guess(placed: PlacedRow, before: float) -> bool:
    """OCR guesses sizes from ink (parentheses, slashes look larger): a short line ("for NK.", "(§2.2.2.1).")
    or a note's line read larger (a URL) does not end a paragraph by its size."""
    row, ocr = placed.row, placed.row.fragments[0].confidence is not None
    return ocr and (len(row.text) < SHORT_OCR_LINE or (placed.footnote and row.size > before))


def split_hanging_indents(drafts: list[Draft], is_list_section) -> list[Draft]:
    """Re-cut reference lists and indexes, which are set with hanging indents.

    There an entry's *first* line is flush left and its continuation lines are indented — the
    reverse of running prose — so the prose rules glue the end of one entry to the start of the
    next.  Within sections ``is_list_section(draft)`` marks, consecutive prose/table drafts are
    pooled and cut again at every flush-left row, provided the rows really show that pattern.
    """
    out: list[Draft] = []
    run: list[Draft] = []

    def flush_run() -> None:
        rows = [r for d in run for r in d.rows]
        flush = [r.row.x0 - r.left <= 0.3 * r.row.size for r in rows]
        hanging = bool(rows) and 0.15 <= sum(flush) / len(rows) <= 0.75
        if not hanging:
            out.extend(run)
        else:
            current: Draft | None = None
            for placed, starts in zip(rows, flush, strict=True):
                if starts or current is None:
                    current = Draft(ParagraphKind.PROSE, [placed])
                    out.append(current)
                else:
                    current.rows.append(placed)
        run.clear()

    for draft in drafts:
        poolable = draft.kind in (ParagraphKind.PROSE, ParagraphKind.TABLE) and not draft.rows[0].footnote
        if poolable and is_list_section(draft):
            run.append(draft)
        else:
            flush_run()
            out.append(draft)
    flush_run()
    return out


def opens_entry(row: Row, text: str | None = None) -> bool:
    """Whether a printed line (or the paragraph ``text`` it opens) opens a dictionary entry
    (core.ingest.entries).  A line that opens in bold may open with a headword."""
    bold = bool(row.fragments) and row.fragments[0].opens_bold
    return starts_entry(row.text if text is None else text, bold_headword=bold)


def split_dictionary_entries(drafts: list[Draft]) -> list[Draft]:
    """Cut prose paragraphs at every line that opens a dictionary entry.

    Dictionaries set without indents (each entry flush left under a little space) read as running
    prose, so a column of entries becomes one paragraph, and an entry that decides a feature
    ("a [à] art. the") drowns in its neighbours.  An entry start is specific enough (headword,
    bracketed pronunciation, part-of-speech label) that prose of a grammar is left as it is.
    """
    out: list[Draft] = []
    for draft in drafts:
        if draft.kind is not ParagraphKind.PROSE or len(draft.rows) < 2:
            out.append(draft)
            continue
        cuts = [0] + [i for i in range(1, len(draft.rows)) if opens_entry(draft.rows[i].row)]
        if len(cuts) == 1:
            out.append(draft)
            continue
        for start, end in zip(cuts, cuts[1:] + [len(draft.rows)], strict=True):
            out.append(Draft(ParagraphKind.PROSE, draft.rows[start:end]))
    return out


def mark_hanging_columns(rows: list[PlacedRow], terminal: tuple[str, ...] = TERMINAL) -> None:
    """Flag the rows of page columns set with hanging indents.

    In running prose an indented line follows the short, finished last line of a paragraph; in
    a dictionary or reference list it follows a full-width, unfinished first line of an entry.
    A column where the second case clearly dominates is marked, and the prose rules then start
    paragraphs at flush-left lines instead of indented ones.
    """
    groups: dict[tuple[int, int], list[PlacedRow]] = {}
    for placed in rows:
        if not placed.footnote:
            groups.setdefault((placed.page, placed.column), []).append(placed)
    for group in groups.values():
        hanging = plain = 0
        for before, after in pairwise(group):
            size = after.row.size
            flush_before = before.row.x0 - before.left <= 0.3 * size
            indented_after = 0.5 * size < after.row.x0 - after.left < 4 * size
            if not (flush_before and indented_after) or after.row.y0 - before.row.y1 > 0.8 * size:
                continue
            full = before.right > 0 and before.row.x1 >= before.right - 2 * size
            if full and not before.row.text.endswith(terminal):
                hanging += 1
            else:
                plain += 1
        if hanging >= 3 and hanging > 2 * plain:
            for placed in group:
                placed.hanging = True
