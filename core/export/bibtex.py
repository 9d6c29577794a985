"""The grammar's BibTeX entry: generated from the PDF's metadata, stored in the project, editable.

Exports cite the grammar as ``bibkey[pages]``, so every project needs one entry.  It is made once
from what the PDF says about itself (title, author, creation year) and kept in
``documents.bibtex``; the user can replace it (CLI ``bibtex FILE --set F.bib`` or the GUI), and a
replacement is checked first (parsed, written and read back as a CLDF export does) so a broken
entry never reaches an export.  :func:`export_source` is what the exports cite: the stored entry,
or, should an old project hold one that no longer passes the check, a working one and a warning.
"""

from __future__ import annotations

import contextlib
import re
import unicodedata
from pathlib import Path
from typing import NamedTuple

from core.errors import GrammarLensError
from core.export.bibtex_names import author_field, field_text
from core.models import Document
from core.store.database import ProjectDatabase
from core.store.repository import list_documents

_KEY = re.compile(r"@\s*\w+\s*\{\s*([^,\s]+)\s*,")
BIBKEY = re.compile(r"^[\w\-:.+/]+$")  # a key a CLDF Source column can cite: no ; (list separator), [ ] or blanks


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
    except Exception:
        return {}
    year = re.search(r"D:(\d{4})", meta.get("creationDate") or "")
    return {"author": (meta.get("author") or "").strip(), "year": year.group(1) if year else "",
            "title": (meta.get("title") or "").strip()}


def generate_bibtex(document: Document) -> str:
    """A ``@book`` entry from the document's title and the PDF's author and year (left empty if unknown)."""
    meta = _pdf_metadata(document.path)
    return entry_from_metadata(document.title or meta.get("title") or "", meta.get("author", ""),
                               meta.get("year", ""), Path(document.file_name).stem.replace("_", " "))


def entry_from_metadata(title: str, author: str, year: str, file_stem: str = "") -> str:
    """A ``@book`` entry from free-text metadata, one that passes :func:`check_bibtex` whatever the text.

    Authors are parsed into "Last, First and ..." or kept whole in braces
    (:mod:`core.export.bibtex_names`); should the entry still fail the check, it falls back to a
    title of plain words.
    """
    title = field_text(title) or field_text(file_stem) or "Untitled grammar"
    author = author_field(author)
    year = year if re.fullmatch(r"\d{4}", year or "") else ""
    key = _key_of(author, title) + year
    try:
        return check_bibtex(_entry(key, [("author", author), ("title", title), ("year", year)]))
    except GrammarLensError:  # not expected: kept so that no metadata can ever stop an export
        plain = " ".join(re.findall(r"\w+", title)) or "Untitled grammar"
        return check_bibtex(_entry(key, [("title", plain), ("year", year)]))


def _entry(key: str, fields: list[tuple[str, str]]) -> str:
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields if value)
    return f"@book{{{key},\n{body}\n}}\n"


def _key_of(author: str, title: str) -> str:
    """The key's name part: the first author's last name in ASCII ("friesen"), else a word of the title."""
    first = re.split(r"\s+and\s+", author)[0].strip("{} ") if author else ""
    surname = first.split(",")[0].split()[-1] if first.split(",")[0].split() else ""
    key = re.sub(r"[^a-z0-9]", "", _ascii(surname).lower())
    if key:
        return key
    first_word = next((w for w in re.findall(r"[A-Za-z]+", _ascii(title)) if len(w) > 3), "grammar")
    return first_word.lower()


def bibkey(bibtex: str) -> str:
    """The citation key of an entry ("dolatian2023")."""
    match = _KEY.search(bibtex or "")
    if not match:
        raise GrammarLensError("The BibTeX entry has no citation key.", "Start it like @book{key, ...}.")
    return match.group(1)


def check_bibtex(text: str) -> str:
    """Check ``text`` as exactly one BibTeX entry the way a CLDF export uses it; returns it stripped.

    The entry is parsed with pycldf's parser, written with pycldf's writer and parsed again (what
    exporting and validating a dataset does), and its key must be usable in a ``Source`` column.
    """
    from simplepybtex.database import parse_string

    if any("\ud800" <= c <= "\udfff" for c in text):
        raise GrammarLensError("The BibTeX entry holds characters that are not text (lone surrogates).",
                               "Retype the entry in a plain-text editor, saved as UTF-8.")
    key = bibkey(text)
    if not BIBKEY.match(key):
        raise GrammarLensError(f"The citation key {key!r} cannot be cited in a CLDF Source column.",
                               "Use letters, digits and - _ : . / + only (no ; [ ] or spaces), e.g. friesen2017.")
    try:
        data = parse_string(text, bib_format="bibtex")
        entries = list(data.entries.items())
        if len(entries) == 1:
            _written_and_read_back(data)
    except Exception as exc:
        raise GrammarLensError(f"The BibTeX entry cannot be read: {_one_line(exc)}",
                               "Check braces and commas; write several authors as "
                               "'Last, First and Last, First', an institution in braces: {SIL International}.") from exc
    if len(entries) != 1:
        raise GrammarLensError(f"Expected one BibTeX entry, found {len(entries)}.", "Keep only the grammar's entry.")
    return text.strip() + "\n"


def _written_and_read_back(data) -> None:
    """Write ``data`` with pycldf's writer and parse it again, as a CLDF export and its validation do."""
    import io

    from pycldf.sources import Writer
    from simplepybtex.database import parse_string

    out = io.StringIO()
    Writer().write_stream(data, out)
    back = parse_string(out.getvalue(), bib_format="bibtex")
    for key, entry in data.entries.items():
        again = back.entries[key]
        for role, people in entry.persons.items():
            if [str(p) for p in again.persons.get(role, [])] != [str(p) for p in people]:
                raise ValueError(f"the {role} field does not read back the same")


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


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
    """The stored entry of the (first) grammar; generated and stored on first use.

    An entry stored by an older GrammarLens that does not even parse (the generator once wrote
    "Dianne Friesen, with Mana Djeme Isaac, Ali Gaston, and Mana Samuel" as the author) was made by
    us, never accepted from a person (:func:`set_bibtex` parses first), so it is generated again.
    """
    doc = _document(project, document_id)
    from core.store.repository import document_bibtex, is_read_only, set_document_bibtex

    stored = document_bibtex(project, doc.id)
    if stored.strip() and _parses(stored):
        return stored
    text = generate_bibtex(doc)
    if not is_read_only(project):
        with contextlib.suppress(GrammarLensError):  # a read-only project still exports with the generated entry
            set_document_bibtex(project, doc.id, text)
    return text


def _parses(text: str) -> bool:
    from simplepybtex.database import parse_string

    try:
        return len(parse_string(text, bib_format="bibtex").entries) >= 1
    except Exception:
        return False


def set_bibtex(project: ProjectDatabase, text: str, document_id: int | None = None) -> str:
    """Replace the grammar's entry after checking that it parses."""
    checked = check_bibtex(text)
    doc = _document(project, document_id)
    from core.store.repository import set_document_bibtex

    set_document_bibtex(project, doc.id, checked)
    return checked


class ExportSource(NamedTuple):
    """What an export cites: the entry and its key (None for a project without a grammar), and warnings."""

    bibtex: str | None
    key: str | None
    warnings: tuple[str, ...] = ()


def export_source(project: ProjectDatabase) -> ExportSource:
    """The grammar's entry for an export, never one that would break it.

    A project without a grammar exports its values without a source.  A stored entry that fails
    :func:`check_bibtex` (accepted by an older GrammarLens) is exported with its key made citable,
    or else replaced by the entry generated from the PDF; either way with a warning.  The stored
    entry itself is left alone.
    """
    docs = list_documents(project)
    if not docs:
        return ExportSource(None, None, ("The project has no grammar, so the values are exported without a source.",))
    text = get_bibtex(project)
    try:
        checked = check_bibtex(text)
        return ExportSource(checked, bibkey(checked))
    except GrammarLensError as exc:
        problem = exc.message
    fix = "Replace the grammar's entry with 'bibtex FILE --set F.bib' (or in the GUI)."
    match = _KEY.search(text)
    if match and not BIBKEY.match(match.group(1)):
        key = re.sub(r"[^\w\-:.+/]", "_", match.group(1))
        try:
            checked = check_bibtex(text[:match.start(1)] + key + text[match.end(1):])
            return ExportSource(checked, key, (f"{problem} It was exported as {key!r}. {fix}",))
        except GrammarLensError:
            pass
    generated = generate_bibtex(docs[0])
    return ExportSource(generated, bibkey(generated),
                        (f"{problem} The export cites an entry generated from the PDF instead. {fix}",))
