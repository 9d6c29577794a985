"""Tests' view of the coder's decisions on one model answer as "reviews" (accept / override / note).

The app stores decisions through :mod:`core.coding` (migration 5 copied migration 3's ``reviews``
table into them).  Older tests state their expectations as reviews of a classification; these
helpers show the decisions that way, so those tests check the acts of :mod:`core.coding` unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.errors import GrammarLensError
from core.store.classifications import get_classification
from core.store.database import ProjectDatabase

REVIEW_ACTIONS = ("accept", "override", "note")


@dataclass(frozen=True)
class Review:
    """A linguist's decision about a classification: accept it, override a value, or add a note."""

    id: int
    classification_id: int
    created_at: str
    reviewer: str
    action: str  # accept | override | note
    feature_id: str | None
    code: str | None
    label: str | None
    note: str | None


def add_review(project: ProjectDatabase, classification_id: int, action: str, value: str | None = None,
               note: str | None = None, reviewer: str = "", feature_id: str | None = None) -> Review:
    """Record a reviewer's decision. ``override`` needs ``value`` (a label or code of the feature's set).

    For the polar-question feature, ``feature_id`` names the sub-feature (e.g. GB263) being overridden.
    Kept for callers of the review API: decisions are stored by :mod:`core.coding` (migration 5).
    """
    from core import coding

    if action not in REVIEW_ACTIONS:
        raise GrammarLensError(f"Unknown review action {action!r}.", f"Use one of {', '.join(REVIEW_ACTIONS)}.")
    c = get_classification(project, classification_id)
    if c is None:
        raise GrammarLensError(f"There is no classification {classification_id}.", "List them with 'classifications'.")
    if action == "override":
        if value is None:
            raise GrammarLensError("An override needs a value.", "Give one of the feature's values.")
        rows = [coding.override(project, classification_id, value, feature_id=feature_id, note=note, reviewer=reviewer)]
    elif action == "accept":
        rows = coding.accept(project, classification_id, feature_id=feature_id, note=note, reviewer=reviewer)
    else:
        rows = coding.add_note(project, feature_id or c.feature_id, note or "", reviewer=reviewer,
                               classification_id=classification_id)
    return _review_of(rows, classification_id, action, feature_id or c.feature_id)


def _review_of(rows: list, classification_id: int, action: str, target: str) -> Review:
    first = rows[0]
    unknown = first.code == "?"
    code = None if action == "note" or unknown else first.code
    label = None if action == "note" else (NOT_ENOUGH_INFORMATION_LABEL if unknown else first.label)
    return Review(first.batch or first.id, classification_id, first.created_at, first.reviewer, action,
                  first.feature_id if len(rows) == 1 else target, code, label, first.note if first.note else None)


NOT_ENOUGH_INFORMATION_LABEL = "Not enough information"
_ACTION_OF = {"accept": "accept", "override": "override", "unknown": "override", "note": "note", "code": "override"}


def list_reviews(project: ProjectDatabase, classification_id: int) -> list[Review]:
    """The reviews of one model answer, oldest first: its decisions (migration 5) not undone, one per act."""
    from core.store.decisions import decisions_of_classification

    rows = decisions_of_classification(project, classification_id)
    undone = {r.undoes for r in rows if r.undoes is not None}  # an undo row keeps the classification it undoes
    acts: dict[int, list] = {}
    for r in rows:
        if r.id in undone or r.action not in _ACTION_OF:
            continue
        acts.setdefault(r.batch or r.id, []).append(r)
    out = []
    for act in acts.values():
        action = _ACTION_OF[act[0].action]
        out.append(_review_of(act, classification_id, action, act[0].parent_id))
    return out


def latest_review(project: ProjectDatabase, classification_id: int, feature_id: str | None = None,
                  action: str | None = None) -> Review | None:
    """The newest review of a classification (optionally of one sub-feature or one action)."""
    reviews = [r for r in list_reviews(project, classification_id)
               if (feature_id is None or r.feature_id == feature_id) and (action is None or r.action == action)]
    return reviews[-1] if reviews else None
