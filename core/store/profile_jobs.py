"""Batch profile jobs and their items (schema 4), so that a crashed or cancelled batch resumes.

Rows become :class:`Job` and :class:`JobItem` here and nowhere else; :mod:`core.profile.batch`
decides what to run.  Each write is one transaction.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from core.records.vocabulary import JobState
from core.store.database import ProjectDatabase, inserted_id
from core.timestamps import now_iso


@dataclass
class JobItem:
    feature_id: str
    state: str  # a JobState: pending | done | failed
    classification_id: int | None = None
    retrieval_run_id: int | None = None
    error: str = ""


@dataclass
class Job:
    id: int
    feature_set: str
    mode: str
    state: str
    settings: dict
    items: list[JobItem]
    mark_classification_id: int = 0
    mark_retrieval_run_id: int = 0

    @property
    def pending(self) -> list[str]:
        return [i.feature_id for i in self.items if i.state != JobState.DONE]

    @property
    def done(self) -> list[str]:
        return [i.feature_id for i in self.items if i.state == JobState.DONE]


def insert_job(project: ProjectDatabase, *, feature_set: str, job_key: str, mode: str, settings: dict,
               feature_ids: list[str], mark_classification_id: int, mark_retrieval_run_id: int) -> int:
    """A new pending job with one pending item per feature, in one transaction; returns its id."""
    now = now_iso()
    with project.transaction():
        cur = project.conn.execute(
            "INSERT INTO profile_jobs (created_at, updated_at, feature_set, job_key, mode, settings, state, "
            "mark_classification_id, mark_retrieval_run_id) VALUES (?,?,?,?,?,?,?,?,?)",
            (now, now, feature_set, job_key, mode, json.dumps(settings, sort_keys=True), JobState.PENDING,
             mark_classification_id, mark_retrieval_run_id))
        job_id = inserted_id(cur)
        project.conn.executemany(
            "INSERT INTO profile_job_items (job_id, seq, feature_id, state, updated_at) VALUES (?,?,?,?,?)",
            [(job_id, i, f, JobState.PENDING, now) for i, f in enumerate(feature_ids)])
    return job_id


def latest_job_id(project: ProjectDatabase, job_key: str) -> int | None:
    """The newest job made for ``job_key`` (the same features and settings), if any."""
    row = project.conn.execute("SELECT id FROM profile_jobs WHERE job_key = ? ORDER BY id DESC LIMIT 1",
                               (job_key,)).fetchone()
    return row[0] if row else None


def get_job(project: ProjectDatabase, job_id: int) -> Job | None:
    row = project.conn.execute(
        "SELECT id, feature_set, mode, state, settings, mark_classification_id, mark_retrieval_run_id "
        "FROM profile_jobs WHERE id = ?", (job_id,)).fetchone()
    if row is None:
        return None
    items = [JobItem(r[0], r[1], r[2], r[3], r[4] or "") for r in project.conn.execute(
        "SELECT feature_id, state, classification_id, retrieval_run_id, error FROM profile_job_items "
        "WHERE job_id = ? ORDER BY seq", (job_id,))]
    return Job(row[0], row[1], row[2], row[3], json.loads(row[4]), items, row[5] or 0, row[6] or 0)


def job_ids(project: ProjectDatabase) -> list[int]:
    """Every job's id, newest first."""
    return [r[0] for r in project.conn.execute("SELECT id FROM profile_jobs ORDER BY id DESC")]


def set_item(project: ProjectDatabase, job_id: int, feature_id: str, state: str, *,
             classification_id: int | None = None, retrieval_run_id: int | None = None,
             error: str | None = None) -> None:
    """Record an item's new state (result ids given as None keep their stored value)."""
    set_items(project, job_id, [(feature_id, state, classification_id, retrieval_run_id, error)])


def set_items(project: ProjectDatabase, job_id: int,
              changes: list[tuple[str, str, int | None, int | None, str | None]]) -> None:
    """Several ``(feature_id, state, classification_id, retrieval_run_id, error)`` changes in one transaction."""
    now = now_iso()
    with project.transaction():
        project.conn.executemany(
            "UPDATE profile_job_items SET state = ?, classification_id = coalesce(?, classification_id), "
            "retrieval_run_id = coalesce(?, retrieval_run_id), error = ?, updated_at = ? "
            "WHERE job_id = ? AND feature_id = ?",
            [(state, cid, rid, error, now, job_id, fid) for fid, state, cid, rid, error in changes])


def set_job_state(project: ProjectDatabase, job_id: int, state: str) -> None:
    with project.transaction():
        project.conn.execute("UPDATE profile_jobs SET state = ?, updated_at = ? WHERE id = ?",
                             (state, now_iso(), job_id))
