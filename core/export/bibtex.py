"""Each grammar's BibTeX entry: generated from the PDF's metadata, stored in the project, editable.

Exports cite a grammar as ``bibkey[pages]``, so every *document* of a project needs its own entry
and key (a second grammar's page 150 is ``friesen2018[150]``, never the first grammar's key).
An entry is made once from what the PDF says about itself (title, author, creation year: the
record kept in the project by :mod:`core.store.document_sources`, so no export reopens the PDF)
and kept in ``documents.bibtex``; the user can replace it (CLI ``bibtex FILE --set F.bib`` or the
GUI), and a replacement is checked first (parsed, written and read back as a CLDF export does) so
a broken entry never reaches an export.  :func:`export_sources` is what the exports cite: one
entry per document under a key unique in the project (``documents.bibkey``, chosen once), or,
should an old project hold an entry that no longer passes the check, a working one and a warning.
"""

from __future__ import annotations

import contextlib
import functools
import re
import unicodedata
from pathlib import Path
from typing import NamedTuple

from core.errors import GrammarLensError
from core.export.bibtex_names import author_field, field_text
from core.models import Document, LabelSource
from core.store.database import ProjectDatabase
from core.store.repository import list_documents

_KEY = re.compile(r"@\s*\w+\s*\{\s*([^,\s]+)\s*,")
BIBKEY = re.compile(r"^[\w\-:.+/]+$")  # a key a CLDF Source column can cite: no ; (list separator), [ ] or blanks


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def generate_bibtex(document: Document, record: dict | None = None) -> str:
    """A ``@book`` entry from the document's title and the PDF's author and year (left empty if unknown).

    ``record`` is the stored bibliographic record; without one the PDF is read (if it is still there).
    """
    from core.store.document_sources import pdf_record

    meta = record if record is not None else pdf_record(document.path or "")
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
    The verdict is remembered per text (the check is pure, and a sample export checks the entry of
    every project: 100 copies of a grammar's project are one check).
    """
    checked, problem, hint = _check_remembered(text)
    if checked is None:
        raise GrammarLensError(problem, hint)
    return checked


@functools.lru_cache(maxsize=4096)
def _check_remembered(text: str) -> tuple[str | None, str, str]:
    try:
        return _check(text), "", ""
    except GrammarLensError as exc:
        return None, exc.message, exc.hint


def _check(text: str) -> str:
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


class DocumentSource(NamedTuple):
    """One document of a project as the exports cite it: its id, its key (unique in the project), its entry."""

    document_id: int
    key: str
    bibtex: str


class ExportSources(NamedTuple):
    """Every document's entry and key, in document order, and what had to be changed to make them citable."""

    documents: tuple[DocumentSource, ...]
    warnings: tuple[str, ...] = ()

    def key_of(self, document_id: int | None) -> str | None:
        """The key of ``document_id``; a page whose document is unknown is cited under the first grammar's key."""
        for d in self.documents:
            if d.document_id == document_id:
                return d.key
        return self.documents[0].key if self.documents else None

    @property
    def bibtex(self) -> str:
        """All entries, as a ``sources.bib`` holds them."""
        return "\n".join(d.bibtex.strip() + "\n" for d in self.documents)


def export_source(project: ProjectDatabase) -> ExportSource:
    """The first grammar's entry for an export (see :func:`export_sources` for every document's)."""
    sources = export_sources(project)
    if not sources.documents:
        return ExportSource(None, None, sources.warnings)
    first = sources.documents[0]
    return ExportSource(first.bibtex, first.key, sources.warnings)


def export_sources(project: ProjectDatabase) -> ExportSources:
    """Every document's entry under its own key, never one that would break an export.

    A project without a grammar exports its values without a source.  A stored entry that fails
    :func:`check_bibtex` (accepted by an older GrammarLens) is exported with its key made citable,
    or else replaced by the entry generated from the record; either way with a warning, and the
    stored entry itself is left alone.  Keys are unique in the project: a second document whose entry
    has the first one's key is cited as "<key>b".  A writable project keeps what was worked out
    (generated entry, record, key), so the next export reads it from the project.
    """
    from core.store.document_sources import has_source_columns, pdf_record, source_rows, store_source
    from core.store.repository import is_read_only

    rows = source_rows(project)
    if not rows:
        return ExportSources((), ("The project has no grammar, so the values are exported without a source.",))
    writable = not is_read_only(project)
    columns = writable and has_source_columns(project)
    taken: set[str] = set()
    out: list[DocumentSource] = []
    warnings: list[str] = []
    for row in rows:
        record = row.record if row.record is not None else pdf_record(row.path)
        document = Document(id=row.document_id, sha256="", file_name=row.file_name, path=row.path, title=row.title,
                            page_count=0, label_source=LabelSource.PDF_PAGE, pdf_page_of_printed_1=None)
        text, problem = _citable(row.bibtex, document, record)
        if problem:
            warnings.append(f"{row.file_name}: {problem}")
        own = bibkey(text)
        kept = row.bibkey and row.bibkey.startswith(own) and BIBKEY.match(row.bibkey) and row.bibkey not in taken
        key = row.bibkey if kept and row.bibkey else _unique_key(own, taken)  # a replaced entry brings its own key
        taken.add(key)
        text = _with_key(text, key)
        out.append(DocumentSource(row.document_id, key, text))
        if writable:
            with contextlib.suppress(GrammarLensError):  # a project that cannot be written still exports
                if columns:
                    store_source(project, row.document_id, bibkey=None if row.bibkey == key else key,
                                 record=record if row.record is None and record else None,
                                 bibtex=text if not row.bibtex.strip() else None)
                elif not row.bibtex.strip():
                    from core.store.repository import set_document_bibtex

                    set_document_bibtex(project, row.document_id, text)
    return ExportSources(tuple(out), tuple(warnings))


def _citable(stored: str, document: Document, record: dict) -> tuple[str, str]:
    """(an entry that passes check_bibtex, "" or what was wrong with the stored one)."""
    if not stored.strip() or not _parses(stored):
        return generate_bibtex(document, record), ""
    try:
        return check_bibtex(stored), ""
    except GrammarLensError as exc:
        problem = exc.message
    fix = "Replace the grammar's entry with 'bibtex FILE --set F.bib' (or in the GUI)."
    match = _KEY.search(stored)
    if match and not BIBKEY.match(match.group(1)):
        key = re.sub(r"[^\w\-:.+/]", "_", match.group(1))
        try:
            return check_bibtex(stored[:match.start(1)] + key + stored[match.end(1):]), \
                f"{problem} It was exported as {key!r}. {fix}"
        except GrammarLensError:
            pass
    generated = generate_bibtex(document, record)
    return generated, f"{problem} The export cites an entry generated from the PDF instead. {fix}"


def _unique_key(base: str, taken: set[str]) -> str:
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}{chr(ord('a') + n - 1)}" if n <= 26 else f"{base}_{n}"
    return candidate


def _with_key(text: str, key: str) -> str:
    match = _KEY.search(text)
    if match is None or match.group(1) == key:
        return text
    return text[:match.start(1)] + key + text[match.end(1):]
