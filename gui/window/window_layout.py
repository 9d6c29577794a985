"""What the window remembers between runs: its size, splitters and zoom, and each project's feature and page.

Kept out of the window so the keys and their types live in one place (QSettings hands back
strings from INI files and byte arrays from the registry alike).
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence, TypeVar

from PySide6.QtCore import QByteArray, QSettings, Qt
from PySide6.QtWidgets import QMainWindow, QSplitter, QWidget

from gui.pdf.pdf_view import PdfView

DEFAULT_SIZE = (1280, 800)
N = TypeVar("N", int, float)


class WindowLayout:
    """Reads and writes the window's layout and the per-project memory in one QSettings store."""

    def __init__(self, store: QSettings) -> None:
        self.store = store

    def restore(self, window: QMainWindow, splitters: Sequence[QSplitter], view: PdfView) -> None:
        geometry = self.store.value("window/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            window.restoreGeometry(geometry)
        else:
            window.resize(*DEFAULT_SIZE)
        state = self.store.value("window/state")
        if isinstance(state, QByteArray):
            window.restoreState(state)
        for splitter in splitters:
            saved = self.store.value(f"window/{splitter.objectName()}")
            if isinstance(saved, QByteArray):
                splitter.restoreState(saved)
        zoom = _number(self.store.value("window/zoom", 1.0), float)
        if zoom is not None:  # a zoom that is not a number: the view keeps its own
            view.set_zoom(zoom)

    def save(self, window: QMainWindow, splitters: Sequence[QSplitter], view: PdfView) -> None:
        self.store.setValue("window/geometry", window.saveGeometry())
        self.store.setValue("window/state", window.saveState())
        for splitter in splitters:
            self.store.setValue(f"window/{splitter.objectName()}", splitter.saveState())
        self.store.setValue("window/zoom", view.zoom)
        self.store.sync()

    @staticmethod
    def _key(project: Path) -> str:
        return "project_state/" + str(project).replace("/", "|").replace("\\", "|")

    def remember_project(self, project: Path, feature_id: str, pdf_page: int) -> None:
        self.store.setValue(f"{self._key(project)}/feature", feature_id)
        self.store.setValue(f"{self._key(project)}/page", pdf_page)

    def project_memory(self, project: Path) -> tuple[str, int | None]:
        """(feature id or "", PDF page or None) shown when the project was last closed."""
        feature = str(self.store.value(f"{self._key(project)}/feature", "") or "")
        return feature, _number(self.store.value(f"{self._key(project)}/page", 0), int) or None


def _number(value: object, kind: type[N]) -> N | None:
    """A stored number (INI files hand back strings, the registry numbers); None when it is not one."""
    if not isinstance(value, str | int | float):
        return None
    try:
        return kind(value)
    except ValueError:
        return None


def named_splitter(name: str, orientation: Qt.Orientation, panels: tuple[tuple[QWidget, int], ...]) -> QSplitter:
    """A splitter whose sizes are saved under ``name``; its panels (with stretch factors) never collapse."""
    splitter = QSplitter(orientation)
    splitter.setObjectName(name)
    splitter.setChildrenCollapsible(False)
    for index, (panel, stretch) in enumerate(panels):
        splitter.addWidget(panel)
        splitter.setStretchFactor(index, stretch)
    return splitter
