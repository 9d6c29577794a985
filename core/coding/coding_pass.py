"""A coding pass: the features of a set in working order, filtered, counted and stepped through.

Coders work feature after feature.  :class:`CodingPass` holds, for one feature set, the state of
every feature (decision, model answer, database value) read in two queries, and answers what the
coding panel needs without touching the database again: the ordered list under a filter, the
counter ("37 of 195 coded"), next / previous / next uncoded, and which features come next so the
GUI can retrieve their evidence ahead of the linguist (:meth:`CodingPass.upcoming`).  After the
coder decides, :meth:`CodingPass.refresh` re-reads one feature.

Order: the set's own order, except ``grambank``, which follows the Grambank coders' working order
when the catalog records one (``Feature.coding["order"]``, from Grambank's
``feature_grouping_for_coding.csv``); the polar-question complex
116A* stands for its seven Grambank parts, each a feature of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from core.coding.values import coding_ids
from core.records.classifications import ModelValue
from core.records.decisions import Decision
from core.records.vocabulary import FilterKey
from core.store import decisions as store
from core.store.database import ProjectDatabase

# The pass's filters (:class:`FilterKey`) under the names the coding layer has always exported; typed ``str``
# because a filter also arrives as a plain string (a saved resume point, ``--filter``) and is checked here.
ALL: str = FilterKey.ALL
UNCODED: str = FilterKey.UNCODED
PREDICTED: str = FilterKey.PREDICTED
DISAGREE: str = FilterKey.DISAGREE
FILTERS: tuple[str, ...] = tuple(FilterKey)
FILTER_LABELS: dict[str, str] = {ALL: "all", UNCODED: "uncoded", PREDICTED: "predicted, not reviewed",
                                 DISAGREE: "disagreeing with WALS/Grambank"}


@dataclass(frozen=True)
class FeatureState:
    """What is known about one feature of the pass."""

    feature_id: str
    decision: Decision | None  # current decision (a value, or only notes/pins)
    model_code: str | None = None  # the newest model answer's code, if any
    model_label: str | None = None
    has_model_answer: bool = False
    reference_code: str | None = None  # WALS/Grambank value for the language, when references were given

    @property
    def coded(self) -> bool:
        return self.decision is not None and self.decision.has_value

    @property
    def effective_code(self) -> str | None:
        """The value that counts: the coder's, else the model's."""
        if self.decision is not None and self.decision.has_value:
            return self.decision.code
        return self.model_code

    @property
    def disagrees(self) -> bool:
        """True when both the value that counts and the database's are known and differ ("?" never disagrees)."""
        code = self.effective_code
        return (code is not None and code != "?" and self.reference_code is not None
                and str(code) != str(self.reference_code))


@dataclass(frozen=True)
class Counter:
    coded: int
    total: int

    def __str__(self) -> str:
        return f"{self.coded} of {self.total} coded"


def ordered_features(project: ProjectDatabase | None, feature_set: str) -> list[str]:
    """The ids a pass over ``feature_set`` visits, in working order (multi-label features as their parts)."""
    from core.catalog import load_catalog
    from core.coding.feature_sets import resolve_feature_set

    ids = resolve_feature_set(project, feature_set)
    if feature_set.strip().casefold() == "grambank":
        catalog = load_catalog()
        position = {fid: i for i, fid in enumerate(ids)}
        ids = sorted(ids, key=lambda f: (_coding_order(catalog.get(f)), position[f]))
    return coding_ids(ids)


def _coding_order(feature) -> float:
    """The feature's rank in Grambank's coding order (``coding["order"]`` in the catalog), else last."""
    order = feature.coding.get("order")
    return float(order) if isinstance(order, (int, float)) else float("inf")


class CodingPass:
    """The features of one set, their states, a filter, and navigation among them."""

    def __init__(self, feature_ids: list[str], states: dict[str, FeatureState], filter: str = ALL,
                 references: dict[str, str] | None = None) -> None:
        self.feature_ids = list(feature_ids)
        self.states = dict(states)
        self.filter = filter
        self.references = dict(references or {})  # feature id -> the database's code

    @classmethod
    def open(cls, project: ProjectDatabase, feature_set: str, filter: str = ALL,
             references: dict | None = None) -> CodingPass:
        """Read the states of every feature of ``feature_set``.

        ``references`` maps feature id -> a database value with a ``code`` (see
        :func:`core.profile.load_reference_values`); without it the ``disagree`` filter is empty.
        """
        _check_filter(filter)
        ids = ordered_features(project, feature_set)
        refs = {fid: getattr(r, "code", r) for fid, r in (references or {}).items()}
        decisions = store.current_decisions(project)
        models = store.model_values(project)
        states = {fid: _state(fid, decisions.get(fid), models.get(fid), refs.get(fid)) for fid in ids}
        return cls(ids, states, filter, refs)

    def refresh(self, project: ProjectDatabase, feature_id: str) -> FeatureState:
        """Re-read one feature after the coder changed it (the filter list follows)."""
        rows = store.active_decisions(project, feature_id)
        state = _state(feature_id, rows[-1] if rows else None, store.latest_model_value(project, feature_id),
                       self.references.get(feature_id))
        self.states[feature_id] = state
        return state

    def set_filter(self, filter: str) -> None:
        _check_filter(filter)
        self.filter = filter

    def matches(self, feature_id: str, filter: str | None = None) -> bool:
        state = self.states[feature_id]
        f = filter or self.filter
        if f == UNCODED:
            return not state.coded
        if f == PREDICTED:
            return state.has_model_answer and not state.coded
        if f == DISAGREE:
            return state.disagrees
        return True

    def items(self) -> list[str]:
        """The features shown under the current filter, in working order."""
        return [f for f in self.feature_ids if self.matches(f)]

    def counter(self) -> Counter:
        """Coded features ("?" included: it is a decision) over the whole set, whatever the filter."""
        return Counter(sum(1 for f in self.feature_ids if self.states[f].coded), len(self.feature_ids))

    def next(self, current: str | None) -> str | None:
        """The feature after ``current`` that passes the filter (the first one when ``current`` is None)."""
        return self._step(current, +1, self.filter)

    def previous(self, current: str | None) -> str | None:
        return self._step(current, -1, self.filter)

    def next_uncoded(self, current: str | None) -> str | None:
        """The next feature without a value, wrapping around to the start; None when all are coded."""
        found = self._step(current, +1, UNCODED)
        if found is None:
            found = next((f for f in self.feature_ids if not self.states[f].coded and f != current), None)
        return found

    def upcoming(self, current: str | None, count: int = 3) -> list[str]:
        """The features the coder will most likely visit next (for look-ahead retrieval), nearest first."""
        out: list[str] = []
        cursor = current
        while len(out) < count:
            cursor = self.next(cursor)
            if cursor is None or cursor in out or cursor == current:
                break
            out.append(cursor)
        return out

    def position(self, current: str) -> tuple[int, int]:
        """(1-based place of ``current`` among the filtered items, their number); place 0 if filtered out."""
        items = self.items()
        return (items.index(current) + 1 if current in items else 0, len(items))

    def _step(self, current: str | None, direction: int, filter: str) -> str | None:
        ids = self.feature_ids
        if current is None or current not in ids:
            candidates = ids if direction > 0 else list(reversed(ids))
        else:
            i = ids.index(current)
            candidates = ids[i + 1:] if direction > 0 else list(reversed(ids[:i]))
        return next((f for f in candidates if self.matches(f, filter)), None)


@dataclass(frozen=True)
class ActUndone:
    """What :func:`undo_act` did: undid the act, found it undone already, or found it superseded."""

    undone: bool
    already_undone: bool = False  # every row of the act was cancelled before (an Undo button, the CLI)
    restored: dict[str, Decision | None] = field(default_factory=dict)  # feature -> what counts again
    changed: dict[str, Decision | None] = field(default_factory=dict)  # feature -> its latest, not the act's


def undo_act(project: ProjectDatabase, act: Sequence[Decision], *, reviewer: str = "") -> ActUndone:
    """Undo the rows one act of a coding pass stored, only where each is still its feature's latest decision.

    A pass remembers its acts so Ctrl+Z can take back the value stored on the feature just left.
    Someone else (the CLI, a batch import, another window) may have decided that feature since;
    undoing "the latest decision" then would cancel *their* act.  So, in one write transaction
    (the check and the undo cannot be interleaved by another writer), every row of the act must
    still be its feature's latest active decision; then each is undone through
    :func:`core.coding.decisions.undo`.  Otherwise nothing is written: ``changed`` holds the
    decisions that took their place, or ``already_undone`` says the act was cancelled already.
    """
    from core.coding.decisions import undo

    with project.transaction():
        latest: dict[str, Decision | None] = {}
        for row in act:
            rows = store.active_decisions(project, row.feature_id)
            latest[row.feature_id] = rows[-1] if rows else None
        stale = [row for row in act if (last := latest[row.feature_id]) is None or last.id != row.id]
        if stale:
            cancelled = {r.undoes for fid in latest for r in store.feature_history(project, fid)
                         if r.undoes is not None}
            if all(row.id in cancelled for row in act):
                return ActUndone(False, already_undone=True)
            return ActUndone(False, changed={row.feature_id: latest[row.feature_id] for row in stale})
        restored = {row.feature_id: undo(project, row.feature_id, reviewer=reviewer) for row in act}
    return ActUndone(True, restored=restored)


def _state(fid: str, decision: Decision | None, model: ModelValue | None, reference: str | None) -> FeatureState:
    return FeatureState(fid, decision, model.code if model else None, model.label if model else None, model is not None,
                        reference)


def _check_filter(filter: str) -> None:
    from core.errors import GrammarLensError

    if filter not in FILTERS:
        raise GrammarLensError(f"Unknown filter {filter!r}.", f"Use one of: {', '.join(FILTERS)}.")
