"""The profile view's jobs, as plain functions over core (no Qt), run in workers or called directly.

Each opens its own project connection, because workers run on pool threads and SQLite
connections never cross threads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.output_paths import refuse_project
from core.progress import Progress
from core.store import open_project
from core.store.claims import AnswerClaims
from gui.common.settings import AppSettings, get_api_key, llm_configured
from gui.profile.profile_summary import NOT_CODED

MODE_LLM, MODE_RETRIEVAL = "llm", "retrieval"


@dataclass
class Snapshot:
    """What the profile view shows: entries, agreement (or None) and the saved list names."""

    entries: list[Any]
    agreement: Any | None
    lists: list[str]
    glottocode: str | None
    not_started: list[Any] = field(default_factory=list)  # the chosen set's features without any row yet


def batch_settings(settings: AppSettings, mode: str) -> Any:
    """The core's batch settings; the key travels in the object (to the client), never in the environment."""
    from core.profile import BatchSettings

    if mode == MODE_RETRIEVAL:
        return BatchSettings(mode="retrieval", retrieval=settings.retrieval, concurrency=1)
    llm = settings.client_settings()
    return BatchSettings(mode="llm", llm=llm, retrieval=settings.retrieval,
                         concurrency=max(1, int(llm.max_concurrency)), api_key=get_api_key(settings) or None)


@dataclass
class Preview:
    """A batch before it starts: the features still to run, the estimate, and whether a model can be asked."""

    pending: list[str]
    estimate: Any  # core.profile.Estimate
    model_ready: bool  # a local server URL, or a key for the hosted API (looked up here, off the UI thread)


def preview(project_path: Path, feature_set: str, settings: AppSettings, mode: str) -> Preview:
    """What a batch would run and cost, without creating a job."""
    from core.profile import estimate, find_job, resolve_feature_set

    batch = batch_settings(settings, mode)
    with open_project(project_path, readonly=True) as project:
        ids = resolve_feature_set(project, feature_set)
        job = find_job(project, ids, batch)
        pending = job.pending if job is not None else ids
        guess = estimate(project, pending, batch)
    return Preview(pending, guess, llm_configured(settings))


def run_batch(project_path: Path, feature_set: str, settings: AppSettings, mode: str, progress: Progress,
              claims: AnswerClaims | None = None) -> Any:
    """Create or resume the job for this set and run what is left of it (its answers claimed in ``claims``)."""
    from core.profile import open_job, resolve_feature_set, run_job

    batch = batch_settings(settings, mode)
    with open_project(project_path) as project:
        ids = resolve_feature_set(project, feature_set)
        job = open_job(project, feature_set, ids, batch)
    return run_job(project_path, job.id, batch, progress, claims)


def load_references(folder: Path, project_path: Path, progress: Progress) -> dict:
    from core.profile import load_reference_values
    from core.store.repository import get_language

    with open_project(project_path, readonly=True) as project:
        language = get_language(project)
    return load_reference_values([folder], (language.glottocode or "") if language else "")


def snapshot(project_path: Path, references: dict | None, feature_set: str = "") -> Snapshot:
    """The profile, and the features of ``feature_set`` that have no row yet (the dock's "not coded yet" needs them).

    The profile has a row only for a feature something happened to (an answer, evidence, a decision,
    a note), so before this the "not coded yet" filter counted 0 with 185 of 195 Grambank features
    untouched: the features nobody touched were nowhere.  A set that does not resolve (a half-typed
    list of ids) adds nothing.
    """
    from core.profile import build_profile, compare, list_feature_lists
    from core.store.repository import get_language

    with open_project(project_path, readonly=True) as project:
        entries = build_profile(project)
        lists = sorted(list_feature_lists(project))
        language = get_language(project)
        missing = not_started(project, feature_set, entries) if feature_set else []
    agreement = compare(entries, references) if references is not None else None
    return Snapshot(entries, agreement, lists, language.glottocode if language else None, missing)


def not_started(project: Any, feature_set: str, entries: list[Any]) -> list[Any]:
    """A "not coded" row for each feature of ``feature_set`` (its parts, for 116A*) that has no row in ``entries``."""
    from core.catalog import load_catalog
    from core.errors import GrammarLensError
    from core.profile import ProfileEntry, resolve_feature_set

    try:
        ids = resolve_feature_set(project, feature_set)
    except GrammarLensError:
        return []
    catalog, seen, rows = load_catalog(), {e.feature_id for e in entries}, []
    for parent_id in ids:
        parent = catalog.get(parent_id)
        for fid in parent.multi_label or (parent_id,):
            feature = catalog.get(fid) if fid in catalog else parent
            if fid not in seen:
                seen.add(fid)
                rows.append(ProfileEntry(feature_id=fid, parent_id=parent_id, name=feature.name,
                                         dataset=feature.dataset, status=NOT_CODED, code=None, label=None))
    return rows


@dataclass
class ExportDone:
    """What an export wrote, and what it had to leave out; as text, the view's summary after "Exported "."""

    path: Path
    warnings: list[str]

    def __str__(self) -> str:
        if not self.warnings:
            return str(self.path)
        more = f" (and {len(self.warnings) - 1} more)" if len(self.warnings) > 1 else ""
        return f"{self.path}. Warning: {self.warnings[0]}{more}"


def export(project_path: Path, fmt: str, out_dir: Path, references: dict | None, progress: Progress, *,
           overwrite: bool = False) -> ExportDone:
    """Export the profile into ``out_dir``; the warnings are collected for the view to show.

    ``overwrite`` only when the person said to replace the earlier export in that folder
    (:mod:`gui.profile.export_folder` asks); a project, a PDF, a file or a missing parent folder is
    refused by the core either way (:mod:`core.output_paths`).
    """
    from core.export import export_profile
    from core.profile import build_profile, compare

    warnings: list[str] = []
    with open_project(project_path) as project:
        agreement = compare(build_profile(project), references) if references is not None else None
        path = export_profile(project, fmt, out_dir, agreement=agreement, overwrite=overwrite,
                              on_warning=warnings.append)
    return ExportDone(path, warnings)


def get_bibtex(project_path: Path) -> str:
    from core.export import get_bibtex as _get

    with open_project(project_path) as project:
        return _get(project)


def set_bibtex(project_path: Path, text: str) -> str:
    from core.export import set_bibtex as _set

    with open_project(project_path) as project:
        return _set(project, text)


def write_batch_file(project_path: Path, feature_set: str, out_path: Path, settings: AppSettings,
                     progress: Progress) -> Any:
    """Write the set's unanswered prompts as a batch file (OpenAI Batch API / vLLM ``run_batch`` input).

    Always for the model in the settings, whatever the dock's mode: a batch file is prompts for a model.
    """
    from core.errors import GrammarLensError
    from core.profile import resolve_feature_set
    from core.profile.batch_files import write_batch_requests

    with open_project(project_path, readonly=True) as project:
        ids = resolve_feature_set(project, feature_set)
    try:
        return write_batch_requests([project_path], ids, out_path, batch_settings(settings, MODE_LLM), progress,
                                    feature_set=feature_set)
    except OSError as exc:  # the place, not GrammarLens: say so (the project was rolled back)
        raise GrammarLensError(f"Cannot write {Path(out_path).name}: {exc.strerror or exc}.",
                               "Choose a folder you can write to, with space left.") from exc


def import_batch_file(project_path: Path, results_path: Path, progress: Progress,
                      claims: AnswerClaims | None = None) -> Any:
    """Import a results file into the project; a file with nothing of this project in it is refused.

    The core counts every bad line and imports the good ones; when *no* line is a result of this
    project (not JSONL at all, a requests file, another project's results) the person chose the
    wrong file, which is said as one error with a hint instead of a page of per-line problems.
    """
    from core.profile.batch_files import import_batch_results

    refuse_project(results_path, "The results file", "a batch results file (JSONL)")  # before its first line is read
    _refuse_requests_file(results_path)
    report = import_batch_results([project_path], results_path, progress, claims)
    refusal = refusal_of(report, Path(project_path))
    if refusal is not None:
        raise refusal
    return report


def _refuse_requests_file(results_path: Path) -> None:
    """The requests file written by Export is not a results file: say so before reading it all."""
    import json

    from core.errors import GrammarLensError

    try:
        with open(results_path, "rb") as fh:
            first = next((line for line in fh if line.strip()), b"")
        obj = json.loads(first) if first else None
    except (OSError, ValueError):
        return  # the import reports a missing file or broken lines itself
    if isinstance(obj, dict) and "body" in obj and "method" in obj and "response" not in obj:
        raise GrammarLensError(f"{Path(results_path).name} holds requests (the file GrammarLens wrote), not results.",
                               "Send it to the OpenAI Batch API or vLLM run_batch first, then import the results "
                               "file they write.")


def refusal_of(report: Any, project_path: Path) -> Exception | None:
    """The error to show when no line of the file belongs to this project, else None."""
    from core.errors import GrammarLensError

    name = Path(report.results_path).name
    if report.lines == 0:
        return GrammarLensError(f"{name} holds no result lines.", "Choose the results file the batch run wrote.")
    if report.broken == report.lines:
        first = report.problems[0].describe() if report.problems else ""
        return GrammarLensError(f"{name} is not a JSONL results file ({first}).",
                                "Choose the results file the OpenAI Batch API or vLLM run_batch wrote: one JSON "
                                "object per line. Nothing was imported.")
    if report.unknown and report.unknown + report.broken == report.lines:
        return GrammarLensError(f"No line of {name} belongs to {project_path.name}.",
                                "The results are for requests written from another project (or by another tool). "
                                "Open that project, then import the file there. Nothing was imported.")
    return None
