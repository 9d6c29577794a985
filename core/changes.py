"""What one act changed in a project: one typed, frozen record that every screen reads.

Why one record: the window used to announce each change on the signal of the controller that made
it (six of them: a decision, pins, the coded marks, "stored", a resolution, the language), and a
screen that listened to five of the six showed something else than its neighbour.  Every act that
changes a project (code, accept, override, "?", note, pin, unpin, undo, a grammar imported, a
backup restored, a disagreement resolved, the language set, a batch file imported, or another
process writing the file) now ends in one :class:`ProjectChange` saying *what* changed: which
features, whether their values or statuses, their pins, the language, the grammars, or anything at
all (a restore).  Each screen decides from the record alone whether it has to re-read — the idea of
Anki's ``OpChanges``.  It sits below every layer (beside :mod:`core.records`), so that the store,
the coding acts, the profile's batch import and the sample's resolution can all return one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType

from core.records.decisions import Decision


class Act(StrEnum):
    """Which act changed the project (what a screen may say about it; never needed to decide what to re-read)."""

    CODE = "code"
    ACCEPT = "accept"
    OVERRIDE = "override"
    UNKNOWN = "unknown"
    NOTE = "note"
    PIN = "pin"
    UNPIN = "unpin"
    UNDO = "undo"
    IMPORT = "import"  # a grammar read into the project
    RESTORE = "restore"  # a backup replaced the project
    RESOLUTION = "resolution"  # a disagreement between two coders resolved
    LANGUAGE = "language"
    BATCH_IMPORT = "batch import"  # model answers from a batch file
    CLASSIFY = "classify"  # a model answer asked for in the window
    OUTSIDE = "outside"  # another process (the CLI beside the window) wrote the project


def _nothing() -> Mapping[str, Decision | None]:
    return MappingProxyType({})


ANSWER_ACTS = frozenset({Act.BATCH_IMPORT, Act.CLASSIFY})  # acts that store model answers, not decisions
_VALUE_ACTS = frozenset({Act.CODE, Act.ACCEPT, Act.OVERRIDE, Act.UNKNOWN, Act.UNDO, Act.RESOLUTION})


@dataclass(frozen=True)
class ProjectChange:
    """What one act changed.  ``whole_project``: anything may have changed, every screen re-reads all it shows."""

    act: Act
    features: frozenset[str] = frozenset()  # features whose decisions (or model answers) changed
    statuses: bool = False  # values or statuses changed: the coded marks, the counts, the pass's filter
    pins: bool = False  # pinned evidence of ``features`` changed
    notes: bool = False
    language: bool = False
    documents: bool = False  # grammars were added
    whole_project: bool = False
    decisions: tuple[Decision, ...] = ()  # the rows the act appended, oldest first (the pass's Ctrl+Z needs them)
    restored: Mapping[str, Decision | None] = field(default_factory=_nothing)  # undo: feature -> what counts again
    answers: frozenset[int] = frozenset()  # ids of the model answers the act stored (tells them from another's)

    def touches(self, feature_id: str | None) -> bool:
        """True when what a screen shows of ``feature_id`` may have changed."""
        return feature_id is not None and (self.whole_project or feature_id in self.features)

    @property
    def values_changed(self) -> bool:
        """Values or statuses changed somewhere: marks, counts and the profile need a re-read."""
        return self.statuses or self.whole_project

    @property
    def empty(self) -> bool:
        return not (self.features or self.language or self.documents or self.whole_project)

    def merged(self, other: ProjectChange) -> ProjectChange:
        """One record for two changes seen together (two outside commits in one look): the union of both."""
        return ProjectChange(
            self.act if self.act == other.act else Act.OUTSIDE, self.features | other.features,
            self.statuses or other.statuses, self.pins or other.pins, self.notes or other.notes,
            self.language or other.language, self.documents or other.documents,
            self.whole_project or other.whole_project, self.decisions + other.decisions,
            MappingProxyType({**self.restored, **other.restored}), self.answers | other.answers)


def decided(act: Act | str, rows: Iterable[Decision], restored: Mapping[str, Decision | None] | None = None
            ) -> ProjectChange:
    """The record of an act that appended decision rows: what they say changed (an undo changes everything of them)."""
    rows = tuple(rows)
    kind = Act(act)
    features = frozenset(r.feature_id for r in rows) | frozenset(restored or {})
    undoing = kind == Act.UNDO or any(r.action == "undo" for r in rows)
    values = undoing or kind in _VALUE_ACTS or any(r.action in _VALUE_ACTS for r in rows)
    pins = undoing or any(r.action in ("pin", "unpin") for r in rows) or values
    notes = undoing or any(r.action == "note" for r in rows) or values
    return ProjectChange(kind, features, statuses=values, pins=pins, notes=notes, decisions=rows,
                         restored=MappingProxyType(dict(restored or {})))


def language_set() -> ProjectChange:
    """The language (name, Glottocode) of the project was set."""
    return ProjectChange(Act.LANGUAGE, language=True)


def grammar_added() -> ProjectChange:
    """A grammar was read into the project: new paragraphs, perhaps a guessed language."""
    return ProjectChange(Act.IMPORT, documents=True, language=True)


def project_restored() -> ProjectChange:
    """A backup replaced the project: anything may differ."""
    return ProjectChange(Act.RESTORE, whole_project=True, statuses=True, pins=True, notes=True, language=True,
                         documents=True)


def answers_imported(feature_ids: Iterable[str]) -> ProjectChange:
    """Model answers were stored for these features (a batch file): their "predicted" status changed."""
    return ProjectChange(Act.BATCH_IMPORT, frozenset(feature_ids), statuses=True)


def classified(feature_ids: Iterable[str], answers: Iterable[int] = ()) -> ProjectChange:
    """The model answered these features in the window (a feature and the parts of a multi-label one).

    ``answers``: the ids of the rows it stored, so that another program's answer to the same feature,
    committed in between, is still found as theirs (none: an answer that came from the cache or
    whose ids are unknown; the watch then goes by feature).
    """
    return ProjectChange(Act.CLASSIFY, frozenset(feature_ids), statuses=True, answers=frozenset(answers))
