"""Rotating backups of a project, taken with SQLite's online backup API (restoring one: :mod:`core.store.restore`).

Where: a folder beside the project named after it, ``ulwa.grammarlens.backups/``, one file per
backup, ``ulwa.20261202T063000Z.open.grammarlens-backup`` (UTC time, then why it was taken).  The
suffix is not ``.grammarlens`` so that a backup is not opened (and changed) as a project by mistake.

When: on opening a writable project (at most one an hour; the window repeats it hourly while a
project stays open), before a schema upgrade, before a batch import and before a restore.

How many: the last :data:`KEEP_LAST`, plus the newest of each of the last :data:`KEEP_DAYS` days;
older ones are deleted after each new backup.

Why the backup API and not a file copy: a copy of a live WAL database can catch it between a
commit in the ``-wal`` and its checkpoint (and opening the file to copy it would drop this
process's locks, see :mod:`core.store.file_guard`).  The backup API reads a consistent snapshot
through SQLite, while the window and the CLI go on writing.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import ProjectError
from core.store.identity import APPLICATION_ID

if TYPE_CHECKING:  # only a type here: the store's database module imports this one at run time
    from core.store.database import ProjectDatabase

BACKUP_SUFFIX = ".grammarlens-backup"
KEEP_LAST = 5
KEEP_DAYS = 7
OPEN_INTERVAL = timedelta(hours=1)
_STAMP = "%Y%m%dT%H%M%S%fZ"
_NAME = re.compile(r"^(?P<stem>.+)\.(?P<stamp>\d{8}T\d{12}Z)\.(?P<reason>[a-z0-9-]+)" + re.escape(BACKUP_SUFFIX) + "$")


@dataclass(frozen=True)
class Backup:
    """One backup file of a project."""

    path: Path
    created: datetime  # UTC
    reason: str  # open, hourly, before-upgrade-N, before-import, before-restore, manual
    size: int


def backup_dir(project_path: Path) -> Path:
    """The folder holding ``project_path``'s backups (it may not exist yet)."""
    project_path = Path(project_path).absolute()
    return project_path.with_name(project_path.name + ".backups")


def list_backups(project_path: Path) -> list[Backup]:
    """The project's backups, newest first (files whose names this module did not write are ignored)."""
    folder = backup_dir(Path(project_path))
    if not folder.is_dir():
        return []
    found = []
    for entry in folder.iterdir():
        match = _NAME.match(entry.name)
        if not match or not entry.is_file():
            continue
        created = datetime.strptime(match["stamp"], _STAMP).replace(tzinfo=UTC)
        found.append(Backup(entry, created, match["reason"], entry.stat().st_size))
    return sorted(found, key=lambda b: b.created, reverse=True)


def make_backup(project: ProjectDatabase, reason: str = "manual") -> Backup:
    """Copy the project as it stands now into a new backup file, then prune old backups."""
    if not re.fullmatch(r"[a-z0-9-]+", reason):
        raise ValueError(f"backup reason must be lowercase words joined by '-': {reason!r}")
    if project.conn.in_transaction:  # the backup API would wait forever on its own connection's write lock
        raise RuntimeError("make_backup() inside a transaction: back up before BEGIN or from another connection")
    folder = backup_dir(project.path)
    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise ProjectError(f"Cannot create the backup folder {folder}: {exc.strerror}.",
                           "Check that the project's folder is writable.") from exc
    now = datetime.now(UTC)
    stem = project.path.name.removesuffix(".grammarlens")
    target = folder / f"{stem}.{now.strftime(_STAMP)}.{reason}{BACKUP_SUFFIX}"
    partial = target.with_name(target.name + ".partial")
    try:
        copy_database(project.conn, partial)
        os.replace(partial, target)
    except (sqlite3.Error, OSError) as exc:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise ProjectError(f"Could not write a backup of {project.path} into {folder}: {exc}.",
                           "Free some disk space or check the folder's permissions.") from exc
    prune(project.path, keep=target)
    return Backup(target, now, reason, target.stat().st_size)


def backup_if_due(project: ProjectDatabase, reason: str = "open", interval: timedelta = OPEN_INTERVAL) -> Backup | None:
    """A backup unless the newest one is younger than ``interval`` (or the project is read-only)."""
    if project.readonly:
        return None
    newest = list_backups(project.path)
    if newest and datetime.now(UTC) - newest[0].created < interval:
        return None
    return make_backup(project, reason)


def prune(project_path: Path, keep: Path | None = None) -> list[Path]:
    """Delete the backups that fall outside the rotation; returns the deleted paths."""
    backups = list_backups(project_path)
    kept = {b.path for b in backups[:KEEP_LAST]}
    today = datetime.now(UTC).date()
    newest_per_day: dict[object, Path] = {}
    for b in backups:  # newest first, so the first seen of a day is its newest
        if (today - b.created.date()).days < KEEP_DAYS:
            newest_per_day.setdefault(b.created.date(), b.path)
    kept |= set(newest_per_day.values())
    if keep is not None:
        kept.add(keep)
    deleted = []
    for b in backups:
        if b.path not in kept:
            with contextlib.suppress(OSError):
                b.path.unlink()
                deleted.append(b.path)
    return deleted


def check_backup(path: Path) -> str | None:
    """None when ``path`` is a readable, intact GrammarLens project copy; else what is wrong with it."""
    try:
        conn = sqlite3.connect(f"file:{sqlite_uri_path(path)}?mode=ro&immutable=1", uri=True)
    except sqlite3.Error as exc:
        return str(exc)
    try:
        if int(conn.execute("PRAGMA application_id").fetchone()[0]) != APPLICATION_ID:
            return "not a GrammarLens project"
        result = conn.execute("PRAGMA quick_check").fetchone()[0]
        return None if result == "ok" else str(result)
    except sqlite3.Error as exc:
        return str(exc)
    finally:
        conn.close()


def newest_good_backup(project_path: Path) -> Backup | None:
    """The newest backup that passes :func:`check_backup`."""
    for backup in list_backups(Path(project_path)):
        if check_backup(backup.path) is None:
            return backup
    return None


def copy_database(source: sqlite3.Connection, target: Path) -> None:
    """A consistent copy of ``source`` written to ``target`` (made and synced by SQLite), in rollback-journal mode.

    The copy is switched out of WAL so that it is one self-contained file: nothing beside it is
    needed to read it, and opening it read-only on any medium works.
    """
    with contextlib.suppress(FileNotFoundError):
        target.unlink()
    dest = sqlite3.connect(str(target), isolation_level=None)
    try:
        source.backup(dest)
        dest.execute("PRAGMA journal_mode = DELETE")
    finally:
        dest.close()


def sqlite_uri_path(path: Path) -> str:
    """``path`` for an SQLite URI (``file:`` + this), percent-encoded by pathlib."""
    return Path(path).absolute().as_uri().removeprefix("file:")
