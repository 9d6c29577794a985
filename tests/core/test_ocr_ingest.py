"""Scanned grammars read through the real Tesseract: page numbers, text layers, failures, languages."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pymupdf
import pytest

from core.errors import PdfError
from core.ingest.page_reading import OcrOptions
from core.ingest.pipeline import ingest
from core.models import LabelSource
from core.store import create_project
from core.store.ocr_pages import document_ocr, load_ocr_pages
from core.store.repository import list_paragraphs
from tests.fixtures_ingest import write_sample_book
from tests.fixtures_ocr import rasterise, require_tesseract, with_text_layer

pytestmark = pytest.mark.usefixtures("tesseract_eng")


@pytest.fixture(scope="module")
def scanned_book(tmp_path_factory: pytest.TempPathFactory):
    """The 9-page sample grammar (roman front matter, then arabic) as a 300-dpi image-only PDF, no labels."""
    require_tesseract("eng")
    folder = tmp_path_factory.mktemp("scan")
    book = write_sample_book(folder / "teshi.pdf", labels=False)
    return book, rasterise(book.path, folder / "teshi-scan.pdf")


@pytest.mark.slow
def test_a_scan_is_read_with_its_printed_page_numbers_roman_front_matter_included(scanned_book, tmp_path: Path):
    book, scan = scanned_book
    with create_project(tmp_path / "p.grammarlens") as project:
        result = ingest(project, scan, ocr=OcrOptions(language="eng"))
        paragraphs = list_paragraphs(project)
        labels = dict(project.conn.execute("SELECT pdf_page, page_label FROM pages").fetchall())
        sources = {r[0] for r in project.conn.execute("SELECT label_source FROM pages")}
        assert document_ocr(project, result.document_id) == ("eng", result.pages)
    assert result.ocr is not None and result.ocr.pages == result.pages and not result.ocr.failed
    assert sources == {LabelSource.RUNNING_HEADS.value}
    assert {page: labels[page] for page in book.writer.printed_numbers} == book.writer.printed_numbers
    assert labels[1] == "i" and labels[2] == "ii" and labels[3] == "1"
    text = " ".join(p.text for p in paragraphs)
    assert "Teshi is a verb-final language" in text
    assert "1 Word order" not in [p.text for p in paragraphs if p.kind.value == "prose"]  # the head is furniture
    examples = [p for p in paragraphs if p.kind.value == "example"]
    assert len(examples) == 3 and {p.example_number for p in examples} >= {"2", "3"}  # "(1)" may read as "(6)"
    assert "ama=ti kalu-ni sepo-ra\nmother=TOP fish-ACC cook-PST" in examples[0].text
    assert all(p.ocr_confidence is not None and 0 <= p.ocr_confidence <= 100 for p in paragraphs)
    assert sum(not p.low_confidence for p in paragraphs) >= 0.8 * len(paragraphs)


def _garbage(seed: int, words: int = 120) -> str:
    """A text layer no reader could use: consonant clusters without a vowel, as a broken encoding writes."""
    letters = "bcdfghjklmnpqrstvwxz"
    out, state = [], seed
    for n in range(words):
        state = (state * 1103515245 + 12345) % 2**31
        out.append("".join(letters[(state >> k) % 20] for k in range(3, 3 + 4 + state % 4)))
        if n % 12 == 11:
            out.append("\n")
    return " ".join(out)


def test_a_poor_text_layer_is_reported_and_read_again_by_ocr(tmp_path: Path) -> None:
    book = write_sample_book(tmp_path / "teshi.pdf", labels=False)
    scan = rasterise(book.path, tmp_path / "scan.pdf", pages=[2, 3])
    layered = with_text_layer(scan, tmp_path / "layered.pdf", [_garbage(1), _garbage(2)])
    with create_project(tmp_path / "auto.grammarlens") as project:
        result = ingest(project, layered, language="Teshi")
        text = " ".join(p.text for p in list_paragraphs(project))
    assert result.ocr is not None and result.ocr.poor_layer == [1, 2] and result.ocr.pages == 2
    assert "verb-final language" in text and "bcdf" not in text
    with create_project(tmp_path / "never.grammarlens") as project:
        result = ingest(project, layered, language="Teshi", ocr=OcrOptions(mode="never"))
        text = " ".join(p.text for p in list_paragraphs(project))
    assert result.ocr is not None and result.ocr.poor_layer == [1, 2] and result.ocr.pages == 0
    assert "verb-final" not in text  # trusted as asked, and reported


NOISE = "ami darts hea iis mothe day knit St angry ean on v Tbe lan guage oi tho vaIley"


def test_a_scanners_hidden_layer_is_compared_with_a_fresh_reading_before_it_is_trusted(tmp_path: Path) -> None:
    """Noise that looks like words passes any letters-only check; two sampled pages read again expose it."""
    book = write_sample_book(tmp_path / "teshi.pdf", labels=False)
    pages = [2, 3, 4]
    scan = rasterise(book.path, tmp_path / "scan.pdf", pages=pages)
    noisy = with_text_layer(scan, tmp_path / "noisy.pdf", ["\n".join([NOISE] * 30)] * 3)
    with create_project(tmp_path / "noisy.grammarlens") as project:
        result = ingest(project, noisy, language="Teshi")
        text = " ".join(p.text for p in list_paragraphs(project))
    assert result.ocr is not None and result.ocr.layer_agreement is not None and result.ocr.layer_agreement < 0.3
    assert result.ocr.poor_layer == [1, 2, 3] and result.ocr.pages == 3 and "verb-final language" in text
    with pymupdf.open(book.path) as doc:
        truth = [doc.load_page(i).get_text() for i in pages]
    faithful = with_text_layer(scan, tmp_path / "faithful.pdf", truth)
    with create_project(tmp_path / "faithful.grammarlens") as project:
        result = ingest(project, faithful, language="Teshi")
    assert result.ocr is not None and result.ocr.layer_agreement is not None and result.ocr.layer_agreement > 0.9
    assert result.ocr.pages == 0 and result.ocr.poor_layer == []  # a good layer is kept as it is


def test_a_good_layer_is_trusted_and_a_mixed_pdf_ocrs_only_its_image_pages(tmp_path: Path) -> None:
    book = write_sample_book(tmp_path / "teshi.pdf", labels=False)
    mixed = tmp_path / "mixed.pdf"
    with pymupdf.open(book.path) as doc:
        pixmap = doc.load_page(4).get_pixmap(dpi=300, colorspace=pymupdf.csGRAY)
        doc.delete_page(4)
        page = doc.new_page(4, width=pixmap.width * 72 / 300, height=pixmap.height * 72 / 300)
        page.insert_image(page.rect, pixmap=pixmap)
        doc.save(mixed)
    with create_project(tmp_path / "p.grammarlens") as project:
        result = ingest(project, mixed, language="Teshi")
        paragraphs = list_paragraphs(project)
    assert result.ocr is not None and result.ocr.pages == 1 and result.ocr.poor_layer == []
    on_page_5 = [p for p in paragraphs if 5 in {r.pdf_page for r in p.rects}]
    assert on_page_5 and all(p.ocr_confidence is not None for p in on_page_5)  # also one continued from page 4
    assert all(p.ocr_confidence is None for p in paragraphs if p not in on_page_5)


def test_tesseract_crashing_on_one_page_skips_and_reports_that_page(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A real crash (SIGSEGV) of the real command on page 2: the other pages are read."""
    real = __import__("shutil").which("tesseract")
    wrapper = tmp_path / "bin" / "tesseract"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\ncase "$1" in *p1.pgm) kill -SEGV $$ ;; esac\nexec {real} "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}")
    book = write_sample_book(tmp_path / "teshi.pdf", labels=False)
    scan = rasterise(book.path, tmp_path / "scan.pdf", pages=[2, 3, 4])
    with create_project(tmp_path / "p.grammarlens") as project:
        result = ingest(project, scan, language="Teshi", ocr=OcrOptions(language="eng"))
        stored = load_ocr_pages(project, project.conn.execute("SELECT sha256 FROM documents").fetchone()[0])
        pages = {p.pdf_page for p in list_paragraphs(project)}
    assert result.ocr is not None and [page for page, _ in result.ocr.failed] == [2]
    assert "Tesseract failed" in result.ocr.failed[0][1] or "exit status" in result.ocr.failed[0][1]
    assert result.ocr.pages == 2 and pages == {1, 3}
    assert stored[2].status == "failed" and stored[1].status == "ok"


def test_an_upside_down_page_is_turned_round_and_its_highlights_stay_on_the_pdf(tmp_path: Path) -> None:
    require_tesseract("eng", "osd")
    book = write_sample_book(tmp_path / "teshi.pdf", labels=False)
    scan = rasterise(book.path, tmp_path / "scan.pdf", pages=[2, 3], upside_down=frozenset({2}))
    with create_project(tmp_path / "p.grammarlens") as project:
        result = ingest(project, scan, language="Teshi", ocr=OcrOptions(language="eng"))
        paragraphs = list_paragraphs(project)
        stored = load_ocr_pages(project, project.conn.execute("SELECT sha256 FROM documents").fetchone()[0])
    assert result.ocr is not None and result.ocr.pages == 2 and not result.ocr.failed
    assert stored[1].rotation == 180 and stored[2].rotation == 0
    first = next(p for p in paragraphs if "verb-final language" in p.text)
    assert first.pdf_page == 1 and (first.ocr_confidence or 0) > 80
    heading = next(p for p in paragraphs if p.pdf_page == 1 and p.kind.value == "heading")
    assert heading.rects[0].y0 > 300  # printed at the top of the turned page: at the bottom of the PDF's


def test_a_missing_language_model_names_the_package_to_install(tmp_path: Path) -> None:
    book = write_sample_book(tmp_path / "teshi.pdf", labels=False)
    scan = rasterise(book.path, tmp_path / "scan.pdf", pages=[2], dpi=100)
    with create_project(tmp_path / "p.grammarlens") as project, pytest.raises(PdfError) as info:
        ingest(project, scan, ocr=OcrOptions(language="tlh"))
    assert "tlh" in info.value.message and "sudo apt-get install tesseract-ocr-tlh" in info.value.hint


@pytest.mark.slow
def test_bench_ocr_json_scores_a_clean_scan_against_the_born_digital_text(capsys) -> None:
    from cli import main
    from tests.fixtures_shared import GRAMMARS

    assert main(["bench", "ocr", str(GRAMMARS / "212_Komnzo.pdf"), "--pages", "3", "--variants", "clean",
                 "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert set(row) == {"grammar", "variant", "pages", "prose_pages", "scored", "word_match", "labels_recovered",
                        "boundary_agreement", "seconds_per_page", "peak_memory_mb", "mean_confidence",
                        "low_confidence_share"}
    assert row["variant"] == "clean" and row["pages"] == 3
    assert row["word_match"] >= 0.9 and row["labels_recovered"] >= 2 / 3 and row["peak_memory_mb"] > 0
