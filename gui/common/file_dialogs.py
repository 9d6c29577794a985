"""Every file chooser of the app, built so that listing a folder never opens a file in it.

Why this module exists: Qt's file dialog asks an icon provider for each file's icon and type, and
the stock provider sniffs the MIME type of files with unknown suffixes (``.grammarlens``,
``-wal``, ``-shm``) by opening and closing them.  Closing any descriptor on a file drops every
POSIX lock this process holds on it, SQLite's included, so merely *listing* the folder of an open
project let another process delete the project's live write-ahead log (see
:mod:`core.store.file_guard`).  Hence, for every chooser:

- Qt's own dialog, never the platform's (``DontUseNativeDialog``): an in-process GTK or KDE dialog
  sniffs files the same way, and which one runs would depend on the user's desktop;
- a :class:`NameOnlyIconProvider` that answers from the file name alone, without touching the file.

Nothing else in ``gui/`` may create a ``QFileDialog`` (a test enforces it), so the guarantee does
not depend on which dialog a user happens to open.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from PySide6.QtCore import QFileInfo, QSettings
from PySide6.QtGui import QAbstractFileIconProvider, QAction, QIcon
from PySide6.QtWidgets import QApplication, QFileDialog, QMenu, QStyle, QWidget

from core.store import PROJECT_SUFFIX
from gui.common import projects

_TYPES = {".pdf": "PDF document", PROJECT_SUFFIX: "GrammarLens project", ".jsonl": "Batch file",
          ".csv": "CSV table", ".json": "JSON file"}


class NameOnlyIconProvider(QAbstractFileIconProvider):
    """Icons and type names from names alone: never opens, reads or sniffs a file.

    Qt calls it from its file-information thread, so the icons are made once, on the GUI thread,
    and only shared afterwards (QIcon copies are reference-counted and safe to hand across).
    """

    def __init__(self) -> None:
        super().__init__()
        style = QApplication.style()
        self._folder = style.standardIcon(QStyle.StandardPixmap.SP_DirIcon)
        self._file = style.standardIcon(QStyle.StandardPixmap.SP_FileIcon)
        self._drive = style.standardIcon(QStyle.StandardPixmap.SP_DriveHDIcon)
        self._computer = style.standardIcon(QStyle.StandardPixmap.SP_ComputerIcon)

    def icon(self, what: object) -> QIcon:
        if isinstance(what, QFileInfo):
            if what.isRoot():
                return QIcon(self._drive)
            return QIcon(self._folder if what.isDir() else self._file)
        kinds = QAbstractFileIconProvider.IconType
        if what == kinds.Computer:
            return QIcon(self._computer)
        if what in (kinds.Drive, kinds.Network):
            return QIcon(self._drive)
        return QIcon(self._folder if what in (kinds.Folder, kinds.Desktop, kinds.Trashcan) else self._file)

    def type(self, info: QFileInfo) -> str:
        if info.isDir():
            return "Folder"
        suffix = "." + info.suffix().lower() if info.suffix() else ""
        return _TYPES.get(suffix, "File")


def _dialog(parent: QWidget | None, title: str, start: Path | str | None, filters: str = "") -> QFileDialog:
    # no start: the data folder's projects, never the working directory (the source checkout, for main.py)
    dialog = QFileDialog(parent, title, str(start or projects.projects_dir()), filters)
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    dialog.setOption(QFileDialog.Option.DontUseCustomDirectoryIcons, True)
    provider = NameOnlyIconProvider()
    dialog.setIconProvider(provider)
    dialog._icon_provider = provider  # Qt does not own it: keep it alive
    return dialog


def open_file_dialog(parent: QWidget | None, title: str, start: Path | str | None, filters: str) -> QFileDialog:
    """A chooser for one existing file (not yet shown): the tests open it non-modally."""
    dialog = _dialog(parent, title, start, filters)
    dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptOpen)
    return dialog


def save_file_dialog(parent: QWidget | None, title: str, start: Path | str | None, filters: str) -> QFileDialog:
    dialog = _dialog(parent, title, start, filters)
    dialog.setFileMode(QFileDialog.FileMode.AnyFile)
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    return dialog


def folder_dialog(parent: QWidget | None, title: str, start: Path | str | None) -> QFileDialog:
    dialog = _dialog(parent, title, start)
    dialog.setFileMode(QFileDialog.FileMode.Directory)
    dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
    return dialog


def _run(dialog: QFileDialog) -> Path | None:
    try:
        if dialog.exec() != QFileDialog.DialogCode.Accepted or not dialog.selectedFiles():
            return None
        return Path(dialog.selectedFiles()[0])
    finally:
        dialog.deleteLater()


def choose_new_project(parent: QWidget, start: Path | None = None) -> Path | None:
    dialog = save_file_dialog(parent, "New project", start, f"GrammarLens projects (*{PROJECT_SUFFIX})")
    dialog.setDefaultSuffix(PROJECT_SUFFIX.lstrip("."))
    return _run(dialog)


def choose_project(parent: QWidget, start: Path | None = None) -> Path | None:
    return _run(open_file_dialog(parent, "Open project", start,
                                 f"GrammarLens projects (*{PROJECT_SUFFIX});;All files (*)"))


def choose_grammar(parent: QWidget, start: Path | None = None, title: str = "Add a grammar PDF") -> Path | None:
    return _run(open_file_dialog(parent, title, start, "PDF files (*.pdf)"))


def choose_batch_out(parent: QWidget, suggested: Path) -> Path | None:
    dialog = save_file_dialog(parent, "Export a batch file", suggested, "Batch files (*.jsonl)")
    dialog.setDefaultSuffix("jsonl")
    return _run(dialog)


def choose_batch_results(parent: QWidget, start: Path) -> Path | None:
    return _run(open_file_dialog(parent, "Import batch results", start, "Batch results (*.jsonl);;All files (*)"))


def choose_figure_out(parent: QWidget, suggested: Path, kind: str = "png") -> Path | None:
    """Where to save a figure of the Sample window: ``kind`` "png" or "svg" (the suffix is added when missing)."""
    filters = "PNG images (*.png)" if kind == "png" else "SVG drawings (*.svg)"
    dialog = save_file_dialog(parent, f"Export the figure as {kind.upper()}", suggested, filters)
    dialog.setDefaultSuffix(kind)
    return _run(dialog)


def choose_folder(parent: QWidget | None, title: str, start: Path | str | None = None) -> Path | None:
    return _run(folder_dialog(parent, title, start))


def fill_recent_menu(menu: QMenu, store: QSettings, open_project: Callable[[Path], object]) -> None:
    """The recent projects that still exist, newest first (filled each time the menu opens; ``exists`` only stats)."""
    menu.clear()
    recent = [p for p in projects.recent_projects(store) if p.exists()]
    if not recent:
        none = QAction("(none)", menu)
        none.setEnabled(False)
        menu.addAction(none)
    for path in recent:
        menu.addAction(path.name, lambda p=path: open_project(p)).setToolTip(str(path))
