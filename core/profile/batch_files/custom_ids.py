"""The ``custom_id`` of a written request: which project, feature, configuration, prompt and settings it is.

``gl1:<project key>:<feature>:<config>:<prompt hash>:<settings tag>``.  The project key is a hash of
the project's grammars (sha256), so a result is never imported into another project; the prompt
hash lets the import refuse an answer to a prompt the project would no longer send.
"""

from __future__ import annotations

import hashlib
import json
from typing import NamedTuple

from core.errors import GrammarLensError
from core.store.database import ProjectDatabase
from core.store.repository import list_documents

CUSTOM_ID_PREFIX = "gl1"


class CustomId(NamedTuple):
    """The parts of one of our ``custom_id``s (the prompt hash is its first 16 hex digits)."""

    project_key: str
    feature_id: str
    config: str
    prompt_hash: str
    settings_tag: str


def project_key(project: ProjectDatabase) -> str:
    """A short, stable name of a project's grammars: the hash of their sha256 sums."""
    shas = sorted(d.sha256 for d in list_documents(project))
    if not shas:
        raise GrammarLensError(f"{project.path.name} holds no grammar.", "Ingest a grammar into it first.")
    return hashlib.sha256("\n".join(shas).encode("ascii")).hexdigest()[:12]


def settings_tag(public_llm: dict) -> str:
    """Six hex digits naming the model, server and sampling settings a request was written for."""
    keys = ("model", "base_url", "temperature", "max_output_tokens", "answer_format")
    payload = json.dumps({k: public_llm.get(k) for k in keys}, sort_keys=True)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:6]


def make_custom_id(pkey: str, feature_id: str, config: str, prompt_hash: str, tag: str) -> str:
    return f"{CUSTOM_ID_PREFIX}:{pkey}:{feature_id}:{config}:{prompt_hash[:16]}:{tag}"


def parse_custom_id(custom_id: str) -> CustomId | None:
    """The parts of ``custom_id``, or None if it is not ours."""
    parts = custom_id.split(":")
    if len(parts) != 6 or parts[0] != CUSTOM_ID_PREFIX:
        return None
    return CustomId(parts[1], parts[2], parts[3], parts[4], parts[5])
