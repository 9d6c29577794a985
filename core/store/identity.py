"""How a GrammarLens project file is recognised, and which project (and which copy of it) a file is.

SQLite's application id and the file name's suffix say "a GrammarLens project"; the
``project_identity`` row of schema 7 (:mod:`core.store.migrations.m007_project_identity`) says
*which* project, which copy, and how many acts it holds.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

APPLICATION_ID = 0x474C4E53  # "GLNS", in ``PRAGMA application_id``: marks a SQLite file as a GrammarLens project
PROJECT_SUFFIX = ".grammarlens"


@dataclass(frozen=True)
class Identity:
    """The identity row of one project file (a project, a backup or a staged restore)."""

    project_id: str
    copy_id: str
    revision: int
    last_act_at: str | None
    backup_problem: str | None = None
    backup_problem_at: str | None = None


def read_identity(conn: sqlite3.Connection, schema: str = "main") -> Identity | None:
    """The identity row, or None for a file older than schema 7 (it has none yet)."""
    try:
        row = conn.execute(f"SELECT project_id, copy_id, revision, last_act_at, backup_problem, backup_problem_at "
                           f"FROM {schema}.project_identity WHERE id = 1").fetchone()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc).lower():
            return None
        raise
    if row is None:
        return None
    return Identity(str(row[0]), str(row[1]), int(row[2] or 0), row[3], row[4], row[5])


def language_name(conn: sqlite3.Connection) -> str | None:
    """The project's language name, to name a project to a person (None when not set or not readable)."""
    try:
        row = conn.execute("SELECT name FROM language LIMIT 1").fetchone()
    except sqlite3.Error:
        return None
    return str(row[0]) if row and row[0] else None
