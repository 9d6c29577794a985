"""``bench batch``: write and import a batch file of many requests over several generated projects.

Why: a typologist coding a sample of 100 grammars sends ~20,000 prompts through one file, so
writing the requests and importing the results must stay fast and, above all, must not grow in
memory with the file (both stream).  The bench generates ``projects`` grammars (the demo grammar,
each PDF made distinct so each project has its own grammar), writes ``requests`` lines over all
catalog features and, to reach the count, several configurations and models (each a separate
batch file appended to the same one, as a user would write them), answers them the way the local
OpenAI-compatible server does, and imports the results twice (the second import must change
nothing).  Seconds and peak memory of each step are printed: the process's resident memory (RSS),
sampled as the step runs (every 50 features written, every 200 lines imported), with its value at
each quarter of the step to show that it stays flat as the file grows.  (tracemalloc would count
Python objects only and slows the steps down two- to threefold.)
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

TARGET_SECONDS = 60.0
TARGET_MB = 500.0
MODELS = ("gpt-4o-mini", "gpt-4o", "gpt-4.1-mini")
CONFIGS = ("rag", "rag-guidelines", "baseline")


@dataclass
class Step:
    name: str
    seconds: float
    peak_mb: float
    quarters_mb: list[float] = field(default_factory=list)  # RSS at 25/50/75/100 % of the step
    detail: str = ""
    cpu_seconds: float = 0.0  # this process's CPU time: steadier than wall time on a busy machine


@dataclass
class BenchResult:
    projects: int
    requests: int
    file_mb: float
    steps: list[Step]
    max_rss_mb: float

    def to_json(self) -> dict:
        return {"projects": self.projects, "requests": self.requests, "file_mb": round(self.file_mb, 1),
                "max_rss_mb": round(self.max_rss_mb, 1),
                "steps": [{"name": s.name, "seconds": round(s.seconds, 2), "cpu_seconds": round(s.cpu_seconds, 2),
                           "peak_mb": round(s.peak_mb, 1),
                           "quarters_mb": [round(q, 1) for q in s.quarters_mb], "detail": s.detail}
                          for s in self.steps]}


def rss_mb() -> float:
    """The process's resident memory now (Linux /proc), else its peak so far (getrusage)."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError, AttributeError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / 2**20 if sys.platform == "darwin" else peak / 1024


class _Meter:
    """Time and memory of one step, sampling the resident memory as the step progresses."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.samples: list[tuple[float, float]] = []  # (fraction done, MB)

    def __enter__(self) -> _Meter:
        self.started = time.perf_counter()
        self.cpu_started = time.process_time()
        self.sample(0.0)
        return self

    def sample(self, fraction: float) -> None:
        self.samples.append((fraction, rss_mb()))

    def progress(self, done: int, total: int, message: str = "") -> None:
        if total:
            self.sample(done / total)

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.started
        self.cpu_seconds = time.process_time() - self.cpu_started
        self.sample(1.0)
        self.peak_mb = max(mb for _, mb in self.samples)

    def step(self, detail: str = "") -> Step:
        quarters = []
        for q in (0.25, 0.5, 0.75, 1.0):
            at = [mb for f, mb in self.samples if f <= q + 1e-9]
            quarters.append(at[-1] if at else 0.0)
        return Step(self.name, self.seconds, self.peak_mb, quarters, detail, self.cpu_seconds)


def make_projects(folder: Path, count: int) -> list[Path]:
    """``count`` projects, each with its own copy of the demo grammar (distinct PDFs, distinct sha256)."""
    from core.demo import write_demo_grammar
    from core.ingest import ingest
    from core.ingest.pdf_open import open_pdf
    from core.store import open_project

    base = write_demo_grammar(folder / "demo.pdf")
    paths = []
    for i in range(count):
        pdf = folder / f"grammar{i:02d}.pdf"
        doc = open_pdf(base)
        doc.set_metadata({**doc.metadata, "title": f"A sample grammar of Veshari, copy {i + 1}",
                          "subject": "demo grammar"})
        doc.save(pdf)
        doc.close()
        path = folder / f"project{i:02d}.grammarlens"
        with open_project(path, create=True) as project:
            ingest(project, pdf)
        paths.append(path)
    return paths


def canned_answer(body: dict, seed: int) -> str:
    """A well-formed answer to a request body: a value of its JSON schema's closed set, citing paragraph 1.

    The bench measures the plumbing, not a model: the answer is picked by ``seed`` so that values vary.
    """
    fmt = body.get("response_format") or {}
    schema = (fmt.get("json_schema") or {}).get("schema") or {}
    props = schema.get("properties") or {}
    answer: dict = {"reasoning": "The grammar states it in paragraph 1."}
    if "cited_paragraphs" in props:
        answer["cited_paragraphs"] = [1]
    if "strategies" in props:
        names = list(props["strategies"].get("properties") or {})
        answer["strategies"] = {n: ("1" if (seed + i) % 3 == 0 else "0") for i, n in enumerate(names)}
    elif "value" in props:
        options = props["value"].get("enum") or ["Not enough information"]
        answer["value"] = options[seed % len(options)]
    else:
        return "The grammar says little about this.\nConclusion: Not enough information"
    return json.dumps(answer)


def answer_requests(requests_path: Path, results_path: Path, error_every: int = 100) -> int:
    """Answer every request line with a canned valid answer (every ``error_every``-th gets an error line)."""
    count = 0
    with open(requests_path, "rb") as fh, open(results_path, "w", encoding="utf-8") as out:
        for i, raw in enumerate(fh):
            request = json.loads(raw)
            if error_every and i % error_every == error_every - 1:
                line = {"id": f"r{i}", "custom_id": request["custom_id"], "response": None,
                        "error": {"code": "server_error", "message": "The request could not be processed."}}
            else:
                content = canned_answer(request["body"], i)
                line = {"id": f"r{i}", "custom_id": request["custom_id"], "error": None, "response": {
                    "status_code": 200, "request_id": f"q{i}", "body": {
                        "id": f"c{i}", "object": "chat.completion", "model": request["body"]["model"],
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                     "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 1000, "completion_tokens": len(content) // 4,
                                  "total_tokens": 1000 + len(content) // 4}}}}
            out.write(json.dumps(line) + "\n")
            count += 1
    return count


def run_bench(*, projects: int = 10, requests: int = 20_000, folder: Path | None = None) -> BenchResult:
    from core.llm import LlmSettings
    from core.profile import BatchSettings, resolve_feature_set
    from core.profile.batch_files import import_batch_results, write_batch_requests
    from core.retrieval import RetrievalSettings

    own = folder is None
    work = Path(tempfile.mkdtemp(prefix="bench-batch-")) if folder is None else Path(folder)
    work.mkdir(parents=True, exist_ok=True)
    try:
        steps: list[Step] = []
        started = time.perf_counter()
        paths = make_projects(work, projects)
        steps.append(Step("generate projects", time.perf_counter() - started, 0.0, [], f"{projects} projects"))
        features = resolve_feature_set(None, "wals") + resolve_feature_set(None, "grambank")
        rounds = [(config, model) for model in MODELS for config in CONFIGS]
        requests_path = work / "requests.jsonl"
        requests_path.unlink(missing_ok=True)
        written = 0
        with _Meter("write requests") as meter:
            for config, model in rounds:
                left = requests - written
                if left <= 0:
                    break
                per_project = min(len(features), -(-left // len(paths)))
                ids = features[:per_project]
                settings = BatchSettings(mode="llm", config=config, llm=LlmSettings(model=model),
                                         retrieval=RetrievalSettings(reranker=None))
                progress = _Progress(meter, written, len(ids) * len(paths), requests)
                report = write_batch_requests(paths, ids, requests_path, settings, progress, append=True)
                written += report.written
                meter.sample(min(1.0, written / requests))
        steps.append(meter.step(f"{written:,} lines in {len(rounds)} configuration/model rounds (all catalog "
                                f"features per project), retrieval once per project and feature"))
        file_mb = requests_path.stat().st_size / 2**20
        results_path = work / "results.jsonl"
        started = time.perf_counter()
        answered = answer_requests(requests_path, results_path)
        steps.append(Step("answer (canned answers)", time.perf_counter() - started, 0.0, [],
                          f"{answered:,} result lines, 1 in 100 an error line"))
        with _Meter("import results") as meter:
            first = import_batch_results(paths, results_path, _Progress(meter))
        steps.append(meter.step(first.describe()))
        with _Meter("import again") as meter:
            second = import_batch_results(paths, results_path, _Progress(meter))
        steps.append(meter.step(second.describe()))
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
        return BenchResult(projects, written, file_mb, steps, rss)
    finally:
        if own:
            shutil.rmtree(work, ignore_errors=True)


def _Progress(meter: _Meter, before: int = 0, this_round: int = 0, total: int = 0):
    """Progress that samples memory; in a write round, placed by the share of all ``total`` lines written."""
    from core.progress import Progress

    if not total:
        return Progress(meter.progress)
    return Progress(lambda done, of, message: meter.sample(min(1.0, (before + this_round * done / max(1, of)) / total)))


def print_bench(result: BenchResult, *, as_json: bool = False) -> None:
    if as_json:
        print(json.dumps(result.to_json(), indent=2))
        return
    print(f"bench batch: {result.requests:,} requests over {result.projects} projects, "
          f"requests file {result.file_mb:,.1f} MB")
    print(f"{'step':<28} {'seconds':>8} {'CPU s':>7} {'peak MB':>8}   RSS MB at 25/50/75/100 %")
    for s in result.steps:
        quarters = " / ".join(f"{q:.0f}" for q in s.quarters_mb) if s.quarters_mb else "-"
        peak = f"{s.peak_mb:8.0f}" if s.quarters_mb else f"{'-':>8}"
        cpu = f"{s.cpu_seconds:7.1f}" if s.quarters_mb else f"{'-':>7}"
        print(f"{s.name:<28} {s.seconds:8.1f} {cpu} {peak}   {quarters}")
        if s.detail:
            print(f"{'':<28} {s.detail}")
    measured = [s for s in result.steps if s.quarters_mb]
    ok = all(s.seconds < TARGET_SECONDS and s.peak_mb < TARGET_MB for s in measured)
    print(f"process peak RSS {result.max_rss_mb:,.0f} MB; target per step < {TARGET_SECONDS:.0f} s and "
          f"< {TARGET_MB:.0f} MB: {'met' if ok else 'NOT met'}")
    sys.stdout.flush()
