"""Sample → Open sample folder…: a Sample window over the main window, and what it needs of it.

A click on a heatmap cell or a map point opens that project at that feature in the main window, and
the sample's batch files use the main window's settings (the model to write prompts for).  What the
sample room needs of the window is :class:`SampleHost`, a typed Protocol: the window (``gui/window``)
provides it, owns the Sample window it gets back and keeps it; this room never imports the window.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from PySide6.QtWidgets import QWidget

from gui.common import file_dialogs
from gui.common.operations import OperationRunner
from gui.common.settings import AppSettings
from gui.common.window_state import WindowState
from gui.sample.sample_batch import SampleBatchFiles
from gui.sample.window import SampleWindow, show_sample_window


class SampleHost(Protocol):
    """What a Sample window uses of the main window: its runner, settings and state, and opening a feature."""

    runner: OperationRunner
    settings: AppSettings
    state: WindowState

    def window(self) -> QWidget: ...  # Qt's: the top-level widget (the main window itself), the sample's parent

    def select_feature(self, feature: str) -> None: ...

    def open_project(self, path: str, feature: str | None = None) -> bool: ...


def open_sample_folder(host: SampleHost, reference: Path | None,
                       folder: str | Path | None = None) -> SampleWindow | None:
    """A Sample window over ``host`` (values compared with ``reference``); a click opens that project there."""
    parent = host.window()
    folder = folder or file_dialogs.choose_folder(parent, "Open a sample: the folder of its project files")
    if folder is None:
        return None
    sample = show_sample_window(folder, reference=reference, runner=host.runner, parent=parent)

    def open_at(path: str, feature_id: str) -> None:
        current = host.state.project_path
        if current is not None and Path(current).resolve() == Path(path).resolve():
            host.select_feature(feature_id)
        else:
            host.open_project(path, feature_id)
        parent.raise_()
        parent.activateWindow()

    sample.cellActivated.connect(open_at)
    sample.batch_files = SampleBatchFiles(sample, lambda: host.settings)
    return sample

