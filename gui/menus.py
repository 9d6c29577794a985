"""Menus and the toolbar of the main window, filled from plain lists of actions.

Why apart from the window: the window decides which actions exist and in what order; how a list
with separators (None), submenus and embedded widgets becomes a menu bar or a toolbar is
the same every time and needs no window state.
"""

from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow, QMenu, QToolBar, QWidget

Item = QAction | QMenu | QWidget | None  # None: a separator


def fill_menu_bar(window: QMainWindow, menus: Sequence[tuple[str, Sequence[Item]]]) -> None:
    """One menu per (title, items); a QMenu item becomes a submenu."""
    for title, items in menus:
        menu = window.menuBar().addMenu(title)
        for item in items:
            if item is None:
                menu.addSeparator()
            elif isinstance(item, QMenu):
                menu.addMenu(item)
            elif isinstance(item, QAction):
                menu.addAction(item)


def add_toolbar(window: QMainWindow, items: Sequence[Item]) -> QToolBar:
    """A fixed text-only toolbar; a widget item (the PDF toolbar) is embedded as it is."""
    toolbar = QToolBar("Main toolbar", objectName="mainToolbar", movable=False)
    toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
    for item in items:
        if item is None:
            toolbar.addSeparator()
        elif isinstance(item, QWidget):
            toolbar.addWidget(item)
        elif isinstance(item, QAction):
            toolbar.addAction(item)
    window.addToolBar(toolbar)
    return toolbar
