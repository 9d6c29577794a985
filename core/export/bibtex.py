"""The grammar's BibTeX entry: generated from the PDF's metadata, stored in the project, editable.

Exports cite the grammar as ``bibkey[pages]``, so every project needs one entry.  It is made once
from what the PDF says about itself (title, author, creation year) and kept in
``documents.bibtex``; the user can replace it (CLI ``bibtex FILE --set F.bib`` or the GUI), and a
replacement is parsed first so a broken entry never reaches an export.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from core.errors import GrammarLensError
from core.models import Document
from core.store.database import ProjectDatabase
from core.store.repository import list_documents

_KEY = re.compile(r"@\s*\w+\s*\{\s*([^,\s]+)\s*,")


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def _pdf_metadata(path: str) -> dict:
    """Author and year from the PDF itself, if the file is still where it was ingested from."""
    if not path or not Path(path).exists():
        return {}
    try:
        import pymupdf

        with pymupdf.open(path) as doc:
            meta = doc.metadata or {}
    except Exception:  # noqa: BLE001 - a moved or broken PDF just gives no metadata
        return {}
    year = re.search(r"D:(\d{4})", meta.get("creationDate") or "")
    return {"author": (meta.get("author") or "").strip(), "year": year.group(1) if year else "",
            "title": (meta.get("title") or "").strip()}


def generate_bibtex(document: Document) -> str:
    """A ``@book`` entry from the document's title and the PDF's author and year (left empty if unknown)."""
    meta = _pdf_metadata(document.path)
    title = document.title or meta.get("title") or Path(document.file_name).stem.replace("_", " ")
    author = meta.get("author", "")
    year = meta.get("year", "")
    surname = re.split(r"\s+and\s+", author)[0].split(",")[0].split()[-1] if author else ""
    first_word = next((w for w in re.findall(r"[A-Za-z]+", _ascii(title)) if len(w) > 3), "grammar")
    key = re.sub(r"[^a-z0-9]", "", _ascii(surname).lower()) or first_word.lower()
    key += year or ""
    fields = [("author", author), ("title", title), ("year", year)]
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields if value)
    return f"@book{{{key},\n{body}\n}}\n"


def bibkey(bibtex: str) -> str:
    """The citation key of an entry ("dolatian2023")."""
    match = _KEY.search(bibtex or "")
    if not match:
        raise GrammarLensError("The BibTeX entry has no citation key.", "Start it like @book{key, ...}.")
    return match.group(1)


def check_bibtex(text: str) -> str:
    """Parse ``text`` as exactly one BibTeX entry (with pycldf's parser); returns it stripped."""
    from pycldf.sources import Sources

    sources = Sources()
    try:
        sources.add(text)
    except Exception as exc:  # noqa: BLE001 - the parser raises its own error types
        raise GrammarLensError(f"The BibTeX entry cannot be read: {exc}", "Check braces and commas.") from exc
    entries = list(sources)
    if len(entries) != 1:
        raise GrammarLensError(f"Expected one BibTeX entry, found {len(entries)}.", "Keep only the grammar's entry.")
    bibkey(text)
    return text.strip() + "\n"


def _document(project: ProjectDatabase, document_id: int | None) -> Document:
    docs = list_documents(project)
    if not docs:
        raise GrammarLensError("The project has no grammar yet.", "Ingest a PDF first.")
    if document_id is None:
        return docs[0]
    doc = next((d for d in docs if d.id == document_id), None)
    if doc is None:
        raise GrammarLensError(f"There is no document {document_id} in this project.", "")
    return doc


def get_bibtex(project: ProjectDatabase, document_id: int | None = None) -> str:
    """The stored entry of the (first) grammar; generated and stored on first use."""
    doc = _document(project, document_id)
    from core.store.repository import document_bibtex, is_read_only, set_document_bibtex

    stored = document_bibtex(project, doc.id)
    if stored.strip():
        return stored
    text = generate_bibtex(doc)
    if not is_read_only(project):
        try:
            set_document_bibtex(project, doc.id, text)
        except GrammarLensError:
            pass  # a read-only project still exports with the generated entry
    return text


def set_bibtex(project: ProjectDatabase, text: str, document_id: int | None = None) -> str:
    """Replace the grammar's entry after checking that it parses."""
    checked = check_bibtex(text)
    doc = _document(project, document_id)
    from core.store.repository import set_document_bibtex

    set_document_bibtex(project, doc.id, checked)
    return checked
