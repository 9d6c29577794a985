"""The profile view on its own: reads the project off the UI thread, estimates, runs an evidence-only batch."""

from __future__ import annotations

import pytest

from gui.operations import OperationRunner
from gui.profile_view import ProfileView
from gui.settings import AppSettings

WAIT_MS = 20_000


@pytest.fixture
def view(qtbot):
    runner = OperationRunner()
    settings = AppSettings(retrieval=AppSettings().retrieval.with_(reranker=None))
    view = ProfileView(runner, lambda: settings)
    qtbot.addWidget(view)
    view.resize(900, 400)
    view.show()
    yield view
    assert runner.shutdown(10_000)


def test_profile_refresh_estimate_and_batch_run_in_the_background(qtbot, view, demo_project) -> None:
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        view.set_project(demo_project)
        assert view.model.rowCount() == 0  # nothing read on the UI thread: the table fills when the read is done
    assert view.summary_label.text().startswith("0 values")
    view.set_feature_set("81A,GB107")
    with qtbot.waitSignal(view.estimateShown, timeout=WAIT_MS):
        view.mode_combo.setCurrentIndex(view.mode_combo.findData("retrieval"))
    assert view.estimate_label.text() == "2 feature(s) to retrieve; no model is asked."
    progress: list[int] = []
    view.batchProgress.connect(lambda done, total, message: progress.append(done))
    with qtbot.waitSignal(view.batchFinished, timeout=WAIT_MS) as finished:
        assert view.start_batch() is not None and view.running
    assert finished.args == ["done"] and progress and not view.running
    assert view.model.rowCount() == 2  # refreshed before batchFinished
    assert {view.model.entry(r).status for r in range(2)} == {"evidence only"}
    with qtbot.waitSignal(view.featureActivated, timeout=1000) as activated:
        view.table.doubleClicked.emit(view.proxy.index(0, 0))
    assert activated.args[0] in {"81A", "GB107"}


def test_without_a_project_the_view_says_what_to_do(qtbot, view) -> None:
    view.set_project(None)
    assert view.summary_label.text() == "Open a project to see its profile."
    assert view.start_batch() is None and view.edit_bibtex() is None
