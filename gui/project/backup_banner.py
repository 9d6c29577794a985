"""The backup banner: said at once when the open project could not be backed up, until dismissed or a backup works.

A failed backup must not interrupt (no dialog every hour), but a status-bar line is gone in
seconds and is cut off by the language field; a strip above the panels stays readable.
"""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from gui.common.notice_strip import NoticeStrip, StripLook

BACKUP_LOOK = StripLook("backupBanner", "#fde2e1", "#e3a3a0", "#5c1411", "Backup problem",
                        "Dismiss", "Dismiss the backup problem")


class BackupBanner(NoticeStrip):
    """A red strip above the panels saying why no backup was taken; hidden while backups work."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(BACKUP_LOOK, parent=parent)
        self.button.clicked.connect(self.hide)
        self.hide()

    def show_problem(self, message: str, hint: str) -> None:
        self.label.setText(f"<b>No backup of this project could be taken.</b> {message} {hint} "
                           "Your work is still saved in the project; Project → Restore from backup… lists the "
                           "backups there are.")
        self.show()
