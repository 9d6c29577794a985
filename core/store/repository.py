"""Typed reads and writes of documents, pages, paragraphs and the project's language.

Rows become :mod:`core.models` dataclasses here and nowhere else, so the rest of the code
never sees SQL column names.  The other tables have their own modules beside this one:
:mod:`~core.store.retrieval_runs`, :mod:`~core.store.embeddings`,
:mod:`~core.store.classifications`, :mod:`~core.store.llm_cache`,
:mod:`~core.store.profile_jobs` and :mod:`~core.store.feature_lists`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence

from core.changes import ProjectChange, language_set
from core.errors import ProjectError
from core.models import Document, LabelSource, Language, PageRow, Paragraph, ParagraphKind, Rect
from core.store.database import ProjectDatabase, inserted_id
from core.timestamps import now_iso

if TYPE_CHECKING:
    from core.catalog.glottocode import GlottocodeCheck


def get_language(project: ProjectDatabase) -> Language | None:
    row = project.conn.execute("SELECT name, glottocode, source FROM language WHERE id = 1").fetchone()
    return Language(name=row[0], glottocode=row[1], source=row[2]) if row else None


@dataclass(frozen=True)
class LanguageSet:
    """What setting the language did: the Glottocode's check and the change record every screen reads."""

    check: GlottocodeCheck
    change: ProjectChange

    @property
    def code(self) -> str | None:
        """The Glottocode stored (None for none)."""
        return self.check.code

    @property
    def note(self) -> str:
        """Something worth reading about the code (a well-formed one the bundled table does not know); "" if none."""
        return self.check.note

    @property
    def known(self) -> bool:
        """Whether the bundled language table knows the code (no code at all counts as known: nothing to doubt)."""
        return self.check.known


def set_language(project: ProjectDatabase, language: Language) -> LanguageSet:
    """Store the project's language; its Glottocode is checked first (nothing is stored if it is malformed).

    Returns the check (``note`` says when a well-formed code is not in the bundled language table)
    with the act's :class:`core.changes.ProjectChange`.
    """
    from core.catalog.glottocode import check_glottocode

    check = check_glottocode(language.glottocode)  # raises GrammarLensError for a malformed code
    with project.transaction():
        project.conn.execute(
            "INSERT INTO language (id, name, glottocode, source) VALUES (1, ?, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET name = excluded.name, glottocode = excluded.glottocode, "
            "source = excluded.source",
            (language.name, check.code, language.source),
        )
    return LanguageSet(check, language_set())


def list_documents(project: ProjectDatabase) -> list[Document]:
    rows = project.conn.execute(
        "SELECT id, sha256, file_name, path, title, page_count, label_source, pdf_page_of_printed_1 "
        "FROM documents ORDER BY id"
    ).fetchall()
    return [
        Document(
            id=r[0], sha256=r[1], file_name=r[2], path=r[3] or "", title=r[4] or "", page_count=r[5],
            label_source=LabelSource(r[6]), pdf_page_of_printed_1=r[7],
        )
        for r in rows
    ]


def find_document_by_sha256(project: ProjectDatabase, sha256: str) -> Document | None:
    return next((d for d in list_documents(project) if d.sha256 == sha256), None)


_PARAGRAPH_COLUMNS = (
    "id, document_id, seq, pdf_page, page_label, label_source, section, kind, text, rects, example_number, "
    "ocr_confidence"
)


def _paragraph_from_row(row: Sequence, path: Path | None = None) -> Paragraph:
    """A stored paragraph; a row of the wrong shape (a crafted or damaged file) is damage, said as such."""
    try:
        return Paragraph(
            id=row[0], document_id=row[1], seq=row[2], pdf_page=row[3], page_label=row[4],
            label_source=LabelSource(row[5]), section=row[6] or "", kind=ParagraphKind(row[7]), text=str(row[8]),
            rects=_rects(row[9]), example_number=row[10],
            ocr_confidence=None if row[11] is None else float(row[11]),
        )
    except (ValueError, TypeError, IndexError, KeyError, RecursionError) as exc:
        raise ProjectError(
            f"Project file {path or 'in use'} holds a malformed paragraph (id {row[0]}: {type(exc).__name__}).",
            "The file is damaged or was altered outside GrammarLens: restore a backup "
            "(python main.py restore PROJECT --list), or ingest the grammar again into a new project.") from None


def _rects(raw: object) -> tuple[Rect, ...]:
    """The stored highlight rectangles: a JSON list of [page, x0, y0, x1, y1] (ValueError/TypeError if not)."""
    if not isinstance(raw, str) or len(raw) > 1_000_000:
        raise ValueError("rects is not a JSON text of a sensible size")
    rects = []
    for r in json.loads(raw):
        if not isinstance(r, list) or len(r) != 5 or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in r):
            raise ValueError("a rect is not [page, x0, y0, x1, y1]")
        rects.append(Rect(int(r[0]), float(r[1]), float(r[2]), float(r[3]), float(r[4])))
    return tuple(rects)


def list_paragraphs(project: ProjectDatabase, document_id: int | None = None) -> list[Paragraph]:
    """All paragraphs in reading order (of one document, or of every document in the project)."""
    if document_id is None:
        rows = project.conn.execute(f"SELECT {_PARAGRAPH_COLUMNS} FROM paragraphs ORDER BY document_id, seq")
    else:
        rows = project.conn.execute(
            f"SELECT {_PARAGRAPH_COLUMNS} FROM paragraphs WHERE document_id = ? ORDER BY seq", (document_id,)
        )
    return [_paragraph_from_row(r, project.path) for r in rows.fetchall()]


def get_paragraphs(project: ProjectDatabase, ids: Iterable[int]) -> list[Paragraph]:
    """Paragraphs by id, in the order the ids were given (unknown ids are skipped)."""
    wanted = list(ids)
    if not wanted:
        return []
    marks = ",".join("?" * len(wanted))
    rows = project.conn.execute(f"SELECT {_PARAGRAPH_COLUMNS} FROM paragraphs WHERE id IN ({marks})", wanted)
    by_id = {r[0]: _paragraph_from_row(r, project.path) for r in rows.fetchall()}
    return [by_id[i] for i in wanted if i in by_id]


def document_bibtex(project: ProjectDatabase, document_id: int) -> str:
    """The grammar's stored BibTeX entry ("" when none was stored yet)."""
    row = project.conn.execute("SELECT bibtex FROM documents WHERE id = ?", (document_id,)).fetchone()
    return (row[0] or "") if row else ""


def set_document_bibtex(project: ProjectDatabase, document_id: int, text: str) -> None:
    with project.transaction():
        project.conn.execute("UPDATE documents SET bibtex = ? WHERE id = ?", (text, document_id))


def is_read_only(project: ProjectDatabase) -> bool:
    """Whether this connection may not write (``PRAGMA query_only``)."""
    return bool(project.conn.execute("PRAGMA query_only").fetchone()[0])


def paragraphs_stamp(project: ProjectDatabase) -> tuple:
    """A cheap fingerprint of the paragraphs table: it changes whenever a paragraph is added, removed or edited
    in length, so an in-memory index built from the paragraphs knows when it is stale."""
    row = project.conn.execute("SELECT count(*), max(id), total(length(text)), total(seq) FROM paragraphs").fetchone()
    return tuple(row)


def total_pages(project: ProjectDatabase) -> int:
    """Pages of all the project's documents together."""
    return int(project.conn.execute("SELECT total(page_count) FROM documents").fetchone()[0])


def page_labels(project: ProjectDatabase, document_id: int) -> dict[int, str]:
    """1-based PDF page -> printed page label, for page navigation."""
    rows = project.conn.execute(
        "SELECT pdf_page, page_label FROM pages WHERE document_id = ? ORDER BY pdf_page", (document_id,)
    )
    return {r[0]: r[1] for r in rows.fetchall()}


def rects_json(rects: Iterable[Rect]) -> str:
    """``json.dumps([r.as_list() for r in rects])``, character for character, without the json encoder.

    An ingest stores tens of thousands of paragraphs; the encoder's generality is most of this
    column's cost.  Coordinates are finite floats (or ints), whose ``repr`` is what json writes.
    """
    return "[" + ", ".join(
        f"[{r.pdf_page!r}, {round(r.x0, 2)!r}, {round(r.y0, 2)!r}, {round(r.x1, 2)!r}, {round(r.y1, 2)!r}]"
        for r in rects
    ) + "]"


def insert_document(
    project: ProjectDatabase,
    *,
    sha256: str,
    file_name: str,
    path: str,
    title: str,
    page_count: int,
    label_source: LabelSource,
    pdf_page_of_printed_1: int | None,
    pages: Sequence[PageRow | tuple[int, str, LabelSource, float, float, int]],
    paragraphs: Sequence[Paragraph],
    seconds: float = 0.0,
    bibtex: str = "",
) -> int:
    """Store one ingested document with its pages and paragraphs in a single transaction.

    ``pages`` holds :class:`PageRow` records (or plain tuples in their order); the
    ``id``/``document_id`` of the given paragraphs are ignored and assigned here.  Either all
    of it lands or nothing does, so a crash mid-ingest leaves no half document behind.
    """
    with project.transaction():
        cur = project.conn.execute(
            "INSERT INTO documents (sha256, file_name, path, title, page_count, label_source, "
            "pdf_page_of_printed_1, bibtex, ingested_at, seconds) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (sha256, file_name, path, title, page_count, label_source.value, pdf_page_of_printed_1, bibtex,
             now_iso(), seconds),
        )
        document_id = inserted_id(cur)
        project.conn.executemany(
            "INSERT INTO pages (document_id, pdf_page, page_label, label_source, width, height, chars) "
            "VALUES (?,?,?,?,?,?,?)",
            [(document_id, p.pdf_page, p.page_label, p.label_source.value, p.width, p.height, p.chars)
             for p in map(PageRow._make, pages)],
        )
        project.conn.executemany(
            "INSERT INTO paragraphs (document_id, seq, pdf_page, page_label, label_source, section, kind, "
            "example_number, text, rects, ocr_confidence) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            [
                (document_id, seq, p.pdf_page, p.page_label, p.label_source.value, p.section, p.kind.value,
                 p.example_number, p.text, rects_json(p.rects), p.ocr_confidence)
                for seq, p in enumerate(paragraphs)
            ],
        )
        project.conn.execute(
            "INSERT INTO paragraphs_fts (rowid, text, section) SELECT id, text, section FROM paragraphs "
            "WHERE document_id = ?",
            (document_id,),
        )
    return document_id
