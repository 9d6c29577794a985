"""Paths to the read-only data in ../shared (grammars, benchmarks, CLDF tables)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
GRAMMARS = SHARED / "grammars"


def grammar_rows() -> list[dict[str, str]]:
    """Rows of ../shared/grammars/grammars.csv (empty when ../shared is missing)."""
    path = GRAMMARS / "grammars.csv"
    if not path.exists():
        return []
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.exists():
        pytest.fail(f"{SHARED} is missing: the tests read the benchmarks and grammars from ../shared")
    return SHARED
