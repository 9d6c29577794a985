"""What happens for the chosen feature: its stored model answer, its evidence, a classification.

Why a controller: choosing a feature starts work whose results arrive later, possibly after
the person has chosen another feature or closed the project; this object keeps the one
retrieval and the one classification of the current feature as operations, drops late results
of an earlier feature, and keeps the :class:`gui.window_state.WindowState` right.  The panels
listen to its signals; it never touches a widget.  The linguist's own values, pins and the coding
pass are :class:`gui.coding_controller.CodingController`'s.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject, Signal

from core.catalog.model import Feature
from core.llm.records import Classification
from gui import backend, review
from gui.operations import Operation, OperationRunner, replace
from gui.project_controller import ProjectController
from gui.settings import AppSettings, llm_configured
from gui.window_state import WindowState


class FeatureController(QObject):
    """Retrieval and classification of ``state.feature``."""

    featureChanged = Signal()  # state.feature changed; its evidence and value are not known yet
    evidenceChanged = Signal()  # state.hits (and marks) changed: show them and bring the best one into view
    marksChanged = Signal()  # only which paragraphs are cited or pinned changed
    valueChanged = Signal(object)  # a review.ClassificationView, or None
    retrievalFinished = Signal()
    classificationFinished = Signal()
    classifyingChanged = Signal(bool)
    failed = Signal(str, object)  # title, exception
    message = Signal(str, int)

    def __init__(self, state: WindowState, runner: OperationRunner, projects: ProjectController,
                 settings: Callable[[], AppSettings], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state, self.runner, self.projects, self.settings = state, runner, projects, settings
        self._retrieval: Operation | None = None
        self._classification: Operation | None = None
        # evidence retrieved ahead of time (the coding pass's look-ahead), asked before retrieving
        self.prefetched: Callable[[Feature], list | None] = lambda _feature: None
        projects.aboutToClose.connect(self.cancel)

    @property
    def retrieving(self) -> bool:
        return self._retrieval is not None and self._retrieval.running

    @property
    def classifying(self) -> bool:
        return self._classification is not None and self._classification.running

    def cancel(self) -> None:
        """Stop the current feature's work (the project is closing)."""
        for operation in (self._retrieval, self._classification):
            if operation is not None:
                operation.cancel()

    # ------------------------------------------------------------------ choosing
    def choose(self, feature: Feature | None) -> None:
        """Show ``feature``: its stored value and evidence if it was classified, else retrieve its evidence."""
        self.state.choose_feature(feature)
        self.featureChanged.emit()
        self.valueChanged.emit(None)
        self.evidenceChanged.emit()
        if feature is None or not self.state.has_grammar:
            return
        if not self._show_stored():
            self.retrieve()

    def _show_stored(self) -> bool:
        """Show the newest stored classification; true when it brought its evidence along."""
        project, feature = self.projects.project, self.state.feature
        if project is None or feature is None:
            return False
        stored = review.latest_classification(project, feature.id)
        if stored is None:
            return False
        self._show_classification(stored)
        return bool(self.state.hits)

    # ------------------------------------------------------------------ retrieval
    def retrieve(self) -> Operation | None:
        """Find the evidence of the current feature in the background (a running retrieval is replaced)."""
        path, feature, settings = self.state.project_path, self.state.feature, self.settings()
        if path is None or feature is None:
            return None

        def done(hits: list) -> None:
            if self.state.is_current(feature):
                self.state.set_hits(hits)
                self.evidenceChanged.emit()
                self.retrievalFinished.emit()

        ready = self.prefetched(feature)
        if ready is not None:  # shown at once, without a worker round trip
            if self._retrieval is not None:
                self._retrieval.cancel()
            done(ready)
            return None
        self._retrieval = replace(self._retrieval, Operation(
            self.runner, lambda progress: backend.retrieve(path, feature, settings, progress))
            .success(done).failure(lambda exc: self.failed.emit("Retrieval failed", exc))
            .with_progress(f"Finding evidence for {feature.id}"))
        return self._retrieval

    # ------------------------------------------------------------------ classification
    def classify(self) -> Operation | None:
        """Ask the model for the current feature's value (one classification at a time)."""
        path, feature, settings = self.state.project_path, self.state.feature, self.settings()
        if path is None or feature is None or not self.state.documents or self.classifying:
            return None
        if not llm_configured(settings):
            self.message.emit("No language model is set up; see Settings (Ctrl+,).", 8000)
            return None

        def done(result: Classification) -> None:
            if self.state.is_current(feature):
                self._show_classification(result)
                self.classificationFinished.emit()

        self.classifyingChanged.emit(True)
        self._classification = (Operation(self.runner, lambda p: backend.classify(path, feature, settings, p))
                                .success(done).failure(lambda exc: self.failed.emit("Classification failed", exc))
                                .finished(lambda: self.classifyingChanged.emit(False))
                                .with_progress(f"Classifying {feature.id}").run_in_background())
        return self._classification

    def _show_classification(self, result: Classification) -> None:
        view = review.describe(result, self.projects.project)
        self.state.set_classification(result, view.cited_ids)
        self.valueChanged.emit(view)
        if view.evidence_hits:
            self.state.set_hits(view.evidence_hits)
            self.evidenceChanged.emit()
        else:
            self.marksChanged.emit()
