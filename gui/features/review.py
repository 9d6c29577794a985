"""What the value panel shows about a model's answer (classification).

A thin layer over :mod:`core.llm` (classifications are stored there); it turns a
``Classification`` into the few strings and ids the widgets need, so widgets never read core
records field by field.  What the linguist decides about an answer (accept, another value, a
note) is stored through :mod:`core.coding` by :class:`gui.coding.coding_controller.CodingController`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.catalog import load_catalog
from core.llm.evidence import evidence_hits
from core.records.classifications import Classification
from core.retrieval import Hit
from core.store import ProjectDatabase
from core.store.classifications import list_classifications


@dataclass(frozen=True)
class ClassificationView:
    value: str | None
    reasoning: str
    meta: str
    cited_ids: tuple[int, ...]
    evidence_hits: list[Hit] = field(default_factory=list)  # the stored evidence, as retrieval hits


def latest_classification(project: ProjectDatabase, feature_id: str) -> Classification | None:
    """The newest stored classification of ``feature_id`` in this project (None when never classified)."""
    items = list_classifications(project, feature_id=feature_id)
    return max(items, key=lambda c: (c.created_at or "", c.id or 0)) if items else None


def value_text(result: Classification) -> str:
    """The value as a linguist reads it.

    A multi-label feature (the seven polar-question strategies) is shown as the strategies
    found present, not as seven bare 0/1 codes.
    """
    values = result.values
    if not values:
        return "Not enough information"
    parent_id = result.feature_id
    if all(v.feature_id != parent_id for v in values):
        catalog = load_catalog()
        names = dict(catalog.get(parent_id).parts) if parent_id in catalog else {}
        present = [names.get(v.feature_id, v.feature_id) for v in values if v.code == "1"]
        if present:
            return " + ".join(present)
        return "none of these strategies" if all(v.code == "0" for v in values) else "Not enough information"
    return ", ".join(v.label for v in values)


def describe(result: Classification, project: ProjectDatabase | None = None) -> ClassificationView:
    """What the value panel shows of a model answer: its value, reasoning, one line of facts, what it cites."""
    value = value_text(result)
    evidence = result.evidence
    cited = tuple(e.paragraph_id for e in evidence if e.cited and e.paragraph_id is not None)
    parts = [result.model]
    if result.tokens:
        parts.append(f"{result.tokens:,} tokens")
    if result.cost_usd:
        parts.append(f"${result.cost_usd:.4f}")
    if result.cached:
        parts.append("from cache")
    if result.created_at:
        parts.append(result.created_at.replace("T", " ")[:16])
    if result.problem:
        parts.append(result.problem)
    for flag in result.flags:
        parts.append(f"⚠ {flag.message}")
    cited_pages = [e.page_label for e in evidence if e.cited]
    if cited_pages:
        parts.append("cites p. " + ", ".join(dict.fromkeys(cited_pages)))
    hits: list[Hit] = []
    if project is not None:
        hits = evidence_hits(project, evidence)
    return ClassificationView(value, result.reasoning or "", " · ".join(p for p in parts if p), cited, hits)
