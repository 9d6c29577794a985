"""Marking a backup or staging file as in use, so that another process's rotation or cleanup leaves it alone.

A restore reads its backup for seconds to minutes and a backup is written as ``NAME.partial``
before it gets its name; meanwhile a second GrammarLens (a window, a batch import) may rotate the
backups or tidy up leftovers of killed runs.  ``flock`` says "in use" across processes and is
released by the kernel when the process dies, so a killed run's files become removable at once.

These files are never live databases opened through SQLite's locking (backups are read as
immutable, a ``.partial`` is written by a private connection and the descriptor here is closed
only after it), so the ``open()`` here cannot drop an SQLite lock (see :mod:`core.store.file_guard`).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
from pathlib import Path
from typing import Iterator


@contextlib.contextmanager
def in_use(path: Path, *, create: bool = False) -> Iterator[None]:
    """Hold a shared "in use" mark on ``path`` for the block (``create``: make an empty file to mark)."""
    flags = os.O_RDONLY | (os.O_CREAT if create else 0)
    fd = os.open(path, flags, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)


def remove_unless_in_use(path: Path) -> bool:
    """Delete ``path`` when no process marks it in use; True when it was deleted."""
    with _unless_in_use(path, os.O_RDONLY) as free:
        if not free or os.path.isdir(path):
            return False
        try:
            os.unlink(path)
        except OSError:
            return False
        return True


def remove_folder_unless_in_use(path: Path) -> bool:
    """Delete the folder ``path`` and what it holds when no process marks it in use; True when it was deleted."""
    with _unless_in_use(path, os.O_RDONLY | os.O_DIRECTORY) as free:
        if not free:
            return False
        shutil.rmtree(path, ignore_errors=True)
        return not os.path.exists(path)


@contextlib.contextmanager
def _unless_in_use(path: Path, flags: int) -> Iterator[bool]:
    """True while this process holds ``path``'s exclusive lock (no one marks it in use); False if it cannot."""
    try:
        fd = os.open(path, flags)
    except OSError:
        yield False
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        yield True
    finally:
        os.close(fd)
