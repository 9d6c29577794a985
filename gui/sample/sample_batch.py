"""Batch files for a whole sample: every project's unanswered prompts in one JSONL file, and the answers back.

The profile dock writes and imports batch files for the open project; a sample is where they pay off
(100 grammars × Grambank is about 19,500 prompts: one file for the OpenAI Batch API at half price, or
for vLLM's ``run_batch`` on a GPU machine).  The Sample window's *Write batch file…* and *Import batch
results…* do for the sample's projects what ``python main.py profile SAMPLE --batch-out/--batch-in``
does: the same core functions (:mod:`core.profile.batch_files`), the settings' model, in the
background with progress and Cancel.  After an import the window reads the sample again, so the new
predictions show in the heatmap and on the map.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QInputDialog, QMenu, QToolBar, QToolButton

from core.progress import Progress
from core.store.claims import AnswerClaims
from gui.common import file_dialogs
from gui.common.operations import Operation
from gui.common.settings import AppSettings
from gui.profile.profile_backend import MODE_LLM, batch_settings
from gui.profile.profile_batch_files import summarise_import, summarise_write
from gui.sample.window import SampleWindow

FEATURE_SETS = ("grambank", "wals", "paper")


def write_sample_requests(folder: Path, feature_set: str, out_path: Path, settings: AppSettings,
                          progress: Progress) -> Any:
    """The job of *Write batch file…*: the set's unanswered prompts of every project of the sample."""
    from core.coding.feature_sets import resolve_feature_set
    from core.profile.batch_files import write_batch_requests
    from core.sample.members import find_projects

    ids = resolve_feature_set(None, feature_set)
    return write_batch_requests(find_projects(folder), ids, out_path, batch_settings(settings, MODE_LLM), progress,
                                feature_set=feature_set)


def import_sample_results(folder: Path, results_path: Path, progress: Progress, claims: AnswerClaims | None = None
                          ) -> Any:
    """The job of *Import batch results…*: each answer into the project it was asked for (claimed in ``claims``)."""
    from core.profile.batch_files import import_batch_results
    from core.sample.members import find_projects

    return import_batch_results(find_projects(folder), results_path, progress, claims)


class SampleBatchFiles(QObject):
    """The Sample window's two batch-file actions, over the main window's settings (the model to ask)."""

    finished = Signal(str)  # "written" or "imported", once the window says what happened
    importing = Signal(object, object)  # an import's Operation and AnswerClaims, as it starts (the window follows it)

    def __init__(self, window: SampleWindow, settings: Callable[[], AppSettings]) -> None:
        super().__init__(window)
        self.window, self.settings = window, settings
        self.last_report: Any = None
        menu = QMenu(window)
        self.act_write = menu.addAction("Write batch file…", self.write_dialog)
        self.act_write.setToolTip("The unanswered prompts of every project of the sample, as one JSONL file for the "
                                  "OpenAI Batch API or vLLM run_batch")
        self.act_import = menu.addAction("Import batch results…", self.import_dialog)
        button = QToolButton()
        button.setText("Batch files")
        button.setMenu(menu)
        button.setAccessibleName("Batch files of the sample")
        button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        bar = window.findChild(QToolBar, "sampleToolbar")
        bar.addSeparator()
        bar.addWidget(button)

    def write_dialog(self) -> Operation | None:
        folder = self.window.folder
        if folder is None:
            return None
        chosen, ok = QInputDialog.getItem(self.window, "Batch file of the sample",
                                          "Features (a set, a saved list's name, or ids like GB020,GB107):",
                                          FEATURE_SETS, 0, True)
        if not ok or not chosen.strip():
            return None
        path = file_dialogs.choose_batch_out(self.window, folder / f"{folder.name}-{chosen.strip()}-requests.jsonl")
        return self.write(path, chosen.strip()) if path else None

    def import_dialog(self) -> Operation | None:
        folder = self.window.folder
        path = file_dialogs.choose_batch_results(self.window, folder) if folder is not None else None
        return self.import_results(path) if path else None

    def write(self, out_path: Path, feature_set: str) -> Operation | None:
        """Write the sample's requests file in the background; the status bar says what was written."""
        folder, settings = self.window.folder, self.settings()
        if folder is None:
            return None
        return self._run(lambda progress: write_sample_requests(folder, feature_set, Path(out_path), settings,
                                                                progress),
                         lambda report: summarise_write(report, feature_set).line, "written",
                         f"Writing the batch file of {folder.name}")

    def import_results(self, results_path: Path) -> Operation | None:
        """Import a results file into the sample's projects, then read the sample again."""
        folder = self.window.folder
        if folder is None:
            return None
        claims = AnswerClaims()  # the answers it stores, by project and id: the window's, not another program's
        operation = self._run(lambda progress: import_sample_results(folder, Path(results_path), progress, claims),
                              lambda report: summarise_import(report).line, "imported",
                              f"Importing {Path(results_path).name} into {folder.name}")
        self.importing.emit(operation, claims)
        return operation

    def _run(self, job: Callable[[Progress], Any], words: Callable[[Any], str], kind: str, label: str) -> Operation:
        def done(report: Any) -> None:
            self.last_report = report
            self.window.statusBar().showMessage(words(report), 30000)
            if kind == "imported" and self.window.folder is not None:
                self.window.load(self.window.folder)
            self.finished.emit(kind)

        return (Operation(self.window.runner, job).success(done)
                .failure(lambda exc: self.window.errors.report(f"The batch file was not {kind}", exc))
                .with_progress(label).run_in_background())
