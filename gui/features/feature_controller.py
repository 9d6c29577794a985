"""What happens for the chosen feature: its stored model answer, its evidence, a classification.

Why a controller: choosing a feature starts work whose results arrive later, possibly after
the person has chosen another feature or closed the project; this object keeps the one
retrieval and the one classification of the current feature as operations, drops late results
of an earlier feature, and keeps the :class:`gui.common.window_state.WindowState` right.  The panels
listen to its signals; it never touches a widget.  The linguist's own values, pins and the coding
pass are :class:`gui.coding.coding_controller.CodingController`'s.

Evidence comes in two steps when the embedding model is not ready for a feature (still loading, or
its candidates not embedded yet): the BM25-and-vocabulary order first, at once (hits marked
``provisional``; the evidence list says "reranking…"), then the re-ranked order replacing it.  A
project being opened is prepared in the background (:class:`gui.project.book_preparation.BookPreparation`:
indexes, the model, every paragraph's vector), so that from then on one step is enough.  While it
embeds the book, the re-ranking waits for it to report the feature ready (its candidates go first) and
then asks the model nothing; it never embeds the candidates itself in a worker nothing can interrupt,
which held the re-rankings of the next features for seconds in a pass at a key a second.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from core.catalog.model import Feature
from core.changes import ProjectChange, classified
from core.records.classifications import Classification
from core.store.watch import Written
from gui.common import backend
from gui.common.operations import Operation, OperationRunner, replace
from gui.common.settings import AppSettings, llm_configured
from gui.common.window_state import WindowState
from gui.features import review
from gui.project.book_preparation import BookPreparation
from gui.project.project_controller import ProjectController

RERANK_RETRY_MS = 250  # while the embedding model loads (no preparation running), look again this often
RERANK_AFTER_MS = 20  # an earlier re-ranking (a few tens of ms now) still runs: look again this soon


class FeatureController(QObject):
    """Retrieval and classification of ``state.feature``."""

    featureChanged = Signal()  # state.feature changed; its evidence and value are not known yet
    evidenceChanged = Signal()  # state.hits (and marks) changed: show them and bring the best one into view
    marksChanged = Signal()  # only which paragraphs are cited or pinned changed
    valueChanged = Signal(object)  # a review.ClassificationView, or None
    retrievalFinished = Signal()  # the feature's evidence is shown (maybe provisional: the re-ranked order follows)
    rerankFinished = Signal()  # the re-ranked order replaced the provisional evidence (or failed to)
    classificationFinished = Signal()
    classifyingChanged = Signal(bool)
    failed = Signal(str, object)  # title, exception
    message = Signal(str, int)

    def __init__(self, state: WindowState, runner: OperationRunner, projects: ProjectController,
                 settings: Callable[[], AppSettings], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state, self.runner, self.projects, self.settings = state, runner, projects, settings
        self._retrieval: Operation | None = None
        self._rerank: Operation | None = None
        self._classification: Operation | None = None
        self._answer_evidence = False  # the evidence on screen is a stored answer's own (never replaced by a retrieval)
        # evidence retrieved ahead of time (the coding pass's look-ahead), asked before retrieving
        self._prefetched: Callable[[Feature], list | None] = lambda _feature: None
        self.preparation = BookPreparation(runner, settings, self)
        self._rerank_pending: tuple[Path, Feature, AppSettings] | None = None  # waiting for the model or a worker
        self._rerank_busy: Operation | None = None  # the last re-ranking stopped, until its worker is done
        self._rerank_timer = QTimer(self)
        self._rerank_timer.setSingleShot(True)
        self._rerank_timer.timeout.connect(self._rerank_when_ready)
        projects.aboutToClose.connect(self.cancel)
        projects.changes.changed.connect(self._project_changed)
        projects.opened.connect(lambda path: self.preparation.start(Path(path)))
        projects.ingestFinished.connect(self._ingested)
        self.preparation.featuresReady.connect(lambda _ready: self._rerank_when_ready())
        self.preparation.warm_model()  # the app is starting: the model loads while the window opens

    def _ingested(self, added: bool) -> None:
        """Pages were added to the book: its index is prepared again (nothing added, nothing to do)."""
        if added:
            self.preparation.start(self.state.project_path, again=True)

    def use_prefetched(self, source: Callable[[Feature], list | None]) -> None:
        """Ask ``source`` for a feature's evidence before retrieving it (None: not retrieved ahead)."""
        self._prefetched = source

    @property
    def retrieving(self) -> bool:
        """True until the feature's evidence is final (the re-ranked order included)."""
        return self._rerank_pending is not None or any(
            op is not None and op.running for op in (self._retrieval, self._rerank))

    @property
    def reranking(self) -> bool:
        """True while provisional evidence waits for its re-ranked order."""
        return self._rerank_pending is not None or (self._rerank is not None and self._rerank.running)

    @property
    def classifying(self) -> bool:
        return self._classification is not None and self._classification.running

    def cancel(self) -> None:
        """Stop the current feature's work and the project's preparation (the project is closing)."""
        self.preparation.cancel()
        self._rerank_pending = None
        self._rerank_timer.stop()
        for operation in (self._retrieval, self._rerank, self._classification):
            if operation is not None:
                operation.cancel()

    # ------------------------------------------------------------------ choosing
    def choose(self, feature: Feature | None) -> None:
        """Show ``feature``: its stored value and evidence if it was classified, else retrieve its evidence."""
        self._stop_rerank()
        self._answer_evidence = False
        self.state.choose_feature(feature)
        self.featureChanged.emit()
        self.valueChanged.emit(None)
        self.evidenceChanged.emit()
        if feature is None or not self.state.has_grammar:
            return
        if not self._show_stored():
            self.retrieve()

    def _project_changed(self, change: ProjectChange, initiator: object) -> None:
        """Another act stored a model answer for the feature on screen (``classify`` in the CLI beside the
        window, a batch file imported): show the newer answer, as choosing the feature again would."""
        project, feature, shown = self.projects.project, self.state.feature, self.state.classification
        if initiator is self or project is None or feature is None or not change.statuses \
                or not change.touches(feature.id) or self.classifying:
            return
        stored = review.latest_classification(project, feature.id)
        if stored is not None and (shown is None or stored.id != shown.id):
            self._show_classification(stored)  # with its own evidence: a retrieval running meanwhile is dropped

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
        """Find the evidence of the current feature in the background (a running retrieval is replaced).

        BM25 and vocabulary first when the embedding model would make the person wait; the re-ranked
        order follows (see the module docstring).
        """
        path, feature, settings = self.state.project_path, self.state.feature, self.settings()
        if path is None or feature is None:
            return None
        self.preparation.ensure()  # new settings (another model) need their own preparation

        def done(hits: list) -> None:
            if not self.state.is_current(feature):
                return
            if not self._answer_evidence:  # an answer shown meanwhile brought the paragraphs it cites
                self.state.set_hits(hits)
                self.evidenceChanged.emit()
            self.retrievalFinished.emit()
            if not self._answer_evidence and any(h.provisional for h in hits):
                self._start_rerank(path, feature, settings)

        self._stop_rerank()
        ready = self._prefetched(feature)
        if ready is not None:  # shown at once, without a worker round trip
            if self._retrieval is not None:
                self._retrieval.cancel()
            done(ready)
            return None
        self._retrieval = replace(self._retrieval, Operation(
            self.runner, lambda progress: backend.retrieve(path, feature, settings, progress, wait_for_model=False))
            .success(done).failure(lambda exc: self.failed.emit("Retrieval failed", exc))
            .with_progress(f"Finding evidence for {feature.id}"))
        return self._retrieval

    def _start_rerank(self, path: Path, feature: Feature, settings: AppSettings) -> None:
        """Re-rank the provisional evidence on screen with the embedding model, quietly (no task bar).

        It waits here, not in a worker: while the book's preparation still embeds the feature's candidates
        (it does them first and says so, :meth:`BookPreparation.waits_for`), while the model still loads in
        its child process, or while the re-ranking of an earlier feature still runs.  A coder moving on at
        a key a second would otherwise queue one per feature, or hold a worker for seconds embedding the
        candidates of a feature already left, and the next features' re-ranked orders could not come.
        """
        self._stop_rerank()
        self._rerank_pending = (path, feature, settings)
        self.preparation.want_first(feature.id)
        self._rerank_when_ready()

    def _rerank_when_ready(self) -> None:
        """Start the re-ranking that waits, if nothing it waits for is left (see :meth:`_start_rerank`)."""
        pending = self._rerank_pending
        if pending is None:
            return
        path, feature, settings = pending
        if not self.state.is_current(feature):
            self._stop_rerank()
            return
        if self.preparation.waits_for(feature.id):
            return  # featuresReady calls again
        earlier = self._rerank_busy
        if backend.model_loading(settings.retrieval) or (earlier is not None and earlier.running):
            self._rerank_timer.start(RERANK_RETRY_MS if backend.model_loading(settings.retrieval) else RERANK_AFTER_MS)
            return
        self._rerank_pending = None
        self.preparation.want_first(None)
        operation: Operation = Operation(self.runner, lambda progress: backend.retrieve(path, feature, settings,
                                                                                        progress))

        def wanted() -> bool:
            return self._rerank is operation and self.state.is_current(feature)

        def done(hits: list) -> None:
            if wanted():
                self._rerank = None  # re-ranked: ``reranking`` is over for whoever the signals reach
                if self.state.classification is None:  # a classification's own evidence is not replaced
                    self.state.set_hits(hits, reranked=True)  # the list updates; the page stays put
                    self.evidenceChanged.emit()
                self.rerankFinished.emit()

        def failed(exc: BaseException) -> None:
            if wanted():
                self._rerank = None
                if any(h.provisional for h in self.state.hits):
                    self.state.set_hits([dataclasses.replace(h, provisional=False) for h in self.state.hits])
                    self.evidenceChanged.emit()  # the BM25 order stays, no longer waiting for anything
                self.rerankFinished.emit()
                self.failed.emit("Re-ranking failed (the evidence is in BM25 and vocabulary order)", exc)

        self._rerank = operation.success(done).failure(failed).run_in_background()

    def _stop_rerank(self) -> None:
        """Drop the re-ranking of earlier evidence (another feature, or new evidence for this one)."""
        if self._rerank_pending is not None:
            self.preparation.want_first(None)
        self._rerank_pending = None
        self._rerank_timer.stop()
        if self._rerank is not None:
            self._rerank_busy = self._rerank  # cancelled, but a worker may still run it to its end
            self._rerank.cancel()
            self._rerank = None

    # ------------------------------------------------------------------ classification
    def classify(self) -> Operation | None:
        """Ask the model for the current feature's value (one classification at a time)."""
        path, feature, settings = self.state.project_path, self.state.feature, self.settings()
        if path is None or feature is None or not self.state.documents or self.classifying:
            return None
        if not llm_configured(settings):
            self.message.emit("No language model is set up; see Settings (Ctrl+,).", 8000)
            return None

        changes = self.projects.changes

        def done(result: Classification) -> None:
            if self.state.is_current(feature):
                self._show_classification(self._newest(result))
            answers = [result.id] if result.id is not None else []
            changes.announce(classified({feature.id, *feature.multi_label}, answers), self)  # statuses, the profile
            if self.state.is_current(feature):
                self.classificationFinished.emit()

        self.classifyingChanged.emit(True)
        self._classification = changes.writing(  # the answer is written by the worker's connection: ours, not outside
            Operation(self.runner, lambda p: backend.classify(path, feature, settings, p))
            .success(done).failure(lambda exc: self.failed.emit("Classification failed", exc))
            .finished(lambda: self.classifyingChanged.emit(False))
            .with_progress(f"Classifying {feature.id}"), frozenset({Written.ANSWERS})).run_in_background()
        return self._classification

    def _newest(self, result: Classification) -> Classification:
        """``result``, or the answer another program stored for its feature after it (the CLI's ``classify``
        committing while this window's worker handed its own answer over): never hide a newer answer."""
        project = self.projects.project
        stored = review.latest_classification(project, result.feature_id) if project is not None else None
        return stored if stored is not None and (stored.id or 0) > (result.id or 0) else result

    def _show_classification(self, result: Classification) -> None:
        """Show a stored answer with the paragraphs it cites: a retrieval still running for the feature
        (or its re-ranking) is dropped, since its list would replace the answer's own evidence."""
        view = review.describe(result, self.projects.project)
        self.state.set_classification(result, view.cited_ids)
        self.valueChanged.emit(view)
        if view.evidence_hits:
            self._answer_evidence = True
            self._stop_rerank()
            if self._retrieval is not None and self._retrieval.running:
                self._retrieval.cancel()  # its result, if it still comes, is not shown (see ``retrieve``)
            self.state.set_hits(view.evidence_hits)
            self.evidenceChanged.emit()
        else:
            self.marksChanged.emit()
