"""A generated dictionary-and-grammar PDF, for measuring ingest speed on dictionary-heavy books.

Many grammars end in a dictionary: hundreds of two-column pages of short entries set with
hanging indents (bold headword, italic part of speech and examples, glosses, sense numbers) in
justified columns, under running heads that name the first and last headword of the page beside
the page number.  Such pages hold several times the lines and paragraphs of prose pages, which is
where per-line costs of an ingest show.  The shared grammars have no such part, so
``bench ingest --generated-dictionary`` writes one (the same bytes for the same arguments).

The default length, 616 pages (40 of grammar prose with interlinear examples, then the dictionary),
is that of the dictionary-and-grammar whose ingest issue 13 measured at 2.4 times PyMuPDF's bare
``get_text("dict")``; with about 29,000 short entries it holds nearly twice that book's 16,000
paragraphs, so it is the harder case.

Pages are written as raw PDF content streams with the standard Times faces: justification is
the ``Tw`` word-spacing operator, so the book takes seconds to write, not minutes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import pymupdf

WIDTH, HEIGHT = 595.0, 842.0
MARGIN, TOP, BOTTOM, GUTTER = 56.0, 80.0, 790.0, 18.0
SIZE, LEADING, HANG = 8.5, 10.4, 9.0
PROSE_SIZE, PROSE_LEADING, PROSE_INDENT = 10.0, 12.5, 12.0
TAB_WIDTH = 7.0  # a gap PDF readers split a line at: headwords set apart from their entry
GENERATOR_VERSION = 3  # part of the cached file's name: bump when the book's shape changes

_SYLLABLES = ("ka", "to", "mi", "ra", "ne", "su", "lo", "pa", "ri", "da", "wu", "nga", "tse", "bo", "hi", "ya", "e")
_GLOSSES = ("cat", "house", "to see", "river", "to eat", "stone", "mother", "big", "small", "to go", "fire", "tree",
            "night", "to give", "red", "hand", "bird", "to speak", "village", "rain", "old", "child", "path", "fish",
            "a small domestic animal", "the place where one sleeps", "to look at something", "to cook in water",
            "the elder sister of a man", "to carry on the head")
_POS = ("n.", "v.", "vt.", "vi.", "adj.", "adv.", "part.", "pron.")
_GLOSS_LINE = ("1SG", "cat", "see-PST", "3PL=", "NEG", "house-LOC", "go", "DEM", "eat-FUT")
_PROSE = ("Clauses in this language are verb-final; the subject precedes the object, and oblique phrases stand "
          "between them. Questions are marked by a clause-final particle, and the verb carries no agreement with "
          "the object. Nouns take no case suffixes; grammatical relations follow from word order alone.")
_FACES = {"R": "Times-Roman", "B": "Times-Bold", "I": "Times-Italic"}
_FONTS = {"R": pymupdf.Font("tiro"), "B": pymupdf.Font("tibo"), "I": pymupdf.Font("tiit")}
_ADVANCES: dict[tuple[str, str], float] = {}
TAB = ("", "T")  # a word that is only a gap


@dataclass
class _Page:
    """One page's content stream, built as text."""

    ops: list[str]

    def text(self, x: float, y: float, face: str, size: float, text: str, word_spacing: float = 0.0) -> None:
        """Show ``text`` with its baseline at (x, y), y measured from the top of the page."""
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        self.ops.append(f"BT /{face} {size:g} Tf {word_spacing:.3f} Tw 1 0 0 1 {x:.2f} {HEIGHT - y:.2f} Tm "
                        f"({escaped}) Tj ET")


def write_dictionary_pdf(path: Path, pages: int = 616, grammar_pages: int = 40, seed: int = 1,
                         entries: list[tuple[int, str]] | None = None) -> Path:
    """Write the book to ``path`` and return it; ``entries`` (if given) receives (PDF page, headword) per entry."""
    rng = random.Random(seed)
    doc = pymupdf.open()
    examples = iter(range(1, 1_000_000))
    streams: list[_Page] = []
    for number in range(1, grammar_pages + 1):
        streams.append(_grammar_page(number, rng, examples))
    headwords = iter(sorted({_word(rng) + _word(rng) for _ in range(60 * (pages - grammar_pages))}))
    for number in range(grammar_pages + 1, pages + 1):
        streams.append(_dictionary_page(number, headwords, rng, entries))
    fonts = []
    for face, base in _FACES.items():
        font = doc.get_new_xref()
        doc.update_object(font, f"<</Type/Font/Subtype/Type1/BaseFont/{base}/Encoding/WinAnsiEncoding>>")
        fonts.append(f"/{face} {font} 0 R")
    resources = f"<</Font<<{''.join(fonts)}>>>>"
    for content in streams:
        page = doc.new_page(width=WIDTH, height=HEIGHT)
        doc.xref_set_key(page.xref, "Resources", resources)
        stream = doc.get_new_xref()
        doc.update_object(stream, "<<>>")
        doc.update_stream(stream, "\n".join(content.ops).encode("cp1252"))
        doc.xref_set_key(page.xref, "Contents", f"{stream} 0 R")
    doc.set_metadata({"title": "A grammar and dictionary of Generated"})
    doc.save(path, garbage=3, deflate=True)
    doc.close()
    return path


def cached_dictionary_pdf(pages: int = 616, folder: Path | None = None) -> Path:
    """The generated book of ``pages`` pages, written once into ``folder`` (``build/generated`` by default)."""
    from bench.paths import BUILD

    folder = folder or BUILD / "generated"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"generated-dictionary-{pages}p-v{GENERATOR_VERSION}.pdf"
    if not path.exists():
        partial = path.with_suffix(".partial")
        write_dictionary_pdf(partial, pages=pages, grammar_pages=min(40, max(1, pages // 15)))
        partial.replace(path)
    return path


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(1, 3)))


def _width(text: str, face: str, size: float) -> float:
    """The advance of ``text`` (glyph advances cached: the font answers one character per call)."""
    total = 0.0
    for ch in text:
        advance = _ADVANCES.get((face, ch))
        if advance is None:
            advance = _ADVANCES[(face, ch)] = _FONTS[face].text_length(ch, fontsize=1.0)
        total += advance
    return total * size


def _wrap(words: list[tuple[str, str]], first_width: float, width: float, size: float) -> list[list[tuple[str, str]]]:
    """Words (text, face) broken into lines: the first ``first_width`` wide, the others ``width``."""
    lines: list[list[tuple[str, str]]] = [[]]
    used, room, space = 0.0, first_width, _width(" ", "R", size)
    for word in words:
        w = TAB_WIDTH if word == TAB else _width(word[0], word[1], size)
        if lines[-1] and used + w > room:
            lines.append([])
            used, room = 0.0, width
        lines[-1].append(word)
        used += w + space
    return lines


def _set_line(page: _Page, x: float, y: float, words: list[tuple[str, str]], size: float, width: float,
              justify: bool) -> None:
    """One line: runs of words in one face, the spaces widened (``Tw``) to fill ``width`` when justified."""
    runs: list[list] = []  # [face, words]
    for word in words:
        if word != TAB and runs and runs[-1][0] == word[1]:
            runs[-1][1].append(word[0])
        else:
            runs.append([word[1], [word[0]]])
    space = _width(" ", "R", size)
    natural = sum(TAB_WIDTH if face == "T" else _width(" ".join(ws), face, size) for face, ws in runs)
    natural += space * (len(runs) - 1)
    gaps = sum(len(ws) - 1 for face, ws in runs if face != "T") + len(runs) - 1
    extra = (width - natural) / gaps if justify and gaps else 0.0
    for face, ws in runs:
        if face == "T":
            x += TAB_WIDTH + space + extra
            continue
        text = " ".join(ws)
        page.text(x, y, face, size, text, extra)
        x += _width(text, face, size) + extra * (len(ws) - 1) + space + extra


def _running_head(page: _Page, number: int, text: str) -> None:
    label = str(number)
    if number % 2:
        page.text(MARGIN, 50, "R", 9, text)
        page.text(WIDTH - MARGIN - _width(label, "R", 9), 50, "R", 9, label)
    else:
        page.text(MARGIN, 50, "R", 9, label)
        page.text(WIDTH - MARGIN - _width(text, "R", 9), 50, "R", 9, text)


def _grammar_page(number: int, rng: random.Random, examples) -> _Page:
    page = _Page([])
    _running_head(page, number, "4 Clause structure")
    width = WIDTH - 2 * MARGIN
    y = TOP
    if number % 7 == 1:
        page.text(MARGIN, y, "B", 12, f"4.{number // 7 + 1} Word order")
        y += 2 * PROSE_LEADING
    while y < BOTTOM - 6 * PROSE_LEADING:
        words = [(w, "R") for w in " ".join([_PROSE] * rng.randint(1, 2)).split()]
        lines = _wrap(words, width - PROSE_INDENT, width, PROSE_SIZE)
        for i, line in enumerate(lines):
            if y > BOTTOM:
                break
            indent = PROSE_INDENT if i == 0 else 0.0
            _set_line(page, MARGIN + indent, y, line, PROSE_SIZE, width - indent, justify=i < len(lines) - 1)
            y += PROSE_LEADING
        y += 4
        if rng.random() < 0.6 and y < BOTTOM - 6 * PROSE_LEADING:
            y = _interlinear_example(page, y + 8, rng, next(examples)) + 10
    return page


def _interlinear_example(page: _Page, y: float, rng: random.Random, number: int) -> float:
    """A numbered example: words over their glosses in aligned columns, then the translation."""
    page.text(MARGIN + 8, y, "R", PROSE_SIZE, f"({number})")
    x = MARGIN + 40
    for _ in range(rng.randint(3, 7)):
        word, gloss = _word(rng), rng.choice(_GLOSS_LINE)
        page.text(x, y, "I", PROSE_SIZE, word)
        page.text(x, y + PROSE_LEADING, "R", PROSE_SIZE, gloss)
        x += max(_width(word, "I", PROSE_SIZE), _width(gloss, "R", PROSE_SIZE)) + 12
    page.text(MARGIN + 40, y + 2 * PROSE_LEADING, "R", PROSE_SIZE,
              f"'The {rng.choice(_GLOSSES)} saw the {rng.choice(_GLOSSES)}.'")
    return y + 3 * PROSE_LEADING


def _dictionary_page(number: int, headwords, rng: random.Random, written: list[tuple[int, str]] | None) -> _Page:
    page = _Page([])
    column_width = (WIDTH - 2 * MARGIN - GUTTER) / 2
    first = last = ""
    for column in (0, 1):
        x = MARGIN + column * (column_width + GUTTER)
        y = TOP
        while True:
            words = _entry(next(headwords, None) or _word(rng) + _word(rng), rng)
            lines = _wrap(words, column_width, column_width - HANG, SIZE)
            if y + len(lines) * LEADING > BOTTOM:
                break
            first, last = first or words[0][0], words[0][0]
            if written is not None:
                written.append((number, last))
            for i, line in enumerate(lines):
                indent = HANG if i else 0.0
                _set_line(page, x + indent, y, line, SIZE, column_width - indent, justify=i < len(lines) - 1)
                y += LEADING
    _running_head(page, number, f"{first} \u2013 {last}")
    return page


def _entry(headword: str, rng: random.Random) -> list[tuple[str, str]]:
    """One entry as dictionaries print it: bold headword, italic part of speech and examples."""
    words: list[tuple[str, str]] = [(headword, "B")]
    if rng.random() < 0.4:
        words.append(TAB)
    words.append((rng.choice(_POS), "I"))
    for sense in range(rng.randint(1, 4)):
        if sense:
            words.append((f"{sense + 1}.", "B"))
        words.extend((w, "R") for w in (", ".join(rng.sample(_GLOSSES, rng.randint(1, 4))) + ".").split())
        if rng.random() < 0.5:
            words.extend((w, "I") for w in f"{headword} {_word(rng)} {_word(rng)}".split())
            words.extend((w, "R") for w in f"'the {rng.choice(_GLOSSES)} is {rng.choice(_GLOSSES)}'.".split())
    if rng.random() < 0.3:
        words.extend([("See", "R"), ("also", "R"), (_word(rng) + ".", "B")])
    return words
