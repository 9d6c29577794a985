"""Getting the evidence paragraphs for a classification from the project.

Retrieval proper belongs to :mod:`core.retrieval` (BM25, optional reranker, evidence budget);
this module only adapts its hits to prompt :class:`~core.llm.prompts.Evidence`.  When the
retrieval package is not available it falls back to the project's SQLite full-text index, so
classification keeps working in a stripped-down build.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from core.llm.features import FeatureSpec
from core.llm.prompts import Evidence
from core.llm.tokens import estimate_tokens
from core.progress import Progress
from core.store.database import ProjectDatabase
from core.store.repository import get_paragraphs

DEFAULT_EVIDENCE_TOKENS = 6_000  # the paper sent ~40,000 tokens of chunks; a tight budget is cheaper and sharper
FALLBACK_TOP_K = 20


@dataclasses.dataclass
class Retrieved:
    evidence: list[Evidence]
    settings: dict
    run_id: int | None = None


def retrieve_evidence(project: ProjectDatabase, feature: object, spec: FeatureSpec, retrieval_settings: Any = None,
                      progress: Progress | None = None) -> Retrieved:
    """Ranked evidence paragraphs for ``feature``, packed into the evidence token budget."""
    try:
        from core import retrieval
        retrieve = getattr(retrieval, "retrieve")
    except (ImportError, AttributeError):
        retrieve = None
    if retrieve is None:
        return _fts_fallback(project, spec, retrieval_settings)
    settings = retrieval_settings if retrieval_settings is not None else retrieval.RetrievalSettings()
    catalog_feature = feature if hasattr(feature, "vocabulary") else _catalog_feature(spec.id)
    hits = retrieve(project, catalog_feature, settings, progress=progress)
    budget = _budget_of(settings)
    pack = getattr(retrieval, "pack_budget", None)
    if pack is not None and budget:
        hits = pack(hits, budget)
    evidence = [Evidence(number=i + 1, rank=int(getattr(h, "rank", i + 1)), text=h.paragraph.text,
                         page_label=h.paragraph.page_label, paragraph_id=h.paragraph.id,
                         score=_float(getattr(h, "score", None)))
                for i, h in enumerate(hits)]
    run_id = None
    store_run = getattr(retrieval, "store_retrieval_run", None)
    if store_run is not None:
        try:
            run_id = store_run(project, catalog_feature, settings, hits)
        except TypeError:
            run_id = None  # an incompatible signature must not lose the classification
    return Retrieved(evidence, _settings_dict(settings), run_id)


def _fts_fallback(project: ProjectDatabase, spec: FeatureSpec, retrieval_settings: Any) -> Retrieved:
    words = {w.lower() for w in re.findall(r"[A-Za-z]{4,}", f"{spec.name} {spec.definition}")}
    words |= {label.lower() for label in spec.labels() if re.fullmatch(r"[A-Za-z]{3,}", label)}
    query = " OR ".join(sorted(words)) or "grammar"
    rows = project.conn.execute(
        "SELECT rowid FROM paragraphs_fts WHERE paragraphs_fts MATCH ? ORDER BY bm25(paragraphs_fts) LIMIT ?",
        (query, FALLBACK_TOP_K),
    ).fetchall()
    paragraphs = get_paragraphs(project, [r[0] for r in rows])
    budget = _budget_of(retrieval_settings) or DEFAULT_EVIDENCE_TOKENS
    evidence, used = [], 0
    for rank, p in enumerate(paragraphs, start=1):
        cost = estimate_tokens(p.text)
        if evidence and used + cost > budget:
            break
        used += cost
        evidence.append(Evidence(number=len(evidence) + 1, rank=rank, text=p.text, page_label=p.page_label,
                                 paragraph_id=p.id))
    return Retrieved(evidence, {"method": "fts5-fallback", "top_k": FALLBACK_TOP_K, "evidence_tokens": budget})


def _budget_of(settings: Any) -> int | None:
    for name in ("evidence_tokens", "max_evidence_tokens", "budget_tokens", "max_tokens"):
        value = getattr(settings, name, None)
        if isinstance(value, int) and value > 0:
            return value
    return None


def _settings_dict(settings: Any) -> dict:
    if dataclasses.is_dataclass(settings) and not isinstance(settings, type):
        return dataclasses.asdict(settings)
    to_json = getattr(settings, "to_json", None)
    return to_json() if callable(to_json) else {"repr": repr(settings)}


def _catalog_feature(feature_id: str) -> object:
    from core.catalog import load_catalog

    return load_catalog().get(feature_id)


def _float(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None
