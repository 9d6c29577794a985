"""The LLM response cache (schema 3): a reply per key, so the same question is never paid for twice.

The key is computed by :mod:`core.llm.cache` (server, model, temperature, prompt hash); this module
only stores and counts.  Rows hold prompt hashes and replies, never an API key.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.store.database import ProjectDatabase
from core.timestamps import now_iso


@dataclass(frozen=True)
class CachedReply:
    content: str
    model: str
    prompt_tokens: int
    completion_tokens: int


def get_reply(project: ProjectDatabase, key: str) -> CachedReply | None:
    """The cached reply for ``key``, counting the hit (None on a miss)."""
    row = project.conn.execute(
        "SELECT content, model, prompt_tokens, completion_tokens FROM llm_cache WHERE key = ?", (key,)
    ).fetchone()
    if row is None:
        return None
    with project.transaction():
        project.conn.execute("UPDATE llm_cache SET hits = COALESCE(hits, 0) + 1 WHERE key = ?", (key,))
    return CachedReply(row[0], row[1], row[2] or 0, row[3] or 0)


def put_reply(project: ProjectDatabase, key: str, prompt_hash: str, reply: CachedReply) -> None:
    """Store (or replace) the reply for ``key``."""
    with project.transaction():
        project.conn.execute(
            "INSERT OR REPLACE INTO llm_cache (key, model, prompt_hash, content, prompt_tokens, "
            "completion_tokens, created_at, hits) VALUES (?,?,?,?,?,?,?,0)",
            (key, reply.model, prompt_hash, reply.content, reply.prompt_tokens, reply.completion_tokens, now_iso()),
        )
