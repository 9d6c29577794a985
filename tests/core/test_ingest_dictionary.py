"""A generated dictionary-and-grammar (the book ``bench ingest --generated-dictionary`` times) ingests right.

Speed is measured by the bench, not here; this checks that the pages the bench times are read
as a linguist would read them, so a faster ingest cannot be a wrong one: a paragraph per
dictionary entry (but the known limit below), headword first, running heads (a new headword pair
on every page) kept out of the text, printed page numbers read from those heads, interlinear
examples kept whole.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.dictionary_pdf import write_dictionary_pdf
from core.ingest import ingest
from core.models import LabelSource, ParagraphKind
from core.store import create_project
from core.store.repository import list_paragraphs

PAGES, GRAMMAR_PAGES = 9, 3


@pytest.fixture(scope="module")
def book(tmp_path_factory) -> tuple[Path, list[tuple[int, str]]]:
    entries: list[tuple[int, str]] = []
    path = write_dictionary_pdf(tmp_path_factory.mktemp("dictionary") / "dict.pdf", pages=PAGES,
                                grammar_pages=GRAMMAR_PAGES, entries=entries)
    return path, entries


@pytest.fixture(scope="module")
def paragraphs(book, tmp_path_factory):
    with create_project(tmp_path_factory.mktemp("project") / "p.grammarlens") as project:
        ingest(project, book[0])
        return list_paragraphs(project)


def test_dictionary_entries_are_paragraphs_headword_first(book, paragraphs) -> None:
    _path, entries = book
    dictionary = [p for p in paragraphs if p.pdf_page > GRAMMAR_PAGES]
    starts = [(p.pdf_page, p.text.split()[0]) for p in dictionary]
    assert len(entries) > 250 and all(p.kind is ParagraphKind.ENTRY for p in dictionary)
    assert not any(p.kind is ParagraphKind.ENTRY for p in paragraphs if p.pdf_page <= GRAMMAR_PAGES)
    assert set(starts) <= set(entries), "a paragraph starts inside an entry"
    # Known limit: an entry that opens a page after a finished line is taken as the previous entry
    # running on (a lower-case word continues a sentence over a page break); all others are found.
    assert len(set(starts)) >= 0.95 * len(entries)


def test_running_heads_stay_out_and_give_the_printed_numbers(book, paragraphs) -> None:
    _path, entries = book
    assert not any(" – " in p.text for p in paragraphs)  # "first – last" headwords of a running head
    assert {(p.pdf_page, p.page_label, p.label_source) for p in paragraphs} == {
        (n, str(n), LabelSource.RUNNING_HEADS) for n in range(1, PAGES + 1)}


def test_interlinear_examples_of_the_grammar_part_stay_whole(paragraphs) -> None:
    examples = [p for p in paragraphs if p.kind is ParagraphKind.EXAMPLE]
    assert examples and all(p.pdf_page <= GRAMMAR_PAGES for p in examples)
    assert [p.example_number for p in examples] == [str(i) for i in range(1, len(examples) + 1)]
    assert all(p.text.count("\n") >= 2 and p.text.endswith(".'") for p in examples)
