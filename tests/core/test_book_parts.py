"""Parts of a book (core.retrieval.book_parts): front and back matter and dictionaries never lead the evidence."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.catalog import load_catalog
from core.models import LabelSource, Paragraph, ParagraphKind
from core.retrieval.book_parts import BookPart, classify_parts, heading_name, part_of_section
from core.retrieval.pipeline import forget_project_index, retrieve
from core.retrieval.settings import RetrievalSettings
from core.store import create_project, open_project
from core.store.repository import insert_document, list_paragraphs
from tests.pdf_factory import LOREM, BookWriter

LEXICAL = RetrievalSettings(reranker=None)


@pytest.mark.parametrize(("section", "part"), [
    # headings as the shared grammars print them
    ("Acknowledgments", BookPart.FRONT),
    ("Symbols and abbreviations", BookPart.FRONT),
    ("Contents", BookPart.FRONT),
    ("Conventions for examples", BookPart.FRONT),
    ("Foreword", BookPart.FRONT),
    ("References", BookPart.BACK),
    ("Bibliography", BookPart.BACK),
    ("Index > Name index", BookPart.BACK),
    ("Subject index", BookPart.BACK),
    ("Appendix B: Texts", BookPart.BACK),
    ("Appendix: Inventory of recordings", BookPart.BACK),
    ("III Grammatical Outlines > List of references > Subject index", BookPart.BACK),
    ("I Chakali-English Dictionary > > z", BookPart.DICTIONARY),
    ("II English-Chakali Reversal Index > A a", BookPart.DICTIONARY),
    ("Appendix C: Moloko-English Lexicon", BookPart.DICTIONARY),
    ("Appendix A: Word lists", BookPart.DICTIONARY),
    # the grammar proper, however its headings mention books, corpora or the lexicon
    ("11 Aspects of the lexicon > 11.2 Loans", None),
    ("1 Introduction > 1.4 The corpus and consultants", None),
    ("Appendix B: Verb paradigms", None),
    ("8 Noun phrases > 8.2 Articles and demonstratives", None),
    ("5 Word classes > 5.3 Verbs > 5.3.6 Negation", None),
])
def test_headings_name_the_parts_of_a_book(section: str, part: BookPart | None) -> None:
    assert part_of_section(section) == part


def test_a_headings_number_is_not_its_name() -> None:
    assert heading_name("II English-Chakali Reversal Index") == "English-Chakali Reversal Index"
    assert heading_name("Appendix C: Moloko-English Lexicon") == "Moloko-English Lexicon"
    assert heading_name("13.1.2 Negation with bukang") == "Negation with bukang"
    assert heading_name("Index") == "Index"


def _paragraph(seq: int, section: str, text: str, label: str, kind: ParagraphKind = ParagraphKind.PROSE) -> Paragraph:
    return Paragraph(id=seq + 1, document_id=1, seq=seq, pdf_page=seq + 1, page_label=label,
                     label_source=LabelSource.PDF_LABELS, section=section, kind=kind, text=text)


def test_roman_pages_and_the_pages_before_the_first_heading_are_front_matter() -> None:
    book = [
        _paragraph(0, "", "A grammar of Teshi. Language Science Press, Berlin.", "-1"),
        _paragraph(1, "", "I dedicate this book to the speakers of Teshi.", "v"),
        _paragraph(2, "1 Introduction", "Teshi is spoken in the valley.", "1"),
        _paragraph(3, "1 Introduction", "A paragraph with no section would be odd here.", "2"),
        _paragraph(4, "2 Nouns", "A page the index cites.", "14", ParagraphKind.INDEX),
        _paragraph(5, "2 Nouns", "kalu n. fish", "15", ParagraphKind.ENTRY),
    ]
    assert classify_parts(book) == [BookPart.FRONT, BookPart.FRONT, BookPart.BODY, BookPart.BODY, BookPart.BACK,
                                    BookPart.DICTIONARY]


# A grammar whose acknowledgements share GB020's words ("articles") and whose deciding paragraph sits
# in "Articles and demonstratives" without saying "article" or "definite" in its text.
ARTICLES_BOOK: list[tuple[str, str, ParagraphKind, str]] = [
    ("Acknowledgements", "xii", ParagraphKind.PROSE,
     "I thank the colleagues whose insightful articles and books on Teshi, on definiteness and on articles in "
     "the languages of the region shaped this grammar, and the speakers who taught me."),
    ("Abbreviations", "xiv", ParagraphKind.TABLE, "ART article DEF definite DEM demonstrative SPEC specific"),
    ("2 Phonology > 2.1 Vowels", "12", ParagraphKind.PROSE,
     "The vowel inventory has seven oral vowels; nasal vowels are contrastive in stressed syllables."),
    ("8 Noun phrases > 8.2 Articles and demonstratives", "140", ParagraphKind.PROSE,
     "The enclitic =na follows a noun whose referent the hearer can identify: kalu=na 'the fish' as opposed "
     "to kalu 'a fish, some fish'. It never carries a spatial meaning, unlike the demonstratives."),
    ("9 Verbs > 9.1 Tense", "160", ParagraphKind.PROSE,
     "Past tense is marked by the suffix -ra on the verb; the present is unmarked."),
    ("References", "301", ParagraphKind.BIBLIOGRAPHY,
     "Lyons, Christopher. 1999. Definiteness. Cambridge: Cambridge University Press. [On articles.]"),
]


def _project(path: Path, book: list[tuple[str, str, ParagraphKind, str]]) -> Path:
    paragraphs = [
        Paragraph(id=0, document_id=0, seq=i, pdf_page=i + 1, page_label=label, label_source=LabelSource.PDF_LABELS,
                  section=section, kind=kind, text=text)
        for i, (section, label, kind, text) in enumerate(book)
    ]
    with create_project(path) as project:
        insert_document(
            project, sha256="1" * 64, file_name="teshi.pdf", path=str(path.with_suffix(".pdf")), title="Teshi",
            page_count=len(book), label_source=LabelSource.PDF_LABELS, pdf_page_of_printed_1=3,
            pages=[(i + 1, b[1], LabelSource.PDF_LABELS, 595.0, 842.0, 100) for i, b in enumerate(book)],
            paragraphs=paragraphs,
        )
    return path


def test_acknowledgements_never_lead_the_evidence_for_articles(tmp_path: Path) -> None:
    path = _project(tmp_path / "teshi.grammarlens", ARTICLES_BOOK)
    gb020 = load_catalog().get("GB020")
    with open_project(path) as project:
        before = retrieve(project, gb020, LEXICAL.with_(outside_penalty=0.0, section_weight=0.0, section_top=0))
        hits = retrieve(project, gb020, LEXICAL)
    # without the parts of the book, the acknowledgements lead (they say "articles" and "definiteness")
    assert before[0].paragraph.section == "Acknowledgements"
    assert hits[0].paragraph.section == "8 Noun phrases > 8.2 Articles and demonstratives"
    assert hits[0].part is BookPart.BODY and not hits[0].outside_grammar
    body = [h for h in hits if not h.outside_grammar]
    outside = [h for h in hits if h.outside_grammar]
    assert outside and min(h.rank for h in outside) > max(h.rank for h in body)
    assert {h.part for h in outside} == {BookPart.FRONT, BookPart.BACK}
    assert hits[0].to_json()["part"] == "body" and outside[0].to_json()["part"] in ("front", "back")


def test_front_matter_leads_only_when_nothing_else_speaks_and_is_marked(tmp_path: Path) -> None:
    book = [b for b in ARTICLES_BOOK if not b[0].startswith("8 ")]
    path = _project(tmp_path / "teshi.grammarlens", book)
    with open_project(path) as project:
        hits = retrieve(project, load_catalog().get("GB020"), LEXICAL)
    assert hits and all(h.outside_grammar for h in hits[:2])
    assert hits[0].part.label in ("front matter", "back matter")


def test_a_generated_grammar_with_front_and_back_matter(tmp_path: Path) -> None:
    """Ingested from a PDF: roman-numbered acknowledgements and a reference list are told apart from the chapters."""
    from core.ingest import ingest

    w = BookWriter()
    w.start_numbering(1, roman=True)
    w.new_page()
    w.heading("Acknowledgements")
    w.paragraph("I am grateful for the insightful articles and books on Teshi that colleagues sent me, and for "
                "the discussions of definiteness and articles with them.")
    w.start_numbering(1, roman=False)
    w.new_page()
    w.heading("1 Noun phrases")
    w.paragraph("The enclitic =na follows a noun whose referent the hearer can identify, as in kalu=na 'the fish'. "
                + LOREM)
    w.new_page()
    w.heading("References")
    w.paragraph("Lyons, Christopher. 1999. Definiteness. Cambridge: Cambridge University Press.", indent=False)
    pdf = w.save(tmp_path / "teshi.pdf", labels=[{"startpage": 0, "prefix": "", "style": "r", "firstpagenum": 1},
                                                 {"startpage": 1, "prefix": "", "style": "D", "firstpagenum": 1}])
    path = tmp_path / "teshi.grammarlens"
    with create_project(path) as project:
        ingest(project, pdf)
        paragraphs = list_paragraphs(project)
    forget_project_index(path)
    parts = {p.text[:20]: part for p, part in zip(paragraphs, classify_parts(paragraphs), strict=True)}
    assert parts["I am grateful for th"] is BookPart.FRONT
    assert parts["The enclitic =na fol"] is BookPart.BODY
    assert parts["Lyons, Christopher. "] is BookPart.BACK
