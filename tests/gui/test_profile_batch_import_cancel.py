"""The Profile dock's words for a cancelled import, an answer without token counts, and a failed backup.

An import commits its lines in chunks (issue 19), so a cancelled one keeps the lines stored before
the cancel: the dock says so (not "the project is left as it was", which is still true of a
cancelled export) and importing the file again stores the rest.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from core.profile.batch_files import importing
from core.store.backups import backup_dir
from tests.fixtures_profile_batch import WAIT_MS, count, server_results

JUNK_LINES = 2_000  # ten chunks of broken lines between the two answers


def written_results(qtbot, view, llm_server, tmp_path: Path) -> tuple[str, str]:
    """The two result lines (81A, GB107) the server's Batch API writes for the dock's exported requests."""
    requests, results = tmp_path / "requests.jsonl", tmp_path / "answers.jsonl"
    with qtbot.waitSignal(view.batchFileFinished, timeout=WAIT_MS) as finished:
        view.batch_files.export_batch_file(requests)
    assert finished.args == ["written"]
    view.batch_files.report_box.accept()
    llm_server.add_rule("dominant order of subject, object and verb", "SOV")
    llm_server.add_rule("Standard negation is the negation", "1")
    server_results(llm_server, requests, results)
    first, second = results.read_text(encoding="utf-8").splitlines()
    return first, second


def import_file(qtbot, view, path: Path, *, cancel: threading.Event | None = None) -> str:
    with qtbot.waitSignal(view.batchFileFinished, timeout=WAIT_MS) as finished:
        assert view.batch_files.import_batch_results(path) is not None
        if cancel is not None:  # once the first chunk is committed (its progress is shown), not before the job starts
            qtbot.waitUntil(lambda: view.progress.maximum() > 1, timeout=WAIT_MS)
            view.cancel_batch()
            cancel.set()
            assert view.estimate_label.text() == "Cancelling: the lines imported so far are kept…"
    return finished.args[0]


@pytest.fixture
def cancel_after_first_chunk(monkeypatch) -> threading.Event:
    """A gate on the real import: the second chunk's first line waits until the test has pressed Cancel.

    Without it the cancel races the import (broken lines go fast), and a fast machine stores the last
    answer before the cancel lands.  The import itself runs unchanged; only its timing is held.
    """
    pressed = threading.Event()
    line = importing._Importer.line

    def gated(self, number, *args):
        if number == importing.CHUNK_LINES + 1:
            assert pressed.wait(WAIT_MS / 1000), "the test never pressed Cancel"
        return line(self, number, *args)

    monkeypatch.setattr(importing._Importer, "line", gated)
    return pressed


def test_a_cancelled_import_keeps_its_lines_and_the_next_stores_the_rest(qtbot, batch_view, llm_server,
                                                                          demo_project, tmp_path,
                                                                          cancel_after_first_chunk) -> None:
    first, second = written_results(qtbot, batch_view, llm_server, tmp_path)
    unread = json.loads(second)
    unread["response"]["body"]["usage"] = {"prompt_tokens": "many", "completion_tokens": 3}
    results = tmp_path / "results.jsonl"
    results.write_text(first + "\n" + "junk\n" * JUNK_LINES + json.dumps(unread) + "\n", encoding="utf-8")
    before = count(demo_project, "classifications")

    shown = batch_view.batch_files.report_box  # the export's
    assert import_file(qtbot, batch_view, results, cancel=cancel_after_first_chunk) == "cancelled"
    assert batch_view.batch_files.report_box is shown and batch_view.run_button.isEnabled()  # a cancel opens no message
    assert batch_view.estimate_label.text().startswith(
        "Cancelled; the lines imported so far are kept (each whole). Import the file again to store the rest.")
    assert count(demo_project, "classifications") == before + 1  # the first line, committed before the cancel

    assert import_file(qtbot, batch_view, results) == "imported"
    assert count(demo_project, "classifications") == before + 2
    assert batch_view.batch_files.report_box.text() == (
        f"Imported 1 of {JUNK_LINES + 2:,} line(s) from results.jsonl: 1 already stored, {JUNK_LINES:,} broken "
        "line(s), 1 stored without token counts (cost unknown).")
    batch_view.batch_files.report_box.accept()


def test_a_backup_that_failed_is_a_warning_of_the_import(qtbot, batch_view, llm_server, demo_project, tmp_path) -> None:
    first, second = written_results(qtbot, batch_view, llm_server, tmp_path)
    results = tmp_path / "results.jsonl"
    results.write_text(first + "\n" + second + "\n", encoding="utf-8")
    folder = backup_dir(demo_project)
    if folder.is_dir():  # opening the demo project backed it up: make the folder a file instead
        for entry in folder.iterdir():
            entry.unlink()
        folder.rmdir()
    folder.write_text("a file where the backup folder should be", encoding="utf-8")

    assert import_file(qtbot, batch_view, results) == "imported"
    box = batch_view.batch_files.report_box
    assert box.text() == "Imported 2 of 2 line(s) from results.jsonl."
    assert box.informativeText().startswith(f"Warning: No backup of {demo_project.name} could be taken before the "
                                            "import, which went on: Cannot create the backup folder")
    assert box.icon() == box.Icon.Warning
    box.accept()
