"""Telling a damaged project apart from a file that was never one, and pointing at the way back.

A linguist whose project will not open needs to hear "damaged, here is your newest good backup
and the command that restores it", not "not a GrammarLens project".  Nothing here writes to the
file: it is looked at through SQLite read-only or, when SQLite cannot read it at all, by its first
16 bytes (only when no connection of this process has it open, see :mod:`core.store.file_guard`).
"""

from __future__ import annotations

from pathlib import Path

from core.errors import DamagedProjectError, ProjectError
from core.store import file_guard
from core.store.backups import newest_good_backup

SQLITE_MAGIC = b"SQLite format 3\x00"


def damaged_error(path: Path, detail: str) -> ProjectError:
    """The error for a file SQLite cannot read (``detail``: SQLite's words), naming the newest good backup."""
    backup = newest_good_backup(path)
    looks_like_sqlite = _has_sqlite_header(path)
    if backup is None and looks_like_sqlite is False and path.suffix != ".grammarlens":
        return ProjectError(
            f"{path} is not a GrammarLens project (not an SQLite file).",
            "Open a .grammarlens file, or give a new file name to create a project.")
    what = f"Project file {path} is damaged ({_short(detail)})"
    if backup is None:
        return DamagedProjectError(
            f"{what}; no backup was found beside it.",
            "It was left untouched. If it is not a GrammarLens project, choose another file; otherwise "
            "try the sqlite3 tool's '.recover' on a copy, or re-ingest the grammar into a new project.")
    return DamagedProjectError(
        f"{what}. The newest good backup is {backup.path.name} ({backup.created:%Y-%m-%d %H:%M} UTC).",
        f"It was left untouched. Restore it with: python main.py restore \"{path}\" --from \"{backup.path}\" "
        "(or Project > Restore from backup… in the app); the damaged file is kept beside it.")


def _has_sqlite_header(path: Path) -> bool | None:
    """True/False from the first bytes; None when they cannot be read safely or at all."""
    if file_guard.is_open(path):
        return None
    try:
        with open(path, "rb") as handle:
            return handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return None


def _short(detail: str) -> str:
    text = " ".join(detail.split())
    return text if len(text) <= 120 else text[:117] + "…"
