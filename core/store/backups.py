"""Rotating backups of a project, taken with SQLite's online backup API (restoring one: :mod:`core.store.restore`).

Where: a folder beside the project named after it, ``ulwa.grammarlens.backups/``, one file per
backup, ``ulwa.20261202T063000Z.open.grammarlens-backup`` (UTC time, then why it was taken).  The
suffix is not ``.grammarlens`` so that a backup is not opened (and changed) as a project by mistake.

When: on opening a writable project (at most one an hour; the window repeats it hourly while a
project stays open), before a schema upgrade, before a batch import and before a restore.

How many: the newest :data:`KEEP_LAST`, plus the newest of each of the last :data:`KEEP_DAYS` days,
plus every ``before-restore`` copy of those days; older ones are deleted after each new backup.
A backup being read (by a restore) or named by the caller is never deleted.

Which is newest: the one holding the latest acts, read from inside the file (the ``revision`` of
:mod:`core.store.identity`), not from its name: a wrong clock can name a backup in the future, and
such a name must neither stop automatic backups nor make a stale state "newest".

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
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import ProjectError
from core.store.file_use import in_use, remove_unless_in_use
from core.store.identity import APPLICATION_ID, read_identity
from core.timestamps import now_iso

if TYPE_CHECKING:  # only a type here: the store's database module imports this one at run time
    from core.store.database import ProjectDatabase

BACKUP_SUFFIX = ".grammarlens-backup"
KEEP_LAST = 5
KEEP_DAYS = 7
OPEN_INTERVAL = timedelta(hours=1)
_STAMP = "%Y%m%dT%H%M%S%fZ"
# Any project file name works, newlines included (DOTALL); the stamp and reason are ours.
_NAME = re.compile(r"^(?P<stem>.+)\.(?P<stamp>\d{8}T\d{12}Z)\.(?P<reason>[a-z0-9-]+)" + re.escape(BACKUP_SUFFIX) + "$",
                   re.DOTALL)
_PARTIAL = re.compile(r"^.+\.partial$", re.DOTALL)


@dataclass(frozen=True)
class Backup:
    """One backup file of a project; ``revision`` and ``last_act_at`` are read from inside it."""

    path: Path
    created: datetime  # UTC, from the name: when it was written, by the clock of the machine that wrote it
    reason: str  # open, hourly, before-upgrade-N, before-import, before-restore, manual
    size: int
    revision: int = -1  # committed write transactions in it; -1 for a backup older than schema 7 (or unreadable)
    last_act_at: str | None = None
    project_id: str | None = None


def backup_dir(project_path: Path) -> Path:
    """The folder holding ``project_path``'s backups (it may not exist yet)."""
    project_path = Path(project_path).absolute()
    return project_path.with_name(project_path.name + ".backups")


def list_backups(project_path: Path) -> list[Backup]:
    """The project's backups, newest (latest acts) first; files whose names this module did not write are ignored."""
    folder = backup_dir(Path(project_path))
    if not folder.is_dir():
        return []
    found = []
    for entry in folder.iterdir():
        match = _NAME.match(entry.name)
        if not match or not entry.is_file():
            continue
        created = datetime.strptime(match["stamp"], _STAMP).replace(tzinfo=UTC)
        revision, last_act, project_id = _inside(entry)
        found.append(Backup(entry, created, match["reason"], entry.stat().st_size, revision, last_act, project_id))
    return sorted(found, key=lambda b: (b.revision, b.created), reverse=True)


def make_backup(project: ProjectDatabase, reason: str = "manual", *, protect: tuple[Path, ...] = ()) -> Backup:
    """Copy the project as it stands now into a new backup file, then prune old backups (never ``protect``)."""
    if project.conn.in_transaction:  # the backup API would wait forever on its own connection's write lock
        raise RuntimeError("make_backup() inside a transaction: back up before BEGIN or from another connection")
    try:
        made = write_backup(project.conn, project.path, reason, protect=protect)
    except ProjectError as exc:
        record_problem(project, exc)
        raise
    record_problem(project, None)
    return made


def write_backup(source: sqlite3.Connection, project_path: Path, reason: str, *,
                 protect: tuple[Path, ...] = ()) -> Backup:
    """Write what ``source`` (a connection on the project) reads now as a new backup of ``project_path``."""
    if not re.fullmatch(r"[a-z0-9-]+", reason):
        raise ValueError(f"backup reason must be lowercase words joined by '-': {reason!r}")
    folder = backup_dir(project_path)
    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise ProjectError(f"Cannot create the backup folder {folder}: {exc.strerror}.",
                           "Check that the project's folder is writable (and that no file has the folder's name)."
                           ) from exc
    now = datetime.now(UTC)
    stem = project_path.name.removesuffix(".grammarlens")
    target = folder / f"{stem}.{now.strftime(_STAMP)}.{reason}{BACKUP_SUFFIX}"
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    try:
        with in_use(partial, create=True):  # a concurrent cleanup of leftovers leaves it alone
            copy_database(source, partial, fresh_copy=True)
            os.replace(partial, target)
    except (sqlite3.Error, OSError) as exc:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise ProjectError(f"Could not write a backup of {project_path} into {folder}: {_plain(exc)}.",
                           "Free some disk space or check the folder's permissions; work goes on meanwhile."
                           ) from exc
    prune(project_path, keep=(target, *protect))
    revision, last_act, project_id = _inside(target)
    return Backup(target, now, reason, target.stat().st_size, revision, last_act, project_id)


def backup_if_due(project: ProjectDatabase, reason: str = "open", interval: timedelta = OPEN_INTERVAL) -> Backup | None:
    """A backup unless one younger than ``interval`` holds the latest acts (or the project is read-only).

    A backup named in the future (a wrong clock) is not "younger than the interval": it never
    stops backups.
    """
    if project.readonly:
        return None
    remove_leftovers(project.path)
    now = datetime.now(UTC)
    for b in list_backups(project.path)[:1]:
        if timedelta(0) <= now - b.created < interval:
            return None
    return make_backup(project, reason)


def prune(project_path: Path, keep: tuple[Path, ...] | Path | None = None) -> list[Path]:
    """Delete the backups that fall outside the rotation; returns the deleted paths.

    Never deleted: the newest :data:`KEEP_LAST` (by acts held, ``before-restore`` copies counted
    apart so that trying backups one by one never pushes the untried ones out), the newest of each
    of the last :data:`KEEP_DAYS` days, the ``before-restore`` copies of those days (and the newest
    :data:`KEEP_LAST` of them), ``keep``, and a backup another process is reading.
    """
    backups = list_backups(project_path)
    restores = [b for b in backups if b.reason == "before-restore"]  # counted apart: they never crowd others out
    kept = {b.path for b in [b for b in backups if b.reason != "before-restore"][:KEEP_LAST]}
    kept |= {b.path for b in restores[:KEEP_LAST]}
    today = datetime.now(UTC).date()
    newest_per_day: dict[object, Path] = {}
    for b in sorted(backups, key=lambda b: b.created, reverse=True):  # the first seen of a day is its newest
        if 0 <= (today - b.created.date()).days < KEEP_DAYS:
            newest_per_day.setdefault(b.created.date(), b.path)
            if b.reason == "before-restore":
                kept.add(b.path)
    kept |= set(newest_per_day.values())
    if isinstance(keep, Path):
        keep = (keep,)
    kept |= {Path(k) for k in keep or ()}
    deleted = []
    for b in backups:
        if b.path not in kept and remove_unless_in_use(b.path):
            deleted.append(b.path)
    return deleted


def remove_leftovers(project_path: Path) -> list[Path]:
    """Delete ``*.partial`` files of killed backups and restores (never one a live process is writing)."""
    removed = []
    folder = backup_dir(project_path)
    places = [folder] if folder.is_dir() else []
    places.append(Path(project_path).absolute().parent)
    stem = Path(project_path).name
    for place in places:
        try:
            entries = list(place.iterdir())
        except OSError:
            continue
        for entry in entries:
            if not _PARTIAL.match(entry.name) or (place != folder and not entry.name.startswith(stem)):
                continue
            if remove_unless_in_use(entry):
                removed.append(entry)
    return removed


def record_problem(project: ProjectDatabase, problem: ProjectError | None) -> None:
    """Keep why the last backup failed inside the project (for ``restore --list``), or clear it; never raises.

    Written directly, not as an act: it does not count as a change of the linguist's work.
    """
    if project.readonly or project.conn.in_transaction:
        return
    conn = project.conn
    with contextlib.suppress(sqlite3.Error):
        current = read_identity(conn)
        if current is None or (problem is None and current.backup_problem is None):
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute("UPDATE project_identity SET backup_problem = ?, backup_problem_at = ? WHERE id = 1",
                         (problem.message if problem else None, now_iso() if problem else None))
            conn.execute("COMMIT")
        except sqlite3.Error:
            conn.execute("ROLLBACK")


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
    """The intact backup holding the latest acts (see :func:`list_backups`)."""
    for backup in list_backups(Path(project_path)):
        if check_backup(backup.path) is None:
            return backup
    return None


def copy_database(source: sqlite3.Connection, target: Path, *, fresh_copy: bool = False) -> None:
    """A consistent copy of ``source`` written to ``target`` (made and synced by SQLite), in rollback-journal mode.

    The copy is switched out of WAL so that it is one self-contained file: nothing beside it is
    needed to read it, and opening it read-only on any medium works.  ``target`` may exist empty
    (a file marked in use); anything else there is replaced.  ``fresh_copy`` gives the copy its own
    ``copy_id`` (see :mod:`core.store.identity`), so that restoring it is noticed by open windows.
    """
    with contextlib.suppress(FileNotFoundError):
        if target.stat().st_size:
            target.unlink()
    dest = sqlite3.connect(sqlite_uri(target, "rwc"), uri=True, isolation_level=None)
    try:
        source.backup(dest)
        dest.execute("PRAGMA journal_mode = DELETE")
        if fresh_copy and read_identity(dest) is not None:
            dest.execute("UPDATE project_identity SET copy_id = ? WHERE id = 1", (uuid.uuid4().hex,))
    finally:
        dest.close()


def sqlite_uri_path(path: Path) -> str:
    """``path`` for an SQLite URI (``file:`` + this), percent-encoded by pathlib."""
    return Path(path).absolute().as_uri().removeprefix("file:")


def sqlite_uri(path: Path, mode: str) -> str:
    """An SQLite URI for ``path``; ``mode`` is rwc, rw, ro or immutable (read-only, no locks, no -shm)."""
    if mode == "immutable":
        return f"file:{sqlite_uri_path(path)}?mode=ro&immutable=1"
    return f"file:{sqlite_uri_path(path)}?mode={mode}"


def _inside(path: Path) -> tuple[int, str | None, str | None]:
    """(revision, last act, project id) read from inside a backup file; (-1, None, None) if it has none."""
    try:
        conn = sqlite3.connect(sqlite_uri(path, "immutable"), uri=True)
    except sqlite3.Error:
        return -1, None, None
    try:
        found = read_identity(conn)
    except sqlite3.Error:
        return -1, None, None
    finally:
        conn.close()
    return (found.revision, found.last_act_at, found.project_id) if found else (-1, None, None)


def _plain(exc: BaseException) -> str:
    text = str(exc)
    if "full" in text.lower() or getattr(exc, "errno", None) == 28:
        return "the disk is full"
    return text
