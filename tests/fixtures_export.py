"""Fixtures of the export robustness tests: a real small project whose PDF says awkward things.

``odd_book_project`` copies a module-wide ingest of the generated sample grammar
(:func:`tests.fixtures_ingest.write_sample_book`), re-saved with what real PDFs carry and exports
must survive: page labels with ";" and "[ ]" in their prefixes ("F;i", "[A]1"), an unbalanced
brace in the title and Moloko's author line ("Dianne Friesen, with Mana Djeme Isaac, Ali Gaston,
and Mana Samuel", which BibTeX read as one name with too many commas).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

MOLOKO_AUTHORS = "Dianne Friesen, with Mana Djeme Isaac, Ali Gaston, and Mana Samuel"
ODD_LABELS = [{"startpage": 0, "prefix": "F;", "style": "r", "firstpagenum": 1},
              {"startpage": 2, "prefix": "[A]", "style": "D", "firstpagenum": 1}]


def write_odd_book(path: Path) -> Path:
    import pymupdf

    from tests.fixtures_ingest import write_sample_book

    plain = write_sample_book(path.with_name(path.stem + "-plain.pdf")).path
    with pymupdf.open(plain) as doc:
        doc.set_page_labels(ODD_LABELS)
        doc.set_metadata({"title": "A grammar of Teshi {draft", "author": MOLOKO_AUTHORS,
                          "creationDate": "D:20260102120000+01'00'"})
        doc.save(path)
    return path


@pytest.fixture(scope="module")
def _odd_book_master(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from core.ingest import ingest
    from core.store import open_project

    folder = tmp_path_factory.mktemp("odd_book")
    pdf = write_odd_book(folder / "teshi-odd.pdf")
    path = folder / "master.grammarlens"
    with open_project(path, create=True) as project:
        ingest(project, pdf)
    return path


@pytest.fixture
def odd_book_project(_odd_book_master: Path, tmp_path: Path) -> Path:
    target = tmp_path / "odd.grammarlens"
    shutil.copy(_odd_book_master, target)
    return target
