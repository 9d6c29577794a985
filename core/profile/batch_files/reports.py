"""What writing and importing batch files report: counts per kind of line and the problems by line.

The counts are the contract with the CLI (``--json``), the GUI (:mod:`gui.profile.profile_batch_files`)
and the benches: each line of a results file is counted once, as exactly one kind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from core.catalog import load_catalog
from core.changes import ProjectChange, answers_imported

MAX_LISTED_PROBLEMS = 1_000  # a report lists this many problems by line, and counts the rest


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
class Problems:
    """The problems of one import: the first :data:`MAX_LISTED_PROBLEMS` listed, the rest only counted."""

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
    answered: dict[str, set[str]] = field(default_factory=dict)  # project path -> features given a new answer
    problems: list[LineProblem] = field(default_factory=list)
    problems_left_out: int = 0
    warnings: list[str] = field(default_factory=list)  # e.g. a backup before the import that could not be taken
    seconds: float = 0.0

    def change_for(self, project_path: str | Path) -> ProjectChange:
        """The record of what this import changed in one project: the features it answered (empty: none).

        Why here: the import is an act like any other, and the window shows its result from this
        record (:mod:`core.changes`); a multi-label feature's parts are named too (they are coded one by one).
        """
        wanted = Path(project_path).resolve()
        answered = next((set(f) for p, f in self.answered.items() if Path(p).resolve() == wanted), set())
        catalog, features = load_catalog(), set(answered)
        for fid in answered:
            if fid in catalog:
                features.update(catalog.get(fid).multi_label)
        return answers_imported(features)

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


_COUNTERS = {"broken": "broken", "unknown": "unknown", "error": "errors", "stale": "stale", "failed": "failed",
             "unparsable": "unparsable", "usage": "usage_unread", "duplicate": "duplicates"}


def count_kind(report: BatchImportReport, kind: str) -> None:
    """Count one line of ``kind`` (a :class:`LineProblem` kind) in the report."""
    setattr(report, _COUNTERS[kind], getattr(report, _COUNTERS[kind]) + 1)
