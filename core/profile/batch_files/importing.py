"""Importing a results file: each answer stored in its project, every line counted, none raising.

A result line names its request only by ``custom_id`` (:mod:`core.profile.batch_files.custom_ids`),
and the answer is stored with the evidence that was in the prompt (:mod:`core.profile.batch_files.answers`).
The file is streamed line by line (never read whole), so memory stays flat however many grammars
it covers.  A line of any shape is read without raising: a bad line is counted and listed by number
with the reason, and every good line is still stored.  Each line is stored in a savepoint of its
own (whole or not at all), and each project is committed every few hundred lines or fraction of a
second, so the app and the CLI can write to it during a long import; a killed import keeps the
lines committed before it, and importing again stores the rest, each answer exactly once.  Before
an import first writes to a project, a backup of it is taken ("before-import", see
:mod:`core.store.backups`); one that cannot be written is a warning of the report, not a stop.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Iterable, Iterator

from core.errors import Cancelled, GrammarLensError, ProjectError
from core.llm.batch_lines import BadLine, answer_body, json_line, line_problem, one_line, result_lines, storable
from core.llm.cache import ProjectCache
from core.llm.classification import language_name
from core.llm.client import json_kind
from core.output_paths import refuse_project
from core.profile.batch_files.answers import ProjectSession, finish_jobs, store_answer
from core.profile.batch_files.custom_ids import parse_custom_id, project_key
from core.profile.batch_files.reports import BatchImportReport, LineProblem, Problems, count_kind
from core.progress import Progress, null_progress
from core.store import open_project
from core.store.batch_requests import BatchRequest, get_request
from core.store.claims import AnswerClaims
from core.store.database import ProjectRestoredError

CHUNK_LINES = 200  # an import commits its projects at least every this many lines...
CHUNK_SECONDS = 0.1  # ...and this often, so that it never holds a project's write lock for longer
CHUNK_PAUSE = 0.025  # then it leaves the lock free this long (see _Importer.run)
MAX_LINE_BYTES = 16 * 2 ** 20  # a longer result line is skipped unread (an answer line is a few kB)


def import_batch_results(project_paths: Iterable[str | os.PathLike], results_path: str | os.PathLike,
                         progress: Progress | None = None, claims: AnswerClaims | None = None) -> BatchImportReport:
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

    ``claims`` (the window's import): each answer stored is claimed there before its chunk commits, so
    the window's watch tells this import's answers from another program's stored meanwhile.  A chunk
    that rolls back stops the import; the window then drops the claims (:mod:`core.store.claims`).
    """
    progress = progress or null_progress()
    started = time.perf_counter()
    source = Path(results_path)
    if not source.is_file():
        raise GrammarLensError(f"{source} does not exist.", "Give the results file the batch run wrote.")
    refuse_project(source, "The results file", "a batch results file (JSONL)")  # before open(): file_guard
    by_key = _project_keys(project_paths)
    try:
        fh = open(source, "rb")  # noqa: SIM115 - opened apart from the `with` below to word its own error
    except OSError as exc:
        raise GrammarLensError(f"Cannot read {source}: {exc.strerror or exc}.",
                               "Check the file's permissions.") from exc
    size = max(1, source.stat().st_size)
    with fh, contextlib.ExitStack() as connections:
        importer = _Importer(source, by_key, connections, claims)
        try:
            importer.run(result_lines(fh, MAX_LINE_BYTES), progress, size)
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
    by_key: dict[str, Path] = {}
    for path in (Path(p) for p in project_paths):
        with open_project(path, readonly=True) as project:
            pkey = project_key(project)
        if pkey in by_key and by_key[pkey] != path:
            raise GrammarLensError(f"{path.name} and {by_key[pkey].name} hold the same grammars.",
                                   "Import the results into one of them at a time.")
        by_key[pkey] = path
    return by_key


class _Chunk:
    """The transactions one chunk of an import holds (one per project it reads or writes), all ended together.

    Why chunks: a whole file in one transaction held each project's write lock for minutes, so the
    app or a second CLI command writing to the project meanwhile failed with "locked".  A chunk
    ends after :data:`CHUNK_LINES` lines or :data:`CHUNK_SECONDS`, whichever comes first; inside
    it every line is a savepoint of its own, stored whole or not at all.
    """

    def __init__(self, stack: contextlib.ExitStack) -> None:
        self._stack = stack
        self.open: dict[Path, ProjectSession] = {}
        self.lines = 0
        self.opened_at: float | None = None

    def enter(self, s: ProjectSession) -> None:
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


class _Importer:
    """One import: the projects by key, their open connections and the report."""

    def __init__(self, source: Path, by_key: dict[str, Path], connections: contextlib.ExitStack,
                 claims: AnswerClaims | None = None) -> None:
        self.source = source
        self.claims = claims
        self.by_key = by_key
        self.connections = connections  # each project's connection, open until the import ends
        self.report = BatchImportReport(source)
        self.problems = Problems()
        self.sessions: dict[str, ProjectSession] = {}
        self.seen: set[str] = set()  # custom ids imported (or found imported) by this run
        self.committed = 0  # answers imported in chunks already committed

    def run(self, lines: Iterator[tuple[int, bytes | None, bool, int]], progress: Progress, size: int) -> None:
        """Import every line, one chunk (see :class:`_Chunk`) at a time; progress and cancel between chunks."""
        number = 0
        while True:
            imported_before = self.report.imported
            try:
                with contextlib.ExitStack() as stack:
                    chunk = _Chunk(stack)
                    finished = True
                    for number, raw, complete, position in lines:  # noqa: B007 - the last position is read below
                        self.line(number, raw, complete, chunk)
                        chunk.lines += 1
                        if chunk.due():
                            finished = False
                            break
            except ProjectRestoredError as exc:
                raise ProjectError(
                    f"{exc.message} The import stopped at line {number:,} of {self.source.name}; the "
                    f"{self.committed:,} answer(s) it had stored are not in the project any more (the restore "
                    "replaced them; they are in its 'before-restore' backup).",
                    "Import the file again: it stores every answer that is not in the project now.") from exc
            except ProjectError as exc:
                raise ProjectError(
                    f"{exc.message} The import stopped at line {number:,} of {self.source.name}; the "
                    f"{self.committed:,} answer(s) stored before that line were kept.",
                    (exc.hint + " " if exc.hint else "") + "Then import the file again: it stores the rest, "
                    "and no answer twice.") from exc
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

    def session(self, pkey: str, chunk: _Chunk) -> ProjectSession:
        """The project of ``pkey``, opened once, with this chunk's transaction begun on it."""
        s = self.sessions.get(pkey)
        if s is None:
            project = self.connections.enter_context(open_project(self.by_key[pkey]))
            with project.transaction():
                language = language_name(project)
            s = self.sessions[pkey] = ProjectSession(self.by_key[pkey], project, language, ProjectCache(project),
                                                      self.report.warnings, claims=self.claims)
        chunk.enter(s)
        return s

    def line(self, number: int, raw: bytes | None, complete: bool, chunk: _Chunk) -> None:
        """Import one line, counting it once and listing its problem, whatever its shape."""
        report = self.report
        report.lines += 1
        try:
            problem = self._import(number, raw, complete, chunk)
        except BadLine as bad:
            count_kind(report, bad.kind)
            problem = LineProblem(number, bad.kind, bad.reason)
        except (ProjectError, Cancelled):
            raise
        except GrammarLensError as exc:  # e.g. the feature left the catalog
            report.failed += 1
            problem = LineProblem(number, "failed", f"{one_line(exc.message).rstrip('.')}; nothing stored")
        except Exception as exc:  # a shape nobody foresaw costs its own line, never the others
            if not chunk.intact():
                raise
            report.failed += 1
            problem = LineProblem(number, "failed",
                                  f"could not be imported ({type(exc).__name__}: {one_line(str(exc))}); "
                                  "nothing stored. This is a bug in GrammarLens: please report it")
        if problem is not None:
            self.problems.add(problem)

    def _import(self, number: int, raw: bytes | None, complete: bool, chunk: _Chunk) -> LineProblem | None:
        """Import one line; returns the problem to list (counted here), or raises BadLine."""
        report = self.report
        obj = json_line(raw, complete, MAX_LINE_BYTES)
        custom_id = obj.get("custom_id")
        if custom_id is None:
            raise BadLine("broken", "is not a batch result line (no custom_id); nothing stored")
        if not isinstance(custom_id, str):
            raise BadLine("broken", f"custom_id is {json_kind(custom_id)}, not text; nothing stored")
        shown = one_line(repr(custom_id), 100)
        parsed = parse_custom_id(custom_id) if storable(custom_id) else None
        if parsed is None:
            raise BadLine("unknown", f"custom_id {shown} was not written by GrammarLens "
                                      "(a result file of another batch?)")
        pkey = parsed.project_key
        if pkey not in self.by_key:
            raise BadLine("unknown", f"custom_id {shown} belongs to a project not given here")
        s = self.session(pkey, chunk)
        request = get_request(s.project, custom_id)
        if request is None:
            raise BadLine("unknown", f"custom_id {shown} was not written from {s.path.name} "
                                      "(written from a copy of it, or the file was replaced?)")
        if request.classification_id is not None:
            return self._imported_before(number, request, s)
        try:
            kind_reason = line_problem(obj)
            if kind_reason is not None:
                raise BadLine(*kind_reason)
            body, usage_read = answer_body(obj["response"]["body"])
        except BadLine as bad:
            raise BadLine(bad.kind, f"{request.feature_id}: {bad.reason}; nothing stored") from None
        with s.project.transaction():  # a savepoint: a line is stored whole or not at all
            problem = store_answer(number, body, usage_read, request, s)
        if problem is not None:
            count_kind(report, problem.kind)
            if problem.kind in ("stale", "error"):  # nothing stored
                return problem
        self.seen.add(custom_id)
        report.imported += 1
        report.per_project[str(s.path)] = report.per_project.get(str(s.path), 0) + 1
        report.answered.setdefault(str(s.path), set()).add(request.feature_id)
        return problem

    def _imported_before(self, number: int, request: BatchRequest, s: ProjectSession) -> LineProblem | None:
        """A line whose answer is stored already: by an earlier import, or by this one (a duplicate line)."""
        if request.job_id is not None:  # a job whose last answers an earlier, killed import stored
            s.jobs.add(request.job_id)
        if request.custom_id in self.seen:
            self.report.duplicates += 1
            return LineProblem(number, "duplicate", f"{request.feature_id}: the same answer again in this file; "
                                                    "kept the first", request.custom_id)
        self.seen.add(request.custom_id)
        self.report.already += 1
        return None

    def finish_jobs(self) -> None:
        for s in self.sessions.values():
            with s.project.transaction():
                finish_jobs(s)

