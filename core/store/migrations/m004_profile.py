"""Schema 4: batch profile jobs (resumable after a crash) and saved feature lists.

A job records its feature list, settings and a "mark": the highest classification and retrieval
run id that existed when it started.  On resume, a pending item whose result was stored after the
mark (a crash between storing the classification and ticking the item) is ticked without asking
the model again, so no finished feature is ever paid for twice.
"""

from __future__ import annotations

import sqlite_utils


def migrate(db: sqlite_utils.Database) -> None:
    db.table("profile_jobs").create(
        {
            "id": int,
            "created_at": str,
            "updated_at": str,
            "feature_set": str,  # what the user asked for: "paper", "grambank", a list name or ids
            "job_key": str,  # hash of feature ids + mode + settings: the same request resumes this job
            "mode": str,  # "llm" | "retrieval"
            "settings": str,  # JSON: public LLM settings, retrieval settings, config; never a key
            "state": str,  # running | done | cancelled | failed
            "mark_classification_id": int,
            "mark_retrieval_run_id": int,
        },
        pk="id",
        not_null={"created_at", "feature_set", "job_key", "mode", "settings", "state"},
    )
    db.table("profile_jobs").create_index(["job_key"])
    db.table("profile_job_items").create(
        {"job_id": int, "seq": int, "feature_id": str, "state": str, "classification_id": int,
         "retrieval_run_id": int, "error": str, "updated_at": str},
        pk=("job_id", "feature_id"),
        foreign_keys=[("job_id", "profile_jobs", "id")],
        not_null={"seq", "state"},
    )
    db.table("feature_lists").create({"name": str, "feature_ids": str, "created_at": str}, pk="name",
                               not_null={"feature_ids"})
