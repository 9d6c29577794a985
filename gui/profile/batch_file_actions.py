"""The profile dock's batch files: the set's unanswered prompts written as a JSONL file, and its answers imported.

Why a module of its own: answering a set elsewhere (the OpenAI Batch API at half price, or vLLM
``run_batch`` on a GPU machine) is a job of its own beside running a batch in the app.  The file is
written or read in the background (:mod:`core.profile.batch_files` through
:mod:`gui.profile.profile_backend`) with the dock's progress bar and Cancel;
:mod:`gui.profile.profile_batch_files` words the report.  :class:`BatchFileActions` is a part of
:class:`gui.profile.profile_view.ProfileView` (a mixin): it uses the dock's widgets and signals.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from PySide6.QtCore import SignalInstance
from PySide6.QtWidgets import QLabel, QMessageBox, QProgressBar, QPushButton, QWidget

from core.changes import ProjectChange
from core.store.watch import Written
from gui.common import file_dialogs
from gui.common.changes import ProjectChanges
from gui.common.error_dialog import error_box
from gui.common.operations import Operation, OperationRunner
from gui.common.settings import AppSettings
from gui.profile import profile_backend as backend
from gui.profile.profile_batch_files import FILE_CANCEL_NOTES, Summary, report_box, summarise_import, summarise_write


def _announce(changes: ProjectChanges, change: ProjectChange, initiator: object) -> None:
    if not change.empty:
        changes.announce(change, initiator)


def _dock(part: BatchFileActions) -> QWidget:
    """The dock itself, the parent of this part's dialogs (the mixin is only ever part of ProfileView, a QWidget)."""
    return cast(QWidget, part)


class BatchFileActions:
    """Export batch file…, Import batch results… of the profile dock."""

    # what the dock provides (see ProfileView)
    batchFileFinished: SignalInstance
    runner: OperationRunner
    settings: Callable[[], AppSettings]
    project_path: Path | None
    run_button: QPushButton
    batch_file_button: QPushButton
    cancel_button: QPushButton
    progress: QProgressBar
    estimate_label: QLabel
    last_error: BaseException | None
    last_result: Any | None
    report_box: QMessageBox | None
    _note: str
    _estimate_key: tuple[str, str] | None
    _file_op: Operation | None
    _file_kind: str
    feature_set: Callable[[], str]
    changes: ProjectChanges | None = None  # the window's runner of acts (none: a dock on its own, in tests)
    refresh: Callable[[], Operation | None]
    if TYPE_CHECKING:
        @property
        def running(self) -> bool: ...

    def export_batch_dialog(self) -> Operation | None:
        """Ask where to write the chosen set's unanswered prompts, then write them in the background."""
        if self.project_path is None or self.running:
            return None
        stem = "".join(c if c.isalnum() or c in "-_" else "-" for c in self.feature_set())[:40] or "features"
        suggested = self.project_path.with_name(f"{self.project_path.stem}-{stem}-requests.jsonl")
        path = file_dialogs.choose_batch_out(_dock(self), suggested)
        return self.export_batch_file(path) if path else None

    def import_results_dialog(self) -> Operation | None:
        """Ask for a results file (OpenAI Batch API or vLLM run_batch output), then import it in the background."""
        if self.project_path is None or self.running:
            return None
        path = file_dialogs.choose_batch_results(_dock(self), self.project_path.parent)
        return self.import_batch_results(path) if path else None

    def export_batch_file(self, out_path: Path) -> Operation | None:
        """Write the chosen set's unanswered prompts to ``out_path``; ``batchFileFinished`` says when done."""
        if self.project_path is None or self.running:
            return None
        path, feature_set, settings = self.project_path, self.feature_set(), self.settings()
        return self._run_file_op(
            lambda progress: backend.write_batch_file(path, feature_set, Path(out_path), settings, progress),
            lambda report: summarise_write(report, feature_set), "written", "Writing the batch file")

    def import_batch_results(self, results_path: Path) -> Operation | None:
        """Import a results file into the project; ``batchFileFinished`` says when the table shows it."""
        if self.project_path is None or self.running:
            return None
        path, changes = self.project_path, self.changes
        operation = self._run_file_op(lambda progress: backend.import_batch_file(path, Path(results_path), progress),
                                      summarise_import, "imported", "Importing the results")
        if changes is not None:  # an act: its record (the features answered) reaches every panel, once
            changes.writing(operation, frozenset({Written.ANSWERS})).success(
                lambda report: _announce(changes, report.change_for(path), self))
        return operation

    def _run_file_op(self, job: Callable, summarise: Callable[[Any], Summary], kind: str, doing: str) -> Operation:
        """Run a batch-file job with the dock's progress bar and Cancel, then report and refresh."""
        self.last_error = self.last_result = None
        outcome = {"state": "failed"}

        def done(report: Any) -> None:
            self.last_result, outcome["state"] = report, kind
            summary = summarise(report)
            self._note = summary.line + " "
            self.report_box = report_box(_dock(self), summary)

        def failed(exc: BaseException) -> None:
            self.last_error = exc
            self._note = f"{getattr(exc, 'message', exc)} "
            self.report_box = error_box(_dock(self), "Batch file", exc)

        def cancelled() -> None:
            outcome["state"] = "cancelled"
            self._note = FILE_CANCEL_NOTES[kind][1] + " "

        def finished() -> None:
            self.run_button.setEnabled(True)
            self.batch_file_button.setEnabled(True)
            self.cancel_button.setEnabled(False)
            self.progress.setVisible(False)
            self.estimate_label.setText(self._note)
            self._estimate_key = None  # answered features changed: a Run asks for a fresh estimate
            refresh = self.refresh()
            if refresh is None:
                self.batchFileFinished.emit(outcome["state"])
            else:
                refresh.finished(lambda: self.batchFileFinished.emit(outcome["state"]))

        self._file_kind = kind
        self.run_button.setEnabled(False)
        self.batch_file_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setVisible(True)
        self.progress.setMaximum(0)
        self.estimate_label.setText(doing + "…")
        self._file_op = (Operation(self.runner, job).success(done).failure(failed).cancelled(cancelled)
                         .progress(self._file_progress).finished(finished).run_in_background())
        return self._file_op

    def _file_progress(self, done: int, total: int, message: str) -> None:
        self.progress.setMaximum(max(total, 1))
        self.progress.setValue(min(done, total))
        self.progress.setFormat(f"%p% {message}")
