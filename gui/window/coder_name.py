"""The first act's question: who is coding?  Asked once, then kept in the settings (and for the CLI).

Why at the first act and not at start: a person who only reads a grammar, or opens the demo, is
never bothered; the name matters the moment a value is stored under it (a second coder's queue
shows it for each side).  Before, nobody was asked and every act read as the login name ("root").
A cancelled question is not asked again in this session; the act is then stamped with the login
name, and the name can be given later under Settings → Reviewer name.

A window closed while the question waits (a script's timer, ``--quit-after``, the session ending;
a person cannot, the question is modal) ends the question and the act with it: :func:`ask_coder_name`
raises :class:`core.errors.Cancelled` and the act is not made.  Before, the closed window's quit
ended the question's event loop as if "Not now" had been chosen, the act then ran on the project
the window had just closed (``sqlite3.ProgrammingError``) and the process left with code 0.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QLineEdit, QVBoxLayout, QWidget

from core.coding.reviewer import reviewer_name
from core.errors import Cancelled

if TYPE_CHECKING:
    from gui.window.main_window import MainWindow


class CoderNameDialog(QDialog):
    """"Who is coding?" with one line for the name; OK only once a name is typed."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Who is coding?")
        layout = QVBoxLayout(self)
        intro = QLabel("<b>Your name, please.</b><br>Every value you decide is stored with your name, so that a "
                       "second coder, a reviewer and the exports can tell who decided what. You are asked once; "
                       "change it under Settings (Ctrl+,) → Reviewer name.")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.name_edit = QLineEdit()
        self.name_edit.setAccessibleName("Your name")
        self.name_edit.setPlaceholderText("e.g. Ana Souza")
        layout.addWidget(self.name_edit)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setText(f"Not now (use “{reviewer_name()}”)")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(False)
        self.name_edit.textChanged.connect(lambda text: ok.setEnabled(bool(text.strip())))
        self.setMinimumWidth(460)

    def name(self) -> str:
        return self.name_edit.text().strip()


class _EndOnClose(QObject):
    """Ends the question when its window gets a close event (the act then is not made)."""

    def __init__(self, window: QWidget, dialog: QDialog) -> None:
        super().__init__(dialog)
        self.dialog, self.closed = dialog, False
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Close and self.dialog.isVisible():
            self.closed = True
            self.dialog.reject()
        return False  # the window closes as it would have


def ask_coder_name(window: MainWindow) -> str:
    """Ask the coder's name (modal: the act waits for it); a name given is saved in the window's settings.

    Raises :class:`Cancelled` when the window closed (or its project did) while the question waited.
    """
    dialog = window.coder_dialog = CoderNameDialog(window)
    ending = _EndOnClose(window, dialog)
    answer = dialog.exec()
    window.removeEventFilter(ending)
    if ending.closed or window.projects.project is None:
        raise Cancelled("Not stored: the window was closed while it asked who is coding.")
    if answer == QDialog.DialogCode.Accepted and dialog.name():
        window.apply_settings(replace(window.settings, reviewer=dialog.name()))
    window.activateWindow()  # the keys go back to the window (and its pass) even where no window manager does it
    return window.settings.reviewer_name
