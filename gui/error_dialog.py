"""The one way the window tells about a failure: what went wrong, what to do, and for bugs the details."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from core.errors import GrammarLensError


def error_box(parent: QWidget, title: str, exc: BaseException) -> QMessageBox:
    """Open (window-modal, not blocking) a message box for ``exc`` and return it.

    A :class:`GrammarLensError` is the person's to act on: its message and hint.  Anything else
    is our bug: said so, with the traceback under "Show details", and the reassurance that the
    failed step changed nothing (every write runs in one transaction).
    """
    box = QMessageBox(parent)
    box.setWindowTitle(title)
    if isinstance(exc, GrammarLensError):
        box.setIcon(QMessageBox.Icon.Warning)
        box.setText(exc.message)
        if exc.hint:
            box.setInformativeText(exc.hint)
    else:
        box.setIcon(QMessageBox.Icon.Critical)
        box.setText(f"Something went wrong inside GrammarLens: {exc}")
        box.setInformativeText("This is a bug. Your project was not changed by the failed step.")
        box.setDetailedText(getattr(exc, "__traceback_text__", repr(exc)))
    box.setAccessibleName(title)
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.setWindowModality(Qt.WindowModality.WindowModal)
    box.open()
    return box
