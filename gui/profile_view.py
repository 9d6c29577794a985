"""The profile view: every feature run for the language, batch runs, agreement and export.

A dock beside the main window.  Batches run in a worker (core.profile.run_job, which bounds its
own concurrency); Cancel stops them at the next feature boundary and Run resumes the same job,
skipping finished features.  The cost estimate is shown before a batch starts and a hosted run
above :data:`CONFIRM_ABOVE_USD` asks first.  Double-clicking a row opens the feature in the main
window with its evidence.  :func:`install_profile_view` is the only hook into the main window.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QDialog, QDialogButtonBox, QDockWidget, QFileDialog,
                               QHBoxLayout, QHeaderView, QLabel, QLineEdit, QMenu, QMessageBox, QPlainTextEdit,
                               QProgressBar, QPushButton, QTableView, QVBoxLayout, QWidget)

from core.errors import GrammarLensError
from gui import profile_backend as backend
from gui.profile_model import ProfileFilterModel, ProfileTableModel
from gui.workers import Worker, WorkerPool

CONFIRM_ABOVE_USD = 1.0
BUILTIN_SETS = (("paper", "The paper's four (81A, 49A, GB107, polar questions)"), ("grambank", "All of Grambank"),
                ("wals", "All of WALS"))
STATUS_FILTERS = ("", "predicted", "accepted", "overridden", "not enough information", "no value", "evidence only")


class ProfileView(QWidget):
    """The language's profile with batch controls; works on a project path, never a shared connection."""

    featureActivated = Signal(str)  # the feature id to open in the main window
    batchFinished = Signal(str)  # "done", "incomplete", "cancelled" or "failed"
    refreshed = Signal()
    referencesLoaded = Signal()

    def __init__(self, pool: WorkerPool, settings: Callable[[], Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.pool = pool
        self.settings = settings
        self.project_path: Path | None = None
        self.references: dict | None = None
        self.reference_folder: Path | None = None
        self.worker: Worker | None = None
        self.last_error: BaseException | None = None
        self.last_result: Any | None = None
        self.pending: list[str] = []
        self.estimated: Any | None = None
        self._state = "done"
        self._build()

    # ------------------------------------------------------------------ widgets
    def _build(self) -> None:
        layout = QVBoxLayout(self)
        run_row = QHBoxLayout()
        self.set_combo = QComboBox()
        self.set_combo.setEditable(True)
        self.set_combo.setAccessibleName("Feature set")
        self.set_combo.setToolTip("A built-in set, a saved list, or feature ids separated by commas (81A,GB107)")
        self.mode_combo = QComboBox()
        self.mode_combo.addItem("Ask the model", backend.MODE_LLM)
        self.mode_combo.addItem("Evidence only (no model)", backend.MODE_RETRIEVAL)
        self.run_button = QPushButton("Run batch")
        self.run_button.clicked.connect(self.start_batch)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel_batch)
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(220)
        self.progress.setVisible(False)
        run_row.addWidget(QLabel("Features:"))
        run_row.addWidget(self.set_combo, 2)
        run_row.addWidget(self.mode_combo)
        run_row.addWidget(self.run_button)
        run_row.addWidget(self.cancel_button)
        run_row.addWidget(self.progress)
        layout.addLayout(run_row)
        self.estimate_label = QLabel("")
        self.estimate_label.setWordWrap(True)
        layout.addWidget(self.estimate_label)

        filter_row = QHBoxLayout()
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter by feature, name or value")
        self.filter_edit.setClearButtonEnabled(True)
        self.status_combo = QComboBox()
        for status in STATUS_FILTERS:
            self.status_combo.addItem(status or "All statuses", status)
        self.reference_button = QPushButton("Compare with CLDF…")
        self.reference_button.setToolTip("Choose a WALS or Grambank CLDF folder (or their parent)")
        self.reference_button.clicked.connect(self.choose_reference_folder)
        self.export_button = QPushButton("Export")
        menu = QMenu(self.export_button)
        for fmt, text in (("cldf", "CLDF StructureDataset…"), ("csv", "Flat CSV…"), ("json", "JSON…")):
            menu.addAction(text, lambda f=fmt: self.export_dialog(f))
        menu.addSeparator()
        menu.addAction("Edit the grammar's BibTeX…", self.edit_bibtex)
        self.export_button.setMenu(menu)
        filter_row.addWidget(self.filter_edit, 2)
        filter_row.addWidget(self.status_combo)
        filter_row.addWidget(self.reference_button)
        filter_row.addWidget(self.export_button)
        layout.addLayout(filter_row)

        self.model = ProfileTableModel(self)
        self.proxy = ProfileFilterModel(self)
        self.proxy.setSourceModel(self.model)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.doubleClicked.connect(self._row_activated)
        self.table.setToolTip("Double-click a row to open the feature with its evidence")
        layout.addWidget(self.table, 1)
        self.summary_label = QLabel("")
        layout.addWidget(self.summary_label)

        self.filter_edit.textChanged.connect(self.proxy.set_text)
        self.status_combo.currentIndexChanged.connect(lambda: self.proxy.set_status(self.status_combo.currentData()))
        self.set_combo.currentTextChanged.connect(lambda _text: self.update_estimate())
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
        self.set_combo.setEditText(current or "paper")
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
        self.references = None if self.reference_folder is None else self.references
        self.refresh()
        if self.reference_folder is not None and self.project_path is not None:
            self.set_reference_folder(self.reference_folder)

    def refresh(self) -> None:
        """Re-read the profile from the project (cheap: a few queries)."""
        if self.project_path is None:
            self.model.set_profile([], None)
            self.summary_label.setText("Open a project to see its profile.")
            return
        try:
            snap = backend.snapshot(self.project_path, self.references)
        except GrammarLensError as exc:
            self.summary_label.setText(exc.message)
            return
        self.model.set_profile(snap.entries, snap.agreement)
        self.table.resizeColumnToContents(0)
        for col in (2, 3, 4, 5, 6):
            self.table.resizeColumnToContents(col)
            self.table.setColumnWidth(col, min(self.table.columnWidth(col), 260))
        self._fill_sets(snap.lists)
        counts: dict[str, int] = {}
        for e in snap.entries:
            counts[e.status] = counts.get(e.status, 0) + 1
        parts = [f"{len(snap.entries)} values"] + [f"{n} {s}" for s, n in sorted(counts.items())]
        if snap.agreement is not None:
            rate = f"{snap.agreement.rate:.0%}" if snap.agreement.rate is not None else "n/a"
            parts.append(f"agreement with the databases: {snap.agreement.agreed}/{snap.agreement.compared} ({rate})")
        self.summary_label.setText(" · ".join(parts))
        self.update_estimate()
        self.refreshed.emit()

    def update_estimate(self) -> None:
        if self.project_path is None or not self.feature_set() or self.running:
            return
        try:
            pending, guess = backend.preview(self.project_path, self.feature_set(), self.settings(), self.mode())
        except GrammarLensError as exc:
            self.estimate_label.setText(exc.message)
            return
        if self.mode() == backend.MODE_RETRIEVAL:
            self.estimate_label.setText(f"{len(pending)} feature(s) to retrieve; no model is asked.")
        else:
            self.estimate_label.setText("Before starting: " + guess.describe())
        self.pending, self.estimated = pending, guess

    @property
    def running(self) -> bool:
        return self.worker is not None and not self.worker.done

    # ------------------------------------------------------------------ batches
    def start_batch(self) -> Worker | None:
        """Run (or resume) the chosen set; returns the worker, or None when nothing was started."""
        if self.project_path is None or self.running:
            return None
        self.update_estimate()
        guess = self.estimated
        if (self.mode() == backend.MODE_LLM and guess is not None and not guess.local and guess.features
                and (guess.cost_usd is None or guess.cost_usd > CONFIRM_ABOVE_USD)):
            answer = QMessageBox.question(self, "Start the batch?", f"This batch will cost {guess.describe()}.")
            if answer != QMessageBox.StandardButton.Yes:
                return None
        path, feature_set, settings, mode = self.project_path, self.feature_set(), self.settings(), self.mode()
        self.last_error = self.last_result = None
        self._state = "done"
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setVisible(True)
        self.progress.setMaximum(0)
        self.worker = self.pool.start(
            lambda progress: backend.run_batch(path, feature_set, settings, mode, progress), name="profile",
            on_result=self._batch_done, on_error=self._batch_failed, on_cancelled=self._batch_cancelled,
            on_progress=self._batch_progress, on_finished=self._batch_finished)
        return self.worker

    def cancel_batch(self) -> None:
        if self.worker is not None:
            self.worker.cancel()
            self.estimate_label.setText("Cancelling: requests already sent are finished and kept…")

    def _batch_progress(self, done: int, total: int, message: str) -> None:
        self.progress.setMaximum(max(total, 1))
        self.progress.setValue(min(done, total))
        self.progress.setFormat(f"%v/%m {message}")
        if done and done % 5 == 0:
            self.refresh_quietly()

    def refresh_quietly(self) -> None:
        try:
            snap = backend.snapshot(self.project_path, self.references)
            self.model.set_profile(snap.entries, snap.agreement)
        except GrammarLensError:
            pass

    def _batch_done(self, result: Any) -> None:
        self.last_result = result
        self.estimate_label.setText(f"Finished: ran {len(result.ran)}, skipped {len(result.skipped)} already done"
                                    + (f", {len(result.failed)} failed" if result.failed else "") + ".")
        self._state = result.state

    def _batch_failed(self, exc: BaseException) -> None:
        self.last_error = exc
        self._state = "failed"
        self.estimate_label.setText(f"The batch stopped: {getattr(exc, 'message', exc)} Run it again to resume.")

    def _batch_cancelled(self) -> None:
        self._state = "cancelled"

    def _batch_finished(self) -> None:
        state = self._state
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.progress.setVisible(False)
        self.run_button.setText("Resume batch" if state in ("cancelled", "failed", "incomplete") else "Run batch")
        self.refresh()
        if state == "cancelled":
            self.estimate_label.setText("Cancelled; finished features are kept. Resume to run the rest: "
                                        + self.estimate_label.text().removeprefix("Before starting: "))
        self.batchFinished.emit(state)

    # ------------------------------------------------------------------ agreement, export, BibTeX
    def choose_reference_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "CLDF folder of WALS or Grambank")
        if folder:
            self.set_reference_folder(Path(folder))

    def set_reference_folder(self, folder: Path) -> Worker | None:
        self.reference_folder = Path(folder)
        if self.project_path is None:
            return None
        path = self.project_path

        def loaded(refs: object) -> None:
            self.references = refs  # type: ignore[assignment]
            self.reference_button.setText(f"Compare: {self.reference_folder.name}")
            self.refresh()
            self.referencesLoaded.emit()

        def failed(exc: BaseException) -> None:
            self.last_error = exc
            self.summary_label.setText(f"No comparison: {getattr(exc, 'message', exc)}")

        folder = self.reference_folder
        return self.pool.start(lambda progress: backend.load_references(folder, path, progress),
                               name="references", on_result=loaded, on_error=failed)

    def export_dialog(self, fmt: str) -> None:
        if self.project_path is None:
            return
        folder = QFileDialog.getExistingDirectory(self, f"Export the profile as {fmt.upper()} into…")
        if folder:
            self.export_to(fmt, Path(folder))

    def export_to(self, fmt: str, folder: Path) -> Worker | None:
        if self.project_path is None:
            return None
        path, refs = self.project_path, self.references
        return self.pool.start(
            lambda progress: backend.export(path, fmt, folder, refs, progress), name="export",
            on_result=lambda written: self.summary_label.setText(f"Exported {written}"),
            on_error=lambda exc: self.summary_label.setText(f"Export failed: {getattr(exc, 'message', exc)}"))

    def edit_bibtex(self) -> QDialog | None:
        if self.project_path is None:
            return None
        dialog = QDialog(self)
        dialog.setWindowTitle("The grammar's BibTeX entry")
        layout = QVBoxLayout(dialog)
        layout.addWidget(QLabel("Exports cite the grammar as key[pages]. Edit the entry if the PDF's metadata was wrong."))
        editor = QPlainTextEdit(backend.get_bibtex(self.project_path))
        layout.addWidget(editor)
        error = QLabel("")
        layout.addWidget(error)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        layout.addWidget(buttons)

        def save() -> None:
            try:
                backend.set_bibtex(self.project_path, editor.toPlainText())
            except GrammarLensError as exc:
                error.setText(exc.message)
                return
            dialog.accept()

        buttons.accepted.connect(save)
        buttons.rejected.connect(dialog.reject)
        dialog.editor, dialog.error = editor, error  # type: ignore[attr-defined]
        dialog.resize(620, 320)
        dialog.open()
        self.bibtex_dialog = dialog
        return dialog

    def _row_activated(self, index) -> None:
        if index.isValid():
            entry = self.model.entry(self.proxy.mapToSource(index).row())
            self.featureActivated.emit(entry.parent_id)


def open_evidence(window: Any, feature_id: str) -> None:
    """Show the feature in the main window and scroll the PDF to the first paragraph the model cited."""
    window.select_feature(feature_id)
    hits = getattr(window, "evidence_model", None)
    cited = getattr(window, "cited", set())
    if hits is None:
        return
    row = next((r for r, hit in enumerate(hits.hits) if hit.paragraph.id in cited), 0 if hits.hits else -1)
    if row >= 0:
        window.show_evidence(row)


def install_profile_view(window: Any, menu: QMenu) -> QAction:
    """Add "Profile and export" to ``menu``; the dock is built on first use and follows the open project."""
    action = QAction("&Profile and export…", window)
    action.setShortcut(QKeySequence("Ctrl+Shift+P"))
    action.setStatusTip("The language's profile: batch runs, review status, agreement with WALS/Grambank, CLDF export")

    def show() -> ProfileView:
        view = getattr(window, "profile_view", None)
        if view is None:
            view = ProfileView(window.pool, lambda: window.settings, window)
            dock = QDockWidget("Profile", window)
            dock.setObjectName("profileDock")
            dock.setWidget(view)
            window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
            window.profile_view, window.profile_dock = view, dock
            window.projectOpened.connect(lambda path: view.set_project(path))
            window.reviewStored.connect(view.refresh)
            window.classificationFinished.connect(view.refresh)
            view.featureActivated.connect(lambda feature_id: open_evidence(window, feature_id))
            view.set_project(window.project_path)
        window.profile_dock.show()
        window.profile_dock.raise_()
        return view

    action.triggered.connect(show)
    menu.addAction(action)
    window.addAction(action)
    window.show_profile_view = show
    return action
