"""``bench profile-speed``: wall time, CPU time and peak memory of a whole profile run (issue 20).

What a linguist waits for when a grammar's whole Grambank profile runs against a fast local model:
the answers cost nothing here (the instant OpenAI-compatible server of devtools.openai_server runs in
this process), so the figures are GrammarLens's own work, retrieval and embedding above all.  Three
runs, each a ``python main.py ...`` child measured alone (``os.wait4`` gives that child's CPU time and
peak resident memory, not this process's):

* ``cold``: ``profile`` on a project as ingested, without vectors: the one-time embedding of the book
  (done first, in batches, by the profile job) plus the features;
* ``embed``: ``embed`` alone on such a project: the one-time embedding of the book;
* ``embedded``: ``profile`` on a project whose paragraphs have their vectors: every later run.

The projects are copies of one ingested project in the work folder, so every run starts the same.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from bench.paths import REPO
from bench.stub_server import stub_server_class
from core.progress import Progress, null_progress


@dataclass(frozen=True)
class ChildRun:
    """One measured child process."""

    command: str
    wall_s: float
    cpu_s: float  # user + system
    peak_rss_mb: float
    returncode: int


@dataclass
class ProfileSpeedReport:
    pdf: str
    paragraphs: int
    features: str
    runs: dict[str, ChildRun]

    def to_json(self) -> dict:
        return {"pdf": self.pdf, "paragraphs": self.paragraphs, "features": self.features,
                "runs": {name: asdict(run) for name, run in self.runs.items()}}


def measure_child(args: list[str], log: Path, env: dict | None = None) -> ChildRun:
    """Run ``python main.py ARGS`` and measure it alone: wall clock, its CPU time, its peak memory."""
    started = time.perf_counter()
    with open(log, "w", encoding="utf-8") as out:
        child = subprocess.Popen([sys.executable, str(REPO / "main.py"), *args], cwd=REPO, env=env,
                                 stdout=out, stderr=subprocess.STDOUT)
        _pid, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    return ChildRun(" ".join(args[:1]), round(wall, 2), round(usage.ru_utime + usage.ru_stime, 2),
                    round(usage.ru_maxrss / 1024, 1), child.returncode)


def ingested_copy(pdf: Path, work: Path) -> tuple[Path, int]:
    """The grammar ingested once into ``work`` (reused later), and its number of paragraphs."""
    from core.ingest import ingest
    from core.store import open_project

    work.mkdir(parents=True, exist_ok=True)
    pristine = work / f"{pdf.stem}.ingested.grammarlens"
    if not pristine.exists():
        partial = pristine.with_suffix(".partial")
        with open_project(partial, create=True) as project:
            ingest(project, pdf)
        partial.rename(pristine)
    with open_project(pristine, readonly=True) as project:
        paragraphs = project.conn.execute("SELECT count(*) FROM paragraphs").fetchone()[0]
    return pristine, int(paragraphs)


def fresh_copy(source: Path, target: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    shutil.copy(source, target)
    return target


def run_profile_speed(pdf: str | Path, work: str | Path, features: str = "grambank", *,
                      runs: tuple[str, ...] = ("cold", "embed", "embedded"), concurrency: int = 4,
                      progress: Progress | None = None) -> ProfileSpeedReport:
    """Measure the runs named in ``runs`` (see the module docstring) on ``pdf``'s grammar."""
    progress = progress or null_progress()
    pdf, work = Path(pdf), Path(work)
    progress.step(0, len(runs) + 1, f"ingest or reuse {pdf.name}")
    pristine, paragraphs = ingested_copy(pdf, work)
    env = dict(os.environ, HF_HUB_OFFLINE=os.environ.get("HF_HUB_OFFLINE", "1"))
    server = stub_server_class()().start()
    report = ProfileSpeedReport(str(pdf), paragraphs, features, {})
    profile = ["--features", features, "--base-url", server.url, "--model", "gpt-4o",
               "--concurrency", str(concurrency)]
    try:
        embedded: Path | None = None
        for n, name in enumerate(runs, start=1):
            progress.step(n, len(runs) + 1, name)
            project = fresh_copy(pristine, work / f"{name}.grammarlens")
            if name == "cold":
                report.runs[name] = measure_child(["profile", str(project), *profile], work / "cold.log", env)
            elif name == "embed":
                report.runs[name] = measure_child(["embed", str(project)], work / "embed.log", env)
                embedded = project
            elif name == "embedded":
                if embedded is None:  # vectors made here, unmeasured
                    measure_child(["embed", str(project)], work / "embed.log", env)
                else:
                    fresh_copy(embedded, project)
                report.runs[name] = measure_child(["profile", str(project), *profile], work / "embedded.log", env)
            else:
                raise ValueError(f"unknown run {name!r}")
    finally:
        server.stop()
    progress.step(len(runs) + 1, len(runs) + 1, "done")
    return report


def format_speed_report(report: ProfileSpeedReport) -> str:
    lines = [f"profile speed: {Path(report.pdf).name} ({report.paragraphs:,} paragraphs), features "
             f"{report.features}, instant local server",
             f"{'run':<10} {'wall s':>8} {'CPU s':>8} {'peak MB':>8}  exit"]
    for name, run in report.runs.items():
        lines.append(f"{name:<10} {run.wall_s:>8.1f} {run.cpu_s:>8.1f} {run.peak_rss_mb:>8.0f}  {run.returncode}")
    lines.append("targets: embedded <= 30 s wall, embed <= 90 s for 6,000 paragraphs, peak <= 1,024 MB")
    return "\n".join(lines)
