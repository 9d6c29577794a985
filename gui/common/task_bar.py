"""The task bar: what runs in the background, how far it got, and Cancel.

It listens to the :class:`gui.common.operations.OperationRunner` and shows the newest visible
operation; quiet operations (a catalog load, a profile refresh) never appear.  Cancel stops every
visible one, which is what Esc does too.
"""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QSizePolicy, QWidget

from gui.common.operations import OperationRunner


class TaskBar(QWidget):
    """Label, progress bar and Cancel button, hidden while nothing runs."""

    def __init__(self, runner: OperationRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel("")
        self.label.setAccessibleName("Running task")
        self.progress_bar = QProgressBar()
        self.progress_bar.setMaximumWidth(220)
        self.progress_bar.setAccessibleName("Progress of the running task")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setAccessibleName("Cancel the running task")
        self.cancel_button.setToolTip("Stop the running task (Esc); nothing half-done is kept")
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)  # a button, not a bar
        for widget in (self.label, self.progress_bar, self.cancel_button):
            row.addWidget(widget)
        runner.changed.connect(self._update)
        runner.progressed.connect(self._progress)
        self._update()

    def cancel(self) -> None:
        if self.runner.busy:
            self.runner.cancel_visible()
            self.label.setText("Cancelling…")

    def _update(self) -> None:
        visible = self.runner.visible()
        self.progress_bar.setVisible(bool(visible))
        self.cancel_button.setVisible(bool(visible))
        if visible:
            self.progress_bar.setMaximum(0)  # a busy indicator until the first progress report
            self.label.setText(visible[-1].label)
        else:
            self.label.setText("")

    def _progress(self, label: str, done: int, total: int, message: str) -> None:
        visible = self.runner.visible()
        if not visible or visible[-1].label != label:
            return  # an older operation reporting under a newer one: show the newest only
        self.progress_bar.setMaximum(max(total, 1))
        self.progress_bar.setValue(min(done, total))
        self.label.setText(f"{label}: {message}" if message else label)
