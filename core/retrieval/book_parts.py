"""Which part of a book a paragraph belongs to: the grammar proper, front matter, back matter or a dictionary.

A typologist skips the acknowledgements, the preface, the list of abbreviations, the references and
the index: they name every topic of the book ("insightful articles and books on Ik") without stating
anything about the language.  A dictionary part states words, not rules; it decides a grammatical
feature only when the grammar says nothing.  Retrieval ranks these parts below the grammar proper
(core.retrieval.combine), and the evidence list marks a paragraph from them when one has to lead.

The part is computed from what the project already stores for every paragraph, at index time, in
one pass over the book (milliseconds for 30,000 paragraphs), so no schema change is needed:

* the section path: each heading, stripped of its number ("II", "1.2", "Appendix C:"), is compared
  with the names books give their parts ("Acknowledgments", "List of references", "Subject index",
  "Moloko-English Lexicon", "Appendix B: Texts");
* the printed page label: lower-case roman numerals are front matter, as are the pages before the
  first heading of the book (title, copyright and series pages);
* the paragraph's kind from layout: dictionary entries, tables of contents, bibliographies, indexes.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Sequence

from core.models import Paragraph, ParagraphKind


class BookPart(StrEnum):
    """Where in a book a paragraph sits, as a reader of grammars sees it."""

    BODY = "body"  # the grammar proper (chapters, grammatical appendices such as verb paradigms)
    FRONT = "front"  # title pages, contents, preface, acknowledgements, abbreviations, maps
    BACK = "back"  # references, indexes, appendices of texts and recordings
    DICTIONARY = "dictionary"  # dictionary, lexicon, word lists, reversal indexes

    @property
    def label(self) -> str:
        """How the evidence list names the part ("" for the grammar proper)."""
        return {"body": "", "front": "front matter", "back": "back matter", "dictionary": "dictionary"}[self.value]


# A heading's number: "II ", "1.2.3 ", "A.1 ", "Appendix C: ", "Chapter 4 ", "Part II ".
_NUMBER = re.compile(
    r"^(?:(?:appendix|chapter|part)\s+[a-z0-9ivxlc]*[.:]?\s*|[ivxlc]+[.)]?\s+|[0-9a-z]?(?:\.?[0-9]+)+\.?\s+)",
    re.IGNORECASE,
)
_APPENDIX = re.compile(r"^\s*appendix\b", re.IGNORECASE)

_FRONT = re.compile(
    r"^(?:(?:table\s+of\s+)?contents|brief contents|preface|foreword|prologue|dedication|acknowledge?ments?"
    r"|(?:list\s+of\s+)?(?:symbols\s+and\s+)?abbreviations(?:\s+and\s+symbols)?|symbols|conventions(?:\s+.*)?"
    r"|list\s+of\s+(?:maps|tables|figures|illustrations|photographs|plates|abbreviations).*|maps|about\s+the\s+.*"
    r"|series\s+.*|(?:glossing|transcription)\s+conventions)$",
    re.IGNORECASE,
)
_BACK = re.compile(
    r"^(?:(?:list\s+of\s+)?references(?:\s+cited)?|bibliography|works\s+cited|sources|literature"
    r"|(?:name|subject|language|author|place|general|topic)?\s*index(?:\s+of\s+.*)?|indices|indexes"
    r"|texts?|(?:sample|example|glossed|annotated)\s+texts?|.*\brecordings?\b.*|.*\bcorpus\b.*"
    r"|.*\bolac\b.*|.*\bpopulation\b.*|.*\bconsultants?\b.*|.*\bmetadata\b.*)$",
    re.IGNORECASE,
)
# "Moloko-English Lexicon", "Word lists", "English-Chakali Reversal Index"; not "Aspects of the lexicon"
_DICTIONARY = re.compile(
    r"^(?:[\w'’]+(?:\s*[-–/]\s*[\w'’]+)*\s+)?(?:dictionary|lexicon|word\s*lists?|(?:basic\s+)?vocabulary"
    r"|glossary|reversal\s+index|finder\s+list)$"
    r"|^list\s+of\s+(?:verbs|nouns|words|roots|stems)$",
    re.IGNORECASE,
)
# Inside a chapter only these name a part ("III Grammatical Outlines > List of references"): a
# subsection called "The corpus" or "Dictionaries" is about the book's sources, part of the grammar.
_NESTED_BACK = re.compile(
    r"^(?:(?:list\s+of\s+)?references(?:\s+cited)?|bibliography|works\s+cited"
    r"|(?:name|subject|language|author|place|general|topic)\s+index|index)$",
    re.IGNORECASE,
)
_ROMAN_LABEL = re.compile(r"^(?=[ivxlcdm]+$)m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$")

_KIND_PARTS = {
    ParagraphKind.ENTRY: BookPart.DICTIONARY,
    ParagraphKind.TOC: BookPart.FRONT,
    ParagraphKind.BIBLIOGRAPHY: BookPart.BACK,
    ParagraphKind.INDEX: BookPart.BACK,
}


def heading_name(heading: str) -> str:
    """A heading without its number: "II English-Chakali Reversal Index" -> "English-Chakali Reversal Index"."""
    name = heading.strip()
    for _ in range(2):  # "Appendix C: 1 Texts"
        stripped = _NUMBER.sub("", name, count=1).strip()
        if stripped == name or not stripped:
            break
        name = stripped
    return name.strip(" .:-–—")


def part_of_heading(heading: str) -> BookPart | None:
    """The part a heading names, or None when it is an ordinary (grammatical) heading."""
    name = heading_name(heading)
    if not name:
        return None
    if _DICTIONARY.match(name):
        return BookPart.DICTIONARY
    if _FRONT.match(name):
        return BookPart.FRONT
    if _BACK.match(name):
        return BookPart.BACK
    if _APPENDIX.match(heading) and re.search(r"\btexts?\b|\bstor(?:y|ies)\b|\bnarratives?\b", name, re.IGNORECASE):
        return BookPart.BACK
    return None


def part_of_section(section: str) -> BookPart | None:
    """The part a section path names: its outermost heading, or a reference list or index inside a chapter."""
    headings = section.split(" > ")
    part = part_of_heading(headings[0])
    if part is not None:
        return part
    if any(_NESTED_BACK.match(heading_name(h)) for h in headings[1:]):
        return BookPart.BACK
    return None


def is_roman_label(label: str) -> bool:
    return bool(label) and bool(_ROMAN_LABEL.match(label.strip()))


def classify_parts(paragraphs: Sequence[Paragraph]) -> list[BookPart]:
    """The part of each paragraph (given in reading order within each document)."""
    section_cache: dict[str, BookPart | None] = {}
    parts: list[BookPart] = []
    seen_heading: set[int] = set()  # documents whose first heading has been passed
    for p in paragraphs:
        if p.section:
            seen_heading.add(p.document_id)
        if p.section not in section_cache:
            section_cache[p.section] = part_of_section(p.section)
        by_section = section_cache[p.section]
        if by_section is not None:
            parts.append(by_section)
        elif p.kind in _KIND_PARTS:
            parts.append(_KIND_PARTS[p.kind])
        elif is_roman_label(p.page_label) or (not p.section and p.document_id not in seen_heading):
            parts.append(BookPart.FRONT)
        else:
            parts.append(BookPart.BODY)
    return parts
