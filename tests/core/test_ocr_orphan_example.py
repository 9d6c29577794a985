"""An OCR'd page that opens inside a numbered example whose first lines Tesseract dropped.

On page 89 of the scanned Iranian Armenian grammar, Tesseract's page layout analysis lost
``(12) a. mek / one`` under the running head; the rest of the example, without its number, fell
apart into one paragraph a line, which filled a scanned top 10 (GB021) and pushed the next deciding
example down.  The rows below are that page's OCR lines (text and boxes as Tesseract read them).
"""

from __future__ import annotations

from core.ingest.layout import Fragment, Row
from core.ingest.segment import PlacedRow, segment
from core.models import ParagraphKind

BODY = 10.5
LINES = [  # page 89: (fragments of one printed line: text, x0, x1), y0, page
    ([("‘one’", 102.72, 122.64), ("(KM)", 390.24, 412.08)], 108.36, 1),
    ([("մէկ", 103.2, 116.4)], 123.6, 1),
    ([("ե. mek/me rope", 88.08, 161.04)], 137.88, 1),
    ([("one", 103.2, 118.56), ("minute", 141.84, 172.56)], 151.32, 1),
    ([("‘one minute’", 102.72, 156.96), ("(NK, KM)", 370.56, 412.08)], 166.68, 1),
    ([("մեկ րոպէ", 103.2, 141.12)], 182.28, 1),
    ([("c. me", 89.04, 115.68), ("bpn", 126.72, 143.52)], 196.2, 1),
    ([("INDF thing", 103.2, 150.0)], 209.64, 1),
    ([("‘A thing; something’", 102.72, 192.48), ("(NK)", 391.68, 412.08)], 224.56, 1),
    ([("uh pwu", 103.2, 132.0)], 238.68, 1),
    ([("The indefinite morph /me/ is also the indefinite article in some of the tradi-", 69.12, 413.76)], 261.24, 1),
    ([("tional dialects of Iran (Khoy/Urmia: 1962: 84; Maragha: 1926: 1.78; and Salmast).", 58.32, 413.04)], 274.68, 1),
]
PROSE_BEFORE = ("Standard Eastern equivalent is [mij].", 69.84, 228.72, 581.16, 0)


def _placed(ocr: bool) -> list[PlacedRow]:
    confidence = 90.0 if ocr else None
    lines = [([(PROSE_BEFORE[0], PROSE_BEFORE[1], PROSE_BEFORE[2])], PROSE_BEFORE[3], PROSE_BEFORE[4]), *LINES]
    placed = []
    for fragments, y0, page in lines:
        row = Row([Fragment(t, x0, y0, x1, y0 + 11.86, BODY, False, confidence=confidence) for t, x0, x1 in fragments])
        row.finish()
        placed.append(PlacedRow(row, page, 0, 58.32, right=413.76))
    return placed


def _paragraphs(ocr: bool) -> list[tuple[ParagraphKind, str]]:
    return [(d.kind, " / ".join(r.row.text for r in d.rows)) for d in segment(_placed(ocr), BODY)]


def test_an_ocr_page_opening_inside_an_example_keeps_the_example_whole() -> None:
    paragraphs = _paragraphs(ocr=True)
    examples = [text for kind, text in paragraphs if kind is ParagraphKind.EXAMPLE]
    assert examples == [" / ".join(" ".join(t for t, _, _ in f) for f, _, _ in LINES[:10])]
    assert paragraphs[0] == (ParagraphKind.PROSE, PROSE_BEFORE[0])
    assert paragraphs[-1][0] is ParagraphKind.PROSE and paragraphs[-1][1].startswith("The indefinite morph")
    assert len(paragraphs) == 3


def test_a_text_layer_keeps_its_own_rules() -> None:
    """Born-digital pages never lose a line, so an indented block there is not taken for an example."""
    assert all(kind is not ParagraphKind.EXAMPLE for kind, _ in _paragraphs(ocr=False))


NOTE = [  # the same page's footnote; Tesseract read its URL line at 11.5 pt, the note at 9
    ("For Salmast, BV found an example of an indefinite /me/ in a newspaper article called Խայու",
     68.64, 598.56, 412.32, 608.73, 9.0),
    ("Լաճ from the periodical Պսակ (date October 11, 1880, volume 30): https://tert.nla.am/archive/",
     72.0, 609.77, 412.8, 619.94, 9.0),
    ("NLA%20TERT/Psak/1880/1880(30).pdf", 71.52, 618.44, 210.48, 631.43, 11.5),
]


def _note_paragraphs(ocr: bool) -> list[str]:
    from core.ingest.pipeline import _place_rows

    confidence = 90.0 if ocr else None
    lines = [("classifier hot, the morpheme me is unambiguously a numeral (136).", 58.56, 396.16, 354.24, 408.59, 11.0),
             ("me hot", 88.8, 560.0, 161.28, 571.0, BODY), ("մի հատ մարդ", 103.2, 578.28, 160.56, 590.14, BODY), *NOTE]
    rows = [Row([Fragment(t, x0, y0, x1, y1, size, False, confidence=confidence)]).finish()
            for t, x0, y0, x1, y1, size in lines]
    placed = _place_rows(rows, 88, 680.31, BODY, {(0, 0): (58.32, 413.76)})
    return [" ".join(r.row.text for r in d.rows) for d in segment(placed, BODY) if d.rows[0].footnote]


def test_a_note_line_ocr_reads_larger_stays_in_its_note() -> None:
    assert _note_paragraphs(ocr=True) == [" ".join(n[0] for n in NOTE)]


def test_a_larger_last_line_of_a_text_layer_is_not_small_print() -> None:
    assert _note_paragraphs(ocr=False) == []
