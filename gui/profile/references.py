"""The WALS/Grambank values of the open project's language, read from a CLDF folder remembered per project.

Why a source of its own: two places compare the linguist's values with the databases, the
profile dock (agreement column, export) and the coding pass ("disagreeing with WALS/Grambank"
filter).  Both need the same values, and a coder should choose the CLDF folder once per project,
not once per session.  The folder is remembered in the window's QSettings under the project's
path (a project file stays free of paths of one machine); when a project opens and its folder
still exists, the values are read again in the background (:class:`gui.common.operations.Operation`).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from core.errors import GrammarLensError
from core.progress import Progress
from core.store import open_project
from core.store.repository import get_language
from gui.coding.coding_controller import CodingController
from gui.common import file_dialogs
from gui.common.operations import Operation, OperationRunner, replace
from gui.profile import profile_backend
from gui.project.project_controller import ProjectController


def _read(folder: Path, project_path: Path, progress: Progress) -> dict:
    """The language's values in ``folder``; a language without a Glottocode is refused with the app's own hint."""
    with open_project(project_path, readonly=True) as project:
        language = get_language(project)
    if language is None or not language.glottocode:
        raise GrammarLensError("The project's language has no Glottocode, so its WALS and Grambank values "
                               "cannot be found.", "Set it in Project → Language… (the list there gives the "
                               "WALS and Grambank languages with their Glottocodes).")
    return profile_backend.load_references(folder, project_path, progress)


CHOOSE_TITLE = "CLDF folder of WALS or Grambank (or the folder holding both)"


class ReferenceSource(QObject):
    """Reads, remembers and hands out the language's WALS/Grambank values."""

    loaded = Signal(object)  # dict: feature id -> the database's code (empty when the project closed)
    failed = Signal(str, object)  # title, exception
    message = Signal(str, int)

    def __init__(self, runner: OperationRunner, store: QSettings | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner, self.store = runner, store
        self.project_path: Path | None = None
        self.folder: Path | None = None
        self.references: dict | None = None
        self._reading: Operation | None = None

    @property
    def reading(self) -> bool:
        return self._reading is not None and self._reading.running

    def needed(self, parent: QWidget | None) -> QMessageBox | None:
        """The values are wanted now: wait for the ones being read, else offer to choose a folder."""
        if self.reading:
            self.message.emit("Reading the WALS/Grambank values of the language…", 4000)
            return None
        return self.offer_choice(parent)

    @staticmethod
    def _key(project: Path) -> str:
        return "references/" + str(project).replace("/", "|").replace("\\", "|")

    def remembered(self, project: Path | None) -> Path | None:
        """The CLDF folder chosen for ``project`` earlier (None when none was, or no store keeps it)."""
        if project is None or self.store is None:
            return None
        value = str(self.store.value(self._key(project), "") or "")
        return Path(value) if value else None

    def set_project(self, path: str | Path | None) -> Operation | None:
        """Follow the open project: forget the old values; read the remembered folder's, if it still exists."""
        self.project_path = Path(path) if path else None
        self.references, self.folder = None, None
        if self._reading is not None:
            self._reading.cancel()
        self.loaded.emit({})
        folder = self.remembered(self.project_path)
        return self.load(folder) if folder is not None and folder.is_dir() else None

    def load(self, folder: Path) -> Operation | None:
        """Read the language's values from ``folder`` in the background; remember the folder once read."""
        path = self.project_path
        if path is None:
            return None
        folder = Path(folder)

        def done(refs: dict) -> None:
            if path != self.project_path:
                return
            self.references, self.folder = refs, folder
            if self.store is not None:
                self.store.setValue(self._key(path), str(folder))
            self.loaded.emit(refs)
            self.message.emit(f"{len(refs)} WALS/Grambank values of the language read from {folder.name}." if refs else
                              f"{folder.name} holds no WALS/Grambank value for this language's Glottocode; "
                              "check it in Project → Language…", 8000)

        self._reading = replace(self._reading, Operation(self.runner, lambda progress: _read(folder, path, progress))
            .success(done).failure(lambda exc: self.failed.emit("Cannot compare with WALS/Grambank", exc))
            .with_progress("Reading the CLDF values"))
        return self._reading

    def choose(self, parent: QWidget | None) -> Operation | None:
        """Ask for the CLDF folder (starting at the remembered one) and read it."""
        start = self.folder or self.remembered(self.project_path)
        near = start.parent if start else (self.project_path.parent if self.project_path else None)
        folder = file_dialogs.choose_folder(parent, CHOOSE_TITLE, near)
        return self.load(folder) if folder else None

    def offer_choice(self, parent: QWidget | None) -> QMessageBox:
        """Say why a comparison needs a CLDF folder and offer to choose one (not blocking)."""
        box = QMessageBox(QMessageBox.Icon.Information, "Compare with WALS and Grambank",
                          "To find the features where your values disagree with WALS or Grambank, GrammarLens "
                          "reads the databases' values for this language from their CLDF data.", parent=parent)
        box.setInformativeText("Choose the folder of the WALS or Grambank CLDF dataset (or a folder holding "
                               "both). It is remembered for this project.")
        choose = box.addButton("Choose CLDF folder…", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.buttonClicked.connect(lambda button: button is choose and self.choose(parent))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        return box


def connect_references(source: ReferenceSource, projects: ProjectController, coding: CodingController,
                       parent: QWidget) -> None:
    """Follow the open project, hand its values to the coding pass, and offer a folder when the pass needs one."""
    projects.opened.connect(source.set_project)
    projects.closed.connect(lambda: source.set_project(None))
    source.loaded.connect(coding.passes.set_references)
    coding.passes.referencesNeeded.connect(lambda: source.needed(parent))
