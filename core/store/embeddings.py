"""Cached paragraph embeddings (schema 2), one row per (paragraph, model).

Each vector is stored with a hash of the text it was computed from, so the caller can tell a
stale vector (the paragraph was edited) from a good one; see :mod:`core.retrieval.cache`.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from core.store.database import ProjectDatabase

_CHUNK = 500  # ids per query: well under SQLite's bound-parameter limit


def get_embeddings(
    project: ProjectDatabase, model: str, paragraph_ids: Sequence[int]
) -> dict[int, tuple[str, np.ndarray]]:
    """Paragraph id -> (text hash, vector) for the ids that have a vector of ``model``."""
    found: dict[int, tuple[str, np.ndarray]] = {}
    for start in range(0, len(paragraph_ids), _CHUNK):
        chunk = list(paragraph_ids[start:start + _CHUNK])
        rows = project.conn.execute(
            f"SELECT paragraph_id, text_hash, dim, vector FROM embeddings WHERE model = ? "
            f"AND paragraph_id IN ({','.join('?' * len(chunk))})",
            [model, *chunk],
        ).fetchall()
        for pid, h, dim, blob in rows:
            found[pid] = (h, np.frombuffer(blob, dtype=np.float32, count=dim))
    return found


def put_embeddings(project: ProjectDatabase, model: str, rows: Iterable[tuple[int, str, np.ndarray]]) -> None:
    """Store (paragraph id, text hash, vector) rows of ``model`` in one transaction, replacing old ones.

    A whole book is stored a batch per call (core.retrieval.book_embeddings): each transaction holds
    the write lock for milliseconds, so the app's and the CLI's own writes never wait long.
    """
    with project.transaction():
        project.conn.executemany(
            "INSERT INTO embeddings (paragraph_id, model, text_hash, dim, vector) VALUES (?,?,?,?,?) "
            "ON CONFLICT(paragraph_id, model) DO UPDATE SET text_hash = excluded.text_hash, "
            "dim = excluded.dim, vector = excluded.vector",
            [(pid, model, h, int(vec.shape[0]), np.asarray(vec, dtype=np.float32).tobytes()) for pid, h, vec in rows],
        )


def embedded_hashes(project: ProjectDatabase, model: str) -> dict[int, str]:
    """Paragraph id -> hash of the text embedded, for every paragraph with a vector of ``model``."""
    rows = project.conn.execute("SELECT paragraph_id, text_hash FROM embeddings WHERE model = ?", (model,))
    return dict(rows.fetchall())


def embedded_hashes_of(project: ProjectDatabase, model: str, paragraph_ids: Sequence[int]) -> dict[int, str]:
    """Paragraph id -> hash of the text embedded, for those of ``paragraph_ids`` with a vector of ``model``."""
    found: dict[int, str] = {}
    for start in range(0, len(paragraph_ids), _CHUNK):
        chunk = list(paragraph_ids[start:start + _CHUNK])
        rows = project.conn.execute(
            f"SELECT paragraph_id, text_hash FROM embeddings WHERE model = ? "
            f"AND paragraph_id IN ({','.join('?' * len(chunk))})", [model, *chunk])
        found.update(rows.fetchall())
    return found
