"""The profile dock's comparison and export: WALS/Grambank values to agree with, CLDF/CSV/JSON files, BibTeX.

Why a module of its own: comparing the profile with the databases' values (read from a CLDF folder
by the window's :class:`gui.profile.references.ReferenceSource`) and writing it out
(:mod:`core.export` through :mod:`gui.profile.profile_backend`) are jobs of their own beside running
batches.  :class:`ExportActions` is a part of :class:`gui.profile.profile_view.ProfileView` (a
mixin): it uses the dock's widgets and signals.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import cast

from PySide6.QtCore import SignalInstance
from PySide6.QtWidgets import QLabel, QMessageBox, QPushButton, QWidget

from core.errors import GrammarLensError, error_text
from core.output_paths import export_folder_in, free_folder, holds_only_exports
from gui.common import file_dialogs
from gui.common.operations import Operation, OperationRunner
from gui.profile import profile_backend as backend
from gui.profile.export_folder import KEEP_BOTH, REPLACE, replace_question, result_box, start_folder
from gui.profile.profile_bibtex import BibtexDialog
from gui.profile.references import ReferenceSource


def _dock(part: ExportActions) -> QWidget:
    """The dock itself, the parent of this part's dialogs (the mixin is only ever part of ProfileView, a QWidget)."""
    return cast(QWidget, part)


class ExportActions:
    """Compare with CLDF…, Export and Edit the grammar's BibTeX… of the profile dock."""

    # what the dock provides (see ProfileView)
    referencesLoaded: SignalInstance
    runner: OperationRunner
    source: ReferenceSource
    project_path: Path | None
    references: dict | None
    reference_folder: Path | None
    last_error: BaseException | None
    bibtex_dialog: BibtexDialog | None
    export_parent: Path | None  # the folder chosen last for an export's folder: the chooser opens there
    export_question: QMessageBox | None  # "already has a folder ulwa-cldf": replace or a new one
    export_box: QMessageBox | None  # what the last export made
    reference_button: QPushButton
    summary_label: QLabel
    _own_source: bool
    refresh: Callable[[], Operation | None]

    def choose_reference_folder(self) -> None:
        self.source.choose(_dock(self))

    def set_reference_folder(self, folder: Path) -> Operation | None:
        """Compare with the WALS/Grambank values in a CLDF folder (read in the background)."""
        self.reference_folder = Path(folder)
        if self._own_source:
            self.source.project_path = self.project_path
        return self.source.load(self.reference_folder)

    def _references_loaded(self, refs: dict) -> None:
        self.references = dict(refs) or None
        folder = self.source.folder
        self.reference_folder = folder if refs else self.reference_folder
        self.reference_button.setText(f"Compare: {folder.name}" if refs and folder else "Compare with CLDF…")
        self.reference_button.setToolTip(f"WALS/Grambank values read from {folder}" if refs and folder else
                                         "Choose a WALS or Grambank CLDF folder (or their parent)")
        if refs:
            refresh = self.refresh()
            if refresh is not None:
                refresh.finished(self.referencesLoaded.emit)

    def _references_failed(self, exc: BaseException) -> None:
        self.last_error = exc
        self.summary_label.setText(f"No comparison: {error_text(exc)}")

    def export_dialog(self, fmt: str) -> None:
        """Export → a format: choose the folder that will hold the export's own new folder (:mod:`.export_folder`)."""
        if self.project_path is None:
            return
        name = export_folder_in(Path.home(), self.project_path, fmt).name
        parent = file_dialogs.choose_folder(_dock(self),
                                            f"Export the profile: choose where its folder {name} goes",
                                            start_folder(self.export_parent))
        if parent:
            self.export_into(fmt, parent)

    def export_into(self, fmt: str, parent: Path) -> Operation | QMessageBox | None:
        """Export into a new folder named after the project inside ``parent``; ask first if that folder is there.

        Returns the export running, or the question asked (its buttons start the export), or None.
        """
        if self.project_path is None:
            return None
        try:
            target = export_folder_in(parent, self.project_path, fmt)
        except GrammarLensError as exc:
            self.summary_label.setText(f"Export failed: {exc.message} {exc.hint}")
            return None
        self.export_parent = Path(parent)
        if not target.exists():
            return self.export_to(fmt, target, overwrite=False)
        box = self.export_question = replace_question(_dock(self), target, holds_only_exports(target))

        def answered(button) -> None:
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
        if self.project_path is None:
            return None
        path, refs = self.project_path, self.references

        def done(written: backend.ExportDone) -> None:
            self.summary_label.setText(f"Exported {written}")
            self.export_box = result_box(_dock(self), fmt, Path(folder), written.warnings)
            self.export_box.open()

        return (Operation(self.runner, lambda progress: backend.export(path, fmt, folder, refs, progress,
                                                                       overwrite=overwrite))
                .success(done)
                .failure(lambda exc: self.summary_label.setText(f"Export failed: {error_text(exc)}"))
                .with_progress(f"Exporting {fmt.upper()}").run_in_background())

    def edit_bibtex(self) -> BibtexDialog | None:
        if self.project_path is None:
            return None
        self.bibtex_dialog = BibtexDialog(self.runner, self.project_path, _dock(self))
        self.bibtex_dialog.open()
        return self.bibtex_dialog
