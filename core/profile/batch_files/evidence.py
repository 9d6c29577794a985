"""The evidence of a written request: retrieved once per project and feature, its texts read when needed.

Writing the same features for another configuration or model (or a second file) reuses the stored
retrieval run instead of ranking again.  Kept in memory without paragraph texts (a file may cover
thousands of grammars); :func:`with_texts` reads the texts of the paragraphs a prompt holds.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass
from typing import Sequence

from core.catalog.model import Feature
from core.llm.evidence import retrieve_evidence
from core.records.classifications import Evidence
from core.retrieval.settings import RetrievalSettings
from core.store.batch_requests import paragraph_texts
from core.store.database import ProjectDatabase
from core.store.repository import paragraphs_stamp


@dataclass(frozen=True)
class Retrieved:
    """A retrieval without paragraph texts (kept in memory for reuse; texts are read when needed)."""

    run_id: int | None
    settings: dict
    evidence: tuple[Evidence, ...]  # every paragraph retrieved, in prompt order, each with text ""


NO_EVIDENCE = Retrieved(None, {}, ())  # the baseline configuration retrieves nothing

# (project path, paragraphs stamp, feature id, retrieval settings JSON) -> retrieval.  The stamp changes
# when the project's paragraphs change, so a stale run is never used.
_RETRIEVALS: dict[tuple, Retrieved] = {}
_RETRIEVALS_LIMIT = 50_000
_RETRIEVALS_LOCK = threading.Lock()


def evidence_for(project: ProjectDatabase, feature: Feature, retrieval: RetrievalSettings,
                 fresh: dict[tuple, Retrieved]) -> Retrieved:
    """The feature's evidence: reused from an earlier write, else retrieved (and its run stored).

    New retrievals go into ``fresh`` and join the shared cache (:func:`remember`) only once the
    project's transaction has committed, so a cancelled write never leaves a cached run id that
    was rolled back.
    """
    key = (str(project.path), paragraphs_stamp(project), feature.id, retrieval.to_json())
    with _RETRIEVALS_LOCK:
        hit = _RETRIEVALS.get(key) or fresh.get(key)
    if hit is not None:
        return hit
    found = retrieve_evidence(project, feature, retrieval)
    fresh[key] = Retrieved(found.run_id, found.settings, tuple(dataclasses.replace(e, text="") for e in found.evidence))
    return fresh[key]


def remember(fresh: dict[tuple, Retrieved]) -> None:
    """Share a committed project's new retrievals with later writes."""
    with _RETRIEVALS_LOCK:
        if len(_RETRIEVALS) + len(fresh) > _RETRIEVALS_LIMIT:
            _RETRIEVALS.clear()
        _RETRIEVALS.update(fresh)


def with_texts(project: ProjectDatabase, evidence: Sequence[Evidence],
               sent: int | None = None) -> list[Evidence] | None:
    """``evidence`` with texts read from the project (None if a paragraph of the prompt is gone).

    Only the first ``sent`` paragraphs need their text (the rest were not in the prompt).
    """
    sent = len(evidence) if sent is None else sent
    wanted = [e.paragraph_id for e in evidence[:sent] if e.paragraph_id is not None]
    texts = paragraph_texts(project, wanted) if wanted else {}
    items = []
    for i, e in enumerate(evidence):
        if i < sent and e.paragraph_id is not None and e.paragraph_id not in texts:
            return None
        text = texts.get(e.paragraph_id, "") if i < sent and e.paragraph_id is not None else ""
        items.append(Evidence(number=e.number, rank=e.rank, text=text, page_label=e.page_label or "",
                              paragraph_id=e.paragraph_id, score=e.score))
    return items
