"""How the sample room's windows are wired into the main window: the Sample window and the two-coder queue.

Why here: only the window wires.  The sample room (:mod:`gui.sample`) builds its widgets against typed
Protocols of what it needs (:class:`gui.sample.opening.SampleHost`, :class:`gui.sample.disagreements.PinsHost`);
this module connects them to the window's signals and hands them to the window, which declares and owns
``sample_window`` and ``disagreement_queue``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gui.profile.profile_dock import place_dock
from gui.sample.disagreements import QUEUE_PLACED_KEY, DisagreementQueue, disconnect_quietly, queue_dock, show_pins
from gui.sample.opening import open_sample_folder

if TYPE_CHECKING:
    from core.sample.coders import Disagreement
    from gui.sample.window import SampleWindow
    from gui.window.main_window import MainWindow


def open_sample(window: MainWindow, folder: str | Path | None = None) -> SampleWindow | None:
    """Sample → Open sample folder…: a Sample window over ``window``, compared with the project's CLDF values."""
    sample = open_sample_folder(window, window.references.folder, folder)
    if sample is not None:
        window.sample_window = sample
    return sample


def open_queue(window: MainWindow, b_path: str | Path | None = None) -> DisagreementQueue | None:
    """Project → Compare with another coder's file…: the queue in a dock of ``window`` (A: its open project)."""
    from gui.common import file_dialogs

    a_path = window.state.project_path
    if a_path is None:
        window.statusBar().showMessage("Open your own project first: it is coder A's side of the comparison.", 8000)
        return None
    b_path = b_path or file_dialogs.choose_project(window, Path(a_path).parent)
    if b_path is None:
        return None
    queue = DisagreementQueue(window.runner, window.show_error, window.coding.act_reviewer, window)
    dock = queue_dock(queue, window)
    shown: list[Disagreement] = []

    def chosen(d: Disagreement) -> None:
        shown[:] = [d]
        window.select_feature(d.feature_id)
        show_pins(window, d)

    def evidence_in() -> None:  # the feature's evidence replaced the highlights: show the coders' pins again
        if shown and window.state.feature is not None and window.state.feature.id == shown[0].feature_id:
            show_pins(window, shown[0])

    def project_changed(path: str) -> None:  # A is no longer the open project: the queue would resolve into it
        if Path(path).resolve() != Path(a_path).resolve():
            window.statusBar().showMessage(f"The two-coder queue of {Path(a_path).name} was closed: "
                                           f"{Path(path).name} is open now.", 10000)
            if window.disagreement_queue is queue:
                window.disagreement_queue = None
            dock.close()

    queue.disagreementChosen.connect(chosen)
    queue.resolved.connect(lambda fid, _decision: window.select_feature(fid))  # the coding panel shows the new value
    window.features.evidenceChanged.connect(evidence_in)
    window.projectOpened.connect(project_changed)
    def gone(*_: object) -> None:
        disconnect_quietly(window.features.evidenceChanged, evidence_in)
        disconnect_quietly(window.projectOpened, project_changed)

    dock.destroyed.connect(gone)
    window.disagreement_queue = queue
    place_dock(window, dock, window.store, QUEUE_PLACED_KEY)  # as the profile dock: never one row of evidence left
    queue.compare(a_path, b_path)
    return queue
