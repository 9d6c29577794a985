"""The metalanguage: a French page read with the French model and with English only; detection; names."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from core.errors import GrammarLensError
from core.ingest.ocr_language import describe, detect_language, normalise_language, script_model, with_script
from core.ingest.page_reading import OcrOptions
from core.ingest.pipeline import ingest
from core.store import create_project
from core.store.repository import list_paragraphs
from tests.fixtures_ocr import rasterise, require_tesseract
from tests.fixtures_shared import GRAMMARS

# Victor Hugo, Les Misérables (1862), tome I, livre I, chapitre 1: in the public domain.
HUGO = (
    "En 1815, M. Charles-François-Bienvenu Myriel était évêque de Digne. C'était un vieillard "
    "d'environ soixante-quinze ans ; il occupait le siège de Digne depuis 1806. Quoique ce détail "
    "ne touche en aucune manière au fond même de ce que nous avons à raconter, il n'est peut-être "
    "pas inutile, ne fût-ce que pour être exact en tout, d'indiquer ici les bruits et les propos "
    "qui avaient couru sur son compte au moment où il était arrivé dans le diocèse. Vrai ou faux, "
    "ce qu'on dit des hommes tient souvent autant de place dans leur vie et surtout dans leur "
    "destinée que ce qu'ils font. M. Myriel était fils d'un conseiller au parlement d'Aix ; "
    "noblesse de robe. On contait que son père, le réservant pour hériter de sa charge, l'avait "
    "marié de fort bonne heure, à dix-huit ou vingt ans, suivant un usage assez répandu dans les "
    "familles parlementaires."
)


def french_page(path: Path) -> Path:
    """One page of French prose typeset in Times (which has every accent), as a born-digital PDF."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=420, height=600)
        page.insert_textbox(pymupdf.Rect(50, 60, 370, 560), HUGO, fontsize=11, fontname="tiro", align=3)
        doc.save(path)
    return path


def _accented_words(text: str) -> set[str]:
    return {w.strip(".,;'") for w in text.split() if any(c in "éèêàùûôîçâë" for c in w)}


def test_a_french_page_reads_better_with_the_french_model_than_with_english_only(tmp_path: Path) -> None:
    require_tesseract("eng", "fra")
    scan = rasterise(french_page(tmp_path / "hugo.pdf"), tmp_path / "hugo-scan.pdf")
    read = {}
    for model in ("fra", "eng"):
        with create_project(tmp_path / f"{model}.grammarlens") as project:
            result = ingest(project, scan, language="French", ocr=OcrOptions(language=model))
            read[model] = " ".join(p.text for p in list_paragraphs(project))
        assert result.ocr is not None and result.ocr.language == model
    truth = _accented_words(HUGO)
    found = {m: len(truth & _accented_words(text)) / len(truth) for m, text in read.items()}
    assert found["fra"] >= 0.9, read["fra"]
    assert found["fra"] > found["eng"] + 0.1, found
    (tmp_path / "side_by_side.txt").write_text(f"fra: {read['fra']}\n\neng: {read['eng']}\n", encoding="utf-8")


def test_the_language_of_a_scan_is_detected_when_not_given(tmp_path: Path) -> None:
    require_tesseract("eng", "fra")
    scan = rasterise(french_page(tmp_path / "hugo.pdf"), tmp_path / "hugo-scan.pdf", dpi=300)
    with create_project(tmp_path / "auto.grammarlens") as project:
        result = ingest(project, scan, language="French")
    assert result.ocr is not None and result.ocr.detected and result.ocr.language == "fra"


@pytest.mark.parametrize(("text", "expected"), [
    ("The order of the subject and the object is fixed in the clause, which is verb-final " * 3, "eng"),
    ("Le sujet et l'objet sont dans la phrase avec le verbe à la fin pour les langues des " * 3, "fra"),
    ("El orden de los constituyentes en la oración es con el verbo al final y se dice que " * 3, "spa"),
    ("Der Satz und die Wortstellung ist nicht frei, das Verb steht mit dem Objekt von " * 3, "deu"),
    ("Порядок слов в предложении и в языке не свободный, это и так " * 3, "rus"),
    ("Urutan kata dalam bahasa ini adalah yang paling umum dan tidak dengan untuk " * 3, "ind"),
    ("ama=ti kalu-ni sepo-ra", None),
])
def test_function_words_tell_the_metalanguage(text: str, expected: str | None) -> None:
    assert detect_language([text]) == expected


def test_language_names_are_normalised_and_unknown_ones_refused() -> None:
    assert normalise_language("French") == "fra"
    assert normalise_language("spa+English") == "spa+eng"
    assert describe("spa+eng") == "Spanish + English (spa+eng)"
    assert normalise_language("IPA") == normalise_language("latin") == "Latin"  # Tesseract's Latin-script model
    assert describe("Latin") == "Latin script (Latin)" and normalise_language("Armenian") == "hye"
    with pytest.raises(GrammarLensError) as info:
        normalise_language("Klingon!")
    assert "fra (French)" in info.value.hint


def test_the_described_languages_own_script_is_read_with_its_model(tmp_path: Path) -> None:
    """A page of Iranian Armenian demonstratives (Armenian script beside IPA), scanned: the book's name adds
    the Armenian model to the detected English, and the Armenian-script forms come back; English alone
    turns them into Latin noise."""
    require_tesseract("eng", "hye")
    scan = rasterise(GRAMMARS / "354_Iranian_Armenian.pdf", tmp_path / "354_Iranian_Armenian-scan.pdf", pages=[95])
    armenian = {}
    for name, options in (("auto", OcrOptions()), ("eng", OcrOptions(language="eng"))):
        with create_project(tmp_path / f"{name}.grammarlens") as project:
            result = ingest(project, scan, language="Iranian Armenian", ocr=options)
            text = " ".join(p.text for p in list_paragraphs(project))
        armenian[name] = sum(1 for c in text if "\u0531" <= c <= "\u058f")
        assert result.ocr is not None and result.ocr.language == ("eng+hye" if name == "auto" else "eng")
    assert armenian["auto"] >= 100 and armenian["eng"] == 0, armenian


def test_the_script_model_comes_from_the_described_language_and_is_added_only_when_installed() -> None:
    assert script_model(["", "", "354_Iranian_Armenian"]) == "hye"
    assert script_model(["Iranian Armenian"]) == "hye" and script_model(["Kurdish"], "nucl1235") == "hye"
    assert script_model(["Moloko", "A grammar of Moloko", "118_Moloko"]) is None
    assert with_script("eng", "hye", frozenset({"eng", "hye"})) == "eng+hye"
    assert with_script("eng", "hye", frozenset({"eng"})) == "eng"  # not installed: read as before
    assert with_script("eng+hye", "hye", frozenset({"eng", "hye"})) == "eng+hye"
    assert describe("eng+hye") == "English + Armenian (eng+hye)"
