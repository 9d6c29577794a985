"""The Profile dock's batch files, end to end on the generated demo project.

Export runs from the dock's menu (only the file dialogs are answered by the test), the real local
server answers the written requests as its Batch API would, and Import runs from the dock again:
the table shows the values, a second import stores nothing, wrong files are refused with a hint,
and a cancelled export leaves neither a file nor a request behind.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.store import open_project
from gui.common import file_dialogs
from gui.common.operations import OperationRunner
from gui.profile.profile_model import VALUE
from gui.profile.profile_view import ProfileView
from gui.common.settings import AppSettings

WAIT_MS = 30_000
FEATURES = "81A,GB107"


@pytest.fixture
def view(qtbot, llm_server, llm_settings, demo_project):
    runner = OperationRunner()
    settings = AppSettings(llm=llm_settings, retrieval=AppSettings().retrieval.with_(reranker=None))
    view = ProfileView(runner, lambda: settings)
    qtbot.addWidget(view)
    view.resize(1000, 500)
    view.show()
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        view.set_project(demo_project)
    view.set_feature_set(FEATURES)
    yield view
    assert runner.shutdown(10_000)


def choose_file(monkeypatch, path: Path) -> None:
    """Answer the next file dialog with ``path`` (the dock's own code and the dialog's set-up run, exec does not)."""
    monkeypatch.setattr(file_dialogs, "_run", lambda dialog: path)


def run_action(qtbot, view: ProfileView, action) -> str:
    with qtbot.waitSignal(view.batchFileFinished, timeout=WAIT_MS) as finished:
        action.trigger()
        assert view.running and not view.run_button.isEnabled()
    assert not view.running and view.run_button.isEnabled() and not view.progress.isVisible()
    return finished.args[0]


def server_results(server, requests: Path, results: Path) -> None:
    """The results file the server's Batch API would write for ``requests`` (its answering rules)."""
    out = []
    for raw in requests.read_text(encoding="utf-8").splitlines():
        request = json.loads(raw)
        content, tokens = server.answer(request["body"])
        out.append({"id": "batch_req_1", "custom_id": request["custom_id"], "error": None, "response": {
            "status_code": 200, "request_id": "req_1", "body": {
                "id": "chatcmpl-1", "object": "chat.completion", "model": request["body"]["model"],
                "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 500, "completion_tokens": tokens, "total_tokens": 500 + tokens}}}})
    results.write_text("".join(json.dumps(x) + "\n" for x in out), encoding="utf-8")


def count(path: Path, table: str) -> int:
    with open_project(path, readonly=True) as project:
        return project.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def shown_values(view: ProfileView) -> dict[str, str]:
    return {view.model.entry(r).feature_id: view.model.index(r, VALUE).data() for r in range(view.model.rowCount())}


def test_export_answer_elsewhere_import_twice(qtbot, view, llm_server, demo_project, tmp_path, monkeypatch) -> None:
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    choose_file(monkeypatch, requests)
    assert run_action(qtbot, view, view.export_batch_action) == "written"
    lines = [json.loads(x) for x in requests.read_text(encoding="utf-8").splitlines()]
    assert [x["custom_id"].split(":")[2] for x in lines] == ["81A", "GB107"]
    assert not llm_server.chat_requests  # written for another engine: nothing was asked here
    assert view.report_box.text().startswith(f"Wrote 2 request(s) of '{FEATURES}' to requests.jsonl")
    assert "run_batch" in view.report_box.informativeText()
    assert view.estimate_label.text().startswith("Wrote 2 request(s)")
    view.report_box.accept()

    llm_server.add_rule("dominant order of subject, object and verb", "SOV")
    llm_server.add_rule("Standard negation is the negation", "1")
    server_results(llm_server, requests, results)
    choose_file(monkeypatch, results)
    assert run_action(qtbot, view, view.import_results_action) == "imported"
    assert (view.last_result.imported, view.last_result.not_imported) == (2, 0)
    assert view.report_box.text() == "Imported 2 of 2 line(s) from results.jsonl."
    assert shown_values(view) == {"81A": "SOV", "GB107": "present"}  # the table was refreshed from the project
    view.report_box.accept()

    tables = {t: count(demo_project, t) for t in ("classifications", "classification_values", "llm_cache")}
    assert run_action(qtbot, view, view.import_results_action) == "imported"
    assert (view.last_result.imported, view.last_result.already) == (0, 2)
    assert view.report_box.text() == "Imported 0 of 2 line(s) from results.jsonl: 2 already stored."
    assert {t: count(demo_project, t) for t in tables} == tables
    assert shown_values(view) == {"81A": "SOV", "GB107": "present"}
    view.report_box.accept()

    choose_file(monkeypatch, tmp_path / "again.jsonl")  # answered features are not written again
    assert run_action(qtbot, view, view.export_batch_action) == "written"
    assert view.report_box.text().startswith("Nothing to write to again.jsonl: every feature of '81A,GB107'")


def test_bad_lines_are_listed_and_wrong_files_refused(qtbot, view, llm_server, demo_project, tmp_path,
                                                      monkeypatch) -> None:
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    view.export_batch_file(requests)
    qtbot.waitSignal(view.batchFileFinished, timeout=WAIT_MS).wait()
    view.report_box.accept()
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
        with qtbot.waitSignal(view.batchFileFinished, timeout=WAIT_MS) as finished:
            view.import_batch_results(mixed)
        assert finished.args == [outcome], view.report_box.text()
        assert view.report_box.text().startswith(message) and hint in view.report_box.informativeText()
        if outcome == "failed":
            assert count(demo_project, "classifications") == before
            assert view.report_box.windowTitle() == "Batch file"  # the window's error dialog
        view.report_box.accept()
    assert shown_values(view) == {"81A": "SOV", "GB107": "—"}  # the failed line stored no value


def test_cancelled_export_leaves_nothing_behind(qtbot, view, demo_project, tmp_path) -> None:
    out = tmp_path / "requests.jsonl"
    view.set_feature_set("grambank")  # seconds of work: the cancel surely comes before its end
    with qtbot.waitSignal(view.batchFileFinished, timeout=WAIT_MS) as finished:
        assert view.export_batch_file(out) is not None and view.cancel_button.isEnabled()
        view.cancel_batch()
    assert finished.args == ["cancelled"] and view.report_box is None
    assert view.estimate_label.text().startswith("Cancelled; the project and the files are as they were.")
    assert not out.exists() and not out.with_name("requests.jsonl.part").exists()
    assert count(demo_project, "batch_requests") == 0 and count(demo_project, "profile_jobs") == 0


def test_an_unwritable_place_is_said_with_a_hint(qtbot, view, demo_project, tmp_path) -> None:
    with qtbot.waitSignal(view.batchFileFinished, timeout=WAIT_MS) as finished:
        view.export_batch_file(tmp_path / "no such folder" / "requests.jsonl")
    assert finished.args == ["failed"]
    assert view.report_box.text().startswith(f"The folder {tmp_path / 'no such folder'} of ")
    assert view.report_box.text().endswith("does not exist.")
    assert view.report_box.informativeText() == "Create it first, or choose another place."
    assert count(demo_project, "batch_requests") == 0
