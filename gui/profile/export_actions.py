"""The profile dock's comparison and export: WALS/Grambank values to agree with, CLDF/CSV/JSON files, BibTeX.

Why a module of its own: comparing the profile with the databases' values (read from a CLDF folder
by the window's :class:`gui.profile.references.ReferenceSource`) and writing it out
(:mod:`core.export` through :mod:`gui.profile.profile_backend`) are jobs of their own beside running
batches.  :class:`ProfileExports` is composed by the dock (:class:`gui.profile.profile_view.ProfileView`):
it reads the dock through :class:`gui.profile.batch_controls.DockTarget`, writes its own summary line and
Compare button, and says ``referencesChanged``; the dock refreshes its table.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QAbstractButton, QLabel, QMessageBox, QPushButton, QWidget

from core.errors import GrammarLensError, error_text
from core.output_paths import export_folder_in, free_folder, holds_only_exports
from gui.common import file_dialogs
from gui.common.operations import Operation, OperationRunner
from gui.profile import profile_backend as backend
from gui.profile.batch_controls import DockTarget
from gui.profile.export_folder import KEEP_BOTH, REPLACE, replace_question, result_box, start_folder
from gui.profile.profile_bibtex import BibtexDialog
from gui.profile.references import ReferenceSource


class ProfileExports(QObject):
    """Compare with CLDF…, Export and Edit the grammar's BibTeX… of the profile dock."""

    referencesChanged = Signal()  # values to compare with arrived: the dock reads the profile again

    def __init__(self, dock: DockTarget, parent: QWidget, runner: OperationRunner, source: ReferenceSource,
                 own_source: bool, summary_label: QLabel, reference_button: QPushButton) -> None:
        super().__init__(parent)
        self.dock, self.parent_widget, self.runner, self.source = dock, parent, runner, source
        self.own_source = own_source  # a dock on its own (no window) compares each project with the folder chosen last
        self.summary_label, self.reference_button = summary_label, reference_button
        self.references: dict | None = None
        self.reference_folder: Path | None = None
        self.last_error: BaseException | None = None
        self.bibtex_dialog: BibtexDialog | None = None
        self.export_parent: Path | None = None  # the folder chosen last for an export's folder: the chooser opens there
        self.export_question: QMessageBox | None = None  # "already has a folder ulwa-cldf": replace or a new one
        self.export_box: QMessageBox | None = None  # what the last export made
        source.loaded.connect(self.references_loaded)
        source.failed.connect(lambda _title, exc: self.references_failed(exc))
        if source.references:
            self.references_loaded(source.references)

    def project_changed(self) -> None:
        """A dock on its own reads the folder chosen last for the new project (the window's source does it itself)."""
        if self.own_source:
            self.source.set_project(self.dock.project_path)
            if self.reference_folder is not None and self.dock.project_path is not None:
                self.set_reference_folder(self.reference_folder)

    def choose_reference_folder(self) -> None:
        self.source.choose(self.parent_widget)

    def set_reference_folder(self, folder: Path) -> Operation | None:
        """Compare with the WALS/Grambank values in a CLDF folder (read in the background)."""
        self.reference_folder = Path(folder)
        if self.own_source:
            self.source.project_path = self.dock.project_path
        return self.source.load(self.reference_folder)

    def references_loaded(self, refs: dict) -> None:
        self.references = dict(refs) or None
        folder = self.source.folder
        self.reference_folder = folder if refs else self.reference_folder
        self.reference_button.setText(f"Compare: {folder.name}" if refs and folder else "Compare with CLDF…")
        self.reference_button.setToolTip(f"WALS/Grambank values read from {folder}" if refs and folder else
                                         "Choose a WALS or Grambank CLDF folder (or their parent)")
        if refs:
            self.referencesChanged.emit()

    def references_failed(self, exc: BaseException) -> None:
        self.last_error = exc
        self.summary_label.setText(f"No comparison: {error_text(exc)}")

    def export_dialog(self, fmt: str) -> None:
        """Export → a format: choose the folder that will hold the export's own new folder (:mod:`.export_folder`)."""
        if self.dock.project_path is None:
            return
        name = export_folder_in(Path.home(), self.dock.project_path, fmt).name
        parent = file_dialogs.choose_folder(self.parent_widget,
                                            f"Export the profile: choose where its folder {name} goes",
                                            start_folder(self.export_parent))
        if parent:
            self.export_into(fmt, parent)

    def export_into(self, fmt: str, parent: Path) -> Operation | QMessageBox | None:
        """Export into a new folder named after the project inside ``parent``; ask first if that folder is there.

        Returns the export running, or the question asked (its buttons start the export), or None.
        """
        project = self.dock.project_path
        if project is None:
            return None
        try:
            target = export_folder_in(parent, project, fmt)
        except GrammarLensError as exc:
            self.summary_label.setText(f"Export failed: {exc.message} {exc.hint}")
            return None
        self.export_parent = Path(parent)
        if not target.exists():
            return self.export_to(fmt, target, overwrite=False)
        box = self.export_question = replace_question(self.parent_widget, target, holds_only_exports(target))

        def answered(button: QAbstractButton) -> None:
            choice = button.property("choice")
            if choice == REPLACE:
                self.export_to(fmt, target, overwrite=True)
            elif choice == KEEP_BOTH:
                self.export_to(fmt, free_folder(target), overwrite=False)

        box.buttonClicked.connect(answered)
        box.open()
        return box

    def export_to(self, fmt: str, folder: Path, *, overwrite: bool = False) -> Operation | None:
        """Export into ``folder`` itself (made if missing); an earlier export there is replaced if ``overwrite``."""
        path, refs = self.dock.project_path, self.references
        if path is None:
            return None

        def done(written: backend.ExportDone) -> None:
            self.summary_label.setText(f"Exported {written}")
            self.export_box = result_box(self.parent_widget, fmt, Path(folder), written.warnings)
            self.export_box.open()

        return (Operation(self.runner, lambda progress: backend.export(path, fmt, folder, refs, progress,
                                                                       overwrite=overwrite))
                .success(done)
                .failure(lambda exc: self.summary_label.setText(f"Export failed: {error_text(exc)}"))
                .with_progress(f"Exporting {fmt.upper()}").run_in_background())

    def edit_bibtex(self) -> BibtexDialog | None:
        if self.dock.project_path is None:
            return None
        self.bibtex_dialog = BibtexDialog(self.runner, self.dock.project_path, self.parent_widget)
        self.bibtex_dialog.open()
        return self.bibtex_dialog
