"""BibTeX entries made from PDF metadata: valid author fields whatever the metadata says (issue 19).

The oracle is pycldf's own path: simplepybtex parses the entry (``Dataset.add_sources``), pycldf's
``Writer`` writes ``sources.bib`` and simplepybtex reads it back (``Dataset.validate``).
"""

from __future__ import annotations

import io
import random

import pytest
from simplepybtex.database import parse_string

from core.errors import GrammarLensError
from core.export import get_bibtex, set_bibtex
from core.export.bibtex import check_bibtex, entry_from_metadata, export_source
from core.export.bibtex_names import author_field, field_text

# (metadata author, author field): shapes seen in real PDFs and in library records
SHAPES = [
    ("Dianne Friesen, with Mana Djeme Isaac, Ali Gaston, and Mana Samuel",  # Moloko (LangSci 2017)
     "Friesen, Dianne and Isaac, Mana Djeme and Gaston, Ali and Samuel, Mana"),
    ("Mark Ali and Scott Grimm and Adams Bodomo", "Ali, Mark and Grimm, Scott and Bodomo, Adams"),  # Dagaare
    ("Joshua Wilbur", "Wilbur, Joshua"),  # Pite Saami
    ("Christian Döhler", "Döhler, Christian"),  # Komnzo
    ("Wilbur, Joshua", "Wilbur, Joshua"),
    ("Wilbur, Joshua and Kluge, Angela", "Wilbur, Joshua and Kluge, Angela"),
    ("Wilbur, Joshua; Kluge, Angela", "Wilbur, Joshua and Kluge, Angela"),
    ("Wilbur, Joshua, Kluge, Angela", "Wilbur, Joshua and Kluge, Angela"),
    ("Friesen, Dianne, Isaac, Mana Djeme", "Friesen, Dianne and Isaac, Mana Djeme"),
    ("Joshua Wilbur, Angela Kluge", "Wilbur, Joshua and Kluge, Angela"),
    ("Joshua Wilbur, Angela Kluge, Mark Ali", "Wilbur, Joshua and Kluge, Angela and Ali, Mark"),
    ("Joshua Wilbur & Angela Kluge", "Wilbur, Joshua and Kluge, Angela"),
    ("Dolatian, H. & Vaux, B.", "Dolatian, H. and Vaux, B."),
    ("Dianne Friesen; with Mana Samuel", "Friesen, Dianne and Samuel, Mana"),
    ("J. Wilbur et al.", "Wilbur, J. and others"),
    ("Wilbur, Joshua, et al", "Wilbur, Joshua and others"),
    ("Joshua Wilbur and others", "Wilbur, Joshua and others"),
    ("Jean-Pierre Dupont et Marie Curie", "Dupont, Jean-Pierre and Curie, Marie"),
    ("Jan van der Berg", "van der Berg, Jan"),
    ("van der Berg, Jan", "van der Berg, Jan"),
    ("de Gaulle", "de Gaulle"),
    ("Martin Luther King Jr.", "King, Jr., Martin Luther"),
    ("Martin Luther King, Jr.", "King, Jr., Martin Luther"),
    ("Smith, John, III", "Smith, III, John"),
    ("Angela Kluge (ed.)", "Kluge, Angela"),
    ("Aristotle", "Aristotle"),
    ("王小明", "王小明"),
    ("Иван Петров", "Петров, Иван"),
    ("O'Brien, Flann", "O'Brien, Flann"),
    ("Christian D{\\\"o}hler", "D{\\\"o}hler, Christian"),  # LaTeX accents kept in their braces
    ("Language Science Press", "{Language Science Press}"),
    ("SIL International", "{SIL International}"),
    ("Language Science Press and SIL International", "{Language Science Press} and {SIL International}"),
    ("The Linguistic Society of America", "{The Linguistic Society of America}"),
    ("{World Health Organization}", "{World Health Organization}"),
    ("{Smith & Sons} and Jane Doe", "{Smith \\& Sons} and Doe, Jane"),
    ("LaTeX with hyperref", "{LaTeX with hyperref}"),  # a tool, not two people
    ("user", "{user}"),
    ("a % b # c", "{a \\% b \\# c}"),
    ("Joshua\nWilbur\tand  Angela Kluge", "Wilbur, Joshua and Kluge, Angela"),
    ("Mana\x00Samuel", "Samuel, Mana"),
    ("😀 Emoji", "{😀 Emoji}"),
    ("Bad\udcffname", "{Bad\ufffdname}"),  # a lone surrogate cannot be written as UTF-8
    ("Smith }{ Jones", "Jones, Smith"),  # braces that do not balance are dropped
    ("", ""),
    ("   ", ""),
]


def _persons(field: str) -> list[str]:
    entry = parse_string(f"@book{{k,\n  author = {{{field}}},\n  title = {{T}}\n}}\n", bib_format="bibtex").entries["k"]
    return [str(p) for p in entry.persons.get("author", [])]


def _through_pycldf(text: str) -> tuple[str, dict]:
    """What a CLDF export does with an entry: add it (parse), write sources.bib, read that back."""
    from pycldf.sources import Sources, Writer

    sources = Sources()
    sources.add(text)
    out = io.StringIO()
    Writer().write_stream(sources._bibdata, out)
    back = parse_string(out.getvalue(), bib_format="bibtex")
    (key, entry), = back.entries.items()
    return key, {role: [str(p) for p in people] for role, people in entry.persons.items()}


@pytest.mark.parametrize(("raw", "expected"), SHAPES)
def test_author_field_parses_people_and_protects_the_rest(raw: str, expected: str) -> None:
    field = author_field(raw)
    assert field == expected
    if field:
        assert len(_persons(field)) == field.count(" and ") + 1  # BibTeX reads as many names as we wrote


def test_moloko_metadata_gives_an_entry_pycldf_reads_writes_and_reads_back() -> None:
    text = entry_from_metadata("A grammar of Moloko", SHAPES[0][0], "2017")
    assert text.startswith("@book{friesen2017,")
    key, persons = _through_pycldf(text)
    assert key == "friesen2017"
    assert persons["author"] == ["Friesen, Dianne", "Isaac, Mana Djeme", "Gaston, Ali", "Samuel, Mana"]


PIECES = ["Dianne", "Friesen", "Mana", "Djeme", "Isaac", "van", "der", "de", "Jr.", "III", "J.", "J.-P.", "O'Brien",
          "Döhler", "王小明", "Петров", "محمد", "😀", "Press", "SIL", "University", "et al.", "and", "with", "&", ";",
          ",", " , ", "{", "}", "{Corp}", "\\", "\\&", "%", "$", "#", "_", "^", "~", "@", '"', "'", "(ed.)", "\n", "\t",
          "\x00", "\x1b", "\ud800", "\udcff", "\u2028", "\ufeff", "others", "and others", "=", "@book{x,", "}}", "{{",
          "D{\\\"o}hler", "\\textbf{", "%}", "\\}"]


def _metadata(rng: random.Random) -> str:
    text = " ".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14)))
    return text if rng.random() < 0.7 else text.replace(" ", rng.choice(["", ",", " and ", ";"]))


def test_random_metadata_always_gives_an_entry_that_round_trips() -> None:
    rng = random.Random(1919)
    for _ in range(1500):
        author, title = _metadata(rng), _metadata(rng)
        text = entry_from_metadata(title, author, rng.choice(["", "2017", "20x7"]), rng.choice(["", "teshi_grammar"]))
        assert check_bibtex(text) == text
        key, persons = _through_pycldf(text)
        field = author_field(author)
        assert persons.get("author", []) == (_persons(field) if field else []), (author, text)
        assert key.isascii() and key.isalnum()


def test_field_text_is_safe_inside_braces() -> None:
    assert field_text("A grammar of Teshi {draft") == "A grammar of Teshi draft"
    assert field_text("Tom & Jerry: 50% of #1 $ _x") == "Tom \\& Jerry: 50\\% of \\#1 \\$ \\_x"
    assert field_text("already \\& escaped") == "already \\& escaped"
    assert field_text("two\nlines\x00\ud800") == "two lines \ufffd"


@pytest.mark.parametrize("text", [
    "@book{a;b, title={x}}", "@book{a[1], title={x}}", "@book{k, title={unclosed",
    "@book{k, author={A, B, C, D}, title={t}}", "@book{a, title={x}}\n@book{b, title={y}}", "@book{k, title={\ud800}}",
    "no entry"])
def test_check_bibtex_refuses_what_an_export_could_not_use(text: str) -> None:
    with pytest.raises(GrammarLensError) as err:
        check_bibtex(text)
    assert err.value.hint


def test_a_stored_entry_that_does_not_parse_is_generated_again(llm_project) -> None:
    """An older GrammarLens stored Moloko's generated entry unchecked; it is replaced on next use."""
    project = llm_project.project
    broken = "@book{friesen2017,\n  author = {Dianne Friesen, with Mana Djeme Isaac, Ali Gaston, and Mana Samuel},\n}\n"
    project.conn.execute("UPDATE documents SET bibtex = ?", (broken,))
    project.conn.commit()
    text = get_bibtex(project)
    assert text != broken and check_bibtex(text) == text
    assert get_bibtex(project) == text  # stored


def test_export_source_makes_an_old_stored_key_citable(llm_project) -> None:
    project = llm_project.project
    project.conn.execute("UPDATE documents SET bibtex = ?",
                         ("@book{doe;2020,\n  author = {Doe, Jane},\n  publisher = {P},\n  title = {T}\n}\n",))
    project.conn.commit()
    source = export_source(project)
    assert source.key == "doe_2020" and "publisher = {P}" in source.bibtex
    assert len(source.warnings) == 1 and "doe;2020" in source.warnings[0]
    assert set_bibtex(project, "@misc{doe:2020, title = {T}}").startswith("@misc{doe:2020")  # ':' is fine
    assert export_source(project) == ("@misc{doe:2020, title = {T}}\n", "doe:2020", ())
