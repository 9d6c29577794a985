"""Schema 1: the language, grammar documents, their pages and paragraphs (with FTS5)."""

from __future__ import annotations

import sqlite_utils


def migrate(db: sqlite_utils.Database) -> None:
    db.table("meta").create({"key": str, "value": str}, pk="key")
    db.table("language").create(
        {"id": int, "name": str, "glottocode": str, "source": str},
        pk="id",
        not_null={"name", "source"},
    )
    db.table("documents").create(
        {
            "id": int,
            "sha256": str,
            "file_name": str,
            "path": str,
            "title": str,
            "page_count": int,
            "label_source": str,
            "pdf_page_of_printed_1": int,
            "bibtex": str,
            "ingested_at": str,
            "seconds": float,
        },
        pk="id",
        not_null={"sha256", "file_name", "page_count", "label_source"},
    )
    db.table("documents").create_index(["sha256"], unique=True)
    db.table("pages").create(
        {
            "document_id": int,
            "pdf_page": int,
            "page_label": str,
            "label_source": str,
            "width": float,
            "height": float,
            "chars": int,
        },
        pk=("document_id", "pdf_page"),
        foreign_keys=[("document_id", "documents", "id")],
        not_null={"page_label", "label_source"},
    )
    db.table("paragraphs").create(
        {
            "id": int,
            "document_id": int,
            "seq": int,
            "pdf_page": int,
            "page_label": str,
            "label_source": str,
            "section": str,
            "kind": str,
            "example_number": str,
            "text": str,
            "rects": str,  # JSON [[pdf_page, x0, y0, x1, y1], ...]
        },
        pk="id",
        foreign_keys=[("document_id", "documents", "id")],
        not_null={"document_id", "seq", "pdf_page", "page_label", "kind", "text", "rects"},
    )
    db.table("paragraphs").create_index(["document_id", "seq"], unique=True)
    db.table("paragraphs").create_index(["document_id", "pdf_page"])
    db.table("paragraphs").enable_fts(
        ["text", "section"], fts_version="FTS5", create_triggers=True, tokenize="unicode61 remove_diacritics 2"
    )
    # Updates and deletes stay in sync through triggers; inserts come a whole document at a time,
    # and one INSERT ... SELECT into the index (repository.insert_document) is several times
    # faster than a trigger firing per row.
    db.execute("DROP TRIGGER paragraphs_ai")
