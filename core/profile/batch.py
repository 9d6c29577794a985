"""Batch runs: many features as one resumable job, with an estimate, bounded concurrency and cancel.

Why a job table rather than relying on the LLM response cache: the cache only helps when the very
same prompt is rebuilt, and a crash must never cost a second paid request for a feature that was
already answered.  Each item is ticked as soon as its classification (or retrieval run) is stored;
on resume, items whose result landed after the job's start mark but before the tick are ticked
from the stored rows, so only a feature whose answer never arrived is asked again.

Threads: the calling thread owns the job bookkeeping; each worker thread opens its own project
connection (SQLite connections never cross threads) and shares one :class:`LlmClient`, whose
semaphore bounds concurrent requests.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from core.catalog import load_catalog
from core.errors import Cancelled, GrammarLensError, error_text
from core.llm.errors import LlmError
from core.llm.features import feature_of
from core.llm.pricing import cost_usd
from core.llm.prompts import build_prompt
from core.llm.settings import LlmSettings
from core.llm.tokens import estimate_tokens
from core.progress import Progress, null_progress
from core.records.classifications import Classification
from core.records.vocabulary import ErrorKind, JobState
from core.retrieval import retrieve, store_retrieval_run
from core.retrieval.book_embeddings import embed_book, needs_book_embeddings
from core.retrieval.settings import RetrievalSettings
from core.store import open_project, profile_jobs
from core.store.claims import AnswerClaims
from core.store.classifications import latest_classification_after, max_classification_id
from core.store.database import ProjectDatabase
from core.store.profile_jobs import Job, JobItem  # noqa: F401 - re-exported: core.profile.batch.Job
from core.store.repository import get_language
from core.store.retrieval_runs import latest_run_after, max_run_id

if TYPE_CHECKING:
    from core.llm.client import LlmClient

MODES = ("llm", "retrieval")
EXPECTED_COMPLETION_TOKENS = 400  # a reasoning paragraph plus the value; the paper's answers are about this long
# asking the next feature cannot help:
FATAL_KINDS = {ErrorKind.AUTH, ErrorKind.NO_KEY, ErrorKind.MODEL_NOT_FOUND, ErrorKind.QUOTA, ErrorKind.CONNECTION}
# From this many features on, a job embeds the whole book first (core.retrieval.book_embeddings): their
# candidates cover much of it, and a few features embed their own ~150 candidates in a second or two.
BOOK_FIRST_FEATURES = 20


@dataclass
class BatchSettings:
    """How a batch runs: the mode, the configuration, the model's and the retrieval's settings."""

    mode: str = "llm"
    config: str = "rag"
    llm: LlmSettings | None = None  # None = defaults (no model is asked in retrieval mode)
    retrieval: RetrievalSettings | None = None  # None = defaults
    concurrency: int = 4
    api_key: str | None = field(default=None, repr=False)  # a key the caller holds; never stored (see public)

    def public(self) -> dict:
        """What is stored with the job and decides whether a later run resumes it (never a key)."""
        retrieval = self.retrieval or RetrievalSettings()
        data: dict = {"mode": self.mode, "retrieval": json.loads(retrieval.to_json())}
        if self.mode == "llm":
            llm = self.llm.to_public_dict() if self.llm is not None else {}
            data["config"] = self.config
            data["llm"] = {k: llm.get(k) for k in ("model", "base_url", "temperature", "answer_format")}
        return data


@dataclass
class Estimate:
    """What a batch will cost before it starts (features still to run only)."""

    features: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None  # None: unknown price for this hosted model
    model: str = ""
    local: bool = False

    def describe(self) -> str:
        if self.features == 0:
            return "Nothing to run: every feature of this set is finished."
        cost = ("free (local server)" if self.local else
                f"about ${self.cost_usd:.2f}" if self.cost_usd is not None else "cost unknown for this model")
        return (f"{self.features} feature(s), about {self.prompt_tokens + self.completion_tokens:,} tokens "
                f"({self.prompt_tokens:,} in, {self.completion_tokens:,} out), {cost}")


@dataclass
class BatchResult:
    job_id: int
    ran: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # finished before this run started
    failed: dict[str, str] = field(default_factory=dict)
    state: JobState = JobState.DONE


def job_key(feature_ids: list[str], settings: BatchSettings) -> str:
    payload = json.dumps({"features": feature_ids, **settings.public()}, sort_keys=True)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def open_job(project: ProjectDatabase, feature_set: str, feature_ids: list[str], settings: BatchSettings,
             *, restart: bool = False) -> Job:
    """The job for this request: the latest one with the same features and settings, or a new one.

    ``restart`` always starts a new job (every feature asked again, cache permitting).
    """
    if settings.mode not in MODES:
        raise GrammarLensError(f"Unknown batch mode {settings.mode!r}.", "Use llm or retrieval.")
    if not feature_ids:
        raise GrammarLensError("The feature set is empty.", "Choose at least one feature.")
    key = job_key(feature_ids, settings)
    if not restart:
        existing = profile_jobs.latest_job_id(project, key)
        if existing is not None:
            reconcile(project, existing)
            return load_job(project, existing)
    job_id = profile_jobs.insert_job(
        project, feature_set=feature_set, job_key=key, mode=settings.mode, settings=settings.public(),
        feature_ids=feature_ids, mark_classification_id=max_classification_id(project),
        mark_retrieval_run_id=max_run_id(project))
    return load_job(project, job_id)


def find_job(project: ProjectDatabase, feature_ids: list[str], settings: BatchSettings) -> Job | None:
    """The job a run of these features with these settings would resume (read-only; None if new)."""
    existing = profile_jobs.latest_job_id(project, job_key(feature_ids, settings))
    return load_job(project, existing) if existing is not None else None


def load_job(project: ProjectDatabase, job_id: int) -> Job:
    job = profile_jobs.get_job(project, job_id)
    if job is None:
        raise GrammarLensError(f"There is no profile job {job_id}.", "List jobs with 'profile FILE --jobs'.")
    return job


def list_jobs(project: ProjectDatabase) -> list[Job]:
    return [load_job(project, i) for i in profile_jobs.job_ids(project)]


def reconcile(project: ProjectDatabase, job_id: int) -> int:
    """Tick items whose result was stored after the job's mark but not yet ticked (a crash in between)."""
    job = load_job(project, job_id)
    model = (job.settings.get("llm") or {}).get("model")
    config = job.settings.get("config")
    changes: list[tuple[str, str, int | None, int | None, str | None]] = []
    for item in job.items:
        if item.state == JobState.DONE:
            continue
        if job.mode == "llm":
            cid = latest_classification_after(project, item.feature_id, job.mark_classification_id,
                                              model=model, config=config)
            if cid is not None:
                changes.append((item.feature_id, JobState.DONE, cid, None, None))
        else:
            run_id = latest_run_after(project, item.feature_id, job.mark_retrieval_run_id)
            if run_id is not None:
                changes.append((item.feature_id, JobState.DONE, None, run_id, None))
    profile_jobs.set_items(project, job_id, changes)
    return len(changes)


def estimate(project: ProjectDatabase, feature_ids: list[str], settings: BatchSettings) -> Estimate:
    """Tokens and price of asking ``feature_ids``: prompt text + evidence budget in, a typical answer out."""
    if settings.mode != "llm":
        return Estimate(len(feature_ids), 0, 0, 0.0, "", True)
    llm = settings.llm or LlmSettings()
    retrieval = settings.retrieval or RetrievalSettings()
    language = get_language(project)
    name = language.name if language else ""
    room = int(llm.context_window() * 0.95) - llm.max_output_tokens
    prompt_tokens = 0
    for fid in feature_ids:
        spec = feature_of(fid)
        bare = estimate_tokens(build_prompt(spec, settings.config, name, [], "json_schema").text())
        evidence = 0 if settings.config == "baseline" else retrieval.budget_tokens
        prompt_tokens += min(bare + evidence, max(room, bare))
    completion = EXPECTED_COMPLETION_TOKENS * len(feature_ids)
    local = llm.is_local()
    return Estimate(len(feature_ids), prompt_tokens, completion,
                    cost_usd(llm.model, prompt_tokens, completion, local=local), llm.model, local)


@dataclass
class _JobRun:
    """One run of a job: what its worker threads share (the stop flag, the first fatal error, the result).

    Why an object: the workers, the loop that collects their results and the end of the run read the
    same few things; as closures inside :func:`run_job` they made it a 90-line function.
    """

    project_path: str | Path
    job_id: int
    settings: BatchSettings
    progress: Progress
    result: BatchResult
    client: LlmClient | None = None  # an "llm" run's (openai is imported only by a run that asks a model)
    claims: AnswerClaims | None = None  # the window's: each answer stored is claimed as the window's run's
    stop: threading.Event = field(default_factory=threading.Event)
    fatal: list[BaseException] = field(default_factory=list)

    def work(self, feature_id: str) -> tuple[str, int | None, int | None]:
        """Run one feature in a worker thread (nothing once the run is stopping)."""
        if self.stop.is_set() or self.progress.cancelled:
            return feature_id, None, None
        try:
            return self._one(feature_id)
        except Exception as exc:
            if _is_fatal(exc):
                self.stop.set()  # here, not in the caller: the next queued feature must not start first
            raise

    def _one(self, feature_id: str) -> tuple[str, int | None, int | None]:
        settings = self.settings
        with open_project(self.project_path) as conn:
            if settings.mode == "llm":
                from core.llm.classification import classify  # openai, as LlmClient in run_job

                claimed: list[int] = []
                try:
                    c = classify(conn, feature_of(feature_id), config=settings.config, client=self.client,
                                 retrieval_settings=settings.retrieval,
                                 stored=lambda c: self._tick(conn, feature_id, c, claimed))
                except BaseException:
                    if self.claims is not None and claimed:  # rolled back: the id goes to the next row, maybe another's
                        self.claims.unclaim(self.project_path, claimed)
                    raise
                return feature_id, c.id, c.retrieval_run_id
            run_id = _retrieve_only(conn, feature_id, settings)
            profile_jobs.set_item(conn, self.job_id, feature_id, JobState.DONE, retrieval_run_id=run_id)
            return feature_id, None, run_id

    def _tick(self, conn: ProjectDatabase, feature_id: str, c: Classification, claimed: list[int]) -> None:
        """Inside the answer's own transaction: its job item is ticked, and the caller's claim on it taken.

        Why there and not after: in a second transaction the answer was committed alone for a moment,
        so a crash left it unticked, and the window's watch could find it then without its claim,
        as another program's.  The claim (:mod:`core.store.claims`) is what tells the window's run's
        answers from another program's answers stored meanwhile, which used to be credited to the run.
        """
        assert c.id is not None  # set by save_classification
        profile_jobs.set_item(conn, self.job_id, feature_id, JobState.DONE, classification_id=c.id)
        if self.claims is not None:
            self.claims.claim(self.project_path, c.id)
            claimed.append(c.id)

    def collect(self, project: ProjectDatabase, futures: dict[Future, str], done: int, total: int) -> None:
        """Record each feature as it finishes (a failure per feature); raise the first fatal error at the end."""
        remaining = set(futures)
        while remaining:
            finished, remaining = wait(remaining, timeout=0.2, return_when=FIRST_COMPLETED)
            for fut in finished:
                fid = futures[fut]
                try:
                    _, cid, run_id = fut.result()
                    if cid is not None or run_id is not None:
                        self.result.ran.append(fid)
                        done += 1
                except Exception as exc:  # recorded per feature; fatal ones stop the job
                    message = error_text(exc)
                    self.result.failed[fid] = message
                    profile_jobs.set_item(project, self.job_id, fid, JobState.FAILED, error=message)
                    if _is_fatal(exc):
                        self.stop.set()
                        self.fatal.append(exc)
                self.progress.step(done, total, fid)
            if not finished:
                self.progress.check()
        if self.fatal:
            raise self.fatal[0]


def run_job(project_path: str | Path, job_id: int, settings: BatchSettings,
            progress: Progress | None = None, claims: AnswerClaims | None = None) -> BatchResult:
    """Run the job's unfinished features, ``settings.concurrency`` at a time.

    Finished items are skipped.  Cancelling (``progress.cancel()``) lets requests already sent
    finish and be stored, starts no new ones, marks the job cancelled and raises
    :class:`Cancelled`; a later run resumes it.  A fatal error (bad key, unknown model, server
    unreachable) stops the job the same way and is raised.  ``claims``: each answer stored is
    claimed there, in its own transaction (the window's watch tells them from another program's).
    """
    progress = progress or null_progress()
    with open_project(project_path) as project:
        reconcile(project, job_id)
        job = load_job(project, job_id)
        profile_jobs.set_job_state(project, job_id, JobState.RUNNING)
    run = _JobRun(project_path, job_id, settings, progress, BatchResult(job_id, skipped=job.done), claims=claims)
    todo = job.pending
    total, done = len(job.items), len(job.done)
    if settings.mode == "llm" and todo:
        from core.llm.client import LlmClient  # openai (~0.7 s): only a run that asks a model pays for it

        run.client = LlmClient(settings.llm or LlmSettings(), api_key=settings.api_key)
    progress.step(done, total, f"{len(todo)} to run, {done} finished before")
    with open_project(project_path) as project:
        pool = ThreadPoolExecutor(max_workers=max(1, int(settings.concurrency)), thread_name_prefix="profile")
        try:
            if len(todo) >= BOOK_FIRST_FEATURES:
                _embed_book_first(project, settings, progress)
            run.collect(project, {pool.submit(run.work, f): f for f in todo}, done, total)
        except BaseException as exc:
            run.stop.set()
            pool.shutdown(wait=True, cancel_futures=True)
            state = JobState.CANCELLED if isinstance(exc, (Cancelled, KeyboardInterrupt)) else JobState.FAILED
            reconcile(project, job_id)
            profile_jobs.set_job_state(project, job_id, state)
            raise
        pool.shutdown(wait=True)
        state = JobState.DONE if not run.result.failed else JobState.INCOMPLETE
        profile_jobs.set_job_state(project, job_id, state)
    run.result.state = state
    return run.result


def _embed_book_first(project: ProjectDatabase, settings: BatchSettings, progress: Progress) -> None:
    """Embed every paragraph once, in large batches, before the features ask for theirs.

    A feature's candidates embedded on demand come a few dozen at a time, from several threads at
    once: a 195-feature profile of a 770-page grammar spent 3 minutes and 2 GB that way.  Embedded
    whole (core.retrieval.book_embeddings: resumable, one short transaction per batch) the book
    takes about 80 s once, and every later run of any feature set needs no embedding at all.
    """
    retrieval = settings.retrieval or RetrievalSettings()
    if (settings.mode == "llm" and settings.config == "baseline") or not needs_book_embeddings(retrieval):
        return
    embed_book(project, retrieval, progress)


def _is_fatal(exc: BaseException) -> bool:
    """Errors that make the remaining features pointless to try: bad key, unknown model, bugs."""
    return (isinstance(exc, LlmError) and exc.kind in FATAL_KINDS) or not isinstance(exc, GrammarLensError)


def _retrieve_only(project: ProjectDatabase, feature_id: str, settings: BatchSettings) -> int:
    """Retrieval-only mode: rank and store the evidence of one feature, no model asked."""
    feature = load_catalog().get(feature_id)
    retrieval = settings.retrieval or RetrievalSettings()
    started = time.perf_counter()
    hits = retrieve(project, feature, retrieval)
    return store_retrieval_run(project, feature.id, retrieval, hits, seconds=time.perf_counter() - started)
