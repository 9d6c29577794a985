"""Schema 6: requests written to batch files, so their answers can be imported later.

A batch file (OpenAI Batch API, vLLM ``run_batch``) is answered hours later, elsewhere, and its
results name each request only by ``custom_id``.  This table remembers, per ``custom_id``, what the
online path would have known when the answer arrived: the feature, configuration, public LLM
settings, the evidence that was in the prompt (paragraph ids, ranks, numbers, pages) and the
prompt's hash, plus the profile job item it answers.  ``classification_id`` is set when the answer
is imported; a second import of the same line then changes nothing.  No key is ever stored.
"""

from __future__ import annotations

import sqlite_utils


def migrate(db: sqlite_utils.Database) -> None:
    db.table("batch_requests").create(
        {
            "custom_id": str,
            "created_at": str,
            "feature_id": str,
            "config": str,  # baseline | rag | rag-guidelines
            "language": str,  # the language name the prompt used
            "answer_format": str,  # json_schema | conclusion
            "prompt_hash": str,  # Prompt.hash() of the body's messages and response_format
            "llm_settings": str,  # JSON, public (never a key)
            "retrieval_settings": str,  # JSON
            "retrieval_run_id": int,
            "evidence": str,  # JSON list of [number, paragraph_id, rank, page_label, score], all retrieved
            "evidence_sent": int,  # how many of them (the first ones) fitted the model's context
            "evidence_note": str,
            "job_id": int,  # the profile job whose item this request answers
            "classification_id": int,  # set once the answer is imported
            "imported_at": str,
        },
        pk="custom_id",
        foreign_keys=[("classification_id", "classifications", "id")],
        not_null={"created_at", "feature_id", "config", "prompt_hash", "llm_settings", "evidence"},
    )
    db.table("batch_requests").create_index(["job_id", "feature_id"])
