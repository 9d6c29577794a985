"""Fixtures of the sample area (issue 22): real projects of real grammars, coded through core's API.

``seven_grammar_projects`` ingests each of the seven shared grammars (../shared/grammars) once per
session (about 10-30 s in all on two cores) with its language and Glottocode from grammars.csv,
and codes the eight Grambank features of ``../shared/cldf/grambank/values_subset.csv`` plus WALS
81A with seeded values, so the sample commands have decided values, "?" and uncoded features.
Tests copy the folder before changing anything.  ``demo_master`` is the demo grammar ingested
once per module (a second or so), for tests that need a small project to code.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

SAMPLE_FEATURES = ("GB107", "GB257", "GB260", "GB262", "GB263", "GB264", "GB286", "GB291")


def code_values(path: Path, values: dict[str, str], reviewer: str) -> None:
    """Code ``values`` (feature -> value) in the project at ``path`` as ``reviewer``, one transaction."""
    from core import coding
    from core.store import open_project

    with open_project(path, backup=False) as project, project.transaction():
        for fid, value in values.items():
            coding.code(project, fid, value, reviewer=reviewer)


@pytest.fixture(scope="session")
def seven_grammar_projects(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with one project per shared grammar (language and Glottocode set, some values coded)."""
    from core.ingest import ingest
    from core.store import open_project
    from tests.fixtures_shared import GRAMMARS, grammar_rows  # here, not at import: pytest loads it as a plugin

    rows = grammar_rows()
    if len(rows) < 7:
        pytest.fail(f"{GRAMMARS} should hold the seven shared grammars and grammars.csv")
    folder = tmp_path_factory.mktemp("seven_grammars")
    rng = random.Random(22)
    for row in rows:
        path = folder / f"{Path(row['file']).stem}.grammarlens"
        with open_project(path, create=True) as project:
            ingest(project, GRAMMARS / row["file"], language=row["language"], glottocode=row["glottocode"])
        values = {fid: rng.choice(["0", "1", "1", "?"]) for fid in SAMPLE_FEATURES if rng.random() < 0.8}
        values["81A"] = "SOV"
        code_values(path, values, reviewer=rng.choice(["ana", "ben"]))
    return folder


@pytest.fixture(scope="module")
def demo_master(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo grammar ingested once, language Veshari with a real Glottocode (so exports place it)."""
    from core.demo import write_demo_grammar
    from core.ingest import ingest
    from core.store import open_project

    folder = tmp_path_factory.mktemp("demo_master")
    pdf = write_demo_grammar(folder / "demo.pdf")
    path = folder / "demo.grammarlens"
    with open_project(path, create=True) as project:
        ingest(project, pdf, language="Veshari", glottocode="nucl1235")
    return path


@pytest.fixture
def demo_copy(demo_master: Path, tmp_path: Path):
    """A function that copies the demo project to ``tmp_path/NAME`` and returns the copy's path."""

    def copy(name: str) -> Path:
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(demo_master, target)
        return target

    return copy
