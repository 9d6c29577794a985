"""Each grammar's bibliographic record and citation key, kept in its project (``documents`` columns of migration 7).

Why stored: an export cites every document of a project under its own BibTeX key, and a sample
export of 100 projects must not reopen 100 PDFs to read who wrote them.  The record is what the
PDF says about itself (title, author, creation year), read once: by migration 7 for documents
ingested before it, else at the first export of the project.  ``bibkey`` is the key the exports
cite the document by, unique within the project, fixed once chosen.

A project of an older schema read read-only lacks these columns: the readers here return None
for them, and the caller falls back to the PDF (:func:`pdf_record`, remembered per process).
"""

from __future__ import annotations

import json
import os
import re
from typing import NamedTuple

from core.store import file_guard
from core.store.database import ProjectDatabase

_RECORDS: dict[tuple[str, int, int], dict] = {}  # (path, size, mtime_ns) -> record, for old read-only projects


class SourceRow(NamedTuple):
    """One document as the exports cite it: the stored entry, key and record (None when not stored)."""

    document_id: int
    path: str
    file_name: str
    title: str
    bibtex: str
    bibkey: str | None
    record: dict | None


def has_source_columns(project: ProjectDatabase) -> bool:
    """Whether this project's schema has the ``bibkey``/``bib_record`` columns (migration 7)."""
    columns = {r[1] for r in project.conn.execute("PRAGMA table_info(documents)")}
    return {"bibkey", "bib_record"} <= columns


def source_rows(project: ProjectDatabase) -> list[SourceRow]:
    """Every document of the project with its stored bibliographic fields, in document order."""
    stored = has_source_columns(project)
    extra = ", bibkey, bib_record" if stored else ", NULL, NULL"
    rows = project.conn.execute(
        f"SELECT id, path, file_name, title, bibtex{extra} FROM documents ORDER BY id").fetchall()
    return [SourceRow(r[0], r[1] or "", r[2] or "", r[3] or "", r[4] or "", r[5] or None, _record(r[6]))
            for r in rows]


def _record(text: str | None) -> dict | None:
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def store_source(project: ProjectDatabase, document_id: int, *, bibkey: str | None = None,
                 record: dict | None = None, bibtex: str | None = None) -> None:
    """Keep what was worked out for a document (only the fields given), in one transaction."""
    sets, values = [], []
    if bibkey is not None:
        sets.append("bibkey = ?")
        values.append(bibkey)
    if record is not None:
        sets.append("bib_record = ?")
        values.append(json.dumps(record, ensure_ascii=False, sort_keys=True))
    if bibtex is not None:
        sets.append("bibtex = ?")
        values.append(bibtex)
    if not sets:
        return
    with project.transaction():
        project.conn.execute(f"UPDATE documents SET {', '.join(sets)} WHERE id = ?", (*values, document_id))


def pdf_record(path: str) -> dict:
    """Title, author and creation year as the PDF states them ({} when the file is not there or unreadable).

    Remembered per process by path, size and modification time, so a sample whose old projects share a
    grammar reads its PDF once.
    """
    try:
        stat = os.stat(path)
    except (OSError, ValueError):
        return {}
    key = (path, stat.st_size, stat.st_mtime_ns)
    if key not in _RECORDS:
        _RECORDS[key] = _read_pdf(path)
    return dict(_RECORDS[key])


def _read_pdf(path: str) -> dict:
    """What the PDF says about itself; {} when it cannot be read or is an open project file.

    The project-file guard comes first (as in :func:`core.ingest.pdf_open.open_pdf`, which this layer
    cannot import): MuPDF opening and closing a live project's file would drop its SQLite locks.
    """
    if file_guard.is_open(path):
        return {}
    try:
        import pymupdf

        with pymupdf.open(path) as doc:
            meta = doc.metadata or {}
    except Exception:  # any unreadable PDF simply has no record
        return {}
    year = re.search(r"D:(\d{4})", meta.get("creationDate") or "")
    return {"author": (meta.get("author") or "").strip(), "year": year.group(1) if year else "",
            "title": (meta.get("title") or "").strip()}
