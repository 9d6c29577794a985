"""Evidence from the first click (issue 20): BM25 first, the re-ranked order after; the book embedded in the background.

Real model (the shipped MiniLM), real project (the demo grammar), real worker threads.
"""

from __future__ import annotations

import pytest

from core.catalog import load_catalog
from core.retrieval import retrieve
from core.store import open_project
from gui.common.operations import OperationRunner
from gui.common.settings import AppSettings
from gui.common.window_state import WindowState
from gui.features.evidence_panel import RERANKING_NOTE, EvidencePanel
from gui.features.feature_controller import FeatureController
from gui.features.lookahead import AHEAD, MIN_AHEAD, LookAhead
from gui.project.project_controller import ProjectController
from tests.fixtures_retrieval import build_project, generated_grammar

MODEL_MS = 180_000  # the first test of a session loads torch and the model (seconds on two busy cores)


@pytest.fixture
def minilm_settings(llm_server, minilm_path) -> AppSettings:
    return AppSettings.local_server(llm_server.url, reranker=str(minilm_path))


@pytest.fixture
def parts(qtbot, gui_store):
    state, runner = WindowState(), OperationRunner()
    projects = ProjectController(state, runner, gui_store)
    yield state, runner, projects
    projects.close()
    assert runner.shutdown(30_000)


def test_evidence_shows_in_bm25_order_first_then_the_reranked_order(qtbot, parts, demo_project,
                                                                     minilm_settings) -> None:
    state, runner, projects = parts
    assert projects.open(demo_project)  # before the controller exists: nothing is prepared in the background
    features = FeatureController(state, runner, projects, lambda: minilm_settings)
    panel = EvidencePanel()
    qtbot.addWidget(panel)
    events: list[tuple] = []

    def evidence() -> None:
        panel.show_evidence(state)
        if state.hits:
            events.append(("evidence", all(h.provisional for h in state.hits), "dense" in state.hits[0].signals,
                           RERANKING_NOTE in panel.title.text(), features.reranking))

    features.evidenceChanged.connect(evidence)
    features.retrievalFinished.connect(lambda: events.append(("shown",)))
    features.rerankFinished.connect(lambda: events.append(("reranked",)))
    with qtbot.waitSignal(features.rerankFinished, timeout=MODEL_MS):
        features.choose(load_catalog().get("81A"))
    assert events == [
        ("evidence", True, False, True, False),  # BM25 and vocabulary, marked "reranking…"
        ("shown",),
        ("evidence", False, True, False, False),  # the model's order replaces it, the note goes
        ("reranked",),
    ]
    assert any("subject-object-verb (SOV)" in h.paragraph.text for h in state.hits[:3])
    assert not features.retrieving


def test_an_opened_project_is_embedded_in_the_background_and_evidence_then_comes_in_one_step(
        qtbot, parts, demo_project, minilm_settings) -> None:
    state, runner, projects = parts
    features = FeatureController(state, runner, projects, lambda: minilm_settings)
    reported: list[tuple[int, int]] = []
    features.preparation.progressed.connect(lambda done, total: reported.append((done, total)))
    with qtbot.waitSignal(features.preparation.finished, timeout=MODEL_MS):
        assert projects.open(demo_project)
    with open_project(demo_project) as project:
        paragraphs = project.conn.execute("SELECT count(*) FROM paragraphs").fetchone()[0]
        vectors = project.conn.execute("SELECT count(*), count(DISTINCT paragraph_id) FROM embeddings").fetchone()
        assert vectors == (paragraphs, paragraphs) and reported[-1] == (paragraphs, paragraphs)
        stats: dict = {}
        retrieve(project, load_catalog().get("81A"), minilm_settings.retrieval, stats=stats)
        assert stats["embedded"] == 0  # a retrieval after the preparation embeds nothing
    shown: list[bool] = []
    features.evidenceChanged.connect(lambda: state.hits and shown.append(any(h.provisional for h in state.hits)))
    with qtbot.waitSignal(features.retrievalFinished, timeout=MODEL_MS):
        features.choose(load_catalog().get("49A"))
    assert shown == [False] and not features.reranking and "dense" in state.hits[0].signals
    features.preparation.start(projects.state.project_path)  # asked again: already done, nothing runs
    assert features.preparation.done and not features.preparation.running


def test_while_the_book_embeds_a_reranking_waits_for_its_candidates_to_go_first_and_embeds_nothing(
        qtbot, parts, tmp_path, minilm_settings) -> None:
    """The first minute (issue 28): a re-ranking that embedded its own candidates held a worker for seconds, and
    the next features' re-rankings waited behind it; now the book's preparation embeds the feature on screen
    first and says so, and the re-ranking then only ranks."""
    state, runner, projects = parts
    path = build_project(tmp_path / "long.grammarlens", generated_grammar(400))
    features = FeatureController(state, runner, projects, lambda: minilm_settings)
    ready: list[tuple[str, ...]] = []
    features.preparation.featuresReady.connect(lambda ids: ready.append(tuple(ids)))
    assert projects.open(path)  # the preparation starts: indexes, the model, then the book
    with qtbot.waitSignal(features.retrievalFinished, timeout=MODEL_MS):
        features.choose(load_catalog().get("81A"))
    assert all(h.provisional for h in state.hits)
    # waiting for the preparation, not in a worker embedding the candidates
    assert features.reranking and features._rerank is None and features.preparation.waits_for("81A")
    with qtbot.waitSignal(features.rerankFinished, timeout=MODEL_MS):
        pass
    assert not any(h.provisional for h in state.hits) and "dense" in state.hits[0].signals
    assert any("81A" in ids for ids in ready) and not features.preparation.done  # its candidates went first
    with open_project(path) as project:
        stats: dict = {}
        retrieve(project, load_catalog().get("81A"), minilm_settings.retrieval, stats=stats, wait_for_model=False)
        assert not stats["provisional"] and stats["embedded"] == 0


def test_look_ahead_depth_follows_the_coders_pace(qtbot, parts, demo_project) -> None:
    state, runner, projects = parts
    lookahead = LookAhead(runner, lambda: AppSettings())
    lookahead.set_project(demo_project)
    assert lookahead.depth() == MIN_AHEAD + 1  # pace unknown
    for pace, depth in ((5.0, MIN_AHEAD), (1.0, 3), (0.5, 6), (0.1, AHEAD)):
        lookahead.pace_s = pace
        assert lookahead.depth() == depth
    feature = load_catalog().get("81A")
    hit = type("Hit", (), {"provisional": True})()
    lookahead.put(feature, [hit])
    assert lookahead.hits(feature) is None  # provisional evidence is never kept


def test_while_the_model_loads_in_its_process_the_reranking_waits_without_holding_a_worker(
        qtbot, parts, demo_project, llm_server, minilm_path, tmp_path) -> None:
    """The first minute (issue 28): a re-ranking queued per feature behind a loading model held both workers."""
    from core.retrieval import dense

    state, runner, projects = parts
    fresh = tmp_path / "minilm-process"  # a model name no process has loaded yet
    fresh.symlink_to(minilm_path, target_is_directory=True)
    settings = AppSettings.local_server(llm_server.url, reranker=str(fresh))
    dense.use_model_process(True)
    served = None
    try:
        assert projects.open(demo_project)
        features = FeatureController(state, runner, projects, lambda: settings)
        dense.start_model(str(fresh), device=settings.retrieval.device)  # loading in its child from now on
        with qtbot.waitSignal(features.retrievalFinished, timeout=MODEL_MS):
            features.choose(load_catalog().get("81A"))
        assert all(h.provisional for h in state.hits)  # shown at once, ranked without the model
        if dense.model_loading(str(fresh)):  # (a machine that loads torch in a blink has nothing to wait for)
            # the re-ranking waits for the model here, not in one of the window's two workers
            assert features.reranking and features._rerank is None
        with qtbot.waitSignal(features.rerankFinished, timeout=MODEL_MS):
            pass
        assert not any(h.provisional for h in state.hits) and "dense" in state.hits[0].signals
        served = dense.load_model(str(fresh), device=settings.retrieval.device)
    finally:
        dense.use_model_process(False)
        if served is not None:
            served.close()
