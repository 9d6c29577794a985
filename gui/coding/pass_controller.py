"""The coding pass in the window: its set and filter, the steps through it, its look-ahead, where it stopped.

Why a class of its own: stepping through a set of features (a :class:`core.coding.CodingPass`), keeping
a :class:`gui.features.lookahead.LookAhead` retrieving the features coming next, and remembering
where the pass stood (set, filter, feature; kept in the app's settings under the project's path, so
reopening the project offers to continue it) is one job; what the coder decides on each feature is
another (:class:`gui.coding.coding_controller.CodingController`, which holds one of these as ``passes``;
the pass bar talks to it directly).  The decisions behind each step are plain Python
(:class:`gui.coding.coding_session.PassSession`); this class turns them into signals.  After an act
(of the window or another process) it re-reads only the features the change record names.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from core import coding
from core.catalog import load_catalog
from core.changes import ProjectChange
from core.coding.coding_pass import FILTER_LABELS
from core.coding.feature_sets import list_feature_lists
from core.errors import GrammarLensError
from gui.coding.coding_session import PassSession
from gui.coding.coding_state import PassMemory, PassView, first_page, forget_pass, recall_pass, remember_pass
from gui.common.operations import OperationRunner
from gui.common.settings import AppSettings
from gui.common.window_state import WindowState
from gui.features.lookahead import AHEAD, LookAhead
from gui.project.project_controller import ProjectController


class PassController(QObject):
    """The coding pass over the open project, and the evidence retrieved ahead of it (composed by the controller)."""

    passChanged = Signal(object)  # PassView
    featureRequested = Signal(str)  # the pass moved: show this feature
    referencesNeeded = Signal()  # "disagreeing" was chosen before any WALS/Grambank values were read
    failed = Signal(str, object)
    message = Signal(str, int)
    notice = Signal(str, bool)  # what the pass bar says (text, true for a slip the coder should see)

    def __init__(self, state: WindowState, runner: OperationRunner, projects: ProjectController,
                 settings: Callable[[], AppSettings], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state, self.runner, self.projects, self.settings = state, runner, projects, settings
        self.lookahead = LookAhead(runner, settings, self)
        self.read_pages: Callable[[], object] = lambda: None  # the page index, read when a pass starts (set by owner)
        self.session = PassSession()  # set, filter, the running pass, its acts (plain Python)
        self.pass_started_at: float | None = None

    @property
    def pass_active(self) -> bool:
        return self.session.running is not None

    # ------------------------------------------------------------------ the project, the feature, changes
    def project_opened(self) -> None:
        """No pass runs in a project just opened; the one left in it is offered on the bar (Ctrl+K continues it)."""
        project = self.projects.project
        saved = tuple(sorted(list_feature_lists(project))) if project is not None else ()
        resume = self.session.project_opened(saved, self._recall)
        self._emit_pass()
        if resume is not None:
            self.say(resume.offer())

    def project_closed(self) -> None:
        self.session.project_closed()
        self.lookahead.set_project(None)
        self._emit_pass()

    def feature_shown(self) -> None:
        """Another feature is on screen: where it lies in the pass."""
        if self.pass_active:
            self._emit_pass()

    def project_changed(self, change: ProjectChange) -> None:
        """Re-read the features of the pass the change names (all of them after a restore); the bar follows."""
        project = self.projects.project
        if project is None or self.session.running is None:
            return
        if change.whole_project:
            self.start_pass()  # the same set and filter over the project as it is now
            return
        if self.session.refresh(project, change.features):
            self._emit_pass()

    def refresh_feature(self, feature_id: str) -> None:
        """A model answer arrived for the feature on screen: its "predicted" state in the pass."""
        project = self.projects.project
        if project is not None and self.session.refresh(project, [feature_id]):
            self._emit_pass()

    def _current_id(self) -> str | None:
        return self.state.feature.id if self.state.feature is not None else None

    def start_pass(self, feature_set: str | None = None, filter: str | None = None) -> bool:
        """Open a pass over a feature set (grambank, wals, the study's four, a saved list) and show its first feature.

        The pass left in this project continues where it stood when it is over the same set.
        """
        project = self.projects.project
        if project is None:
            self.message.emit("Open a project first.", 4000)
            return False
        current = self._current_id()
        try:
            target = self.session.start(project, feature_set, filter, current)
        except GrammarLensError as exc:
            self.failed.emit("Cannot start the coding pass", exc)
            return False
        self.read_pages()  # P on the page pins at once during a pass
        self._emit_pass()
        if target is None:
            self.message.emit(f"No feature of {self.session.feature_set} is {FILTER_LABELS[self.session.filter]}.",
                              5000)
        elif target != current:
            self.featureRequested.emit(target)
        else:
            self.look_ahead()
        return True

    def stop_pass(self) -> None:
        """End the pass: its acts are no longer undone by Ctrl+Z, and the project no longer offers to continue it."""
        self.session.stop()
        self.lookahead.cancel()
        if self.state.project_path is not None:
            forget_pass(self.projects.store, self.state.project_path)
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

    def _step(self, move: Callable[[coding.CodingPass, str | None], str | None], at_end: str) -> str | None:
        if not self.pass_active and not self.start_pass():
            return None
        assert self.session.running is not None
        target = move(self.session.running.coding_pass, self._current_id())
        if target is None:
            self.message.emit(at_end, 4000)
            return None
        self.pass_started_at = time.perf_counter()
        self.featureRequested.emit(target)
        return target

    def best_page_ahead(self, feature_id: str) -> int | None:
        """The PDF page a retrieved-ahead feature will open on (its first pin or top hit in the grammar on screen)."""
        document = self.state.document
        return first_page(self.lookahead.hits(load_catalog().get(feature_id)),
                          document.id if document is not None else None)

    def look_ahead(self) -> None:
        if not self.pass_active or self.state.feature is None:
            return
        catalog = load_catalog()
        upcoming = self.session.upcoming(self.state.feature.id, AHEAD)
        self.lookahead.prefetch([catalog.get(fid) for fid in upcoming], self.state.feature)

    def pass_view(self) -> PassView:
        return self.session.view(self._current_id() or "")

    def _emit_pass(self) -> None:
        self._remember()
        self.passChanged.emit(self.pass_view())

    def say(self, text: str, warning: bool = False) -> None:
        """Tell the coder, on the pass bar and in the status bar."""
        self.message.emit(text, 8000)
        self.notice.emit(text, warning)

    # ------------------------------------------------------------------ where the pass stands, per project
    def _remember(self) -> None:
        """Keep the running pass's set, filter and feature for the next time the project opens."""
        path = self.state.project_path
        memory = self.session.memory(self._current_id() or "")
        if path is not None and memory is not None:
            remember_pass(self.projects.store, path, memory)

    def _recall(self, feature_sets: tuple[str, ...]) -> PassMemory | None:
        path = self.state.project_path
        return recall_pass(self.projects.store, path, feature_sets) if path is not None else None
