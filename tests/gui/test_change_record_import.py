"""During a long batch import in the window, another program's answers reach the screens between its chunks.

The import (:mod:`core.profile.batch_files.importing`) commits every few hundred lines; the window's watch
(:mod:`core.store.watch` through :mod:`gui.common.changes`) holds back only the answers linked to the
batch's requests (announced once, in the import's own record), so a real ``main.py classify`` subprocess
run beside it is on screen within a second, not when the import ends.  The import is held between two
chunks by a gate on its real chunk object (no lock is held there), so the order is fixed, not timed.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from core.changes import Act
from core.profile.batch_files import importing
from tests.cli_runs import run_main_beside_the_window
from tests.fixtures_changes import records
from tests.fixtures_profile_batch import server_results, window_dock_with_answered_requests

WAIT_MS = 30_000
JUNK_LINES = 2 * importing.CHUNK_LINES  # chunks of broken lines between the two answers


@pytest.fixture
def held_between_chunks(monkeypatch) -> tuple[threading.Event, threading.Event]:
    """(reached, go_on): the import's second chunk waits, before it begins any transaction, until go_on."""
    reached, go_on = threading.Event(), threading.Event()
    made: list[int] = []
    chunk = importing._Chunk

    class Held(chunk):  # type: ignore[misc, valid-type]
        def __init__(self, stack) -> None:
            made.append(1)
            if len(made) == 2:  # the first chunk (the first answer) is committed
                reached.set()
                assert go_on.wait(WAIT_MS / 1000), "the test never let the import go on"
            super().__init__(stack)

    monkeypatch.setattr(importing, "_Chunk", Held)
    return reached, go_on


def _classify_in_the_cli(project: Path, url: str, feature: str) -> None:
    run_main_beside_the_window("classify", project, "--feature", feature, "--base-url", url, "--no-reranker",
                               "--no-cache")


def test_another_programs_answer_is_announced_between_the_chunks_of_the_windows_import(
        qtbot, main_window, demo_project, llm_server, llm_settings, tmp_path, held_between_chunks) -> None:
    reached, go_on = held_between_chunks
    window = main_window
    view, results = _results_with_a_gap(qtbot, window, demo_project, "81A", llm_server, llm_settings, tmp_path)
    seen = records(window)

    operation = view.batch_files.import_batch_results(results)
    assert operation is not None
    assert reached.wait(WAIT_MS / 1000)  # the first answer is committed; the import waits between chunks
    _classify_in_the_cli(demo_project, llm_server.url, "49A")  # another program answers meanwhile
    try:
        qtbot.waitUntil(lambda: any(who is None for _c, who in seen), timeout=5000)  # one look a second
        assert operation.running  # announced while the import still runs
        qtbot.wait(1200)
        outside = [c for c, who in seen if who is None]
        assert len(outside) == 1 and outside[0].act == Act.OUTSIDE and "49A" in outside[0].features
        assert not outside[0].features & {"81A", "GB107"}  # the import's own answer waits for its record
        assert window.features_panel.model.coded.get("49A") is None  # predicted, not decided
    finally:
        go_on.set()
    qtbot.waitUntil(lambda: not operation.running, timeout=WAIT_MS)
    qtbot.wait(2200)  # two looks: nothing of the import is found again as another program's
    assert [(c.act, who is view) for c, who in seen] == [(Act.OUTSIDE, False), (Act.BATCH_IMPORT, True)]
    assert {"81A", "GB107"} <= seen[1][0].features
    assert window.state.classification is not None and "SOV" in window.value_panel.value_label.text()  # 81A


def test_another_programs_batch_import_between_the_chunks_of_the_windows_is_announced_as_theirs(
        qtbot, main_window, demo_project, llm_server, llm_settings, tmp_path, held_between_chunks) -> None:
    """Two batch imports at once: the window's (81A, GB107) and a real ``main.py profile --batch-in`` of another
    results file (49A).  The CLI's answer is linked to a batch request too, but not claimed by the window's
    import: it is on screen as another program's between the window's chunks, and never in the window's record."""
    reached, go_on = held_between_chunks
    window = main_window
    view, results = _results_with_a_gap(qtbot, window, demo_project, "49A", llm_server, llm_settings, tmp_path)
    view.set_feature_set("49A")
    their_requests, theirs = tmp_path / "their-requests.jsonl", tmp_path / "their-results.jsonl"
    with qtbot.waitSignal(view.batchFileFinished, timeout=WAIT_MS):
        view.batch_files.export_batch_file(their_requests)
    server_results(llm_server, their_requests, theirs)
    seen = records(window)

    operation = view.batch_files.import_batch_results(results)
    assert operation is not None
    assert reached.wait(WAIT_MS / 1000)  # the window's first answer is committed; its import waits between chunks
    # another program imports its own results
    run_main_beside_the_window("profile", demo_project, "--batch-in", theirs)
    try:
        qtbot.waitUntil(lambda: any(who is None for _c, who in seen), timeout=5000)  # one look a second
        assert operation.running  # announced while the window's import still runs
        qtbot.wait(1200)
        outside = [c for c, who in seen if who is None]
        assert len(outside) == 1 and outside[0].act == Act.OUTSIDE and "49A" in outside[0].features
        assert not outside[0].features & {"81A", "GB107"}  # the window's own answer waits for its record
        assert window.statusBar().currentMessage().startswith("Model answers for 49A stored by another program")
    finally:
        go_on.set()
    qtbot.waitUntil(lambda: not operation.running, timeout=WAIT_MS)
    qtbot.wait(2200)  # two looks: nothing of either import is found again
    assert [(c.act, who is view) for c, who in seen] == [(Act.OUTSIDE, False), (Act.BATCH_IMPORT, True)]
    assert {"81A", "GB107"} <= seen[1][0].features and "49A" not in seen[1][0].features


def test_a_cancelled_import_shows_what_it_stored_once_it_is_over(
        qtbot, main_window, demo_project, llm_server, llm_settings, tmp_path, held_between_chunks) -> None:
    """Cancelled, the import announces nothing: the answers it committed (held back while it ran) are found
    by the next look instead, so the screens still show them."""
    reached, go_on = held_between_chunks
    window = main_window
    view, results = _results_with_a_gap(qtbot, window, demo_project, "GB107", llm_server, llm_settings, tmp_path)
    seen = records(window)
    operation = view.batch_files.import_batch_results(results)
    assert operation is not None and reached.wait(WAIT_MS / 1000)
    qtbot.wait(1200)
    assert seen == []  # held back while it runs
    view.batch_files.cancel()
    go_on.set()
    qtbot.waitUntil(lambda: not operation.running, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: bool(seen), timeout=5000)
    qtbot.wait(1200)
    assert len(seen) == 1 and seen[0][0].act == Act.OUTSIDE and seen[0][0].statuses
    stored = seen[0][0].features
    assert stored and stored <= {"81A", "GB107"}  # what the first chunk committed, announced once


def _results_with_a_gap(qtbot, window, project, feature, llm_server, llm_settings, tmp_path):
    """The project open at ``feature``, its dock on 81A and GB107, and a results file of their two answers
    with enough junk lines between them that the import commits the first chunk and pauses before the second."""
    requests, answers = tmp_path / "requests.jsonl", tmp_path / "answers.jsonl"
    view = window_dock_with_answered_requests(qtbot, window, project, feature, llm_server, llm_settings,
                                              requests, answers)
    first, second = answers.read_text(encoding="utf-8").splitlines()
    results = tmp_path / "results.jsonl"
    results.write_text(first + "\n" + "junk\n" * JUNK_LINES + second + "\n", encoding="utf-8")
    return view, results
