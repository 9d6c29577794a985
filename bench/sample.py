"""``bench sample``: a generated sample of projects, and how long the sample commands take on it.

Targets (issue 30, tightened from issue 22's 10 s / 500 MB): ``sample status/matrix/compare/export``
each in <= 2 s and <= 120 MB on a sample of 100 projects; the Sample window open in <= 3 s.

The sample is made once under ``build/bench_sample/`` and reused:

* sources, each ingested once into ``cache/``: the demo grammar (core/demo.py) and the shared
  grammars in ``../shared/grammars`` (``shared=False`` skips them; ingesting all seven takes minutes);
* ``sample_N/``: N copies cycling over the sources, each given another language of the bundled
  language table (Grambank languages first, so the comparison with ``../shared/cldf/grambank`` has
  values to score) and seeded random values for 40 Grambank features through core's coding API
  (coded by hand, some "?", some accepted-looking overrides are not made: no model answers), by
  one of four coders.

Each command runs as a child process (``python main.py sample ...``); its wall time and peak
resident memory come from ``os.wait4`` in a small launcher process (the command's own ``ru_maxrss``).
If ``bench/sample_window.py`` exists, ``python -m bench.sample_window DIR --json`` reports the
window's ``open_s`` and ``peak_mb``.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from bench.paths import REPO, SHARED, SHARED_GRAMMARS

TARGET_SECONDS = 2.0
TARGET_MB = 120.0
TARGET_WINDOW_SECONDS = 3.0
SEED = 22  # issue 22
FEATURES_PER_PROJECT = 40
CODERS = ("ana", "ben", "chen", "dede")


def run_bench(work: str | Path, *, projects: int = 100, shared: bool = True,
              log: Callable[[str], None] = lambda m: None) -> dict:
    """Make (or reuse) the sample and time each command on it; returns the report as plain data."""
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    sources = _sources(work / "cache", shared=shared, log=log)
    sample = _sample(work / f"sample_{projects}", sources, projects, log=log)
    reference = SHARED / "cldf" / "grambank"
    with tempfile.TemporaryDirectory(dir=work) as tmp:
        commands = {
            "status": ["sample", "status", str(sample), "--json"],
            "matrix": ["sample", "matrix", str(sample), "--out", str(Path(tmp) / "matrix.csv")],
            "compare": ["sample", "compare", str(sample), "--reference", str(reference),
                        "--out", str(Path(tmp) / "disagreements.csv"), "--json"],
            "export": ["sample", "export", str(sample), "--format", "cldf", "--out", str(Path(tmp) / "cldf")],
        }
        results = {}
        for name, argv in commands.items():
            log(f"bench sample: {name} ...")
            results[name] = _timed([sys.executable, str(REPO / "main.py"), *argv])
    window = _window(sample, log)
    return {"projects": projects, "sample": str(sample), "sources": [p.name for p in sources],
            "commands": results, "window": window,
            "targets": {"seconds": TARGET_SECONDS, "peak_mb": TARGET_MB, "window_seconds": TARGET_WINDOW_SECONDS}}


def format_report(report: dict) -> str:
    """The report as lines: each command's wall seconds and peak MB, and their ratios to the targets."""
    lines = [f"bench sample: {report['projects']} projects ({', '.join(report['sources'])})"]
    for name, r in report["commands"].items():
        lines.append(f"  sample {name:<8} {r['seconds']:6.2f} s ({r['seconds'] / TARGET_SECONDS:.2f} of "
                     f"{TARGET_SECONDS:g} s)  peak {r['peak_mb']:6.0f} MB ({r['peak_mb'] / TARGET_MB:.2f} of "
                     f"{TARGET_MB:g} MB)  exit {r['exit']}")
    w = report.get("window")
    if w is None:
        lines.append("  Sample window: not measured (bench/sample_window.py is not there)")
    elif "error" in w:
        lines.append(f"  Sample window: {w['error']}")
    else:
        lines.append(f"  Sample window open {w['open_s']:.2f} s ({w['open_s'] / TARGET_WINDOW_SECONDS:.2f} of "
                     f"{TARGET_WINDOW_SECONDS:g} s)  peak {w.get('peak_mb', 0):.0f} MB")
    return "\n".join(lines)


# Linux records the memory a process had before each exec in its ``ru_maxrss``: a command started
# straight from this process (hundreds of MB once the sample is made) would report this process's size,
# not its own.  A small launcher process starts it instead, times it and reports what ``wait4`` says.
_LAUNCHER = (
    "import os, subprocess, sys, time\n"
    "started = time.perf_counter()\n"
    "child = subprocess.Popen(sys.argv[2:])\n"
    "_pid, status, usage = os.wait4(child.pid, 0)\n"
    "seconds = time.perf_counter() - started\n"
    "with open(sys.argv[1], 'w') as out:\n"
    "    out.write(f'{seconds} {usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}')\n"
)


def _timed(argv: list[str]) -> dict:
    """Run ``argv``; its wall seconds, its own peak resident memory and exit code, its stderr's tail."""
    with tempfile.TemporaryDirectory() as tmp:
        figures = Path(tmp) / "figures"
        launcher = subprocess.run([sys.executable, "-c", _LAUNCHER, str(figures), *argv],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=REPO, check=False)
        seconds, maxrss_kb, code = figures.read_text().split()
    err = launcher.stderr.decode("utf-8", "replace")
    return {"seconds": round(float(seconds), 3), "peak_mb": round(int(maxrss_kb) / 1024, 1), "exit": int(code),
            "stderr_tail": err[-300:]}


def _window(sample: Path, log: Callable[[str], None]) -> dict | None:
    if not (REPO / "bench" / "sample_window.py").exists():
        return None
    log("bench sample: the Sample window ...")
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}  # no display needed
    done = subprocess.run([sys.executable, "-m", "bench.sample_window", str(sample), "--json"], cwd=REPO,
                          capture_output=True, text=True, timeout=600, env=env)
    try:
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"error": f"exit {done.returncode}: {done.stderr.strip()[-300:]}"}


# -- the sample ---------------------------------------------------------------------------------------------

def _sources(cache: Path, *, shared: bool, log: Callable[[str], None]) -> list[Path]:
    """The demo project and one project per shared grammar, each ingested once into ``cache``."""
    from core.demo import write_demo_grammar

    cache.mkdir(parents=True, exist_ok=True)
    pdfs = [write_demo_grammar(cache / "demo.pdf") if not (cache / "demo.pdf").exists() else cache / "demo.pdf"]
    if shared:
        pdfs += sorted(SHARED_GRAMMARS.glob("*.pdf"))
    out = []
    for pdf in pdfs:
        project = cache / f"{pdf.stem}.grammarlens"
        if not project.exists():
            log(f"bench sample: ingesting {pdf.name} once into {project} ...")
            partial = cache / f"{pdf.stem}.partial.grammarlens"
            for leftover in cache.glob(f"{pdf.stem}.partial.grammarlens*"):
                leftover.unlink() if leftover.is_file() else shutil.rmtree(leftover)
            _ingest(pdf, partial)
            os.replace(partial, project)
        out.append(project)
    return out


def _ingest(pdf: Path, project_path: Path) -> None:
    from core.ingest import ingest
    from core.store import open_project

    with open_project(project_path, create=True) as project:
        ingest(project, pdf)


def _sample(folder: Path, sources: list[Path], count: int, *, log: Callable[[str], None]) -> Path:
    """``count`` projects in ``folder`` (made once; a complete folder is reused)."""
    done_mark = folder / ".complete"
    if done_mark.exists():
        return folder
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    rng = random.Random(SEED)
    languages = _languages(count)
    features = _features()
    started = time.perf_counter()
    for i in range(count):
        # mostly the small demo project, every fourth a real grammar (sizes as a real sample has them)
        source = sources[0] if (i % 4 or len(sources) == 1) else sources[1 + (i // 4) % (len(sources) - 1)]
        name, glottocode = languages[i]
        target = folder / f"{i:03d}_{glottocode}.grammarlens"
        shutil.copy(source, target)
        _code(target, name, glottocode, rng, features)
        if (i + 1) % 20 == 0:
            log(f"bench sample: {i + 1}/{count} projects ({time.perf_counter() - started:.0f} s)")
    done_mark.write_text("complete\n", encoding="utf-8")
    return folder


def _languages(count: int) -> list[tuple[str, str]]:
    """Distinct languages with a place, those with Grambank values in ../shared first."""
    import csv

    from core.catalog.languages import language_places

    places = language_places()
    with_values: list[str] = []
    subset = SHARED / "cldf" / "grambank" / "values_subset.csv"
    if subset.exists():
        with open(subset, newline="", encoding="utf-8") as fh:
            with_values = list(dict.fromkeys(r["Language_ID"] for r in csv.DictReader(fh)))
    codes = [c for c in with_values if c in places] + sorted(c for c in places if c not in set(with_values))
    return [(places[c].name, c) for c in codes[:count]]


def _features() -> list[str]:
    """The eight Grambank features of ../shared's subset first (so compare scores them), then others."""
    from core.catalog import load_catalog

    first = ["GB107", "GB257", "GB260", "GB262", "GB263", "GB264", "GB286", "GB291"]
    rest = [f.id for f in load_catalog().by_dataset("Grambank") if f.id not in first and not f.multi_label]
    return first + rest


def _code(path: Path, name: str, glottocode: str, rng: random.Random, features: list[str]) -> None:
    from core import coding
    from core.catalog import load_catalog
    from core.models import Language
    from core.store import open_project
    from core.store.repository import set_language

    chosen = features[:8] + rng.sample(features[8:], FEATURES_PER_PROJECT - 8)
    coder = rng.choice(CODERS)
    catalog = load_catalog()
    with open_project(path, backup=False) as project:
        set_language(project, Language(name=name, glottocode=glottocode, source="user"))
        with project.transaction():
            for fid in chosen:
                roll = rng.random()
                if roll < 0.15:
                    continue  # left uncoded
                codes = [c for c, _label in catalog.get(fid).values]
                value = "?" if roll < 0.22 else rng.choice([codes[0], *codes])  # the first code (absent) twice
                coding.code(project, fid, value, reviewer=coder)
