"""Generate small grammar-like PDFs with known ground truth, for ingestion tests.

A :class:`BookWriter` lays out text line by line the way a typesetter would: running heads,
page numbers in the foot or head, indented paragraphs that wrap and hyphenate, paragraphs
that run over a page break, headings, numbered interlinear examples, one- or two-column pages,
and roman-then-arabic page labels.  It records what each paragraph *should* become, so tests
compare the ingester's output with the truth instead of with hard-coded numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

SOFT = "\u00ad"  # marks where the writer may hyphenate a word at a line end


@dataclass
class TruthParagraph:
    kind: str
    text: str  # expected text after ingestion (prose: hyphenation undone; examples: lines joined by \n)
    pages: set[int] = field(default_factory=set)  # 1-based PDF pages it is printed on
    example_number: str | None = None


@dataclass
class BookWriter:
    width: float = 420.0
    height: float = 600.0
    left: float = 50.0
    right: float = 370.0
    top: float = 80.0
    bottom: float = 530.0
    size: float = 10.0
    leading: float = 13.0
    indent: float = 12.0
    columns: int = 1
    gutter: float = 20.0
    unicode_font: bool = False
    doc: pymupdf.Document = field(default_factory=pymupdf.open)
    truth: list[TruthParagraph] = field(default_factory=list)
    heads: list[str] = field(default_factory=list)  # running-head texts printed (for leak checks)
    printed_numbers: dict[int, str] = field(default_factory=dict)  # pdf page -> number printed
    _page: pymupdf.Page | None = None
    _y: float = 0.0
    _column: int = 0
    _head: str = ""
    _number: str | None = None
    _number_where: str = "foot"
    _number_start: int | None = None
    _roman: bool = False
    _pending_float: list[tuple[str, ...]] | None = None
    _deferred: list[TruthParagraph] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._font = pymupdf.Font("cjk") if self.unicode_font else pymupdf.Font("tiro")
        self._fontname = "F0"

    # -- pages -------------------------------------------------------------------------------
    def start_numbering(self, first: int = 1, roman: bool = False, where: str = "foot") -> None:
        """Print page numbers from the next page on (``None`` first = print none)."""
        self._number_start, self._roman, self._number_where = first, roman, where
        self._numbered_from = self.doc.page_count

    def set_running_head(self, text: str) -> None:
        self._head = text

    def new_page(self) -> None:
        self._page = self.doc.new_page(width=self.width, height=self.height)
        self._page.insert_font(fontname=self._fontname, fontbuffer=self._font.buffer)
        self._y = self.top
        self._column = 0
        pno = self._page.number + 1
        number = None
        if self._number_start is not None:
            value = self._number_start + (self._page.number - self._numbered_from)
            number = _roman(value) if self._roman else str(value)
            self.printed_numbers[pno] = number
        if self._head:
            self.heads.append(self._head)
            x = self.left if pno % 2 == 0 else self.right - self._font.text_length(self._head, 9)
            self._page.insert_text((x, 50), self._head, fontsize=9, fontname=self._fontname)
            if number is not None and self._number_where == "head":
                nx = self.right - self._font.text_length(number, 9) if pno % 2 == 0 else self.left
                self._page.insert_text((nx, 50), number, fontsize=9, fontname=self._fontname)
        if number is not None and self._number_where == "foot":
            self._page.insert_text((self.width / 2 - 5, self.height - 35), number, fontsize=9, fontname=self._fontname)
        if self._pending_float:
            self._place_float(self._pending_float)
            self._pending_float = None

    def float_at_next_page(self, rows: list[tuple[str, ...]]) -> None:
        """A table that the typesetter floats to the top of the next page."""
        self._pending_float = rows

    def _place_float(self, rows: list[tuple[str, ...]]) -> None:
        for cells in rows:
            for k, cell in enumerate(cells):
                self._write(self._col_left + 100 * k, cell)
            self._y += self.leading
        self._y += 2 * self.leading
        truth = TruthParagraph("table", "\n".join(" ".join(cells) for cells in rows), {self._page.number + 1})
        self._deferred.append(truth)  # it is read after the paragraph it interrupts

    @property
    def _col_left(self) -> float:
        if self.columns == 1:
            return self.left
        width = (self.right - self.left - self.gutter) / 2
        return self.left + self._column * (width + self.gutter)

    @property
    def _col_right(self) -> float:
        if self.columns == 1:
            return self.right
        width = (self.right - self.left - self.gutter) / 2
        return self._col_left + width

    def _advance(self, lines: int = 1) -> None:
        if self._page is None or self._y + lines * self.leading > self.bottom:
            if self._page is not None and self.columns == 2 and self._column == 0:
                self._column = 1
                self._y = self.top
            else:
                self.new_page()

    def _write(self, x: float, text: str, size: float | None = None) -> None:
        assert self._page is not None
        self._page.insert_text((x, self._y + self.size), text, fontsize=size or self.size, fontname=self._fontname)

    # -- content -----------------------------------------------------------------------------
    def heading(self, text: str, size: float = 13.0) -> None:
        self._advance(3)
        self._y += 6
        self._write(self._col_left, text, size)
        self.truth.append(TruthParagraph("heading", text, {self._page.number + 1}))
        self._y += self.leading + 10

    def paragraph(self, text: str, indent: bool = True, hanging: bool = False, kind: str = "prose") -> TruthParagraph:
        """Wrap ``text`` (words may contain SOFT hyphenation points) into indented lines.

        ``hanging`` sets the first line flush left and indents the others, as reference lists do.
        """
        words = text.split(" ")
        truth = TruthParagraph(kind, " ".join(w.replace(SOFT, "") for w in words))
        line: list[str] = []
        first = True

        def offset() -> float:
            if hanging:
                return 0.0 if first else self.indent
            return self.indent if first and indent else 0.0

        x0 = lambda: self._col_left + offset()  # noqa: E731
        while words:
            word = words.pop(0)
            candidate = " ".join(line + [word.replace(SOFT, "")])
            if self._font.text_length(candidate, self.size) <= self._col_right - x0():
                line.append(word.replace(SOFT, ""))
                continue
            if SOFT in word:  # hyphenate at the last soft point that fits
                pieces = word.split(SOFT)
                for cut in range(len(pieces) - 1, 0, -1):
                    head = "".join(pieces[:cut]) + "-"
                    if self._font.text_length(" ".join(line + [head]), self.size) <= self._col_right - x0():
                        line.append(head)
                        words.insert(0, SOFT.join(pieces[cut:]))
                        break
                else:
                    words.insert(0, word)
            else:
                words.insert(0, word)
            self._emit_line(" ".join(line), offset(), truth)
            first = False
            line = []
        if line:
            self._emit_line(" ".join(line), offset(), truth)
        self.truth.append(truth)
        self.truth.extend(self._deferred)
        self._deferred.clear()
        return truth

    def _emit_line(self, text: str, offset: float, truth: TruthParagraph) -> None:
        self._advance()  # may move to the next column or page: place the line after it
        self._write(self._col_left + offset, text)
        truth.pages.add(self._page.number + 1)
        self._y += self.leading

    def example(self, number: int, words: list[tuple[str, str]], translation: str) -> None:
        """A numbered interlinear example: aligned word/gloss pairs, then a quoted translation."""
        self._advance(4)
        self._y += 4
        num = f"({number})"
        self._write(self._col_left, num)
        x = self._col_left + 30
        positions = []
        for word, gloss in words:
            positions.append(x)
            width = max(self._font.text_length(word, self.size), self._font.text_length(gloss, self.size))
            x += width + 8
        for (word, _), px in zip(words, positions, strict=True):
            self._write(px, word)
        self._y += self.leading
        for (_, gloss), px in zip(words, positions, strict=True):
            self._write(px, gloss)
        self._y += self.leading
        self._write(self._col_left + 30, f"‘{translation}’")
        self._y += self.leading + 8  # examples are set off by about half a line, as in typeset grammars
        text = "\n".join([
            f"{num} " + " ".join(w for w, _ in words),
            " ".join(g for _, g in words),
            f"‘{translation}’",
        ])
        self.truth.append(TruthParagraph("example", text, {self._page.number + 1}, example_number=str(number)))

    def skip_to_new_page(self) -> None:
        self.new_page()

    def save(self, path: Path, labels: list[dict] | None = None, title: str = "") -> Path:
        if labels:
            self.doc.set_page_labels(labels)
        if title:
            self.doc.set_metadata({"title": title})
        self.doc.save(path)
        return path


def _roman(value: int) -> str:
    out = []
    for number, letters in [(10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")]:
        while value >= number:
            out.append(letters)
            value -= number
    return "".join(out)


LOREM = (
    "The language of the Teshi valley marks its arguments by position rather than by case, and the basic "
    "order of a transitive clause places the subject before the object and the verb at the end of the clause. "
    "Speakers may front an object for focus, but elicited sentences and narrative texts agree on the "
    "neutral order, which the examples in this section illustrate with ordinary everyday material."
)
