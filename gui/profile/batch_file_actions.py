"""The profile dock's batch files: the set's unanswered prompts written as a JSONL file, and its answers imported.

Why an object of its own: answering a set elsewhere (the OpenAI Batch API at half price, or vLLM
``run_batch`` on a GPU machine) is a job of its own beside running a batch in the app.  The file is
written or read in the background (:mod:`core.profile.batch_files` through
:mod:`gui.profile.profile_backend`) with the dock's run row (:class:`gui.profile.batch_controls.BatchControls`);
:mod:`gui.profile.profile_batch_files` words the report.  :class:`BatchFiles` is composed by the dock: it
reads the dock through :class:`gui.profile.batch_controls.DockTarget` and says ``finished``; the dock
refreshes its table and says ``batchFileFinished``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from core.changes import ProjectChange
from core.errors import error_text
from core.progress import Progress
from core.store.claims import AnswerClaims
from gui.common import file_dialogs
from gui.common.changes import ProjectChanges
from gui.common.error_dialog import error_box
from gui.common.operations import Operation, OperationRunner
from gui.common.settings import AppSettings
from gui.profile import profile_backend as backend
from gui.profile.batch_controls import BatchControls, DockTarget
from gui.profile.profile_batch_files import FILE_CANCEL_NOTES, Summary, report_box, summarise_import, summarise_write


def _announce(changes: ProjectChanges, change: ProjectChange, initiator: object) -> None:
    if not change.empty:
        changes.announce(change, initiator)


class BatchFiles(QObject):
    """Export batch file…, Import batch results… of the profile dock."""

    finished = Signal(str)  # "written", "imported", "cancelled" or "failed" (the dock then refreshes its table)

    def __init__(self, dock: DockTarget, parent: QWidget, runner: OperationRunner, settings: Callable[[], AppSettings],
                 controls: BatchControls) -> None:
        super().__init__(parent)
        self.dock, self.parent_widget, self.runner, self.settings, self.controls = (dock, parent, runner, settings,
                                                                                    controls)
        self.operation: Operation | None = None  # writing a batch file or importing its results
        self.kind = "written"  # which of the two (see FILE_CANCEL_NOTES)
        self.report_box: QMessageBox | None = None  # the last batch-file report or error shown
        self.last_error: BaseException | None = None
        self.last_result: Any | None = None
        self.changes: ProjectChanges | None = None  # the window's runner of acts (none: a dock on its own, in tests)

    @property
    def running(self) -> bool:
        return self.operation is not None and self.operation.running

    def export_batch_dialog(self) -> Operation | None:
        """Ask where to write the chosen set's unanswered prompts, then write them in the background."""
        project = self.dock.project_path
        if project is None or self.dock.running:
            return None
        stem = "".join(c if c.isalnum() or c in "-_" else "-" for c in self.dock.feature_set())[:40] or "features"
        suggested = project.with_name(f"{project.stem}-{stem}-requests.jsonl")
        path = file_dialogs.choose_batch_out(self.parent_widget, suggested)
        return self.export_batch_file(path) if path else None

    def import_results_dialog(self) -> Operation | None:
        """Ask for a results file (OpenAI Batch API or vLLM run_batch output), then import it in the background."""
        project = self.dock.project_path
        if project is None or self.dock.running:
            return None
        path = file_dialogs.choose_batch_results(self.parent_widget, project.parent)
        return self.import_batch_results(path) if path else None

    def export_batch_file(self, out_path: Path) -> Operation | None:
        """Write the chosen set's unanswered prompts to ``out_path``; ``finished`` says when done."""
        path = self.dock.project_path
        if path is None or self.dock.running:
            return None
        feature_set, settings = self.dock.feature_set(), self.settings()
        return self._run(
            lambda progress: backend.write_batch_file(path, feature_set, Path(out_path), settings, progress),
            lambda report: summarise_write(report, feature_set), "written", "Writing the batch file")

    def import_batch_results(self, results_path: Path) -> Operation | None:
        """Import a results file into the project; ``finished`` says when it is stored."""
        path = self.dock.project_path
        if path is None or self.dock.running:
            return None
        changes, claims = self.changes, AnswerClaims()  # its answers, by id (another program's import stays theirs)
        operation = self._run(lambda progress: backend.import_batch_file(path, Path(results_path), progress, claims),
                              summarise_import, "imported", "Importing the results")
        if changes is not None:  # an act: its record (the features answered) reaches every panel, once
            changes.claiming(operation, claims).success(
                lambda report: _announce(changes, report.change_for(path), self.dock))
        return operation

    def cancel(self) -> None:
        """Stop the file job at its next step; the line says what is kept."""
        if self.operation is not None and self.operation.running:
            self.operation.cancel()
            self.controls.estimate_label.setText(FILE_CANCEL_NOTES[self.kind][0])

    def _run(self, job: Callable[[Progress], Any], summarise: Callable[[Any], Summary], kind: str,
             doing: str) -> Operation:
        """Run a batch-file job with the dock's run row, then report."""
        self.last_error = self.last_result = None
        outcome = {"state": "failed"}

        def done(report: Any) -> None:
            self.last_result, outcome["state"] = report, kind
            summary = summarise(report)
            self.controls.note = summary.line + " "
            self.report_box = report_box(self.parent_widget, summary)

        def failed(exc: BaseException) -> None:
            self.last_error = exc
            self.controls.note = f"{error_text(exc)} "
            self.report_box = error_box(self.parent_widget, "Batch file", exc)

        def cancelled() -> None:
            outcome["state"] = "cancelled"
            self.controls.note = FILE_CANCEL_NOTES[kind][1] + " "

        def ended() -> None:
            self.controls.idle()
            self.finished.emit(outcome["state"])

        self.kind = kind
        self.controls.busy(doing)
        self.operation = (Operation(self.runner, job).success(done).failure(failed).cancelled(cancelled)
                          .progress(lambda d, t, m: self.controls.show_progress(d, t, f"%p% {m}"))
                          .finished(ended).run_in_background())
        return self.operation
