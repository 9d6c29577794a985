"""The one way the window tells about a failure: what went wrong, what to do, and for bugs the details."""

from __future__ import annotations

import contextlib
import platform
import sys
import traceback

from PySide6.QtCore import Qt, qVersion
from PySide6.QtWidgets import QMessageBox, QWidget

from core import __version__
from core.errors import GrammarLensError

SHOWN_MARK = "__grammarlens_shown__"  # set on an exception once a box shows it (see gui.common.error_reporting)


def error_details(exc: BaseException) -> str:
    """What a bug report needs: the traceback (as the worker caught it, or the exception's own) and versions."""
    text = getattr(exc, "__traceback_text__", "") or "".join(
        traceback.format_exception(type(exc), exc, exc.__traceback__))
    return (f"{text.rstrip()}\n\nGrammarLens {__version__}, Python {sys.version.split()[0]}, Qt {qVersion()}, "
            f"{platform.platform()}")


def error_box(parent: QWidget, title: str, exc: BaseException) -> QMessageBox:
    """Open (window-modal, not blocking) a message box for ``exc`` and return it.

    A :class:`GrammarLensError` is the person's to act on: its message and hint, no traceback.
    Anything else is our bug: said so, with the traceback and versions under "Show details"
    (selectable, to copy into a bug report), and the reassurance that the failed step was abandoned
    (every write runs in one transaction, so nothing half-done is stored).
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
        box.setText(f"Something went wrong inside GrammarLens: {exc or type(exc).__name__}")
        box.setInformativeText("This is a bug, not something you did. The step was abandoned (a half-done change "
                               "is never stored) and you can go on working. Please copy the details below into "
                               "a bug report.")
        box.setDetailedText(error_details(exc))
    box.setAccessibleName(title)
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.setWindowModality(Qt.WindowModality.WindowModal)
    box.open()
    # An exception type with __slots__ takes no mark: it may then be shown twice, never lost.
    with contextlib.suppress(AttributeError):
        setattr(exc, SHOWN_MARK, True)
    return box
