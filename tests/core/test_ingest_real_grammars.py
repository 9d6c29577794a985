"""Ingestion checked on the seven real grammars in ../shared/grammars (Language Science Press).

The checks derive their truth from the PDFs themselves (page labels, PyMuPDF's own lines), not
from numbers written into the test.  One ingest per grammar is shared by the module.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pymupdf
import pytest

from core.ingest import ingest
from core.ingest.page_reading import TEXT_FLAGS
from core.models import LabelSource, Paragraph, ParagraphKind
from core.store import open_project
from core.store.repository import list_paragraphs
from tests.fixtures_shared import GRAMMARS, grammar_rows

pytestmark = pytest.mark.slow

ROWS = grammar_rows()
FILES = [r["file"] for r in ROWS]
STANDALONE_NUMBER = re.compile(r"^\((\d{1,4}[a-z]?)\)$")
# dictionaries with a grammatical sketch: few numbered examples, sense numbers inside entries
DICTIONARIES = {"074_Chakali.pdf", "245_Dagaare.pdf"}
TOP_BAND, BOTTOM_BAND = 0.095, 0.92  # where LangSci running heads and feet stand on these pages


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Paragraph]]:
    folder = tmp_path_factory.mktemp("real")
    out = {}
    for name in FILES:
        with open_project(folder / f"{name}.grammarlens", create=True) as project:
            ingest(project, GRAMMARS / name)
            out[name] = list_paragraphs(project)
    return out


def _furniture_lines(page: pymupdf.Page) -> list[tuple[pymupdf.Rect, str]]:
    height = page.rect.height
    out = []
    for block in page.get_text("dict", flags=TEXT_FLAGS)["blocks"]:
        for line in block.get("lines", []):
            text = "".join(s["text"] for s in line["spans"]).strip()
            box = pymupdf.Rect(line["bbox"])
            in_band = box.y1 < TOP_BAND * height or box.y0 > BOTTOM_BAND * height
            if text and tuple(line["dir"]) == (1.0, 0.0) and in_band:
                out.append((box, text))
    return out


def test_the_shared_grammars_are_there() -> None:
    assert len(FILES) == 7, "../shared/grammars/grammars.csv must list the seven grammars"


@pytest.mark.parametrize("name", FILES)
def test_every_page_label_equals_the_pdfs_own_label(ingested: dict, name: str) -> None:
    with pymupdf.open(GRAMMARS / name) as doc:
        for p in ingested[name]:
            assert p.page_label == doc[p.pdf_page - 1].get_label(), (p.pdf_page, p.text[:60])
            assert p.label_source is LabelSource.PDF_LABELS


@pytest.mark.parametrize("name", FILES)
def test_printed_numbers_read_from_heads_match_the_labels(name: str, tmp_path: Path) -> None:
    copy = tmp_path / name
    with pymupdf.open(GRAMMARS / name) as doc:
        original = [page.get_label() for page in doc]
        printing = {  # pages whose head or foot prints their label as a number of its own
            page.number + 1 for page in doc
            if any(text == original[page.number] or text.split()[0] == original[page.number]
                   or text.split()[-1] == original[page.number] for _, text in _furniture_lines(page))
        }
        doc.set_page_labels([])
        doc.save(copy)
    with open_project(tmp_path / "p.grammarlens", create=True) as project:
        ingest(project, copy)
        pages = dict(project.conn.execute("SELECT pdf_page, page_label FROM pages").fetchall())
        sources = {r[0] for r in project.conn.execute("SELECT DISTINCT label_source FROM pages")}
    assert LabelSource.PDF_LABELS.value not in sources
    assert len(printing) > 0.6 * len(original)
    agree = sum(1 for n in printing if pages[n] == original[n - 1])
    assert agree / len(printing) >= 0.98, f"{agree}/{len(printing)}"


@pytest.mark.parametrize("name", FILES)
def test_no_paragraph_holds_a_running_head_or_a_bare_page_number(ingested: dict, name: str) -> None:
    """Heads/feet here: lines in the top/bottom bands that recur on 3+ pages or print the page's label."""
    by_page: dict[int, list[Paragraph]] = defaultdict(list)
    for p in ingested[name]:
        for r in p.rects:
            by_page[r.pdf_page].append(p)
        assert p.text.strip() != p.page_label, f"bare page number on p.{p.pdf_page}"
    with pymupdf.open(GRAMMARS / name) as doc:
        bands = {page.number: (_furniture_lines(page), page.get_label()) for page in doc}
    recurring = defaultdict(set)
    for number, (lines, _) in bands.items():
        for _, text in lines:
            recurring[re.sub(r"\d+", "#", text)].add(number)
    checked = 0
    for number, (lines, label) in bands.items():
        for box, text in lines:
            if text != label and len(recurring[re.sub(r"\d+", "#", text)]) < 3:
                continue
            checked += 1
            for p in by_page[number + 1]:
                for r in p.rects:
                    if r.pdf_page == number + 1:
                        overlap = pymupdf.Rect(r.x0, r.y0, r.x1, r.y1) & box
                        assert overlap.is_empty or overlap.height < 2, (number + 1, text, p.text[:80])
    assert checked > 0.5 * len(bands)


@pytest.mark.parametrize("name", FILES)
def test_every_numbered_example_holds_its_gloss_and_translation(ingested: dict, name: str) -> None:
    examples_by_page: dict[int, list[Paragraph]] = defaultdict(list)
    for p in ingested[name]:
        if p.kind is ParagraphKind.EXAMPLE:
            for r in p.rects:
                examples_by_page[r.pdf_page].append(p)
    checked = 0
    with pymupdf.open(GRAMMARS / name) as doc:
        for page in doc:
            lines = [
                (pymupdf.Rect(line["bbox"]), "".join(s["text"] for s in line["spans"]).strip())
                for block in page.get_text("dict", flags=TEXT_FLAGS)["blocks"] for line in block.get("lines", [])
            ]
            for box, text in lines:
                match = STANDALONE_NUMBER.match(text)
                if not match or box.y1 > BOTTOM_BAND * page.rect.height:
                    continue
                if any(b.x1 <= box.x0 and min(b.y1, box.y1) - max(b.y0, box.y0) > 0.5 * box.height for b, _ in lines):
                    continue  # text stands left of it on the same line: it does not start the line
                owner = [
                    p for p in examples_by_page[page.number + 1]
                    if p.example_number == match.group(1)
                    and any(r.pdf_page == page.number + 1 and r.y0 - 1 <= box.y0 and box.y1 <= r.y1 + 1
                            for r in p.rects)
                ]
                assert owner, f"p.{page.number + 1}: example {text} is not the start of an example paragraph"
                example = owner[0]
                assert example.text.startswith(text)
                # its translation: the first quoted line printed below the number, within 5 lines
                next_number = min((b.y0 for b, t in lines if STANDALONE_NUMBER.match(t) and b.y0 > box.y0 + 1),
                                  default=page.rect.height)
                last_y0 = min(next_number - 0.5 * box.height, box.y0 + 6 * box.height)
                below = sorted((b.y0, t) for b, t in lines if box.y0 + 1 < b.y0 < last_y0 and b.x0 > box.x1 - 1)
                quoted = next((t for _, t in below if t[:1] in "‘'“\""), None)
                if quoted:
                    assert quoted in example.text, f"p.{page.number + 1} {text}: {quoted!r} not in example"
                checked += 1
    if name not in DICTIONARIES:
        assert checked >= 50, f"only {checked} numbered examples found"


@pytest.mark.parametrize("name", FILES)
def test_paragraphs_account_for_nearly_all_text_outside_heads_and_feet(ingested: dict, name: str) -> None:
    with pymupdf.open(GRAMMARS / name) as doc:
        total = 0
        for page in doc:
            furniture = sum(len(re.sub(r"\s", "", t)) for _, t in _furniture_lines(page))
            everything = len(re.sub(r"\s", "", page.get_text("text", flags=TEXT_FLAGS)))
            total += everything - furniture
    ours = sum(len(re.sub(r"\s", "", p.text)) for p in ingested[name])
    assert ours / total >= 0.97, f"{ours}/{total}"


@pytest.mark.parametrize("name", FILES)
def test_sections_and_kinds_are_filled(ingested: dict, name: str) -> None:
    paragraphs = ingested[name]
    kinds = {p.kind for p in paragraphs}
    assert {ParagraphKind.PROSE, ParagraphKind.HEADING} <= kinds
    with pymupdf.open(GRAMMARS / name) as doc:
        outline = [title for _, title, _ in doc.get_toc()]
    if any(re.fullmatch(r"(\d+\s+)?(references|bibliography)", t.strip(), re.I) for t in outline):
        assert ParagraphKind.BIBLIOGRAPHY in kinds
    if any(re.search(r"\bindex\b", t, re.I) for t in outline):
        assert ParagraphKind.INDEX in kinds
    with_section = sum(1 for p in paragraphs if p.section)
    assert with_section / len(paragraphs) > 0.9


@pytest.mark.parametrize("name", FILES)
def test_dictionary_entries_stand_alone_and_only_in_dictionaries(ingested: dict, name: str) -> None:
    """Each entry of the two dictionaries is a paragraph of its own (Chakali's are set without indents
    and were glued into one paragraph per column); the five grammars have no entry paragraphs at all."""
    entries = [p for p in ingested[name] if p.kind is ParagraphKind.ENTRY]
    if name not in DICTIONARIES:
        assert entries == []
        return
    assert len(entries) > 0.6 * sum(1 for p in ingested[name] if p.kind in (ParagraphKind.ENTRY, ParagraphKind.PROSE))
    # an entry paragraph holds one entry: a second "headword [pronunciation] pos." start is rare
    entry_start = re.compile(r"(?:^|\. )\d?[^\s\[\]•]+ \[[^\]]{1,40}\] (?:n|v|adj|adv)\.")
    glued = [p for p in entries if len(entry_start.findall(p.text)) > 1]
    assert len(glued) < 0.02 * len(entries), [p.text[:120] for p in glued[:5]]
