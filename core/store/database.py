"""Opening, creating and migrating GrammarLens project files.

A project is a single SQLite file.  It is recognised by ``PRAGMA application_id`` (so that a
random SQLite file is refused, not silently altered), versioned by ``PRAGMA user_version``
(one number per applied migration, see :mod:`core.store.migrations`), runs in WAL mode with
foreign keys on, and every write goes through :meth:`ProjectDatabase.transaction`.

Each thread must open its own :class:`ProjectDatabase`; a connection is never shared across
threads (``check_same_thread`` stays on to catch mistakes).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path
from typing import Iterator

import sqlite_utils

from core.errors import ProjectError
from core.store.migrations import MIGRATIONS

APPLICATION_ID = 0x474C4E53  # "GLNS": marks a SQLite file as a GrammarLens project
PROJECT_SUFFIX = ".grammarlens"
BUSY_TIMEOUT_MS = 3000


class ProjectDatabase:
    """A connection to one project file, migrated to the current schema."""

    def __init__(self, path: Path, db: sqlite_utils.Database) -> None:
        self.path = path
        self.db = db

    @property
    def conn(self) -> sqlite3.Connection:
        return self.db.conn

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite_utils.Database]:
        """Run a block of writes atomically; nested blocks become savepoints.

        Environment failures (disk full, locked, read-only) surface as :class:`ProjectError`.
        """
        try:
            with self.db.atomic():
                yield self.db
        except sqlite3.OperationalError as exc:
            raise _environment_error(self.path, exc) from exc

    def schema_version(self) -> int:
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "ProjectDatabase":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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
    return _connect(target, new=True)


def open_project(path: str | os.PathLike[str], *, create: bool = False, readonly: bool = False) -> ProjectDatabase:
    """Open an existing project (or create it when ``create`` is true and it is missing).

    Refuses, without writing a byte, files that are not SQLite, SQLite files that are not
    GrammarLens projects, corrupt files and projects written by a newer GrammarLens.
    """
    target = Path(path)
    if not target.exists():
        if create:
            return create_project(target)
        raise ProjectError(f"Project file {target} does not exist.", "Check the path, or create a project with 'ingest'.")
    if not os.access(target, os.R_OK):  # os.access, not open(): see _check_header
        raise ProjectError(f"Cannot read {target}.", "Check the file's permissions.")
    if not readonly and not os.access(target, os.W_OK):
        raise ProjectError(
            f"Project file {target} is read-only.",
            "Copy it somewhere writable or change its permissions; it was left untouched.",
        )
    return _connect(target, new=False, readonly=readonly)


def _check_header(path: Path, conn: sqlite3.Connection) -> None:
    """Refuse files that are not GrammarLens projects, asking SQLite rather than reading the file.

    Why not ``open(path).read(100)``: closing any Python file descriptor on the project drops every
    POSIX lock this process holds on it, including the shared lock of another live connection (a
    job's worker thread, the GUI's connection).  Another process then believes it closed the last
    connection, checkpoints and deletes the -wal and -shm files under the live one, whose next write
    fails with "disk I/O error".  SQLite also sees the header as it stands in the WAL, which a raw
    read of the main file does not (a newly created project's header may still live only there).
    """
    try:
        app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
        pages = int(conn.execute("PRAGMA page_count").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        if "not a database" in str(exc).lower():
            raise ProjectError(
                f"{path} is not a GrammarLens project (not an SQLite file).",
                "Open a .grammarlens file, or give a new file name to create a project.",
            ) from exc
        raise
    if app_id == APPLICATION_ID:
        return
    if pages == 0:
        raise ProjectError(f"{path} is empty, not a GrammarLens project.", "Delete it or choose another file.")
    raise ProjectError(
        f"{path} is an SQLite database but not a GrammarLens project.",
        "It was left untouched. Give a new file name to create a project.",
    )


def _connect(path: Path, *, new: bool, readonly: bool = False) -> ProjectDatabase:
    uri = f"file:{path}?mode={'ro' if readonly else 'rwc'}"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
    except sqlite3.OperationalError as exc:
        raise _environment_error(path, exc) from exc
    db = sqlite_utils.Database(conn)
    project = ProjectDatabase(path, db)
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys = ON")
        if not new:
            _check_header(path, conn)
            _check_integrity(path, conn)
        if not readonly:
            if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            _migrate(project, new=new)
        else:
            _check_version(path, project.schema_version())
    except sqlite3.DatabaseError as exc:
        conn.close()
        if new:
            with contextlib.suppress(OSError):
                path.unlink()
        raise _environment_error(path, exc) from exc
    except ProjectError:
        conn.close()
        raise
    return project


def _check_integrity(path: Path, conn: sqlite3.Connection) -> None:
    rows = conn.execute("PRAGMA quick_check").fetchall()
    if rows != [("ok",)]:
        raise ProjectError(
            f"Project file {path} is damaged ({rows[0][0]}).",
            "It was left untouched. Restore a backup, or re-ingest the grammar into a new project.",
        )


def _check_version(path: Path, version: int) -> None:
    if version > len(MIGRATIONS):
        raise ProjectError(
            f"{path} was written by a newer GrammarLens (schema {version}, this one knows {len(MIGRATIONS)}).",
            "Update GrammarLens to open it; the file was left untouched.",
        )


def _migrate(project: ProjectDatabase, *, new: bool) -> None:
    version = project.schema_version()
    _check_version(project.path, version)
    for number, migration in enumerate(MIGRATIONS, start=1):
        if number <= version:
            continue
        with project.db.atomic():
            if new and number == 1:
                project.conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            migration(project.db)
            project.conn.execute(f"PRAGMA user_version = {number}")


def _environment_error(path: Path, exc: sqlite3.Error) -> ProjectError:
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return ProjectError(
            f"Project file {path} is locked by another program.",
            "Close other GrammarLens windows or jobs using it and try again.",
        )
    if "readonly" in text or "read-only" in text:
        return ProjectError(f"Project file {path} is read-only.", "Check its permissions; nothing was written.")
    if "disk" in text and "full" in text:
        return ProjectError(f"The disk holding {path} is full.", "Free some space; the last change was rolled back.")
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return ProjectError(
            f"Project file {path} is damaged or not a GrammarLens project ({exc}).",
            "It was left untouched. Restore a backup or create a new project.",
        )
    return ProjectError(f"Project file {path} could not be used: {exc}.", "")
