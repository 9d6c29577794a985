"""Sample → Open sample folder…: a Sample window over the main window, wired to it.

A click on a heatmap cell or a map point opens that project at that feature in the main window, and
the sample's batch files use the main window's settings (the model to write prompts for).
"""

from __future__ import annotations

import contextlib
import warnings
from pathlib import Path
from typing import Any

from core.changes import ProjectChange
from core.store.watch import Written
from gui.common import file_dialogs
from gui.common.operations import Operation
from gui.sample.sample_batch import SampleBatchFiles
from gui.sample.window import SampleWindow, show_sample_window


def open_sample_folder(window, folder: str | Path | None = None) -> SampleWindow | None:
    """Sample → Open sample folder…: a Sample window over the main ``window``; a click opens that project there."""
    folder = folder or file_dialogs.choose_folder(window, "Open a sample: the folder of its project files")
    if folder is None:
        return None
    sample = show_sample_window(folder, reference=window.references.folder, runner=window.runner, parent=window)

    def open_at(path: str, feature_id: str) -> None:
        current = window.state.project_path
        if current is not None and Path(current).resolve() == Path(path).resolve():
            window.select_feature(feature_id)
        else:
            window.open_project(path, feature_id)
        window.raise_()
        window.activateWindow()

    sample.cellActivated.connect(open_at)
    sample.batch_files = batch = SampleBatchFiles(sample, lambda: window.settings)
    batch.importing.connect(lambda operation: _follow_import(window, batch, operation))

    def project_changed(change: ProjectChange, initiator: object) -> None:
        """Values of the open project changed (an act, the CLI): read the sample again when the project is in it."""
        current, folder = window.state.project_path, sample.folder
        if change.values_changed and current is not None and folder is not None and initiator is not batch \
                and Path(current).resolve().parent == folder.resolve():  # (its own import reads the sample anew)
            sample.load(folder)

    window.projects.changes.changed.connect(project_changed)
    sample.destroyed.connect(lambda *_: _forget(window.projects.changes.changed, project_changed))
    window.sample_window = sample
    return sample


def _follow_import(window, batch: SampleBatchFiles, operation: Operation) -> None:
    """A batch import of the sample is an act on the open project too when it is one of the sample's: the
    window's watch waits for it, and its record (the features answered there) reaches every panel once."""
    changes = window.projects.changes

    def imported(report: Any) -> None:
        current = window.state.project_path
        change = report.change_for(current) if current is not None else None
        if change is not None and not change.empty:
            changes.announce(change, batch)

    changes.writing(operation, frozenset({Written.ANSWERS})).success(imported)


def _forget(signal, slot) -> None:
    """Disconnect a slot of a window that is gone (quietly: the signal's owner may be gone too)."""
    with contextlib.suppress(RuntimeError, TypeError), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        signal.disconnect(slot)
