"""During a coding pass, the keys go back to the pass whenever the coder is done with another widget.

Why: the pass takes one key per step only while its bar has the keyboard focus.  Before, after a
choice in a dropdown, a note stored with Enter, a click on *Set value* or on an evidence row, the
focus stayed there: a digit then typed into nothing (or searched the list), Space pressed the
button again, and only Ctrl+K brought the pass back.  Now, while a pass runs, focus that lands in
the window's panels on anything but a place to type (a button, a list, a dropdown once chosen) goes
back to the bar, and so does focus that leaves a place to type (Enter or a click elsewhere) or
that goes nowhere.  The page view keeps its focus (a click there, then P, pins that paragraph), and
so do docks and dialogs, which are not the pass's.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)


def types_text(widget: QWidget | None) -> bool:
    """A place to type in (keys there are text, not the pass's)."""
    if isinstance(widget, QComboBox):
        return widget.isEditable()
    if isinstance(widget, QTextEdit | QPlainTextEdit):
        return not widget.isReadOnly()
    return isinstance(widget, QLineEdit | QAbstractSpinBox)


class Pass(Protocol):
    """What the focus needs to know of the coding pass (the window's CodingController)."""

    @property
    def pass_active(self) -> bool: ...


class PassFocus(QObject):
    """Gives the focus back to ``bar`` while the pass runs: see the module's docstring for when."""

    def __init__(self, bar: QWidget, panels: QWidget, keep: tuple[QWidget, ...], coding: Pass) -> None:
        super().__init__(bar)
        self.bar, self.panels, self.keep, self.coding = bar, panels, keep, coding
        self.returned = 0  # how many times the keys were given back (tests, a bench)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._focus_changed)
        for line in panels.findChildren(QLineEdit):  # Enter: the note is stored, the feature found; keys go back
            line.returnPressed.connect(self._entered)

    def _entered(self) -> None:
        if self.coding.pass_active:
            QTimer.singleShot(0, lambda: self._give_back(after_enter=True))

    def _ours(self, widget: QWidget | None) -> bool:
        """Inside the window's panels (not a dock, a dialog or a popup), and not the page view."""
        if widget is None or not self.panels.isAncestorOf(widget):
            return False
        return not any(w is widget or w.isAncestorOf(widget) for w in self.keep)

    def _focus_changed(self, old: QWidget | None, new: QWidget | None) -> None:
        if not self.coding.pass_active or new is self.bar:
            return
        if new is None:
            give_back = old is not None and self._ours(old)
        elif self._ours(new):
            give_back = not types_text(new)
        else:
            give_back = False
        if give_back:
            QTimer.singleShot(0, self._give_back)  # after the click or the choice that moved the focus is done

    def _give_back(self, after_enter: bool = False) -> None:
        if not self.coding.pass_active or QApplication.activePopupWidget() is not None:
            return  # a dropdown's list is open: its choice comes first, then the focus changes again
        focused = QApplication.focusWidget()
        typing = focused is not None and types_text(focused) and self._ours(focused)
        if focused is self.bar or (typing and not after_enter):
            return  # the coder went on to type somewhere
        if focused is not None and not self._ours(focused) and focused.window() is not self.bar.window():
            return  # a dialog or a floating dock has the keys
        self.bar.setFocus()
        self.returned += 1
