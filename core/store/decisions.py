"""Reads and writes of the coder's decisions and pinned evidence (tables of migration 5).

Rows become :mod:`core.records.decisions` dataclasses here and nowhere else.  Writes only ever
INSERT: a decision, its pins and (for undo) the row that cancels an earlier one land together in
one transaction, and the history of a feature is never rewritten.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from core.records.classifications import ModelValue, ValueRecord
from core.records.decisions import Decision, NewDecision, Pin
from core.store.database import ProjectDatabase, inserted_id

_ACTIVE = "d.action != 'undo' AND d.id NOT IN (SELECT undoes FROM decisions WHERE undoes IS NOT NULL)"
_COLUMNS = ("id, feature_id, parent_id, action, status, code, label, note, reviewer, created_at, classification_id, "
            "undoes, batch")


def insert_decisions(project: ProjectDatabase, rows: Sequence[NewDecision]) -> list[int]:
    """Insert the rows of one act of the coder in one transaction; returns their ids (one shared batch).

    A row whose pins are exactly its feature's current pins stores none: it names the row that holds
    them (``pins_from``), so a note or a value costs the same with 10 pins or 10,000.
    """
    ids: list[int] = []
    with project.transaction():
        batch = project.conn.execute("SELECT coalesce(max(id), 0) + 1 FROM decisions").fetchone()[0]
        for r in rows:
            owner = _shared_pins_owner(project, r)
            cur = project.conn.execute(
                "INSERT INTO decisions (feature_id, parent_id, action, status, code, label, note, reviewer, "
                "created_at, classification_id, undoes, batch, pins_from) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (r.feature_id, r.parent_id, r.action, r.status, r.code, r.label, r.note, r.reviewer, r.created_at,
                 r.classification_id, r.undoes, batch, owner))
            did = inserted_id(cur)
            if owner is None:
                project.conn.executemany(
                    "INSERT INTO decision_pins (decision_id, seq, paragraph_id, document_id, page_label) "
                    "VALUES (?,?,?,?,?)",
                    [(did, i, p.paragraph_id, p.document_id, p.page_label) for i, p in enumerate(r.pins)])
            ids.append(did)
    return ids


def _shared_pins_owner(project: ProjectDatabase, row: NewDecision) -> int | None:
    """The row holding the feature's current pins when ``row`` keeps exactly those pins, else None."""
    if not row.pins:
        return None
    found = project.conn.execute(
        f"SELECT coalesce(d.pins_from, d.id) FROM decisions d WHERE d.feature_id = ? AND {_ACTIVE} "
        "ORDER BY d.id DESC LIMIT 1", (row.feature_id,)).fetchone()
    if found is None:
        return None
    owner = int(found[0])
    return owner if _pins_of_owners(project, [owner])[owner] == tuple(row.pins) else None


def _pins_of(project: ProjectDatabase, ids: Sequence[int]) -> dict[int, tuple[Pin, ...]]:
    """Pins per decision id; rows sharing one owner's pins read them once."""
    owner_of: dict[int, int] = {}
    for chunk in range(0, len(ids), 500):
        part = list(ids[chunk:chunk + 500])
        marks = ",".join("?" * len(part))
        for did, owner in project.conn.execute(
                f"SELECT id, coalesce(pins_from, id) FROM decisions WHERE id IN ({marks})", part):
            owner_of[did] = owner
    pins = _pins_of_owners(project, sorted(set(owner_of.values())))
    return {i: pins.get(owner_of.get(i, i), ()) for i in ids}


def _pins_of_owners(project: ProjectDatabase, owners: Sequence[int]) -> dict[int, tuple[Pin, ...]]:
    """Pins of rows that hold their own; within a write transaction each is read once (rows never change)."""
    cache = project.transaction_cache if project.conn.in_transaction else {}
    known = {o: cache[("pins", o)] for o in owners if ("pins", o) in cache}
    missing = [o for o in owners if o not in known]
    read = _read_pins(project, missing)
    cache.update({("pins", o): pins for o, pins in read.items()})
    return {**known, **read}  # type: ignore[dict-item]


def _read_pins(project: ProjectDatabase, owners: Sequence[int]) -> dict[int, tuple[Pin, ...]]:
    out: dict[int, list[Pin]] = {i: [] for i in owners}
    for chunk in range(0, len(owners), 500):
        part = list(owners[chunk:chunk + 500])
        marks = ",".join("?" * len(part))
        for did, pid, doc, label in project.conn.execute(
                f"SELECT decision_id, paragraph_id, document_id, page_label FROM decision_pins "
                f"WHERE decision_id IN ({marks}) ORDER BY decision_id, seq", part):
            out[did].append(Pin(page_label=label, paragraph_id=pid, document_id=doc))
    return {k: tuple(v) for k, v in out.items()}


def _from_rows(project: ProjectDatabase, rows: Iterable[Sequence]) -> list[Decision]:
    rows = list(rows)
    pins = _pins_of(project, [r[0] for r in rows])
    return [Decision(id=r[0], feature_id=r[1], parent_id=r[2] or r[1], action=r[3], status=r[4], code=r[5],
                     label=r[6], note=r[7], reviewer=r[8] or "", created_at=r[9], classification_id=r[10],
                     undoes=r[11], batch=r[12], pins=pins[r[0]]) for r in rows]


def current_decision(project: ProjectDatabase, feature_id: str) -> Decision | None:
    """The feature's latest active row (reading only that one row's pins), or None."""
    rows = project.conn.execute(f"SELECT {_COLUMNS} FROM decisions d WHERE {_ACTIVE} AND feature_id = ? "
                                "ORDER BY id DESC LIMIT 1", (feature_id,)).fetchall()
    return _from_rows(project, rows)[0] if rows else None


def decisions_by_ids(project: ProjectDatabase, ids: Sequence[int]) -> list[Decision]:
    """The rows of ``ids``, in that order."""
    found: dict[int, Decision] = {}
    for chunk in range(0, len(ids), 500):
        part = list(ids[chunk:chunk + 500])
        marks = ",".join("?" * len(part))
        rows = project.conn.execute(f"SELECT {_COLUMNS} FROM decisions WHERE id IN ({marks})", part).fetchall()
        found.update({d.id: d for d in _from_rows(project, rows)})
    return [found[i] for i in ids]


def feature_history(project: ProjectDatabase, feature_id: str) -> list[Decision]:
    """Every row about one feature, oldest first, undo rows included."""
    rows = project.conn.execute(f"SELECT {_COLUMNS} FROM decisions WHERE feature_id = ? ORDER BY id", (feature_id,))
    return _from_rows(project, rows.fetchall())


def active_decisions(project: ProjectDatabase, feature_id: str | None = None) -> list[Decision]:
    """Rows not cancelled by an undo (undo rows excluded), oldest first; of one feature or all."""
    where = "d.action != 'undo' AND d.id NOT IN (SELECT undoes FROM decisions WHERE undoes IS NOT NULL)"
    if feature_id is None:
        rows = project.conn.execute(f"SELECT {_COLUMNS} FROM decisions d WHERE {where} ORDER BY id")
    else:
        rows = project.conn.execute(f"SELECT {_COLUMNS} FROM decisions d WHERE {where} AND feature_id = ? ORDER BY id",
                                    (feature_id,))
    return _from_rows(project, rows.fetchall())


def current_decisions(project: ProjectDatabase) -> dict[str, Decision]:
    """Feature id -> its current decision (the latest active row), for every feature decided so far."""
    out: dict[str, Decision] = {}
    for d in active_decisions(project):
        out[d.feature_id] = d
    return out


def decisions_of_classification(project: ProjectDatabase, classification_id: int) -> list[Decision]:
    """Every row made while reviewing one model answer (undone ones included), oldest first."""
    rows = project.conn.execute(f"SELECT {_COLUMNS} FROM decisions WHERE classification_id = ? ORDER BY id",
                                (classification_id,))
    return _from_rows(project, rows.fetchall())


def paragraph_documents(project: ProjectDatabase, paragraph_ids: Sequence[int]) -> dict[int, tuple[int, str]]:
    """Paragraph id -> (document id, printed page label), for the ids that exist in this project."""
    if not paragraph_ids:
        return {}
    marks = ",".join("?" * len(paragraph_ids))
    rows = project.conn.execute(f"SELECT id, document_id, page_label FROM paragraphs WHERE id IN ({marks})",
                                list(paragraph_ids))
    return {r[0]: (r[1], r[2]) for r in rows.fetchall()}


def documents_with_page_label(project: ProjectDatabase, label: str) -> list[int]:
    """Documents of the project whose page-label map has ``label`` (the printed page exists in the book)."""
    rows = project.conn.execute("SELECT DISTINCT document_id FROM pages WHERE page_label = ? ORDER BY document_id",
                                (label,))
    return [r[0] for r in rows.fetchall()]


def latest_model_value(project: ProjectDatabase, feature_id: str) -> ModelValue | None:
    """The newest model answer holding a value for ``feature_id`` (its classification id, code and label).

    ``feature_id`` may be a part of a multi-label feature (GB263 answered inside 116A*).
    """
    row = project.conn.execute(
        "SELECT v.classification_id, v.code, v.label FROM classification_values v WHERE v.feature_id = ? "
        "ORDER BY v.classification_id DESC LIMIT 1", (feature_id,)).fetchone()
    return ModelValue(row[0], row[1], row[2]) if row else None


def model_values(project: ProjectDatabase) -> dict[str, ModelValue]:
    """Feature id -> its newest model answer's value, for every answered feature."""
    out: dict[str, ModelValue] = {}
    for cid, fid, code, label in project.conn.execute(
            "SELECT classification_id, feature_id, code, label FROM classification_values ORDER BY classification_id"):
        out[fid] = ModelValue(cid, code, label)
    return out


def cited_pins(project: ProjectDatabase, classification_id: int) -> tuple[Pin, ...]:
    """The paragraphs a model answer cited, as pins (in the order of the prompt)."""
    rows = project.conn.execute(
        "SELECT e.paragraph_id, p.document_id, coalesce(p.page_label, e.page_label) FROM classification_evidence e "
        "LEFT JOIN paragraphs p ON p.id = e.paragraph_id WHERE e.classification_id = ? AND e.cited = 1 "
        "ORDER BY e.prompt_number", (classification_id,)).fetchall()
    return tuple(dict.fromkeys(Pin(page_label=r[2], paragraph_id=r[0], document_id=r[1]) for r in rows if r[2]))


def classification_feature(project: ProjectDatabase, classification_id: int) -> str | None:
    row = project.conn.execute("SELECT feature_id FROM classifications WHERE id = ?", (classification_id,)).fetchone()
    return row[0] if row else None


def classification_values_of(project: ProjectDatabase, classification_id: int) -> list[ValueRecord]:
    """Each value of one model answer, in the answer's order."""
    return [ValueRecord(*r) for r in project.conn.execute(
        "SELECT feature_id, code, label FROM classification_values WHERE classification_id = ? ORDER BY rowid",
        (classification_id,)).fetchall()]
