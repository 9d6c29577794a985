"""Ingest speed measured against PyMuPDF's bare ``page.get_text("dict")`` over the same pages.

The target is on wall-clock time.  The CPU time of this process is measured as well: on a
machine shared with other work, wall-clock time of either side jumps with the neighbours' load,
while the CPU-time ratio stays put, so it tells a real change from noise.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from core.ingest.pdf_open import open_pdf
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
    cpu_seconds: float = 0.0
    raw_cpu_seconds: float = 0.0

    @property
    def ratio(self) -> float:
        return self.seconds / self.raw_seconds if self.raw_seconds else 0.0

    @property
    def cpu_ratio(self) -> float:
        return self.cpu_seconds / self.raw_cpu_seconds if self.raw_cpu_seconds else 0.0

    def to_json(self) -> dict:
        return {**asdict(self), "ratio": round(self.ratio, 3), "cpu_ratio": round(self.cpu_ratio, 3)}


def _raw_dict_times(pdf: Path) -> tuple[float, float]:
    """Wall and CPU time of the bare extraction every PDF tool pays: open, then get_text('dict') per page."""
    started, cpu = time.perf_counter(), time.process_time()
    with open_pdf(pdf) as doc:
        for page in doc:
            page.get_text("dict")
    return time.perf_counter() - started, time.process_time() - cpu


def bench_ingest(pdf: Path) -> IngestBench:
    """Ingest ``pdf`` into a throw-away project (whole pipeline, storing included) and time it."""
    raw = [_raw_dict_times(pdf) for _ in range(REPEATS)]
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for attempt in range(REPEATS):
            with create_project(Path(tmp) / f"bench{attempt}.grammarlens") as project:
                started, cpu = time.perf_counter(), time.process_time()
                result = ingest(project, pdf)
                runs.append((time.perf_counter() - started, time.process_time() - cpu))
    return IngestBench(pdf.name, result.pages, result.paragraphs, round(min(r[0] for r in runs), 3),
                       round(min(r[0] for r in raw), 3), round(min(r[1] for r in runs), 3),
                       round(min(r[1] for r in raw), 3))
