"""How the sample room's windows are wired into the main window: the Sample window and the two-coder queue.

Why here: only the window wires.  The sample room (:mod:`gui.sample`) builds its widgets against typed
Protocols of what it needs (:class:`gui.sample.opening.SampleHost`, :class:`gui.sample.disagreements.PinsHost`);
this module connects them to the window's signals and hands them to the window, which declares and owns
``sample_window`` and ``disagreement_queue``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.changes import ProjectChange
from core.store.watch import Written
from gui.profile.profile_dock import place_dock
from gui.sample.disagreements import QUEUE_PLACED_KEY, DisagreementQueue, disconnect_quietly, queue_dock, show_pins
from gui.sample.opening import open_sample_folder
from gui.sample.sample_batch import SampleBatchFiles

if TYPE_CHECKING:
    from core.sample.coders import Disagreement
    from core.store.claims import AnswerClaims
    from gui.common.operations import Operation
    from gui.sample.window import SampleWindow
    from gui.window.main_window import MainWindow


def open_sample(window: MainWindow, folder: str | Path | None = None) -> SampleWindow | None:
    """Sample → Open sample folder…: a Sample window over ``window``, compared with the project's CLDF values."""
    sample = open_sample_folder(window, window.references.folder, folder)
    if sample is None:
        return None
    batch = sample.batch_files
    changes = window.projects.changes
    batch.importing.connect(lambda operation, claims: _follow_import(window, batch, operation, claims))

    def project_changed(change: ProjectChange, initiator: object) -> None:
        """Values of the open project changed (an act, the CLI): read the sample again when the project is in it."""
        current, shown = window.state.project_path, sample.folder
        if change.values_changed and current is not None and shown is not None and initiator is not batch \
                and Path(current).resolve().parent == shown.resolve():  # (its own import reads the sample anew)
            sample.load(shown)

    changes.changed.connect(project_changed)
    sample.destroyed.connect(lambda *_: disconnect_quietly(changes.changed, project_changed))
    window.sample_window = sample
    return sample


def _follow_import(window: MainWindow, batch: SampleBatchFiles, operation: Operation, claims: AnswerClaims) -> None:
    """A batch import of the sample is an act on the open project too when it is one of the sample's: the
    window's watch holds the answers it claims there, and its record (the features answered there) reaches
    every panel once; another program's answers meanwhile are shown at once."""
    changes = window.projects.changes

    def imported(report: Any) -> None:
        current = window.state.project_path
        change = report.change_for(current) if current is not None else None
        if change is not None and not change.empty:
            changes.announce(change, batch)

    changes.claiming(operation, claims).success(imported)


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

    changes = window.projects.changes
    # its resolution writes a decision from a worker: ours, never an outside change
    queue.writing = lambda operation: changes.writing(operation, frozenset({Written.DECISIONS}))

    def resolved(fid: str, change: ProjectChange) -> None:  # one record: the panels, the list, the dock follow it
        changes.announce(change, queue)
        window.select_feature(fid)  # the coding panel shows the new value

    def decided_elsewhere(change: ProjectChange, initiator: object) -> None:
        """A feature of the queue decided by another act (the coding panel, the CLI): compare again."""
        if initiator is not queue and any(change.touches(d.feature_id) for d in queue.pending):
            queue.compare(a_path, b_path)

    queue.disagreementChosen.connect(chosen)
    queue.resolved.connect(resolved)
    changes.changed.connect(decided_elsewhere)
    window.features.evidenceChanged.connect(evidence_in)
    window.projectOpened.connect(project_changed)

    def gone(*_: object) -> None:
        disconnect_quietly(window.features.evidenceChanged, evidence_in)
        disconnect_quietly(window.projectOpened, project_changed)
        disconnect_quietly(changes.changed, decided_elsewhere)

    dock.destroyed.connect(gone)
    window.disagreement_queue = queue
    place_dock(window, dock, window.store, QUEUE_PLACED_KEY)  # as the profile dock: never one row of evidence left
    queue.compare(a_path, b_path)
    return queue
