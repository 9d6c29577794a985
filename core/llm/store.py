"""Reviews of classifications (table of migration 3), and the classification reads the LLM area re-exports.

Classifications themselves are stored by :mod:`core.store.classifications`; their names are
re-exported here so ``core.llm.get_classification`` and friends keep working.
"""

from __future__ import annotations

from core.errors import GrammarLensError
from core.llm.records import Review
from core.store.classifications import get_classification, list_classifications, save_classification
from core.store.database import ProjectDatabase
from core.timestamps import now_iso

__all__ = ["REVIEW_ACTIONS", "add_review", "get_classification", "latest_review", "list_classifications",
           "list_reviews", "save_classification"]

REVIEW_ACTIONS = ("accept", "override", "note")


def add_review(project: ProjectDatabase, classification_id: int, action: str, value: str | None = None,
               note: str | None = None, reviewer: str = "", feature_id: str | None = None) -> Review:
    """Record a reviewer's decision. ``override`` needs ``value`` (a label or code of the feature's set).

    For the polar-question feature, ``feature_id`` names the sub-feature (e.g. GB263) being overridden.
    """
    from core.llm.features import NOT_ENOUGH_INFORMATION, as_spec

    if action not in REVIEW_ACTIONS:
        raise GrammarLensError(f"Unknown review action {action!r}.", f"Use one of {', '.join(REVIEW_ACTIONS)}.")
    c = get_classification(project, classification_id)
    if c is None:
        raise GrammarLensError(f"There is no classification {classification_id}.", "List them with 'classifications'.")
    code = label = None
    target = feature_id or c.feature_id
    if action == "override":
        if value is None:
            raise GrammarLensError("An override needs a value.", "Give one of the feature's values.")
        spec = as_spec(c.feature_id)
        if spec.is_multilabel:
            spec = next((s for s in spec.subfeatures if s.id == target), None)
            if spec is None:
                raise GrammarLensError(f"{target} is not part of {c.feature_id}.",
                                       "Name one of its sub-features with feature_id.")
        if value == NOT_ENOUGH_INFORMATION:
            label = value
        else:
            match = next(((cd, lb) for cd, lb in spec.values if value in (cd, lb)), None)
            if match is None:
                raise GrammarLensError(f"{value!r} is not a value of {spec.id}.",
                                       f"Choose one of: {', '.join(spec.options())}.")
            code, label = match
    elif action == "note" and not (note or "").strip():
        raise GrammarLensError("A note needs some text.", "")
    created = now_iso()
    with project.transaction():
        cur = project.conn.execute(
            "INSERT INTO reviews (classification_id, created_at, reviewer, action, feature_id, code, label, note) "
            "VALUES (?,?,?,?,?,?,?,?)",
            (classification_id, created, reviewer, action, target, code, label, note),
        )
    return Review(int(cur.lastrowid), classification_id, created, reviewer, action, target, code, label, note)


def list_reviews(project: ProjectDatabase, classification_id: int) -> list[Review]:
    rows = project.conn.execute(
        "SELECT id, classification_id, created_at, reviewer, action, feature_id, code, label, note FROM reviews "
        "WHERE classification_id = ? ORDER BY id", (classification_id,)).fetchall()
    return [Review(*r) for r in rows]


def latest_review(project: ProjectDatabase, classification_id: int, feature_id: str | None = None,
                  action: str | None = None) -> Review | None:
    """The newest review of a classification (optionally of one sub-feature or one action)."""
    reviews = [r for r in list_reviews(project, classification_id)
               if (feature_id is None or r.feature_id == feature_id) and (action is None or r.action == action)]
    return reviews[-1] if reviews else None
