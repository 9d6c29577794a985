"""The main window's actions, menus and toolbar: actions made one way, menus filled from plain lists.

Why apart from the window: the window decides which actions exist and in what order; how an action
gets its shortcut and tooltip, and how a list with separators (None), submenus and embedded widgets
becomes a menu bar or a toolbar, is the same every time and needs no window state.
"""

from __future__ import annotations

from typing import Callable, Sequence

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QToolBar, QWidget

Item = QAction | QMenu | QWidget | None  # None: a separator


def make_action(window: QWidget, text: str, shortcut: QKeySequence | QKeySequence.StandardKey | str | None,
                slot: Callable[[], object], tip: str = "") -> QAction:
    """An action of ``window`` (its shortcut works anywhere in it); the tooltip names the keys."""
    action = QAction(text, window)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
    keys = QKeySequence(shortcut).toString(QKeySequence.SequenceFormat.NativeText) if shortcut else ""
    action.setToolTip((tip or text.replace("&", "").rstrip("…")) + (f" ({keys})" if keys else ""))
    action.triggered.connect(slot)
    window.addAction(action)
    return action


def recent_menu(window: QWidget, fill: Callable[[QMenu], object]) -> QMenu:
    """Project → Open recent, filled by ``fill`` each time it opens (so it lists what exists then)."""
    menu = QMenu("Open &recent", window)
    menu.aboutToShow.connect(lambda: fill(menu))
    return menu


def sample_actions(window: QMainWindow, open_sample: Callable[[], object],
                   compare_coders: Callable[[], object]) -> tuple[QAction, QAction]:
    """Sample → Open sample folder…, Project → Compare with another coder's file… (:mod:`gui.window.sample_wiring`)."""
    sample = make_action(window, "Open &sample folder…", None, open_sample,
                         "A folder of projects: heatmap, map and agreement of the sample")
    compare = make_action(window, "&Compare with another coder's file…", None, compare_coders,
                          "This project's disagreements with a second coder's file, resolved one by one")
    return sample, compare


def help_actions(window: QMainWindow, evidence: QWidget) -> tuple[QAction, QAction]:
    """Help → Keys… (F1: every key, :mod:`gui.window.keys_dialog`, with ``evidence``'s own) and About."""
    from gui.window.about import show_about
    from gui.window.keys_dialog import show_keys

    keys = make_action(window, "&Keys…", "F1", lambda: show_keys(window, evidence.actions()),
                       "Every key of the window and of the coding pass")
    about = make_action(window, "&About GrammarLens", None, lambda: show_about(window),
                        "Version, method and data credits (WALS, Grambank)")
    return keys, about


def ocr_action(window: QMainWindow, store: QSettings) -> QAction:
    """Project → Scanned pages (OCR)… (:mod:`gui.project.ocr_options`)."""
    from gui.project.ocr_options import ocr_options_action

    return ocr_options_action(window, store)


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
    toolbar = QToolBar("Main toolbar")
    toolbar.setObjectName("mainToolbar")
    toolbar.setMovable(False)
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
