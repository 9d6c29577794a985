"""Schema 5: the linguist's decisions (append-only, with undo) and the evidence pinned to them.

A decision is one row per act of the coder of record: code a value by hand, accept or override the
model's value, say "?" (not enough information), add a note, pin or unpin evidence, or undo.  Each
row holds the *whole* resulting state of the feature (status, value, note) and ``decision_pins``
holds its pinned evidence, so the latest active row is the feature's current decision and nothing is
ever overwritten.  Undo is itself a row (``action = 'undo'``, ``undoes`` = the row it cancels), so
history stays complete and the row before becomes current again.

The reviews of migration 3 (accept / override / note on a classification) are copied here, in their
order, so projects made before keep their reviews.  An accepted or overridden value pins the
paragraphs the model cited, as the export cited them before.  The ``reviews`` table stays (old files
are never rewritten beyond this copy) but nothing reads it any more.
"""

from __future__ import annotations

import sqlite_utils

from core.store.database import inserted_id

NOT_ENOUGH_INFORMATION = "Not enough information"  # the label migration 3 stored for "?"


def migrate(db: sqlite_utils.Database) -> None:
    db.table("decisions").create(
        {
            "id": int,
            "feature_id": str,  # the feature the value is coded under (GB263 for a polar-question strategy)
            "parent_id": str,  # the feature that was classified (116A*), else = feature_id
            "action": str,  # code | accept | override | unknown | note | pin | unpin | undo
            "status": str,  # resulting state: coded | accepted | overridden | unknown | note (no value yet) | undo
            "code": str,  # the value's code within the feature; "?" for unknown; NULL without a value
            "label": str,
            "note": str,
            "reviewer": str,
            "created_at": str,
            "classification_id": int,  # the model answer accepted or overridden, if any
            "undoes": int,  # for action 'undo': the decision it cancels
            "batch": int,  # rows written by one act share it (accepting 116A* decides seven features)
        },
        pk="id",
        foreign_keys=[("classification_id", "classifications", "id"), ("undoes", "decisions", "id")],
        not_null={"feature_id", "action", "status", "created_at"},
    )
    db.table("decisions").create_index(["feature_id", "id"])
    db.table("decisions").create_index(["classification_id"])
    db.table("decision_pins").create(
        {"decision_id": int, "seq": int, "paragraph_id": int, "document_id": int, "page_label": str},
        pk=("decision_id", "seq"),
        foreign_keys=[("decision_id", "decisions", "id"), ("paragraph_id", "paragraphs", "id"),
                      ("document_id", "documents", "id")],
        not_null={"page_label"},
    )
    _copy_reviews(db)


def _copy_reviews(db: sqlite_utils.Database) -> None:
    conn = db.conn
    reviews = conn.execute(
        "SELECT r.id, r.classification_id, r.created_at, r.reviewer, r.action, r.feature_id, r.code, r.label, r.note, "
        "c.feature_id FROM reviews r JOIN classifications c ON c.id = r.classification_id ORDER BY r.id").fetchall()
    state: dict[str, dict] = {}  # feature -> current state while replaying
    for _rid, cid, created, reviewer, action, target, code, label, note, parent in reviews:
        values = conn.execute("SELECT feature_id, code, label FROM classification_values WHERE classification_id = ? "
                              "ORDER BY rowid", (cid,)).fetchall()
        cited = conn.execute(
            "SELECT e.paragraph_id, p.document_id, coalesce(p.page_label, e.page_label) FROM classification_evidence e "
            "LEFT JOIN paragraphs p ON p.id = e.paragraph_id WHERE e.classification_id = ? AND e.cited = 1 "
            "ORDER BY e.prompt_number", (cid,)).fetchall()
        rows: list[tuple[str, str, str | None, str | None, str | None]]  # feature, act, status, code, label
        if action == "accept":
            parts = [v for v in values if target in (None, parent, v[0])]
            rows = [(v[0], "accept", *_accepted(v[1], v[2])) for v in parts]
        elif action == "override":
            if label == NOT_ENOUGH_INFORMATION or code is None:
                rows = [(target or parent, "override", "unknown", "?", "?")]
            else:
                rows = [(target or parent, "override", "overridden", code, label)]
        else:
            fids = [target] if target and target != parent else ([v[0] for v in values] or [parent])
            rows = [(f, "note", None, None, None) for f in fids]
        batch = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM decisions").fetchone()[0]
        for fid, act, status, vcode, vlabel in rows:
            before = state.get(fid, {"status": "note", "code": None, "label": None, "note": None, "pins": []})
            if act == "note":
                status, vcode, vlabel = before["status"], before["code"], before["label"]
                new_note = note
            else:
                new_note = note if note else before["note"]
            pins = before["pins"] or ([list(c) for c in cited if c[2]] if act != "note" else [])
            cur = conn.execute(
                "INSERT INTO decisions (feature_id, parent_id, action, status, code, label, note, reviewer, "
                "created_at, classification_id, batch) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (fid, parent, act, status, vcode, vlabel, new_note, reviewer or "", created, cid, batch))
            did = inserted_id(cur)
            conn.executemany("INSERT INTO decision_pins (decision_id, seq, paragraph_id, document_id, page_label) "
                             "VALUES (?,?,?,?,?)", [(did, i, p[0], p[1], p[2]) for i, p in enumerate(pins)])
            state[fid] = {"status": status, "code": vcode, "label": vlabel, "note": new_note, "pins": pins}


def _accepted(code: str | None, label: str) -> tuple[str, str | None, str | None]:
    if code is None or label == NOT_ENOUGH_INFORMATION:
        return "unknown", "?", "?"
    return "accepted", code, label
