"""The profile view: every feature run for the language, batch runs, agreement and export.

A dock beside the main window.  Batches run in a worker (core.profile.run_job, which bounds its
own concurrency); Cancel stops them at the next feature boundary and Run resumes the same job,
skipping finished features.  The cost estimate is shown before a batch starts and a hosted run
above :data:`CONFIRM_ABOVE_USD` asks first.  Double-clicking a row opens the feature in the main
window with its evidence.  The window builds the view and listens to its signals; the view never
touches the window.  Every read of the project (the profile, the estimate, the BibTeX entry) runs
in an :class:`gui.common.operations.Operation`, so a batch writing to the project never makes the dock
wait on the UI thread.  The status filter lists core's statuses with their counts, and the estimate
quotes a price only for a hosted model that is set up (:mod:`gui.profile.profile_summary` words both).
The dock is composed of objects with one job each, which never write its fields: the run row
(:class:`gui.profile.batch_controls.BatchControls`, shared by batches and batch files, one job at a
time); Batch file → Export/Import (:class:`gui.profile.batch_file_actions.BatchFiles`: the set's
unanswered prompts as a JSONL file for the OpenAI Batch API or vLLM ``run_batch``, and the answers
they wrote); comparing with WALS/Grambank values, exporting and the BibTeX entry
(:class:`gui.profile.export_actions.ProfileExports`).  They read the dock through a typed Protocol
(:class:`gui.profile.batch_controls.DockTarget`) and say what they did with a signal.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.coding.feature_sets import FOUR
from core.errors import error_text
from core.records.vocabulary import RESUMABLE_STATES, JobState
from core.store.claims import AnswerClaims
from gui.common.operations import Operation, OperationRunner, replace
from gui.common.settings import AppSettings, llm_configured
from gui.profile import profile_backend as backend
from gui.profile.batch_controls import BatchControls
from gui.profile.batch_file_actions import BatchFiles
from gui.profile.export_actions import ProfileExports
from gui.profile.profile_model import ProfileFilterModel, ProfileTableModel
from gui.profile.profile_summary import NO_MODEL, estimate_text, status_choices, summary_line
from gui.profile.references import ReferenceSource

CONFIRM_ABOVE_USD = 1.0
BUILTIN_SETS = ((FOUR, "Word order (81A), number of cases (49A), negation by an affix (GB107) and polar questions "
                       "(116A): the four features of Kornilov & Shavrina's study (also called 'paper')"),
                ("grambank", "All of Grambank (195 features)"), ("wals", "All of WALS (192 features)"))


class ProfileView(QWidget):
    """The language's profile with batch controls; works on a project path, never a shared connection."""

    featureActivated = Signal(str)  # the feature id to open in the main window
    batchFinished = Signal(str)  # a JobState: done, incomplete, cancelled or failed (after the table is refreshed)
    batchProgress = Signal(int, int, str)  # done, total, message of the running batch
    batchStarted = Signal(object, object)  # the batch's Operation, and the AnswerClaims its answers are claimed in
    refreshed = Signal()
    estimateShown = Signal()
    referencesLoaded = Signal()
    batchFileFinished = Signal(str)  # "written", "imported", "cancelled" or "failed" (after the table is refreshed)

    def __init__(self, runner: OperationRunner, settings: Callable[[], AppSettings],
                 parent: QWidget | None = None, source: ReferenceSource | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.settings = settings
        self.project_path: Path | None = None
        self.last_error: BaseException | None = None
        self.last_result: Any | None = None
        self.pending: list[str] = []
        self.estimated: Any | None = None
        self._batch: Operation | None = None
        self._snapshot: Operation | None = None
        self._estimate: Operation | None = None
        self._estimate_key: tuple[str, str] | None = None  # (feature set, mode) the shown estimate is for
        self._start_when_estimated = False  # Run was pressed before the estimate of the chosen set was known
        self._state: str = JobState.DONE
        self.controls = BatchControls()  # the run row, shared by batches and batch files (one at a time)
        self.batch_files = BatchFiles(self, self, runner, settings, self.controls)
        self.summary_label = QLabel("")
        self.reference_button = QPushButton("Compare with CLDF…")
        # the window shares its source (the folder remembered per project, read when a project opens)
        self.exports = ProfileExports(self, self, runner, source or ReferenceSource(runner, None, self), source is None,
                                      self.summary_label, self.reference_button)
        self._build()
        self.batch_files.finished.connect(self._file_finished)
        self.exports.referencesChanged.connect(self._references_changed)

    # ------------------------------------------------------------------ widgets
    def _build(self) -> None:
        layout = QVBoxLayout(self)
        run_row = QHBoxLayout()
        self.set_combo = _set_combo()
        self.mode_combo = QComboBox()
        self.mode_combo.addItem("Ask the model", backend.MODE_LLM)
        self.mode_combo.addItem("Evidence only (no model)", backend.MODE_RETRIEVAL)
        c = self.controls
        self.run_button, self.batch_file_button, self.cancel_button = c.run_button, c.batch_file_button, c.cancel_button
        self.progress, self.estimate_label = c.progress, c.estimate_label
        self.run_button.clicked.connect(self.start_batch)
        batch_menu = QMenu(self.batch_file_button)
        self.export_batch_action = batch_menu.addAction("Export batch file…", self.batch_files.export_batch_dialog)
        self.export_batch_action.setStatusTip("Write the set's unanswered prompts as a JSONL batch file")
        self.import_results_action = batch_menu.addAction("Import batch results…",
                                                          self.batch_files.import_results_dialog)
        self.import_results_action.setStatusTip("Store the answers of a batch results file in the project")
        self.batch_file_button.setMenu(batch_menu)
        self.cancel_button.clicked.connect(self.cancel_batch)
        run_row.addWidget(QLabel("Features:"))
        run_row.addWidget(self.set_combo, 2)
        run_row.addWidget(self.mode_combo)
        run_row.addWidget(self.run_button)
        run_row.addWidget(self.batch_file_button)
        run_row.addWidget(self.cancel_button)
        run_row.addWidget(self.progress)
        layout.addLayout(run_row)
        layout.addWidget(self.estimate_label)

        filter_row = QHBoxLayout()
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter by feature, name or value")
        self.filter_edit.setClearButtonEnabled(True)
        self.status_combo = _status_combo()
        self.reference_button.setToolTip("Choose a WALS or Grambank CLDF folder (or their parent)")
        self.reference_button.clicked.connect(self.exports.choose_reference_folder)
        self.export_button = QPushButton("Export")
        menu = QMenu(self.export_button)
        for fmt, text in (("cldf", "CLDF StructureDataset…"), ("csv", "Flat CSV…"), ("json", "JSON…")):
            menu.addAction(text, lambda f=fmt: self.exports.export_dialog(f))
        menu.addSeparator()
        menu.addAction("Edit the grammar's BibTeX…", self.exports.edit_bibtex)
        self.export_button.setMenu(menu)
        filter_row.addWidget(self.filter_edit, 2)
        filter_row.addWidget(self.status_combo)
        filter_row.addWidget(self.reference_button)
        filter_row.addWidget(self.export_button)
        layout.addLayout(filter_row)

        self.model = ProfileTableModel(self)
        self.proxy = ProfileFilterModel(self)
        self.proxy.setSourceModel(self.model)
        self.table = _profile_table(self.proxy)
        self.table.doubleClicked.connect(self._row_activated)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.summary_label)

        self.filter_edit.textChanged.connect(self.proxy.set_text)
        self.status_combo.currentIndexChanged.connect(lambda: self.proxy.set_status(self.status_combo.currentData()))
        self.set_combo.currentTextChanged.connect(lambda _text: (self.update_estimate(), self.refresh()))
        self.mode_combo.currentIndexChanged.connect(lambda _i: self.update_estimate())
        self._fill_sets([])

    def _fill_sets(self, lists: list[str]) -> None:
        current = self.feature_set()
        self.set_combo.blockSignals(True)
        self.set_combo.clear()
        for key, text in BUILTIN_SETS:
            self.set_combo.addItem(key)
            self.set_combo.setItemData(self.set_combo.count() - 1, text, Qt.ItemDataRole.ToolTipRole)
        for name in lists:
            self.set_combo.addItem(name)
        self.set_combo.setEditText(current or FOUR)
        self.set_combo.view().setMinimumWidth(self.set_combo.view().sizeHintForColumn(0) + 24)
        self.set_combo.blockSignals(False)

    # ------------------------------------------------------------------ state
    def feature_set(self) -> str:
        return self.set_combo.currentText().strip()

    def set_feature_set(self, text: str) -> None:
        self.set_combo.setEditText(text)

    def mode(self) -> str:
        return self.mode_combo.currentData()

    def set_project(self, path: str | Path | None) -> None:
        self.project_path = Path(path) if path else None
        self._estimate_key = None
        self.refresh()
        self.exports.project_changed()

    def language_changed(self) -> None:
        """The project's language was set anew: its prompts (the estimate) and profile are read again."""
        self._estimate_key = None
        self.refresh()
        self.update_estimate()

    def refresh(self) -> Operation | None:
        """Re-read the profile from the project in the background; ``refreshed`` says when it is shown."""
        if self.project_path is None:
            self.model.set_profile([], None)
            self.summary_label.setText("Open a project to see its profile.")
            return None
        path, refs, feature_set = self.project_path, self.exports.references, self.feature_set()
        self._snapshot = replace(self._snapshot, Operation(self.runner,
                                                           lambda p: backend.snapshot(path, refs, feature_set))
                                 .success(self._show_snapshot)
                                 .failure(lambda exc: self.summary_label.setText(error_text(exc))))
        return self._snapshot

    def _show_snapshot(self, snap: backend.Snapshot) -> None:
        self.model.set_profile(snap.entries + snap.not_started, snap.agreement)
        self.table.resizeColumnToContents(0)
        for col in (2, 3, 4, 5, 6):
            self.table.resizeColumnToContents(col)
            self.table.setColumnWidth(col, min(self.table.columnWidth(col), 260))
        self._fill_sets(snap.lists)
        self._count_statuses([e.status for e in snap.entries + snap.not_started])
        self.summary_label.setText(summary_line(snap.entries, snap.agreement))
        self.update_estimate()
        self.refreshed.emit()

    def _count_statuses(self, statuses: list[str]) -> None:
        """Each line of the status filter says how many rows it shows ("coded (12)"); the choice stays."""
        for choice in status_choices(statuses):
            row = self.status_combo.findData(choice.key)
            if row >= 0:
                self.status_combo.setItemText(row, choice.label)

    def settings_changed(self) -> None:
        """A key, a server or a model was set: the estimate (and whether it has a price) is made anew."""
        self._estimate_key = None
        self.update_estimate()

    def update_estimate(self) -> Operation | None:
        """Estimate the chosen batch in the background (features left, tokens, cost); ``estimateShown`` follows."""
        if self.project_path is None or not self.feature_set() or self.running:
            return None
        path, feature_set, settings, mode = self.project_path, self.feature_set(), self.settings(), self.mode()

        def shown(result: backend.Preview) -> None:
            if (feature_set, mode) != (self.feature_set(), self.mode()):
                return  # the person chose another set meanwhile; its own estimate follows
            self.pending, self.estimated, self._estimate_key = result.pending, result.estimate, (feature_set, mode)
            start, self._start_when_estimated = self._start_when_estimated, False
            self.estimate_label.setText(estimate_text(result.estimate, len(result.pending), note=self.controls.note,
                                                      retrieval_only=mode == backend.MODE_RETRIEVAL,
                                                      model_ready=result.model_ready))
            self.estimateShown.emit()
            if start and (feature_set, mode) == (self.feature_set(), self.mode()):
                self.start_batch()

        def failed(exc: BaseException) -> None:
            self._estimate_key, self._start_when_estimated = None, False
            self.estimate_label.setText(error_text(exc))
            self.estimateShown.emit()

        self._estimate = replace(self._estimate, Operation(
            self.runner, lambda p: backend.preview(path, feature_set, settings, mode)).success(shown).failure(failed))
        return self._estimate

    @property
    def running(self) -> bool:
        """A batch or a batch file runs (both write to the project, so one at a time)."""
        return (self._batch is not None and self._batch.running) or self.batch_files.running

    # ------------------------------------------------------------------ batches
    def start_batch(self) -> Operation | None:
        """Run (or resume) the chosen set; returns the batch, or None when it waits for its estimate or did not start.

        A hosted run above :data:`CONFIRM_ABOVE_USD` asks first, so the estimate must be the chosen set's.
        """
        if self.project_path is None or self.running:
            return None
        if self._estimate_key != (self.feature_set(), self.mode()):
            self._start_when_estimated = self.update_estimate() is not None
            return None
        guess = self.estimated
        if self.mode() == backend.MODE_LLM and not llm_configured(self.settings()):
            self.estimate_label.setText(NO_MODEL)  # nothing could be asked: say how to set a model up instead
            return None
        if (self.mode() == backend.MODE_LLM and guess is not None and not guess.local and guess.features
                and (guess.cost_usd is None or guess.cost_usd > CONFIRM_ABOVE_USD)):
            answer = QMessageBox.question(self, "Start the batch?", f"This batch will cost {guess.describe()}.")
            if answer != QMessageBox.StandardButton.Yes:
                return None
        path, feature_set, settings, mode = self.project_path, self.feature_set(), self.settings(), self.mode()
        self.last_error = self.last_result = None
        self._state, self.controls.note, self._estimate_key = JobState.DONE, "", None
        self.controls.busy()
        claims = AnswerClaims()  # its answers, by id: the window tells them from another program's (batchStarted)
        self._batch = (Operation(self.runner, lambda progress: backend.run_batch(path, feature_set, settings, mode,
                                                                                 progress, claims))
                       .success(self._batch_done).failure(self._batch_failed).cancelled(self._batch_cancelled)
                       .progress(self._batch_progress).finished(self._batch_finished).run_in_background())
        self.batchStarted.emit(self._batch, claims)
        return self._batch

    def cancel_batch(self) -> None:
        if self.batch_files.running:
            self.batch_files.cancel()
        elif self._batch is not None:
            self._batch.cancel()
            self.estimate_label.setText("Cancelling: requests already sent are finished and kept…")

    def _batch_progress(self, done: int, total: int, message: str) -> None:
        self.controls.show_progress(done, total, f"%v/%m {message}")
        self.batchProgress.emit(done, total, message)
        if done and done % 5 == 0 and not (self._snapshot and self._snapshot.running):
            self.refresh()

    def _batch_done(self, result: Any) -> None:
        self.last_result = result
        self.controls.note = (f"Finished: ran {len(result.ran)}, skipped {len(result.skipped)} already done"
                      + (f", {len(result.failed)} failed" if result.failed else "") + ". ")
        self._state = result.state

    def _batch_failed(self, exc: BaseException) -> None:
        self.last_error = exc
        self._state = JobState.FAILED
        self.controls.note = f"The batch stopped: {error_text(exc)} Run it again to resume. "

    def _batch_cancelled(self) -> None:
        self._state = JobState.CANCELLED
        self.controls.note = "Cancelled; finished features are kept. Resume to run the rest: "

    def _batch_finished(self) -> None:
        state = self._state
        self.controls.idle()
        self.run_button.setText("Resume batch" if state in RESUMABLE_STATES else "Run batch")
        self._refresh_then(lambda: self.batchFinished.emit(state))

    def _file_finished(self, state: str) -> None:
        self._estimate_key = None  # answered features changed: a Run asks for a fresh estimate
        self._refresh_then(lambda: self.batchFileFinished.emit(state))

    def _references_changed(self) -> None:
        refresh = self.refresh()
        if refresh is not None:
            refresh.finished(self.referencesLoaded.emit)

    def _refresh_then(self, then: Callable[[], None]) -> None:
        """Read the profile again, then ``then`` (at once without a project)."""
        refresh = self.refresh()
        if refresh is None:
            then()
        else:
            refresh.finished(then)

    def _row_activated(self, index: QModelIndex) -> None:
        if index.isValid():
            entry = self.model.entry(self.proxy.mapToSource(index).row())
            self.featureActivated.emit(entry.parent_id)


def _set_combo() -> QComboBox:
    """The editable feature set: a built-in set, a saved list, or ids typed in."""
    combo = QComboBox()
    combo.setEditable(True)
    # as wide as a short name: the study's four ("word-order-case-negation-questions") widened the dock over the
    # value list at 1280×800; the list that opens is as wide as its longest name
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(12)
    combo.setAccessibleName("Feature set")
    combo.setToolTip("A built-in set, a saved list, or feature ids separated by commas (81A,GB107)")
    return combo


def _status_combo() -> QComboBox:
    """Core's statuses, each with what it means; their counts are filled in with the profile."""
    combo = QComboBox()
    combo.setAccessibleName("Status")
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
    for choice in status_choices([]):
        combo.addItem(choice.label, choice.key)
        combo.setItemData(combo.count() - 1, choice.tooltip, Qt.ItemDataRole.ToolTipRole)
    return combo


def _profile_table(proxy: ProfileFilterModel) -> QTableView:
    """One line per feature, sorted by id: a dock at half the window's height then lists ~10 of them."""
    table = QTableView()
    table.setModel(proxy)
    table.setSortingEnabled(True)
    table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setAlternatingRowColors(True)
    table.verticalHeader().setVisible(False)
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 8)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
    table.setToolTip("Double-click a row to open the feature with its evidence")
    return table
