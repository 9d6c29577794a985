"""Schema 9: each grammar's bibliographic record and citation key, kept in the project.

``documents.bib_record`` (JSON: title, author, year as the PDF states them) lets an export build
the grammar's BibTeX entry without reopening the PDF (a sample export of 100 projects read every
PDF before); ``documents.bibkey`` is the key the exports cite the document by, unique within the
project, so a second grammar's pages are never cited under the first grammar's key.  Documents
ingested before are given their record here when their PDF is still where it was ingested from;
the key is chosen at the first export.  Additive: two nullable columns, nothing rewritten.
"""

from __future__ import annotations

import json

import sqlite_utils


def migrate(db: sqlite_utils.Database) -> None:
    from core.store.document_sources import pdf_record

    db.execute("ALTER TABLE documents ADD COLUMN bibkey TEXT")
    db.execute("ALTER TABLE documents ADD COLUMN bib_record TEXT")
    for document_id, path in db.execute("SELECT id, path FROM documents").fetchall():
        record = pdf_record(path or "")
        if record:
            db.execute("UPDATE documents SET bib_record = ? WHERE id = ?",
                       (json.dumps(record, ensure_ascii=False, sort_keys=True), document_id))
