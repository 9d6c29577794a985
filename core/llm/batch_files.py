"""Batch files: write the prompts of many (project, feature) pairs as one JSONL file, import the answers.

The OpenAI Batch API (half price, within 24 hours) and vLLM's offline runner
(``python -m vllm.entrypoints.openai.run_batch``) read the same request lines
(``custom_id``, ``method``, ``url``, ``body``) and write the same result lines.  Each ``body`` here is
built by :func:`core.llm.client.chat_request_body` from :func:`core.llm.ask.prepare_prompt`, exactly
what the online path sends first; each answer is read by the online reader
(:func:`core.llm.client.read_chat_response`, :func:`core.llm.ask.read_answer`) and stored as an online
answer is (classification, response cache, profile job item).

Why a table of written requests (schema 6): a result line names its request only by ``custom_id``,
and the answer must be stored with the evidence that was in the prompt.  ``custom_id`` is
``gl1:<project key>:<feature>:<config>:<prompt hash>:<settings tag>``; the project key is a hash of
the project's grammars (sha256), so a result is never imported into another project, and on import
the prompt is rebuilt from the project as it is now: a re-ingested grammar or a renamed language no
longer matches the hash, and that line is refused.

Both files are streamed line by line (never read whole), so memory stays flat however many
grammars a file covers.  Imports run in one transaction per project (every line in a savepoint of
its own, so one bad line never spoils the others); a killed import leaves each project as it was or
complete, and importing again stores each answer exactly once.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from core.errors import GrammarLensError
from core.progress import Progress, null_progress

CUSTOM_ID_PREFIX = "gl1"
ENDPOINT = "/v1/chat/completions"
MAX_LISTED_PROBLEMS = 1_000  # a report lists this many problems by line, and counts the rest
BATCH_PRICE_FACTOR = 0.5  # OpenAI's Batch API charges half the online price
OPENAI_URL = "https://api.openai.com/"


@dataclass(frozen=True)
class LineProblem:
    """Why one line of a file was not imported as a plain answer (``line`` is 1-based)."""

    line: int
    kind: str  # broken | error | unknown | stale | unparsable | duplicate | failed
    message: str
    custom_id: str | None = None

    def describe(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass
class _Problems:
    listed: list[LineProblem] = field(default_factory=list)
    left_out: int = 0

    def add(self, problem: LineProblem) -> None:
        if len(self.listed) < MAX_LISTED_PROBLEMS:
            self.listed.append(problem)
        else:
            self.left_out += 1


@dataclass
class BatchWriteReport:
    """What :func:`write_batch_requests` wrote: lines per project and features skipped as answered."""

    out_path: Path
    written: int = 0
    skipped: int = 0  # features already answered (their job item is done)
    per_project: dict[str, int] = field(default_factory=dict)
    problems: list[LineProblem] = field(default_factory=list)  # features whose prompt could not be built
    seconds: float = 0.0

    def describe(self) -> str:
        text = (f"wrote {self.written:,} request(s) to {self.out_path} from {len(self.per_project)} project(s); "
                f"{self.skipped:,} feature(s) already answered were skipped")
        return text + (f"; {len(self.problems)} feature(s) failed" if self.problems else "")

    def to_json(self) -> dict:
        return {"out": str(self.out_path), "written": self.written, "skipped": self.skipped,
                "per_project": self.per_project, "seconds": round(self.seconds, 3),
                "problems": [p.__dict__ for p in self.problems]}


@dataclass
class BatchImportReport:
    """What :func:`import_batch_results` did with each line of a results file."""

    results_path: Path
    lines: int = 0
    imported: int = 0  # stored as new classifications (unparsable answers included, as online)
    already: int = 0  # imported before (by an earlier import): nothing changed
    duplicates: int = 0  # the same custom_id again in this file
    errors: int = 0  # an ``error`` or a non-200 response: nothing stored
    unknown: int = 0  # custom_id not written from the given projects (another batch, another tool)
    stale: int = 0  # the project changed since the request was written: nothing stored
    broken: int = 0  # not JSON, not a result line, or cut off mid-line
    unparsable: int = 0  # stored with no value (the answer named no value of the set), as online
    failed: int = 0  # a line that could not be stored (e.g. the feature left the catalog)
    per_project: dict[str, int] = field(default_factory=dict)
    problems: list[LineProblem] = field(default_factory=list)
    problems_left_out: int = 0
    seconds: float = 0.0

    @property
    def not_imported(self) -> int:
        return self.errors + self.unknown + self.stale + self.broken + self.failed

    def counts(self) -> dict[str, int]:
        return {k: getattr(self, k) for k in ("lines", "imported", "already", "duplicates", "errors", "unknown",
                                              "stale", "broken", "unparsable", "failed")}

    def describe(self) -> str:
        c = self.counts()
        parts = [f"{v:,} {k}" for k, v in c.items() if k not in ("lines", "imported") and v]
        return (f"{c['lines']:,} line(s): {c['imported']:,} imported" + (", " + ", ".join(parts) if parts else ""))

    def to_json(self) -> dict:
        return {**self.counts(), "results": str(self.results_path), "per_project": self.per_project,
                "seconds": round(self.seconds, 3), "problems": [p.__dict__ for p in self.problems],
                "problems_left_out": self.problems_left_out}


# -- identities ------------------------------------------------------------------------------------

def project_key(project) -> str:
    """A short, stable name of a project's grammars: the hash of their sha256 sums."""
    from core.store.repository import list_documents

    shas = sorted(d.sha256 for d in list_documents(project))
    if not shas:
        raise GrammarLensError(f"{project.path.name} holds no grammar.", "Ingest a grammar into it first.")
    return hashlib.sha256("\n".join(shas).encode("ascii")).hexdigest()[:12]


def settings_tag(public_llm: dict) -> str:
    """Six hex digits naming the model, server and sampling settings a request was written for."""
    keys = ("model", "base_url", "temperature", "max_output_tokens", "answer_format")
    payload = json.dumps({k: public_llm.get(k) for k in keys}, sort_keys=True)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:6]


def make_custom_id(pkey: str, feature_id: str, config: str, prompt_hash: str, tag: str) -> str:
    return f"{CUSTOM_ID_PREFIX}:{pkey}:{feature_id}:{config}:{prompt_hash[:16]}:{tag}"


def parse_custom_id(custom_id: str) -> tuple[str, str, str, str, str] | None:
    """(project key, feature, config, prompt hash prefix, settings tag), or None if not ours."""
    parts = custom_id.split(":")
    if len(parts) != 6 or parts[0] != CUSTOM_ID_PREFIX:
        return None
    return parts[1], parts[2], parts[3], parts[4], parts[5]


def request_line(custom_id: str, body: dict) -> str:
    """One line of the OpenAI batch input format (also read by vLLM's run_batch)."""
    return json.dumps({"custom_id": custom_id, "method": "POST", "url": ENDPOINT, "body": body},
                      ensure_ascii=False, separators=(",", ":"))


def _feature(feature_id: str):
    from core.llm.features import feature_of

    return feature_of(feature_id)


# -- retrieval reuse -------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Retrieved:
    """A retrieval without paragraph texts (kept in memory for reuse; texts are read when needed)."""

    run_id: int | None
    settings: dict
    rows: tuple[tuple[int, int | None, int, str, float | None], ...]  # number, paragraph id, rank, page, score


# (project path, paragraphs stamp, feature id, retrieval settings JSON) -> retrieval.  Writing the same
# features for another configuration or model (or a second file) reuses the stored run instead of
# ranking again; the stamp changes when the project's paragraphs change, so a stale run is never used.
_RETRIEVALS: dict[tuple, _Retrieved] = {}
_RETRIEVALS_LIMIT = 50_000
_RETRIEVALS_LOCK = threading.Lock()


def _evidence_for(project, feature, retrieval, fresh: dict) -> _Retrieved:
    """The feature's evidence: reused from an earlier write, else retrieved (and its run stored).

    New retrievals go into ``fresh`` and join the shared cache only once the project's transaction
    has committed, so a cancelled write never leaves a cached run id that was rolled back.
    """
    from core.llm.evidence import retrieve_evidence
    from core.store.repository import paragraphs_stamp

    settings_json = retrieval.to_json() if hasattr(retrieval, "to_json") else repr(retrieval)
    key = (str(project.path), paragraphs_stamp(project), feature.id, settings_json)
    with _RETRIEVALS_LOCK:
        hit = _RETRIEVALS.get(key) or fresh.get(key)
    if hit is not None:
        return hit
    found = retrieve_evidence(project, feature, retrieval)
    rows = tuple((e.number, e.paragraph_id, e.rank, e.page_label, e.score) for e in found.evidence)
    fresh[key] = _Retrieved(found.run_id, found.settings, rows)
    return fresh[key]


def _remember(fresh: dict) -> None:
    with _RETRIEVALS_LOCK:
        if len(_RETRIEVALS) + len(fresh) > _RETRIEVALS_LIMIT:
            _RETRIEVALS.clear()
        _RETRIEVALS.update(fresh)


def _with_texts(project, rows: Sequence[Sequence], sent: int | None = None) -> list | None:
    """Evidence objects for stored rows, texts read from the project (None if a paragraph is gone).

    Only the first ``sent`` rows need their text (the rest were not in the prompt).
    """
    from core.llm.prompts import Evidence
    from core.store.batch_requests import paragraph_texts

    sent = len(rows) if sent is None else sent
    wanted = [r[1] for r in rows[:sent] if r[1] is not None]
    texts = paragraph_texts(project, wanted) if wanted else {}
    items = []
    for i, (number, pid, rank, page, score) in enumerate(rows):
        if i < sent and pid is not None and pid not in texts:
            return None
        items.append(Evidence(number=int(number), rank=int(rank), text=texts.get(pid, "") if i < sent else "",
                              page_label=page or "", paragraph_id=pid, score=score))
    return items


# -- writing ---------------------------------------------------------------------------------------

def write_batch_requests(project_paths: Iterable[str | os.PathLike], feature_ids: Sequence[str],
                         out_path: str | os.PathLike, settings, progress: Progress | None = None, *,
                         feature_set: str | None = None, append: bool = False) -> BatchWriteReport:
    """Write one request line per (project, unanswered feature) to ``out_path``; remember each in its project.

    ``settings`` is a :class:`core.profile.BatchSettings` in ``llm`` mode (its ``llm`` names the model
    the file is meant for).  Features whose profile job item is already done are skipped, as a
    re-run of the online profile skips them.  The file is written to ``OUT.part`` and renamed at
    the end (``append`` adds to an existing file instead).  Each project is updated in one
    transaction (its profile job, retrieval runs and written requests).
    """
    from core.llm.ask import answer_format, prepare_prompt
    from core.llm.classification import language_name
    from core.llm.client import chat_request_body
    from core.llm.settings import LlmSettings
    from core.profile.batch import open_job
    from core.retrieval import RetrievalSettings
    from core.store import open_project
    from core.store.batch_requests import BatchRequest, put_requests

    if getattr(settings, "mode", "llm") != "llm":
        raise GrammarLensError("A batch file needs a model to answer it.", "Leave out --no-llm.")
    progress = progress or null_progress()
    started = time.perf_counter()
    paths = [Path(p) for p in project_paths]
    ids = list(dict.fromkeys(feature_ids))
    if not paths:
        raise GrammarLensError("No project given.", "Name one or more project files.")
    llm = settings.llm or LlmSettings()
    retrieval = settings.retrieval or RetrievalSettings()
    public = llm.to_public_dict()
    tag = settings_tag(public)
    fmt = answer_format(llm)
    config = settings.config
    out = Path(out_path)
    report = BatchWriteReport(out)
    target = out if append else out.with_name(out.name + ".part")
    total = len(paths) * len(ids)
    done = 0
    keys: dict[str, Path] = {}
    try:
        with open(target, "a" if append else "w", encoding="utf-8", newline="\n") as fh:
            for path in paths:
                fresh: dict = {}
                with open_project(path) as project, project.transaction():
                    pkey = project_key(project)
                    if pkey in keys:
                        raise GrammarLensError(f"{path.name} and {keys[pkey].name} hold the same grammars.",
                                               "Write a batch file for one of them at a time.")
                    keys[pkey] = path
                    job = open_job(project, feature_set or ",".join(ids)[:200], ids, settings)
                    pending = set(job.pending)
                    language = language_name(project)
                    rows: list[BatchRequest] = []
                    for fid in ids:
                        done += 1
                        if fid not in pending:
                            report.skipped += 1
                            continue
                        try:
                            feature = _feature(fid)
                            if config == "baseline":
                                found = _Retrieved(None, {}, ())
                            else:
                                found = _evidence_for(project, feature, retrieval, fresh)
                            evidence = _with_texts(project, found.rows) or []
                            prompt, items, note = prepare_prompt(llm, feature, config, language, evidence, fmt)
                        except GrammarLensError as exc:
                            report.problems.append(LineProblem(0, "failed", f"{path.name} {fid}: {exc.message}"))
                            continue
                        body = chat_request_body(llm, prompt.messages, response_format=prompt.response_format)
                        prompt_hash = prompt.hash()
                        custom_id = make_custom_id(pkey, feature.id, config, prompt_hash, tag)
                        fh.write(request_line(custom_id, body) + "\n")
                        rows.append(BatchRequest(
                            custom_id, feature.id, config, language, prompt.answer_format, prompt_hash, public,
                            found.settings, found.run_id, list(found.rows), len(items), note, job.id))
                        report.written += 1
                        report.per_project[str(path)] = report.per_project.get(str(path), 0) + 1
                        if done % 50 == 0:
                            progress.step(done, total, f"{path.name} {fid}")
                    put_requests(project, rows)
                    progress.step(done, total, path.name)  # a cancel here still rolls this project back
                _remember(fresh)
                if len(paths) > 1:  # many grammars: keep one BM25 index in memory at a time
                    from core.retrieval.pipeline import forget_project_index

                    forget_project_index(project.path)
        if not append:
            os.replace(target, out)
    except BaseException:
        if not append:
            with contextlib.suppress(OSError):
                target.unlink()
        raise
    report.seconds = time.perf_counter() - started
    return report


# -- reading results -------------------------------------------------------------------------------

def iter_jsonl(path: str | os.PathLike) -> Iterator[tuple[int, bytes, bool]]:
    """(line number, raw line, ended with a newline) for each non-empty line, streamed."""
    with open(path, "rb") as fh:
        for number, raw in enumerate(fh, start=1):
            complete = raw.endswith(b"\n")
            stripped = raw.strip()
            if stripped:
                yield number, stripped, complete


@dataclass
class _ProjectSession:
    """An open project during an import: its connection, transaction and per-project lookups."""

    path: Path
    project: object
    language: str
    cache: object
    jobs: set = field(default_factory=set)
    _settings: dict = field(default_factory=dict)

    def settings_for(self, public: dict):
        """The LlmSettings a request was written with (one object per distinct settings)."""
        key = json.dumps(public, sort_keys=True)
        if key not in self._settings:
            from dataclasses import fields

            from core.llm.settings import LlmSettings

            known = {f.name for f in fields(LlmSettings)}
            self._settings[key] = (LlmSettings(**{k: v for k, v in public.items() if k in known}),)
        return self._settings[key][0]


def import_batch_results(project_paths: Iterable[str | os.PathLike], results_path: str | os.PathLike,
                         progress: Progress | None = None) -> BatchImportReport:
    """Store the answers of a results file (OpenAI Batch API or vLLM ``run_batch``) in their projects.

    Each line is matched by ``custom_id`` and prompt hash, read and stored exactly as an online
    answer (classification, response cache, profile job item).  Lines with an ``error``, unknown
    ids, prompts that no longer match the project, broken JSON or a cut-off last line are counted
    and listed by line number and store nothing; every good line is still imported.  Each project
    is written in one transaction, committed when the whole file has been read.
    """
    from core.store import open_project

    progress = progress or null_progress()
    started = time.perf_counter()
    source = Path(results_path)
    if not source.is_file():
        raise GrammarLensError(f"{source} does not exist.", "Give the results file the batch run wrote.")
    report = BatchImportReport(source)
    problems = _Problems()
    by_key: dict[str, Path] = {}
    for path in (Path(p) for p in project_paths):
        with open_project(path, readonly=True) as project:
            pkey = project_key(project)
        if pkey in by_key and by_key[pkey] != path:
            raise GrammarLensError(f"{path.name} and {by_key[pkey].name} hold the same grammars.",
                                   "Import the results into one of them at a time.")
        by_key[pkey] = path
    size = max(1, source.stat().st_size)
    seen: set[str] = set()
    position = 0
    with contextlib.ExitStack() as stack:
        sessions: dict[str, _ProjectSession] = {}

        def session(pkey: str) -> _ProjectSession:
            if pkey not in sessions:
                from core.llm.cache import ProjectCache
                from core.llm.classification import language_name

                project = stack.enter_context(open_project(by_key[pkey]))
                stack.enter_context(project.transaction())
                sessions[pkey] = _ProjectSession(by_key[pkey], project, language_name(project), ProjectCache(project))
            return sessions[pkey]

        for number, raw, complete in iter_jsonl(source):
            report.lines += 1
            position += len(raw) + 1
            problem = _import_line(number, raw, complete, by_key, session, seen, report)
            if problem is not None:
                problems.add(problem)
            if report.lines % 200 == 0:
                progress.step(min(position, size), size, f"line {number:,}")
        for s in sessions.values():
            _finish_jobs(s)
    progress.step(size, size, "done")
    report.problems, report.problems_left_out = problems.listed, problems.left_out
    report.seconds = time.perf_counter() - started
    return report


def _import_line(number: int, raw: bytes, complete: bool, by_key: dict, session, seen: set,
                 report: BatchImportReport) -> LineProblem | None:
    """Import one result line; returns the problem to list, if any (the report's counts are updated)."""
    try:
        obj = json.loads(raw)
    except ValueError:
        report.broken += 1
        why = "is cut off (the file ends mid-line)" if not complete else "is not valid JSON"
        return LineProblem(number, "broken", f"{why}; nothing stored from it")
    custom_id = obj.get("custom_id") if isinstance(obj, dict) else None
    if not isinstance(custom_id, str):
        report.broken += 1
        return LineProblem(number, "broken", "is not a batch result line (no custom_id)")
    parsed = parse_custom_id(custom_id)
    if parsed is None:
        report.unknown += 1
        return LineProblem(number, "unknown", f"custom_id {custom_id!r} was not written by GrammarLens "
                                              "(a result file of another batch?)", custom_id)
    pkey = parsed[0]
    if pkey not in by_key:
        report.unknown += 1
        return LineProblem(number, "unknown", f"custom_id {custom_id!r} belongs to a project not given here",
                           custom_id)
    from core.store.batch_requests import get_request

    s = session(pkey)
    request = get_request(s.project, custom_id)
    if request is None:
        report.unknown += 1
        return LineProblem(number, "unknown", f"custom_id {custom_id!r} was not written from {s.path.name} "
                                              "(written from a copy of it, or the file was replaced?)", custom_id)
    if request.classification_id is not None:
        if custom_id in seen:
            report.duplicates += 1
            return LineProblem(number, "duplicate", f"{request.feature_id}: the same answer again in this file; "
                                                    "kept the first", custom_id)
        report.already += 1
        return None
    error = line_error(obj)
    if error is not None:
        report.errors += 1
        return LineProblem(number, "error", f"{request.feature_id}: {error}; nothing stored", custom_id)
    try:
        with s.project.transaction():  # a savepoint: a line is stored whole or not at all
            problem = _store_answer(number, obj, request, s)
    except GrammarLensError as exc:
        report.failed += 1
        return LineProblem(number, "failed", f"{request.feature_id}: {exc.message}", custom_id)
    if problem is not None and problem.kind == "stale":
        report.stale += 1
        return problem
    if problem is not None and problem.kind == "error":
        report.errors += 1
        return problem
    seen.add(custom_id)
    report.imported += 1
    report.per_project[str(s.path)] = report.per_project.get(str(s.path), 0) + 1
    if problem is not None:
        report.unparsable += 1
    return problem


def line_error(obj: dict) -> str | None:
    """Why a result line carries no answer (OpenAI and vLLM both use ``error`` and ``response.status_code``)."""
    error = obj.get("error")
    if error:
        if isinstance(error, dict):
            return "the batch reported an error: " + " ".join(
                str(error.get(k)) for k in ("code", "message") if error.get(k)).strip()
        return f"the batch reported an error: {error}"
    response = obj.get("response")
    if not isinstance(response, dict):
        return "the line has no response"
    status = response.get("status_code", 200)
    body = response.get("body")
    if status != 200:
        detail = ""
        if isinstance(body, dict) and isinstance(body.get("error"), dict):
            detail = ": " + str(body["error"].get("message") or "")
        return f"the request failed with status {status}{detail}"
    if not isinstance(body, dict):
        return "the response has no body"
    return None


def _store_answer(number: int, obj: dict, request, s: _ProjectSession) -> LineProblem | None:
    """Rebuild the prompt, check its hash, read and store the answer. Returns a stale/unparsable problem."""
    from core.llm.ask import read_answer
    from core.llm.cache import cache_key
    from core.llm.classification import classification_of
    from core.llm.client import read_chat_response
    from core.llm.errors import LlmError
    from core.llm.prompts import build_prompt
    from core.store.batch_requests import mark_imported
    from core.store.classifications import save_classification

    settings = s.settings_for(request.llm_settings)
    feature = _feature(request.feature_id)
    items = _with_texts(s.project, request.evidence, request.evidence_sent)
    sent = items[: request.evidence_sent] if items is not None else None
    prompt = None if sent is None else build_prompt(feature, request.config, s.language, sent, request.answer_format)
    if prompt is None or prompt.hash() != request.prompt_hash:
        return LineProblem(number, "stale", f"{request.feature_id}: the prompt no longer matches {s.path.name} "
                                            "(grammar re-ingested or language renamed since the file was written); "
                                            "nothing stored", obj.get("custom_id"))
    try:
        response = read_chat_response(obj["response"]["body"], settings.model, local=settings.is_local())
    except LlmError as exc:
        return LineProblem(number, "error", f"{request.feature_id}: {exc.message}; nothing stored",
                           obj.get("custom_id"))
    if response.cost_usd is not None and settings.public_base_url().startswith(OPENAI_URL):
        from dataclasses import replace

        response = replace(response, cost_usd=response.cost_usd * BATCH_PRICE_FACTOR)
    outcome = read_answer(feature, prompt, response, sent, request.evidence_note)
    record = classification_of(feature, request.config, s.language, settings, items, outcome,
                               request.retrieval_settings, request.retrieval_run_id)
    save_classification(s.project, record, settings.to_public_dict())
    if settings.use_cache and response.content.strip():
        s.cache.put(cache_key(settings, request.prompt_hash), request.prompt_hash, response)
    if request.job_id is not None:
        _tick(s.project, request.job_id, request.feature_id, record.id)
        s.jobs.add(request.job_id)
    mark_imported(s.project, request.custom_id, int(record.id))
    if record.status == "no_value":
        return LineProblem(number, "unparsable", f"{request.feature_id}: the answer names no value of the set "
                                                 f"({record.problem}); stored without a value, as online",
                           request.custom_id)
    return None


def _tick(project, job_id: int, feature_id: str, classification_id: int | None) -> None:
    from core.store.profile_jobs import set_item

    set_item(project, job_id, feature_id, "done", classification_id=classification_id)


def _finish_jobs(s: _ProjectSession) -> None:
    """Mark jobs whose every item is now answered as done, as a finished online run does."""
    from core.profile.batch import load_job
    from core.store.profile_jobs import set_job_state

    for job_id in s.jobs:
        job = load_job(s.project, job_id)
        if not job.pending and job.state != "done":
            set_job_state(s.project, job_id, "done")
