"""The Profile dock's batch files, end to end on the generated demo project.

Export runs from the dock's menu (only the file dialogs are answered by the test), the real local
server answers the written requests as its Batch API would, and Import runs from the dock again:
the table shows the values, a second import stores nothing, wrong files are refused with a hint,
and a cancelled export leaves neither a file nor a request behind.
"""

from __future__ import annotations

import json
from pathlib import Path

from gui.common import file_dialogs
from gui.profile.profile_model import VALUE
from gui.profile.profile_view import ProfileView
from tests.fixtures_profile_batch import FEATURES, WAIT_MS, count, server_results


def choose_file(monkeypatch, path: Path) -> None:
    """Answer the next file dialog with ``path`` (the dock's own code and the dialog's set-up run, exec does not)."""
    monkeypatch.setattr(file_dialogs, "_run", lambda dialog: path)


def run_action(qtbot, view: ProfileView, action) -> str:
    with qtbot.waitSignal(view.batchFileFinished, timeout=WAIT_MS) as finished:
        action.trigger()
        assert view.running and not view.run_button.isEnabled()
    assert not view.running and view.run_button.isEnabled() and not view.progress.isVisible()
    return finished.args[0]


def shown_values(view: ProfileView) -> dict[str, str]:
    return {view.model.entry(r).feature_id: view.model.index(r, VALUE).data() for r in range(view.model.rowCount())}


def test_export_answer_elsewhere_import_twice(qtbot, batch_view, llm_server, demo_project, tmp_path,
                                              monkeypatch) -> None:
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    choose_file(monkeypatch, requests)
    assert run_action(qtbot, batch_view, batch_view.export_batch_action) == "written"
    lines = [json.loads(x) for x in requests.read_text(encoding="utf-8").splitlines()]
    assert [x["custom_id"].split(":")[2] for x in lines] == ["81A", "GB107"]
    assert not llm_server.chat_requests  # written for another engine: nothing was asked here
    assert batch_view.batch_files.report_box.text().startswith(f"Wrote 2 request(s) of '{FEATURES}' to requests.jsonl")
    assert "run_batch" in batch_view.batch_files.report_box.informativeText()
    assert batch_view.estimate_label.text().startswith("Wrote 2 request(s)")
    batch_view.batch_files.report_box.accept()

    llm_server.add_rule("dominant order of subject, object and verb", "SOV")
    llm_server.add_rule("Standard negation is the negation", "1")
    server_results(llm_server, requests, results)
    choose_file(monkeypatch, results)
    assert run_action(qtbot, batch_view, batch_view.import_results_action) == "imported"
    assert (batch_view.batch_files.last_result.imported, batch_view.batch_files.last_result.not_imported) == (2, 0)
    assert batch_view.batch_files.report_box.text() == "Imported 2 of 2 line(s) from results.jsonl."
    assert shown_values(batch_view) == {"81A": "SOV", "GB107": "present"}  # the table was refreshed from the project
    batch_view.batch_files.report_box.accept()

    tables = {t: count(demo_project, t) for t in ("classifications", "classification_values", "llm_cache")}
    assert run_action(qtbot, batch_view, batch_view.import_results_action) == "imported"
    assert (batch_view.batch_files.last_result.imported, batch_view.batch_files.last_result.already) == (0, 2)
    assert batch_view.batch_files.report_box.text() == "Imported 0 of 2 line(s) from results.jsonl: 2 already stored."
    assert {t: count(demo_project, t) for t in tables} == tables
    assert shown_values(batch_view) == {"81A": "SOV", "GB107": "present"}
    batch_view.batch_files.report_box.accept()

    choose_file(monkeypatch, tmp_path / "again.jsonl")  # answered features are not written again
    assert run_action(qtbot, batch_view, batch_view.export_batch_action) == "written"
    said = batch_view.batch_files.report_box.text()
    assert said.startswith("Nothing to write to again.jsonl: every feature of '81A,GB107'")


def test_bad_lines_are_listed_and_wrong_files_refused(qtbot, batch_view, llm_server, demo_project, tmp_path,
                                                      monkeypatch) -> None:
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    batch_view.batch_files.export_batch_file(requests)
    qtbot.waitSignal(batch_view.batchFileFinished, timeout=WAIT_MS).wait()
    batch_view.batch_files.report_box.accept()
    llm_server.add_rule("dominant order of subject, object and verb", "SOV")
    server_results(llm_server, requests, results)
    good, second = results.read_text(encoding="utf-8").splitlines()
    failed = json.loads(second)
    failed.update(response=None, error={"code": "server_error", "message": "engine died"})
    elsewhere = json.loads(good)
    key = elsewhere["custom_id"].split(":")[1]
    elsewhere["custom_id"] = elsewhere["custom_id"].replace(key, "0123456789ab")  # another project's grammars

    cases = [  # (file content, outcome, start of the message, words of the hint)
        ("this is not json\n{also not\n", "failed", "mixed.jsonl is not a JSONL results file (line 1:", "one JSON"),
        (requests.read_text(encoding="utf-8"), "failed", "mixed.jsonl holds requests", "run_batch"),
        (json.dumps(elsewhere) + "\n", "failed", "No line of mixed.jsonl belongs to",
         "another project"),
        ("\n".join([good, json.dumps(failed), "garbage"]) + "\n", "imported",
         "Imported 1 of 3 line(s) from mixed.jsonl: 1 error(s), 1 broken line(s).", "line 2: GB107: the batch "
         "reported an error: server_error engine died; nothing stored\nline 3: is not valid JSON"),
    ]
    mixed = tmp_path / "mixed.jsonl"
    for content, outcome, message, hint in cases:
        mixed.write_text(content, encoding="utf-8")
        before = count(demo_project, "classifications")
        with qtbot.waitSignal(batch_view.batchFileFinished, timeout=WAIT_MS) as finished:
            batch_view.batch_files.import_batch_results(mixed)
        box = batch_view.batch_files.report_box
        assert finished.args == [outcome], box.text()
        assert box.text().startswith(message) and hint in box.informativeText()
        if outcome == "failed":
            assert count(demo_project, "classifications") == before
            assert batch_view.batch_files.report_box.windowTitle() == "Batch file"  # the window's error dialog
        batch_view.batch_files.report_box.accept()
    assert shown_values(batch_view) == {"81A": "SOV", "GB107": "—"}  # the failed line stored no value


def test_cancelled_export_leaves_nothing_behind(qtbot, batch_view, demo_project, tmp_path) -> None:
    out = tmp_path / "requests.jsonl"
    batch_view.set_feature_set("grambank")  # seconds of work: the cancel surely comes before its end
    with qtbot.waitSignal(batch_view.batchFileFinished, timeout=WAIT_MS) as finished:
        assert batch_view.batch_files.export_batch_file(out) is not None and batch_view.cancel_button.isEnabled()
        batch_view.cancel_batch()
    assert finished.args == ["cancelled"] and batch_view.batch_files.report_box is None
    assert batch_view.estimate_label.text().startswith("Cancelled; the project and the files are as they were.")
    assert not out.exists() and not out.with_name("requests.jsonl.part").exists()
    assert count(demo_project, "batch_requests") == 0 and count(demo_project, "profile_jobs") == 0


def test_an_unwritable_place_is_said_with_a_hint(qtbot, batch_view, demo_project, tmp_path) -> None:
    with qtbot.waitSignal(batch_view.batchFileFinished, timeout=WAIT_MS) as finished:
        batch_view.batch_files.export_batch_file(tmp_path / "no such folder" / "requests.jsonl")
    assert finished.args == ["failed"]
    assert batch_view.batch_files.report_box.text().startswith(f"The folder {tmp_path / 'no such folder'} of ")
    assert batch_view.batch_files.report_box.text().endswith("does not exist.")
    assert batch_view.batch_files.report_box.informativeText() == "Create it first, or choose another place."
    assert count(demo_project, "batch_requests") == 0
