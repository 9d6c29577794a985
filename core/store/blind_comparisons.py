"""The blind comparison of two coders, kept in A's project as data: rows of the ``meta`` table.

Why ``meta`` and no new table: ``meta`` (key, value) exists since schema 1, so every GrammarLens
that reads a project can read these rows, and a colleague reading A read-only (a sample, a
shared folder) never needs a migration for them.  One row per compared file B, keyed
``blind-comparison:<B's resolved path>``, whose value is a JSON object (its shape is
:mod:`core.sample.blind`'s business; this module only stores and reads text).
"""

from __future__ import annotations

from core.store.database import ProjectDatabase

PREFIX = "blind-comparison:"


def read_blind_records(project: ProjectDatabase) -> dict[str, str]:
    """Key (B's path) -> the stored JSON text, for every blind comparison kept in this project."""
    rows = project.conn.execute("SELECT key, value FROM meta WHERE key LIKE ? ESCAPE '\\'",
                                (PREFIX.replace("_", "\\_") + "%",)).fetchall()
    return {str(key)[len(PREFIX):]: str(value or "") for key, value in rows}


def write_blind_record(project: ProjectDatabase, b_key: str, text: str) -> None:
    """Store (or replace) the blind comparison with B; joins the caller's transaction when there is one."""
    with project.transaction():
        project.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (PREFIX + b_key, text))
