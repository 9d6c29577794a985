"""The linguist's own coding in the window: values by hand, "?", notes, pins, undo, and the coding pass.

Why a controller beside :class:`gui.features.feature_controller.FeatureController`: the feature controller
finds evidence and asks the model; this one records what the coder of record decides, whether or
not a model ever answered, through :mod:`core.coding` (append-only decisions, so Undo is exact
and the history is complete).  It keeps the pins of the chosen feature in the shared
:class:`gui.common.window_state.WindowState` (pinned paragraphs are listed first and drawn in their own
style).  The coding pass (steps, look-ahead, where it stopped) is its base class,
:class:`gui.coding.pass_controller.PassController`; what the panel shows is built without Qt
(:func:`gui.coding.coding_state.coding_view`).  Decisions are a few rows in one transaction, written
on the window's own connection; reading paragraphs for the click-to-pin index runs in the background
(:class:`gui.coding.page_index.PageIndex`).  It never touches a widget: panels present
:class:`CodingView` and :class:`PassView`.

A pass forgives: every act stored during it is kept (:class:`gui.coding.coding_state.PassActs`), so
Ctrl+Z takes back the value stored on the feature just left, and the one before, going back to
each feature (:func:`core.coding.coding_pass.undo_act` refuses when someone else decided it
since); and where the pass stood (set, filter, feature) is kept in the app's settings under the
project's path, so reopening the project offers to continue it.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from core import coding
from core.coding.coding_pass import ActUndone, undo_act
from core.coding.feature_sets import list_feature_lists
from core.coding.locate import ParagraphLocator
from core.coding.lookahead import with_pinned
from core.errors import Cancelled, GrammarLensError
from core.models import Paragraph
from gui.coding.coding_state import (
    CodingView,
    PassAct,
    PassView,
    coded_marks,
    coding_view,
    nothing_left_text,
    pin_menu_text,
    refused_text,
    undone_text,
)
from gui.coding.pass_controller import PassController
from gui.common.operations import OperationRunner
from gui.common.settings import AppSettings
from gui.common.window_state import WindowState
from gui.features.feature_controller import FeatureController
from gui.project.project_controller import ProjectController

__all__ = ["CodingController", "CodingView", "PassView"]


class CodingController(PassController):
    """Values, notes, pins and undo of ``state.feature``; the coding pass and its look-ahead (the base class)."""

    decisionChanged = Signal(object)  # CodingView
    pinsChanged = Signal()  # state.pins (and pinned rows of state.hits) changed: redraw list and page
    codedChanged = Signal(object)  # feature id -> "✔" (a value) or "?" for every decided feature
    stored = Signal(str)  # an act was stored: code, accept, override, unknown, note, pin, unpin, undo

    def __init__(self, state: WindowState, runner: OperationRunner, projects: ProjectController,
                 features: FeatureController, settings: Callable[[], AppSettings],
                 parent: QObject | None = None) -> None:
        super().__init__(state, runner, projects, settings, parent)
        self.features = features
        self.name_asker: Callable[[], object] | None = None  # the window's "who is coding?", at the first act
        features.use_prefetched(self.lookahead.hits)  # moving on in a pass shows evidence retrieved ahead
        features.preparation.use_upcoming(self.lookahead.upcoming)  # their paragraphs are embedded first
        projects.opened.connect(self._project_opened)
        projects.closed.connect(self._project_closed)
        projects.documentsChanged.connect(lambda _id: self._reload_project_data())
        features.featureChanged.connect(self._feature_changed)
        features.evidenceChanged.connect(self._evidence_changed)
        features.classificationFinished.connect(self._model_answered)
        # a stored model answer shown for the feature: mark its value in the list ("← model")
        features.valueChanged.connect(lambda view: view is not None and self.decisionChanged.emit(self.view()))

    @property
    def locator(self) -> ParagraphLocator | None:
        """Every paragraph's rectangles in the project (None until :meth:`read_page_index` read them)."""
        return self.pages.locator

    def read_page_index(self, then: Callable[[], object] | None = None) -> None:
        """Read the paragraph rectangles in the background (a pass or the first click on a page), then ``then``."""
        self.pages.read(then)

    # ================================================================== project
    def _project_opened(self, _path: str) -> None:
        self._reload_project_data()
        project = self.projects.project
        saved = tuple(sorted(list_feature_lists(project))) if project is not None else ()
        resume = self.session.project_opened(saved, self._recall)  # offered on the bar; Ctrl+K continues it
        self._emit_pass()
        self._emit_coded()
        if resume is not None:
            self._say(resume.offer())

    def _project_closed(self) -> None:
        self.session.project_closed()
        self.codedChanged.emit({})
        self.lookahead.set_project(None)
        self.pages.forget(waiting=True)
        self._emit_pass()

    def _reload_project_data(self) -> None:
        """Forget retrieved-ahead evidence and the paragraph rectangles (a project opened, a grammar was added)."""
        self.lookahead.set_project(self.state.project_path)
        self.pages.forget()

    # ================================================================== the chosen feature
    def _feature_changed(self) -> None:
        self._show_decision(emit_pins=False)
        if self.pass_active:
            self._emit_pass()  # where the feature on screen lies in the pass

    def _evidence_changed(self) -> None:
        """New evidence: remember it for coming back, add pinned paragraphs it lacks, look ahead."""
        feature = self.state.feature
        if feature is not None and self.state.evidence_known and self.state.classification is None:
            retrieved = [h for h in self.state.hits if h.rank > 0]
            if retrieved:
                self.lookahead.put(feature, retrieved)
        self._add_pinned_rows()
        self._look_ahead()

    def _model_answered(self) -> None:
        feature = self.state.feature
        if feature is not None and self.session.refresh(self.projects.project, [feature.id]):
            self._emit_pass()
        self._show_decision()

    def codable_id(self) -> str | None:
        """The chosen feature's id if it can be coded as a whole (not the polar-question complex)."""
        feature = self.state.feature
        return feature.id if feature is not None and not feature.multi_label else None

    def view(self) -> CodingView:
        """The chosen feature's current decision and history, as the panel shows them."""
        return coding_view(self.projects.project, self.state.feature, self.state.classification)

    def _show_decision(self, emit_pins: bool = True) -> None:
        view = self.view()
        pins = {p.paragraph_id for p in view.pins if p.paragraph_id is not None}
        changed = pins != self.state.pins
        self.state.set_pins(sorted(pins))
        self.decisionChanged.emit(view)
        if changed or emit_pins:
            self._add_pinned_rows()
            self.pinsChanged.emit()

    def _add_pinned_rows(self) -> None:
        """Pinned paragraphs the retrieval did not find join the evidence list (rank 0: not ranked)."""
        project = self.projects.project
        if project is None:
            return
        hits = with_pinned(project, self.state.hits, self.state.pins)
        if [h.paragraph.id for h in hits] != [h.paragraph.id for h in self.state.hits]:
            self.state.hits = hits

    # ================================================================== decisions
    def _act(self, action: str, run: Callable[[], object], done: str) -> list[coding.Decision] | None:
        """Store one act; its rows (None when refused).  During a pass the act joins the pass's acts."""
        project, feature = self.projects.project, self.state.feature
        if project is None or feature is None:
            self.message.emit("Pick a feature first.", 4000)
            return None
        try:
            result = run()
        except Cancelled:  # the first act's question ended by the window closing: no act, nothing to report
            return None
        except GrammarLensError as exc:
            self.failed.emit("Not saved", exc)
            return None
        rows = [r for r in (result if isinstance(result, list) else [result]) if isinstance(r, coding.Decision)]
        if self.pass_active and action != "undo" and rows:
            self.session.acts.push(PassAct(feature.id, rows[0].action, tuple(rows)))
        self._after_change(action, done)
        return rows

    def _after_change(self, action: str, done: str) -> None:
        feature = self.state.feature
        if self.pass_active and feature is not None:
            self.session.refresh(self.projects.project, feature.multi_label or (feature.id,))
            self._emit_pass()
        self._show_decision()
        self._emit_coded()
        if done:
            self.message.emit(done, 4000)
        self.stored.emit(action)

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
        fid = self.codable_id()
        if fid is None:
            self.message.emit("Pick a single feature (the polar-question complex is coded as its parts).", 5000)
            return False
        rows = self._act("code", lambda: coding.code(self.projects.project, fid, value, note=note,
                                                     reviewer=self._reviewer()), "")
        if rows:
            self.message.emit(f"{fid}: {rows[0].label} ({rows[0].status}).", 4000)
        return rows is not None

    def confirm(self, value: str) -> bool:
        """Store ``value`` for the feature on screen and, in a pass, move on to the next one."""
        if not self.set_value(value):
            return False
        if self.pass_active:
            self.next()
        return True

    def accept(self) -> bool:
        """Accept the model's value: it counts, and the paragraphs the model cited become pins (unless pinned)."""
        classification = self.state.classification
        if classification is None:
            self.message.emit("There is no model answer to accept; choose a value instead.", 5000)
            return False
        return self._act("accept", lambda: coding.accept(self.projects.project, classification.id,
                                                         reviewer=self._reviewer()), "Accepted.") is not None

    def add_note(self, text: str) -> bool:
        feature, classification = self.state.feature, self.state.classification
        if feature is None or not text.strip():
            return False
        return self._act("note", lambda: coding.add_note(
            self.projects.project, feature.id, text.strip(), reviewer=self._reviewer(),
            classification_id=classification.id if classification is not None else None), "Note added.") is not None

    def undo(self) -> bool:
        """Restore the chosen feature's decision before its latest one (value, note and pins together)."""
        fid = self.codable_id()
        if fid is None:
            return False
        latest = coding.current(self.projects.project, fid)
        if latest is None:
            self.message.emit(f"Nothing to undo: {fid} has no decision yet.", 5000)
            return False
        restored: list = []
        if self._act("undo", lambda: restored.append(coding.undo(self.projects.project, fid,
                                                                 reviewer=self._reviewer())), "") is None:
            return False
        self._say(undone_text(PassAct(fid, latest.action, (latest,)), ActUndone(True, restored={fid: restored[0]})))
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
        while (act := self.session.acts.pop()) is not None:
            try:
                result = undo_act(project, act.rows, reviewer=self._reviewer())
            except GrammarLensError as exc:
                self.session.acts.push(act)
                self.failed.emit("Not undone", exc)
                return False
            if not result.already_undone:
                break
        if act is None:
            fid = self.codable_id()
            self._say(nothing_left_text(fid, fid is not None and coding.current(project, fid) is not None), True)
            return False
        if not result.undone:
            self._say(refused_text(act, result), True)
            return False
        self.session.refresh(project, list(result.restored))
        if self.state.feature is None or self.state.feature.id != act.feature_id:
            self.featureRequested.emit(act.feature_id)  # back to the feature the act was on
        self._after_change("undo", "")
        self._say(undone_text(act, result))
        return True

    # ------------------------------------------------------------------ pins
    def toggle_pin(self, paragraph: Paragraph | None) -> bool:
        """Pin a paragraph to the chosen feature, or unpin it when it is pinned already."""
        fid = self.codable_id()
        if paragraph is None or fid is None:
            self.message.emit("Choose a paragraph of a single feature to pin.", 4000)
            return False
        project, reviewer = self.projects.project, self._reviewer()
        if paragraph.id in self.state.pins:
            return self._act("unpin", lambda: coding.unpin(project, fid, [paragraph.id], reviewer=reviewer),
                             f"Unpinned the paragraph on p. {paragraph.page_label}.") is not None
        return self._act("pin", lambda: coding.pin(project, fid, [paragraph.id], reviewer=reviewer),
                         f"Pinned the paragraph on p. {paragraph.page_label}.") is not None

    def pin_page(self, label: str) -> bool:
        """Pin a printed page the retrieval never found."""
        fid = self.codable_id()
        if fid is None or not label.strip():
            return False
        return self._act("pin", lambda: coding.pin(self.projects.project, fid, page_labels=[label.strip()],
                                                   reviewer=self._reviewer()),
                         f"Pinned p. {label.strip()}.") is not None

    def unpin(self, pin: coding.Pin) -> bool:
        fid = self.codable_id()
        if fid is None:
            return False
        ids, labels = ([pin.paragraph_id], []) if pin.paragraph_id is not None else ([], [pin.page_label])
        return self._act("unpin", lambda: coding.unpin(self.projects.project, fid, ids, labels,
                                                       reviewer=self._reviewer()),
                         f"Unpinned p. {pin.page_label}.") is not None

    def paragraph_at(self, pdf_page: int, x: float, y: float) -> Paragraph | None:
        """The paragraph of the grammar on screen under a point of a PDF page (None until the index is read)."""
        return self.pages.at(pdf_page, x, y)

    def pin_label(self, pdf_page: int, x: float, y: float) -> str | None:
        """The PDF view's context-menu text for a point: pin or unpin the paragraph there (None: no paragraph)."""
        paragraph = self.paragraph_at(pdf_page, x, y)
        fid = self.codable_id()
        if paragraph is None or fid is None:
            return None
        return pin_menu_text(paragraph, paragraph.id in self.state.pins, fid)

    def pin_at(self, pdf_page: int, x: float, y: float) -> bool:
        """Pin (or unpin) the paragraph at a page point; before the rectangles are read, once they are."""
        if self.locator is None:
            self.read_page_index(lambda: self.pin_at(pdf_page, x, y))
            return False
        paragraph = self.paragraph_at(pdf_page, x, y)
        if paragraph is None:
            self.message.emit("No paragraph there.", 4000)
            return False
        return self.toggle_pin(paragraph)

    def _emit_coded(self) -> None:
        self.codedChanged.emit(coded_marks(self.projects.project))

