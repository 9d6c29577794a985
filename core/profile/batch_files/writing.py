"""Writing a batch file: one request line per (project, unanswered feature), each remembered in its project.

Each ``body`` is built by :func:`core.llm.client.chat_request_body` from
:func:`core.llm.ask.prepare_prompt`, exactly what the online path sends first.  The request is
remembered in its project (:mod:`core.store.batch_requests`) with the evidence of its prompt, so
that the import can rebuild the prompt and store the answer with it.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Sequence, TextIO

from core.errors import GrammarLensError
from core.llm.ask import answer_format, prepare_prompt
from core.llm.batch_lines import request_line
from core.llm.classification import language_name
from core.llm.client import chat_request_body
from core.llm.features import feature_of
from core.llm.settings import LlmSettings
from core.output_paths import check_output_file
from core.profile.batch import BatchSettings, open_job
from core.profile.batch_files.custom_ids import make_custom_id, project_key, settings_tag
from core.profile.batch_files.evidence import NO_EVIDENCE, Retrieved, evidence_for, remember, with_texts
from core.profile.batch_files.reports import BatchWriteReport, LineProblem
from core.progress import Progress, null_progress
from core.retrieval.pipeline import forget_project_index
from core.retrieval.settings import RetrievalSettings
from core.store import open_project
from core.store.batch_requests import BatchRequest, put_requests
from core.store.database import ProjectDatabase
from core.store.profile_jobs import Job

PROGRESS_EVERY = 50  # written lines between two progress steps


def write_batch_requests(project_paths: Iterable[str | os.PathLike], feature_ids: Sequence[str],
                         out_path: str | os.PathLike, settings: BatchSettings, progress: Progress | None = None, *,
                         feature_set: str | None = None, append: bool = False) -> BatchWriteReport:
    """Write one request line per (project, unanswered feature) to ``out_path``; remember each in its project.

    ``settings`` must be in ``llm`` mode (its ``llm`` names the model the file is meant for).  Features
    whose profile job item is already done are skipped, as a re-run of the online profile skips them.
    The file is written to ``OUT.part`` and renamed at the end (``append`` adds to an existing file
    instead).  Each project is updated in one transaction (its profile job, retrieval runs and
    written requests).
    """
    paths = [Path(p) for p in project_paths]
    _check_request(out_path, settings, append, paths)
    started = time.perf_counter()
    ids = list(dict.fromkeys(feature_ids))
    plan = _Plan.of(settings, ids, feature_set)
    report = BatchWriteReport(Path(out_path))
    steps = _Steps(progress or null_progress(), total=len(paths) * len(ids))
    keys: dict[str, Path] = {}  # project key -> the project written with it
    with _requests_file(Path(out_path), append) as out:
        for path in paths:
            written = _write_project(path, plan, out, report, keys, steps)
            if len(paths) > 1:  # many grammars: keep one BM25 index in memory at a time
                forget_project_index(written)
    report.seconds = time.perf_counter() - started
    return report


def _check_request(out_path: str | os.PathLike, settings: BatchSettings, append: bool, paths: list[Path]) -> None:
    """Refuse a file that must not be written, settings without a model, or no project at all."""
    check_output_file(out_path)  # never a project, a PDF or a folder; an earlier requests file may be rewritten
    if not append:
        check_output_file(Path(out_path).with_name(Path(out_path).name + ".part"))
    if settings.mode != "llm":
        raise GrammarLensError("A batch file needs a model to answer it.", "Leave out --no-llm.")
    if not paths:
        raise GrammarLensError("No project given.", "Name one or more project files.")


@dataclass(frozen=True)
class _Plan:
    """What every request of the file is written for: the features, model, configuration and retrieval."""

    settings: BatchSettings
    feature_ids: list[str]
    job_name: str  # the feature set the profile job is filed under
    llm: LlmSettings
    retrieval: RetrievalSettings
    public_llm: dict  # the model's settings without a key, stored with each request
    tag: str  # the settings' part of each custom_id
    answer_format: str

    @classmethod
    def of(cls, settings: BatchSettings, feature_ids: list[str], feature_set: str | None) -> _Plan:
        llm = settings.llm or LlmSettings()
        public = llm.to_public_dict()
        return cls(settings, feature_ids, feature_set or ",".join(feature_ids)[:200], llm,
                   settings.retrieval or RetrievalSettings(), public, settings_tag(public), answer_format(llm))

    @property
    def config(self) -> str:
        return self.settings.config


@dataclass
class _Steps:
    """Progress over every (project, feature) pair: a step every few lines written and after each project."""

    progress: Progress
    total: int
    done: int = 0

    def line_written(self, label: str) -> None:
        if self.done % PROGRESS_EVERY == 0:
            self.progress.step(self.done, self.total, label)

    def project_written(self, label: str) -> None:
        self.progress.step(self.done, self.total, label)  # a cancel here still rolls the project back


@dataclass
class _ProjectWrite:
    """One project while its requests are written: its connection, key, language, job and new retrievals."""

    db: ProjectDatabase
    path: Path
    key: str
    language: str
    job: Job
    fresh: dict[tuple, Retrieved] = field(default_factory=dict)


@contextlib.contextmanager
def _requests_file(out: Path, append: bool) -> Iterator[TextIO]:
    """The file the lines go to: ``OUT.part``, renamed to ``out`` once whole and removed on failure
    (or, with ``append``, ``out`` itself)."""
    target = out if append else out.with_name(out.name + ".part")
    try:
        with open(target, "a" if append else "w", encoding="utf-8", newline="\n") as fh:
            yield fh
        if not append:
            os.replace(target, out)
    except BaseException:
        if not append:
            with contextlib.suppress(OSError):
                target.unlink()
        raise


def _write_project(path: Path, plan: _Plan, out: TextIO, report: BatchWriteReport, keys: dict[str, Path],
                   steps: _Steps) -> Path:
    """Write the project's unanswered features and remember them, in one transaction; returns its path."""
    with open_project(path) as db, db.transaction():
        project = _ProjectWrite(db, path, _unique_key(db, path, keys), language_name(db),
                                open_job(db, plan.job_name, plan.feature_ids, plan.settings))
        pending = set(project.job.pending)
        requests: list[BatchRequest] = []
        for fid in plan.feature_ids:
            steps.done += 1
            if fid not in pending:
                report.skipped += 1
                continue
            request = _write_request(project, fid, plan, out, report)
            if request is not None:
                requests.append(request)
                steps.line_written(f"{path.name} {fid}")
        put_requests(db, requests)
        steps.project_written(path.name)
    remember(project.fresh)
    return db.path


def _unique_key(db: ProjectDatabase, path: Path, keys: dict[str, Path]) -> str:
    """The project's key, refused when an earlier project of this file holds the same grammars."""
    pkey = project_key(db)
    if pkey in keys:
        raise GrammarLensError(f"{path.name} and {keys[pkey].name} hold the same grammars.",
                               "Write a batch file for one of them at a time.")
    keys[pkey] = path
    return pkey


def _write_request(project: _ProjectWrite, feature_id: str, plan: _Plan, out: TextIO,
                   report: BatchWriteReport) -> BatchRequest | None:
    """Write one feature's request line; the request to remember, or None (a problem of the report)."""
    try:
        feature = feature_of(feature_id)
        found = NO_EVIDENCE if plan.config == "baseline" else evidence_for(project.db, feature, plan.retrieval,
                                                                           project.fresh)
        evidence = with_texts(project.db, found.evidence) or []
        prompt, items, note = prepare_prompt(plan.llm, feature, plan.config, project.language, evidence,
                                             plan.answer_format)
    except GrammarLensError as exc:
        report.problems.append(LineProblem(0, "failed", f"{project.path.name} {feature_id}: {exc.message}"))
        return None
    body = chat_request_body(plan.llm, prompt.messages, response_format=prompt.response_format)
    prompt_hash = prompt.hash()
    custom_id = make_custom_id(project.key, feature.id, plan.config, prompt_hash, plan.tag)
    out.write(request_line(custom_id, body) + "\n")
    report.written += 1
    report.per_project[str(project.path)] = report.per_project.get(str(project.path), 0) + 1
    return BatchRequest(custom_id, feature.id, plan.config, project.language, prompt.answer_format, prompt_hash,
                        plan.public_llm, found.settings, found.run_id, found.evidence, len(items), note,
                        project.job.id)
