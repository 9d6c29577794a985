"""Opening, creating and migrating GrammarLens project files.

A project is recognised by ``PRAGMA application_id`` (so that a random SQLite file is refused, not
silently altered) and versioned by ``PRAGMA user_version`` (one number per applied migration, see
:mod:`core.store.migrations`).  Everything is checked through a read-only connection before a
read-write one is made, so a damaged file is never written to; a writable project is backed up on
opening (at most hourly) and before an upgrade (:mod:`core.store.backups`).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path
from typing import Callable, Iterator

import sqlite_utils

from core.errors import ProjectError
from core.store import backups, file_guard, places
from core.store.damage import damaged_error
from core.store.database import (
    APPLICATION_ID,
    BUSY_TIMEOUT_MS,
    ProjectDatabase,
    environment_error,
    is_damage,
)
from core.store.migrations import MIGRATIONS

# Told at once when the automatic backup of a project being opened fails (the CLI prints a warning line).
_BACKUP_PROBLEM_LISTENERS: list[Callable[[Path, ProjectError], None]] = []


@contextlib.contextmanager
def on_backup_problem(listener: Callable[[Path, ProjectError], None]) -> Iterator[None]:
    """Within the block, call ``listener(project path, error)`` when an automatic backup on opening fails."""
    _BACKUP_PROBLEM_LISTENERS.append(listener)
    try:
        yield
    finally:
        _BACKUP_PROBLEM_LISTENERS.remove(listener)


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
        raise ProjectError(f"Project file {target} does not exist.",
                           "Check the path, or create a project with 'ingest'.")
    # A symlinked project is used through the file it points at: SQLite keeps the -wal and -shm beside
    # that file, and the checks of ProjectDatabase must look there too.
    target = Path(os.path.realpath(target))
    if not os.access(target, os.R_OK):  # os.access, not open(): see core.store.file_guard
        raise ProjectError(f"Cannot read {target}.", "Check the file's permissions.")
    media_read_only = not _writable(target)
    inspected = _inspect(target)
    reason = places.hard_link_reason(target)
    if readonly or media_read_only or reason is not None:
        # On writable media a reader joins the WAL like any connection (query_only keeps it from writing), so
        # the last one to close removes the -wal/-shm files; a read-only SQLite connection would leave them.
        return _connect_read_only(target, places.read_only_mode(target, inspected) if media_read_only else "rw",
                                  reason)
    project = _connect_existing(target, inspected)
    backups.remove_leftovers(target)  # what killed backups and restores left (never a file in use)
    if backup:
        try:
            backups.backup_if_due(project, reason="open")
        except ProjectError as exc:  # a backup that cannot be written must not lock the linguist out
            project.backup_problem = exc
            for listener in list(_BACKUP_PROBLEM_LISTENERS):
                listener(target, exc)
        except BaseException:
            project.close()
            raise
    return project


def _writable(path: Path) -> bool:
    """Whether SQLite can write here: the file, and the folder where the -wal and -shm files live."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK)


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
        raise environment_error(path, exc) from exc
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
                places.check_schema_objects(path, conn)
                _check_version(path, int(conn.execute("PRAGMA user_version").fetchone()[0]))
                return mode
            except sqlite3.OperationalError as exc:
                if mode == "ro" and "unable to open" in str(exc).lower():
                    continue
                if not is_damage(exc):
                    raise environment_error(path, exc) from exc
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
        project.adopt_current_copy()
    except (sqlite3.DatabaseError, ProjectError) as exc:
        project.close()
        with contextlib.suppress(OSError):
            path.unlink()
        if isinstance(exc, ProjectError):
            raise
        raise environment_error(path, exc) from exc
    return project


def _connect_existing(path: Path, inspected: str) -> ProjectDatabase:
    conn = _raw_connect(path, "rw")
    project = ProjectDatabase(path, sqlite_utils.Database(conn))
    try:
        _configure(conn)
        _migrate(project, new=False)
        project.adopt_current_copy()
    except sqlite3.DatabaseError as exc:
        project.close()
        raise environment_error(path, exc) from exc
    except BaseException:
        project.close()
        raise
    return project


def _connect_read_only(path: Path, mode: str, reason: ProjectError | None = None) -> ProjectDatabase:
    """A read-only connection; a file of an older schema is read through an upgraded copy in memory.

    The copy lets every reader see today's tables without a byte written to the file (a colleague's
    project, a CD, or simply a ``code --json`` on a project nobody has opened for writing yet).
    """
    conn = _raw_connect(path, mode)
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    guard = True
    if version < len(MIGRATIONS):
        memory = sqlite3.connect(":memory:", isolation_level=None)
        try:
            conn.backup(memory)
        finally:
            conn.close()
        conn, guard = memory, False  # nothing of this process stays open on the file
        upgraded = ProjectDatabase(path, sqlite_utils.Database(conn), guard=False)
        _migrate(upgraded, new=True)
    conn.execute("PRAGMA query_only = 1")
    conn.execute("PRAGMA foreign_keys = ON")
    return ProjectDatabase(path, sqlite_utils.Database(conn), readonly=True, readonly_reason=reason, guard=guard)


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


def upgrade_copy(path: Path) -> None:
    """Bring a private copy of a project (a restore being staged) to the current schema, without a backup of it."""
    conn = _raw_connect(path, "rw")
    project = ProjectDatabase(path, sqlite_utils.Database(conn), guard=False)
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        _migrate(project, new=True)
    except sqlite3.DatabaseError as exc:
        raise environment_error(path, exc) from exc
    finally:
        project.close()
