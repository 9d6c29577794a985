"""Paragraph embeddings cached in the project file, one row per (paragraph, model).

A second query with the same model reads vectors instead of running the model; a paragraph whose
text changed (hash mismatch) is embedded again.  The rows live behind :mod:`core.store.embeddings`;
the vectors computed by one call are written in one transaction.
"""

from __future__ import annotations

import hashlib
from typing import Callable, Sequence

import numpy as np

from core.models import Paragraph
from core.store.database import ProjectDatabase
from core.store.embeddings import embedded_hashes_of, get_embeddings, put_embeddings


def text_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def embedding_text(paragraph: Paragraph) -> str:
    """What gets embedded: the section path gives the model the paragraph's context."""
    return f"{paragraph.section}\n{paragraph.text}" if paragraph.section else paragraph.text


def missing_embeddings(project: ProjectDatabase, paragraphs: Sequence[Paragraph], model_key: str) -> list[int]:
    """Positions in ``paragraphs`` of those without a stored vector of their current text."""
    found = embedded_hashes_of(project, model_key, [p.id for p in paragraphs])
    return [i for i, p in enumerate(paragraphs) if found.get(p.id) != text_hash(embedding_text(p))]


def cached_embeddings(
    project: ProjectDatabase,
    paragraphs: Sequence[Paragraph],
    model_key: str,
    encode: Callable[[list[str]], np.ndarray],
) -> tuple[np.ndarray, int]:
    """Embeddings for ``paragraphs`` (rows in their order) and how many had to be computed."""
    if not paragraphs:
        return np.zeros((0, 0), dtype=np.float32), 0
    texts = [embedding_text(p) for p in paragraphs]
    hashes = [text_hash(t) for t in texts]
    ids = [p.id for p in paragraphs]
    found = get_embeddings(project, model_key, ids)
    missing = [i for i, (pid, h) in enumerate(zip(ids, hashes, strict=True)) if pid not in found or found[pid][0] != h]
    computed = encode([texts[i] for i in missing]) if missing else None
    if computed is not None and not project.readonly:  # a read-only project (a CD, a colleague's) ranks all the same
        put_embeddings(project, model_key, [(ids[i], hashes[i], vec) for i, vec in zip(missing, computed, strict=True)])
    dim = (computed.shape[1] if computed is not None and len(missing) else next(iter(found.values()))[1].shape[0])
    out = np.zeros((len(ids), dim), dtype=np.float32)
    fresh = dict(zip(missing, computed, strict=True)) if computed is not None else {}
    for i, pid in enumerate(ids):
        out[i] = fresh[i] if i in fresh else found[pid][1]
    return out, len(missing)
