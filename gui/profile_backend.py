"""The profile view's jobs, as plain functions over core (no Qt), run in workers or called directly.

Each opens its own project connection, because workers run on pool threads and SQLite
connections never cross threads.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.progress import Progress
from core.store import open_project
from gui.settings import AppSettings, get_api_key

MODE_LLM, MODE_RETRIEVAL = "llm", "retrieval"


@dataclass
class Snapshot:
    """What the profile view shows: entries, agreement (or None) and the saved list names."""

    entries: list[Any]
    agreement: Any | None
    lists: list[str]
    glottocode: str | None


def batch_settings(settings: AppSettings, mode: str) -> Any:
    """The core's batch settings; the key travels in the object (to the client), never in the environment."""
    from core.profile import BatchSettings

    if mode == MODE_RETRIEVAL:
        return BatchSettings(mode="retrieval", retrieval=settings.retrieval, concurrency=1)
    llm = settings.client_settings()
    return BatchSettings(mode="llm", llm=llm, retrieval=settings.retrieval,
                         concurrency=max(1, int(llm.max_concurrency)), api_key=get_api_key(settings) or None)


def preview(project_path: Path, feature_set: str, settings: AppSettings, mode: str) -> tuple[list[str], Any]:
    """(features still to run, estimate) for a batch, without creating a job."""
    from core.profile import estimate, find_job, resolve_feature_set

    batch = batch_settings(settings, mode)
    with open_project(project_path, readonly=True) as project:
        ids = resolve_feature_set(project, feature_set)
        job = find_job(project, ids, batch)
        pending = job.pending if job is not None else ids
        return pending, estimate(project, pending, batch)


def run_batch(project_path: Path, feature_set: str, settings: AppSettings, mode: str, progress: Progress) -> Any:
    """Create or resume the job for this set and run what is left of it."""
    from core.profile import open_job, resolve_feature_set, run_job

    batch = batch_settings(settings, mode)
    with open_project(project_path) as project:
        ids = resolve_feature_set(project, feature_set)
        job = open_job(project, feature_set, ids, batch)
    return run_job(project_path, job.id, batch, progress)


def load_references(folder: Path, project_path: Path, progress: Progress) -> dict:
    from core.profile import load_reference_values
    from core.store.repository import get_language

    with open_project(project_path, readonly=True) as project:
        language = get_language(project)
    return load_reference_values([folder], language.glottocode if language else "")


def snapshot(project_path: Path, references: dict | None) -> Snapshot:
    from core.profile import build_profile, compare, list_feature_lists
    from core.store.repository import get_language

    with open_project(project_path, readonly=True) as project:
        entries = build_profile(project)
        lists = sorted(list_feature_lists(project))
        language = get_language(project)
    agreement = compare(entries, references) if references is not None else None
    return Snapshot(entries, agreement, lists, language.glottocode if language else None)


def export(project_path: Path, fmt: str, out_dir: Path, references: dict | None, progress: Progress) -> Path:
    from core.export import export_profile
    from core.profile import build_profile, compare

    with open_project(project_path) as project:
        agreement = compare(build_profile(project), references) if references is not None else None
        return export_profile(project, fmt, out_dir, agreement=agreement)


def get_bibtex(project_path: Path) -> str:
    from core.export import get_bibtex as _get

    with open_project(project_path) as project:
        return _get(project)


def set_bibtex(project_path: Path, text: str) -> str:
    from core.export import set_bibtex as _set

    with open_project(project_path) as project:
        return _set(project, text)
