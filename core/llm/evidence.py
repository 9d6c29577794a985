"""Getting the evidence paragraphs for a classification, and showing stored evidence again.

Retrieval proper belongs to :mod:`core.retrieval` (BM25, optional reranker, evidence budget);
this module only runs it, records the run, and numbers the packed hits as prompt
:class:`~core.records.classifications.Evidence`.  :func:`evidence_hits` goes the other way, from a stored
classification's evidence back to retrieval hits for the evidence list (the chain is described
in :mod:`core.records.classifications`).
"""

from __future__ import annotations

import dataclasses
import json
import time
from typing import Iterable

from core.catalog.model import Feature
from core.progress import Progress
from core.records.classifications import Evidence
from core.retrieval import Hit, RetrievalSettings, pack_budget, retrieve, store_retrieval_run
from core.retrieval.pipeline import hits_of
from core.store.database import ProjectDatabase
from core.store.retrieval_runs import StoredHit


@dataclasses.dataclass
class Retrieved:
    evidence: list[Evidence]
    settings: dict
    run_id: int | None = None


def retrieve_evidence(project: ProjectDatabase, feature: Feature, retrieval_settings: RetrievalSettings | None = None,
                      progress: Progress | None = None) -> Retrieved:
    """Ranked evidence paragraphs for ``feature``, packed into ``settings.budget_tokens``; the run is stored.

    The budget, not the ranking's display cut-off (``final_top``), decides how much is sent: the
    whole re-ranked candidate list is packed in ranking order until the budget is full.  The
    paper's 20 chunks averaged ~2,000 tokens each; 20 grammar *paragraphs* are ~2,000 tokens in
    all, so a cut at 20 would leave most of the budget unused.
    """
    settings = retrieval_settings or RetrievalSettings()
    if settings.final_top < settings.bm25_top:
        settings = dataclasses.replace(settings, final_top=settings.bm25_top)
    started = time.perf_counter()
    hits = retrieve(project, feature, settings, progress=progress)
    run_id = store_retrieval_run(project, feature.id, settings, hits, seconds=time.perf_counter() - started)
    packed = pack_budget(hits, settings.budget_tokens)
    evidence = [Evidence.from_hit(h, number=i + 1) for i, h in enumerate(packed)]
    return Retrieved(evidence, json.loads(settings.to_json()), run_id)


def evidence_hits(project: ProjectDatabase, evidence: Iterable[Evidence]) -> list[Hit]:
    """The paragraphs of a stored classification's prompt, in rank order, as hits for the evidence list.

    Paragraphs deleted since are left out.
    """
    stored = sorted((StoredHit(e.rank, e.paragraph_id, float(e.score or 0.0)) for e in evidence
                     if e.paragraph_id is not None), key=lambda h: h.rank)
    return hits_of(project, stored)
