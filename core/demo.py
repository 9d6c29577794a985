"""A short sample grammar of an invented language, generated as a PDF on demand.

Why generate instead of shipping a PDF: the demo project must open with no download and no
copyrighted book, and a generated file lets tests and the first-run experience exercise the
same things a real grammar has: roman front-matter page labels followed by arabic ones,
running heads with printed page numbers, section headings, numbered interlinear examples and
a clear statement about word order (so retrieval for WALS 81A finds something at once).

The language, Veshari, and every sentence about it are invented for GrammarLens.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pymupdf

DEMO_LANGUAGE = "Veshari (invented)"
DEMO_FILE_NAME = "veshari_sample_grammar.pdf"

PAGE_WIDTH, PAGE_HEIGHT = 420.0, 595.0  # A5, a common size for grammars
MARGIN_X, MARGIN_TOP, MARGIN_BOTTOM = 48.0, 58.0, 52.0
BODY_SIZE, HEAD_SIZE, RUNNING_SIZE = 10.5, 13.0, 8.5
LEADING = 1.38
FRONT_MATTER_PAGES = 3  # i, ii, iii; printed page 1 is the fourth PDF page


@dataclass(frozen=True)
class _Heading:
    text: str
    chapter: bool = False


@dataclass(frozen=True)
class _Para:
    text: str


@dataclass(frozen=True)
class _Example:
    number: int
    words: tuple[str, ...]
    glosses: tuple[str, ...]
    translation: str


def _ex(number: int, line: str, gloss: str, translation: str) -> _Example:
    words, glosses = tuple(line.split()), tuple(gloss.split())
    assert len(words) == len(glosses), (line, gloss)
    return _Example(number, words, glosses, translation)


CHAPTERS: list[tuple[str, list[object]]] = [
    ("1 Introduction", [
        _Para("Veshari is an invented language spoken, in this sample only, by the fishing villages of an imaginary "
              "coast. This short grammar exists so that GrammarLens can show what it does without any real book: "
              "it has running heads, printed page numbers, numbered examples with glosses and a chapter on "
              "constituent order. Nothing in it describes a real community."),
        _Heading("1.1 Sources and conventions"),
        _Para("Examples are numbered in round brackets. The first line gives the Veshari sentence, the second a "
              "morpheme gloss in small capitals, and the third a free translation. Abbreviations follow the Leipzig "
              "Glossing Rules: NOM nominative, ACC accusative, PST past, PRS present, Q question particle, "
              "NEG negation."),
        _Para("The writing system is the practical orthography used by the imaginary village school. Long vowels are "
              "written double, and the apostrophe marks a glottal stop."),
        _Heading("1.2 The speakers and their neighbours"),
        _Para("In the story this sample tells, Veshari is spoken in seven villages along a river mouth, and most "
              "speakers also use the trade language of the market towns upstream. Children grow up hearing both. "
              "Songs and the long tales told at the winter fires are composed in Veshari only, and older speakers "
              "take pride in the many words for tides, currents and kinds of net."),
        _Para("The dialects differ mainly in vowel length and in a handful of words for fish. None of the differences "
              "touches the grammar described here, so the examples come from the largest village without further "
              "notice."),
        _Heading("1.3 Earlier descriptions"),
        _Para("There are none: Veshari exists only in this sample. A real grammar would list word lists collected by "
              "travellers, a missionary primer, or a dissertation; GrammarLens reads such a section like any other "
              "prose and ranks it low for structural questions such as word order."),
    ]),
    ("2 Sounds and words", [
        _Para("Veshari has five vowels, i e a o u, each short or long, and sixteen consonants. Stress falls on the "
              "first syllable of the root. Words are mostly two or three syllables long, and suffixes never carry "
              "stress."),
        _Heading("2.1 Syllable structure"),
        _Para("Syllables are CV or CVC. Clusters occur only across a syllable boundary, as in tamna 'net' and "
              "korvi 'boat'. A word never ends in a stop; loanwords that do receive a final vowel."),
        _ex(1, "tamna-ri korvi-ke eshu", "net-NOM boat-ACC cover.PRS", "'The net covers the boat.'"),
        _Heading("2.2 Stress and length"),
        _Para("Long vowels count as two units for the placement of secondary stress, which falls on every second unit "
              "after the first. A suffix that begins with a vowel shortens a preceding long vowel: saavi 'fish' but "
              "savi-ke 'fish (object)' in careful speech, though most speakers keep the long vowel in fast speech."),
        _Heading("2.3 Word classes"),
        _Para("Nouns, verbs and adjectives are distinct classes. Nouns take case suffixes and plural reduplication; "
              "verbs take tense suffixes and the negative prefix; adjectives take neither and always stand before "
              "the noun they describe. A small closed class of particles closes clauses."),
        _Para("Verbs fall into two conjugations by the vowel of the tense suffix: -ta and -na for the a-class, -te "
              "and -ne for the e-class. Membership is lexical and has to be learned with each verb."),
    ]),
    ("3 Nouns and their cases", [
        _Para("Nouns inflect for case with suffixes. The nominative -ri marks the subject of a transitive or an "
              "intransitive verb, the accusative -ke marks the direct object, and the locative -sa marks places. "
              "Because case is marked on the noun, the roles of subject and object are clear from the suffixes alone."),
        _ex(2, "Maalo-ri saavi-ke neto-ta", "Maalo-NOM fish-ACC catch-PST", "'Maalo caught a fish.'"),
        _Heading("3.1 Number"),
        _Para("Plural is marked by reduplication of the first syllable of the noun: korvi 'boat', kokorvi 'boats'. "
              "Number is not marked when a numeral precedes the noun."),
        _ex(3, "tiru korvi-sa", "three boat-LOC", "'in three boats'"),
    ]),
    ("4 Word order", [
        _Heading("4.1 Basic order of subject, object and verb"),
        _Para("The basic word order of Veshari is subject-object-verb (SOV). In a transitive clause the subject comes "
              "first, the object follows it, and the verb is final. This order is by far the most frequent in texts "
              "and is the only order accepted in elicitation without special context, as in (4) and (5)."),
        _ex(4, "Maalo-ri tamna-ke shema-ta", "Maalo-NOM net-ACC mend-PST", "'Maalo mended the net.'"),
        _ex(5, "aana-ri korvi-ke vaila-na", "mother-NOM boat-ACC paint-PRS", "'Mother is painting the boat.'"),
        _Para("Intransitive clauses place the subject before the verb (SV). The verb remains the last word of the "
              "clause, followed only by clause-final particles such as the question particle ka."),
        _Heading("4.2 Variation and focus"),
        _Para("The object may precede the subject (OSV) when the object is in focus or has just been mentioned, but "
              "the verb stays final. Orders with the verb before the object are not found in our sample texts. "
              "Speakers judge verb-initial clauses as foreign or as songs."),
        _ex(6, "tamna-ke Maalo-ri shema-ta", "net-ACC Maalo-NOM mend-PST", "'The net, Maalo mended (it).'"),
        _Heading("4.3 Order within the noun phrase"),
        _Para("Adjectives and numerals precede the noun, and possessors precede the possessed noun. Postpositions "
              "follow their noun phrase, in keeping with the head-final order of the clause."),
        _ex(7, "aana-ni vesa korvi", "mother-GEN new boat", "'mother's new boat'"),
        _Heading("4.4 Subordinate clauses"),
        _Para("Subordinate clauses keep the same order as main clauses: the subordinate verb is final in its clause "
              "and takes a suffix such as -lo 'when' or -mi 'because'. A subordinate clause usually precedes the main "
              "clause, so that a long sentence ends with the main verb."),
        _ex(8, "Maalo-ri saavi-ke neto-ta-lo aana-ri hali-na", "Maalo-NOM fish-ACC catch-PST-when mother-NOM laugh-PRS",
            "'When Maalo caught a fish, mother laughed.'"),
    ]),
    ("5 Questions and negation", [
        _Para("Polar questions are formed with the clause-final particle ka; the order of words does not change and "
              "the intonation stays falling."),
        _ex(9, "Maalo-ri saavi-ke neto-ta ka", "Maalo-NOM fish-ACC catch-PST Q", "'Did Maalo catch a fish?'"),
        _Para("Negation is expressed by the prefix ma- on the verb. Content questions place the question word in the "
              "position of the constituent asked about, so the verb remains last."),
        _ex(10, "Maalo-ri saavi-ke ma-neto-ta", "Maalo-NOM fish-ACC NEG-catch-PST", "'Maalo did not catch a fish.'"),
    ]),
]


class _Writer:
    """Flows headings, paragraphs and examples onto pages and adds running heads afterwards."""

    def __init__(self) -> None:
        self.doc = pymupdf.open()
        self.page: pymupdf.Page | None = None
        self.y = 0.0
        self.chapter_title_by_page: dict[int, str] = {}
        self.chapter_first_pages: set[int] = set()
        self.chapter = ""

    @property
    def width(self) -> float:
        return PAGE_WIDTH - 2 * MARGIN_X

    def new_page(self) -> None:
        self.page = self.doc.new_page(width=PAGE_WIDTH, height=PAGE_HEIGHT)
        self.chapter_title_by_page[self.page.number] = self.chapter
        self.y = MARGIN_TOP

    def ensure(self, height: float) -> None:
        if self.page is None or self.y + height > PAGE_HEIGHT - MARGIN_BOTTOM:
            self.new_page()

    def text_line(self, x: float, text: str, size: float, font: str = "tiro") -> None:
        assert self.page is not None
        self.page.insert_text((x, self.y + size), text, fontsize=size, fontname=font)

    def wrap(self, text: str, size: float, font: str, width: float) -> list[str]:
        lines, current = [], ""
        for word in text.split():
            trial = f"{current} {word}".strip()
            if current and pymupdf.get_text_length(trial, fontname=font, fontsize=size) > width:
                lines.append(current)
                current = word
            else:
                current = trial
        if current:
            lines.append(current)
        return lines

    def paragraph(self, text: str, *, size: float = BODY_SIZE, font: str = "tiro", indent: float = 14.0) -> None:
        lines = self.wrap(text, size, font, self.width - indent)
        for i, line in enumerate(lines):
            self.ensure(size * LEADING)
            self.text_line(MARGIN_X + (indent if i == 0 else 0), line, size, font)
            self.y += size * LEADING
        self.y += size * 0.7

    def heading(self, heading: _Heading) -> None:
        if heading.chapter:
            self.chapter = heading.text
            self.new_page()
            assert self.page is not None
            self.chapter_first_pages.add(self.page.number)
            self.chapter_title_by_page[self.page.number] = heading.text
            self.y += 30
            self.text_line(MARGIN_X, heading.text, 20, "tibo")
            self.y += 44
        else:
            self.ensure(HEAD_SIZE * 4)
            self.y += 6
            self.text_line(MARGIN_X, heading.text, HEAD_SIZE, "tibo")
            self.y += HEAD_SIZE * 1.9

    def example(self, ex: _Example) -> None:
        size = BODY_SIZE
        self.ensure(size * LEADING * 3 + 10)
        x = MARGIN_X + 34
        self.text_line(MARGIN_X, f"({ex.number})", size)
        for word, gloss in zip(ex.words, ex.glosses, strict=True):
            self.text_line(x, word, size, "tiit")
            self.y += size * LEADING
            self.text_line(x, gloss, size * 0.92)
            self.y -= size * LEADING
            w = max(pymupdf.get_text_length(word, fontname="tiit", fontsize=size),
                    pymupdf.get_text_length(gloss, fontname="tiro", fontsize=size * 0.92))
            x += w + 9
        self.y += 2 * size * LEADING
        self.text_line(MARGIN_X + 34, ex.translation, size)
        self.y += size * LEADING + 8

    def running_heads(self, first_arabic: int) -> None:
        """Print page numbers and chapter titles in the heads, as books do (none on chapter openings)."""
        for number in range(first_arabic, self.doc.page_count):
            page = self.doc[number]
            printed = str(number - first_arabic + 1)
            if number in self.chapter_first_pages:
                page.insert_text((PAGE_WIDTH / 2 - 4, PAGE_HEIGHT - 30), printed,
                                 fontsize=RUNNING_SIZE, fontname="tiro")
                continue
            title = self.chapter_title_by_page.get(number, "")
            y = 38
            if (number - first_arabic + 1) % 2 == 0:
                page.insert_text((MARGIN_X, y), f"{printed}    {title}", fontsize=RUNNING_SIZE, fontname="tiro")
            else:
                text = f"{title}    {printed}"
                w = pymupdf.get_text_length(text, fontname="tiro", fontsize=RUNNING_SIZE)
                page.insert_text((PAGE_WIDTH - MARGIN_X - w, y), text, fontsize=RUNNING_SIZE, fontname="tiro")
            page.draw_line((MARGIN_X, y + 5), (PAGE_WIDTH - MARGIN_X, y + 5), width=0.4)


def _front_matter(w: _Writer) -> None:
    w.new_page()
    w.y = 170
    w.text_line(MARGIN_X, "A sample grammar of Veshari", 22, "tibo")
    w.y += 40
    w.text_line(MARGIN_X, "An invented language, described for the GrammarLens demo", 12, "tiit")
    w.y += 220
    w.text_line(MARGIN_X, "Generated by GrammarLens. Free to copy and change.", 9)
    w.new_page()
    w.text_line(MARGIN_X, "Contents", 16, "tibo")
    w.y += 34
    for title, _ in CHAPTERS:
        w.text_line(MARGIN_X, title, BODY_SIZE)
        w.y += BODY_SIZE * 1.8
    w.new_page()
    w.text_line(MARGIN_X, "Preface", 16, "tibo")
    w.y += 34
    w.paragraph("This sample is short on purpose. Open the feature panel, search for 81A or for "
                "'subject object verb', and GrammarLens lists the paragraphs that decide the value, highlighted "
                "on the page. With a language model configured it also proposes the value and cites its evidence.")
    for page_number in range(3):
        w.doc[page_number].insert_text((PAGE_WIDTH / 2 - 4, PAGE_HEIGHT - 30), ["i", "ii", "iii"][page_number],
                                       fontsize=RUNNING_SIZE, fontname="tiro")


def write_demo_grammar(path: str | Path) -> Path:
    """Write the sample grammar PDF to ``path`` (overwriting it) and return the path.

    ``path`` is checked first (:func:`core.output_paths.check_output_file`): never a project or a
    folder, and its folder must exist (it is not created).
    """
    from core.output_paths import check_output_file

    target = check_output_file(path, pdf=True)
    w = _Writer()
    _front_matter(w)
    for title, blocks in CHAPTERS:
        w.heading(_Heading(title, chapter=True))
        for block in blocks:
            if isinstance(block, _Heading):
                w.heading(block)
            elif isinstance(block, _Para):
                w.paragraph(block.text)
            elif isinstance(block, _Example):
                w.example(block)
    w.running_heads(FRONT_MATTER_PAGES)
    w.doc.set_page_labels([
        {"startpage": 0, "prefix": "", "style": "r", "firstpagenum": 1},
        {"startpage": FRONT_MATTER_PAGES, "prefix": "", "style": "D", "firstpagenum": 1},
    ])
    w.doc.set_metadata({"title": "A sample grammar of Veshari", "author": "GrammarLens", "subject": "demo grammar"})
    w.doc.save(target, garbage=3, deflate=True)
    w.doc.close()
    return target
