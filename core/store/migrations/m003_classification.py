"""Schema 3: LLM classifications, their evidence and values, reviews, and the response cache.

A classification records everything needed to audit an answer later: the retrieval settings
and ranked evidence paragraphs (with which of them the model cited), the prompt's hash, model,
raw answer, parsed value(s), reasoning, tokens, cost and time.  Values live in their own table
because the paper's polar-question feature yields seven.  The cache maps (model, prompt) to a
reply so that re-running costs nothing; it holds prompts and replies, never an API key.
"""

from __future__ import annotations

import sqlite_utils


def migrate(db: sqlite_utils.Database) -> None:
    db.table("classifications").create(
        {
            "id": int,
            "created_at": str,
            "feature_id": str,
            "feature_name": str,
            "config": str,  # baseline | rag | rag-guidelines
            "language": str,
            "model": str,
            "base_url": str,  # without credentials or query string
            "llm_settings": str,  # JSON, never a key
            "retrieval_settings": str,  # JSON
            "retrieval_run_id": int,
            "answer_format": str,  # json_schema | conclusion
            "prompt_hash": str,
            "raw_answer": str,
            "reasoning": str,
            "status": str,  # ok | no_value | incomplete
            "problem": str,
            "flags": str,  # JSON list of {kind, message, paragraph_id}
            "evidence_note": str,  # e.g. evidence shrunk to fit the context
            "prompt_tokens": int,
            "completion_tokens": int,
            "evidence_tokens": int,
            "cost_usd": float,
            "seconds": float,
            "cached": int,
        },
        pk="id",
        not_null={"created_at", "feature_id", "config", "model", "prompt_hash", "status"},
    )
    db.table("classifications").create_index(["feature_id", "created_at"])
    db.table("classification_values").create(
        {"classification_id": int, "feature_id": str, "code": str, "label": str},
        pk=("classification_id", "feature_id"),
        foreign_keys=[("classification_id", "classifications", "id")],
        not_null={"label"},
    )
    db.table("classification_evidence").create(
        {"classification_id": int, "paragraph_id": int, "rank": int, "prompt_number": int, "score": float,
         "page_label": str, "cited": int},
        pk=("classification_id", "prompt_number"),
        foreign_keys=[("classification_id", "classifications", "id"), ("paragraph_id", "paragraphs", "id")],
        not_null={"rank", "cited"},
    )
    db.table("classification_evidence").create_index(["paragraph_id"])
    db.table("reviews").create(
        {"id": int, "classification_id": int, "created_at": str, "reviewer": str, "action": str,
         "feature_id": str, "code": str, "label": str, "note": str},
        pk="id",
        foreign_keys=[("classification_id", "classifications", "id")],
        not_null={"classification_id", "created_at", "action"},
    )
    db.table("reviews").create_index(["classification_id", "created_at"])
    db.table("llm_cache").create(
        {"key": str, "model": str, "prompt_hash": str, "content": str, "prompt_tokens": int,
         "completion_tokens": int, "created_at": str, "hits": int},
        pk="key",
        not_null={"model", "content"},
    )
