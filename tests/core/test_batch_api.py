"""The Batch API round trip against the local server's /v1/files and /v1/batches, with the real openai client.

Submit a requests file written from a project, poll the batch, fetch its results, import them; and
the clear messages for unknown, failed, unfinished and expired batches.  The API key travels in
the Authorization header only: it is in no file the round trip writes.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from core.changes import Act
from core.errors import GrammarLensError
from core.llm import LlmSettings
from core.llm.batch_api import fetch, status, submit
from core.llm.errors import LlmError
from core.profile import BatchSettings
from core.profile.batch_files import import_batch_results, write_batch_requests
from core.retrieval import RetrievalSettings
from tests.cli_runs import run_main

SECRET = "sk-test-batch-secret-0123456789"


@pytest.fixture
def keyed(llm_server, llm_settings, monkeypatch):
    """The server demands a key; the client finds it in the environment variable named for that server."""
    llm_server.require_key = SECRET
    monkeypatch.setenv("STUB_SERVER_KEY", SECRET)
    return dataclasses.replace(llm_settings, api_key_env="STUB_SERVER_KEY")


def written(project, llm: LlmSettings, folder: Path, features=("81A", "GB107", "116A*")) -> Path:
    project.project.close()
    out = folder / "requests.jsonl"
    settings = BatchSettings(mode="llm", config="rag", llm=llm, retrieval=RetrievalSettings(reranker=None))
    write_batch_requests([project.path], list(features), out, settings)
    return out


def test_submit_poll_fetch_import(llm_project, keyed, llm_server, tmp_path):
    llm_server.add_rule("verb-final", "SOV")
    llm_server.add_rule("polar questions", {"Clause-final question particle": "1"})
    requests = written(llm_project, keyed, tmp_path)
    llm_server.batch_polls = 2

    state = submit(requests, keyed)
    assert state.id.startswith("batch_") and state.status == "validating" and state.total == 3
    uploaded = llm_server.files[state.input_file_id]
    assert uploaded["purpose"] == "batch" and uploaded["content"] == requests.read_bytes()
    seen = [status(state.id, keyed).status for _ in range(3)]
    assert seen == ["in_progress", "in_progress", "completed"]

    results = tmp_path / "results.jsonl"
    report = fetch(state.id, results, keyed)
    assert (report.answers, report.error_lines) == (3, 0)
    assert not (tmp_path / "results.jsonl.part").exists()
    imported = import_batch_results([llm_project.path], results)
    assert imported.imported == 3 and imported.not_imported == 0
    change = imported.change_for(llm_project.path)  # the import's record: the features answered, 116A*'s parts too
    assert change.act == Act.BATCH_IMPORT and change.statuses and not change.whole_project
    assert {"81A", "GB107", "116A*", "GB257"} <= change.features and "GB020" not in change.features
    assert import_batch_results([llm_project.path], results).change_for(llm_project.path).empty  # nothing new

    auth = {r["_auth"] for r in llm_server.requests}
    assert auth == {f"Bearer {SECRET}"}  # every call carried the key...
    for path in (requests, results, llm_project.path):  # ...and no file holds it
        assert SECRET.encode() not in path.read_bytes()


def test_submit_with_another_model_and_error_lines(llm_project, llm_settings, llm_server, tmp_path):
    requests = written(llm_project, llm_settings, tmp_path)
    first = json.loads(requests.read_text(encoding="utf-8").splitlines()[0])["custom_id"]
    llm_server.batch_line_errors = {first}
    state = submit(requests, llm_settings, model="llama3")
    uploaded = llm_server.files[state.input_file_id]["content"].decode().splitlines()
    assert {json.loads(x)["body"]["model"] for x in uploaded} == {"llama3"}
    assert requests.read_text(encoding="utf-8").count('"model":"gpt-4o"') == 3  # the user's file is untouched
    status(state.id, llm_settings)
    assert status(state.id, llm_settings).status == "completed"
    results = tmp_path / "results.jsonl"
    report = fetch(state.id, results, llm_settings)
    assert (report.answers, report.error_lines) == (2, 1)
    imported = import_batch_results([llm_project.path], results)
    assert (imported.imported, imported.errors) == (2, 1)
    assert imported.problems[0].line == 3 and "could not be processed" in imported.problems[0].message


def test_unknown_failed_unfinished_and_expired_batches(llm_project, llm_settings, llm_server, tmp_path):
    with pytest.raises(LlmError, match="There is no batch 'batch_nope'"):
        status("batch_nope", llm_settings)
    with pytest.raises(LlmError, match="There is no batch"):
        fetch("batch_nope", tmp_path / "x.jsonl", llm_settings)

    requests = written(llm_project, llm_settings, tmp_path)
    state = submit(requests, llm_settings)
    with pytest.raises(GrammarLensError, match="not finished yet") as unfinished:
        fetch(state.id, tmp_path / "r.jsonl", llm_settings)
    assert f"batch status {state.id}" in unfinished.value.hint

    llm_server.batch_outcome = "failed"
    failed = submit(requests, llm_settings)
    status(failed.id, llm_settings)
    assert status(failed.id, llm_settings).status == "failed"
    with pytest.raises(GrammarLensError, match="failed and has no results: invalid_json_line"):
        fetch(failed.id, tmp_path / "f.jsonl", llm_settings)
    assert not (tmp_path / "f.jsonl").exists()

    llm_server.batch_outcome = "expired"
    expired = submit(requests, llm_settings)
    status(expired.id, llm_settings)
    report = fetch(expired.id, tmp_path / "e.jsonl", llm_settings)
    assert report.status.status == "expired" and report.answers == 1
    assert any("only part of it" in e for e in report.status.errors)


def test_a_broken_requests_file_is_refused_before_upload(llm_settings, llm_server, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"custom_id": "a", "method": "POST", "url": "/v1/chat/completions", "body": {}}\n{oops\n')
    with pytest.raises(GrammarLensError, match="Line 2 of bad.jsonl is not valid JSON"):
        submit(bad, llm_settings)
    assert llm_server.files == {}


def test_batch_cli_messages(llm_project, llm_settings, llm_server, tmp_path):
    requests = written(llm_project, llm_settings, tmp_path)

    def cli(*args):
        return run_main("batch", *args, "--base-url", llm_server.url)

    out = cli("submit", str(requests))
    assert out.returncode == 0, out.stderr
    batch_id = out.stdout.split()[2].rstrip(":")
    assert batch_id.startswith("batch_") and f"batch status {batch_id}" in out.stdout
    assert "in_progress" in cli("status", batch_id).stdout
    out = cli("fetch", batch_id, "--out", str(tmp_path / "results.jsonl"))
    assert out.returncode == 0 and "wrote 3 answer(s)" in out.stdout and "--batch-in" in out.stdout
    out = cli("status", "batch_missing")
    assert out.returncode == 2 and out.stderr.startswith("error: There is no batch 'batch_missing'")
    assert "hint:" in out.stderr and "Traceback" not in out.stderr
