"""What the prediction panel shows about a classification, and the reviewer's actions on it.

A thin layer over :mod:`core.llm` (classifications and reviews are stored there); it turns a
``Classification`` into the few strings and ids the widgets need, so widgets never read core
records field by field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.llm.evidence import evidence_hits
from core.retrieval import Hit
from core.store import ProjectDatabase


@dataclass(frozen=True)
class ClassificationView:
    value: str | None
    reasoning: str
    meta: str
    cited_ids: tuple[int, ...]
    evidence_hits: list[Hit] = field(default_factory=list)  # the stored evidence, as retrieval hits


def latest_classification(project: ProjectDatabase, feature_id: str) -> Any | None:
    """The newest stored classification of ``feature_id`` in this project (None when never classified)."""
    from core.llm import list_classifications

    items = list_classifications(project, feature_id=feature_id)
    return max(items, key=lambda c: (c.created_at or "", c.id or 0)) if items else None


def value_text(result: Any) -> str:
    """The value as a linguist reads it.

    A multi-label feature (the seven polar-question strategies) is shown as the strategies
    found present, not as seven bare 0/1 codes.
    """
    values = list(getattr(result, "values", []))
    if not values:
        return "Not enough information"
    parent_id = getattr(result, "feature_id", None)
    if all(getattr(v, "feature_id", parent_id) != parent_id for v in values):
        from core.catalog import load_catalog

        catalog = load_catalog()
        names = dict(catalog.get(parent_id).parts) if parent_id in catalog else {}
        present = [names.get(v.feature_id, v.feature_id) for v in values if v.code == "1"]
        if present:
            return " + ".join(present)
        return "none of these strategies" if all(v.code == "0" for v in values) else "Not enough information"
    return ", ".join(v.label for v in values)


def describe(result: Any, project: ProjectDatabase | None = None) -> ClassificationView:
    value = value_text(result)
    evidence = list(getattr(result, "evidence", []))
    cited = tuple(e.paragraph_id for e in evidence if e.cited and e.paragraph_id is not None)
    parts = [getattr(result, "model", "")]
    tokens = getattr(result, "tokens", 0)
    if tokens:
        parts.append(f"{tokens:,} tokens")
    cost = getattr(result, "cost_usd", None)
    if cost:
        parts.append(f"${cost:.4f}")
    if getattr(result, "cached", False):
        parts.append("from cache")
    created = getattr(result, "created_at", "")
    if created:
        parts.append(created.replace("T", " ")[:16])
    problem = getattr(result, "problem", None)
    if problem:
        parts.append(problem)
    for flag in getattr(result, "flags", []) or []:
        parts.append(f"⚠ {flag.message}")
    cited_pages = [e.page_label for e in evidence if e.cited]
    if cited_pages:
        parts.append("cites p. " + ", ".join(dict.fromkeys(cited_pages)))
    hits: list[Hit] = []
    if project is not None:
        hits = evidence_hits(project, evidence)
    reasoning = getattr(result, "reasoning", "") or ""
    return ClassificationView(value, reasoning, " · ".join(p for p in parts if p), cited, hits)


def review_lines(project: ProjectDatabase, classification: Any) -> list[str]:
    """Reviews of a classification, newest first, as one line each (time, reviewer, what)."""
    from core.llm import list_reviews

    lines = []
    for r in sorted(list_reviews(project, classification.id), key=lambda r: (r.created_at, r.id), reverse=True):
        when = r.created_at.replace("T", " ")[:16]
        if r.action == "accept":
            what = "accepted the value"
        elif r.action == "override":
            what = f"overrode the value with “{_review_value(r)}”"
        else:
            what = f"noted: {r.note}"
        lines.append(f"{when}  {r.reviewer} {what}")
    return lines


def add(project: ProjectDatabase, classification: Any, action: str, *, value: str | None, note: str | None,
        reviewer: str) -> None:
    """Store a review; an override names a label of the feature's value set (or a sub-feature's)."""
    from core.llm import add_review

    feature_id = None
    if action == "override" and value is not None:
        feature_id, value = parse_option(value)
    add_review(project, classification.id, action, value=value, note=note, reviewer=reviewer, feature_id=feature_id)


_PRESENCE = {"1": "present", "0": "absent"}


def value_options(feature: Any) -> list[str]:
    """The labels a reviewer may choose when overriding: the value set plus "Not enough information".

    For a multi-label feature (the seven polar-question strategies) each sub-feature can be set
    on its own: "GB257 Interrogative intonation only: present".
    """
    from core.llm import NOT_ENOUGH_INFORMATION, feature_of

    spec = feature_of(feature)  # the catalog's Feature: the labels a value is stored and exported with
    if spec.is_multilabel:
        return [f"{sub.id} {spec.part_label(sub.id)}: {label}" for sub in spec.sub_features for _code, label in sub.values]
    return spec.labels() + [NOT_ENOUGH_INFORMATION]


def parse_option(option: str) -> tuple[str | None, str]:
    """(sub-feature id or None, value) for an option made by :func:`value_options`."""
    sub, _, presence = option.rpartition(": ")
    codes = {name: code for code, name in _PRESENCE.items()}
    if sub and presence in codes and sub.split(" ", 1)[0].startswith("GB"):
        return sub.split(" ", 1)[0], codes[presence]
    return None, option


def override_value(project: ProjectDatabase, classification: Any) -> str | None:
    """The value of the newest override of this classification, if a reviewer overrode it."""
    from core.llm import latest_review

    r = latest_review(project, classification.id, action="override")
    return _review_value(r) if r else None


def _review_value(review: Any) -> str:
    """An override as shown: the label, or "GB263: present" for a sub-feature of a multi-label feature."""
    feature_id = getattr(review, "feature_id", None)
    if feature_id and feature_id.startswith("GB") and review.code in _PRESENCE:
        return f"{feature_id}: {_PRESENCE[review.code]}"
    return review.label or ""
