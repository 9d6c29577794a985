"""Model answers and the window's own background acts in the one change record (gui/common/changes.py).

``classify`` run by the CLI beside the window (a real ``main.py classify`` subprocess asking the
OpenAI-compatible server of devtools on 127.0.0.1) shows its answer on screen; the window's own
classification and batch import are one record each, never found again as another process's; and an
act the window runs from a worker is not announced twice when the watch looks between its commit and
its record (:meth:`gui.common.changes.ProjectChanges.writing`).
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from core.changes import Act, ProjectChange
from core.coding import acts
from core.models import Language
from core.store import open_project, repository
from core.store.watch import Written
from gui.common.operations import Operation
from gui.common.settings import AppSettings
from tests.cli_runs import run_main_beside_the_window
from tests.fixtures_changes import records
from tests.fixtures_gui import open_on_local_server
from tests.fixtures_profile_batch import server_results, window_dock_with_answered_requests

WAIT_MS = 30_000



def _open(qtbot, window, project: Path, feature: str = "81A") -> None:
    with qtbot.waitSignal(window.retrievalFinished, timeout=WAIT_MS):
        assert window.open_project(project, feature=feature)


@pytest.mark.slow
def test_classify_in_the_cli_beside_the_window_shows_its_answer_on_screen(
        qtbot, main_window, demo_project, llm_server) -> None:
    llm_server.add_rule("dominant order of subject, object and verb", "SOV")
    window = main_window
    _open(qtbot, window, demo_project)
    assert window.state.classification is None and window.value_panel.value_label.text() in ("—", "")
    seen = records(window)

    run_main_beside_the_window("classify", demo_project, "--feature", "81A", "--base-url", llm_server.url,
                               "--no-reranker", "--no-cache")
    qtbot.waitUntil(lambda: window.state.classification is not None, timeout=5000)  # one look a second
    qtbot.wait(1200)  # a later look finds nothing more
    assert len(seen) == 1 and seen[0][1] is None and seen[0][0].act == Act.OUTSIDE
    assert "81A" in seen[0][0].features and seen[0][0].statuses
    with open_project(demo_project, readonly=True) as project:
        newest = project.conn.execute("SELECT MAX(id) FROM classifications WHERE feature_id = '81A'").fetchone()[0]
    assert window.state.classification.id == newest  # the CLI's answer, read anew
    assert "SOV" in window.value_panel.value_label.text()  # the model answer on screen
    assert window.features_panel.model.coded.get("81A") is None  # predicted, not decided
    assert window.statusBar().currentMessage().startswith("Model answers for 81A stored by another program")
    window.grab().save("/tmp/grammarlens-change-record-cli-classify.png")


@pytest.mark.slow
def test_the_windows_own_classification_is_one_record_never_an_outside_one(
        qtbot, main_window, demo_project, llm_server) -> None:
    llm_server.add_rule("dominant order of subject, object and verb", "SOV")
    window = main_window
    open_on_local_server(qtbot, window, demo_project, llm_server.url, wait_ms=WAIT_MS)
    seen = records(window)
    with qtbot.waitSignal(window.classificationFinished, timeout=WAIT_MS):
        window.features.classify()
    qtbot.wait(2200)  # two looks: the worker's commit is the window's own
    assert [(c.act, "81A" in c.features, who is window.features) for c, who in seen] == [(Act.CLASSIFY, True, True)]


def test_a_batch_import_in_the_profile_dock_is_one_record_of_its_own(
        qtbot, main_window, demo_project, llm_server, llm_settings, tmp_path) -> None:
    window = main_window
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    view = window_dock_with_answered_requests(qtbot, window, demo_project, "81A", llm_server, llm_settings,
                                              requests, results)
    seen = records(window)
    with qtbot.waitSignal(view.batchFileFinished, timeout=WAIT_MS):
        view.batch_files.import_batch_results(results)
    qtbot.wait(2200)
    assert [(c.act, who is view) for c, who in seen] == [(Act.BATCH_IMPORT, True)]  # never also an outside one
    assert {"81A", "GB107"} <= seen[0][0].features and seen[0][0].statuses
    assert window.state.classification is not None and "SOV" in window.value_panel.value_label.text()  # 81A on screen


def test_a_look_between_a_workers_commit_and_its_record_announces_nothing(qtbot, main_window, demo_project) -> None:
    """The race the queue's resolution had: the commit lands, the watch looks, then the record arrives."""
    window = main_window
    _open(qtbot, window, demo_project)
    changes, seen = window.projects.changes, records(window)
    committed, go_on = threading.Event(), threading.Event()

    def job(_progress) -> ProjectChange:
        with open_project(demo_project, backup=False) as own:  # a worker's connection, as the queue's
            change = acts.code(own, "GB020", "1", reviewer="window")
        committed.set()
        assert go_on.wait(10)
        return change

    operation = changes.writing(Operation(window.runner, job).success(lambda c: changes.announce(c, "queue")),
                                frozenset({Written.DECISIONS}))
    operation.run_in_background()
    assert committed.wait(10)
    assert changes.busy_writing and changes.look() is None  # held: the commit is this window's own
    with open_project(demo_project, backup=False) as cli:  # meanwhile another program sets the language
        repository.set_language(cli, Language("Ik", "ikkk1242", "user"))
    language = changes.look()  # not held up by the window's act: it writes no language
    assert language is not None and language.language and not language.features
    go_on.set()
    qtbot.waitUntil(lambda: not operation.running, timeout=5000)
    assert not changes.busy_writing and changes.look() is None  # its rows were announced as the window's
    assert [(c.act, who) for c, who in seen] == [(Act.OUTSIDE, None), (Act.CODE, "queue")]
    assert window.features_panel.model.coded.get("GB020") == "✔"
    assert "Ik (ikkk1242)" in window.language_line.text()


def test_a_sample_batch_import_into_the_open_project_is_one_record_of_the_sample_window(
        qtbot, main_window, llm_project, llm_server, tmp_path) -> None:
    from gui.window.sample_wiring import open_sample
    from tests.gui.test_sample_batch_files import two_grammar_projects

    first, _second = two_grammar_projects(llm_project, tmp_path / "sample")
    main_window.apply_settings(AppSettings.local_server(llm_server.url, model="gpt-4o", reranker=None,
                                                        timeout_s=10.0))
    _open(qtbot, main_window, first)
    sample = open_sample(main_window, tmp_path / "sample")
    qtbot.waitUntil(lambda: sample.view is not None, timeout=WAIT_MS)
    files, requests, results = sample.batch_files, tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    with qtbot.waitSignal(files.finished, timeout=WAIT_MS):
        files.write(requests, "81A,GB107")
    llm_server.add_rule("verb-final", "SOV")
    server_results(llm_server, requests, results)
    seen = records(main_window)
    with qtbot.waitSignal(files.finished, timeout=WAIT_MS):
        files.import_results(results)
    qtbot.wait(2200)
    assert [(c.act, who is files) for c, who in seen] == [(Act.BATCH_IMPORT, True)]  # B's answers are not A's
    assert {"81A", "GB107"} <= seen[0][0].features
    assert main_window.state.classification is not None and "SOV" in main_window.value_panel.value_label.text()
    sample.close()


def _profile_dock(qtbot, window, project: Path, url: str, features: str, timeout_s: float):
    """The window on ``project`` with the local server's settings, its profile dock showing ``features``."""
    open_on_local_server(qtbot, window, project, url, timeout_s=timeout_s, wait_ms=WAIT_MS)
    view = window.show_profile_view()
    with qtbot.waitSignal(view.estimateShown, timeout=WAIT_MS):
        view.set_feature_set(features)
    return view


@pytest.mark.slow
def test_a_batch_run_in_the_profile_dock_announces_its_answers_as_its_own(
        qtbot, main_window, demo_project, llm_server) -> None:
    llm_server.add_rule("dominant order of subject, object and verb", "SOV")
    llm_server.enqueue(*[{"delay": 1.2}] * 3)  # the answers land over a few looks
    window = main_window
    view = _profile_dock(qtbot, window, demo_project, llm_server.url, "81A,GB107,49A", timeout_s=10.0)
    seen = records(window)
    with qtbot.waitSignal(view.batchFinished, timeout=WAIT_MS) as finished:
        assert view.start_batch() is not None
    assert finished.args == ["done"], view.last_error
    qtbot.wait(1200)
    assert seen and all(who is view for _c, who in seen)  # the dock's answers, never another program's
    assert set().union(*(c.features for c, _who in seen)) >= {"81A", "GB107", "49A"}
    assert "another program" not in window.statusBar().currentMessage()
    assert window.state.classification is not None and "SOV" in window.value_panel.value_label.text()  # 81A


@pytest.mark.slow
def test_another_programs_classify_during_the_docks_run_is_announced_as_another_programs(
        qtbot, main_window, demo_project, llm_server) -> None:
    """The dock's Run of 81A and GB107: one answer stored, the other's request held at the server; meanwhile a
    real ``main.py classify`` answers that same feature.  Its answer is another program's (the status bar says
    so), the run's two are the dock's, even the one to the same feature stored after it."""
    llm_server.add_rule("dominant order of subject, object and verb", "SOV")
    llm_server.add_rule("Standard negation is the negation", "1")
    window, go_on = main_window, threading.Event()
    view = _profile_dock(qtbot, window, demo_project, llm_server.url, "81A,GB107", timeout_s=120.0)
    seen = records(window)
    llm_server.enqueue({}, {"wait": go_on})  # one request is answered, the other waits for go_on
    operation = view.start_batch()
    assert operation is not None
    try:
        qtbot.waitUntil(lambda: len(llm_server.chat_requests) >= 2 and bool(_features_answered(demo_project)),
                        timeout=WAIT_MS)
        [first] = _features_answered(demo_project)
        held = ({"81A", "GB107"} - {first}).pop()
        run_main_beside_the_window("classify", demo_project, "--feature", held, "--base-url", llm_server.url,
                                   "--no-reranker", "--no-cache")
        qtbot.waitUntil(lambda: any(who is None for _c, who in seen), timeout=5000)  # one look a second
        assert operation.running
        assert window.statusBar().currentMessage().startswith(f"Model answers for {held} stored by another program")
        window.grab().save("/tmp/grammarlens-dock-run-beside-cli-classify.png")
    finally:
        go_on.set()
    with qtbot.waitSignal(view.batchFinished, timeout=WAIT_MS) as finished:
        pass
    assert finished.args == ["done"], view.last_error
    qtbot.wait(1200)
    outside = [c for c, who in seen if who is None]
    assert len(outside) == 1 and held in outside[0].features and first not in outside[0].features
    dock = [c for c, who in seen if who is view]
    assert all(who in (None, view) for _c, who in seen)
    assert set().union(*(c.features for c in dock)) >= {"81A", "GB107"}  # the run's answers, as they landed
    with open_project(demo_project, readonly=True) as project:
        theirs = project.conn.execute("SELECT MIN(id) FROM classifications WHERE feature_id = ?", (held,)).fetchone()[0]
    assert not any(theirs in c.answers for c in dock)  # the CLI's answer to the same feature is not the dock's


def _features_answered(project: Path) -> list[str]:
    with open_project(project, readonly=True) as db:
        return [str(r[0]) for r in db.conn.execute("SELECT feature_id FROM classifications ORDER BY id")]


def test_a_running_acts_claims_hold_when_its_project_is_opened_again(qtbot, demo_project) -> None:
    """The project is opened again (a new watch) while the dock's Run stores answers: the new watch follows the
    run's claims, so its next answer is still the run's, not another program's."""
    from core.records.classifications import ValueRecord
    from core.store.claims import AnswerClaims
    from core.store.classifications import save_classification
    from gui.common.changes import ProjectChanges
    from gui.common.operations import OperationRunner
    from tests.core.test_export_fuzz import classification

    runner, changes = OperationRunner(), ProjectChanges()
    first = open_project(demo_project, backup=False)
    changes.set_project(first)
    seen: list = []
    changes.changed.connect(lambda change, who: seen.append((change, who)))
    claims, go_on = AnswerClaims(), threading.Event()

    def job(_progress) -> None:  # the run's next answer, stored and claimed in one transaction
        assert go_on.wait(10)
        with open_project(demo_project, backup=False) as own, own.transaction():
            answer = save_classification(own, classification("81A", [ValueRecord("81A", "1", "SOV")]), {})
            assert answer.id is not None
            claims.claim(demo_project, answer.id)

    operation = changes.claiming(Operation(runner, job), claims, "run").run_in_background()
    second = open_project(demo_project, backup=False)
    changes.set_project(second)  # opened again while the run goes on
    go_on.set()
    qtbot.waitUntil(lambda: not operation.running, timeout=10_000)
    assert changes.look() is None
    assert [(c.act, "81A" in c.features, who) for c, who in seen] == [(Act.CLASSIFY, True, "run")]
    assert runner.shutdown(10_000)
    first.close()
    second.close()
