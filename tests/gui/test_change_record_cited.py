"""A model answer stored by the CLI beside the window always shows the paragraphs it cited (issue 29).

Two races between the window and a real ``main.py classify`` subprocess (asking the OpenAI-compatible
server of devtools on 127.0.0.1) writing the same project file:

- the window is finding evidence for 81A while the CLI answers 81A: the answer arrives (the watch
  shows it, with its own evidence), then the window's retrieval finishes and must not replace the
  paragraphs the answer cites with its own list;
- the window's own classification of 81A has committed, the CLI's newer answer commits before the
  window's worker result reaches the UI thread: the window must show the newer answer (the CLI's),
  and announce it as another program's, not take it for its own.

The window's worker threads are held by a real operation waiting on an event (as a long preparation
of the book would hold them), so the order of the race is fixed, not left to timing.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from pathlib import Path

from core.changes import Act
from core.store import open_project
from gui.common.operations import Operation
from gui.features import review
from tests.cli_runs import run_main_beside_the_window
from tests.fixtures_changes import records
from tests.fixtures_gui import open_on_local_server

WAIT_MS = 30_000


def _classify_in_the_cli(project: Path, url: str) -> None:
    run_main_beside_the_window("classify", project, "--feature", "81A", "--base-url", url, "--no-reranker",
                               "--no-cache")


def _stored(project: Path):
    """The newest stored answer for 81A and the paragraphs it brought (its evidence, in its order)."""
    with open_project(project, readonly=True) as db:
        newest = review.latest_classification(db, "81A")
        assert newest is not None
        return newest, [h.paragraph.id for h in review.describe(newest, db).evidence_hits]


def _hold_the_workers(qtbot, window) -> threading.Event:
    """Keep both of the window's worker threads busy until the returned event is set."""
    release, started = threading.Event(), []
    for _ in range(window.runner.pool.pool.maxThreadCount()):
        def hold(_progress) -> None:
            started.append(1)
            assert release.wait(60)
        Operation(window.runner, hold).run_in_background()
    qtbot.waitUntil(lambda: len(started) == window.runner.pool.pool.maxThreadCount(), timeout=WAIT_MS)
    return release


def test_evidence_found_after_the_clis_answer_arrived_does_not_replace_the_paragraphs_it_cites(
        qtbot, main_window, demo_project, llm_server) -> None:
    llm_server.add_rule("dominant order of subject, object and verb", "SOV", cite=[2, 14])  # 14: below the top ten
    window = main_window
    with qtbot.waitSignal(window.retrievalFinished, timeout=WAIT_MS):
        assert window.open_project(demo_project, feature="49A")
    qtbot.waitUntil(lambda: not window.features.retrieving, timeout=WAIT_MS)
    release = _hold_the_workers(qtbot, window)
    window.select_feature("81A")  # the coder moves to 81A; its evidence waits for a worker
    assert window.state.feature is not None and window.state.feature.id == "81A"
    assert window.features.retrieving and window.state.classification is None

    _classify_in_the_cli(demo_project, llm_server.url)
    qtbot.waitUntil(lambda: window.state.classification is not None, timeout=5000)  # the watch looks once a second
    stored, evidence = _stored(demo_project)
    assert window.state.classification.id == stored.id and evidence
    release.set()  # now the window's retrieval runs and finishes
    qtbot.waitUntil(lambda: not window.features.retrieving, timeout=WAIT_MS)
    qtbot.wait(300)

    shown = [h.paragraph.id for h in window.state.hits]
    assert shown == evidence  # the answer's own evidence, not the list the window found meanwhile
    rows = [window.evidence_panel.model.hit(r).paragraph.id for r in range(window.evidence_panel.model.rowCount())]
    cited = set(window.state.cited)
    assert len(cited) == 2 and cited <= set(rows)  # every cited paragraph is on screen
    assert window.state.classification.id == stored.id
    window.grab().save("/tmp/grammarlens-cli-answer-keeps-its-evidence.png")


def test_the_windows_answer_arriving_after_a_newer_one_of_the_cli_never_hides_it(
        qtbot, main_window, demo_project, llm_server) -> None:
    llm_server.add_rule("dominant order of subject, object and verb", "SOV")
    window = main_window
    open_on_local_server(qtbot, window, demo_project, llm_server.url, wait_ms=WAIT_MS)
    qtbot.waitUntil(lambda: not window.features.retrieving, timeout=WAIT_MS)
    seen = records(window)
    operation = window.features.classify()
    assert operation is not None
    deadline = time.monotonic() + 30  # the window's worker commits its answer; the UI thread is not told yet
    while time.monotonic() < deadline:
        with open_project(demo_project, readonly=True) as db:
            if review.latest_classification(db, "81A") is not None:
                break
        time.sleep(0.05)
    ours, _ = _stored(demo_project)
    _classify_in_the_cli(demo_project, llm_server.url)  # a newer answer, committed before the window hears of its own
    newest, evidence = _stored(demo_project)
    assert newest.id != ours.id

    qtbot.waitUntil(lambda: not operation.running, timeout=WAIT_MS)
    qtbot.wait(2200)  # two looks of the watch
    assert window.state.classification is not None and window.state.classification.id == newest.id
    assert [h.paragraph.id for h in window.state.hits] == evidence
    assert [(c.act, who is window.features) for c, who in seen][:1] == [(Act.CLASSIFY, True)]
    assert any(c.act == Act.OUTSIDE and "81A" in c.features and who is None for c, who in seen)  # announced


def test_accept_never_takes_an_answer_older_than_one_another_program_stored_meanwhile(
        qtbot, main_window, demo_project, llm_server) -> None:
    """The coder reads the CLI's first answer; before the window's next look a second one is committed: Accept
    refuses the stale one (no decision), the newer answer is shown at once, and the next Accept takes it."""
    from core.coding import current
    from core.records.classifications import ValueRecord
    from core.store.classifications import save_classification
    from core.timestamps import now_iso
    from tests.core.test_export_fuzz import classification

    llm_server.add_rule("dominant order of subject, object and verb", "SOV")
    window = main_window
    with qtbot.waitSignal(window.retrievalFinished, timeout=WAIT_MS):
        assert window.open_project(demo_project, feature="81A")
    _classify_in_the_cli(demo_project, llm_server.url)
    qtbot.waitUntil(lambda: window.state.classification is not None, timeout=5000)
    read = window.state.classification
    with open_project(demo_project, backup=False) as other, other.transaction():  # no look of the window since
        answer = classification("81A", [ValueRecord("81A", "2", "SVO")])
        newer = save_classification(other, dataclasses.replace(answer, created_at=now_iso()), {})

    assert not window.coding.accept()
    assert "newer model answer for 81A" in window.statusBar().currentMessage()
    assert window.state.classification.id == newer.id != read.id  # shown at once, not at the next look
    with open_project(demo_project, readonly=True) as db:
        assert current(db, "81A") is None  # nothing was decided from the stale answer
    assert window.coding.accept()
    with open_project(demo_project, readonly=True) as db:
        decision = current(db, "81A")
        assert decision is not None and decision.code == "2"
