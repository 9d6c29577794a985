"""Project files as an older GrammarLens left them: the first migrations only, for upgrade and restore tests.

Today's code cannot write an old schema, so the tests build one: GrammarLens's application id, migrations
1..``version`` applied in turn with ``user_version`` following, and optionally the language row every
project has.  (tests/core/test_migrations_upgrade.py builds richer ones, with rows in every table.)
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import sqlite_utils

from core.store.database import APPLICATION_ID
from core.store.migrations import MIGRATIONS


def old_project(path: Path, version: int, language: str | None = None) -> Path:
    """A closed project file at ``path`` with schema ``version`` (< len(MIGRATIONS)), its language ``language``."""
    assert 0 < version < len(MIGRATIONS), version
    conn = sqlite3.connect(path)
    db = sqlite_utils.Database(conn)
    with conn:
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        for number, migration in enumerate(MIGRATIONS[:version], start=1):
            migration(db)
            conn.execute(f"PRAGMA user_version = {number}")
        if language is not None:
            conn.execute("INSERT INTO language (id, name, glottocode, source) VALUES (1, ?, NULL, 'user')",
                         (language,))
    conn.close()
    return path
