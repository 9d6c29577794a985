"""The linguist's own coding in the window: values by hand, "?", notes, pins and undo, as acts.

Why a controller beside :class:`gui.features.feature_controller.FeatureController`: the feature controller
finds evidence and asks the model; this one records what the coder of record decides, whether or
not a model ever answered, through :mod:`core.coding.acts` (append-only decisions, so Undo is exact
and the history is complete).  Every act runs through the project's one
:class:`gui.common.changes.ProjectChanges` runner and ends in one :class:`core.changes.ProjectChange`;
the screens update from that record (``changed(record, initiator)``), not from signals of this
class, so an act of the CLI beside the window reaches them the same way.

It is composed of two objects with one job each, and does the third itself:

* ``passes`` (:class:`gui.coding.pass_controller.PassController`): the coding pass, its steps,
  look-ahead and where it stopped; the pass bar talks to it.
* ``evidence`` (:class:`gui.coding.pinned_evidence.PinnedEvidence`): the feature on screen's
  decision and pins, re-read on a new feature, new evidence or a change record naming it, and
  where each paragraph lies on the page.
* the acts (this class): each checks what it needs, asks the coder's name at the first act, runs
  through the runner and, during a pass, keeps the act for Ctrl+Z.

A pass forgives: every act stored during it is kept (:class:`gui.coding.coding_state.PassActs`), so
Ctrl+Z takes back the value stored on the feature just left, and the one before, going back to
each feature (:func:`core.coding.coding_pass.undo_act` refuses when someone else decided it since).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from core import coding
from core.changes import Act, ProjectChange
from core.coding import acts
from core.coding.coding_pass import ActUndone
from core.errors import GrammarLensError
from core.models import Paragraph
from core.store.database import ProjectDatabase
from gui.coding.coding_state import (
    CodingView,
    PassAct,
    PassView,
    coded_marks,
    nothing_left_text,
    outside_text,
    refused_text,
    undone_text,
)
from gui.coding.pass_controller import PassController
from gui.coding.pinned_evidence import PinnedEvidence
from gui.common.operations import OperationRunner
from gui.common.settings import AppSettings
from gui.common.window_state import WindowState
from gui.features import review
from gui.features.feature_controller import FeatureController
from gui.project.project_controller import ProjectController

__all__ = ["CodingController", "CodingView", "PassView", "coded_marks"]


class CodingController(QObject):
    """The coder's acts on ``state.feature``; ``passes`` and ``evidence`` do the pass and the feature on screen."""

    failed = Signal(str, object)
    message = Signal(str, int)
    notice = Signal(str, bool)  # what the pass bar says (text, true for a slip the coder should see)

    def __init__(self, state: WindowState, runner: OperationRunner, projects: ProjectController,
                 features: FeatureController, settings: Callable[[], AppSettings],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state, self.projects, self.features, self.settings = state, projects, features, settings
        self.changes = projects.changes
        self.passes = PassController(state, runner, projects, settings, self)
        self.evidence = PinnedEvidence(state, runner, projects, self)
        self.passes.read_pages = self.evidence.read_page_index
        for part in (self.passes,):
            part.message.connect(self.message)
            part.failed.connect(self.failed)
            part.notice.connect(self.notice)
        self.name_asker: Callable[[], object] | None = None  # the window's "who is coding?", at the first act
        features.use_prefetched(self.passes.lookahead.hits)  # moving on in a pass shows evidence retrieved ahead
        features.preparation.use_upcoming(self.passes.lookahead.upcoming)  # their paragraphs are embedded first
        features.preparation.featuresReady.connect(self.passes.lookahead.features_ready)  # then re-ranked at once
        features.preparation.use_seconds_left(self.passes.lookahead.seconds_left)  # ... those it can do in time
        projects.opened.connect(self._project_opened)
        projects.closed.connect(self._project_closed)
        projects.documentsChanged.connect(lambda _id: self._forget_retrieved())
        self.changes.changed.connect(self._project_changed)
        features.featureChanged.connect(self._feature_changed)
        features.evidenceChanged.connect(self._evidence_changed)
        features.classificationFinished.connect(self._model_answered)
        # a stored model answer shown for the feature: mark its value in the panel ("← model")
        features.valueChanged.connect(self._model_answer_shown)

    @property
    def pass_active(self) -> bool:
        return self.passes.pass_active

    # ================================================================== what happens around the acts
    def _project_opened(self, _path: str) -> None:
        self._forget_retrieved()
        self.passes.project_opened()

    def _project_closed(self) -> None:
        self.passes.project_closed()
        self.evidence.pages.forget(waiting=True)

    def _forget_retrieved(self) -> None:
        """Forget retrieved-ahead evidence and the paragraph rectangles (a project opened, a grammar was added)."""
        self.passes.lookahead.set_project(self.state.project_path)
        self.evidence.pages.forget()

    def _feature_changed(self) -> None:
        self.evidence.show_decision(emit_pins=False)
        self.passes.feature_shown()

    def _evidence_changed(self) -> None:
        """New evidence: remember it for coming back, add pinned paragraphs it lacks, look ahead."""
        feature = self.state.feature
        if feature is not None and self.state.evidence_known and self.state.classification is None:
            retrieved = [h for h in self.state.hits if h.rank > 0]
            if retrieved:
                self.passes.lookahead.put(feature, retrieved)
        self.evidence.add_pinned_rows()
        self.passes.look_ahead()

    def _model_answer_shown(self, view: object) -> None:
        if view is not None:
            self.evidence.show_decision(emit_pins=False)

    def _model_answered(self) -> None:
        if self.state.feature is not None:
            self.passes.refresh_feature(self.state.feature.id)
        self.evidence.show_decision()

    def _project_changed(self, change: ProjectChange, initiator: object) -> None:
        """One record, whoever made it: the pass re-reads what it names, then the feature on screen."""
        self.passes.project_changed(change)
        self.evidence.project_changed(change)
        if initiator is None and (said := outside_text(change)):  # another program decided or stored answers
            self.message.emit(said, 8000)

    # ================================================================== the acts
    def _act(self, run: Callable[[ProjectDatabase, str], ProjectChange], done: str = "") -> ProjectChange | None:
        """Run one act on the open project (``run(project, reviewer)``); its record, None when refused.

        During a pass the act joins the pass's acts (Ctrl+Z takes it back).
        """
        project, feature = self.projects.project, self.state.feature
        if project is None or feature is None:
            self.message.emit("Pick a feature first.", 4000)
            return None
        change = self.changes.run(lambda: run(project, self._reviewer()), self, failed=self.failed.emit)
        if change is None:
            return None
        if self.pass_active and change.act != Act.UNDO and change.decisions:
            self.passes.session.acts.push(PassAct(feature.id, change.decisions[0].action, change.decisions))
        if done:
            self.message.emit(done, 4000)
        return change

    def act_reviewer(self) -> str:
        """Who an act is stamped with, asked at the first act: the window's other acts (a queue's resolution) too."""
        return self._reviewer()

    def _reviewer(self) -> str:
        """The act's coder; the first act of someone who never gave a name asks for it (once a session)."""
        if self.name_asker is not None and not self.settings().reviewer_known:
            asker, self.name_asker = self.name_asker, None  # a question set aside is not asked again
            asker()
        return self.settings().reviewer_name

    def set_value(self, value: str, note: str | None = None) -> bool:
        """Code the chosen feature by hand: a code or label of its set, or "?" (with or without a model answer)."""
        fid = self.evidence.codable_id()
        if fid is None:
            self.message.emit("Pick a single feature (the polar-question complex is coded as its parts).", 5000)
            return False
        change = self._act(lambda project, who: acts.code(project, fid, value, note=note, reviewer=who))
        if change is not None:
            row = change.decisions[0]
            self.message.emit(f"{fid}: {row.label} ({row.status}).", 4000)
        return change is not None

    def confirm(self, value: str) -> bool:
        """Store ``value`` for the feature on screen and, in a pass, move on to the next one."""
        if not self.set_value(value):
            return False
        if self.pass_active:
            self.passes.next()
        return True

    def accept(self) -> bool:
        """Accept the model's value: it counts, and the paragraphs the model cited become pins (unless pinned)."""
        classification = self.state.classification
        if classification is None or classification.id is None:
            self.message.emit("There is no model answer to accept; choose a value instead.", 5000)
            return False
        cid, project = classification.id, self.projects.project
        newest = review.latest_classification(project, classification.feature_id) if project is not None else None
        if newest is not None and newest.id != cid:  # another program answered since: accept what was read
            self.changes.look()  # its record now, not at the next look: the panels show the newer answer
            self.message.emit(f"A newer model answer for {classification.feature_id} was stored by another program; "
                              "it is shown now. Read it, then accept again.", 8000)
            return False
        return self._act(lambda project, who: acts.accept(project, cid, reviewer=who), "Accepted.") is not None

    def add_note(self, text: str) -> bool:
        feature, classification = self.state.feature, self.state.classification
        if feature is None or not text.strip():
            return False
        cid = classification.id if classification is not None else None
        return self._act(lambda project, who: acts.note(project, feature.id, text.strip(), reviewer=who,
                                                        classification_id=cid), "Note added.") is not None

    def undo(self) -> bool:
        """Restore the chosen feature's decision before its latest one (value, note and pins together)."""
        fid, project = self.evidence.codable_id(), self.projects.project
        if fid is None or project is None:
            return False
        latest = coding.current(project, fid)
        if latest is None:
            self.message.emit(f"Nothing to undo: {fid} has no decision yet.", 5000)
            return False
        change = self._act(lambda project, who: acts.undo(project, fid, reviewer=who))
        if change is None:
            return False
        self.passes.say(undone_text(PassAct(fid, latest.action, (latest,)), _undone(change)))
        return True

    def undo_last(self) -> bool:
        """Ctrl+Z in a pass: take back its latest act, on whichever feature it was, and show that feature again.

        Each press goes one act further back.  An act undone already (Undo under Your value) is
        skipped; one whose feature someone else decided since is refused, and nothing changes.
        Outside a pass this is :meth:`undo` of the feature on screen.
        """
        project = self.projects.project
        if not self.pass_active or project is None:
            return self.undo()
        session, reviewer = self.passes.session, self._reviewer()
        while (act := session.acts.pop()) is not None:
            try:
                result, change = acts.undo_pass_act(project, act.rows, reviewer=reviewer)
            except GrammarLensError as exc:  # the act stays for the next Ctrl+Z
                session.acts.push(act)
                self.failed.emit("Not undone", exc)
                return False
            if change is not None:
                self.changes.announce(change, self)
            if not result.already_undone:
                break
        if act is None:
            fid = self.evidence.codable_id()
            self.passes.say(nothing_left_text(fid, fid is not None and coding.current(project, fid) is not None), True)
            return False
        if not result.undone:
            self.passes.say(refused_text(act, result), True)
            return False
        if self.state.feature is None or self.state.feature.id != act.feature_id:
            self.passes.featureRequested.emit(act.feature_id)  # back to the feature the act was on
        self.passes.say(undone_text(act, result))
        return True

    # ------------------------------------------------------------------ pins
    def toggle_pin(self, paragraph: Paragraph | None) -> bool:
        """Pin a paragraph to the chosen feature, or unpin it when it is pinned already."""
        fid = self.evidence.codable_id()
        if paragraph is None or fid is None:
            self.message.emit("Choose a paragraph of a single feature to pin.", 4000)
            return False
        pid, label = paragraph.id, paragraph.page_label
        if pid in self.state.pins:
            return self._act(lambda project, who: acts.unpin(project, fid, [pid], reviewer=who),
                             f"Unpinned the paragraph on p. {label}.") is not None
        return self._act(lambda project, who: acts.pin(project, fid, [pid], reviewer=who),
                         f"Pinned the paragraph on p. {label}.") is not None

    def pin_page(self, label: str) -> bool:
        """Pin a printed page the retrieval never found."""
        fid, page = self.evidence.codable_id(), label.strip()
        if fid is None or not page:
            return False
        return self._act(lambda project, who: acts.pin(project, fid, page_labels=[page], reviewer=who),
                         f"Pinned p. {page}.") is not None

    def unpin(self, pin: coding.Pin) -> bool:
        fid = self.evidence.codable_id()
        if fid is None:
            return False
        ids, labels = ([pin.paragraph_id], []) if pin.paragraph_id is not None else ([], [pin.page_label])
        return self._act(lambda project, who: acts.unpin(project, fid, ids, labels, reviewer=who),
                         f"Unpinned p. {pin.page_label}.") is not None

    def pin_at(self, pdf_page: int, x: float, y: float) -> bool:
        """Pin (or unpin) the paragraph at a page point; before the rectangles are read, once they are."""
        if self.evidence.locator is None:
            self.evidence.read_page_index(lambda: self.pin_at(pdf_page, x, y))
            return False
        paragraph = self.evidence.paragraph_at(pdf_page, x, y)
        if paragraph is None:
            self.message.emit("No paragraph there.", 4000)
            return False
        return self.toggle_pin(paragraph)


def _undone(change: ProjectChange) -> ActUndone:
    """An undo's record as the text of :func:`gui.coding.coding_state.undone_text` reads it."""
    return ActUndone(True, restored=dict(change.restored))
