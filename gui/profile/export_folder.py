"""Where an export from the window goes, and what the window says before and after it.

Why a module: an export is several files, so the window writes it into a new folder named after
the project (:func:`core.output_paths.export_folder_in`: ``ulwa-cldf``) inside the folder the person
chooses, never loose among files it did not make.  The chooser starts in the folder used last, else
the person's Documents (before, it started beside the grammar's PDF, and once a root process wrote
into ``/``).  A folder of that name that is already there is replaced only when the person says so,
and only when it holds nothing but an earlier export; otherwise the export goes into ``ulwa-cldf-2``.
Afterwards a box says which folder was made and what is in it, with a button to open it.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QStandardPaths, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox, QPushButton, QWidget

FORMAT_NAMES = {"cldf": "a CLDF StructureDataset", "csv": "a flat CSV table", "json": "JSON"}
REPLACE, KEEP_BOTH = "replace", "keep both"


def start_folder(last: Path | None) -> Path:
    """Where the folder chooser opens: the folder chosen last (if it still exists), else Documents, else home."""
    if last is not None and last.is_dir():
        return last
    documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    return Path(documents) if documents and Path(documents).is_dir() else Path.home()


def replace_question(parent: QWidget, target: Path, replaceable: bool) -> QMessageBox:
    """Ask what to do about a folder ``target`` that is already there (not shown yet: the caller opens it).

    Each answer button carries its choice in the ``choice`` property (:data:`REPLACE`, :data:`KEEP_BOTH`).
    """
    box = QMessageBox(QMessageBox.Icon.Question, "Export", f"{target.parent} already has a folder {target.name}.",
                      QMessageBox.StandardButton.Cancel, parent)
    if replaceable:
        box.setInformativeText("It holds an earlier export. Replace it, or keep it and export into a new folder?")
        replace = QPushButton("Replace it", box)
        replace.setProperty("choice", REPLACE)
        box.addButton(replace, QMessageBox.ButtonRole.DestructiveRole)
    else:
        box.setInformativeText("It holds other files, which GrammarLens leaves alone: the export goes into a new "
                               "folder beside it.")
    keep = QPushButton("Export into a new folder", box)
    keep.setProperty("choice", KEEP_BOTH)
    box.addButton(keep, QMessageBox.ButtonRole.AcceptRole)
    box.setDefaultButton(keep)
    return box


def result_box(parent: QWidget, fmt: str, folder: Path, warnings: list[str]) -> QMessageBox:
    """What the export made: the folder, its files, what it had to leave out; a button opens the folder."""
    files = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
    box = QMessageBox(QMessageBox.Icon.Information, "Export done",
                      f"The profile was exported as {FORMAT_NAMES.get(fmt, fmt)} into the folder {folder.name}.",
                      QMessageBox.StandardButton.Ok, parent)
    listing = "\n".join(f"  {name}" for name in files)
    left_out = "".join(f"\n\nWarning: {w}" for w in warnings)
    box.setInformativeText(f"{folder}\n\n{listing}{left_out}")
    opener = QPushButton("Open the folder", box)  # parented: PySide does not hand addButton ownership
    box.addButton(opener, QMessageBox.ButtonRole.ActionRole)  # ActionRole: the box stays open
    opener.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))))
    return box
