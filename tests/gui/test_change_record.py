"""One change record for every act (gui/common/changes.py): the window's own acts and the CLI beside it.

The CLI is a real subprocess (``main.py code ...``) writing the project the window has open; the
window notices it (``PRAGMA data_version``) and announces ONE :class:`core.changes.ProjectChange`,
from which the feature list, the profile dock and the coding panel all update.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from core.changes import Act
from tests.fixtures_changes import records

REPO = Path(__file__).resolve().parents[2]
WAIT_MS = 20_000



def _dock_row(view, feature_id: str):
    return next((e for e in view.model.entries if e.feature_id == feature_id), None)


def _cli(*args: str) -> None:
    done = subprocess.run([sys.executable, "main.py", *args], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_an_act_of_the_cli_beside_the_window_reaches_list_dock_and_panel_from_one_record(
        qtbot, main_window, demo_project) -> None:
    window = main_window
    with qtbot.waitSignal(window.retrievalFinished, timeout=WAIT_MS):
        assert window.open_project(demo_project, feature="81A")
    view = window.show_profile_view()
    qtbot.waitUntil(lambda: view.summary_label.text() != "", timeout=WAIT_MS)
    marks = window.features_panel.model.coded
    assert "81A" not in marks and window.coding_panel.view.current_code is None
    assert _dock_row(view, "81A") is None or _dock_row(view, "81A").code != "1"
    seen = records(window)

    _cli("code", str(demo_project), "--feature", "81A", "--value", "1", "--reviewer", "cli", "--note", "from the CLI")
    qtbot.waitUntil(lambda: bool(seen), timeout=5000)  # the window looks once a second
    qtbot.waitUntil(lambda: getattr(_dock_row(view, "81A"), "code", None) == "1", timeout=WAIT_MS)  # read anew
    qtbot.wait(1200)  # one more look finds nothing new: the act is announced once
    assert len(seen) == 1
    change, initiator = seen[0]
    assert initiator is None and change.act == Act.OUTSIDE  # nobody in this window made it
    assert change.features == {"81A"} and change.statuses and not change.whole_project
    assert [d.reviewer for d in change.decisions] == ["cli"]

    assert window.features_panel.model.coded.get("81A") == "✔"  # the feature list
    assert window.coding_panel.view.current_code == "1"  # the coding panel (81A is on screen)
    assert window.coding_panel.view.note == "from the CLI"
    row = _dock_row(view, "81A")  # the profile dock
    assert row is not None and row.code == "1"
    assert "81A decided by cli in another program" in window.statusBar().currentMessage()
    window.grab().save("/tmp/grammarlens-change-record-after-cli.png")


def test_the_windows_own_act_is_one_record_and_not_found_again_as_an_outside_change(
        qtbot, main_window, demo_project) -> None:
    window = main_window
    with qtbot.waitSignal(window.retrievalFinished, timeout=WAIT_MS):
        assert window.open_project(demo_project, feature="81A")
    seen = records(window)
    assert window.coding.set_value("2")
    _cli("code", str(demo_project), "--feature", "GB020", "--value", "1", "--reviewer", "cli")  # moves data_version
    qtbot.waitUntil(lambda: len(seen) >= 2, timeout=5000)
    qtbot.wait(1200)
    assert [(c.act, sorted(c.features), who is window.coding) for c, who in seen] == [
        (Act.CODE, ["81A"], True), (Act.OUTSIDE, ["GB020"], False)]
    assert window.features_panel.model.coded.get("GB020") == "✔" and window.coding_panel.view.current_code == "2"


def test_a_refused_act_changes_nothing_and_announces_nothing(qtbot, main_window, demo_project) -> None:
    window = main_window
    with qtbot.waitSignal(window.retrievalFinished, timeout=WAIT_MS):
        assert window.open_project(demo_project, feature="81A")
    seen = records(window)
    with qtbot.waitSignal(window.coding.failed, timeout=2000):
        assert not window.coding.pin_page("no-such-page")
    qtbot.wait(1200)
    assert seen == [] and window.coding_panel.view.pins == ()


def test_the_pass_counter_follows_an_act_of_the_cli(qtbot, main_window, demo_project) -> None:
    window = main_window
    with qtbot.waitSignal(window.retrievalFinished, timeout=WAIT_MS):
        assert window.open_project(demo_project, feature="81A")
    assert window.coding.passes.start_pass("wals")
    assert window.pass_bar.counter_label.text().startswith("0 of ")
    seen = records(window)
    _cli("code", str(demo_project), "--feature", "49A", "--value", "?", "--reviewer", "cli")
    qtbot.waitUntil(lambda: bool(seen), timeout=5000)
    assert window.pass_bar.counter_label.text().startswith("1 of ")  # 49A is of the WALS pass
    assert window.features_panel.model.coded.get("49A") == "?"


def test_the_language_set_by_the_cli_reaches_the_language_line_and_the_title(qtbot, main_window, demo_project) -> None:
    window = main_window
    assert window.open_project(demo_project)
    qtbot.waitUntil(lambda: window.language_line.isVisible(), timeout=WAIT_MS)
    assert not window.windowTitle().startswith("Ik — ")
    seen = records(window)
    _cli("language", str(demo_project), "--name", "Ik", "--glottocode", "ikkk1242")
    qtbot.waitUntil(lambda: bool(seen), timeout=5000)
    assert len(seen) == 1 and seen[0][0].language and seen[0][1] is None
    assert "Language: Ik (ikkk1242)" in window.language_line.text() and window.windowTitle().startswith("Ik — ")
