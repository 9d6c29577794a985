"""Keep every descriptor on an open project file inside SQLite.

Why: POSIX advisory locks belong to the process, not to the descriptor.  Closing *any* descriptor
on a file drops *every* lock this process holds on it, SQLite's included ("How To Corrupt An SQLite
Database File", section 2.2).  Once our shared lock is gone, another process that closes its own
connection believes it is the last user, checkpoints, and deletes the live ``-wal``/``-shm`` files;
what we write afterwards goes to a deleted file.  SQLite protects its own descriptors (it defers
their close while locks are held); nothing protects a plain ``open()``.

So while a project is open, this process opens its files (the database and its ``-wal``, ``-shm``
and ``-journal`` siblings) through SQLite only.  This module enforces that for Python code with an
audit hook (PEP 578): any ``open()``/``os.open()``/``io.open_code()`` of a registered file raises
:class:`~core.errors.ProjectError` *before* the descriptor exists.  Native code (Qt's file dialogs,
PyMuPDF) is not audited; ``gui/common/file_dialogs.py`` closes that door for Qt, and ``refuse_open_project``
lets callers check a path before handing it to native code.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

from core.errors import ProjectError

_SIBLINGS = ("", "-wal", "-shm", "-journal")

_lock = threading.Lock()
_open: dict[tuple[int, int], list] = {}  # (device, inode) of an open database file -> [its path, live connections]
_installed = False


def register(path: Path) -> None:
    """Note that this process now has an SQLite connection on ``path``."""
    key = _key(os.fspath(path))
    if key is None:
        return
    with _lock:
        entry = _open.setdefault(key, [os.path.realpath(path), 0])
        entry[1] += 1
    _install()


def unregister(path: Path) -> None:
    """Note that one connection on ``path`` was closed (a file gone or replaced meanwhile is looked up by name)."""
    key = _key(os.fspath(path))
    real = os.path.realpath(path)
    with _lock:
        if key not in _open:
            key = next((k for k, (name, _) in _open.items() if name == real), None)
        if key is None:
            return
        _open[key][1] -= 1
        if _open[key][1] <= 0:
            del _open[key]


def is_open(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a project file (or one of its WAL siblings) open in this process."""
    return _guarded(os.fspath(path)) is not None


def refuse_open_project(path: str | os.PathLike[str], purpose: str) -> None:
    """Raise if ``path`` is an open project file, before native code (Qt, MuPDF) opens it for ``purpose``."""
    project = _guarded(os.fspath(path))
    if project is not None:
        raise _refusal(project, purpose)


def _key(name: str) -> tuple[int, int] | None:
    try:
        st = os.stat(name)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def _guarded(name: str) -> str | None:
    """The open project that ``name`` (any name of it: symlinks and hard links too) belongs to, or None.

    One ``stat`` per call (per sibling suffix that the name ends with), no descriptor.
    """
    if not _open:
        return None
    candidates = [name] + [name[: -len(s)] for s in _SIBLINGS if s and name.endswith(s)]
    for candidate in candidates:
        entry = _open.get(_key(candidate))  # type: ignore[arg-type]
        if entry is not None:
            return entry[0]
    return None


def _refusal(project: str, purpose: str) -> ProjectError:
    return ProjectError(
        f"{project} is an open GrammarLens project; it cannot be used {purpose}.",
        "Choose another file: while a project is open only its database engine may open it "
        "(anything else would drop its locks and could destroy it).",
    )


def _audit(event: str, args: tuple) -> None:
    if event not in ("open", "io.open_code") or not _open or not args:
        return
    target = args[0]
    if isinstance(target, int) or target is None:
        return  # an existing descriptor, not a new one on a path
    try:
        name = os.fsdecode(target)
    except (TypeError, ValueError):
        return
    project = _guarded(name)
    if project is not None:
        raise _refusal(project, "as an ordinary file")


def _install() -> None:
    global _installed
    with _lock:
        if _installed:
            return
        sys.addaudithook(_audit)  # audit hooks cannot be removed; the hook is idle while nothing is registered
        _installed = True
