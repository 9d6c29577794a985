"""The coder of record's decisions: code, accept, override, "?", note, pin, unpin, undo.

Every act appends rows (see migration 5): nothing is overwritten, the latest active row is the
feature's current state, and undo appends a row that cancels the latest one so the state before
counts again.  Each row carries the whole state (value, note, pins), which makes undo exact: it
restores the previous value *and* the pins and note that went with it.

Input is checked before anything is written: an unknown value, a value of another feature, a pin
to a paragraph the project does not have or a printed page the book does not have raise one
:class:`~core.errors.GrammarLensError`, and the project is left as it was.
"""

from __future__ import annotations

import functools
from typing import Callable, Iterable, ParamSpec, Sequence, TypeVar

from core.coding.values import NOT_ENOUGH_INFORMATION, codable_feature, resolve_value
from core.errors import GrammarLensError
from core.records.classifications import ModelValue, ValueRecord
from core.records.decisions import ACCEPTED, CODED, NOTE, OVERRIDDEN, UNKNOWN, UNKNOWN_CODE, Decision, Pin
from core.records.vocabulary import DecisionStatus
from core.store import decisions as store
from core.store.database import ProjectDatabase
from core.timestamps import now_iso

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _one_transaction(act: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run an act of the coder as one write transaction: it reads the state it builds on *inside* it.

    ``BEGIN IMMEDIATE`` makes concurrent acts on one project (the window, a CLI loop, a batch import)
    queue instead of interleaving: two pins added at once both stay, two undos cancel two decisions,
    and a refused act (bad value, lock not obtained in time) stores nothing.
    """
    @functools.wraps(act)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        project = args[0]
        assert isinstance(project, ProjectDatabase)
        with project.transaction():
            return act(*args, **kwargs)
    return run


def current(project: ProjectDatabase, feature_id: str) -> Decision | None:
    """The feature's current decision (latest active row: a value, or only notes/pins), or None."""
    return store.current_decision(project, codable_feature(feature_id).id)


def history(project: ProjectDatabase, feature_id: str) -> list[Decision]:
    """Every row about the feature, oldest first, undo rows and undone rows included."""
    return store.feature_history(project, codable_feature(feature_id).id)


def current_pins(project: ProjectDatabase, feature_id: str) -> tuple[Pin, ...]:
    d = current(project, feature_id)
    return d.pins if d else ()


def make_pins(project: ProjectDatabase, paragraph_ids: Iterable[int] = (),
              page_labels: Iterable[str] = ()) -> tuple[Pin, ...]:
    """Pins for paragraph ids of this project and printed page labels its books have; refuses anything else."""
    ids = [int(i) for i in paragraph_ids]
    found = store.paragraph_documents(project, [i for i in ids if 0 < i < 2 ** 63])  # SQLite's integer range
    missing = [i for i in ids if i not in found]
    if missing:
        raise GrammarLensError(
            f"Paragraph {', '.join(map(str, missing))} is not part of this project.",
            "Pin paragraphs of this project's grammar: list them with 'paragraphs PROJECT --page LABEL'.")
    pins = [Pin(page_label=found[i][1], paragraph_id=i, document_id=found[i][0]) for i in ids]
    for label in page_labels:
        text = str(label).strip()
        documents = store.documents_with_page_label(project, text)
        if not documents:
            raise GrammarLensError(f"The grammar has no printed page {text!r}.",
                                   "Give a page number as printed in the book (e.g. 127 or xii).")
        pins.append(Pin(page_label=text, paragraph_id=None, document_id=documents[0]))
    return tuple(dict.fromkeys(pins))


@_one_transaction
def code(project: ProjectDatabase, feature_id: str, value: str, *, paragraph_ids: Sequence[int] | None = None,
         page_labels: Sequence[str] | None = None, note: str | None = None, reviewer: str = "",
         unpin_paragraph_ids: Sequence[int] = (), unpin_page_labels: Sequence[str] = (),
         replace_pins: bool = False) -> Decision:
    """Set the feature's value by hand (a code, a label or "?"), with or without a model answer.

    Pins given here replace the feature's pins; without any, the current pins stay (unless
    ``replace_pins``: then the given pins, possibly none, are the value's whole evidence, as a
    resolution between two coders needs); ``unpin_*`` then drop some of them, in the same row
    (one act, one undo).  The status
    says how the value relates to the model: coded (no model answer), accepted (the same value),
    overridden (another value), unknown ("?").
    """
    feature = codable_feature(feature_id)
    vcode, label = resolve_value(feature, value)
    given = make_pins(project, paragraph_ids or (), page_labels or ())
    model = store.latest_model_value(project, feature.id)
    if vcode == UNKNOWN_CODE:
        action, status = "unknown", UNKNOWN
    elif model is None:
        action, status = "code", CODED
    elif model.code == vcode:
        action, status = "accept", ACCEPTED
    else:
        action, status = "override", OVERRIDDEN
    before = current(project, feature.id)
    pins = given if (paragraph_ids or page_labels or replace_pins) else (before.pins if before else ())
    if unpin_paragraph_ids or unpin_page_labels:
        kept = _without(pins, unpin_paragraph_ids, unpin_page_labels)
        if len(kept) == len(pins):
            raise GrammarLensError(f"{feature.id} has no such pin.",
                                   "See its pins with 'code PROJECT --feature ID --json'.")
        pins = kept
    return _append(project, [store.NewDecision(
        feature.id, _parent(project, feature.id, model), action, status, vcode, label, _note(note, before),
        reviewer, now_iso(), model.classification_id if model else None, pins=pins)])[0]


@_one_transaction
def accept(project: ProjectDatabase, classification_id: int, *, feature_id: str | None = None,
           note: str | None = None, reviewer: str = "") -> list[Decision]:
    """Accept a model answer (all its values, or the part ``feature_id`` of a multi-label answer).

    The accepted value pins the paragraphs the model cited, unless the feature has pins already.
    """
    parent, values = _classification(project, classification_id)
    chosen = [v for v in values if feature_id in (None, parent, v.feature_id)]
    if not chosen:
        if not values:
            raise GrammarLensError("The model's answer holds no value to accept.",
                                   "Set the value by hand (code PROJECT --feature ID --value VALUE).")
        raise GrammarLensError(f"{feature_id} is not part of {parent}.", "Name one of its parts.")
    cited = store.cited_pins(project, classification_id)
    rows = []
    for value in chosen:
        fid, vcode, label = value.feature_id, value.code, value.label
        before = current(project, fid)
        unknown = vcode is None or label == NOT_ENOUGH_INFORMATION
        rows.append(store.NewDecision(
            fid, parent, "accept", UNKNOWN if unknown else ACCEPTED, UNKNOWN_CODE if unknown else vcode,
            NOT_ENOUGH_INFORMATION if unknown else label, _note(note, before), reviewer, now_iso(), classification_id,
            pins=(before.pins if before and before.pins else cited)))
    return _append(project, rows)


@_one_transaction
def override(project: ProjectDatabase, classification_id: int, value: str, *, feature_id: str | None = None,
             note: str | None = None, reviewer: str = "") -> Decision:
    """Replace a model answer's value (of the part ``feature_id`` for a multi-label answer) by another one or "?"."""
    parent, values = _classification(project, classification_id)
    target = feature_id or parent
    if target != parent and target not in {v.feature_id for v in values} and not _is_part(parent, target):
        raise GrammarLensError(f"{target} is not part of {parent}.", "Name one of its parts.")
    feature = codable_feature(target)
    vcode, label = resolve_value(feature, value)
    before = current(project, feature.id)
    cited = store.cited_pins(project, classification_id)
    return _append(project, [store.NewDecision(
        feature.id, parent, "override" if vcode != UNKNOWN_CODE else "unknown",
        OVERRIDDEN if vcode != UNKNOWN_CODE else UNKNOWN, vcode, label, _note(note, before), reviewer, now_iso(),
        classification_id, pins=(before.pins if before and before.pins else cited))])[0]


@_one_transaction
def add_note(project: ProjectDatabase, feature_id: str, note: str, *, reviewer: str = "",
             classification_id: int | None = None) -> list[Decision]:
    """Add a note to a feature (to each part of a multi-label feature); the value and pins stay."""
    if not (note or "").strip():
        raise GrammarLensError("A note needs some text.", "")
    from core.catalog import load_catalog

    feature = load_catalog().get(feature_id)
    rows = []
    for fid in feature.multi_label or (feature.id,):
        before = current(project, fid)
        rows.append(_carry(before, fid, feature.id if feature.multi_label else fid, "note", note=note,
                           reviewer=reviewer, classification_id=classification_id))
    return _append(project, rows)


@_one_transaction
def pin(project: ProjectDatabase, feature_id: str, paragraph_ids: Sequence[int] = (), page_labels: Sequence[str] = (),
        *, reviewer: str = "") -> Decision:
    """Add pins to a feature (already pinned ones are kept once); the value and note stay."""
    fid = codable_feature(feature_id).id
    added = make_pins(project, paragraph_ids, page_labels)
    if not added:
        raise GrammarLensError("Nothing to pin.", "Give paragraph ids or printed page labels.")
    before = current(project, fid)
    pins = tuple(dict.fromkeys((before.pins if before else ()) + added))
    return _append(project, [_carry(before, fid, fid, "pin", pins=pins, reviewer=reviewer)])[0]


@_one_transaction
def unpin(project: ProjectDatabase, feature_id: str, paragraph_ids: Sequence[int] = (),
          page_labels: Sequence[str] = (), *, reviewer: str = "") -> Decision:
    """Remove pins (by paragraph id or by page label) from a feature."""
    fid = codable_feature(feature_id).id
    before = current(project, fid)
    kept = _without(before.pins if before else (), paragraph_ids, page_labels)
    if before is None or len(kept) == len(before.pins):
        raise GrammarLensError(f"{fid} has no such pin.", "See its pins with 'code PROJECT --feature ID --json'.")
    return _append(project, [_carry(before, fid, fid, "unpin", pins=kept, reviewer=reviewer)])[0]


@_one_transaction
def undo(project: ProjectDatabase, feature_id: str, *, reviewer: str = "") -> Decision | None:
    """Cancel the feature's latest decision; returns the one that counts again (None: the feature is undecided).

    The history keeps both rows: the undone one and the undo itself.
    """
    fid = codable_feature(feature_id).id
    active = store.active_decisions(project, fid)
    if not active:
        raise GrammarLensError(f"Nothing to undo for {fid}.", "It has no decision yet.")
    last = active[-1]
    _append(project, [store.NewDecision(fid, last.parent_id, "undo", DecisionStatus.UNDO, None, None, None, reviewer,
                                        now_iso(), last.classification_id, undoes=last.id)])
    return active[-2] if len(active) > 1 else None


def _without(pins: tuple[Pin, ...], paragraph_ids: Iterable[int], page_labels: Iterable[str]) -> tuple[Pin, ...]:
    """``pins`` less those of the given paragraphs and of the given printed pages (page-only pins)."""
    ids, labels = {int(i) for i in paragraph_ids}, {str(x).strip() for x in page_labels}
    return tuple(p for p in pins
                 if p.paragraph_id not in ids and not (p.paragraph_id is None and p.page_label in labels))


def _append(project: ProjectDatabase, rows: list[store.NewDecision]) -> list[Decision]:
    return store.decisions_by_ids(project, store.insert_decisions(project, rows))


def _carry(before: Decision | None, fid: str, parent: str, action: str, *, note: str | None = None,
           pins: tuple[Pin, ...] | None = None, reviewer: str = "", classification_id: int | None = None
           ) -> store.NewDecision:
    """A row that keeps the current value and changes only the note or the pins."""
    return store.NewDecision(
        fid, before.parent_id if before else parent, action, before.status if before else NOTE,
        before.code if before else None, before.label if before else None,
        note if note is not None else (before.note if before else None), reviewer, now_iso(),
        classification_id if classification_id is not None else (before.classification_id if before else None),
        pins=pins if pins is not None else (before.pins if before else ()))


def _note(note: str | None, before: Decision | None) -> str | None:
    """A new value keeps the feature's note unless a new one is given ("" clears it)."""
    if note is not None:
        return note or None
    return before.note if before else None


def _parent(project: ProjectDatabase, feature_id: str, model: ModelValue | None) -> str:
    if model is None:
        return feature_id
    return store.classification_feature(project, model.classification_id) or feature_id


def _classification(project: ProjectDatabase, classification_id: int) -> tuple[str, list[ValueRecord]]:
    parent = store.classification_feature(project, classification_id)
    if parent is None:
        raise GrammarLensError(f"There is no classification {classification_id}.", "List them with 'classifications'.")
    return parent, store.classification_values_of(project, classification_id)


def _is_part(parent: str, feature_id: str) -> bool:
    from core.catalog import load_catalog

    catalog = load_catalog()
    return parent in catalog and feature_id in catalog.get(parent).multi_label
