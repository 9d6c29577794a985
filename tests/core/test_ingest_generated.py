"""Ingestion on generated PDFs whose true paragraphs, pages and labels are known."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from core.ingest import ingest
from core.models import LabelSource, ParagraphKind
from core.store import open_project
from core.store.repository import get_language, list_documents, list_paragraphs
from tests.fixtures_ingest import SampleBook, write_sample_book
from tests.pdf_factory import LOREM, BookWriter


def _ingested(book: SampleBook, project_path: Path):
    with open_project(project_path, create=True) as project:
        ingest(project, book.path)
        return list_paragraphs(project)


@pytest.mark.parametrize("variant", [{}, {"columns": 2}, {"unicode_font": True}, {"labels": False}],
                         ids=["one-column", "two-columns", "non-latin", "no-page-labels"])
def test_paragraphs_equal_the_truth_in_reading_order(tmp_path: Path, variant: dict) -> None:
    book = write_sample_book(tmp_path / "book.pdf", **variant)
    paragraphs = _ingested(book, tmp_path / "p.grammarlens")
    assert [p.text for p in paragraphs] == [t.text for t in book.truth]
    assert [p.kind.value for p in paragraphs] == [t.kind for t in book.truth]


def test_page_labels_equal_the_pdfs_own_labels(sample_book: SampleBook, project_path: Path) -> None:
    paragraphs = _ingested(sample_book, project_path)
    with pymupdf.open(sample_book.path) as doc:
        for p in paragraphs:
            assert p.page_label == doc[p.pdf_page - 1].get_label()
            assert p.label_source is LabelSource.PDF_LABELS
    assert {p.page_label for p in paragraphs} >= {"i", "ii", "1", "2"}


def test_printed_numbers_are_read_from_running_feet_without_labels(tmp_path: Path) -> None:
    book = write_sample_book(tmp_path / "book.pdf", labels=False)
    paragraphs = _ingested(book, tmp_path / "p.grammarlens")
    for p in paragraphs:
        assert p.page_label == book.writer.printed_numbers[p.pdf_page]
        assert p.label_source is LabelSource.RUNNING_HEADS


def test_no_running_head_or_page_number_in_paragraph_text(sample_book: SampleBook, project_path: Path) -> None:
    paragraphs = _ingested(sample_book, project_path)
    heads = set(sample_book.writer.heads)
    numbers = set(sample_book.writer.printed_numbers.values())
    for p in paragraphs:
        if p.kind is not ParagraphKind.HEADING:
            assert not any(h in p.text for h in heads), p.text
        assert p.text.strip() not in numbers
        assert not p.text.rstrip().endswith(tuple(f" {n}" for n in numbers)), p.text


def test_a_paragraph_over_a_page_break_is_one_paragraph_with_rects_on_both_pages(
    sample_book: SampleBook, project_path: Path
) -> None:
    crossing = [t for t in sample_book.truth if len(t.pages) > 1]
    assert crossing, "the sample book must contain a paragraph running over a page break"
    by_text = {p.text: p for p in _ingested(sample_book, project_path)}
    for truth in crossing:
        paragraph = by_text[truth.text]
        assert {r.pdf_page for r in paragraph.rects} == truth.pages
        assert paragraph.pdf_page == min(truth.pages)


def test_hyphenation_is_undone_but_real_hyphens_and_gloss_boundaries_stay(
    sample_book: SampleBook, project_path: Path
) -> None:
    text = "\n".join(p.text for p in _ingested(sample_book, project_path))
    for word in ("object", "order", "arrangement", "frequent", "corpus", "narratives", "constituent"):
        assert word in text
    assert "ob- ject" not in text and "ob-ject" not in text
    assert "subject-verb" in text and "clause-final" in text
    assert "ama=ti kalu-ni sepo-ra" in text and "mother=TOP fish-ACC cook-PST" in text


def test_numbered_examples_keep_number_words_gloss_and_translation_together(
    sample_book: SampleBook, project_path: Path
) -> None:
    examples = [p for p in _ingested(sample_book, project_path) if p.kind is ParagraphKind.EXAMPLE]
    truth = [t for t in sample_book.truth if t.kind == "example"]
    assert [(e.example_number, e.text) for e in examples] == [(t.example_number, t.text) for t in truth]
    for e in examples:
        lines = e.text.split("\n")
        assert lines[0].startswith(f"({e.example_number})") and lines[-1].startswith("‘")


def test_non_latin_text_and_ipa_survive(tmp_path: Path) -> None:
    book = write_sample_book(tmp_path / "book.pdf", unicode_font=True)
    text = " ".join(p.text for p in _ingested(book, tmp_path / "p.grammarlens"))
    for needle in ("/ʃ/", "/ŋ/", "/ɬ/", "жили-были", "中文", "ã", "ẽ"):
        assert needle in text


def test_rects_lie_on_the_page_and_cover_the_text(sample_book: SampleBook, project_path: Path) -> None:
    paragraphs = _ingested(sample_book, project_path)
    with pymupdf.open(sample_book.path) as doc:
        for p in paragraphs:
            assert p.rects
            for r in p.rects:
                page = doc[r.pdf_page - 1]
                assert 0 <= r.x0 < r.x1 <= page.rect.width and 0 <= r.y0 < r.y1 <= page.rect.height
            first = p.rects[0]
            clip = pymupdf.Rect(first.x0, first.y0 + 2, first.x1, first.y1 - 2)
            words = doc[first.pdf_page - 1].get_text("text", clip=clip).split()
            assert words and words[0].replace("-", "") in p.text.replace("-", "")


def test_sections_follow_the_outline_or_the_headings(sample_book: SampleBook, project_path: Path) -> None:
    paragraphs = _ingested(sample_book, project_path)
    questions = next(p for p in paragraphs if p.text.startswith("Polar questions"))
    assert questions.section.endswith("1.1 Questions")
    assert questions.section.startswith("1 Word order")


def test_language_is_guessed_from_the_title_and_can_be_given(sample_book: SampleBook, tmp_path: Path) -> None:
    with open_project(tmp_path / "a.grammarlens", create=True) as project:
        ingest(project, sample_book.path)
        assert get_language(project).name == "Teshi"
        assert get_language(project).source == "unsure:pdf-metadata"  # an unknown language: the user is asked
    with open_project(tmp_path / "b.grammarlens", create=True) as project:
        ingest(project, sample_book.path, language="Papuan Malay")
        language = get_language(project)
        assert (language.name, language.glottocode, language.source) == ("Papuan Malay", "papu1250", "user")


def test_the_same_pdf_is_never_ingested_twice(sample_book: SampleBook, project_path: Path) -> None:
    with open_project(project_path, create=True) as project:
        first = ingest(project, sample_book.path)
        second = ingest(project, sample_book.path)
        assert second.already_present and second.document_id == first.document_id
        assert len(list_documents(project)) == 1


def test_reopening_a_project_never_needs_the_pdf(sample_book: SampleBook, project_path: Path) -> None:
    before = _ingested(sample_book, project_path)
    sample_book.path.unlink()
    with open_project(project_path) as project:
        assert list_paragraphs(project) == before


def test_fts_index_finds_paragraphs(sample_book: SampleBook, project_path: Path) -> None:
    _ingested(sample_book, project_path)
    with open_project(project_path) as project:
        rows = project.conn.execute(
            "SELECT p.text FROM paragraphs_fts f JOIN paragraphs p ON p.id = f.rowid "
            "WHERE paragraphs_fts MATCH 'particle'"
        ).fetchall()
    assert rows and all("particle" in r[0] for r in rows)


def _chapter(title: str, first_page_number: int) -> BookWriter:
    """A writer on the first page of a chapter whose title is also its running head."""
    w = BookWriter()
    w.set_running_head(title)
    w.start_numbering(first_page_number)
    w.new_page()
    w.heading(title)
    return w


def test_a_paragraph_resumes_after_a_table_floated_to_the_next_page(tmp_path: Path) -> None:
    w = _chapter("2 Syntax", 1)
    for _ in range(5):
        w.paragraph(LOREM)
    w.float_at_next_page([("Order", "Clause", "Share"), ("SOV", "main", "84%"), ("OSV", "focus", "16%")])
    crossing = w.paragraph("Focus fronting is frequent in narratives " + " ".join([LOREM] * 3))
    assert crossing.pages == {1, 2}, "the test book must break this paragraph over the page"
    w.paragraph("After the table the section closes with this short paragraph.")
    path = w.save(tmp_path / "float.pdf")
    book = SampleBook(path, w)
    paragraphs = _ingested(book, tmp_path / "p.grammarlens")
    assert [p.text for p in paragraphs] == [t.text for t in w.truth]
    assert [p.kind.value for p in paragraphs] == [t.kind for t in w.truth]
    joined = next(p for p in paragraphs if p.text == crossing.text)
    assert {r.pdf_page for r in joined.rects} == {1, 2}


def test_reference_lists_with_hanging_indents_give_one_paragraph_per_entry(tmp_path: Path) -> None:
    w = _chapter("References", 101)
    entries = [
        f"Author{n}, Alex. 20{10 + n}. A study of constituent order and case marking in the languages of the "
        f"Teshi valley, volume {n}. Berlin: Language Science Press. DOI: 10.5281/zenodo.{1000 + n}."
        for n in range(6)
    ]
    truths = [w.paragraph(entry, hanging=True, kind="bibliography") for entry in entries]
    book = SampleBook(w.save(tmp_path / "refs.pdf"), w)
    paragraphs = _ingested(book, tmp_path / "p.grammarlens")
    bibliography = [p for p in paragraphs if p.kind is ParagraphKind.BIBLIOGRAPHY]
    assert [p.text for p in bibliography] == [t.text for t in truths]
    assert all(p.page_label == "101" and p.section == "References" for p in bibliography)
