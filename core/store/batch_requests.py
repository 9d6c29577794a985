"""Requests written to batch files (schema 6): what an imported answer is matched against.

Rows become :class:`BatchRequest` here and nowhere else.  Writers insert (or replace) a row per
line written; importers look a ``custom_id`` up and mark it imported with the classification it
produced.  Callers own the transaction (one per project), so these functions do not open one.

A request's evidence is kept as prompt :class:`~core.records.classifications.Evidence` without its
text (the rows hold ``[number, paragraph_id, rank, page_label, score]``); the import reads the texts
from the project as it is then, so a changed grammar shows as a prompt that no longer matches.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterable, Sequence

from core.records.classifications import Evidence
from core.store.database import ProjectDatabase
from core.timestamps import now_iso

_COLUMNS = ("custom_id, feature_id, config, language, answer_format, prompt_hash, llm_settings, retrieval_settings, "
            "retrieval_run_id, evidence, evidence_sent, evidence_note, job_id, classification_id")


@dataclass(frozen=True)
class BatchRequest:
    """One written request. ``evidence`` is every paragraph retrieved, in prompt order and without its
    text; the first ``evidence_sent`` of them were in the prompt."""

    custom_id: str
    feature_id: str
    config: str
    language: str
    answer_format: str
    prompt_hash: str
    llm_settings: dict
    retrieval_settings: dict
    retrieval_run_id: int | None
    evidence: tuple[Evidence, ...]
    evidence_sent: int
    evidence_note: str
    job_id: int | None
    classification_id: int | None = None


def put_requests(project: ProjectDatabase, requests: Iterable[BatchRequest]) -> None:
    """Insert or replace rows (re-writing a file re-registers its lines; imported ones keep their link)."""
    now = now_iso()
    project.conn.executemany(
        "INSERT INTO batch_requests (custom_id, created_at, feature_id, config, language, answer_format, prompt_hash, "
        "llm_settings, retrieval_settings, retrieval_run_id, evidence, evidence_sent, evidence_note, job_id) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(custom_id) DO UPDATE SET created_at = excluded.created_at, "
        "retrieval_run_id = excluded.retrieval_run_id, job_id = excluded.job_id",
        [(r.custom_id, now, r.feature_id, r.config, r.language, r.answer_format, r.prompt_hash,
          json.dumps(r.llm_settings, sort_keys=True), json.dumps(r.retrieval_settings, sort_keys=True, default=str),
          r.retrieval_run_id, json.dumps(_evidence_rows(r.evidence)), r.evidence_sent, r.evidence_note, r.job_id)
         for r in requests])


def get_request(project: ProjectDatabase, custom_id: str) -> BatchRequest | None:
    row = project.conn.execute(f"SELECT {_COLUMNS} FROM batch_requests WHERE custom_id = ?", (custom_id,)).fetchone()
    if row is None:
        return None
    return BatchRequest(row[0], row[1], row[2], row[3] or "", row[4], row[5], json.loads(row[6]),
                        json.loads(row[7] or "{}"), row[8], _evidence_of(json.loads(row[9])), row[10] or 0,
                        row[11] or "", row[12], row[13])


def _evidence_rows(evidence: Iterable[Evidence]) -> list[list]:
    return [[e.number, e.paragraph_id, e.rank, e.page_label, e.score] for e in evidence]


def _evidence_of(rows: Sequence[Sequence]) -> tuple[Evidence, ...]:
    return tuple(Evidence(number=int(number), rank=int(rank), text="", page_label=page or "", paragraph_id=pid,
                          score=score) for number, pid, rank, page, score in rows)


def mark_imported(project: ProjectDatabase, custom_id: str, classification_id: int) -> None:
    project.conn.execute("UPDATE batch_requests SET classification_id = ?, imported_at = ? WHERE custom_id = ?",
                         (classification_id, now_iso(), custom_id))


def paragraph_texts(project: ProjectDatabase, ids: Iterable[int]) -> dict[int, str]:
    """Paragraph id -> text (only these two columns: rebuilding thousands of prompts needs no full rows)."""
    wanted = list(dict.fromkeys(ids))
    out: dict[int, str] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        marks = ",".join("?" * len(chunk))
        out.update(project.conn.execute(f"SELECT id, text FROM paragraphs WHERE id IN ({marks})", chunk).fetchall())
    return out
