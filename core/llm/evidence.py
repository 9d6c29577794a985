"""Getting the evidence paragraphs for a classification from the project.

Retrieval proper belongs to :mod:`core.retrieval` (BM25, optional reranker, evidence budget);
this module only runs it, records the run, and adapts the packed hits to prompt
:class:`~core.llm.prompts.Evidence`.
"""

from __future__ import annotations

import dataclasses
import json
import re
import time
from typing import Any

from core.llm.features import FeatureSpec
from core.llm.prompts import Evidence
from core.llm.tokens import estimate_tokens
from core.progress import Progress
from core.store.database import ProjectDatabase
from core.store.repository import get_paragraphs

DEFAULT_EVIDENCE_TOKENS = 6_000  # the paper sent ~40,000 tokens of chunks; a tight budget is cheaper and sharper


@dataclasses.dataclass
class Retrieved:
    evidence: list[Evidence]
    settings: dict
    run_id: int | None = None


def retrieve_evidence(project: ProjectDatabase, feature: object, spec: FeatureSpec, retrieval_settings: Any = None,
                      progress: Progress | None = None) -> Retrieved:
    """Ranked evidence paragraphs for ``feature``, packed into the evidence token budget.

    The budget, not the ranking's display cut-off (``final_top``), decides how much is sent: the
    whole re-ranked candidate list is packed in ranking order until the budget is full.  The
    paper's 20 chunks averaged ~2,000 tokens each; 20 grammar *paragraphs* are ~2,000 tokens in
    all, so a cut at 20 would leave most of the budget unused.
    """
    from core import retrieval

    settings = retrieval_settings if retrieval_settings is not None else retrieval.RetrievalSettings()
    if dataclasses.is_dataclass(settings) and getattr(settings, "final_top", 0) < getattr(settings, "bm25_top", 0):
        settings = dataclasses.replace(settings, final_top=settings.bm25_top)
    catalog_feature = feature if hasattr(feature, "vocabulary") else _catalog_feature(spec.id)
    started = time.perf_counter()
    hits = retrieval.retrieve(project, catalog_feature, settings, progress=progress)
    run_id = retrieval.store_retrieval_run(project, catalog_feature.id, settings, hits,
                                           seconds=time.perf_counter() - started)
    budget = _budget_of(settings) or DEFAULT_EVIDENCE_TOKENS
    packed = retrieval.pack_budget(hits, budget)
    evidence = [Evidence(number=i + 1, rank=int(h.rank), text=h.paragraph.text, page_label=h.paragraph.page_label,
                         paragraph_id=h.paragraph.id, score=_float(h.score))
                for i, h in enumerate(packed)]
    return Retrieved(evidence, _settings_dict(settings), run_id)


def _budget_of(settings: Any) -> int | None:
    for name in ("evidence_tokens", "max_evidence_tokens", "budget_tokens", "max_tokens"):
        value = getattr(settings, name, None)
        if isinstance(value, int) and value > 0:
            return value
    return None


def _settings_dict(settings: Any) -> dict:
    to_json = getattr(settings, "to_json", None)
    if callable(to_json):
        data = to_json()
        return json.loads(data) if isinstance(data, str) else dict(data)
    return {"repr": repr(settings)}


def _catalog_feature(feature_id: str) -> object:
    from core.catalog import load_catalog

    return load_catalog().get(feature_id)


def _float(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None
