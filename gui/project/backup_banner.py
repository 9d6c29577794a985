"""The backup banner: said at once when the open project could not be backed up, until dismissed or a backup works.

A failed backup must not interrupt (no dialog every hour), but a status-bar line is gone in
seconds and is cut off by the language field; a strip above the panels stays readable.
"""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget


class BackupBanner(QFrame):
    """A red strip above the panels saying why no backup was taken; hidden while backups work."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("backupBanner")
        self.setStyleSheet("#backupBanner { background: #fde2e1; border-bottom: 1px solid #e3a3a0; }"
                           "#backupBanner QLabel { color: #5c1411; }")
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 6, 10, 6)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setAccessibleName("Backup problem")
        row.addWidget(self.label, 1)
        dismiss = QPushButton("Dismiss")
        dismiss.setAccessibleName("Dismiss the backup problem")
        dismiss.clicked.connect(self.hide)
        row.addWidget(dismiss)
        self.hide()

    def show_problem(self, message: str, hint: str) -> None:
        self.label.setText(f"<b>No backup of this project could be taken.</b> {message} {hint} "
                           "Your work is still saved in the project; Project → Restore from backup… lists the "
                           "backups there are.")
        self.show()
