"""Which project files make up a sample: a folder, a list file, or one project.

A typologist's sample is a folder of ``*.grammarlens`` files, often with one sub-folder per
language or per coder, so a folder is searched at its top level and one level down (not deeper:
a project's own ``NAME.grammarlens.backups/`` folder sits beside it, and backups end in
``.grammarlens-backup``, so they are never taken for members; deeper trees are usually other
samples).  Hidden files and folders (``.name``) are skipped.

A text file lists one project path a line (``#`` starts a comment; relative paths are relative to
the list file's folder), for samples whose projects live in several places.  A single project
file is a sample of one.  Only names are looked at here: nothing is opened, and a list file is read
only once SQLite has said it is no project (see :mod:`core.store.file_guard`).
"""

from __future__ import annotations

import os
from pathlib import Path

from core.errors import GrammarLensError
from core.store.database import PROJECT_SUFFIX

MAX_LIST_BYTES = 10_000_000  # a list file of 100,000 long paths; anything bigger is not a list


def find_projects(source: str | os.PathLike[str]) -> list[Path]:
    """The project files of the sample ``source`` (folder, list file or project), sorted, without duplicates."""
    from core.output_paths import is_project_file

    root = Path(source)
    if not root.exists():
        raise GrammarLensError(f"{root} does not exist.",
                               "Give a folder of .grammarlens projects, a text file listing them, or one project.")
    if root.is_dir():
        found = _in_folder(root)
        if not found:
            raise GrammarLensError(f"{root} holds no {PROJECT_SUFFIX} project (top level or one folder down).",
                                   "Give the folder that holds the sample's project files.")
        return found
    if not root.is_file():
        raise GrammarLensError(f"{root} is neither a folder nor a file.", "Give a folder of projects or a list file.")
    if root.name.endswith(PROJECT_SUFFIX) or is_project_file(root):
        return [root]
    return _in_list(root)


def _in_folder(root: Path) -> list[Path]:
    found: list[Path] = []
    for folder in [root, *sorted(p for p in _entries(root) if p.is_dir() and not p.name.startswith("."))]:
        found.extend(p for p in _entries(folder) if p.name.endswith(PROJECT_SUFFIX) and not p.name.startswith(".")
                     and p.is_file())
    return sorted(dict.fromkeys(found))


def _entries(folder: Path) -> list[Path]:
    try:
        return sorted(folder.iterdir())
    except OSError:  # an unreadable sub-folder is simply not part of the sample
        return []


def _in_list(path: Path) -> list[Path]:
    if path.stat().st_size > MAX_LIST_BYTES:
        raise GrammarLensError(f"{path} is too large to be a list of projects.", "Give a text file, one path a line.")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise GrammarLensError(f"{path} is not a text file listing projects.",
                               "Give a folder of projects, or a UTF-8 text file with one project path a line.") from exc
    except OSError as exc:
        raise GrammarLensError(f"Cannot read {path}: {exc.strerror or exc}.", "Check the file's permissions.") from exc
    found: list[Path] = []
    for line in text.splitlines():
        entry = line.strip()
        if not entry or entry.startswith("#"):
            continue
        if "\0" in entry:
            raise GrammarLensError(f"{path} is not a text file listing projects.", "Give one project path a line.")
        member = Path(entry).expanduser()
        found.append(member if member.is_absolute() else path.parent / member)
    if not found:
        raise GrammarLensError(f"{path} lists no project.", "Write one project path a line.")
    return list(dict.fromkeys(found))


def same_file(first: str | os.PathLike[str], second: str | os.PathLike[str]) -> bool:
    """Whether two paths name one file (links and relative paths included); false when either is missing."""
    try:
        return os.path.samefile(first, second)
    except OSError:
        return False
