"""Batch files: requests written exactly as the online path sends them, results imported exactly once.

The project is the small Testish project of ``tests/fixtures_llm.py``; answers come from the local
OpenAI-compatible server's rules (through its Batch API in test_batch_api.py, here through its
answering function) and from hand-made result lines for the bad cases.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.batch import answer_requests
from core.errors import GrammarLensError
from core.llm import LlmSettings
from core.llm.features import feature_of
from core.profile import BatchSettings, find_job
from core.profile.batch_files import import_batch_results, parse_custom_id, write_batch_requests
from core.retrieval import RetrievalSettings
from core.store import open_project

REPO = Path(__file__).resolve().parents[2]
FEATURES = ["81A", "GB107", "116A*"]


def batch_settings(llm: LlmSettings, config: str = "rag") -> BatchSettings:
    return BatchSettings(mode="llm", config=config, llm=llm, retrieval=RetrievalSettings(reranker=None))


def answer_line(custom_id: str, content: str, model: str = "gpt-4o") -> dict:
    return {"id": "batch_req_x", "custom_id": custom_id, "error": None, "response": {
        "status_code": 200, "request_id": "req_x", "body": {
            "id": "chatcmpl-x", "object": "chat.completion", "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 900, "completion_tokens": 40, "total_tokens": 940}}}}


def server_results(server, requests_path: Path, results_path: Path) -> list[dict]:
    """Answer each request with the server's rules, as its Batch API would."""
    lines = []
    for raw in requests_path.read_text(encoding="utf-8").splitlines():
        request = json.loads(raw)
        content, _ = server.answer(request["body"])
        lines.append(answer_line(request["custom_id"], content, request["body"]["model"]))
    results_path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return lines


def stored(path: Path) -> list[tuple]:
    with open_project(path, readonly=True) as project:
        return project.conn.execute(
            "SELECT c.feature_id, v.feature_id, v.label FROM classifications c "
            "JOIN classification_values v ON v.classification_id = c.id ORDER BY c.id, v.feature_id").fetchall()


def add_a_grammar(path: Path, pdf: Path) -> None:
    """A second (empty) grammar in the project file: a copy of a project that gets one is another project."""
    from core.models import LabelSource
    from core.store.repository import insert_document

    with open_project(path) as project:
        insert_document(project, sha256="1" * 64, file_name="more.pdf", path=str(pdf),
                        title="More Testish", page_count=1, label_source=LabelSource.PDF_LABELS,
                        pdf_page_of_printed_1=1, pages=[], paragraphs=[])


def count(path: Path, table: str) -> int:
    with open_project(path, readonly=True) as project:
        return project.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_request_body_is_exactly_what_the_online_path_sends(llm_project, llm_settings, llm_server, tmp_path):
    from core.llm import classify

    llm_project.project.close()
    out = tmp_path / "requests.jsonl"
    report = write_batch_requests([llm_project.path], ["81A"], out, batch_settings(llm_settings))
    assert report.written == 1 and report.skipped == 0
    line = json.loads(out.read_text(encoding="utf-8"))
    assert set(line) == {"custom_id", "method", "url", "body"}
    assert line["method"] == "POST" and line["url"] == "/v1/chat/completions"
    key, feature, config, prompt_hash, _tag = parse_custom_id(line["custom_id"])
    assert (feature, config) == ("81A", "rag") and len(key) == 12

    llm_server.add_rule("verb-final", "SOV")
    with open_project(llm_project.path) as project:
        online = classify(project, feature_of("81A"), llm_settings=llm_settings,
                          retrieval_settings=RetrievalSettings(reranker=None))
    sent = {k: v for k, v in llm_server.chat_requests[-1].items() if not k.startswith("_")}
    assert line["body"] == sent  # same messages, response_format, model, temperature, max_tokens
    assert online.prompt_hash.startswith(prompt_hash)


def test_import_stores_like_online_and_twice_changes_nothing(llm_project, llm_settings, llm_server, tmp_path):
    llm_project.project.close()
    path = llm_project.path
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    settings = batch_settings(llm_settings)
    write_batch_requests([path], FEATURES, requests, settings)
    llm_server.add_rule("verb-final", "SOV")
    llm_server.add_rule("polar questions", {"Clause-final question particle": "1"})
    llm_server.add_rule("standard negation", "1")
    server_results(llm_server, requests, results)

    report = import_batch_results([path], results)
    assert (report.lines, report.imported, report.not_imported) == (3, 3, 0), report.problems
    values = stored(path)
    assert ("81A", "81A", "SOV") in values
    assert ("116A*", "GB291", "1") in values or any(r[0] == "116A*" for r in values)
    with open_project(path, readonly=True) as project:
        c = project.conn.execute("SELECT model, config, status, retrieval_run_id, cost_usd FROM classifications "
                                 "WHERE feature_id = '81A'").fetchone()
        cited = project.conn.execute("SELECT count(*) FROM classification_evidence WHERE cited = 1").fetchone()[0]
        job = find_job(project, FEATURES, settings)
    assert c[:3] == ("gpt-4o", "rag", "ok") and c[3] is not None
    assert c[4] == 0.0  # a local server costs nothing
    assert cited >= 1  # the answer's cited paragraphs map back to the evidence
    assert job is not None and not job.pending  # the same job progress as an online run
    assert count(path, "llm_cache") == 3  # the same cache: an online re-run costs nothing

    tables = {t: count(path, t) for t in ("classifications", "classification_values", "classification_evidence",
                                          "llm_cache")}
    again = import_batch_results([path], results)
    assert (again.imported, again.already) == (0, 3)
    assert {t: count(path, t) for t in tables} == tables

    rewrite = write_batch_requests([path], FEATURES, tmp_path / "again.jsonl", settings)
    assert (rewrite.written, rewrite.skipped) == (0, 3)  # answered features are skipped, as online


def test_openai_batch_answers_cost_half_the_online_price(llm_project, tmp_path):
    from core.llm.pricing import cost_usd

    llm_project.project.close()
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    llm = LlmSettings(model="gpt-4o", use_keyring=False)  # OpenAI itself: writing needs no key
    write_batch_requests([llm_project.path], ["81A"], requests, batch_settings(llm))
    custom_id = json.loads(requests.read_text(encoding="utf-8"))["custom_id"]
    answer = json.dumps({"reasoning": "r", "cited_paragraphs": [1], "value": "SOV"})
    results.write_text(json.dumps(answer_line(custom_id, answer, "gpt-4o-2024-08-06")) + "\n", encoding="utf-8")
    assert import_batch_results([llm_project.path], results).imported == 1
    with open_project(llm_project.path, readonly=True) as project:
        model, base_url, cost = project.conn.execute("SELECT model, base_url, cost_usd FROM classifications").fetchone()
    assert (model, base_url) == ("gpt-4o", "https://api.openai.com/v1")
    assert cost == pytest.approx(0.5 * cost_usd("gpt-4o", 900, 40, local=False))


def test_bad_lines_are_listed_and_every_good_line_is_imported(llm_project, llm_settings, llm_server, tmp_path):
    llm_project.project.close()
    path = llm_project.path
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    write_batch_requests([path], ["81A", "GB107", "116A*", "GB020", "49A"], requests, batch_settings(llm_settings))
    ids = {parse_custom_id(json.loads(x)["custom_id"])[1]: json.loads(x)["custom_id"]
           for x in requests.read_text(encoding="utf-8").splitlines()}
    key = parse_custom_id(ids["81A"])[0]
    good = json.dumps({"reasoning": "Paragraph 1 says so.", "cited_paragraphs": [1], "value": "SOV"})
    lines = [
        json.dumps(answer_line(ids["81A"], good)),                                        # 1 good
        json.dumps(answer_line(ids["81A"], good)),                                        # 2 duplicate
        json.dumps({"custom_id": ids["GB107"], "response": None,                          # 3 error
                    "error": {"code": "server_error", "message": "boom"}}),
        "this is not json",                                                               # 4 broken
        json.dumps(answer_line("req-17", good)),                                          # 5 another batch
        json.dumps(answer_line(ids["GB020"].replace(key, "0123456789ab"), good)),         # 6 another project
        json.dumps({"custom_id": ids["49A"], "response": {"status_code": 400, "body": {   # 7 failed request
            "error": {"message": "Invalid schema"}}}, "error": None}),
        json.dumps(answer_line(ids["GB020"], "I cannot tell from these paragraphs.")),    # 8 unparsable
        json.dumps(answer_line(ids["116A*"], json.dumps({"reasoning": "r", "cited_paragraphs": []})))[:60],  # 9 cut
    ]
    results.write_text("\n".join(lines), encoding="utf-8")  # no final newline: the last line is cut off

    report = import_batch_results([path], results)
    by_line = {p.line: p for p in report.problems}
    assert report.counts() == {"lines": 9, "imported": 2, "already": 0, "duplicates": 1, "errors": 2, "unknown": 2,
                               "stale": 0, "broken": 2, "unparsable": 1, "usage_unread": 0, "failed": 0}
    assert {n: by_line[n].kind for n in by_line} == {2: "duplicate", 3: "error", 4: "broken", 5: "unknown",
                                                     6: "unknown", 7: "error", 8: "unparsable", 9: "broken"}
    assert "cut off" in by_line[9].message and "boom" in by_line[3].message and "400" in by_line[7].message
    with open_project(path, readonly=True) as project:
        statuses = dict(project.conn.execute("SELECT feature_id, status FROM classifications").fetchall())
    assert statuses == {"81A": "ok", "GB020": "no_value"}


def test_a_changed_project_refuses_its_old_answers(llm_project, llm_settings, llm_server, tmp_path):
    from core.models import Language
    from core.store.repository import set_language

    llm_project.project.close()
    path = llm_project.path
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    write_batch_requests([path], ["81A", "GB107"], requests, batch_settings(llm_settings))
    server_results(llm_server, requests, results)
    with open_project(path) as project:  # the paragraph the word-order prompt quotes is re-read differently
        with project.transaction():
            project.conn.execute("UPDATE paragraphs SET text = text || ' (revised)' WHERE id = ?",
                                 (llm_project.paragraph_ids["word_order"],))
    report = import_batch_results([path], results)
    assert report.stale >= 1 and all(p.kind == "stale" for p in report.problems)
    assert "no longer matches" in report.problems[0].message
    with open_project(path) as project:
        set_language(project, Language(name="Otherish", glottocode=None, source="user"))
    report = import_batch_results([path], results)
    assert report.imported == 0 and report.stale + report.already == 2


def test_two_projects_in_one_file_and_copies_are_refused(llm_project, llm_settings, llm_server, tmp_path):
    llm_project.project.close()
    second = tmp_path / "second.grammarlens"
    shutil.copy(llm_project.path, second)
    with pytest.raises(GrammarLensError, match="hold the same grammars"):
        write_batch_requests([llm_project.path, second], ["81A"], tmp_path / "r.jsonl", batch_settings(llm_settings))
    assert not (tmp_path / "r.jsonl").exists() and not (tmp_path / "r.jsonl.part").exists()
    add_a_grammar(second, tmp_path / "more.pdf")  # a second grammar makes it another project
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    report = write_batch_requests([llm_project.path, second], ["81A", "GB107"], requests,
                                  batch_settings(llm_settings))
    assert report.written == 4 and len(report.per_project) == 2
    llm_server.add_rule("verb-final", "SOV")
    server_results(llm_server, requests, results)
    imported = import_batch_results([llm_project.path, second], results)
    assert imported.imported == 4 and len(imported.per_project) == 2
    assert [r for r in stored(second) if r[0] == "81A"] == [("81A", "81A", "SOV")]


def test_profile_cli_writes_and_imports_batch_files(llm_project, llm_settings, llm_server, tmp_path, capsys):
    from cli import main

    llm_project.project.close()
    path = llm_project.path
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    server = ["--base-url", llm_server.url, "--no-reranker"]
    assert main(["profile", str(path), str(path), "--features", "81A"]) == 2  # several projects: only batch files
    assert "--batch-out or --batch-in" in capsys.readouterr().err
    assert main(["profile", str(path), "--features", "81A,GB107", *server, "--batch-out", str(requests)]) == 0
    assert capsys.readouterr().out.startswith("wrote 2 request(s)")
    llm_server.add_rule("verb-final", "SOV")
    server_results(llm_server, requests, results)
    with results.open("a", encoding="utf-8") as fh:
        fh.write('{"custom_id": "elsewhere-1", "response": null, "error": null}\n')
    assert main(["profile", str(path), "--batch-in", str(results)]) == 0  # the good lines were stored
    out = capsys.readouterr().out
    assert out.startswith("3 line(s): 2 imported, 1 unknown") and "line 3: custom_id 'elsewhere-1'" in out
    assert out.endswith("The good lines were stored (2 answer(s) stored); 1 line(s) were not (the reasons are "
                        "listed above). Importing the file again, fixed or fetched again, stores only what is "
                        "missing.\n")
    assert main(["profile", str(path), "--batch-in", str(results), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert (again["imported"], again["already"], again["stored"], again["unknown"]) == (0, 2, 2, 1)
    assert main(["profile", str(path), "--features", "81A,GB107", *server, "--batch-out", str(requests)]) == 0
    assert "wrote 0 request(s)" in capsys.readouterr().out and not llm_server.chat_requests


def test_profile_cli_import_lists_bad_lines_and_exits_2_when_nothing_is_stored(llm_project, llm_settings,
                                                                             tmp_path, capsys):
    from cli import main

    llm_project.project.close()
    path = llm_project.path
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    write_batch_requests([path], ["81A", "GB107"], requests, batch_settings(llm_settings))
    ids = [json.loads(x)["custom_id"] for x in requests.read_text(encoding="utf-8").splitlines()]
    good = answer_line(ids[0], json.dumps({"reasoning": "r", "cited_paragraphs": [1], "value": "SOV"}))
    failed = {"custom_id": ids[1], "response": None, "error": {"code": "server_error", "message": "engine died"}}
    choices = {**good, "response": {"status_code": 200, "body": {"choices": {"x": 1}}}}
    results.write_text("\n".join([json.dumps(failed), json.dumps(choices)]) + "\n", encoding="utf-8")
    assert main(["profile", str(path), "--batch-in", str(results)]) == 2
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "2 line(s): 0 imported, 1 errors, 1 broken",
        "  line 1: GB107: the batch reported an error: server_error engine died; nothing stored",
        "  line 2: 81A: the response's choices is an object, not a list; nothing stored",
        "Nothing could be imported: none of the 2 line(s) of results.jsonl holds an answer that could be stored "
        "(the reasons are listed above)."]
    assert count(path, "classifications") == 0
    with results.open("a", encoding="utf-8") as fh:  # the same file with one good line more
        fh.write(json.dumps(good) + "\n")
    assert main(["profile", str(path), "--batch-in", str(results)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("3 line(s): 1 imported, 1 errors, 1 broken\n  line 1: GB107")
    assert "The good lines were stored (1 answer(s) stored); 2 line(s) were not" in out
    assert count(path, "classifications") == 1


def test_cancelled_write_leaves_nothing_and_cancelled_import_keeps_whole_lines(llm_project, llm_settings, llm_server,
                                                                               tmp_path, monkeypatch):
    from core.errors import Cancelled
    from core.progress import Progress

    llm_project.project.close()
    path = llm_project.path
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"

    def cancelling() -> Progress:
        progress = Progress()
        progress.callback = lambda done, total, message: progress.cancel()
        return progress

    with pytest.raises(Cancelled):
        write_batch_requests([path], FEATURES, requests, batch_settings(llm_settings), cancelling())
    assert not requests.exists() and not (tmp_path / "requests.jsonl.part").exists()
    assert count(path, "batch_requests") == 0 and count(path, "profile_jobs") == 0

    # the cancel comes after the first chunk of 2
    monkeypatch.setattr("core.profile.batch_files.importing.CHUNK_LINES", 2)
    monkeypatch.setattr("core.profile.batch_files.importing.CHUNK_PAUSE", 0.0)
    write_batch_requests([path], FEATURES, requests, batch_settings(llm_settings))
    lines = server_results(llm_server, requests, results) * 70
    results.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    with pytest.raises(Cancelled, match="at line 2 of results.jsonl; the 2 answer"):
        import_batch_results([path], results, cancelling())
    assert count(path, "classifications") == 2 == count(path, "llm_cache")  # the committed chunk, each line whole
    with open_project(path, readonly=True) as project:
        linked = project.conn.execute("SELECT count(*) FROM batch_requests WHERE classification_id IN "
                                      "(SELECT id FROM classifications)").fetchone()[0]
    assert linked == 2
    with open_project(path, readonly=True) as project:
        assert find_job(project, FEATURES, batch_settings(llm_settings)).state != "done"
    report = import_batch_results([path], results)
    assert (report.imported, report.already, report.duplicates) == (1, 2, len(lines) - 3)
    assert count(path, "classifications") == 3
    with open_project(path, readonly=True) as project:  # the job is finished as an uncancelled import finishes it
        job = find_job(project, FEATURES, batch_settings(llm_settings))
    assert job.state == "done" and not job.pending


@pytest.mark.slow
def test_kill_9_mid_import_then_a_second_import_stores_each_answer_once(llm_project, llm_settings, tmp_path,
                                                                       monkeypatch):
    from core.profile import resolve_feature_set

    llm_project.project.close()
    path = llm_project.path
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    features = resolve_feature_set(None, "grambank") + resolve_feature_set(None, "wals")
    for config in ("rag", "baseline"):
        write_batch_requests([path], features, requests, batch_settings(llm_settings, config), append=True)
    answered = answer_requests(requests, results, error_every=0)
    assert answered > 700
    env = dict(os.environ, PYTHONPATH=str(REPO))
    cmd = [sys.executable, "main.py", "profile", str(path), "--batch-in", str(results)]
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed = False
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        if line.startswith("import:") and "line" in line:  # the import is under way: kill it mid-file
            os.kill(proc.pid, signal.SIGKILL)
            killed = True
            break
    proc.wait(timeout=30)
    assert killed, "the import finished before it could be killed"
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with open_project(path, readonly=True) as project:  # killed mid-file: the committed chunks, each line whole
        kept, linked = project.conn.execute(
            "SELECT (SELECT count(*) FROM classifications), (SELECT count(*) FROM batch_requests "
            "WHERE classification_id IN (SELECT id FROM classifications))").fetchone()
    assert kept == linked < answered

    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{answered:,} line(s): {answered - kept:,} imported")
    with open_project(path, readonly=True) as project:
        per_request = project.conn.execute(
            "SELECT count(*), count(DISTINCT feature_id || '|' || config || '|' || model) FROM classifications"
        ).fetchone()
        linked = project.conn.execute(
            "SELECT count(*), count(DISTINCT classification_id) FROM batch_requests "
            "WHERE classification_id IS NOT NULL").fetchone()
    assert per_request == (answered, answered)  # each answer stored exactly once
    assert linked == (answered, answered)


def test_profile_cli_batch_files_work_on_a_sample_folder_and_list(llm_project, llm_settings, llm_server, tmp_path,
                                                                   capsys):
    """``profile SAMPLE --batch-out`` writes every project of a sample folder; a list file imports them back."""
    from cli import main

    llm_project.project.close()
    sample = tmp_path / "sample"
    (sample / "second-coder").mkdir(parents=True)
    first, second = sample / "a.grammarlens", sample / "second-coder" / "b.grammarlens"
    shutil.copy(llm_project.path, first)
    shutil.copy(llm_project.path, second)
    add_a_grammar(second, tmp_path / "more.pdf")  # a second grammar makes it another project
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    server = ["--base-url", llm_server.url, "--no-reranker"]
    assert main(["profile", str(sample), "--features", "81A,GB107", *server, "--batch-out", str(requests)]) == 0
    assert capsys.readouterr().out.startswith("wrote 4 request(s)")
    llm_server.add_rule("verb-final", "SOV")
    server_results(llm_server, requests, results)
    listing = tmp_path / "sample.txt"
    listing.write_text("sample/a.grammarlens\nsample/second-coder/b.grammarlens\n", encoding="utf-8")
    assert main(["profile", str(listing), "--batch-in", str(results), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["imported"] == 4
    assert ("81A", "81A", "SOV") in stored(first) and stored(first) == stored(second)  # both projects answered


def test_a_project_given_as_the_results_file_is_refused_before_it_is_opened(llm_project, tmp_path):
    """Every caller (CLI, profile dock, Sample window) imports through core, which asks SQLite, never open()."""
    llm_project.project.close()
    before = llm_project.path.read_bytes()
    with pytest.raises(GrammarLensError, match="is a GrammarLens project, not a batch results file"):
        import_batch_results([llm_project.path], llm_project.path)
    assert llm_project.path.read_bytes() == before
