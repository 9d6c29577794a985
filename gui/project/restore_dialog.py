"""Project → Restore from backup…: the project's backups (when, why, how big) and bringing one back.

Why a dialog of its own: GrammarLens keeps backups beside every project (:mod:`core.store.backups`:
on opening, before an upgrade, an import or a restore), and a linguist who deleted a morning's
coding by mistake, or whose file was damaged, needs them without a terminal.  The list says what
each backup holds (how many acts, the last one's time) as well as when and why it was taken, since
"hourly" alone does not say whether this morning's coding is in it.  The dialog only lists and asks;
:meth:`gui.project.project_controller.ProjectController.restore` stops the window's work, closes its
connection, restores (the current state is first kept as a backup too) and reopens.  Then a result
box (:func:`restore_result_box`) says what was restored and where the state it replaced was kept: a
status message is cut off at 1280 px and gone before it is read.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.store.backups import Backup, backup_dir, list_backups
from gui.project.project_controller import ProjectController

COLUMNS = ["Taken", "Acts", "Last act", "Why", "Size"]
REASONS = {
    "open": "when the project was opened",
    "hourly": "hourly, while the project was open",
    "before-import": "before importing batch results",
    "before-restore": "before restoring another backup",
    "manual": "made by hand",
}


def describe_reason(reason: str) -> str:
    """Why a backup was taken, in words (``before-upgrade-7``: before the upgrade to schema 7)."""
    if reason.startswith("before-upgrade-"):
        return f"before the upgrade to file version {reason.removeprefix('before-upgrade-')}"
    return REASONS.get(reason, reason.replace("-", " "))


def describe_size(size: int) -> str:
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("kB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"


def describe_time(created: datetime) -> str:
    """A backup's time in the person's own time zone, to the second (two may be taken within a minute)."""
    return created.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def describe_acts(backup: Backup) -> str:
    """How many acts a backup holds (its committed writes); "?" for one older than file version 7."""
    return str(backup.revision) if backup.revision >= 0 else "?"


def describe_last_act(backup: Backup) -> str:
    """When the last act in a backup was made, in the person's time zone ("none" for a project never written)."""
    if not backup.last_act_at:
        return "none" if backup.revision == 0 else "?"
    try:
        when = datetime.fromisoformat(backup.last_act_at.replace("Z", "+00:00"))
    except ValueError:
        return backup.last_act_at
    return describe_time(when if when.tzinfo else when.replace(tzinfo=UTC))


def describe_backup(backup: Backup) -> str:
    """One line for a backup: taken when and why, and what it holds."""
    return (f"taken {describe_time(backup.created)} ({describe_reason(backup.reason)}), holding "
            f"{describe_acts(backup)} acts, the last at {describe_last_act(backup)}")


class RestoreDialog(QDialog):
    """Lists the backups of one project, newest first; Restore… asks, then reports the chosen backup."""

    restoreConfirmed = Signal(object)  # the core.store.backups.Backup to restore, once the person said yes

    def __init__(self, project_path: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.project_path = Path(project_path)
        self.confirm_box: QMessageBox | None = None
        self.setWindowTitle(f"Restore {self.project_path.name} from a backup")
        self.setAccessibleName("Restore from backup")
        layout = QVBoxLayout(self)
        self.backups = list_backups(self.project_path)
        intro = QLabel(f"Backups of {self.project_path.name}, newest first, kept in {backup_dir(self.project_path)}. "
                       "Restoring one makes the project what it was then; its current state is kept as a backup "
                       "too, so a restore can itself be undone." if self.backups else
                       f"{self.project_path.name} has no backups yet. GrammarLens makes one when a project is "
                       "opened (at most one an hour), before an upgrade, a batch import or a restore.")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.table = QTreeWidget()
        self.table.setAccessibleName("Backups")
        self.table.setRootIsDecorated(False)
        self.table.setHeaderLabels(COLUMNS)
        self.table.headerItem().setToolTip(1, "Acts stored in the backup: every decision, note, pin, import or "
                                              "restore is one (the project's count when the backup was taken)")
        for backup in self.backups:
            item = QTreeWidgetItem([describe_time(backup.created), describe_acts(backup), describe_last_act(backup),
                                    describe_reason(backup.reason), describe_size(backup.size)])
            item.setToolTip(0, str(backup.path))
            for column in (1, 4):
                item.setTextAlignment(column, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.table.addTopLevelItem(item)
        header = self.table.header()
        for column in range(len(COLUMNS)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch if column == 3
                                        else QHeaderView.ResizeMode.ResizeToContents)
        self.table.setVisible(bool(self.backups))
        self.table.itemDoubleClicked.connect(lambda *_: self.ask_to_restore())
        layout.addWidget(self.table, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.restore_button = QPushButton("Restore…")
        self.restore_button.setEnabled(False)
        buttons.addButton(self.restore_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.restore_button.clicked.connect(self.ask_to_restore)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.table.currentItemChanged.connect(lambda item, _old: self.restore_button.setEnabled(item is not None))
        if self.backups:
            self.table.setCurrentItem(self.table.topLevelItem(0))
        self.resize(760, 320)

    def chosen(self) -> Backup | None:
        row = self.table.indexOfTopLevelItem(self.table.currentItem()) if self.table.currentItem() else -1
        return self.backups[row] if 0 <= row < len(self.backups) else None

    def ask_to_restore(self) -> QMessageBox | None:
        """Ask (window-modal, not blocking) before restoring the chosen backup; Restore reports it and closes."""
        backup = self.chosen()
        if backup is None:
            return None
        box = QMessageBox(QMessageBox.Icon.Question, "Restore this backup?",
                          f"Make {self.project_path.name} what it was at {describe_time(backup.created)} "
                          f"({describe_reason(backup.reason)})?", QMessageBox.StandardButton.NoButton, self)
        box.setInformativeText("Everything done after that time leaves the project: decisions, notes, pins, "
                               "grammars and model answers. The project's current state is kept as a backup "
                               "first (\u201cbefore restoring another backup\u201d), so you can bring it back "
                               "the same way.")
        restore = box.addButton("Restore", QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(box.addButton(QMessageBox.StandardButton.Cancel))
        box.setWindowModality(Qt.WindowModality.WindowModal)
        def clicked(button: object) -> None:
            if button is restore:
                self._confirmed(backup)

        box.buttonClicked.connect(clicked)
        self.confirm_box = box
        box.open()
        return box

    def _confirmed(self, backup: Backup) -> None:
        self.accept()
        self.restoreConfirmed.emit(backup)


def restore_result_box(parent: QWidget, project_path: Path, restored: Backup, kept: Backup | None) -> QMessageBox:
    """What a restore did: the backup brought back, and where the state it replaced was kept (or the damaged file)."""
    if kept is not None:
        where = (f"The state before the restore is kept as a backup, {describe_backup(kept)}:\n{kept.path.name}\n"
                 f"in {kept.path.parent}\n\n"
                 "To undo the restore, restore that backup (Project → Restore from backup…).")
    else:
        aside = sorted((p for p in project_path.parent.glob(f"{project_path.name}.damaged-*")
                        if not p.name.endswith(("-wal", "-shm"))), key=lambda p: p.stat().st_mtime)  # the file itself
        moved = f", to:\n{aside[-1].name}\nin {aside[-1].parent}" if aside else "."
        where = ("The project file could not be opened, so it was not backed up: it was moved aside, unchanged"
                 f"{moved}\n\nNothing of it was replayed into the project.")
    box = QMessageBox(QMessageBox.Icon.Information, "Backup restored",
                      f"{project_path.name} is now what it was in the backup {describe_backup(restored)}.",
                      QMessageBox.StandardButton.Ok, parent)
    box.setInformativeText(where)
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)  # the paths can be copied
    box.setWindowModality(Qt.WindowModality.WindowModal)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box


def restore_and_report(projects: ProjectController, parent: QWidget, backup: Backup,
                       path: Path) -> QMessageBox | None:
    """Restore ``backup`` into ``path`` (:meth:`ProjectController.restore`), then say what it did; None on failure."""
    kept: list[Backup | None] = []

    def replaced(safety: Backup | None) -> None:
        kept.append(safety)

    projects.restored.connect(replaced)
    try:
        done = projects.restore(backup.path, path)
    finally:
        projects.restored.disconnect(replaced)
    return restore_result_box(parent, path, backup, kept[0] if kept else None) if done else None


def open_restore_dialog(projects: ProjectController, parent: QWidget) -> RestoreDialog | None:
    """The dialog for the open project (or the one that just failed to open: a damaged file); None when neither."""
    path = projects.state.project_path or projects.unopened
    if path is None:
        projects.message.emit("Open a project first: its backups are kept beside it.", 5000)
        return None
    dialog = RestoreDialog(path, parent)
    dialog.restoreConfirmed.connect(lambda backup: restore_and_report(projects, parent, backup, path))
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog


def restore_action(parent: QWidget, projects: ProjectController) -> QAction:
    """Project → Restore from backup…"""
    action = QAction("Restore from &backup…", parent)
    action.setToolTip("Bring back an earlier state of the project (its current state is kept as a backup)")
    action.triggered.connect(lambda: open_restore_dialog(projects, parent))
    parent.addAction(action)
    return action
