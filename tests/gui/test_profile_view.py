"""The profile view on its own: reads the project off the UI thread, estimates, runs an evidence-only batch."""

from __future__ import annotations

import pytest

from gui.profile.profile_view import ProfileView

WAIT_MS = 20_000


@pytest.fixture
def view(make_profile_view):
    return make_profile_view(size=(900, 400))


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
    assert view.start_batch() is None and view.exports.edit_bibtex() is None


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
    assert labels[""] == "All features (11)" and labels["predicted"] == "predicted (0)"  # 3 coded, 8 not yet
    # the paper's set (the default): 49A and the seven polar-question parts of 116A* are not coded yet
    assert labels["uncoded"] == "not coded yet (8)"
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


def test_offline_the_estimate_quotes_no_cost(qtbot, gui_store, demo_project, make_profile_view) -> None:
    """No key and no server: nothing would be asked, so no price ("about $0.08" was quoted before)."""
    view = make_profile_view()  # OpenAI's API, no key
    with qtbot.waitSignal(view.estimateShown, timeout=WAIT_MS):
        view.set_project(demo_project)
    text = view.estimate_label.text()
    assert text.startswith("Before starting: 4 feature(s), about ") and "tokens" in text
    assert "$" not in text and "cost unknown" not in text and "No model is set up" in text
    with qtbot.assertNotEmitted(view.batchFinished, wait=200):
        assert view.start_batch() is None  # nothing to ask; no "this batch will cost" question either
    assert "No model is set up" in view.estimate_label.text() and not view.running


# -------------------------------------------------------- issue 29: "not coded yet" counts what is not coded
def test_not_coded_yet_counts_every_feature_of_the_set_nobody_decided(qtbot, view, demo_project) -> None:
    """185 of Grambank's 195 features untouched: the filter said 0, because they had no row at all."""
    from core.catalog import load_catalog
    from gui.profile.profile_summary import NOT_CODED, UNCODED

    grambank = [f.id for f in load_catalog().by_dataset("Grambank")]
    _code(demo_project, *((fid, "1") for fid in grambank[:9]), ("GB107", "?"), ("81A", "SOV"))
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        view.set_project(demo_project)
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        view.set_feature_set("grambank")
    decided = len(set(grambank[:9]) | {"GB107"})
    labels = _labels(view)
    assert labels[UNCODED] == f"not coded yet ({len(grambank) - decided})" == "not coded yet (185)"
    assert labels[""] == "All features (196)"  # the set's 195, coded or not, and 81A coded outside it
    assert view.proxy.rowCount() == 196 and view.summary_label.text().startswith("11 values")  # 11 exported

    view.status_combo.setCurrentIndex(view.status_combo.findData(UNCODED))
    rows = range(view.proxy.rowCount())
    shown = [view.model.entry(view.proxy.mapToSource(view.proxy.index(r, 0)).row()) for r in rows]
    assert len(shown) == 185 and {e.status for e in shown} == {NOT_CODED}
    assert not {e.feature_id for e in shown} & (set(grambank[:9]) | {"GB107", "81A"})
    with qtbot.waitSignal(view.featureActivated, timeout=1000) as activated:
        view.table.doubleClicked.emit(view.proxy.index(0, 0))
    assert activated.args[0] == shown[0].feature_id  # opens in the window, to be coded

    _code(demo_project, (shown[0].feature_id, "?"))  # coding one takes it off the list
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        view.refresh()
    assert _labels(view)[UNCODED] == "not coded yet (184)" and view.proxy.rowCount() == 184


def test_all_features_lists_the_coded_and_the_not_coded_ones_plainly(qtbot, view, demo_project) -> None:
    """Issue 29: "All statuses (2)" beside "not coded yet (8)" read as "the set has two features".  "All features"
    lists every feature of the set: the decided ones as they are, the others in grey with no value."""
    from PySide6.QtCore import Qt

    from gui.profile.profile_model import STATUS, VALUE
    from gui.profile.profile_summary import UNCODED

    _code(demo_project, ("81A", "SOV"), ("GB107", "?"))
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        view.set_project(demo_project)
    labels = _labels(view)
    assert labels[""] == "All features (10)" and labels[UNCODED] == "not coded yet (8)"  # the paper's set: 10
    assert view.status_combo.currentData() == "" and view.status_combo.currentText() == "All features (10)"
    rows = {view.proxy.index(r, 0).data(): r for r in range(view.proxy.rowCount())}
    assert len(rows) == 10 and {"81A", "GB107", "49A"} <= set(rows)
    coded, untouched = view.proxy.index(rows["81A"], VALUE), view.proxy.index(rows["49A"], VALUE)
    assert coded.data() != "—" and view.proxy.index(rows["81A"], STATUS).data() == "coded"
    assert untouched.data() == "—" and view.proxy.index(rows["49A"], STATUS).data() == "not coded yet"
    grey = untouched.data(Qt.ItemDataRole.ForegroundRole)
    assert grey is not None and coded.data(Qt.ItemDataRole.ForegroundRole) != grey
    assert view.summary_label.text().startswith("2 values")  # what an export holds: no empty rows
