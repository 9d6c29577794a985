"""Ingest speed measured against PyMuPDF's bare ``page.get_text("dict")`` over the same pages."""

from __future__ import annotations

import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import pymupdf

from core.ingest.pipeline import ingest
from core.store import create_project

REPEATS = 3  # best of three on both sides: a 2-core machine is noisy


@dataclass(frozen=True)
class IngestBench:
    file: str
    pages: int
    paragraphs: int
    seconds: float
    raw_seconds: float

    @property
    def ratio(self) -> float:
        return self.seconds / self.raw_seconds if self.raw_seconds else 0.0

    def to_json(self) -> dict:
        return {**asdict(self), "ratio": round(self.ratio, 3)}


def raw_dict_seconds(pdf: Path) -> float:
    """Time of the bare extraction every PDF tool pays: open, then get_text('dict') per page."""
    started = time.perf_counter()
    with pymupdf.open(pdf) as doc:
        for page in doc:
            page.get_text("dict")
    return time.perf_counter() - started


def bench_ingest(pdf: Path) -> IngestBench:
    """Ingest ``pdf`` into a throw-away project (whole pipeline, storing included) and time it."""
    raw = min(raw_dict_seconds(pdf) for _ in range(REPEATS))
    best = None
    with tempfile.TemporaryDirectory() as tmp:
        for attempt in range(REPEATS):
            with create_project(Path(tmp) / f"bench{attempt}.grammarlens") as project:
                started = time.perf_counter()
                result = ingest(project, pdf)
                seconds = time.perf_counter() - started
            best = seconds if best is None else min(best, seconds)
    return IngestBench(pdf.name, result.pages, result.paragraphs, round(best, 3), round(raw, 3))
