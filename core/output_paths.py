"""Where GrammarLens may write an output file or folder.

Every command or window that writes a file the user named (an export, a batch requests or results
file, a grading sheet, the demo PDF) checks the path here first, so that no output can ever land
on a project or a grammar.  A refused path raises :class:`~core.errors.GrammarLensError` with a
hint, before a byte is written.  Refused:

* a GrammarLens project: a name ending in ``.grammarlens`` (existing or not), an SQLite file whose
  ``PRAGMA application_id`` is GrammarLens's, or a project's ``-wal``/``-shm``/``-journal`` file;
* a PDF: a name ending in ``.pdf`` (unless the output *is* a PDF), or a file that starts with ``%PDF``;
* a folder where a file is expected, a file where a folder is expected, anything else that is not
  a plain file (a device, a pipe);
* a path whose parent folder does not exist (nothing creates folders on the way);
* an existing output unless the caller says it may be overwritten (``--force`` for exports).

The check never reads a file with Python's ``open()`` before SQLite has said it is not a
database: closing a Python descriptor on a live SQLite database drops every POSIX lock this
process holds on it (see ``_check_header`` in :mod:`core.store.database`).
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from core.errors import GrammarLensError
from core.store.database import APPLICATION_ID, PROJECT_SUFFIX

PDF_SUFFIX = ".pdf"
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")

# The files each export format writes into its folder (core/export); tests/core/test_cli_bad_input.py
# checks this list against what the exports really write.
EXPORT_FILES = {
    "csv": ("profile.csv",),
    "json": ("profile.json",),
    "cldf": ("StructureDataset-metadata.json", "values.csv", "languages.csv", "parameters.csv", "codes.csv",
             "sources.bib"),
}


def is_project_file(path: str | os.PathLike[str]) -> bool:
    """True if ``path`` is an existing SQLite file marked as a GrammarLens project (asked through SQLite)."""
    target = Path(path)
    return _is_plain_file(target) and _application_id(target) == APPLICATION_ID


def refuse_project(path: str | os.PathLike[str], option: str, expected: str) -> None:
    """Refuse a GrammarLens project given where another kind of file is read (``--batch-in P``, a results file).

    Reading a project with Python's ``open()`` while this process has it open would drop this
    process's SQLite locks when the file is closed (see :mod:`core.store.file_guard`); and it is a
    mistake.  Asked through SQLite, so the check itself opens no descriptor.
    """
    if is_project_file(path):
        raise GrammarLensError(f"{option} {path} is a GrammarLens project, not {expected}.",
                               f"Give {expected} for {option}.")


def is_pdf_file(path: str | os.PathLike[str]) -> bool:
    """True if ``path`` is an existing file that starts like a PDF (read only once SQLite says it is no database)."""
    target = Path(path)
    return _is_plain_file(target) and _application_id(target) is None and _starts_with_pdf_magic(target)


def check_output_file(path: str | os.PathLike[str], *, option: str | None = None, overwrite: bool = True,
                      force_option: str | None = None, pdf: bool = False) -> Path:
    """Refuse an output file that must not be written; return ``path`` as a :class:`Path`.

    ``option`` names the command-line option in messages (``--out``); ``overwrite`` false refuses
    an existing file, naming ``force_option`` in the hint; ``pdf`` true is for outputs that are
    PDFs themselves (the demo grammar), which may then end in ``.pdf``.
    """
    target = _valid_path(path, option)
    label = _label(target, option)
    _refuse_project_name(target, label)
    if not pdf and _suffix(target) == PDF_SUFFIX:
        raise GrammarLensError(f"{label} is named like a PDF; GrammarLens never writes its output over a grammar.",
                               "Give the output another name, e.g. one ending in .jsonl or .csv.")
    info = _stat(target, label)
    if info is None:
        _check_parent(target, label)
        return target
    if stat.S_ISDIR(info.st_mode):
        example = target / ("demo.pdf" if pdf else _example_name(option))
        raise GrammarLensError(f"{label} is a folder, not a file.", f"Give a file name inside it, e.g. {example}.")
    if not stat.S_ISREG(info.st_mode):
        raise GrammarLensError(f"{label} is not a plain file.", "Give the name of a new file.")
    _refuse_existing_project_or_pdf(target, label, pdf=pdf)
    if not overwrite:
        raise GrammarLensError(f"{label} already exists.",
                               f"Add {force_option or '--force'} to overwrite it, or give a new file name.")
    _check_parent(target, label)
    return target


def check_output_folder(path: str | os.PathLike[str], names: tuple[str, ...] | list[str] = (), *,
                        option: str | None = None, overwrite: bool = False, force_option: str | None = None,
                        parents: bool = False) -> Path:
    """Refuse an output folder (created if missing; its parent must exist unless ``parents``) or its files ``names``.

    Files of ``names`` that are already in the folder are refused unless ``overwrite``; whatever
    they are, a project or a PDF among them is always refused.  ``parents`` is for work and cache
    folders that are created with their parents (``build/bench_profile``).
    """
    target = _valid_path(path, option)
    label = _label(target, option)
    _refuse_project_name(target, label)
    if _suffix(target) == PDF_SUFFIX:
        raise GrammarLensError(f"{label} is named like a PDF, not like a folder.", "Give a folder for the output.")
    info = _stat(target, label)
    if info is None:
        _check_parent(target, label, missing_ok=parents)
        return target
    if not stat.S_ISDIR(info.st_mode):
        if stat.S_ISREG(info.st_mode):
            _refuse_existing_project_or_pdf(target, label)
        raise GrammarLensError(f"{label} is a file, not a folder.",
                               "Give a folder to write into (it is created if missing).")
    existing = []
    for name in names:
        inner = target / name
        if _stat(inner, _label(inner, None)) is not None:
            check_output_file(inner, pdf=False)  # a folder, a device, a project, a PDF under that name: refused
            existing.append(name)
    if existing and not overwrite:
        shown = ", ".join(existing[:3]) + (f" and {len(existing) - 3} more" if len(existing) > 3 else "")
        raise GrammarLensError(f"{label} already holds an export ({shown}).",
                               f"Add {force_option or '--force'} to overwrite it, or choose another folder.")
    if not os.access(target, os.W_OK | os.X_OK):
        raise GrammarLensError(f"Cannot write into the folder {target}.", "Choose a folder you may write to.")
    return target


def check_export_folder(path: str | os.PathLike[str], fmt: str, *, option: str | None = None,
                        overwrite: bool = False, force_option: str | None = None) -> Path:
    """:func:`check_output_folder` for an export of format ``fmt`` (its files: :data:`EXPORT_FILES`)."""
    return check_output_folder(path, EXPORT_FILES.get(fmt, ()), option=option, overwrite=overwrite,
                               force_option=force_option)


def export_folder_in(parent: str | os.PathLike[str], project: str | os.PathLike[str], fmt: str) -> Path:
    """The new folder an export from the window goes into: ``<parent>/<project name>-<fmt>`` (``ulwa-cldf``).

    Why a folder of its own: an export is several files (six for CLDF), and written loose into the
    folder a person chose they mixed with whatever was there, or replaced files of the same name.
    A filesystem root (``/``, ``C:\\``) is refused: nobody means to export there, and a root process
    could.  The folder may exist; whether it may be written into is :func:`holds_only_exports`' call.
    """
    folder = Path(os.path.abspath(_valid_path(parent, None)))
    if folder.parent == folder:
        raise GrammarLensError(f"GrammarLens does not export into {folder}, the top of the disk.",
                               "Choose a folder of yours, e.g. your Documents folder.")
    stem = "".join(c if c.isalnum() or c in "-_." else "-" for c in Path(project).stem).strip("-.") or "profile"
    return folder / f"{stem}-{fmt}"


def holds_only_exports(folder: str | os.PathLike[str]) -> bool:
    """True if ``folder`` is missing, or holds only files an export writes (an earlier export may be replaced)."""
    target = Path(folder)
    if not target.exists():
        return True
    known = {name for names in EXPORT_FILES.values() for name in names}
    return target.is_dir() and all(entry.name in known and entry.is_file() for entry in target.iterdir())


def free_folder(folder: str | os.PathLike[str]) -> Path:
    """``folder`` if nothing is there, else the first of ``folder-2``, ``folder-3``… that is free."""
    target, n = Path(folder), 2
    candidate = target
    while candidate.exists():
        candidate = target.with_name(f"{target.name}-{n}")
        n += 1
    return candidate


# -- helpers ----------------------------------------------------------------------------------------

def _valid_path(path: str | os.PathLike[str], option: str | None) -> Path:
    """``path`` as a Path; an empty name or one with a NUL character is refused (no file can have it)."""
    text = os.fspath(path)
    what = option or "The output path"
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if not text.strip():
        raise GrammarLensError(f"{what} is empty.", "Give a file or folder name.")
    if "\0" in text:
        raise GrammarLensError(f"{what} holds a NUL character, which no file name can have.", "Check the path.")
    return Path(text)


def _label(path: Path, option: str | None) -> str:
    return f"{option} {path}" if option else str(path)


def _example_name(option: str | None) -> str:
    return {"--batch-out": "requests.jsonl", "--out": "results.jsonl", "--sheet": "sheet.csv"}.get(option or "",
                                                                                                    "output.txt")


def _suffix(path: Path) -> str:
    return path.suffix.lower()


def _stat(path: Path, label: str) -> os.stat_result | None:
    """The path's status after following links; None if nothing is there."""
    try:
        return path.stat()
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        raise GrammarLensError(f"{label}: a part of the path is a file, not a folder.", "Check the path.") from None
    except OSError as exc:  # too long, a loop of links, no permission
        raise GrammarLensError(f"{label} cannot be used: {exc.strerror or exc}.", "Check the path.") from None
    except ValueError as exc:  # an embedded NUL character
        raise GrammarLensError(f"{label!r} is not a valid path ({exc}).", "Check the path.") from None


def _is_plain_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except (OSError, ValueError):
        return False


def _check_parent(path: Path, label: str, *, missing_ok: bool = False) -> None:
    parent = Path(os.path.abspath(path)).parent
    info = _stat(parent, label)
    while info is None and missing_ok and parent != parent.parent:  # the nearest folder that exists
        parent = parent.parent
        info = _stat(parent, label)
    if info is None:
        raise GrammarLensError(f"The folder {parent} of {label} does not exist.",
                               "Create it first, or choose another place.")
    if not stat.S_ISDIR(info.st_mode):
        raise GrammarLensError(f"{parent} (in {label}) is a file, not a folder.", "Check the path.")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise GrammarLensError(f"Cannot write into the folder {parent}.", "Choose a folder you may write to.")


def _refuse_project_name(path: Path, label: str) -> None:
    """Refuse names of projects and of a project's SQLite side files, existing or not (links followed)."""
    try:
        real = Path(os.path.realpath(path))
    except (OSError, ValueError):
        real = path
    for candidate in dict.fromkeys((path, real)):
        name = candidate.name
        if _suffix(candidate) == PROJECT_SUFFIX:
            what = "a GrammarLens project" if is_project_file(candidate) else "named like a GrammarLens project"
            raise GrammarLensError(
                f"{label} is {what}; GrammarLens never writes an output there.",
                "Give the output another name; a project is only made by 'ingest' or the app.")
        for side in SQLITE_SIDE_FILES:
            base = candidate.with_name(name[: -len(side)]) if name.endswith(side) and len(name) > len(side) else None
            if base is not None and (_suffix(base) == PROJECT_SUFFIX or is_project_file(base)):
                raise GrammarLensError(f"{label} belongs to the project {base}; writing it would damage the project.",
                                       "Give the output another name.")


def _refuse_existing_project_or_pdf(path: Path, label: str, *, pdf: bool = False) -> None:
    """Refuse an existing plain file that is a project, another SQLite database, or (unless ``pdf``) a PDF."""
    app_id = _application_id(path)
    if app_id == APPLICATION_ID:
        raise GrammarLensError(f"{label} is a GrammarLens project; GrammarLens never writes an output over one.",
                               "Give the output another name.")
    if app_id == _UNREADABLE:
        raise GrammarLensError(f"{label} cannot be checked (locked or unreadable); it was left alone.",
                               "Give the output another name.")
    if app_id is not None:
        raise GrammarLensError(f"{label} is an SQLite database; GrammarLens never writes an output over one.",
                               "Give the output another name.")
    if not pdf and _starts_with_pdf_magic(path):
        raise GrammarLensError(f"{label} is a PDF (a grammar?); GrammarLens never writes an output over one.",
                               "Give the output another name.")


_UNREADABLE = -1


def _application_id(path: Path) -> int | None:
    """``PRAGMA application_id`` of an SQLite file, read through SQLite in read-only mode; None if not SQLite.

    An empty file is no database.  A file SQLite cannot look at (locked, unreadable) gives
    ``_UNREADABLE``: better to refuse an output than to overwrite something unknown.
    """
    # percent-encoded: '?', '#', any bytes are safe.  Without a -wal beside it the main file holds everything, and
    # immutable mode reads it without creating -wal/-shm files (a read-only connection would leave them behind).
    wal = os.path.exists(f"{os.path.realpath(path)}-wal")  # beside the real file, whatever name links to it
    uri = Path(os.path.abspath(path)).as_uri() + ("?mode=ro" if wal else "?mode=ro&immutable=1")
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=1.0)
    except sqlite3.Error:
        return _UNREADABLE
    try:
        app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
        pages = int(conn.execute("PRAGMA page_count").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        return None if "not a database" in str(exc).lower() else _UNREADABLE
    finally:
        conn.close()
    return app_id if pages or app_id else None


def _starts_with_pdf_magic(path: Path) -> bool:
    """The first bytes of a file SQLite has already said is not a database."""
    try:
        with open(path, "rb") as fh:
            return fh.read(5).startswith(b"%PDF")
    except OSError:
        return False
