"""The profile dock's run row: Run batch, Batch file, Cancel, the progress bar and the line under them.

Why an object of its own: two jobs share these controls, running a batch (:class:`gui.profile.profile_view.ProfileView`)
and writing or importing a batch file (:class:`gui.profile.batch_file_actions.BatchFiles`), and only one of them
runs at a time (both write to the project).  Each job tells the controls that it is busy and when it is idle
again, and leaves a note of what it did (shown before the next estimate); neither reaches into the other or
into the dock.  :class:`DockTarget` is what those jobs read of the dock: the project, the chosen set, whether a
job runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton


class DockTarget(Protocol):
    """What a job of the dock reads of it: the project, the chosen set, and whether a job runs."""

    project_path: Path | None

    def feature_set(self) -> str: ...

    @property
    def running(self) -> bool: ...


class BatchControls:
    """The run row's widgets and the note of the last job (the dock lays them out)."""

    def __init__(self) -> None:
        self.run_button = QPushButton("Run batch")
        self.batch_file_button = QPushButton("Batch file")
        self.batch_file_button.setToolTip("Answer the set elsewhere: the OpenAI Batch API (half price) or vLLM "
                                          "run_batch on a GPU machine")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(220)
        self.progress.setVisible(False)
        self.estimate_label = QLabel("")
        self.estimate_label.setWordWrap(True)
        self.note = ""  # what the last batch or batch file did, said before the next estimate

    def busy(self, doing: str = "") -> None:
        """A job started: Run and Batch file wait, Cancel and the (undetermined) progress bar show."""
        self.run_button.setEnabled(False)
        self.batch_file_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setVisible(True)
        self.progress.setMaximum(0)
        if doing:
            self.estimate_label.setText(doing + "…")

    def idle(self) -> None:
        """The job ended: the controls are free again and the line says what it did."""
        self.run_button.setEnabled(True)
        self.batch_file_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.progress.setVisible(False)
        self.estimate_label.setText(self.note)

    def show_progress(self, done: int, total: int, text_format: str) -> None:
        self.progress.setMaximum(max(total, 1))
        self.progress.setValue(min(done, total))
        self.progress.setFormat(text_format)
