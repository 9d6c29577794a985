"""B's pins as pins of A's project: the same paragraph of the same book, for a resolution that takes B's value.

A paragraph is found in A by its book's PDF sha256, its printed page and its text; failing that, the
printed page alone when A's book has it.  Both files are only read (read-only opens).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import GrammarLensError
from core.store.database import ProjectDatabase

if TYPE_CHECKING:  # the records only: core.sample.coders calls map_pins after a comparison
    from core.sample.coders import CoderValue, Disagreement


def map_pins(a_path: Path, b_path: Path, disagreements: Sequence[Disagreement]) -> list[Disagreement]:
    """The disagreements with B's pins translated into pins of A's project (read-only reads of both)."""
    from dataclasses import replace

    from core.store import open_project

    wanted = {pid for d in disagreements for pid in d.b.paragraph_ids}
    page_only = {(d.feature_id, label) for d in disagreements for label in _page_only(d.b)}
    with open_project(b_path, readonly=True) as b:
        b_paragraphs, b_books = _paragraphs_and_books(b, wanted)
    with open_project(a_path, readonly=True) as a:
        found = _find_in_a(a, b_paragraphs, b_books)
        out = []
        for d in disagreements:
            pins = [found[pid] for pid in d.b.paragraph_ids if pid in found]
            pins += [_page_pin(a, label) for (fid, label) in sorted(page_only) if fid == d.feature_id]
            out.append(replace(d, b_pins_for_a=tuple(dict.fromkeys(p for p in pins if p is not None))))
    return out


def _page_only(v: CoderValue) -> list[str]:
    """Pages pinned without a paragraph: CoderValue keeps page labels of all pins, so drop those of paragraphs."""
    return [] if v.paragraph_ids else list(v.page_labels)


def _paragraphs_and_books(project: ProjectDatabase, ids: set[int]) -> tuple[dict, dict]:
    from core.store.repository import get_paragraphs, list_documents

    books = {d.id: d.sha256 for d in list_documents(project)}
    return {p.id: p for p in get_paragraphs(project, sorted(ids))}, books


def _find_in_a(a: ProjectDatabase, b_paragraphs: dict, b_books: dict) -> dict:
    """B paragraph id -> a Pin of A: the same paragraph (book by sha256, page and text), else the page alone."""
    from core import coding
    from core.store.repository import get_paragraphs, list_documents, list_paragraphs

    a_books = {d.sha256: d.id for d in list_documents(a)}
    same_id = {p.id: p for p in get_paragraphs(a, list(b_paragraphs))}
    out: dict = {}
    scanned: dict[int, dict] = {}
    for pid, p in b_paragraphs.items():
        doc = a_books.get(b_books.get(p.document_id, ""))
        if doc is None:
            continue
        mine = same_id.get(pid)
        if mine is None or mine.document_id != doc or mine.text != p.text:
            if doc not in scanned:
                scanned[doc] = {(q.page_label, q.text): q for q in list_paragraphs(a, doc)}
            mine = scanned[doc].get((p.page_label, p.text))
        if mine is not None:
            out[pid] = coding.Pin(page_label=mine.page_label, paragraph_id=mine.id, document_id=mine.document_id)
        else:
            out[pid] = _page_pin(a, p.page_label)
    return out


def _page_pin(a: ProjectDatabase, label: str):
    from core import coding

    try:
        return coding.make_pins(a, (), [label])[0]
    except GrammarLensError:  # A's book has no such printed page: the pin stays recorded in the note only
        return None
