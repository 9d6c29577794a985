"""Restoring a project from one of its backups: checked first, then one locked step on the live file.

The mechanism (why no acknowledged act can fall between the steps):

1. The source is checked before anything changes: it is not the project itself, it is an intact
   GrammarLens file, its schema is one this GrammarLens can read, and it belongs to the same
   project (``project_id``, see :mod:`core.store.identity`) unless the caller names the other one.
2. It is *staged*: copied beside the project (``NAME.restoring.PID.partial``), brought up to the
   current schema, and given a fresh ``copy_id``.  The backup itself is only ever read, and is
   marked in use so that no rotation deletes it meanwhile.
3. The staged copy is written into the live project with SQLite's backup API *through the open
   connection of the project*.  The backup API takes the project's write lock at its first step
   and holds it until the last page is committed.  Right after that first step, while the lock is
   held and nothing is committed yet, the ``before-restore`` backup is written from a second,
   reading connection: it holds exactly what was committed before the lock.  Writers that come
   later wait for the lock (``busy_timeout``) and land on top of the restored state, and a window or
   batch import that read the old state is told at its next write (the ``copy_id`` changed) and
   writes nothing.  A failure (or ``kill -9``) before the commit leaves the old state: the write
   lives in uncommitted WAL frames that SQLite ignores.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from core.changes import ProjectChange, project_restored
from core.errors import DamagedProjectError, ProjectError
from core.store.backups import (
    Backup,
    check_backup,
    copy_database,
    prune,
    remove_leftovers,
    sqlite_uri,
    write_backup,
)
from core.store.database import ProjectDatabase
from core.store.file_use import in_use
from core.store.identity import Identity, language_name, read_identity
from core.store.migrations import MIGRATIONS
from core.store.opening import open_project, upgrade_copy


@dataclass(frozen=True)
class Restored:
    """What a restore did: the backup of the state it replaced (None: the file was damaged or missing,
    and was moved aside) and the act's record (:mod:`core.changes`: anything may differ now)."""

    safety: Backup | None
    change: ProjectChange


def restore_backup(project_path: Path, backup_path: Path, *, other_project: str | None = None) -> Restored:
    """Make the project what ``backup_path`` holds; returns the backup of the state it replaced, and the record.

    ``other_project``: the project id (or its first 8 characters) of the backup, given to restore a
    backup of *another* project over this one on purpose.  A damaged or missing project gets the
    backup as a new file (the damaged one and any stale ``-wal``/``-shm`` are moved aside, never
    deleted, never replayed); ``safety`` is then None.
    """
    project_path = _real(Path(project_path))
    backup_path = Path(backup_path).absolute()
    _refuse_the_project_itself(project_path, backup_path)
    if not backup_path.is_file():
        raise ProjectError(f"Backup {backup_path} does not exist (or is not a file).",
                           f"List the backups with: python main.py restore \"{project_path}\" --list")
    with contextlib.ExitStack() as stack:
        stack.enter_context(in_use(backup_path))  # another process's rotation leaves it alone
        source = _check_source(project_path, backup_path)
        remove_leftovers(project_path)
        try:
            project = open_project(project_path, backup=False)
        except ProjectError as exc:
            if not project_path.exists() or isinstance(exc, DamagedProjectError):
                _replace_missing_or_damaged(project_path, backup_path, stack)
                return Restored(None, project_restored())
            raise
        with project:
            if project.readonly:
                raise project.readonly_reason or ProjectError(
                    f"Project file {project_path} is read-only; nothing was restored.",
                    "Restore into a writable copy of it.")
            live = read_identity(project.conn)
            _check_same_project(project, live, source, backup_path, other_project)
            staged = _stage(project_path, backup_path, stack, keep_id=live if source is None else None)
            safety, before = _locked_swap(project, staged, backup_path)
            project.adopt_current_copy()
            with project.transaction():  # later acts count on from above the replaced state
                project.conn.execute("UPDATE project_identity SET revision = max(revision, ?) + 1 WHERE id = 1",
                                     (before.revision if before else 0,))
    prune(project_path, keep=(backup_path, safety.path))
    return Restored(safety, project_restored())


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path)) if path.exists() else path.absolute()


def _refuse_the_project_itself(project_path: Path, backup_path: Path) -> None:
    names = {Path(f"{project_path}{suffix}") for suffix in ("", "-wal", "-shm", "-journal")}
    same = _real(backup_path) in names
    if not same and project_path.exists() and backup_path.exists():
        same = os.path.samefile(project_path, backup_path)
    if same:
        raise ProjectError(f"{backup_path} is the project itself (or one of its files), not a backup of it.",
                           f"Choose a backup: list them with: python main.py restore \"{project_path}\" --list")


def _check_source(project_path: Path, backup_path: Path) -> Identity | None:
    """Refuse a source that is damaged or too new, before anything changes; returns its identity."""
    hint = ("Nothing was changed. Choose another backup "
            f"(list them with: python main.py restore \"{project_path}\" --list).")
    problem = check_backup(backup_path)
    if problem is not None:
        raise ProjectError(f"{backup_path} cannot be restored: {problem}.", hint)
    conn = sqlite3.connect(sqlite_uri(backup_path, "immutable"), uri=True)
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version > len(MIGRATIONS):
            raise ProjectError(
                f"{backup_path} was written by a newer GrammarLens (schema {version}; this one knows "
                f"{len(MIGRATIONS)}), so it cannot be restored here.",
                "Nothing was changed. Update GrammarLens to restore it, or choose another backup.")
        return read_identity(conn)
    finally:
        conn.close()


def _check_same_project(project: ProjectDatabase, live: Identity | None, source: Identity | None,
                        backup_path: Path, other_project: str | None) -> None:
    """Refuse another project's backup unless ``other_project`` names it (its project id).

    A backup older than schema 7 has no id: it counts as another project's when both name a
    language and the names differ, or both hold grammars and share none.
    """
    if live is None or (source is not None and source.project_id == live.project_id):
        return
    conn = sqlite3.connect(sqlite_uri(backup_path, "immutable"), uri=True)
    try:
        theirs = language_name(conn) or "no language set"
        if source is None and not _looks_like_another_project(conn, project.conn):
            return
    finally:
        conn.close()
    their_id = source.project_id[:8] if source is not None else "none"
    if other_project and (other_project.lower() == their_id or (
            len(other_project) >= 8 and source is not None and source.project_id.startswith(other_project.lower()))):
        return
    ours = language_name(project.conn) or "no language set"
    raise ProjectError(
        f"{backup_path.name} is a backup of another project ({theirs}, id {their_id}), "
        f"not of {project.path.name} ({ours}, id {live.project_id[:8]}).",
        f"Nothing was changed. To replace {project.path.name} with that other project on purpose, run: "
        f"python main.py restore \"{project.path}\" --from \"{backup_path}\" --other-project {their_id}")


def _looks_like_another_project(backup: sqlite3.Connection, live: sqlite3.Connection) -> bool:
    """For a backup without a project id: another language, or other grammars only."""
    ours, theirs = language_name(live), language_name(backup)
    if ours and theirs and ours.strip().lower() != theirs.strip().lower():
        return True
    try:
        our_books = {r[0] for r in live.execute("SELECT sha256 FROM documents")}
        their_books = {r[0] for r in backup.execute("SELECT sha256 FROM documents")}
    except sqlite3.Error:
        return False
    return bool(our_books and their_books and not our_books & their_books)


def _stage(project_path: Path, backup_path: Path, stack: contextlib.ExitStack, *,
           keep_id: Identity | None) -> Path:
    """A private, upgraded copy of the backup beside the project, with a fresh copy id; removed with ``stack``."""
    staged = project_path.with_name(f"{project_path.name}.restoring.{os.getpid()}.partial")
    stack.callback(lambda: staged.unlink(missing_ok=True))
    stack.enter_context(in_use(staged, create=True))
    source = sqlite3.connect(sqlite_uri(backup_path, "immutable"), uri=True)
    try:
        copy_database(source, staged, fresh_copy=True)
    except sqlite3.Error as exc:
        raise ProjectError(f"Could not stage {backup_path.name} beside {project_path}: {exc}.",
                           "Nothing was changed. Free some disk space and try again.") from exc
    finally:
        source.close()
    upgrade_copy(staged)
    if keep_id is not None:  # a backup older than schema 7 has just been given an id: make it this project's
        conn = sqlite3.connect(sqlite_uri(staged, "rw"), uri=True, isolation_level=None)
        try:
            conn.execute("UPDATE project_identity SET project_id = ? WHERE id = 1", (keep_id.project_id,))
        finally:
            conn.close()
    return staged


def _locked_swap(project: ProjectDatabase, staged: Path, backup_path: Path) -> tuple[Backup, Identity | None]:
    """Write ``staged`` into the live project under its write lock; the before-restore backup is taken under it."""
    source = sqlite3.connect(sqlite_uri(staged, "immutable"), uri=True)
    taken: dict[str, object] = {}

    def under_the_lock(status: int, remaining: int, total: int) -> None:
        if "safety" in taken:
            return
        if remaining == 0:
            raise RuntimeError("the restore finished in one step: the before-restore backup would come too late")
        reader = sqlite3.connect(sqlite_uri(project.path, "ro"), uri=True, isolation_level=None)
        try:
            taken["before"] = read_identity(reader)
            taken["safety"] = write_backup(reader, project.path, "before-restore", protect=(backup_path,))
        finally:
            reader.close()

    try:
        pages = int(source.execute("PRAGMA page_count").fetchone()[0])
        source.backup(project.conn, pages=max(1, min(256, pages // 2)), progress=under_the_lock, sleep=0.05)
    except sqlite3.Error as exc:
        raise ProjectError(f"Restoring {backup_path.name} into {project.path} failed: {exc}.",
                           "Nothing was changed: the project still holds what it held before.") from exc
    except ProjectError as exc:  # the before-restore backup could not be written: no restore without it
        raise ProjectError(f"Nothing was restored: the current state of {project.path.name} could not be kept "
                           f"as a backup first ({exc.message.rstrip('.')}).", exc.hint) from exc
    finally:
        source.close()
    safety = taken["safety"]
    assert isinstance(safety, Backup)
    before = taken.get("before")
    return safety, before if isinstance(before, Identity) else None


def _replace_missing_or_damaged(project_path: Path, backup_path: Path, stack: contextlib.ExitStack) -> None:
    """Put the backup in place of a missing or damaged project; what was there is moved aside, never replayed."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    main_exists = project_path.exists()
    for suffix in ("", "-wal", "-shm", "-journal"):
        sibling = Path(f"{project_path}{suffix}")
        if sibling.exists():
            # With the main file gone, a -wal/-shm left beside it belongs to a file that no longer exists:
            # replayed into the restored copy it would damage it.
            aside = (f"{project_path}.damaged-{stamp}{suffix}" if main_exists
                     else f"{project_path}{suffix}.stale-{stamp}")
            os.replace(sibling, aside)
    staged = _stage(project_path, backup_path, stack, keep_id=None)
    os.replace(staged, project_path)
    open_project(project_path, backup=False).close()
