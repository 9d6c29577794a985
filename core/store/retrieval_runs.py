"""Stored retrieval runs (schema 2): which feature and settings produced which ranked paragraphs.

Rows become the dataclasses below here and nowhere else; :mod:`core.retrieval.pipeline` turns
them into :class:`~core.retrieval.pipeline.Hit` objects with their paragraphs.  The settings travel
as the JSON text :class:`~core.retrieval.settings.RetrievalSettings` writes, so this module does
not depend on the retrieval package.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Sequence

from core.store.database import ProjectDatabase, inserted_id
from core.timestamps import now_iso


@dataclass(frozen=True)
class StoredHit:
    """One ranked paragraph of a run, with the per-signal scores behind its rank."""

    rank: int
    paragraph_id: int
    score: float
    signals: dict[str, float] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class RetrievalRun:
    """A stored run without its hits (see :func:`run_hits`)."""

    id: int
    feature_id: str
    settings_json: str
    query: str
    created_at: str
    seconds: float


def insert_run(project: ProjectDatabase, feature_id: str, settings_json: str, hits: Sequence[StoredHit], *,
               query: str = "", seconds: float = 0.0) -> int:
    """Store a run and its hits in one transaction; returns the run id a classification links to."""
    with project.transaction():
        cur = project.conn.execute(
            "INSERT INTO retrieval_runs (feature_id, settings, query, created_at, seconds) VALUES (?,?,?,?,?)",
            (feature_id, settings_json, query, now_iso(), seconds),
        )
        run_id = inserted_id(cur)
        project.conn.executemany(
            "INSERT INTO retrieval_hits (run_id, rank, paragraph_id, score, signals) VALUES (?,?,?,?,?)",
            [(run_id, h.rank, h.paragraph_id, h.score, json.dumps(h.signals, sort_keys=True)) for h in hits],
        )
    return run_id


def get_run(project: ProjectDatabase, run_id: int) -> RetrievalRun | None:
    row = project.conn.execute(
        "SELECT id, feature_id, settings, query, created_at, seconds FROM retrieval_runs WHERE id = ?", (run_id,)
    ).fetchone()
    if row is None:
        return None
    return RetrievalRun(row[0], row[1], row[2], row[3] or "", row[4], row[5] or 0.0)


def run_hits(project: ProjectDatabase, run_id: int, limit: int | None = None) -> list[StoredHit]:
    """The run's hits in rank order (the first ``limit`` only, when given)."""
    sql = "SELECT rank, paragraph_id, score, signals FROM retrieval_hits WHERE run_id = ? ORDER BY rank"
    params: tuple = (run_id,)
    if limit is not None:
        sql += " LIMIT ?"
        params = (run_id, limit)
    return [StoredHit(r[0], r[1], r[2], json.loads(r[3])) for r in project.conn.execute(sql, params).fetchall()]


def latest_run_ids(project: ProjectDatabase) -> dict[str, int]:
    """Feature id -> the id of its newest run."""
    rows = project.conn.execute("SELECT feature_id, max(id) FROM retrieval_runs GROUP BY feature_id").fetchall()
    return {r[0]: r[1] for r in rows}


def max_run_id(project: ProjectDatabase) -> int:
    """The highest run id so far (0 in a project without runs): a batch job's start mark."""
    return int(project.conn.execute("SELECT coalesce(max(id), 0) FROM retrieval_runs").fetchone()[0])


def latest_run_after(project: ProjectDatabase, feature_id: str, after_id: int) -> int | None:
    """The newest run of ``feature_id`` stored after run ``after_id`` (None if there is none)."""
    row = project.conn.execute("SELECT max(id) FROM retrieval_runs WHERE feature_id = ? AND id > ?",
                               (feature_id, after_id)).fetchone()
    return row[0] if row and row[0] else None
