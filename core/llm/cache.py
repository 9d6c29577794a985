"""The response cache in the project file: the same model and prompt are never paid for twice.

The key hashes the server, model, temperature and the exact prompt (messages and schema), so a
changed paragraph or setting is a new question.  Reads and writes happen on the thread that
owns the project connection; the stored rows hold prompts' hashes and replies, never a key.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone

from core.llm.client import ChatResponse
from core.llm.settings import LlmSettings
from core.store.database import ProjectDatabase


def cache_key(settings: LlmSettings, prompt_hash: str) -> str:
    raw = f"{settings.public_base_url()}\n{settings.model}\n{settings.temperature!r}\n{prompt_hash}"
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


class ProjectCache:
    """Cached replies stored in a project's ``llm_cache`` table."""

    def __init__(self, project: ProjectDatabase) -> None:
        self.project = project

    def get(self, key: str) -> ChatResponse | None:
        row = self.project.conn.execute(
            "SELECT content, model, prompt_tokens, completion_tokens FROM llm_cache WHERE key = ?", (key,)
        ).fetchone()
        if row is None:
            return None
        with self.project.transaction():
            self.project.conn.execute("UPDATE llm_cache SET hits = COALESCE(hits, 0) + 1 WHERE key = ?", (key,))
        return ChatResponse(content=row[0], model=row[1], prompt_tokens=row[2] or 0, completion_tokens=row[3] or 0,
                            seconds=0.0, cost_usd=0.0, cached=True, attempts=0)

    def put(self, key: str, prompt_hash: str, response: ChatResponse) -> None:
        with self.project.transaction():
            self.project.conn.execute(
                "INSERT OR REPLACE INTO llm_cache (key, model, prompt_hash, content, prompt_tokens, "
                "completion_tokens, created_at, hits) VALUES (?,?,?,?,?,?,?,0)",
                (key, response.model, prompt_hash, response.content, response.prompt_tokens,
                 response.completion_tokens, datetime.now(timezone.utc).isoformat(timespec="seconds")),
            )


class MemoryCache:
    """A dict-backed cache with the same interface (benchmarks, tests of the ask loop)."""

    def __init__(self) -> None:
        self._data: dict[str, ChatResponse] = {}

    def get(self, key: str) -> ChatResponse | None:
        hit = self._data.get(key)
        if hit is None:
            return None
        return ChatResponse(content=hit.content, model=hit.model, prompt_tokens=hit.prompt_tokens,
                            completion_tokens=hit.completion_tokens, seconds=0.0, cost_usd=0.0, cached=True,
                            attempts=0)

    def put(self, key: str, prompt_hash: str, response: ChatResponse) -> None:
        self._data[key] = response
