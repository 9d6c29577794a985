"""The file choosers of the window (new project, open project, add a grammar) and the recent-projects menu."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QMenu, QWidget

from core.store import PROJECT_SUFFIX
from gui import projects


def choose_new_project(parent: QWidget) -> Path | None:
    path, _ = QFileDialog.getSaveFileName(parent, "New project", str(projects.data_dir()),
                                          f"GrammarLens projects (*{PROJECT_SUFFIX})")
    return Path(path) if path else None


def choose_project(parent: QWidget) -> Path | None:
    path, _ = QFileDialog.getOpenFileName(parent, "Open project", str(projects.data_dir()),
                                          f"GrammarLens projects (*{PROJECT_SUFFIX});;All files (*)")
    return Path(path) if path else None


def choose_grammar(parent: QWidget) -> Path | None:
    path, _ = QFileDialog.getOpenFileName(parent, "Add a grammar PDF", str(Path.home()), "PDF files (*.pdf)")
    return Path(path) if path else None


def fill_recent_menu(menu: QMenu, store: QSettings, open_project: Callable[[Path], object]) -> None:
    """The recent projects that still exist, newest first (filled each time the menu opens)."""
    menu.clear()
    recent = [p for p in projects.recent_projects(store) if p.exists()]
    if not recent:
        menu.addAction("(none)").setEnabled(False)
    for path in recent:
        menu.addAction(path.name, lambda p=path: open_project(p)).setToolTip(str(path))
