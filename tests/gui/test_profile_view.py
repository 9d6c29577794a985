"""The profile view on its own: reads the project off the UI thread, estimates, runs an evidence-only batch."""

from __future__ import annotations

import pytest

from gui.common.operations import OperationRunner
from gui.common.settings import AppSettings
from gui.profile.profile_view import ProfileView

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


# ---------------------------------------------------------------------- issue 20: the statuses hand coding produces
def _code(project_path, *values: tuple[str, str]) -> None:
    from core.coding import code
    from core.store import open_project

    with open_project(project_path) as project:
        for feature_id, value in values:
            code(project, feature_id, value, reviewer="Ana")


def _labels(view: ProfileView) -> dict[str, str]:
    return {view.status_combo.itemData(i): view.status_combo.itemText(i) for i in range(view.status_combo.count())}


def test_the_status_filter_lists_the_coded_and_unknown_values_with_their_counts(qtbot, view, demo_project) -> None:
    from core.profile.entries import STATUSES

    _code(demo_project, ("81A", "SOV"), ("GB020", "1"), ("GB107", "?"))
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        view.set_project(demo_project)
    labels = _labels(view)
    assert set(STATUSES) <= set(labels)  # every status of core's, none retyped
    assert labels["coded"] == "coded (2)" and labels["unknown"] == 'unknown "?" (1)'
    assert labels[""] == "All statuses (3)" and labels["predicted"] == "predicted (0)"
    assert labels["uncoded"] == "not coded yet (0)"
    assert list(labels)[:6] == ["", "coded", "accepted", "overridden", "unknown", "note"]  # the coder's first

    view.status_combo.setCurrentIndex(view.status_combo.findData("coded"))
    assert sorted(view.proxy.index(r, 0).data() for r in range(view.proxy.rowCount())) == ["81A", "GB020"]
    assert view.summary_label.text().startswith("3 values · 2 coded · 1 unknown")
    qtbot.wait(50)
    assert view.grab().save("/tmp/grammarlens-profile-filtered-coded.png")

    # coding on changes the counts (the window refreshes the view after every act) and keeps the chosen filter
    _code(demo_project, ("GB021", "?"), ("81A", "SVO"))
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        view.refresh()
    labels = _labels(view)
    assert labels["unknown"] == 'unknown "?" (2)' and labels["coded"] == "coded (2)"
    assert view.status_combo.currentData() == "coded" and view.proxy.rowCount() == 2
    view.status_combo.setCurrentIndex(view.status_combo.findData("unknown"))
    assert sorted(view.proxy.index(r, 0).data() for r in range(view.proxy.rowCount())) == ["GB021", "GB107"]


def test_offline_the_estimate_quotes_no_cost(qtbot, gui_store, demo_project) -> None:
    """No key and no server: nothing would be asked, so no price ("about $0.08" was quoted before)."""
    runner = OperationRunner()
    settings = AppSettings(retrieval=AppSettings().retrieval.with_(reranker=None))  # OpenAI's API, no key
    view = ProfileView(runner, lambda: settings)
    qtbot.addWidget(view)
    try:
        with qtbot.waitSignal(view.estimateShown, timeout=WAIT_MS):
            view.set_project(demo_project)
        text = view.estimate_label.text()
        assert text.startswith("Before starting: 4 feature(s), about ") and "tokens" in text
        assert "$" not in text and "cost unknown" not in text and "No model is set up" in text
        with qtbot.assertNotEmitted(view.batchFinished, wait=200):
            assert view.start_batch() is None  # nothing to ask; no "this batch will cost" question either
        assert "No model is set up" in view.estimate_label.text() and not view.running
    finally:
        assert runner.shutdown(10_000)
