"""Opening, creating and migrating GrammarLens project files.

A project is a single SQLite file.  It is recognised by ``PRAGMA application_id`` (so that a
random SQLite file is refused, not silently altered), versioned by ``PRAGMA user_version``
(one number per applied migration, see :mod:`core.store.migrations`), runs in WAL mode with
foreign keys on, and every write goes through :meth:`ProjectDatabase.transaction`.

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
from core.store.migrations import MIGRATIONS

APPLICATION_ID = 0x474C4E53  # "GLNS": marks a SQLite file as a GrammarLens project
PROJECT_SUFFIX = ".grammarlens"
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
                raise _environment_error(self.path, exc) from exc
            return
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise _environment_error(self.path, exc) from exc
        try:
            self._check_still_ours()
            yield self.db
            conn.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            _rollback(conn)
            raise _environment_error(self.path, exc) from exc
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

    def __enter__(self) -> "ProjectDatabase":
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


def create_project(path: str | os.PathLike[str]) -> ProjectDatabase:
    """Create a new, empty project file at ``path`` (which must not exist yet)."""
    target = Path(path)
    if target.exists():
        raise ProjectError(f"{target} already exists.", "Choose another file name, or open it instead.")
    if not target.parent.exists():
        raise ProjectError(f"The folder {target.parent} does not exist.", "Create it first or choose another place.")
    # Claim the name atomically before SQLite sees it: if creating fails, _connect deletes the file, and that
    # must be our own empty file, never one another process created a moment ago and has open.
    try:
        os.close(os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
    except FileExistsError:
        raise ProjectError(f"{target} already exists.", "Choose another file name, or open it instead.") from None
    except OSError as exc:
        raise ProjectError(f"Cannot create {target}: {exc.strerror}.", "Choose a writable folder.") from exc
    return _connect_new(target)


def open_project(path: str | os.PathLike[str], *, create: bool = False, readonly: bool = False,
                 backup: bool = True) -> ProjectDatabase:
    """Open an existing project (or create it when ``create`` is true and it is missing).

    Refuses, without writing a byte, files that are not SQLite, SQLite files that are not
    GrammarLens projects, damaged files (naming the newest good backup) and projects written by a
    newer GrammarLens.  A file this process may not write (a CD, a shared drive, a colleague's
    file) opens read-only: reading works, and a write says "read-only" with the path.  Opening a
    writable project keeps a backup beside it, at most one an hour (``backup=False`` skips it,
    for short-lived helper connections of a process that already opened the project).
    """
    target = Path(path)
    if not target.exists():
        if create:
            return create_project(target)
        raise ProjectError(f"Project file {target} does not exist.", "Check the path, or create a project with 'ingest'.")
    if not os.access(target, os.R_OK):  # os.access, not open(): see core.store.file_guard
        raise ProjectError(f"Cannot read {target}.", "Check the file's permissions.")
    media_read_only = not _writable(target)
    inspected = _inspect(target)
    if readonly or media_read_only:
        # On writable media a reader joins the WAL like any connection (query_only keeps it from writing), so
        # the last one to close removes the -wal/-shm files; a read-only SQLite connection would leave them.
        return _connect_read_only(target, inspected if media_read_only else "rw")
    project = _connect_existing(target, inspected)
    if backup:
        from core.store import backups  # backups open projects themselves: imported late to avoid a cycle

        try:
            backups.backup_if_due(project, reason="open")
        except ProjectError as exc:  # a backup that cannot be written must not lock the linguist out
            project.backup_problem = exc
        except BaseException:
            project.close()
            raise
    return project


def read_only_error(path: Path) -> ProjectError:
    return ProjectError(f"Project file {path} is read-only.",
                        "Nothing was written. Copy it somewhere writable (or change its permissions) to change it.")


def _writable(path: Path) -> bool:
    """Whether SQLite can write here: the file, and the folder where the -wal and -shm files live."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK)


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _uri(path: Path, mode: str) -> str:
    """SQLite's URI for ``path``: percent-encoded, so ``?``, ``#``, ``%`` and undecodable bytes in names work."""
    base = path.absolute().as_uri()
    if mode == "immutable":
        return f"{base}?mode=ro&immutable=1"
    return f"{base}?mode={mode}"


def _raw_connect(path: Path, mode: str) -> sqlite3.Connection:
    """A plain connection: ``mode`` is rwc, rw, ro or immutable (read-only media without -shm)."""
    try:
        conn = sqlite3.connect(_uri(path, mode), uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    except sqlite3.OperationalError as exc:
        raise _environment_error(path, exc) from exc
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return conn


def _inspect(path: Path) -> str:
    """Check header, integrity and version through a read-only connection; returns the mode that could read.

    Read-only, so that a damaged file is never written to (a read-write open may already replay a
    journal into it).  A WAL file on read-only media without its -shm can only be read as immutable.
    A file SQLite cannot read is judged (damaged or never a project) after the connection closed.
    """
    damage: str | None = None
    file_guard.register(path)
    try:
        for mode in ("ro", "immutable"):
            try:
                conn = _raw_connect(path, mode)
            except ProjectError:
                if mode == "immutable":
                    raise
                continue
            try:
                _check_header(path, conn)
                _check_integrity(path, conn)
                _check_version(path, int(conn.execute("PRAGMA user_version").fetchone()[0]))
                return mode
            except sqlite3.OperationalError as exc:
                if mode == "ro" and "unable to open" in str(exc).lower():
                    continue
                if not _is_damage(exc):
                    raise _environment_error(path, exc) from exc
                damage = str(exc)
            except sqlite3.DatabaseError as exc:
                damage = str(exc)
            finally:
                conn.close()
            break
    finally:
        file_guard.unregister(path)
    if damage is not None:
        raise damaged_error(path, damage)
    raise ProjectError(f"Project file {path} could not be read.", "Check the file and its folder's permissions.")


def _is_damage(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "not a database" in text or "malformed" in text or "corrupt" in text


def _check_header(path: Path, conn: sqlite3.Connection) -> None:
    """Refuse files that are not GrammarLens projects, asking SQLite rather than reading the file.

    Why not ``open(path).read(100)``: see :mod:`core.store.file_guard`.  SQLite also sees the
    header as it stands in the WAL, which a raw read of the main file does not (a newly created
    project's header may still live only there).
    """
    app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
    pages = int(conn.execute("PRAGMA page_count").fetchone()[0])
    if app_id == APPLICATION_ID:
        return
    if pages == 0:
        raise ProjectError(f"{path} is empty, not a GrammarLens project.", "Delete it or choose another file.")
    raise ProjectError(
        f"{path} is an SQLite database but not a GrammarLens project.",
        "It was left untouched. Give a new file name to create a project.",
    )


def _check_integrity(path: Path, conn: sqlite3.Connection) -> None:
    rows = conn.execute("PRAGMA quick_check").fetchall()
    if rows != [("ok",)]:
        raise sqlite3.DatabaseError(f"database disk image is malformed: {rows[0][0]}")


def _check_version(path: Path, version: int) -> None:
    if version > len(MIGRATIONS):
        raise ProjectError(
            f"{path} was written by a newer GrammarLens (schema {version}, this one knows {len(MIGRATIONS)}).",
            "Update GrammarLens to open it; the file was left untouched.",
        )


def _connect_new(path: Path) -> ProjectDatabase:
    try:
        conn = _raw_connect(path, "rwc")
        project = ProjectDatabase(path, sqlite_utils.Database(conn))
    except ProjectError:
        with contextlib.suppress(OSError):
            path.unlink()
        raise
    try:
        _configure(conn)
        _migrate(project, new=True)
    except (sqlite3.DatabaseError, ProjectError) as exc:
        project.close()
        with contextlib.suppress(OSError):
            path.unlink()
        if isinstance(exc, ProjectError):
            raise
        raise _environment_error(path, exc) from exc
    return project


def _connect_existing(path: Path, inspected: str) -> ProjectDatabase:
    conn = _raw_connect(path, "rw")
    project = ProjectDatabase(path, sqlite_utils.Database(conn))
    try:
        _configure(conn)
        _migrate(project, new=False)
    except sqlite3.DatabaseError as exc:
        project.close()
        raise _environment_error(path, exc) from exc
    except BaseException:
        project.close()
        raise
    return project


def _connect_read_only(path: Path, inspected: str) -> ProjectDatabase:
    conn = _raw_connect(path, inspected)
    conn.execute("PRAGMA query_only = 1")
    conn.execute("PRAGMA foreign_keys = ON")
    project = ProjectDatabase(path, sqlite_utils.Database(conn), readonly=True)
    version = project.schema_version()
    if version < len(MIGRATIONS):
        project.close()
        raise ProjectError(
            f"{path} is read-only and was written by an older GrammarLens (schema {version} of {len(MIGRATIONS)}).",
            "Copy it somewhere writable and open the copy: it is upgraded on opening.")
    return project


def _configure(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA foreign_keys = ON")
    if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        conn.execute("PRAGMA journal_mode = WAL")
    # NORMAL in WAL mode: a commit survives a crash of the program (kill -9); only an OS crash or
    # power cut may lose the last commits, never the file's integrity.
    conn.execute("PRAGMA synchronous = NORMAL")


def _migrate(project: ProjectDatabase, *, new: bool) -> None:
    """Apply the missing migrations, each as one write transaction that re-reads the version.

    Re-reading inside ``BEGIN IMMEDIATE`` lets two processes opening an old project at once agree:
    the second waits, sees the new version and applies nothing twice.  An existing project is
    backed up before its first migration.
    """
    if project.schema_version() >= len(MIGRATIONS):
        return
    if not new and project.schema_version() > 0:
        from core.store import backups

        backups.make_backup(project, reason=f"before-upgrade-{project.schema_version()}")
    for number, migration in enumerate(MIGRATIONS, start=1):
        with project.transaction():
            version = project.schema_version()
            _check_version(project.path, version)
            if number <= version:
                continue
            if number == 1:
                project.conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            migration(project.db)
            project.conn.execute(f"PRAGMA user_version = {number}")


def _rollback(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")


def _environment_error(path: Path, exc: sqlite3.Error) -> ProjectError:
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
    if _is_damage(exc):
        return damaged_error(path, str(exc))
    return ProjectError(f"Project file {path} could not be used: {exc}.", "")
