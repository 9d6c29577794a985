"""Schema 2: cached paragraph embeddings and stored retrieval runs with their hits.

``embeddings`` is keyed by (paragraph, model) and remembers a hash of the embedded text, so an
edited paragraph is re-embedded instead of served stale.  ``retrieval_runs`` records which
feature, settings and query produced a ranking; ``retrieval_hits`` the ranked paragraphs with
their per-signal scores, so a classification can point at the exact evidence it was given.
"""

from __future__ import annotations

import sqlite_utils


def migrate(db: sqlite_utils.Database) -> None:
    db.table("embeddings").create(
        {"paragraph_id": int, "model": str, "text_hash": str, "dim": int, "vector": bytes},
        pk=("paragraph_id", "model"),
        foreign_keys=[("paragraph_id", "paragraphs", "id")],
        not_null={"text_hash", "dim", "vector"},
    )
    db.table("retrieval_runs").create(
        {
            "id": int,
            "feature_id": str,
            "settings": str,  # RetrievalSettings as JSON
            "query": str,
            "created_at": str,
            "seconds": float,
        },
        pk="id",
        not_null={"feature_id", "settings", "created_at"},
    )
    db.table("retrieval_hits").create(
        {"run_id": int, "rank": int, "paragraph_id": int, "score": float, "signals": str},
        pk=("run_id", "rank"),
        foreign_keys=[("run_id", "retrieval_runs", "id"), ("paragraph_id", "paragraphs", "id")],
        not_null={"paragraph_id", "score", "signals"},
    )
    db.table("retrieval_hits").create_index(["paragraph_id"])
    db.table("retrieval_runs").create_index(["feature_id"])
