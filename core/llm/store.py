"""Reads and writes of classifications and reviews (tables of migration 3).

Rows become :mod:`core.llm.records` dataclasses here and nowhere else.  Every write runs in one
``project.transaction()``, so a classification lands with all its values and evidence or not
at all.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

from core.errors import GrammarLensError
from core.llm.records import Classification, EvidenceRecord, Flag, Review, ValueRecord
from core.store.database import ProjectDatabase

REVIEW_ACTIONS = ("accept", "override", "note")
_COLUMNS = ("id, created_at, feature_id, feature_name, config, language, model, base_url, reasoning, raw_answer, "
            "status, problem, flags, prompt_hash, prompt_tokens, completion_tokens, evidence_tokens, cost_usd, "
            "seconds, cached, answer_format, retrieval_settings, evidence_note, retrieval_run_id")


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def save_classification(project: ProjectDatabase, c: Classification, llm_settings: dict) -> Classification:
    """Insert a classification with its values and evidence; returns it with ``id`` set."""
    with project.transaction():
        cur = project.conn.execute(
            "INSERT INTO classifications (created_at, feature_id, feature_name, config, language, model, base_url, "
            "llm_settings, retrieval_settings, retrieval_run_id, answer_format, prompt_hash, raw_answer, reasoning, "
            "status, problem, flags, evidence_note, prompt_tokens, completion_tokens, evidence_tokens, cost_usd, "
            "seconds, cached) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (c.created_at, c.feature_id, c.feature_name, c.config, c.language, c.model, c.base_url,
             json.dumps(llm_settings, sort_keys=True), json.dumps(c.retrieval_settings, sort_keys=True, default=str),
             c.retrieval_run_id, c.answer_format, c.prompt_hash, c.raw_answer, c.reasoning, c.status, c.problem,
             json.dumps([f.__dict__ for f in c.flags]), c.evidence_note, c.prompt_tokens, c.completion_tokens,
             c.evidence_tokens, c.cost_usd, c.seconds, int(c.cached)),
        )
        cid = int(cur.lastrowid)
        project.conn.executemany(
            "INSERT INTO classification_values (classification_id, feature_id, code, label) VALUES (?,?,?,?)",
            [(cid, v.feature_id, v.code, v.label) for v in c.values],
        )
        project.conn.executemany(
            "INSERT INTO classification_evidence (classification_id, paragraph_id, rank, prompt_number, score, "
            "page_label, cited) VALUES (?,?,?,?,?,?,?)",
            [(cid, e.paragraph_id, e.rank, e.prompt_number, e.score, e.page_label, int(e.cited)) for e in c.evidence],
        )
    c.id = cid
    return c


def get_classification(project: ProjectDatabase, classification_id: int) -> Classification | None:
    row = project.conn.execute(f"SELECT {_COLUMNS} FROM classifications WHERE id = ?", (classification_id,)).fetchone()
    return _from_row(project, row) if row else None


def list_classifications(project: ProjectDatabase, feature_id: str | None = None) -> list[Classification]:
    """Stored classifications, newest first (of one feature, or of all)."""
    if feature_id is None:
        rows = project.conn.execute(f"SELECT {_COLUMNS} FROM classifications ORDER BY id DESC").fetchall()
    else:
        rows = project.conn.execute(
            f"SELECT {_COLUMNS} FROM classifications WHERE feature_id = ? ORDER BY id DESC", (feature_id,)
        ).fetchall()
    return [_from_row(project, r) for r in rows]


def _from_row(project: ProjectDatabase, r) -> Classification:
    cid = r[0]
    values = [ValueRecord(v[0], v[1], v[2]) for v in project.conn.execute(
        "SELECT feature_id, code, label FROM classification_values WHERE classification_id = ? ORDER BY rowid", (cid,))]
    evidence = [EvidenceRecord(e[0], e[1], e[2], e[3] or "", e[4], bool(e[5])) for e in project.conn.execute(
        "SELECT paragraph_id, rank, prompt_number, page_label, score, cited FROM classification_evidence "
        "WHERE classification_id = ? ORDER BY prompt_number", (cid,))]
    return Classification(
        id=cid, created_at=r[1], feature_id=r[2], feature_name=r[3] or "", config=r[4], language=r[5] or "",
        model=r[6], base_url=r[7] or "", values=values, reasoning=r[8] or "", raw_answer=r[9] or "", status=r[10],
        problem=r[11], flags=[Flag(**f) for f in json.loads(r[12] or "[]")], evidence=evidence, prompt_hash=r[13],
        prompt_tokens=r[14] or 0, completion_tokens=r[15] or 0, evidence_tokens=r[16] or 0, cost_usd=r[17],
        seconds=r[18] or 0.0, cached=bool(r[19]), answer_format=r[20] or "",
        retrieval_settings=json.loads(r[21] or "{}"), evidence_note=r[22] or "", retrieval_run_id=r[23],
    )


def add_review(project: ProjectDatabase, classification_id: int, action: str, value: str | None = None,
               note: str | None = None, reviewer: str = "", feature_id: str | None = None) -> Review:
    """Record a reviewer's decision. ``override`` needs ``value`` (a label or code of the feature's set).

    For the polar-question feature, ``feature_id`` names the sub-feature (e.g. GB263) being overridden.
    """
    from core.llm.features import NOT_ENOUGH_INFORMATION, as_spec

    if action not in REVIEW_ACTIONS:
        raise GrammarLensError(f"Unknown review action {action!r}.", f"Use one of {', '.join(REVIEW_ACTIONS)}.")
    c = get_classification(project, classification_id)
    if c is None:
        raise GrammarLensError(f"There is no classification {classification_id}.", "List them with 'classifications'.")
    code = label = None
    target = feature_id or c.feature_id
    if action == "override":
        if value is None:
            raise GrammarLensError("An override needs a value.", "Give one of the feature's values.")
        spec = as_spec(c.feature_id)
        if spec.is_multilabel:
            spec = next((s for s in spec.subfeatures if s.id == target), None)
            if spec is None:
                raise GrammarLensError(f"{target} is not part of {c.feature_id}.",
                                       "Name one of its sub-features with feature_id.")
        if value == NOT_ENOUGH_INFORMATION:
            label = value
        else:
            match = next(((cd, lb) for cd, lb in spec.values if value in (cd, lb)), None)
            if match is None:
                raise GrammarLensError(f"{value!r} is not a value of {spec.id}.",
                                       f"Choose one of: {', '.join(spec.options())}.")
            code, label = match
    elif action == "note" and not (note or "").strip():
        raise GrammarLensError("A note needs some text.", "")
    created = now_iso()
    with project.transaction():
        cur = project.conn.execute(
            "INSERT INTO reviews (classification_id, created_at, reviewer, action, feature_id, code, label, note) "
            "VALUES (?,?,?,?,?,?,?,?)",
            (classification_id, created, reviewer, action, target, code, label, note),
        )
    return Review(int(cur.lastrowid), classification_id, created, reviewer, action, target, code, label, note)


def list_reviews(project: ProjectDatabase, classification_id: int) -> list[Review]:
    rows = project.conn.execute(
        "SELECT id, classification_id, created_at, reviewer, action, feature_id, code, label, note FROM reviews "
        "WHERE classification_id = ? ORDER BY id", (classification_id,)).fetchall()
    return [Review(*r) for r in rows]


def latest_review(project: ProjectDatabase, classification_id: int, feature_id: str | None = None,
                  action: str | None = None) -> Review | None:
    """The newest review of a classification (optionally of one sub-feature or one action)."""
    reviews = [r for r in list_reviews(project, classification_id)
               if (feature_id is None or r.feature_id == feature_id) and (action is None or r.action == action)]
    return reviews[-1] if reviews else None
