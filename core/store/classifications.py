"""Stored classifications (schema 3): the answer, its values and the evidence that was in the prompt.

Rows become :mod:`core.records.classifications` dataclasses here and nowhere else.  A classification lands
with all its values and evidence in one transaction, or not at all.  (A coder's decisions on a
classification are stored by :mod:`core.store.decisions`.)
"""

from __future__ import annotations

import json
from typing import Sequence

from core.records.classifications import Classification, Evidence, Flag, ValueRecord
from core.store.database import ProjectDatabase, inserted_id

_COLUMNS = ("id, created_at, feature_id, feature_name, config, language, model, base_url, reasoning, raw_answer, "
            "status, problem, flags, prompt_hash, prompt_tokens, completion_tokens, evidence_tokens, cost_usd, "
            "seconds, cached, answer_format, retrieval_settings, evidence_note, retrieval_run_id")


def save_classification(project: ProjectDatabase, c: Classification, llm_settings: dict) -> Classification:
    """Insert a classification with its values and evidence; returns it with ``id`` set.

    ``llm_settings`` is the public form of the settings (never a key).
    """
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
        cid = inserted_id(cur)
        project.conn.executemany(
            "INSERT INTO classification_values (classification_id, feature_id, code, label) VALUES (?,?,?,?)",
            [(cid, v.feature_id, v.code, v.label) for v in c.values],
        )
        project.conn.executemany(
            "INSERT INTO classification_evidence (classification_id, paragraph_id, rank, prompt_number, score, "
            "page_label, cited) VALUES (?,?,?,?,?,?,?)",
            [(cid, e.paragraph_id, e.rank, e.number, e.score, e.page_label, int(e.cited)) for e in c.evidence],
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


def max_classification_id(project: ProjectDatabase) -> int:
    """The highest classification id so far (0 when there is none): a batch job's start mark."""
    return int(project.conn.execute("SELECT coalesce(max(id), 0) FROM classifications").fetchone()[0])


def latest_classification_after(project: ProjectDatabase, feature_id: str, after_id: int, *, model: str | None,
                                config: str | None) -> int | None:
    """The newest classification of ``feature_id`` by ``model``/``config`` stored after ``after_id``."""
    row = project.conn.execute(
        "SELECT max(id) FROM classifications WHERE feature_id = ? AND id > ? AND model = ? AND config = ?",
        (feature_id, after_id, model, config)).fetchone()
    return row[0] if row and row[0] else None


def _from_row(project: ProjectDatabase, r: Sequence) -> Classification:
    cid = r[0]
    values = [ValueRecord(v[0], v[1], v[2]) for v in project.conn.execute(
        "SELECT feature_id, code, label FROM classification_values WHERE classification_id = ? ORDER BY rowid", (cid,))]
    evidence = [Evidence(number=e[0], rank=e[1], text=e[2] or "", page_label=e[3] or "", paragraph_id=e[4],
                         score=e[5], cited=bool(e[6])) for e in project.conn.execute(
        "SELECT e.prompt_number, e.rank, p.text, e.page_label, e.paragraph_id, e.score, e.cited "
        "FROM classification_evidence e LEFT JOIN paragraphs p ON p.id = e.paragraph_id "
        "WHERE e.classification_id = ? ORDER BY e.prompt_number", (cid,))]
    return Classification(
        id=cid, created_at=r[1], feature_id=r[2], feature_name=r[3] or "", config=r[4], language=r[5] or "",
        model=r[6], base_url=r[7] or "", values=values, reasoning=r[8] or "", raw_answer=r[9] or "", status=r[10],
        problem=r[11], flags=[Flag(**f) for f in json.loads(r[12] or "[]")], evidence=evidence, prompt_hash=r[13],
        prompt_tokens=r[14] or 0, completion_tokens=r[15] or 0, evidence_tokens=r[16] or 0, cost_usd=r[17],
        seconds=r[18] or 0.0, cached=bool(r[19]), answer_format=r[20] or "",
        retrieval_settings=json.loads(r[21] or "{}"), evidence_note=r[22] or "", retrieval_run_id=r[23],
    )
