"""Two coders, one grammar: the disagreement queue in the main window, resolved with "Take B's"."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from tests.cli_runs import run_main
from tests.fixtures_two_coders import SLOW_MS, open_compared_queue


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_take_b_stores_a_decision_in_a_that_records_both_coders(qtbot, main_window, two_coder_files) -> None:
    from core.coding.decisions import current, history
    from core.store import open_project
    from gui.window.sample_wiring import open_queue

    a, b, ids = two_coder_files
    b_before = digest(b)
    window = main_window
    assert window.open_project(a)
    assert window.act_compare.text() == "&Compare with another coder's file…"
    project_menu = window.menuBar().actions()[0].menu()  # Project → Compare with another coder's file…
    assert window.act_compare in project_menu.actions()
    queue = open_queue(window, b)
    with qtbot.waitSignal(queue.compared, timeout=SLOW_MS):
        pass
    assert queue.list.count() == 1 and queue.current().feature_id == "GB107"  # 81A agreed: not in the queue
    assert "negative suffix -ka" in queue.side_a.text() and "particle, not an affix" in queue.side_b.text()
    assert "ana" in queue.side_a.text() and "ben" in queue.side_b.text()
    qtbot.waitUntil(lambda: window.state.feature is not None and window.state.feature.id == "GB107", timeout=SLOW_MS)
    pinned = {item.data(1) for item in window.pdf_view.overlays.highlights if item.data(0) == "pinned"}
    cited = {item.data(1) for item in window.pdf_view.overlays.highlights if item.data(0) == "cited"}
    assert ids[0] in pinned and ids[1] in cited  # A's pin violet, B's pin (found in A's book) teal
    queue.note.setText("checked §7.2: a particle")
    with qtbot.waitSignal(queue.resolved, timeout=SLOW_MS) as resolved:
        queue.take_b.click()
    feature_id, change = resolved.args
    assert feature_id == "GB107" and change.act == "resolution" and [d.code for d in change.decisions] == ["0"]
    assert queue.list.count() == 0  # the resolved item left the queue
    assert "ana" in queue.history.toPlainText() and "ben" in queue.history.toPlainText()
    with open_project(a, readonly=True) as project:
        now = current(project, "GB107")
        rows = history(project, "GB107")
    assert now.code == "0" and now.pins and now.pins[0].paragraph_id == ids[1]  # B's value with B's pin
    assert "checked §7.2" in now.note and "A: 1 (present) by ana" in now.note and "B: 0 (absent) by ben" in now.note
    assert [r.reviewer for r in rows][:1] == ["ana"] and rows[0].code == "1"  # A's earlier decision kept
    assert digest(b) == b_before  # B unchanged


def test_a_failed_resolution_goes_to_the_error_dialog(qtbot, main_window, two_coder_files) -> None:
    from core.coding.decisions import code
    from core.store import open_project

    a, b, _ids = two_coder_files
    queue = open_compared_queue(qtbot, main_window, a, b)
    with open_project(a, backup=False) as project:  # A changes the feature after the comparison
        code(project, "GB107", "?", reviewer="ana")
    with qtbot.waitSignal(main_window.errorShown, timeout=SLOW_MS) as shown:
        queue.take_a.click()
    assert "changed" in shown.args[0] and queue.list.count() == 1 and queue.take_a.isEnabled()


def test_the_queue_names_each_sides_coders_and_closes_when_another_project_opens(qtbot, main_window, demo_project,
                                                                               tmp_path, two_coder_files) -> None:
    a, b, _ids = two_coder_files
    other = tmp_path / "other.grammarlens"
    shutil.copy(demo_project, other)
    window = main_window
    queue = open_compared_queue(qtbot, window, a, b)
    assert "A: ana" in queue.title_a.text() and "B: ben" in queue.title_b.text()  # as stored, not the login name
    assert "blind kappa" in queue.summary.text()
    from PySide6.QtWidgets import QDockWidget

    assert window.findChild(QDockWidget, "disagreementDock").isVisible()
    assert window.open_project(other)  # A is no longer open: the queue must not resolve into the new project
    qtbot.waitUntil(lambda: getattr(window, "disagreement_queue", None) is None
                    and window.findChild(QDockWidget, "disagreementDock") is None, timeout=SLOW_MS)
    assert "was closed" in window.statusBar().currentMessage()


def test_a_feature_of_the_queue_decided_by_the_cli_beside_the_window_is_compared_again(
        qtbot, main_window, two_coder_files) -> None:
    """The queue follows the change record too: A's GB107 set to B's value elsewhere leaves nothing to resolve."""

    from gui.window.sample_wiring import open_queue

    a, b, _ids = two_coder_files
    window = main_window
    assert window.open_project(a)
    queue = open_queue(window, b)
    qtbot.waitUntil(lambda: queue.list.count() == 1, timeout=SLOW_MS)
    done = run_main("code", a, "--feature", "GB107", "--value", "0", "--reviewer", "ana")
    assert done.returncode == 0, done.stderr
    with qtbot.waitSignal(queue.compared, timeout=SLOW_MS):  # the window noticed, the queue compared again
        pass
    assert queue.list.count() == 0  # A and B now agree on GB107
