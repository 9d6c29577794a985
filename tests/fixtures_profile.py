"""Fixtures of the profile/export area: the Iranian Armenian grammar ingested once, canned answers.

``armenian_project`` copies a module-wide ingest of ../shared/grammars/354_Iranian_Armenian.pdf
(228 pages, about 1 s) into a fresh file per test.  ``canned_answers`` scripts the local
OpenAI-compatible server with one answer per feature of :data:`PROFILE_FEATURES`; every answer
cites prompt paragraphs 1 and 2 so that values carry pages.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

GRAMMARS = Path(__file__).resolve().parent.parent.parent / "shared" / "grammars"  # as in fixtures_shared
ARMENIAN_PDF = GRAMMARS / "354_Iranian_Armenian.pdf"
ARMENIAN_GLOTTOCODE = "nucl1235"
ARMENIAN_PRINTED_1 = 13  # PDF page of printed page 1 (grammars.csv)
EXTRA_GRAMBANK = ("GB020", "GB021", "GB022", "GB023", "GB026", "GB027", "GB028", "GB030")  # binary features
PROFILE_FEATURES = ("81A", "49A", "GB107", "116A*") + EXTRA_GRAMBANK  # 12 features, 18 values

# (text in the prompt, canned value): the paper's features by their questions, Grambank by name.
CANNED: list[tuple[str, object]] = [
    ("dominant word order (order of subject", "SOV"),
    ("number of cases in the language", "5 cases"),
    ("standard negation in the language", "1"),
    ("strategies for forming polar questions", {"Interrogative intonation only": "1"}),
]


@pytest.fixture(scope="module")
def _armenian_master(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from core.ingest import ingest
    from core.store import open_project

    path = tmp_path_factory.mktemp("armenian") / "master.grammarlens"
    with open_project(path, create=True) as project:
        ingest(project, ARMENIAN_PDF)
    return path


@pytest.fixture
def armenian_project(_armenian_master: Path, tmp_path: Path) -> Path:
    target = tmp_path / "armenian.grammarlens"
    shutil.copy(_armenian_master, target)
    return target


@pytest.fixture
def canned_answers(llm_server):
    from core.catalog import load_catalog

    catalog = load_catalog()
    for text, value in CANNED:
        llm_server.add_rule(text, value, cite=[1, 2])
    for i, fid in enumerate(EXTRA_GRAMBANK):
        llm_server.add_rule(catalog.get(fid).name, "present" if i % 2 else "absent", cite=[1, 2])
    return llm_server
