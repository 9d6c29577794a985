"""The connection to a GrammarLens project file, and how every write runs (opening it: :mod:`core.store.opening`).

A project is a single SQLite file, recognised by ``PRAGMA application_id`` and versioned by
``PRAGMA user_version`` (see :mod:`core.store.opening` and :mod:`core.store.migrations`); it runs in
WAL mode with foreign keys on, and every write goes through :meth:`ProjectDatabase.transaction`.

Concurrency is a contract: the window, the CLI and a batch import may use one project at once.
Every write transaction starts with ``BEGIN IMMEDIATE``, so it takes the write lock *before* it
reads and waits up to :data:`BUSY_TIMEOUT_MS` for it; a deferred ``BEGIN`` would read first and,
on upgrading to a writer, fail at once with SQLITE_BUSY (the busy handler is not used there), or
let two acts that read the same state both write.  Code that computes a new state from the stored
one does both inside one :meth:`~ProjectDatabase.transaction`.

While a connection is open, nothing else in this process may open the file (see
:mod:`core.store.file_guard`), and each thread opens its own :class:`ProjectDatabase`; a
connection is never shared across threads (``check_same_thread`` stays on to catch mistakes).
"""
from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path
from typing import Iterator

import sqlite_utils

from core.errors import ProjectError
from core.store import file_guard
from core.store.damage import damaged_error
from core.store.identity import APPLICATION_ID, PROJECT_SUFFIX  # noqa: F401 - the store's names for them

# How long a write waits for another writer (the window, a CLI command, a batch import) to finish.
# Writers hold the lock for milliseconds (imports commit in small chunks), so 10 s means "stuck".
BUSY_TIMEOUT_MS = 10_000


class ProjectDatabase:
    """A connection to one project file, migrated to the current schema (or opened read-only)."""

    def __init__(self, path: Path, db: sqlite_utils.Database, *, readonly: bool = False) -> None:
        self.path = path
        self.db = db
        self.readonly = readonly
        self._identity = _identity(path)
        self._closed = False
        # Why the backup taken on opening failed (a full disk, a read-only folder), for the caller to say.
        self.backup_problem: ProjectError | None = None
        file_guard.register(path)

    @property
    def conn(self) -> sqlite3.Connection:
        return self.db.conn

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite_utils.Database]:
        """Run a block of reads and writes atomically as *the* writer; nested blocks become savepoints.

        The outermost block starts with ``BEGIN IMMEDIATE``: it waits for the write lock (at most
        :data:`BUSY_TIMEOUT_MS`) before the block runs, so whatever the block reads is what its
        writes build on.  Environment failures (disk full, locked, read-only) surface as
        :class:`ProjectError`, and the block's writes are rolled back.
        """
        if self.readonly:
            raise read_only_error(self.path)
        conn = self.conn
        if conn.in_transaction:
            try:
                with self.db.atomic():  # a SAVEPOINT inside the running transaction
                    yield self.db
            except sqlite3.OperationalError as exc:
                raise environment_error(self.path, exc) from exc
            return
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise environment_error(self.path, exc) from exc
        try:
            self._check_still_ours()
            yield self.db
            conn.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            _rollback(conn)
            raise environment_error(self.path, exc) from exc
        except BaseException:
            _rollback(conn)
            raise

    def schema_version(self) -> int:
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self.db.close()
        finally:
            file_guard.unregister(self.path)

    def __enter__(self) -> ProjectDatabase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_still_ours(self) -> None:
        """Refuse to write when the file under us was replaced or its write-ahead log deleted.

        A canary, not the defence (that is :mod:`core.store.file_guard`): if another program
        replaced the project or removed its ``-wal`` while we had it open, what we write would land
        in a file nobody will ever read again.  Two ``stat`` calls, no descriptor.
        """
        if _identity(self.path) != self._identity:
            raise ProjectError(
                f"Project file {self.path} was replaced or moved by another program while it was open.",
                "Nothing was written. Close the project and open it again.")
        if not os.path.exists(f"{self.path}-wal"):
            raise ProjectError(
                f"The write-ahead log of {self.path} was deleted by another program while it was open.",
                "Nothing was written. Close the project and open it again; restore a backup if work is missing.")


def inserted_id(cursor: sqlite3.Cursor) -> int:
    """The rowid of the row an INSERT through ``cursor`` just stored (SQLite always sets it for one)."""
    rowid = cursor.lastrowid
    if rowid is None:
        raise RuntimeError("no row was inserted")
    return rowid


def read_only_error(path: Path) -> ProjectError:
    return ProjectError(f"Project file {path} is read-only.",
                        "Nothing was written. Copy it somewhere writable (or change its permissions) to change it.")


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def is_damage(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "not a database" in text or "malformed" in text or "corrupt" in text


def _rollback(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")


def environment_error(path: Path, exc: sqlite3.Error) -> ProjectError:
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return ProjectError(
            f"Project file {path} is busy: another GrammarLens window or command kept it locked for more than "
            f"{BUSY_TIMEOUT_MS // 1000} s.",
            "Nothing was stored. Try again in a moment, or close the other program using it.",
        )
    if "readonly" in text or "read-only" in text:
        return read_only_error(path)
    if "disk" in text and "full" in text:
        return ProjectError(f"The disk holding {path} is full.", "Free some space; the last change was rolled back.")
    if is_damage(exc):
        return damaged_error(path, str(exc))
    return ProjectError(f"Project file {path} could not be used: {exc}.", "")
