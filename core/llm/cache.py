"""The response cache in the project file: the same model and prompt are never paid for twice.

The key hashes the server, model, temperature and the exact prompt (messages and schema), so a
changed paragraph or setting is a new question.  Reads and writes happen on the thread that
owns the project connection; the rows (:mod:`core.store.llm_cache`) hold prompts' hashes and
replies, never a key.
"""

from __future__ import annotations

import hashlib

from core.llm.client import ChatResponse
from core.llm.settings import LlmSettings
from core.store.database import ProjectDatabase
from core.store.llm_cache import CachedReply, get_reply, put_reply


def cache_key(settings: LlmSettings, prompt_hash: str) -> str:
    raw = f"{settings.public_base_url()}\n{settings.model}\n{settings.temperature!r}\n{prompt_hash}"
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


class ProjectCache:
    """Cached replies stored in a project's ``llm_cache`` table; a cached reply costs nothing."""

    def __init__(self, project: ProjectDatabase) -> None:
        self.project = project

    def get(self, key: str) -> ChatResponse | None:
        reply = get_reply(self.project, key)
        if reply is None:
            return None
        return ChatResponse(content=reply.content, model=reply.model, prompt_tokens=reply.prompt_tokens,
                            completion_tokens=reply.completion_tokens, seconds=0.0, cost_usd=0.0, cached=True,
                            attempts=0)

    def put(self, key: str, prompt_hash: str, response: ChatResponse) -> None:
        put_reply(self.project, key, prompt_hash,
                  CachedReply(response.content, response.model, response.prompt_tokens, response.completion_tokens))
