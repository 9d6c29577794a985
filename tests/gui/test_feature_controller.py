"""The feature controller: evidence retrieved for the chosen feature, a classification, a review."""

from __future__ import annotations

import pytest

from core.catalog import load_catalog
from gui.common.operations import OperationRunner
from gui.common.settings import AppSettings
from gui.common.window_state import WindowState
from gui.features.feature_controller import FeatureController
from gui.project.project_controller import ProjectController

WAIT_MS = 20_000


@pytest.fixture
def controllers(qtbot, gui_store, demo_project, llm_server):
    settings = [AppSettings.local_server(llm_server.url, reviewer="Ana", timeout_s=10.0)]
    state, runner = WindowState(), OperationRunner()
    projects = ProjectController(state, runner, gui_store)
    features = FeatureController(state, runner, projects, lambda: settings[0])
    assert projects.open(demo_project)
    yield projects, features, settings
    projects.close()
    assert runner.shutdown(10_000)


def test_choosing_a_feature_retrieves_its_evidence(qtbot, controllers) -> None:
    _projects, features, _settings = controllers
    catalog = load_catalog()
    with qtbot.waitSignals([features.evidenceChanged, features.retrievalFinished], timeout=WAIT_MS):
        features.choose(catalog.get("81A"))
    state = features.state
    assert state.evidence_known and any("subject-object-verb (SOV)" in h.paragraph.text for h in state.hits[:3])
    # a late result of an earlier feature never replaces the evidence of the chosen one
    features.choose(catalog.get("81A"))
    features.choose(catalog.get("49A"))
    with qtbot.waitSignal(features.retrievalFinished, timeout=WAIT_MS):
        pass
    assert state.feature.id == "49A" and state.evidence_known


def test_classify_stores_the_answer_and_shows_it_again_without_asking(qtbot, controllers, llm_server) -> None:
    _projects, features, _settings = controllers
    llm_server.add_rule("SOV", "SOV")
    with qtbot.waitSignal(features.retrievalFinished, timeout=WAIT_MS):
        features.choose(load_catalog().get("81A"))
    views: list = []
    features.valueChanged.connect(views.append)
    with qtbot.waitSignal(features.classificationFinished, timeout=WAIT_MS):
        assert features.classify() is not None
        assert features.classifying and features.classify() is None  # one classification at a time
    view = views[-1]
    assert view.value == "SOV" and features.state.classification is not None and features.state.cited
    # choosing the feature again shows the stored value at once, without asking the model again
    asked = len(llm_server.chat_requests)
    with qtbot.waitSignal(features.valueChanged, timeout=1000, check_params_cb=lambda v: v is not None):
        features.choose(load_catalog().get("81A"))
    assert len(llm_server.chat_requests) == asked and not features.retrieving
