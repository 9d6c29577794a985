"""Exports land whole or not at all.

An export is written into a temporary folder beside its target (same file system, so moving is a
rename), checked there, and only then moved into place.  A failure or a cancel at any point
leaves the target as it was: no half-written files, no empty folder, no stray temporary folder.

* A target folder that does not exist yet is the staged folder, renamed (one atomic step); its
  parent must exist (nothing creates folders on the way, see :mod:`core.output_paths`).
* A target folder that exists keeps every file the export does not write; the files it does
  write replace their namesakes one by one, the old ones kept aside until all moved, and put
  back if a move fails.

Also here: :func:`csv_field_limit`, which lets Python's csv module (used by pycldf and csvw to
read a dataset back) read fields longer than its default 131,072 characters, for the length of a
``with`` block only.
"""

from __future__ import annotations

import contextlib
import csv
import glob
import os
import secrets
import shutil
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from core.errors import GrammarLensError
from core.store.file_use import in_use, remove_folder_unless_in_use

CSV_FIELD_LIMIT = min(sys.maxsize, 2**31 - 1)  # a C long on every platform (Windows' is 32 bits)
_limit_lock = threading.Lock()
_limit_users = 0
_limit_before = 0


@contextmanager
def csv_field_limit(limit: int = CSV_FIELD_LIMIT) -> Iterator[None]:
    """Raise ``csv.field_size_limit`` inside the block; the last block to leave restores the old limit.

    The limit is process-wide, so overlapping blocks (exports on two threads) share one raise.
    """
    global _limit_users, _limit_before
    with _limit_lock:
        if _limit_users == 0:
            _limit_before = csv.field_size_limit()
            csv.field_size_limit(max(limit, _limit_before))
        _limit_users += 1
    try:
        yield
    finally:
        with _limit_lock:
            _limit_users -= 1
            if _limit_users == 0:
                csv.field_size_limit(_limit_before)


def check_target_folder(target: Path) -> None:
    """Fail before writing anything when the target cannot be a folder."""
    if target.exists() and not target.is_dir():
        raise GrammarLensError(f"{target} is a file, not a folder.", "Choose a folder to export into.")


@contextmanager
def staged_folder(target: str | Path) -> Iterator[Path]:
    """A temporary folder beside ``target``, moved into place when the block ends without an error.

    ``target`` is refused as :func:`core.output_paths.check_output_folder` refuses it (a file, a
    project, a missing parent folder...); the callers have checked the files they write.
    """
    from core.output_paths import check_output_folder

    target = Path(target)
    check_output_folder(target, overwrite=True)
    _remove_leftovers(target)
    try:
        staging = _new_folder(target.parent, f".{target.name}.", ".partial")
    except OSError as exc:
        raise GrammarLensError(f"Cannot write into {target.parent}: {exc.strerror or exc}.",
                               "Check that the folder exists and is writable, or choose another one.") from exc
    try:
        with in_use(staging):  # another export's cleanup leaves it alone
            yield staging
        _publish(staging, target)
    except BaseException as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(exc, OSError):  # disk full, permissions, a name the file system refuses...
            raise GrammarLensError(f"Cannot write the export into {target}: {exc.strerror or exc}.",
                                   "Nothing was changed there. Free some space or choose another folder.") from exc
        raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _remove_leftovers(target: Path) -> None:
    """Remove the staging folders that killed exports into ``target`` left (never one a live export writes)."""
    try:
        leftovers = list(target.parent.glob(f".{glob.escape(target.name)}.*.partial"))
    except OSError:
        return
    for folder in leftovers:
        if folder.is_dir() and not folder.is_symlink():
            remove_folder_unless_in_use(folder)


def _new_folder(parent: Path, prefix: str, suffix: str) -> Path:
    """A new folder with a unique name, made with the user's usual permissions (mkdtemp's are 0700).

    The staged folder becomes the export folder when it is renamed into place.
    """
    for _ in range(100):
        folder = parent / f"{prefix}{secrets.token_hex(4)}{suffix}"
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {parent}")


def _publish(staging: Path, target: Path) -> None:
    """Move the staged files into ``target``; on failure, put back what was there."""
    check_target_folder(target)
    if not target.exists():
        try:
            os.replace(staging, target)  # one rename: the folder appears whole
            return
        except OSError:
            if not target.is_dir():
                raise
            # someone made the folder meanwhile: move the files in one by one, as into any existing folder
    names = sorted(p.name for p in staging.iterdir())
    for name in names:
        if (target / name).is_dir() and not (target / name).is_symlink():
            raise GrammarLensError(f"{target / name} is a folder where the export writes a file.",
                                   "Move it away or export into another folder.")
    aside = _new_folder(target.parent, f".{target.name}.", ".previous")
    kept: list[str] = []
    moved: list[str] = []
    try:
        for name in names:
            if (target / name).exists() or (target / name).is_symlink():
                os.replace(target / name, aside / name)
                kept.append(name)
            os.replace(staging / name, target / name)
            moved.append(name)
    except BaseException:
        for name in moved:
            (target / name).unlink(missing_ok=True)
        for name in kept:
            with contextlib.suppress(OSError):  # the old file stays in ``aside``, which is then kept (not empty)
                os.replace(aside / name, target / name)
        with contextlib.suppress(OSError):
            aside.rmdir()
        raise
    shutil.rmtree(aside, ignore_errors=True)  # the replaced files, once every new one is in place
