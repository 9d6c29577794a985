"""``bench ocr --retrieval``: how a scanned copy's paragraphs take the grades of the born-digital ones.

The grades of the judged benchmark belong to born-digital paragraphs; OCR cuts some paragraphs
elsewhere, so each scanned paragraph is mapped onto the born-digital paragraph it is a reading of.
These tests pin the rules the module doc states: near pages only, half of either paragraph's
words, and a born-digital paragraph credited once per top 10.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from bench.judged import GradeKey, Grades, judged_ndcg, text_hash
from bench.ocr_retrieval import BornIndex, scanned_project, score_top
from core.models import LabelSource, Paragraph, ParagraphKind, Rect
from core.store import open_project
from core.store.repository import list_paragraphs
from tests.fixtures_ingest import write_sample_book
from tests.fixtures_ocr import require_tesseract

SHA = "f" * 64
NEGATION = ("Negation is marked by the particle bay at the end of the clause, after every object and adjunct; "
            "the verb itself is not marked, and the particle follows even a clause-final question word.")
ORDER = ("The order of the basic clause is subject verb object; a pronominal object is a suffix on the verb, "
         "and a full noun phrase object follows the verb directly.")
OTHER = "Chapter three describes the phonology: consonants, vowels, prosody and the syllable."


def _p(pid: int, page: int, text: str) -> Paragraph:
    return Paragraph(pid, 1, pid, page, str(page), LabelSource.RUNNING_HEADS, "", ParagraphKind.PROSE, text)


def _grades(*graded: tuple[Paragraph, int]) -> Grades:
    grades = Grades()
    for paragraph, grade in graded:
        grades.exact[GradeKey("GB299", SHA, paragraph.pdf_page, text_hash(paragraph.text))] = grade
    return grades


BORN = [_p(1, 10, NEGATION), _p(2, 10, ORDER), _p(3, 12, OTHER)]


def test_a_misread_paragraph_maps_onto_its_original_on_the_same_or_the_next_page() -> None:
    index = BornIndex(BORN)
    misread = NEGATION.replace("particle", "partide").replace("clause", "c1ause")
    assert index.match(_p(101, 10, misread)) is BORN[0]
    assert index.match(_p(102, 11, misread)) is BORN[0]  # it starts after the page break in the scan
    assert index.match(_p(103, 12, misread)) is None  # two pages away: not the same paragraph
    assert index.match(_p(104, 10, "Lists of loanwords from Fulfulde and Hausa.")) is None


def test_a_misread_dictionary_entry_maps_onto_the_entry_in_the_same_place_on_the_page() -> None:
    """Tone marks read as other letters leave too few shared words: the place on the page decides."""
    entry = Paragraph(7, 1, 7, 142, "130", LabelSource.RUNNING_HEADS, "", ParagraphKind.ENTRY,
                      "tɪŋ [tɪ̀ŋ] art. the • à báál tɪ̀ŋ té lálá ʊ̀ʊ̀ hã́ã̀ŋ", (Rect(142, 70, 300, 420, 352),))
    index = BornIndex([entry, *BORN])
    misread = Paragraph(107, 1, 7, 142, "130", LabelSource.RUNNING_HEADS, "", ParagraphKind.ENTRY,
                        "try [try] art. the - a baal tin té lala dd haan", (Rect(142, 70.5, 300.4, 419, 352.2),))
    assert index.match(misread) is entry
    elsewhere = Paragraph(108, 1, 8, 142, "130", LabelSource.RUNNING_HEADS, "", ParagraphKind.ENTRY,
                          "try [try] art. the - a baal tin té lala dd haan", (Rect(142, 70, 500, 420, 540),))
    assert index.match(elsewhere) is None


def test_split_and_merged_paragraphs_map_onto_the_original_holding_most_of_their_words() -> None:
    index = BornIndex(BORN)
    words = NEGATION.split()
    first, second = " ".join(words[:20]), " ".join(words[20:])
    assert index.match(_p(101, 10, first)) is BORN[0] and index.match(_p(102, 10, second)) is BORN[0]
    merged = index.match(_p(103, 10, NEGATION + " " + ORDER))
    assert merged is BORN[0]  # the larger share of the merged text


def test_a_born_digital_paragraph_is_credited_once_so_splitting_earns_nothing() -> None:
    grades = _grades((BORN[0], 2), (BORN[1], 1))
    index = BornIndex(BORN)
    words = NEGATION.split()
    scanned = [_p(101, 10, " ".join(words[:20])), _p(102, 10, " ".join(words[20:])), _p(103, 10, ORDER),
               _p(104, 10, "Lists of loanwords from Fulfulde and Hausa.")]
    ranked = score_top(scanned, "GB299", SHA, grades, index)
    assert ranked.gains == [2, 0, 1, 0] and ranked.unmapped == 1 and ranked.ungraded == 0
    born = score_top([BORN[0], BORN[1], BORN[2]], "GB299", SHA, grades, None)
    assert born.gains == [2, 1, 0] and born.ungraded == 1  # OTHER was never graded
    pool = [2, 1]
    assert judged_ndcg(born.gains, pool) == 1.0
    assert judged_ndcg(ranked.gains, pool) == judged_ndcg([2, 0, 1], pool) < 1.0


@pytest.mark.slow
def test_a_scanned_copy_is_read_once_and_re_segmented_from_the_store(tmp_path: Path) -> None:
    """The whole-book scan and its OCR'd pages are cached: a project made again (new ingestion code) reads no page."""
    require_tesseract("eng")
    book = write_sample_book(tmp_path / "teshi.pdf", labels=False)
    with pymupdf.open(book.path) as doc, pymupdf.open() as short:
        short.insert_pdf(doc, from_page=2, to_page=3)  # two body pages
        short.save(tmp_path / "teshi_short.pdf")
    cache = tmp_path / "cache"
    first, facts = scanned_project(tmp_path / "teshi_short.pdf", cache, language="eng")
    assert facts["pages"] == 2 and facts["pages_ocr_now"] == 2 and facts["ocr_language"] == "eng"
    with open_project(first) as project:
        read = [p.text for p in list_paragraphs(project)]
    assert any("verb" in text for text in read)
    first.unlink()  # as when the ingestion code changes: the project is made again
    again, facts = scanned_project(tmp_path / "teshi_short.pdf", cache, language="eng")
    assert facts["pages_ocr_now"] == 0 and again == first
    with open_project(again) as project:
        assert [p.text for p in list_paragraphs(project)] == read
