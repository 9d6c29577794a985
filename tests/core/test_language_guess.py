"""The grammar's language, read from its own title: the seven shared grammars, series lists, qualifiers, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pymupdf
import pytest

from core.catalog.languages import glottocode_for, search_languages
from core.ingest.language import LanguageGuess, identify_language, is_unsure, name_from_title
from tests.fixtures_shared import GRAMMARS, grammar_rows
from tests.pdf_factory import LOREM, BookWriter

SERIES = ["A grammar of Chakali", "A grammar of Moloko", "A grammar of Pite Saami",
          "A dictionary and grammatical sketch of Dagaare"]


def _front_pages(path: Path, n: int = 8) -> list[str]:
    with pymupdf.open(path) as doc:
        return [doc[i].get_text(sort=True) for i in range(min(n, doc.page_count))]


@pytest.mark.parametrize("row", grammar_rows(), ids=lambda r: r["language"])
def test_the_seven_shared_grammars_from_metadata_and_from_the_front_pages_alone(row: dict) -> None:
    path = GRAMMARS / row["file"]
    with pymupdf.open(path) as doc:
        title = doc.metadata.get("title") or ""
    pages = _front_pages(path)
    for guess in (identify_language(title, pages), identify_language("", pages)):
        assert (guess.name, guess.glottocode, guess.confident) == (row["language"], row["glottocode"], True), guess
    assert identify_language(title, pages).source == "pdf-metadata+title-page"
    assert identify_language("", pages).source == "title-page"


def test_all_seven_shared_grammars_are_there() -> None:
    assert len(grammar_rows()) == 7


@pytest.mark.parametrize("title, name, qualifier", [
    ("A grammar of Ulwa (Papua New Guinea)", "Ulwa", "Papua New Guinea"),
    ("The Ik language: Dictionary and grammar sketch", "Ik", ""),
    ("Komnzo: a grammar", "Komnzo", ""),
    ("Moloko grammar", "Moloko", ""),
    ("A sketch of Dagaare", "Dagaare", ""),
    ("A grammar of Iranian Armenian: Parskahayeren or Iranahayeren", "Iranian Armenian", ""),
    ("A grammar of the Ik language", "Ik", ""),
    ("A grammar of\nPite Saami\nJoshua Wilbur", "Pite Saami", ""),
])
def test_title_shapes(title: str, name: str, qualifier: str) -> None:
    assert name_from_title(title) == (name, qualifier)


def test_a_qualifier_is_dropped_from_the_name_but_finds_the_glottocode() -> None:
    guess = identify_language("A grammar of Ulwa (Papua New Guinea)", [])
    assert (guess.name, guess.glottocode, guess.confident) == ("Ulwa", "yaul1241", True)
    assert glottocode_for("Ulwa") == "ulwa1239"  # the other Ulwa (Nicaragua)
    assert glottocode_for("Komnzo") == "wara1294"  # one part of "Anta-Komnzo-Wára-Wérè-Kémä"


def test_titles_that_name_no_language_give_nothing() -> None:
    for title in ("Grammaticalization in the North", "main.pdf", "Microsoft Word - thesis.docx", ""):
        guess = identify_language(title, [])
        assert guess.name is None and not guess.confident and guess.as_language() is None


def test_disagreeing_metadata_and_title_page_is_unsure() -> None:
    guess = identify_language("A grammar of Moloko", ["A grammar of Komnzo\nChristian Döhler"])
    assert guess.name == "Komnzo" and not guess.confident
    assert guess.as_language().source == "unsure:title-page" and is_unsure(guess.as_language())


def test_a_list_of_books_without_a_series_heading_is_never_the_title_page() -> None:
    pages = ["1. Friesen, Dianne. A grammar of Moloko.\n2. Brindle, Jonathan. A grammar of Chakali.", "The Ik language"]
    assert identify_language("", pages).name == "Ik"


def test_language_list_for_the_picker() -> None:
    ulwa = search_languages("ulwa")
    assert [(c.name, c.glottocode) for c in ulwa] == [("Ulwa", "ulwa1239"), ("Ulwa (Papua New Guinea)", "yaul1241")]
    assert search_languages("WARA")[0].name == "Anta-Komnzo-Wára-Wérè-Kémä"  # diacritics ignored
    assert {c.name for c in search_languages("papu1250")} == {"Papuan Malay", "Indonesian (Papuan)"}
    assert len(search_languages("", limit=20)) == 20 and search_languages("zzzzqq") == []


def _series_book(path: Path, *, metadata_title: str) -> Path:
    """A LangSci-like front matter: title page, a series page listing other grammars, imprint, then a chapter."""
    w = BookWriter()
    w.new_page()
    w.heading("The Ik language", size=20)
    w.paragraph("Dictionary and grammar sketch", indent=False)
    w.paragraph("Terrill B. Schrock", indent=False)
    w.new_page()
    w.heading("African Language Grammars and Dictionaries")
    w.paragraph("In this series:", indent=False)
    for n, title in enumerate(SERIES, start=1):
        w.paragraph(f"{n}. Someone, A. {title}.", indent=False)
    w.new_page()
    w.heading("1 Introduction")
    for n in range(3):
        w.paragraph(LOREM + f" Introduction paragraph {n + 1}.")
    w.save(path, title=metadata_title)
    return path


@pytest.mark.parametrize("metadata_title", ["The Ik language: Dictionary and grammar sketch", ""])
def test_ingest_of_a_series_book_names_its_own_language_not_a_series_entry(tmp_path: Path, capsys,
                                                                         metadata_title: str) -> None:
    from cli import main

    pdf = _series_book(tmp_path / "ik.pdf", metadata_title=metadata_title)
    project = tmp_path / "ik.grammarlens"
    assert main(["ingest", str(pdf), "--project", str(project)]) == 0
    out = capsys.readouterr().out
    assert "Ik (ikkk1242" in out and "not identified" not in out
    assert main(["language", str(project), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    expected = "pdf-metadata+title-page" if metadata_title else "title-page"
    assert data == {"name": "Ik", "glottocode": "ikkk1242", "source": expected}


def test_ingest_says_when_the_language_is_not_identified_and_how_to_set_it(tmp_path: Path, capsys) -> None:
    from cli import main

    w = BookWriter()
    w.new_page()
    w.heading("Field notes on verbs")
    for n in range(3):
        w.paragraph(LOREM + f" Paragraph {n + 1}.")
    pdf = w.save(tmp_path / "notes.pdf", title="Field notes")
    project = tmp_path / "n.grammarlens"
    assert main(["ingest", str(pdf), "--project", str(project)]) == 0
    out = capsys.readouterr().out
    assert "The language is not identified" in out and f"language {project} --name NAME --glottocode CODE" in out
    assert main(["language", str(project), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"name": None, "glottocode": None, "source": None}
    assert main(["language", str(project), "--name", "Ulwa", "--glottocode", "yaul1241"]) == 0
    capsys.readouterr()
    assert main(["language", str(project), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"name": "Ulwa", "glottocode": "yaul1241", "source": "user"}


def test_an_unknown_language_from_the_title_is_kept_but_marked_unsure(tmp_path: Path, capsys) -> None:
    from cli import main

    w = BookWriter()
    w.new_page()
    w.heading("A grammar of Teshi", size=20)
    w.paragraph("An invented language", indent=False)
    w.new_page()
    for n in range(3):
        w.paragraph(LOREM + f" Paragraph {n + 1}.")
    pdf = w.save(tmp_path / "teshi.pdf")
    project = tmp_path / "t.grammarlens"
    assert main(["ingest", str(pdf), "--project", str(project)]) == 0
    assert "not surely identified (guessed 'Teshi'" in capsys.readouterr().out
    assert main(["language", str(project), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"name": "Teshi", "glottocode": None, "source": "unsure:title-page"}


def test_guess_record_shape() -> None:
    guess = LanguageGuess("Ik", "ikkk1242", "title-page", True)
    assert guess.as_language().source == "title-page"
