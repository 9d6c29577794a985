"""Plain data of the coding area, without Qt: what the panels show, the pass's acts, what a pass remembers.

Why apart from :mod:`gui.coding.coding_controller`: the controller wires signals to :mod:`core.coding`;
what it shows (:class:`CodingView`, :class:`PassView`), the words it says (undid, refused, not a
value), the stack of the pass's acts that Ctrl+Z walks back (:class:`PassActs`) and the pass a
coder left in a project (:class:`PassMemory`, kept in the app's settings under the project's
path: where a person stopped is theirs, not the project's) are plain Python and tested as such.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from core import coding
from core.catalog.model import Feature
from core.changes import ProjectChange
from core.coding.coding_pass import FILTER_LABELS, ActUndone
from core.coding.feature_sets import BUILTIN_SETS, canonical_set
from core.models import Paragraph
from core.records.classifications import Classification
from core.store.database import ProjectDatabase
from core.store.decisions import current_decisions

if TYPE_CHECKING:  # the type name only: the retrieval pipeline loads its ranking for nothing here
    from core.retrieval.pipeline import Hit

_DONE = {"code": "coded", "accept": "accepted the model's value", "override": "overrode the model with",
         "unknown": "set", "note": "noted", "pin": "pinned", "unpin": "unpinned", "undo": "undid their last change"}


@dataclass(frozen=True)
class CodingView:
    """What the coding panel shows for the chosen feature."""

    feature: Feature | None
    codable: bool = False
    why_not: str = ""  # why nothing can be coded here (no feature, a multi-label parent)
    options: tuple[tuple[str, str, str], ...] = ()  # (key, code, label) in the set's order, "?" last
    current_code: str | None = None
    status: str = ""  # one line: the value that counts, by whom and when
    note: str = ""
    pins: tuple[coding.Pin, ...] = ()
    history: tuple[str, ...] = ()  # newest first
    can_undo: bool = False
    model_code: str | None = None


def coding_view(project: ProjectDatabase | None, feature: Feature | None,
                classification: Classification | None) -> CodingView:
    """The chosen feature's current decision and history, as the panel shows them (``classification``: the
    model answer on screen, whose value the panel marks "← model")."""
    if feature is None or project is None:
        return CodingView(None, why_not="Pick a feature on the left, or start a coding pass (Ctrl+K).")
    if feature.multi_label:
        return CodingView(feature, why_not=f"{feature.id} is coded as its {len(feature.multi_label)} Grambank "
                                           f"parts: {', '.join(feature.multi_label)}. Pick one, or use a pass.")
    current = coding.current(project, feature.id)
    rows = coding.history(project, feature.id)
    options = tuple(coding.value_choices(feature.id))  # keys are the codes when they are digits
    return CodingView(feature, True, "", options, current.value if current else None, status_line(current),
                      (current.note or "") if current else "", current.pins if current else (),
                      tuple(history_lines(rows)), bool(current), model_code(classification, feature.id))


def model_code(classification: Classification | None, feature_id: str) -> str | None:
    """The code the model answered for ``feature_id`` (None: no answer, or none for this feature)."""
    if classification is None:
        return None
    return next((v.code for v in classification.values if v.feature_id == feature_id), None)


def coded_marks(project: ProjectDatabase | None) -> dict[str, str]:
    """Feature id -> "✔" (a value) or "?" for every feature decided in the project, as the feature list marks them."""
    decided = current_decisions(project) if project is not None else {}
    return {fid: ("?" if d.code == coding.UNKNOWN_CODE else "✔") for fid, d in decided.items() if d.has_value}


def pin_menu_text(paragraph: Paragraph, pinned: bool, feature_id: str) -> str:
    """The PDF view's context-menu entry for a paragraph: pin it to the feature, or unpin it."""
    if pinned:
        return f"Unpin this paragraph (p. {paragraph.page_label}) from {feature_id}"
    return f"Pin this paragraph (p. {paragraph.page_label}) to {feature_id}"


def first_page(hits: Sequence[Hit] | None, document_id: int | None) -> int | None:
    """The PDF page evidence opens on in a grammar: the first page of its top hit there (None: no hit there)."""
    if not hits or document_id is None:
        return None
    top = next((h for h in hits if h.paragraph.document_id == document_id), None)
    return min(r.pdf_page for r in top.paragraph.rects) if top is not None else None


@dataclass(frozen=True)
class PassView:
    """What the coding-pass bar shows."""

    active: bool
    feature_set: str = "wals"
    filter: str = coding.ALL
    counter: str = ""  # "37 of 195 coded"
    position: str = ""  # "feature 12 of 195 shown"
    feature_sets: tuple[str, ...] = BUILTIN_SETS
    disagree_available: bool = False
    resume_at: str = ""  # a pass left in this project stopped at this feature: the bar offers to continue


# ---------------------------------------------------------------------- the pass's acts
@dataclass(frozen=True)
class PassAct:
    """One act stored during a pass: the feature on screen, what was done, and the rows it added."""

    feature_id: str
    action: str  # code, accept, override, unknown, note, pin, unpin
    rows: tuple[coding.Decision, ...]


class PassActs:
    """The acts of this session's pass, newest last: Ctrl+Z takes them back one by one, wherever the pass is now."""

    def __init__(self) -> None:
        self._acts: list[PassAct] = []

    def push(self, act: PassAct) -> None:
        if act.rows:
            self._acts.append(act)

    def pop(self) -> PassAct | None:
        return self._acts.pop() if self._acts else None

    def clear(self) -> None:
        self._acts.clear()

    def __len__(self) -> int:
        return len(self._acts)


def state_words(d: coding.Decision | None) -> str:
    """A feature's state in a few words: "absent (0)", "? (not enough information)", "not coded"."""
    if d is None:
        return "not coded"
    if not d.has_value:
        return "no value (notes or pins only)"
    if d.code == coding.UNKNOWN_CODE:
        return "? (not enough information)"
    return f"{d.label} ({d.code})"


def _undid(act: PassAct, fid: str) -> str:
    """"Undid GB024 = present (1)" for a value, "Undid GB024's pin" for a note, a pin or an unpin."""
    if act.action in ("code", "accept", "override", "unknown"):
        return f"Undid {fid} = {state_words(act.rows[0])}"
    return f"Undid {fid}'s {act.action}"


def undone_text(act: PassAct, result: ActUndone) -> str:
    """What Ctrl+Z did, naming the feature: "Undid GB024 = present (1): back to not coded."."""
    fids = list(result.restored)
    main = act.feature_id if act.feature_id in result.restored or not fids else fids[0]  # a parent: its parts
    others = [fid for fid in fids if fid != main]
    more = f" (and on {', '.join(others)})" if others else ""
    return f"{_undid(act, main)}{more}: back to {state_words(result.restored.get(main))}."


def refused_text(act: PassAct, result: ActUndone) -> str:
    """Why an act of the pass was not undone: its feature was decided again elsewhere since."""
    fid, latest = next(iter(result.changed.items()))
    if latest is None:
        return f"{fid} not undone: its decisions were undone since. Ctrl+Z again goes further back."
    when = _local_time(latest.created_at)
    return (f"{fid} not undone: {latest.reviewer or 'someone'} changed it since ({state_words(latest)}, {when}). "
            "Ctrl+Z again goes further back.")


def _local_time(stamp: str) -> str:
    """"14:03" on this computer's clock for a stored (UTC) time; the stored text's hour when unreadable."""
    try:
        return datetime.fromisoformat(stamp).astimezone().strftime("%H:%M")
    except ValueError:
        return stamp.replace("T", " ")[11:16]


def nothing_left_text(feature_id: str | None, has_decision: bool) -> str:
    text = "Nothing of this coding pass left to undo."
    if feature_id and has_decision:
        text += f" Undo under Your value takes back {feature_id}'s latest decision."
    return text


# ---------------------------------------------------------------------- keys
def _keys(view: CodingView) -> str:
    return ", ".join(key for key, _code, _label in view.options if key)


def not_a_value_text(key: str, view: CodingView) -> str:
    """The pass bar's answer to a key that chooses nothing: "7 is not a value of GB025 (0, 1, ?)"."""
    if view.feature is None or not view.codable:
        return view.why_not or "Pick a feature first."
    if key.isdigit():
        return f"{key} is not a value of {view.feature.id} ({_keys(view)})."
    return f"“{key}” is not a key of the coding pass; the values of {view.feature.id} are {_keys(view)}."


def choose_first_text(view: CodingView) -> str:
    """Enter with no value chosen."""
    if view.feature is None or not view.codable:
        return view.why_not or "Pick a feature first."
    return f"Nothing stored: type a value of {view.feature.id} first ({_keys(view)}), then Enter."


# ---------------------------------------------------------------------- where a pass stopped
@dataclass(frozen=True)
class PassMemory:
    """The pass a coder left in a project: its set, filter and the feature it was on."""

    feature_set: str
    filter: str
    feature: str

    FIELDS = ("set", "filter", "feature")

    @staticmethod
    def group(project: Path) -> str:
        """The settings group of one project (its path; separators replaced, as for other per-project settings)."""
        return "coding_pass/" + str(project).replace("/", "|").replace("\\", "|")

    def items(self) -> dict[str, str]:
        return {"set": self.feature_set, "filter": self.filter, "feature": self.feature}

    @classmethod
    def read(cls, value: Callable[[str], object], known_sets: Iterable[str]) -> PassMemory | None:
        """The memory from ``value(name)`` (a settings lookup in the project's group); None when absent or stale.

        A saved list deleted since, or a filter this version does not know, is no pass to continue.
        """
        got = {name: str(value(name) or "") for name in cls.FIELDS}
        got["set"] = canonical_set(got["set"]) if got["set"] else ""  # a pass saved over "paper" continues
        if not got["set"] or got["set"] not in set(known_sets) or got["filter"] not in coding.FILTERS:
            return None
        return cls(got["set"], got["filter"], got["feature"])

    def offer(self) -> str:
        where = f" at {self.feature}" if self.feature else ""
        label = "" if self.filter == coding.ALL else f", {FILTER_LABELS[self.filter]}"
        return f"Your coding pass ({self.feature_set}{label}) stopped{where}: Ctrl+K continues it."


class SettingsStore(Protocol):
    """What the pass memory needs of the app's settings (a QSettings has these)."""

    def value(self, key: str, default: object = ...) -> object: ...

    def setValue(self, key: str, value: object) -> None: ...

    def remove(self, key: str) -> None: ...


def remember_pass(store: SettingsStore, project: Path, memory: PassMemory) -> None:
    """Keep the running pass's set, filter and feature for the next time the project opens."""
    group = PassMemory.group(project)
    for name, value in memory.items().items():
        if value:  # a feature outside the set leaves the place as it was
            store.setValue(f"{group}/{name}", value)


def recall_pass(store: SettingsStore, project: Path, feature_sets: Iterable[str]) -> PassMemory | None:
    """The pass left in the project (None: none, or one this project can no longer continue)."""
    group = PassMemory.group(project)
    return PassMemory.read(lambda name: store.value(f"{group}/{name}", ""), feature_sets)


def forget_pass(store: SettingsStore, project: Path) -> None:
    store.remove(PassMemory.group(project))


# ---------------------------------------------------------------------- the panel's lines
def status_line(d: coding.Decision | None) -> str:
    if d is None:
        return "Not coded yet."
    when = d.created_at.replace("T", " ")[:16]
    who = d.reviewer or "someone"
    if not d.has_value:
        what = " and ".join(p for p in (f"{len(d.pins)} pin{'s' if len(d.pins) != 1 else ''}" if d.pins else "",
                                        "a note" if d.note else "") if p)
        return f"No value yet · {what} by {who}, {when}" if what else "Not coded yet."
    word = {coding.CODED: "coded", coding.ACCEPTED: "accepted", coding.OVERRIDDEN: "overridden",
            coding.UNKNOWN: "coded"}[d.status]
    return f"{d.label} · {word} by {who}, {when}"


def history_lines(rows: list[coding.Decision]) -> list[str]:
    """One line per act, newest first; acts later undone are marked so."""
    undone = {r.undoes for r in rows if r.undoes is not None}
    lines = []
    previous_pins: tuple = ()
    for r in rows:
        when = r.created_at.replace("T", " ")[5:16]
        who = r.reviewer or "someone"
        what = _DONE.get(r.action, r.action)
        if r.action in ("code", "override", "unknown"):
            what = f"{what} {r.label}" if r.action != "unknown" else "set ? (not enough information)"
        elif r.action == "accept":
            what = f"{what} {r.label}"
        elif r.action == "note":
            what = f"noted: {r.note}"
        elif r.action in ("pin", "unpin"):
            changed = set(previous_pins) ^ set(r.pins)
            what = f"{what} " + ", ".join(f"p. {p.page_label}" for p in changed) if changed else what
        if r.action != "undo":
            previous_pins = r.pins
        lines.append(f"{when}  {who} {what}" + ("  (undone)" if r.id in undone else ""))
    return list(reversed(lines))


def outside_text(change: ProjectChange) -> str:
    """The status line for what another program stored: "81A, GB020 decided by cli in another program.", or,
    with no decision, model answers ("classify" in the CLI, a batch file imported elsewhere); "" for neither."""
    def listed(fids: list[str]) -> str:
        return ", ".join(fids[:5]) + (f" and {len(fids) - 5} more" if len(fids) > 5 else "")

    if not change.decisions:
        return (f"Model answers for {listed(sorted(change.features))} stored by another program "
                "(the window shows them now).") if change.features else ""
    who = ", ".join(sorted({d.reviewer for d in change.decisions if d.reviewer})) or "someone"
    return (f"{listed(sorted({d.feature_id for d in change.decisions}))} decided by {who} in another program "
            "(the window shows it now).")
