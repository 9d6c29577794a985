"""B's pins as pins of A's project, for a resolution that takes B's value: exactly B's evidence, or named gaps.

A resolution that stores B's value must cite what B read, in A's copy of the book, and nothing
of A's (A pinned pages for the *other* value).  Each of B's pins is looked for in A:

* **the same book** (A holds a document with the PDF sha256 of B's pin's document): the same
  paragraph, by id when A's paragraph of that id has the same page and text (two ingests of one
  PDF number paragraphs alike), else by printed page and text; a page pinned without a paragraph
  is the same printed page of that book;
* **another edition** (no document of A has that sha256): a paragraph of A with the same text
  (whitespace and case aside), on the same printed page if several have it; a page pinned without a
  paragraph cannot be mapped (page 14 of one edition is not page 14 of another).

A pin that cannot be found is *named* (``Disagreement.b_unmapped``: "p. 14 (¶8): no paragraph
with its text in A's book") and never replaced by a guess.  Both files are only read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from core.store.database import ProjectDatabase

if TYPE_CHECKING:  # the records only: core.sample.coders calls map_pins after a comparison
    from core.sample.coders import Disagreement


def map_pins(a_path: Path, b_path: Path, disagreements: Sequence[Disagreement]) -> list[Disagreement]:
    """The disagreements with B's pins translated into pins of A's project, and the pins that could not be."""
    from core.store import open_project

    wanted = {p.paragraph_id for d in disagreements for p in d.b.pins if p.paragraph_id is not None}
    with open_project(b_path, readonly=True) as b:
        b_paragraphs, b_books = _paragraphs_and_books(b, wanted)
    with open_project(a_path, readonly=True) as a:
        finder = _Finder(a, b_paragraphs, b_books)
        out = []
        for d in disagreements:
            mapped, unmapped = [], []
            for pin in d.b.pins:
                found, why = finder.find(pin)
                if found is None:
                    unmapped.append(f"p. {pin.page_label}" + (f" (¶{pin.paragraph_id})" if pin.paragraph_id else "")
                                    + f": {why}")
                else:
                    mapped.append(found)
            out.append(replace(d, b_pins_for_a=tuple(dict.fromkeys(mapped)), b_unmapped=tuple(unmapped)))
    return out


def _paragraphs_and_books(project: ProjectDatabase, ids: set[int]) -> tuple[dict, dict]:
    from core.store.repository import get_paragraphs, list_documents

    books = {d.id: d.sha256 for d in list_documents(project)}
    return {p.id: p for p in get_paragraphs(project, sorted(ids))}, books


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


class _Finder:
    """Looks B's pins up in A's project (A's paragraphs of a book read once, when first needed)."""

    def __init__(self, a: ProjectDatabase, b_paragraphs: dict, b_books: dict) -> None:
        from core.store.repository import list_documents

        self.a, self.b_paragraphs, self.b_books = a, b_paragraphs, b_books
        self.a_documents = list_documents(a)
        self.a_books = {d.sha256: d.id for d in self.a_documents}
        self._scanned: dict[int, list] = {}

    def _paragraphs(self, document_id: int) -> list:
        from core.store.repository import list_paragraphs

        if document_id not in self._scanned:
            self._scanned[document_id] = list_paragraphs(self.a, document_id)
        return self._scanned[document_id]

    def find(self, pin) -> tuple[object | None, str]:
        """(A's Pin, "") or (None, why not)."""
        from core import coding

        sha = self.b_books.get(pin.document_id, "")
        same_book = self.a_books.get(sha)
        if pin.paragraph_id is None:
            if same_book is None:
                return None, "a page of another edition of the grammar, not found in A's book"
            if not any(p.page_label == pin.page_label for p in self._paragraphs(same_book)):
                return None, "A's copy of the book has no such printed page"
            return coding.Pin(page_label=pin.page_label, paragraph_id=None, document_id=same_book), ""
        paragraph = self.b_paragraphs.get(pin.paragraph_id)
        if paragraph is None:
            return None, "the paragraph is no longer in B's project"
        books = [same_book] if same_book is not None else [d.id for d in self.a_documents]
        text = _plain(paragraph.text)
        candidates = [q for doc in books for q in self._paragraphs(doc) if _plain(q.text) == text]
        if same_book is not None:
            exact = [q for q in candidates if q.id == paragraph.id] or \
                [q for q in candidates if q.page_label == paragraph.page_label]
            candidates = exact or candidates
        else:
            candidates = [q for q in candidates if q.page_label == paragraph.page_label] or candidates
        if not candidates:
            where = "A's copy of the book" if same_book is not None else "A's grammar (another edition)"
            return None, f"no paragraph with its text in {where}"
        mine = candidates[0]
        return coding.Pin(page_label=mine.page_label, paragraph_id=mine.id, document_id=mine.document_id), ""

