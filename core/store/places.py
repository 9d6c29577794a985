"""Where a project file lives decides how it may be opened: hard links, read-only places, foreign schema objects.

* **Hard links.** SQLite finds a database's ``-wal`` and ``-shm`` by the name it was opened under, so
  one file used under two hard-linked names has two logs, and each writer's acts are invisible to
  the other (or lost at the next checkpoint).  Such a file opens read-only, saying why.
* **Read-only places.** A folder or medium we may not write holds a project we can still read;
  SQLite must then not try to create a ``-wal``/``-shm`` there.  A read-only *file* in a writable
  folder must not get new ``-wal``/``-shm`` files either: they would inherit its read-only mode and
  keep refusing writes after the file is made writable again.
* **Foreign schema objects.** A trigger or view GrammarLens never creates runs code of whoever
  made the file, silently, at every write; such a project is refused at opening.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from core.errors import ProjectError

# The only triggers GrammarLens creates (migration 1: the paragraph index kept in step on update/delete).
_OWN_TRIGGERS = {
    "paragraphs_ad": 'CREATE TRIGGER "paragraphs_ad" AFTER DELETE ON "paragraphs" BEGIN INSERT INTO "paragraphs_fts" '
                     '("paragraphs_fts", rowid, "text", "section") VALUES(\'delete\', old.rowid, old."text", '
                     'old."section"); END',
    "paragraphs_au": 'CREATE TRIGGER "paragraphs_au" AFTER UPDATE ON "paragraphs" BEGIN INSERT INTO "paragraphs_fts" '
                     '("paragraphs_fts", rowid, "text", "section") VALUES(\'delete\', old.rowid, old."text", '
                     'old."section"); INSERT INTO "paragraphs_fts" (rowid, "text", "section") VALUES (new.rowid, '
                     'new."text", new."section"); END',
}


def hard_link_reason(path: Path) -> ProjectError | None:
    """Why ``path`` must open read-only because it has other names (hard links), or None."""
    try:
        links = os.stat(path).st_nlink
    except OSError:
        return None
    if links <= 1:
        return None
    return ProjectError(
        f"Project file {path} has {links} names (hard links), so it was opened read-only: SQLite cannot lock one "
        "file used under two names, and acts written under one name could be lost under the other.",
        "Nothing was written. Keep one name: make a real copy (cp) for the second place, or delete the other link.")


def read_only_mode(path: Path, inspected: str) -> str:
    """The SQLite open mode for a project we may not write: ``ro`` while a writer's -wal exists, else immutable.

    Without a ``-wal`` the main file holds everything and nobody is writing it through SQLite, so
    reading it as immutable creates no ``-wal``/``-shm`` beside it (which would otherwise be left
    behind, read-only, or could not be created at all in a read-only folder).
    """
    if inspected == "immutable" or not os.path.exists(f"{path}-wal"):
        return "immutable"
    return inspected


def check_schema_objects(path: Path, conn: sqlite3.Connection) -> None:
    """Refuse a project holding triggers or views GrammarLens never creates (they would run unseen)."""
    rows = conn.execute("SELECT type, name, sql FROM sqlite_master WHERE type IN ('trigger', 'view')").fetchall()
    foreign = [f"{kind} {name!r}" for kind, name, sql in rows
               if kind != "trigger" or " ".join(str(sql).split()) != _OWN_TRIGGERS.get(name)]
    if foreign:
        raise ProjectError(
            f"Project file {path} contains {', '.join(foreign[:3])}{' and more' if len(foreign) > 3 else ''}, "
            "which GrammarLens never creates; it was not opened, because such code would run unseen at every change.",
            "It was left untouched. If you added it yourself, remove it with the sqlite3 tool; otherwise do not use "
            "this file (ask whoever sent it for a clean copy).")
