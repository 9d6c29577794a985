"""Headings and paragraph ends on pages read by OCR: no bold, and a type size estimated from the ink.

Tesseract's size of a line grows with parentheses (their ink reaches above and below the letters),
so the tail of a reference, ``ties 19(5). 809-829.``, once read as a heading and turned the rest of
a scanned book's bibliography into prose; and numbered headings set in bold at body size were lost.
"""

from __future__ import annotations

from core.ingest.layout import Fragment, Row
from core.ingest.segment import PlacedRow, segment
from core.models import ParagraphKind

BODY = 11.0


def _rows(ocr: bool) -> list[PlacedRow]:
    confidence = 90.0 if ocr else None
    lines = [  # text, y0, size
        ("Hodgson, Katherine. 2022. Grammaticalization of the definite article in Armenian. Studies", 100, BODY),
        ("ties 19(5). 809-829.", 114, 13.5),
        ("6.4.2 Subjunctive", 150, BODY),
        ("The subjunctive is marked by the absence of the auxiliary and by its own agreement suffixes.", 175, BODY),
    ]
    placed = []
    for text, y0, size in lines:
        row = Row([Fragment(text, 70.0, y0, 70.0 + 4.5 * len(text), y0 + size * 1.13, size, False,
                            confidence=confidence)])
        row.finish()
        placed.append(PlacedRow(row, 0, 0, 70.0, right=430.0))
    return placed


def _headings(ocr: bool) -> list[str]:
    return [" ".join(r.row.text for r in d.rows) for d in segment(_rows(ocr), BODY) if d.kind is ParagraphKind.HEADING]


def test_on_ocr_a_numbered_line_is_a_heading_and_a_large_looking_reference_tail_is_not() -> None:
    assert _headings(ocr=True) == ["6.4.2 Subjunctive"]


def test_a_text_layer_keeps_its_own_rules() -> None:
    """Born-digital sizes are the font's: a larger line is a heading, a plain numbered line is not (its bold says)."""
    assert _headings(ocr=False) == ["ties 19(5). 809-829."]


def _footnote(ocr: bool) -> list[str]:
    confidence = 90.0 if ocr else None
    lines = [("3The /f/ in ‘Raffi’ is variably geminated. The /b/ in Iranian Armenian ‘thin’ is devoiced", 570.2, 9.0),
             ("for NK.", 580.4, 11.0),  # Tesseract's size of seven letters: the page's body size
             ("4http://menzerath.phonetik.uni-frankfurt.de/S/S0763.html", 592.1, 9.0)]
    placed = []
    for text, y0, size in lines:
        row = Row([Fragment(text, 80.0, y0, 80.0 + 4.0 * len(text), y0 + 10.5, size, False, confidence=confidence)])
        row.finish()
        placed.append(PlacedRow(row, 0, 0, 70.0, footnote=True, right=430.0))
    return [" ".join(r.row.text for r in d.rows) for d in segment(placed, BODY)]


def test_on_ocr_a_short_last_line_of_another_size_does_not_end_the_footnote() -> None:
    assert _footnote(ocr=True)[0].endswith("is devoiced for NK.") and len(_footnote(ocr=True)) == 2
    assert _footnote(ocr=False)[1] == "for NK."  # a text layer's sizes are the font's: a real change


def test_a_dictionarys_letter_headings_are_sections_of_its_part() -> None:
    """Without a PDF outline (every scan) sections come from headings: the letters of a reversal index
    (A a, B b) stay inside it, so its entries are still known as index, not prose."""
    from core.ingest.sections import marks_from_headings, section_kind

    marks = marks_from_headings([(175, 50.0, "English-Chakali Reversal Index"), (176, 40.0, "A a"),
                                 (180, 40.0, "Bb"), (231, 50.0, "Part III"), (232, 50.0, "3.1 Nouns")])
    paths = [m.path for m in marks]
    assert paths[2] == ("English-Chakali Reversal Index", "Bb") and section_kind(paths[2]) == "index"
    assert paths[3] == ("Part III",) and paths[4] == ("Part III", "3.1 Nouns")
