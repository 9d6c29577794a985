"""Restoring a project from one of its backups, under its write lock, keeping what it replaced.

See :mod:`core.store.backups` for where backups live and when they are taken.
"""

from __future__ import annotations

import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from core.errors import ProjectError
from core.store.backups import Backup, check_backup, copy_database, make_backup, sqlite_uri_path
from core.store.opening import open_project


def restore_backup(project_path: Path, backup_path: Path) -> Backup | None:
    """Make the project what ``backup_path`` holds; returns the backup of the state it replaced.

    A readable project is overwritten through SQLite's backup API, under its write lock, so a
    window or command that has it open sees the restored state at its next read.  A damaged
    project is first moved aside as ``NAME.damaged-STAMP`` (never deleted) and the backup becomes
    a new file; the return value is then None.
    """
    project_path, backup_path = Path(project_path), Path(backup_path)
    problem = check_backup(backup_path)
    if problem is not None:
        raise ProjectError(f"{backup_path} cannot be restored: {problem}.",
                           f"Choose another backup (list them with: python main.py restore \"{project_path}\" --list).")
    try:
        project = open_project(project_path, backup=False)
    except ProjectError as exc:
        if not project_path.exists() or "damaged" in exc.message:
            _replace_damaged(project_path, backup_path)
            return None
        raise
    with project:
        safety = make_backup(project, "before-restore")
        source = sqlite3.connect(f"file:{sqlite_uri_path(backup_path)}?mode=ro&immutable=1", uri=True)
        try:
            source.backup(project.conn)
        except sqlite3.Error as exc:
            raise ProjectError(f"Restoring {backup_path.name} into {project_path} failed: {exc}.",
                               f"The state before was kept as {safety.path}.") from exc
        finally:
            source.close()
    open_project(project_path, backup=False).close()  # brings an older backup up to the current schema
    return safety


def _replace_damaged(project_path: Path, backup_path: Path) -> None:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    if project_path.exists():
        aside = project_path.with_name(f"{project_path.name}.damaged-{stamp}")
        for suffix in ("", "-wal", "-shm"):
            sibling = Path(f"{project_path}{suffix}")
            if sibling.exists():
                os.replace(sibling, f"{aside}{suffix}")
    partial = project_path.with_name(project_path.name + ".restoring")
    source = sqlite3.connect(f"file:{sqlite_uri_path(backup_path)}?mode=ro&immutable=1", uri=True)
    try:
        copy_database(source, partial)
    finally:
        source.close()
    os.replace(partial, project_path)
    open_project(project_path, backup=False).close()
