"""The grammar's BibTeX entry, edited from the profile dock (exports cite the grammar as key[pages]).

A module of its own so the dock's module keeps to the dock; reading and saving run in the background
through :mod:`gui.profile.profile_backend`, never on the UI thread.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from core.errors import error_text
from gui.common.operations import Operation, OperationRunner
from gui.profile import profile_backend as backend


class BibtexDialog(QDialog):
    """Edits the grammar's BibTeX entry; reading and saving it run in the background."""

    loaded = Signal()
    saveFailed = Signal(str)

    def __init__(self, runner: OperationRunner, project_path: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner, self.project_path = runner, project_path
        self.setWindowTitle("The grammar's BibTeX entry")
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Exports cite the grammar as key[pages]. Edit the entry if the PDF's metadata was "
                                "wrong."))
        self.editor = QPlainTextEdit("")
        self.editor.setPlaceholderText("Reading the entry…")
        self.editor.setEnabled(False)
        layout.addWidget(self.editor)
        self.error = QLabel("")
        layout.addWidget(self.error)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.resize(620, 320)
        (Operation(runner, lambda progress: backend.get_bibtex(project_path))
         .success(self._loaded).failure(lambda exc: self._failed(exc)).run_in_background())

    def _loaded(self, text: str) -> None:
        self.editor.setPlainText(text)
        self.editor.setEnabled(True)
        self.loaded.emit()

    def _failed(self, exc: BaseException) -> None:
        message = error_text(exc)
        self.error.setText(message)
        self.saveFailed.emit(message)

    def save(self) -> None:
        text, path = self.editor.toPlainText(), self.project_path
        (Operation(self.runner, lambda progress: backend.set_bibtex(path, text))
         .success(lambda _entry: self.accept()).failure(self._failed).run_in_background())
