"""The linguist's own coding in the window: values by hand, "?", notes, pins, undo, and the coding pass.

Why a controller beside :class:`gui.features.feature_controller.FeatureController`: the feature controller
finds evidence and asks the model; this one records what the coder of record decides, whether or
not a model ever answered, through :mod:`core.coding` (append-only decisions, so Undo is exact
and the history is complete).  It keeps the pins of the chosen feature in the shared
:class:`gui.window.window_state.WindowState` (pinned paragraphs are listed first and drawn in their own
style), steps through a :class:`core.coding.CodingPass`, and keeps a :class:`gui.features.lookahead.LookAhead`
retrieving the features coming next.  Decisions are a few rows in one transaction, written on
the window's own connection; reading paragraphs for the click-to-pin index runs in the background.
It never touches a widget: panels present :class:`CodingView` and :class:`PassView`.

A pass forgives: every act stored during it is kept (:class:`gui.coding.coding_state.PassActs`), so
Ctrl+Z takes back the value stored on the feature just left, and the one before, going back to
each feature (:func:`core.coding.coding_pass.undo_act` refuses when someone else decided it
since); and where the pass stood (set, filter, feature) is kept in the app's settings under the
project's path, so reopening the project offers to continue it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from PySide6.QtCore import QObject, Signal

from core import coding
from core.catalog import load_catalog
from core.coding.coding_pass import FILTER_LABELS, ActUndone, undo_act
from core.coding.locate import ParagraphLocator
from core.errors import GrammarLensError
from core.models import Paragraph
from core.retrieval import Hit
from core.store import open_project
from core.store.repository import get_paragraphs, list_paragraphs
from gui.coding.coding_session import PassSession
from gui.coding.coding_state import (CodingView, PassAct, PassMemory, PassView, history_lines, nothing_left_text, refused_text,
                              status_line, undone_text)
from gui.features.feature_controller import FeatureController
from gui.features.lookahead import AHEAD, LookAhead
from gui.common.operations import Operation, OperationRunner
from gui.project.project_controller import ProjectController
from gui.common.settings import AppSettings
from gui.window.window_state import WindowState

__all__ = ["CodingController", "CodingView", "PassView"]


class CodingController(QObject):
    """Values, notes, pins and undo of ``state.feature``; the coding pass and its look-ahead."""

    decisionChanged = Signal(object)  # CodingView
    pinsChanged = Signal()  # state.pins (and pinned rows of state.hits) changed: redraw list and page
    passChanged = Signal(object)  # PassView
    codedChanged = Signal(object)  # feature id -> "✔" (a value) or "?" for every decided feature
    featureRequested = Signal(str)  # the pass moved: show this feature
    referencesNeeded = Signal()  # "disagreeing" was chosen before any WALS/Grambank values were read
    stored = Signal(str)  # an act was stored: code, accept, override, unknown, note, pin, unpin, undo
    failed = Signal(str, object)
    message = Signal(str, int)
    notice = Signal(str, bool)  # what the pass bar says (text, true for a slip the coder should see)

    def __init__(self, state: WindowState, runner: OperationRunner, projects: ProjectController,
                 features: FeatureController, settings: Callable[[], AppSettings],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state, self.runner, self.projects, self.features = state, runner, projects, features
        self.settings = settings
        self.lookahead = LookAhead(runner, settings, self)
        features.prefetched = self.lookahead.hits
        self.locator: ParagraphLocator | None = None
        self._locating: Operation | None = None
        self._after_index: list[Callable[[], object]] = []  # what waits for the paragraph rectangles
        self.session = PassSession()  # set, filter, the running pass, its acts (plain Python)
        self.pass_started_at: float | None = None
        projects.opened.connect(self._project_opened)
        projects.closed.connect(self._project_closed)
        projects.documentsChanged.connect(lambda _id: self._reload_project_data())
        features.featureChanged.connect(self._feature_changed)
        features.evidenceChanged.connect(self._evidence_changed)
        features.classificationFinished.connect(self._model_answered)
        # a stored model answer shown for the feature: mark its value in the list ("← model")
        features.valueChanged.connect(lambda view: view is not None and self.decisionChanged.emit(self.view()))

    # ================================================================== project
    def _project_opened(self, _path: str) -> None:
        self._reload_project_data()
        from core.coding.feature_sets import list_feature_lists

        project = self.projects.project
        saved = tuple(sorted(list_feature_lists(project))) if project is not None else ()
        resume = self.session.project_opened(saved, self._recall)  # offered on the bar; Ctrl+K continues it
        self._emit_pass()
        self._emit_coded()
        if resume is not None:
            self._say(resume.offer())

    def _project_closed(self) -> None:
        self.session.project_closed()
        self.locator, self._after_index = None, []
        self.codedChanged.emit({})
        self.lookahead.set_project(None)
        if self._locating is not None:
            self._locating.cancel()
        self._emit_pass()

    def _reload_project_data(self) -> None:
        """Forget retrieved-ahead evidence and the paragraph rectangles (a project opened, a grammar was added)."""
        self.lookahead.set_project(self.state.project_path)
        self.locator = None
        if self._locating is not None:
            self._locating.cancel()

    def read_page_index(self, then: Callable[[], object] | None = None) -> None:
        """Read every paragraph's rectangles in the background (for clicks on the page), then call ``then``.

        Not done when a project opens: the first retrieval of a session competes for the same CPU,
        and most sessions never pin from the page.  A pass or the first click on a page starts it.
        """
        path = self.state.project_path
        if path is None:
            return
        if self.locator is not None:
            then() if then is not None else None
            return
        if then is not None:
            self._after_index.append(then)
        if self._locating is not None and self._locating.running:
            return

        def read(progress) -> ParagraphLocator:
            with open_project(path) as project:
                return ParagraphLocator(list_paragraphs(project))

        def done(locator: ParagraphLocator) -> None:
            if path == self.state.project_path:
                self.locator = locator
                waiting, self._after_index = self._after_index, []
                for callback in waiting:
                    callback()

        self._locating = (Operation(self.runner, read).success(done).failure(lambda _exc: None)
                          .run_in_background())

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
        feature, project = self.state.feature, self.projects.project
        if feature is None or project is None:
            return CodingView(None, why_not="Pick a feature on the left, or start a coding pass (Ctrl+K).")
        if feature.multi_label:
            return CodingView(feature, why_not=f"{feature.id} is coded as its {len(feature.multi_label)} Grambank "
                                               f"parts: {', '.join(feature.multi_label)}. Pick one, or use a pass.")
        current = coding.current(project, feature.id)
        rows = coding.history(project, feature.id)
        model = self.state.classification
        model_code = None
        if model is not None:
            model_code = next((v.code for v in getattr(model, "values", []) if v.feature_id == feature.id), None)
        options = tuple(coding.value_choices(feature.id))  # keys are the codes when they are digits
        return CodingView(feature, True, "", options, current.value if current else None, status_line(current),
                          (current.note or "") if current else "", current.pins if current else (),
                          tuple(history_lines(rows)), bool(current), model_code)

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
        hits = [h for h in self.state.hits if h.rank > 0 or h.paragraph.id in self.state.pins]
        listed = {h.paragraph.id for h in hits}
        missing = [pid for pid in self.state.pins if pid not in listed]
        if missing:
            hits += [Hit(rank=0, score=0.0, paragraph=p) for p in get_paragraphs(project, missing)]
        if len(hits) != len(self.state.hits) or missing:
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

    def _reviewer(self) -> str:
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

    def _say(self, text: str, warning: bool = False) -> None:
        """Tell the coder, on the pass bar and in the status bar."""
        self.message.emit(text, 8000)
        self.notice.emit(text, warning)

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
        document = self.state.document
        if self.locator is None or document is None:
            return None
        return self.locator.at(document.id, pdf_page, x, y)

    def pin_label(self, pdf_page: int, x: float, y: float) -> str | None:
        """The PDF view's context-menu text for a point: pin or unpin the paragraph there (None: no paragraph)."""
        paragraph = self.paragraph_at(pdf_page, x, y)
        fid = self.codable_id()
        if paragraph is None or fid is None:
            return None
        verb = "Unpin" if paragraph.id in self.state.pins else "Pin"
        return f"{verb} this paragraph (p. {paragraph.page_label}) {'from' if verb == 'Unpin' else 'to'} {fid}"

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
        from core.store.decisions import current_decisions

        project = self.projects.project
        decided = current_decisions(project) if project is not None else {}
        self.codedChanged.emit({fid: ("?" if d.code == coding.UNKNOWN_CODE else "✔")
                                for fid, d in decided.items() if d.has_value})

    # ================================================================== the coding pass
    @property
    def pass_active(self) -> bool:
        return self.session.running is not None

    def start_pass(self, feature_set: str | None = None, filter: str | None = None) -> bool:
        """Open a pass over a feature set (paper, grambank, wals, a saved list) and show its first feature.

        The pass left in this project continues where it stood when it is over the same set.
        """
        project = self.projects.project
        if project is None:
            self.message.emit("Open a project first.", 4000)
            return False
        current = self.state.feature.id if self.state.feature is not None else None
        try:
            target = self.session.start(project, feature_set, filter, current)
        except GrammarLensError as exc:
            self.failed.emit("Cannot start the coding pass", exc)
            return False
        self.read_page_index()  # P on the page pins at once during a pass
        self._emit_pass()
        if target is None:
            self.message.emit(f"No feature of {self.session.feature_set} is {FILTER_LABELS[self.session.filter]}.",
                              5000)
        elif target != current:
            self.featureRequested.emit(target)
        else:
            self._look_ahead()
        return True

    def stop_pass(self) -> None:
        """End the pass: its acts are no longer undone by Ctrl+Z, and the project no longer offers to continue it."""
        self.session.stop()
        self.lookahead.cancel()
        group = self._memory_group()
        if group is not None:
            self.projects.store.remove(group)
        self._emit_pass()

    def set_filter(self, filter: str) -> None:
        session = self.session
        if filter == coding.DISAGREE and not session.references:
            session.disagree_waiting = True  # applied by set_references once the values are read
            self.referencesNeeded.emit()
            self._emit_pass()  # the bar shows the filter in force
            return
        session.disagree_waiting = False
        session.wanted_filter = filter
        if self.pass_active:
            self.start_pass(session.feature_set, filter)
        else:
            self._emit_pass()  # the bar shows the filter the next pass uses

    def set_feature_set(self, feature_set: str) -> None:
        self.session.wanted_set = feature_set
        if self.pass_active:
            self.start_pass(feature_set, self.session.filter)

    def set_references(self, references: dict | None) -> None:
        """WALS/Grambank values of the language (empty: none read), for the 'disagreeing' filter."""
        session = self.session
        session.references = dict(references or {})
        if session.references and session.disagree_waiting:
            self.set_filter(coding.DISAGREE)
            return
        if not session.references and self.pass_active and session.filter == coding.DISAGREE:
            session.wanted_filter = coding.ALL
            self.start_pass(session.feature_set, coding.ALL)
            return
        if self.pass_active:
            self.start_pass()
        else:
            self._emit_pass()

    def next(self) -> str | None:
        return self._step(lambda p, cur: p.next(cur), "This is the last feature of the pass.")

    def previous(self) -> str | None:
        return self._step(lambda p, cur: p.previous(cur), "This is the first feature of the pass.")

    def next_uncoded(self) -> str | None:
        return self._step(lambda p, cur: p.next_uncoded(cur), "Every feature of the pass is coded.")

    def confirm(self, value: str) -> bool:
        """Store ``value`` for the feature on screen and, in a pass, move on to the next one."""
        if not self.set_value(value):
            return False
        if self.pass_active:
            self.next()
        return True

    def _step(self, move: Callable[[coding.CodingPass, str | None], str | None], at_end: str) -> str | None:
        if not self.pass_active and not self.start_pass():
            return None
        assert self.session.running is not None
        current = self.state.feature.id if self.state.feature is not None else None
        target = move(self.session.running.coding_pass, current)
        if target is None:
            self.message.emit(at_end, 4000)
            return None
        import time

        self.pass_started_at = time.perf_counter()
        self.featureRequested.emit(target)
        return target

    def best_page_ahead(self, feature_id: str) -> int | None:
        """The PDF page a retrieved-ahead feature will open on (its first pin or top hit in the grammar on screen)."""
        document = self.state.document
        hits = self.lookahead.hits(load_catalog().get(feature_id))
        if not hits or document is None:
            return None
        top = next((h for h in hits if h.paragraph.document_id == document.id), None)
        return min(r.pdf_page for r in top.paragraph.rects) if top is not None else None

    def _look_ahead(self) -> None:
        if not self.pass_active or self.state.feature is None:
            return
        catalog = load_catalog()
        upcoming = self.session.upcoming(self.state.feature.id, AHEAD)
        self.lookahead.prefetch([catalog.get(fid) for fid in upcoming])

    def pass_view(self) -> PassView:
        return self.session.view(self.state.feature.id if self.state.feature is not None else "")

    def _emit_pass(self) -> None:
        self._remember()
        self.passChanged.emit(self.pass_view())

    # ------------------------------------------------------------------ where the pass stands, per project
    def _memory_group(self) -> str | None:
        """The app settings' group of the open project's pass (None without a project or a settings store)."""
        path = self.state.project_path
        if path is None or getattr(self.projects, "store", None) is None:
            return None
        return PassMemory.group(Path(path))

    def _remember(self) -> None:
        """Keep the running pass's set, filter and feature for the next time the project opens."""
        group = self._memory_group()
        memory = self.session.memory(self.state.feature.id if self.state.feature is not None else "")
        if group is None or memory is None:
            return
        for name, value in memory.items().items():
            if value:  # a feature outside the set leaves the place as it was
                self.projects.store.setValue(f"{group}/{name}", value)

    def _recall(self, feature_sets: tuple[str, ...]) -> PassMemory | None:
        group = self._memory_group()
        if group is None:
            return None
        store = self.projects.store
        return PassMemory.read(lambda name: store.value(f"{group}/{name}", ""), feature_sets)

