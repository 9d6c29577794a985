"""Plain records of the coding area: a decision about one feature and the evidence pinned to it."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.records.vocabulary import DecisionStatus

# What a decision row says about the feature after it (``decisions.status``): :class:`DecisionStatus`, under
# the names the coding layer has always exported (``coding.CODED``).  Typed ``str`` because a row read back
# from a project holds a plain string (an undo row's status is "undo"; a crafted file may hold anything).
CODED: str = DecisionStatus.CODED
ACCEPTED: str = DecisionStatus.ACCEPTED
OVERRIDDEN: str = DecisionStatus.OVERRIDDEN
UNKNOWN: str = DecisionStatus.UNKNOWN
NOTE: str = DecisionStatus.NOTE
VALUE_STATUSES: tuple[str, ...] = (CODED, ACCEPTED, OVERRIDDEN, UNKNOWN)
UNKNOWN_CODE = "?"

# What the coder did (``decisions.action``).
ACTIONS = ("code", "accept", "override", "unknown", "note", "pin", "unpin", "undo")


@dataclass(frozen=True)
class Pin:
    """A paragraph (or a printed page the retrieval never found) that decides a feature's value."""

    page_label: str
    paragraph_id: int | None = None
    document_id: int | None = None

    def to_json(self) -> dict:
        return {"paragraph_id": self.paragraph_id, "page_label": self.page_label}


@dataclass(frozen=True)
class NewDecision:
    """What one act of the coder says about a feature: the row to insert (the store assigns ``id``, ``batch``)."""

    feature_id: str
    parent_id: str
    action: str
    status: str
    code: str | None
    label: str | None
    note: str | None
    reviewer: str
    created_at: str
    classification_id: int | None = None
    undoes: int | None = None
    pins: tuple[Pin, ...] = field(default=())


@dataclass(frozen=True)
class Decision(NewDecision):
    """One row of a feature's history: the whole state after an act of the coder of record."""

    id: int = field(kw_only=True)
    batch: int | None = field(default=None, kw_only=True)

    @property
    def has_value(self) -> bool:
        """True when this row holds a value (a code of the feature or "?")."""
        return self.status in VALUE_STATUSES

    @property
    def value(self) -> str | None:
        """The value as the CLI prints it: the code, "?" or None."""
        return self.code if self.has_value else None

    def to_json(self) -> dict:
        """The shape ``main.py code --json`` prints."""
        return {"feature": self.feature_id, "value": self.value, "label": self.label if self.has_value else None,
                "status": self.status, "pins": [p.to_json() for p in self.pins], "note": self.note,
                "reviewer": self.reviewer, "time": self.created_at}
