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
import shutil
import sqlite3
import threading
from pathlib import Path
from typing import Iterator

import sqlite_utils

from core.errors import ProjectError
from core.store import file_guard
from core.store.damage import damaged_error
from core.store.identity import APPLICATION_ID, PROJECT_SUFFIX, read_identity  # noqa: F401 - the store's names
from core.timestamps import now_iso

# How long a write waits for another writer (the window, a CLI command, a batch import) to finish.
# Writers hold the lock for milliseconds (imports commit in small chunks), so 10 s means "stuck".
BUSY_TIMEOUT_MS = 10_000
# How long after the last write the write-ahead log is copied into the main file, so that a person or a sync
# client copying the .grammarlens file alone gets every acknowledged act (the issue asks for <= 2 s).
CHECKPOINT_IDLE_S = 1.0


class ProjectDatabase:
    """A connection to one project file, migrated to the current schema (or opened read-only)."""

    def __init__(self, path: Path, db: sqlite_utils.Database, *, readonly: bool = False,
                 readonly_reason: ProjectError | None = None, guard: bool = True) -> None:
        self.path = path
        self.db = db
        self.readonly = readonly
        # Why a project that is not read-only media opened read-only (hard links, an older schema), for writes to say.
        self.readonly_reason = readonly_reason
        self._identity = _identity(path)
        self._closed = False
        self._guarded = guard
        # Why the backup taken on opening failed (a full disk, a read-only folder), for the caller to say.
        self.backup_problem: ProjectError | None = None
        self._copy_id: str | None = None  # which copy of the project this connection has been writing to
        self._checkpoint_timer: threading.Timer | None = None
        # Reads that cannot change during one write transaction (rows are immutable once written), kept for it only.
        self.transaction_cache: dict[object, object] = {}
        if guard:
            file_guard.register(path)

    def adopt_current_copy(self) -> None:
        """Remember which copy of the project the file holds now (after opening, or after being told of a restore)."""
        found = read_identity(self.conn)
        self._copy_id = found.copy_id if found else None

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
            raise self.readonly_reason or read_only_error(self.path)
        conn = self.conn
        if conn.in_transaction:
            try:
                with self.db.atomic():  # a SAVEPOINT inside the running transaction
                    yield self.db
            except sqlite3.OperationalError as exc:
                self.transaction_cache.clear()  # rows read since the savepoint may be gone
                raise environment_error(self.path, exc) from exc
            except BaseException:
                self.transaction_cache.clear()
                raise
            return
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise environment_error(self.path, exc) from exc
        self.transaction_cache.clear()
        try:
            self._check_still_ours()
            self._check_not_restored()
            changes = conn.total_changes
            yield self.db
            if conn.total_changes != changes and self._copy_id is not None:
                conn.execute("UPDATE project_identity SET revision = revision + 1, last_act_at = ? WHERE id = 1",
                             (now_iso(),))
            conn.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            _rollback(conn)
            raise environment_error(self.path, exc) from exc
        except BaseException:
            _rollback(conn)
            raise
        finally:
            self.transaction_cache.clear()
        self._schedule_checkpoint()

    def checkpoint(self) -> None:
        """Copy the write-ahead log into the main file now, as far as readers allow (never blocks on them).

        Called shortly after the last write (see :data:`CHECKPOINT_IDLE_S`) and by the window when it
        loses focus or closes: afterwards the ``.grammarlens`` file alone holds every committed act.
        """
        if self._closed or self.readonly or self.conn.in_transaction:
            return
        with contextlib.suppress(sqlite3.Error):
            self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

    def _schedule_checkpoint(self) -> None:
        """Checkpoint from a helper thread (with its own connection) once writes have stopped for a moment."""
        if not self._guarded:
            return  # an in-memory copy: there is no file to checkpoint
        if self._checkpoint_timer is not None:
            self._checkpoint_timer.cancel()
        timer = threading.Timer(CHECKPOINT_IDLE_S, _checkpoint_file, args=(self.path,))
        timer.daemon = True
        self._checkpoint_timer = timer
        timer.start()

    def _check_not_restored(self) -> None:
        """Refuse one write when another program restored a backup into the file since this connection last wrote.

        The act was computed from a state that is gone (the restore kept it as a ``before-restore``
        backup); storing it on top of the restored state, or reporting it stored, would be wrong.
        The next act, computed from the restored state, goes through.
        """
        if self._copy_id is None:
            return
        found = read_identity(self.conn)
        if found is not None and found.copy_id != self._copy_id:
            self._copy_id = found.copy_id
            raise ProjectRestoredError(
                f"Project file {self.path} was restored from a backup by another window or command while it was open.",
                "Nothing was written. What you see now is the restored state; do the last step again if it is "
                "still needed (the state before the restore is kept as a 'before-restore' backup).")

    def schema_version(self) -> int:
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._checkpoint_timer is not None:
            self._checkpoint_timer.cancel()
            self._checkpoint_timer.join()
        try:
            self.db.close()
        finally:
            if self._guarded:
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
        if not self._guarded:
            return  # an in-memory copy of the file, not the file
        if _identity(self.path) != self._identity:
            raise ProjectError(
                f"Project file {self.path} was replaced or moved by another program while it was open.",
                "Nothing was written. Close the project and open it again.")
        if not os.path.exists(f"{self.path}-wal"):
            raise ProjectError(
                f"The write-ahead log of {self.path} was deleted by another program while it was open.",
                "Nothing was written. Close the project and open it again; restore a backup if work is missing.")


class ProjectRestoredError(ProjectError):
    """The project was restored from a backup by another connection since this one last wrote."""


def _checkpoint_file(path: Path) -> None:
    """A passive checkpoint through a short-lived connection of this thread (connections are never shared)."""
    try:
        conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=rw", uri=True, timeout=0.1, isolation_level=None)
    except sqlite3.Error:
        return
    file_guard.register(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
    except sqlite3.Error:
        pass  # busy or gone: the next write schedules another, and closing the project checkpoints anyway
    finally:
        conn.close()
        file_guard.unregister(path)


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


def _nearly_full(path: Path) -> bool:
    """Whether the disk holding ``path`` has (almost) no room left: SQLite says "disk I/O error" for that too."""
    try:
        return shutil.disk_usage(path.parent).free < 4 * 2 ** 20
    except OSError:
        return False


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
    if "full" in text or "no space" in text or ("disk i/o error" in text and _nearly_full(path)):
        return ProjectError(f"The disk holding {path} is full (no space left to write).",
                            f"Free some space on the disk of {path.parent}; the last change was rolled back.")
    if is_damage(exc):
        return damaged_error(path, str(exc))
    if "unable to open" in text:
        return _unopenable_error(path, exc)
    return ProjectError(f"Project file {path} could not be used: {exc}.", "")


def _unopenable_error(path: Path, exc: sqlite3.Error) -> ProjectError:
    """SQLite's "unable to open database file": name the sibling it needed when that is not a file (issue 29).

    SQLite keeps a WAL project's log and index beside it (``-wal``, ``-shm``); a folder of that name (a sync
    tool's conflict copy, a mistaken ``mkdir``) stops every user, root included, and SQLite does not say why.
    """
    for suffix in ("-wal", "-shm", "-journal"):
        sibling = Path(f"{path}{suffix}")
        if sibling.exists() and not sibling.is_file():
            return ProjectError(f"Project file {path} cannot be opened: {sibling.name} beside it is a folder, "
                                "where SQLite keeps a file of the project.",
                                f"Nothing was written. Move or rename the folder {sibling} and open the project again.")
    return ProjectError(f"Project file {path} could not be used: {exc}.",
                        f"Nothing was written. Check that {path.parent} and the files beside the project can be "
                        "read and written.")
