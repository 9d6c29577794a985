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
grammars a file covers.  An import reads a line of any shape without raising: a bad line is counted
and listed by number with the reason, and every good line is still stored.  Each line is stored in a
savepoint of its own (whole or not at all), and each project is committed every few hundred lines or
fraction of a second, so the app and the CLI can write to it during a long import; a killed import
keeps the lines committed before it, and importing again stores the rest, each answer exactly once.
Before an import first writes to a project, a backup of it is taken ("before-import", see
:mod:`core.store.backups`); one that cannot be written is a warning of the report, not a stop.
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

from core.errors import Cancelled, GrammarLensError, ProjectError
from core.llm.client import MAX_TOKENS, token_count
from core.progress import Progress, null_progress

CUSTOM_ID_PREFIX = "gl1"
ENDPOINT = "/v1/chat/completions"
MAX_LISTED_PROBLEMS = 1_000  # a report lists this many problems by line, and counts the rest
BATCH_PRICE_FACTOR = 0.5  # OpenAI's Batch API charges half the online price
OPENAI_URL = "https://api.openai.com/"
CHUNK_LINES = 200  # an import commits its projects at least every this many lines...
CHUNK_SECONDS = 0.1  # ...and this often, so that it never holds a project's write lock for longer
CHUNK_PAUSE = 0.025  # then it leaves the lock free this long (see _Importer.run)
MAX_LINE_BYTES = 16 * 2 ** 20  # a longer result line is skipped unread (an answer line is a few kB)


@dataclass(frozen=True)
class LineProblem:
    """Why one line of a file was not imported as a plain answer (``line`` is 1-based)."""

    line: int
    kind: str  # broken | error | unknown | stale | unparsable | usage | duplicate | failed
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
    broken: int = 0  # not JSON or not UTF-8, not a result line, a field of the wrong type, cut off mid-line
    unparsable: int = 0  # stored with no value (the answer named no value of the set), as online
    usage_unread: int = 0  # stored, but the token counts were unreadable (its cost is unknown)
    failed: int = 0  # a line that could not be stored (e.g. the feature left the catalog)
    per_project: dict[str, int] = field(default_factory=dict)
    problems: list[LineProblem] = field(default_factory=list)
    problems_left_out: int = 0
    warnings: list[str] = field(default_factory=list)  # e.g. a backup before the import that could not be taken
    seconds: float = 0.0

    @property
    def not_imported(self) -> int:
        """Lines whose answer is not in the project (duplicates and answers imported before are)."""
        return self.errors + self.unknown + self.stale + self.broken + self.failed

    @property
    def stored(self) -> int:
        """Answers of this file that are in the projects now: imported by this run or by an earlier one."""
        return self.imported + self.already

    def outcome(self) -> str:
        """The report's last sentence: what is in the projects now, and what to do about the rest; then
        each warning (a backup that could not be taken), so that the CLI's last lines show it too."""
        return " ".join([self._stored_outcome()] + [f"Warning: {w}" for w in self.warnings])

    def _stored_outcome(self) -> str:
        name = self.results_path.name
        if self.lines == 0:
            return f"Nothing imported: {name} holds no result lines."
        if not self.stored:
            return (f"Nothing could be imported: none of the {self.lines:,} line(s) of {name} holds an answer "
                    "that could be stored (the reasons are listed above).")
        stored = f"{self.imported:,} answer(s) stored" + (
            f", {self.already:,} stored by an earlier import" if self.already else "")
        if not self.not_imported:
            return f"Every answer of {name} is in the project ({stored})."
        return (f"The good lines were stored ({stored}); {self.not_imported:,} line(s) were not (the reasons are "
                "listed above). Importing the file again, fixed or fetched again, stores only what is missing.")

    def counts(self) -> dict[str, int]:
        return {k: getattr(self, k) for k in ("lines", "imported", "already", "duplicates", "errors", "unknown",
                                              "stale", "broken", "unparsable", "usage_unread", "failed")}

    def describe(self) -> str:
        c = self.counts()
        parts = [f"{v:,} {k}" for k, v in c.items() if k not in ("lines", "imported") and v]
        return (f"{c['lines']:,} line(s): {c['imported']:,} imported" + (", " + ", ".join(parts) if parts else ""))

    def to_json(self) -> dict:
        return {**self.counts(), "stored": self.stored, "outcome": self.outcome(), "results": str(self.results_path),
                "per_project": self.per_project, "seconds": round(self.seconds, 3),
                "problems": [p.__dict__ for p in self.problems], "problems_left_out": self.problems_left_out,
                "warnings": list(self.warnings)}


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
    from core.output_paths import check_output_file

    check_output_file(out_path)  # never a project, a PDF or a folder; an earlier requests file may be rewritten
    if not append:
        check_output_file(Path(out_path).with_name(Path(out_path).name + ".part"))
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
        for number, raw, complete, _end in _result_lines(fh, max_bytes=None):
            yield number, raw, complete


def _result_lines(fh, max_bytes: int | None) -> Iterator[tuple[int, bytes | None, bool, int]]:
    """(line number, stripped line or None if longer than ``max_bytes``, ended with a newline, bytes read so far).

    Blank lines are skipped but counted.  A line longer than ``max_bytes`` is skipped unread (never
    held in memory whole), so one runaway line cannot exhaust memory.
    """
    number = position = 0
    while True:
        raw = fh.readline() if max_bytes is None else fh.readline(max_bytes + 1)
        if not raw:
            return
        number += 1
        position += len(raw)
        if max_bytes is not None and len(raw) > max_bytes and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):  # skip the rest of the line, a megabyte at a time
                raw = fh.readline(2 ** 20)
                position += len(raw)
            yield number, None, True, position
            continue
        stripped = raw.strip()
        if stripped:
            yield number, stripped, raw.endswith(b"\n"), position


@dataclass
class _ProjectSession:
    """An open project during an import: its connection and per-project lookups."""

    path: Path
    project: object
    language: str
    cache: object
    warnings: list[str] = field(default_factory=list)  # the report's list: a backup that failed is told there
    jobs: set = field(default_factory=set)
    backed_up: bool = False
    _settings: dict = field(default_factory=dict)

    def back_up(self) -> None:
        """Keep the project as it was before this import, once, just before its first answer is stored.

        Taken then, and not on opening, so that an import storing nothing here (a file of another
        batch, one imported before, stale lines) leaves no backup behind.  It is copied through a
        read-only connection of its own: SQLite's backup API cannot read through a connection in a
        write transaction (it waited forever on this chunk's), and a reader sees the last commit,
        which holds no answer of this import yet.  A backup that cannot be written does not stop the
        import: it becomes a warning of the report.
        """
        if self.backed_up:
            return
        self.backed_up = True
        from core.store import open_project
        from core.store.backups import make_backup

        try:
            with open_project(self.path, readonly=True, backup=False) as reader:
                make_backup(reader, "before-import")
        except ProjectError as exc:
            self.warnings.append(f"No backup of {self.path.name} could be taken before the import, which went on: "
                                 f"{_text(exc.message, 400).rstrip('.')}. {exc.hint}".strip())

    def settings_for(self, public: dict):
        """The LlmSettings a request was written with (one object per distinct settings)."""
        key = json.dumps(public, sort_keys=True)
        if key not in self._settings:
            from dataclasses import fields

            from core.llm.settings import LlmSettings

            known = {f.name for f in fields(LlmSettings)}
            self._settings[key] = (LlmSettings(**{k: v for k, v in public.items() if k in known}),)
        return self._settings[key][0]


class _Chunk:
    """The transactions one chunk of an import holds (one per project it reads or writes), all ended together.

    Why chunks: a whole file in one transaction held each project's write lock for minutes, so the
    app or a second CLI command writing to the project meanwhile failed with "locked".  A chunk
    ends after :data:`CHUNK_LINES` lines or :data:`CHUNK_SECONDS`, whichever comes first; inside
    it every line is a savepoint of its own, stored whole or not at all.
    """

    def __init__(self, stack: contextlib.ExitStack) -> None:
        self._stack = stack
        self.open: dict[Path, _ProjectSession] = {}
        self.lines = 0
        self.opened_at: float | None = None

    def enter(self, s: _ProjectSession) -> None:
        if s.path not in self.open:
            self._stack.enter_context(s.project.transaction())
            self.open[s.path] = s
            if self.opened_at is None:
                self.opened_at = time.monotonic()

    def due(self) -> bool:
        return self.lines >= CHUNK_LINES or (
            self.opened_at is not None and time.monotonic() - self.opened_at >= CHUNK_SECONDS)

    def intact(self) -> bool:
        """False once SQLite itself rolled a transaction back (disk full, I/O error): stop, do not go on."""
        return all(s.project.conn.in_transaction for s in self.open.values())


class BadLine(Exception):
    """A result line that cannot be read: ``kind`` and ``reason`` go to the report as they are.

    Raised by :func:`answer_body`, which ``bench rag --batch-in`` (:mod:`bench.rag_batch`) uses too.
    """

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


def import_batch_results(project_paths: Iterable[str | os.PathLike], results_path: str | os.PathLike,
                         progress: Progress | None = None) -> BatchImportReport:
    """Store the answers of a results file (OpenAI Batch API or vLLM ``run_batch``) in their projects.

    Each line is matched by ``custom_id`` and prompt hash, read and stored exactly as an online
    answer (classification, response cache, profile job item).  A line of any other shape (not
    JSON, not UTF-8, not an object, a field of the wrong type, an ``error``, an unknown id, a prompt
    that no longer matches the project, a cut-off last line, a runaway length) is counted and listed
    by line number with the reason and stores nothing; every good line is still imported.

    Each line is stored whole or not at all (a savepoint), and the projects are committed every
    :data:`CHUNK_LINES` lines or :data:`CHUNK_SECONDS`, so the app and the CLI can write to them
    during a long import.  A killed or cancelled import keeps the lines committed before it; importing
    the file again stores the rest, and never an answer twice.  Each project receiving answers is
    backed up once, before the first is stored (a failed backup is one of ``report.warnings``).
    """
    progress = progress or null_progress()
    started = time.perf_counter()
    source = Path(results_path)
    if not source.is_file():
        raise GrammarLensError(f"{source} does not exist.", "Give the results file the batch run wrote.")
    importer = _Importer(source, _project_keys(project_paths))
    try:
        fh = open(source, "rb")
    except OSError as exc:
        raise GrammarLensError(f"Cannot read {source}: {exc.strerror or exc}.",
                               "Check the file's permissions.") from exc
    size = max(1, source.stat().st_size)
    with fh, contextlib.ExitStack() as connections:
        importer.connections = connections
        try:
            importer.run(_result_lines(fh, MAX_LINE_BYTES), progress, size)
        except OSError as exc:  # the results file, not the project (SQLite raises its own errors)
            raise GrammarLensError(
                f"Reading {source.name} failed after line {importer.report.lines:,}: {exc.strerror or exc}.",
                f"The {importer.committed:,} answer(s) stored before were kept; import the file again once it "
                "can be read (nothing is stored twice).") from exc
        importer.finish_jobs()
    with contextlib.suppress(Cancelled):  # all is stored: a cancel now has nothing left to stop
        progress.step(size, size, "done")
    report = importer.report
    report.problems, report.problems_left_out = importer.problems.listed, importer.problems.left_out
    report.seconds = time.perf_counter() - started
    return report


def _project_keys(project_paths: Iterable[str | os.PathLike]) -> dict[str, Path]:
    from core.store import open_project

    by_key: dict[str, Path] = {}
    for path in (Path(p) for p in project_paths):
        with open_project(path, readonly=True) as project:
            pkey = project_key(project)
        if pkey in by_key and by_key[pkey] != path:
            raise GrammarLensError(f"{path.name} and {by_key[pkey].name} hold the same grammars.",
                                   "Import the results into one of them at a time.")
        by_key[pkey] = path
    return by_key


class _Importer:
    """One import: the projects by key, their open connections, the report and the chunk under way."""

    def __init__(self, source: Path, by_key: dict[str, Path]) -> None:
        self.source = source
        self.by_key = by_key
        self.report = BatchImportReport(source)
        self.problems = _Problems()
        self.sessions: dict[str, _ProjectSession] = {}
        self.seen: set[str] = set()  # custom ids imported (or found imported) by this run
        self.connections: contextlib.ExitStack | None = None
        self.chunk: _Chunk | None = None
        self.committed = 0  # answers imported in chunks already committed

    def run(self, lines: Iterator[tuple[int, bytes | None, bool, int]], progress: Progress, size: int) -> None:
        """Import every line, one chunk (see :class:`_Chunk`) at a time; progress and cancel between chunks."""
        number = 0
        while True:
            imported_before = self.report.imported
            try:
                with contextlib.ExitStack() as stack:
                    chunk = self.chunk = _Chunk(stack)
                    finished = True
                    for number, raw, complete, position in lines:
                        self.line(number, raw, complete)
                        chunk.lines += 1
                        if chunk.due():
                            finished = False
                            break
            except ProjectError as exc:
                raise ProjectError(
                    f"{exc.message} The import stopped at line {number:,} of {self.source.name}; the "
                    f"{self.committed:,} answer(s) stored before that line were kept.",
                    (exc.hint + " " if exc.hint else "") + "Then import the file again: it stores the rest, "
                    "and no answer twice.") from exc
            finally:
                self.chunk = None
            self.committed += self.report.imported - imported_before
            if finished:
                return
            if chunk.opened_at is not None:
                # A writer waiting for the lock (the app, another CLI command) is not queued: SQLite's busy
                # handler polls after 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, then every 100 ms, and found
                # the next chunk already holding the lock nearly every time (waits of 0.7 s behind 0.1 s
                # chunks).  A pause of 25 ms cannot fall between its polls of the first 130 ms, so a writer
                # gets in after at most about one chunk, for a fifth of the import's speed.
                time.sleep(CHUNK_PAUSE)
            try:
                progress.step(min(position, size), size, f"line {number:,}")
            except Cancelled:
                raise Cancelled(f"Cancelled at line {number:,} of {self.source.name}; the {self.committed:,} "
                                "answer(s) stored before were kept. Import the file again to store the rest.") from None

    def session(self, pkey: str) -> _ProjectSession:
        """The project of ``pkey``, opened once, with this chunk's transaction begun on it."""
        s = self.sessions.get(pkey)
        if s is None:
            from core.llm.cache import ProjectCache
            from core.llm.classification import language_name
            from core.store import open_project

            project = self.connections.enter_context(open_project(self.by_key[pkey]))
            with project.transaction():
                language = language_name(project)
            s = self.sessions[pkey] = _ProjectSession(self.by_key[pkey], project, language, ProjectCache(project),
                                                      self.report.warnings)
        self.chunk.enter(s)
        return s

    def line(self, number: int, raw: bytes | None, complete: bool) -> None:
        """Import one line, counting it once and listing its problem, whatever its shape."""
        report = self.report
        report.lines += 1
        try:
            problem = self._import(number, raw, complete)
        except BadLine as bad:
            _count_kind(report, bad.kind)
            problem = LineProblem(number, bad.kind, bad.reason)
        except (ProjectError, Cancelled):
            raise
        except GrammarLensError as exc:  # e.g. the feature left the catalog
            report.failed += 1
            problem = LineProblem(number, "failed", f"{_text(exc.message).rstrip('.')}; nothing stored")
        except Exception as exc:  # noqa: BLE001 - a shape nobody foresaw costs its own line, never the others
            if not self.chunk.intact():
                raise
            report.failed += 1
            problem = LineProblem(number, "failed", f"could not be imported ({type(exc).__name__}: {_text(str(exc))}); "
                                                    "nothing stored. This is a bug in GrammarLens: please report it")
        if problem is not None:
            self.problems.add(problem)

    def _import(self, number: int, raw: bytes | None, complete: bool) -> LineProblem | None:
        """Import one line; returns the problem to list (counted here), or raises BadLine."""
        from core.store.batch_requests import get_request

        report = self.report
        obj = _json_line(raw, complete)
        custom_id = obj.get("custom_id")
        if custom_id is None:
            raise BadLine("broken", "is not a batch result line (no custom_id); nothing stored")
        if not isinstance(custom_id, str):
            raise BadLine("broken", f"custom_id is {_kind(custom_id)}, not text; nothing stored")
        shown = _text(repr(custom_id), 100)
        parsed = parse_custom_id(custom_id) if _storable(custom_id) else None
        if parsed is None:
            raise BadLine("unknown", f"custom_id {shown} was not written by GrammarLens "
                                      "(a result file of another batch?)")
        pkey = parsed[0]
        if pkey not in self.by_key:
            raise BadLine("unknown", f"custom_id {shown} belongs to a project not given here")
        s = self.session(pkey)
        request = get_request(s.project, custom_id)
        if request is None:
            raise BadLine("unknown", f"custom_id {shown} was not written from {s.path.name} "
                                      "(written from a copy of it, or the file was replaced?)")
        if request.classification_id is not None:
            if request.job_id is not None:  # a job whose last answers an earlier, killed import stored
                s.jobs.add(request.job_id)
            if custom_id in self.seen:
                report.duplicates += 1
                return LineProblem(number, "duplicate", f"{request.feature_id}: the same answer again in this file; "
                                                        "kept the first", custom_id)
            self.seen.add(custom_id)
            report.already += 1
            return None
        try:
            kind_reason = _line_problem(obj)
            if kind_reason is not None:
                raise BadLine(*kind_reason)
            body, usage_read = answer_body(obj["response"]["body"])
        except BadLine as bad:
            raise BadLine(bad.kind, f"{request.feature_id}: {bad.reason}; nothing stored") from None
        with s.project.transaction():  # a savepoint: a line is stored whole or not at all
            problem = _store_answer(number, body, usage_read, request, s)
        if problem is not None:
            _count_kind(report, problem.kind)
            if problem.kind in ("stale", "error"):  # nothing stored
                return problem
        self.seen.add(custom_id)
        report.imported += 1
        report.per_project[str(s.path)] = report.per_project.get(str(s.path), 0) + 1
        return problem

    def finish_jobs(self) -> None:
        for s in self.sessions.values():
            with s.project.transaction():
                _finish_jobs(s)


_COUNTERS = {"broken": "broken", "unknown": "unknown", "error": "errors", "stale": "stale", "failed": "failed",
             "unparsable": "unparsable", "usage": "usage_unread", "duplicate": "duplicates"}


def _count_kind(report: BatchImportReport, kind: str) -> None:
    setattr(report, _COUNTERS[kind], getattr(report, _COUNTERS[kind]) + 1)


def _json_line(raw: bytes | None, complete: bool) -> dict:
    """The JSON object of a line, or BadLine saying why there is none."""
    if raw is None:
        raise BadLine("broken", f"is longer than {MAX_LINE_BYTES:,} bytes, more than any answer; "
                                 "skipped unread, nothing stored")
    try:
        obj = json.loads(raw)
    except UnicodeDecodeError as exc:
        why = "is cut off (the file ends mid-line)" if not complete else (
            f"is not UTF-8 text (byte 0x{exc.object[exc.start:exc.start + 1].hex()} at column {exc.start + 1})")
        raise BadLine("broken", f"{why}; nothing stored from it") from None
    except json.JSONDecodeError as exc:
        why = "is cut off (the file ends mid-line)" if not complete else (
            f"is not valid JSON ({exc.msg} at column {exc.colno})")
        raise BadLine("broken", f"{why}; nothing stored from it") from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise BadLine("broken", f"is not valid JSON ({_text(str(exc), 80)}); nothing stored from it") from None
    except RecursionError:
        raise BadLine("broken", "is JSON nested too deeply to read; nothing stored from it") from None
    if not isinstance(obj, dict):
        raise BadLine("broken", f"is {_kind(obj)}, not a batch result line (a JSON object); nothing stored from it")
    return obj


def line_error(obj: dict) -> str | None:
    """Why a result line carries no answer (OpenAI and vLLM both use ``error`` and ``response.status_code``)."""
    problem = _line_problem(obj)
    return problem[1] if problem is not None else None


def _line_problem(obj: dict) -> tuple[str, str] | None:
    """("error" or "broken", why) when a result line carries no answer body; None when it does."""
    error = obj.get("error")
    if error:
        if isinstance(error, dict):
            detail = " ".join(_text(error.get(k)) for k in ("code", "message") if error.get(k)).strip()
        else:
            detail = _text(error)
        return "error", f"the batch reported an error: {detail or 'no reason given'}"
    response = obj.get("response")
    if response is None:
        return "error", "the line has no response"
    if not isinstance(response, dict):
        return "broken", f"the response is {_kind(response)}, not an object"
    status = token_count(response.get("status_code", 200), limit=999)
    if status is None:
        return "broken", f"the response's status_code is {_kind(response.get('status_code'))}, not an HTTP status"
    body = response.get("body")
    if status != 200:
        detail = ""
        if isinstance(body, dict) and isinstance(body.get("error"), dict):
            detail = ": " + _text(body["error"].get("message") or "")
        return "error", f"the request failed with status {status}{detail}"
    if body is None:
        return "error", "the response has no body"
    if not isinstance(body, dict):
        return "broken", f"the response's body is {_kind(body)}, not an object"
    return None


def answer_body(body: dict) -> tuple[dict, bool]:
    """A chat completion reduced to what GrammarLens reads, each part checked: (body, usage was readable).

    The online reader (:func:`core.llm.client.read_chat_response`) then gets only values of the types
    it expects, so a batch answer is still read exactly as an online one.  A wrong type where the
    answer lives raises :class:`BadLine`; unreadable token counts only make the cost unknown.  Used by
    the import and by ``bench rag --batch-in``, so both check an answer's body the same way.
    """
    choices = body.get("choices")
    if choices is None or choices == []:
        return {"choices": [], "model": _model_of(body)}, True  # read_chat_response: "a reply without any answer"
    if not isinstance(choices, list):
        raise BadLine("broken", f"the response's choices is {_kind(choices)}, not a list")
    choice = choices[0]
    if not isinstance(choice, dict):
        raise BadLine("broken", f"the response's first choice is {_kind(choice)}, not an object")
    message = choice.get("message")
    if not isinstance(message, dict):
        raise BadLine("broken", f"the response's first choice has {_kind(message)} as its message, not an object")
    content = message.get("content")
    if isinstance(content, list):  # content parts, as some servers send: keep the text ones
        texts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        if len(texts) != len(content) or not all(isinstance(t, str) for t in texts):
            raise BadLine("broken", "the answer's content parts are not all text")
        content = "".join(texts)
    if content is not None and not isinstance(content, str):
        raise BadLine("broken", f"the answer's content is {_kind(content)}, not text")
    finish = choice.get("finish_reason")
    usage, usage_read = _usage_of(body.get("usage"))
    return {"choices": [{"message": {"content": _without_lone_surrogates(content or "")},
                         "finish_reason": finish if isinstance(finish, str) else None}],
            "usage": usage, "model": _model_of(body)}, usage_read


def _model_of(body: dict) -> str | None:
    model = body.get("model")
    return _without_lone_surrogates(model)[:200] if isinstance(model, str) and model else None


def _usage_of(usage: object) -> tuple[dict | None, bool]:
    """Token counts as ints (numbers given as text, "12", are read too); (None, False) if unreadable."""
    if usage is None:
        return None, True
    if not isinstance(usage, dict):
        return None, False
    counts = {}
    for name in ("prompt_tokens", "completion_tokens"):
        value = usage.get(name)
        counts[name] = 0 if value is None else token_count(value, MAX_TOKENS)
        if counts[name] is None:
            return None, False
    return counts, True


def _kind(value: object) -> str:
    """How a JSON value is described in a problem: 'a list', 'the number 12', 'null'."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"the number {_text(repr(value), 30)}"
    if isinstance(value, str):
        return f"the text {_text(repr(value), 40)}"
    return {dict: "an object", list: "a list"}.get(type(value), type(value).__name__)


def _storable(text: str) -> bool:
    """Whether SQLite can store ``text``: not when it holds a lone surrogate (JSON's "\\ud800" yields one)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _without_lone_surrogates(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD (a split pair shows instead of failing the line)."""
    return text if _storable(text) else text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _text(value: object, limit: int = 200) -> str:
    """``value`` as one printable line of at most ``limit`` characters (for a problem's message)."""
    try:
        text = value if isinstance(value, str) else str(value)
    except (ValueError, RecursionError):  # a structure nested too deeply to print
        text = type(value).__name__
    text = " ".join(text.encode("utf-8", "backslashreplace").decode("utf-8").split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _store_answer(number: int, body: dict, usage_read: bool, request, s: _ProjectSession) -> LineProblem | None:
    """Rebuild the prompt, check its hash, read and store the answer.

    Returns a stale or error problem (nothing stored), or an unparsable or usage note (stored).
    """
    from dataclasses import replace

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
                                            "nothing stored", request.custom_id)
    try:
        response = read_chat_response(body, settings.model, local=settings.is_local())
    except LlmError as exc:
        return LineProblem(number, "error", f"{request.feature_id}: {_text(exc.message).rstrip('.')}; nothing stored",
                           request.custom_id)
    if not usage_read:
        response = replace(response, prompt_tokens=0, completion_tokens=0, cost_usd=None)
    elif response.cost_usd is not None and settings.public_base_url().startswith(OPENAI_URL):
        response = replace(response, cost_usd=response.cost_usd * BATCH_PRICE_FACTOR)
    outcome = read_answer(feature, prompt, response, sent, request.evidence_note)
    record = classification_of(feature, request.config, s.language, settings, items, outcome,
                               request.retrieval_settings, request.retrieval_run_id)
    s.back_up()  # before the project's first write of this import
    save_classification(s.project, record, settings.to_public_dict())
    if settings.use_cache and response.content.strip():
        s.cache.put(cache_key(settings, request.prompt_hash), request.prompt_hash, response)
    if request.job_id is not None:
        _tick(s.project, request.job_id, request.feature_id, record.id)
        s.jobs.add(request.job_id)
    mark_imported(s.project, request.custom_id, int(record.id))
    if record.status == "no_value":
        return LineProblem(number, "unparsable", f"{request.feature_id}: the answer names no value of the set "
                                                 f"({_text(record.problem)}); stored without a value, as online",
                           request.custom_id)
    if not usage_read:
        return LineProblem(number, "usage", f"{request.feature_id}: stored, but its token counts are unreadable "
                                            "(the cost is unknown)", request.custom_id)
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
