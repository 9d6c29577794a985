"""The parts of OCR that need no Tesseract: the text-layer check, hOCR lines, page-number misreads, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pymupdf
import pytest

from core.ingest.furniture import ocr_number_reading
from core.ingest.hocr import parse_hocr
from core.ingest.ocr_run import format_duration, page_dpi
from core.ingest.text_layer import LayerVerdict, check_layer, layer_agreement
from tests.fixtures_shared import GRAMMARS

HOCR = """<div class='ocr_page' id='page_1' title='bbox 0 0 1750 2500'>
 <div class='ocr_carea' id='block_1_1'>
  <p class='ocr_par' id='par_1_1' lang='eng'>
   <span class='ocr_line' title="bbox 200 300 1500 345; baseline 0.001 -10; x_size 43">
    <span class='ocrx_word' title='bbox 200 305 260 345; x_wconf 96'>(12)</span>
    <span class='ocrx_word' title='bbox 420 300 560 335; x_wconf 91'>ama=ti</span>
    <span class='ocrx_word' title='bbox 578 300 700 335; x_wconf 40'>kalu-ni</span>
   </span>
   <span class='ocr_line' title="bbox 420 360 980 400; baseline 0 -9; x_size 41">
    <span class='ocrx_word' title='bbox 420 360 600 400; x_wconf 90'>mother=TOP</span>
    <span class='ocrx_word' title='bbox 615 362 980 400; x_wconf 88'>fish-ACC &amp; co</span>
   </span>
  </p>
 </div>
</div>"""


def test_hocr_lines_become_fragments_in_points_split_at_wide_gaps() -> None:
    page = parse_hocr(HOCR, 300)
    texts = [f.text for f in page.fragments]
    assert texts == ["(12)", "ama=ti kalu-ni", "mother=TOP fish-ACC & co"]
    number, words, gloss = page.fragments
    assert number.x0 == pytest.approx(200 * 72 / 300) and words.x0 == pytest.approx(420 * 72 / 300)
    assert number.size == words.size == gloss.size == 10.5  # one paragraph, one size: its commonest (x_size 41)
    assert words.confidence == pytest.approx((91 * 6 + 40 * 7) / 13, abs=0.1)
    assert gloss.y0 > words.y1 - 1  # rebuilt from the baselines: the rows do not swallow each other
    assert page.confidence is not None and 40 < page.confidence < 96


def test_real_text_layers_are_trusted_and_broken_ones_are_not() -> None:
    with pymupdf.open(GRAMMARS / "078_Papuan_Malay.pdf") as doc:
        verdicts = [check_layer(doc.load_page(i).get_text(), False).verdict for i in range(30, 60)]
    assert verdicts.count(LayerVerdict.GOOD) >= 28
    consonants = "xkcd qwrtz lmnpq bcdfg " * 20
    assert check_layer(consonants, True).verdict is LayerVerdict.POOR
    mojibake = "ÿþ\x01\x02 \ue000\ue001\ue002 " * 30
    assert check_layer(mojibake, True).verdict is LayerVerdict.POOR
    # plausible-looking noise passes the letters-only check: a hidden layer is compared with a fresh reading
    noise = "hea iis mothe day knit St angry ean on v " * 10
    assert check_layer(noise, True).verdict is LayerVerdict.GOOD
    assert layer_agreement(noise, "the mother and the day were angry " * 10) < 0.5
    assert layer_agreement("Word order is SOV.", "word order is SOV") == 1.0
    assert check_layer("  ", True).verdict is LayerVerdict.IMAGE
    assert check_layer("", False).verdict is LayerVerdict.BLANK


@pytest.mark.parametrize(("token", "reading"), [
    ("l2", "12"), ("1O4", "104"), ("il", "ii"), ("xl", "xl"), ("vIII", "viii"), ("(17)", "17"), ("Word", "Word"),
])
def test_misread_page_numbers_are_read_as_meant(token: str, reading: str) -> None:
    assert ocr_number_reading(token) == reading


def test_huge_pages_are_read_at_a_lower_resolution_and_durations_read_well() -> None:
    with pymupdf.open() as doc:
        doc.new_page(width=420, height=600)
        doc.new_page(width=4000, height=3000)
        assert page_dpi(doc.load_page(0), 300) == 300
        assert 72 <= page_dpi(doc.load_page(1), 300) < 300
    assert format_duration(42.2) == "43 s" and format_duration(754) == "12 min 34 s"
    assert format_duration(3 * 3600 + 120) == "3 h 02 min"


def test_cli_refuses_an_unknown_ocr_language_before_reading(tmp_path: Path, capsys) -> None:
    from cli import main

    pdf = tmp_path / "empty.pdf"
    with pymupdf.open() as doc:
        doc.new_page().insert_text((50, 80), "A grammar of Teshi " * 5)
        doc.save(pdf)
    code = main(["ingest", str(pdf), "--project", str(tmp_path / "p.grammarlens"), "--ocr-language", "Klingon!"])
    err = capsys.readouterr().err
    assert code == 2 and "Unknown OCR language" in err and not (tmp_path / "p.grammarlens").exists()


def test_paragraphs_json_carries_the_ocr_confidence(tmp_path: Path, capsys) -> None:
    from cli import main

    pdf = tmp_path / "born.pdf"
    with pymupdf.open() as doc:
        doc.new_page().insert_text((50, 80), "Teshi is a verb-final language with a rich case system.")
        doc.save(pdf)
    project = tmp_path / "p.grammarlens"
    assert main(["ingest", str(pdf), "--project", str(project), "--language", "Teshi", "--ocr", "never"]) == 0
    capsys.readouterr()
    assert main(["paragraphs", str(project), "--json"]) == 0
    (paragraph,) = json.loads(capsys.readouterr().out)
    assert paragraph["ocr_confidence"] is None and paragraph["low_confidence"] is False


def test_without_tesseract_a_book_of_type_with_one_picture_page_is_still_read(tmp_path: Path, monkeypatch) -> None:
    from core.ingest.pipeline import ingest
    from core.store import create_project
    from tests.fixtures_ingest import write_sample_book

    monkeypatch.setenv("PATH", str(tmp_path))  # no Tesseract on this machine
    book = write_sample_book(tmp_path / "teshi.pdf")
    mixed = tmp_path / "mixed.pdf"
    with pymupdf.open(book.path) as doc:
        pixmap = doc.load_page(3).get_pixmap(dpi=100)
        doc.delete_page(3)
        doc.new_page(3, width=420, height=600).insert_image(pymupdf.Rect(0, 0, 420, 600), pixmap=pixmap)
        doc.save(mixed)
    with create_project(tmp_path / "p.grammarlens") as project:
        result = ingest(project, mixed, language="Teshi")
    assert result.ocr is not None and result.ocr.not_read == [4] and result.ocr.pages == 0
    assert "not read: Tesseract is not installed" in result.ocr.summary()


def test_the_prompt_marks_evidence_read_with_low_ocr_confidence() -> None:
    from core.catalog import load_catalog
    from core.llm.prompts import build_prompt
    from core.records.classifications import Evidence

    feature = load_catalog().get("81A")
    evidence = [Evidence(1, 1, "The order is SOV.", "87"),
                Evidence(2, 2, "Tbe ordcr 1s S0V.", "88", ocr_confidence=52.0),
                Evidence(3, 3, "Questions end in ka.", "89", ocr_confidence=91.0)]
    text = build_prompt(feature, "rag", "Testish", evidence, "conclusion").messages[1]["content"]
    assert '<paragraph number="1" page="87">' in text and '<paragraph number="3" page="89">' in text
    assert '<paragraph number="2" page="88" ocr_confidence="52" note="scanned page read by OCR' in text
