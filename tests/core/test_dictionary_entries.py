"""Dictionary entries: recognised, kept one to a paragraph, and found by what they define.

A field dictionary's entry ("a [à] def. art. the • A bie kpɛ la a die.") decides a feature as
surely as a sentence of prose.  These tests read entries in the common layouts, build a small
dictionary PDF set without indents (each entry flush left, as the Chakali dictionary is), ingest
it, and rank a project whose entries' example translations are full of the feature's words.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from core.catalog import load_catalog
from core.ingest import ingest
from core.ingest.entries import expand_abbreviations, parse_entry, starts_entry
from core.models import ParagraphKind
from core.retrieval.pipeline import retrieve, vocabulary_text
from core.retrieval.settings import RetrievalSettings
from core.store import create_project, open_project
from core.store.repository import list_paragraphs
from tests.fixtures_retrieval import build_project


@pytest.mark.parametrize("text, headword, pos, definition", [
    ("a [à] def. art. the • A bie kpɛ la a die.", "a", "def. art.", "definite article the"),
    ("1a [à] art. the • à bʊ̃́ʊ̃́ná tʃɪ́ɛ́ŋɪ̃̀ à vìí.", "a", "art.", "article the"),
    ("3dɪ [dɪ] pv. imperfective particle • sɪ́gá rá ʊ̀ dɪ̀ tíè.", "dɪ", "pv.", "preverbal particle imperfective particle"),
    ("abɛ [ʔàbɛ́] n. type of oil-palm tree Syn: benie (Elaeis guineensis). pl. abɛsa.", "abɛ", "n.",
     "noun type of oil-palm tree plural form"),
    ("baalugiri [bààlùgìrí] n. armpit sg: baalugiruu pl: baalugo 2pl: baalugiree", "baalugiri", "n.",
     "noun armpit plural form"),
    ("abie [ábìē] Cf: awie nprop. Awie (person’s name). [Ka].", "abie", "nprop.", "proper noun Awie (person’s name)"),
    ("poɔ [pʊ́ɔ́] post. (1) in, inside • Ka diibuŋ be fo noɔre poɔ.", "poɔ", "post.", "postposition (1) in, inside"),
    ("kúlù /kúlù/ n. dog", "kúlù", "n.", "noun dog"),
])
def test_entries_are_read_in_the_common_layouts(text: str, headword: str, pos: str, definition: str) -> None:
    entry = parse_entry(text)
    assert entry is not None and (entry.headword, entry.part_of_speech, entry.definition) == (headword, pos, definition)


@pytest.mark.parametrize("text", [
    "The vowel [a] is realised as [ə] before nasal consonants in unstressed syllables.",
    "the negative (see Section 10.2.1), and adverbs which are bound to the verb",
    "In Moloko the verb stem is the core of the clause.",
    "(12) a. Ma-dò kúlù. 'The dog did not go.'",
])
def test_prose_lines_are_not_entries(text: str) -> None:
    assert not starts_entry(text)


def test_cross_references_and_bold_headwords_open_entries() -> None:
    assert starts_entry("abluu (var. of bluu)")
    entry = parse_entry("kolopa vt. to fold, to bend", bold_headword=True)
    assert entry.definition == "transitive verb to fold, to bend"
    assert parse_entry("kolopa vt. to fold, to bend") is None  # without bold or pronunciation it is prose
    assert expand_abbreviations("pl.v.") == "plural verb"


ENTRIES = [
    "a [à] def. art. the • A bie kpe la a die. The child entered the house.",
    "bie [bíé] n. child • A bie kpe la. The child entered. pl. biiri.",
    "die [díé] n. house, room • A die zage. The house is empty. pl. dieri.",
    "kpe [kpé] v. to enter • O kpe la a die. She entered the house; it was definitely the article she wanted.",
    "zage [zàgé] adj. empty • A die zage la. The house is empty.",
    "la [là] part. focus particle • Ona la na gaa. She is the one who will go.",
]


def _write_flush_left_dictionary(path: Path) -> Path:
    """A grammar paragraph, then the entries flush left with a little space between them (no indents)."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    font = pymupdf.Font("tiro")
    page.insert_font(fontname="F0", fontbuffer=font.buffer)
    y = 80.0

    def line(text: str) -> None:
        nonlocal y
        page.insert_text((72, y), text, fontsize=10, fontname="F0")
        y += 13

    for text in ["This sketch describes the noun phrase of the language, whose articles follow the noun",
                 "and whose demonstratives come last, and the clause, whose basic order is subject,",
                 "verb and object."]:
        line(text)
    y += 16
    for entry in ENTRIES:
        words, current = entry.split(), ""
        for word in words:  # wrap at 60 characters: continuation lines flush left as well
            if len(current) + len(word) > 60:
                line(current)
                current = word
            else:
                current = f"{current} {word}".strip()
        line(current)
        y += 4
    doc.save(path)
    doc.close()
    return path


def test_a_dictionary_set_without_indents_ingests_one_entry_per_paragraph(tmp_path: Path) -> None:
    pdf = _write_flush_left_dictionary(tmp_path / "dictionary.pdf")
    with create_project(tmp_path / "d.grammarlens") as project:
        ingest(project, pdf)
        paragraphs = list_paragraphs(project)
    entries = [p for p in paragraphs if p.kind is ParagraphKind.ENTRY]
    assert [p.text for p in entries] == ENTRIES
    assert [p.kind for p in paragraphs if p.text.startswith("This sketch")] == [ParagraphKind.PROSE]


def test_an_entry_is_found_by_its_definition_not_by_its_examples(tmp_path: Path) -> None:
    """GB020 (articles): the article's entry ranks first, though other entries' translations say
    "the", "definitely" and "article"; an entry's vocabulary text is its definition."""
    path = build_project(tmp_path / "dict.grammarlens",
                         [("Dictionary", ParagraphKind.ENTRY, text) for text in reversed(ENTRIES)])
    gb020 = load_catalog().get("GB020")
    settings = RetrievalSettings(reranker=None)
    with open_project(path) as project:
        hits = retrieve(project, gb020, settings)
        assert vocabulary_text(hits[0].paragraph) == "definite article the"
    assert hits[0].paragraph.text == ENTRIES[0]
    assert hits[0].signals["vocabulary"] > 0 and all(h.signals["vocabulary"] == 0 for h in hits[1:])
