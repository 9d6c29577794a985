"""What the window remembers between runs: its size, splitters and zoom, and each project's feature and page.

Kept out of the window so the keys and their types live in one place (QSettings hands back
strings from INI files and byte arrays from the registry alike).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Sequence

from PySide6.QtCore import QByteArray, QSettings, Qt
from PySide6.QtWidgets import QMainWindow, QSplitter, QWidget

from gui.pdf.pdf_view import PdfView

DEFAULT_SIZE = (1280, 800)


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
        with contextlib.suppress(TypeError, ValueError):  # a zoom that is not a number: the view keeps its own
            view.set_zoom(float(self.store.value("window/zoom", 1.0)))

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
        try:
            page = int(self.store.value(f"{self._key(project)}/page", 0)) or None
        except (TypeError, ValueError):
            page = None
        return feature, page


def named_splitter(name: str, orientation: Qt.Orientation, panels: tuple[tuple[QWidget, int], ...]) -> QSplitter:
    """A splitter whose sizes are saved under ``name``; its panels (with stretch factors) never collapse."""
    splitter = QSplitter(orientation)
    splitter.setObjectName(name)
    splitter.setChildrenCollapsible(False)
    for index, (panel, stretch) in enumerate(panels):
        splitter.addWidget(panel)
        splitter.setStretchFactor(index, stretch)
    return splitter
