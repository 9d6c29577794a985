"""Whose answer is this: the window's workers claim their answers by id as they store them (core/store/claims.py).

The profile dock's Run (:func:`core.profile.run_job`) and a batch file's import
(:func:`core.profile.batch_files.import_batch_results`) write through connections of their own; the
window's watch (:mod:`core.store.watch`) must tell their answers from another program's stored at the
same time, to the same feature or another.  Real project files, the OpenAI-compatible server of devtools
on 127.0.0.1 (held mid-run by an event, so the order is fixed), real results files.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from core.changes import Act
from core.llm.features import feature_of
from core.profile import BatchSettings, open_job, run_job
from core.records.classifications import ValueRecord
from core.retrieval import RetrievalSettings
from core.store import open_project
from core.store.claims import AnswerClaims
from core.store.classifications import save_classification
from core.store.watch import ProjectWatch
from tests.core.test_export_fuzz import classification


def _answer_ids(path: Path) -> dict[int, str]:
    with open_project(path, readonly=True) as project:
        return {int(i): str(f) for i, f in project.conn.execute("SELECT id, feature_id FROM classifications")}


def test_claims_are_per_project_and_a_rolled_back_one_is_given_up(tmp_path: Path) -> None:
    claims = AnswerClaims()
    claims.claim(tmp_path / "a.grammarlens", 3)
    claims.claim(tmp_path / "sub" / ".." / "a.grammarlens", 4)  # the same file, named another way
    assert claims.taken(tmp_path / "a.grammarlens", [2, 3, 4]) == {3, 4}
    assert claims.taken(tmp_path / "b.grammarlens", [3, 4]) == set()  # ids of another file are unrelated
    claims.unclaim(tmp_path / "a.grammarlens", [4])
    assert claims.taken(tmp_path / "a.grammarlens", [3, 4]) == {3}


def test_an_answer_and_what_is_tied_to_it_commit_together(llm_project, llm_settings, llm_server) -> None:
    """``classify(stored=...)`` runs in the answer's transaction: a tie that fails leaves no answer behind."""
    from core.llm import classify

    llm_server.add_rule("dominant order of subject, object and verb", "SOV")
    seen: list[int | None] = []

    def tie(c) -> None:
        seen.append(c.id)
        raise RuntimeError("the job's tick failed")

    with pytest.raises(RuntimeError, match="tick failed"):
        classify(llm_project.project, feature_of("81A"), llm_settings=llm_settings,
                 retrieval_settings=RetrievalSettings(reranker=None), stored=tie)
    assert seen and seen[0] is not None  # it ran with the stored id...
    assert _answer_ids(llm_project.path) == {}  # ...and the answer went with it


def test_a_runs_claims_name_exactly_its_answers_not_another_programs_to_the_same_feature(
        llm_project, llm_settings, llm_server) -> None:
    """The dock's Run of 81A and GB107; while its second request waits, another program stores an answer to
    81A.  The run's answers (and only they) are claimed and linked to the job; the watch finds the other one as
    another program's and hands the run's out as the run's."""
    llm_server.add_rule("dominant order of subject, object and verb", "SOV")
    llm_server.add_rule("Standard negation is the negation", "1")
    path = llm_project.path
    llm_project.project.close()
    window = open_project(path, backup=False)
    watch, claims, go_on = ProjectWatch(window), AnswerClaims(), threading.Event()
    watch.follow(claims, held=False)
    llm_server.enqueue({}, {"wait": go_on})  # the first request is answered, the second waits for go_on
    settings = BatchSettings(llm=llm_settings, retrieval=RetrievalSettings(reranker=None), concurrency=1)
    with open_project(path) as project:
        job = open_job(project, "test", ["81A", "GB107"], settings)
    results: list = []
    runner = threading.Thread(target=lambda: results.append(run_job(path, job.id, settings, claims=claims)))
    runner.start()
    try:
        for _ in range(600):  # the run's first answer is stored, its second request is held at the server
            if len(llm_server.chat_requests) >= 2 and _answer_ids(path):
                break
            threading.Event().wait(0.05)
        with open_project(path, backup=False) as other, other.transaction():  # another program answers 81A
            theirs = save_classification(other, classification("81A", [ValueRecord("81A", "2", "SVO")]), {})
    finally:
        go_on.set()
        runner.join(60)
    assert results and results[0].state == "done"
    with open_project(path, readonly=True) as project:
        linked = {int(r[0]) for r in project.conn.execute(
            "SELECT classification_id FROM profile_job_items WHERE job_id = ?", (job.id,))}
    answers = _answer_ids(path)
    assert len(answers) == 3 and theirs.id in answers and theirs.id not in linked
    assert claims.taken(path, answers) == linked == set(answers) - {theirs.id}

    outside = watch.look()
    assert outside is not None and outside.act == Act.OUTSIDE and outside.features == {"81A"}
    [(who, own)] = watch.claimed()
    assert who is claims and own.answers == linked and own.features >= {"81A", "GB107"}
    assert watch.claimed() == [] and watch.look() is None
    window.close()


def test_an_imports_claims_name_exactly_the_answers_it_stored_in_each_project(
        llm_project, llm_settings, llm_server, tmp_path) -> None:
    from core.profile.batch_files import import_batch_results, write_batch_requests
    from tests.core.test_batch_files import batch_settings, server_results

    llm_server.add_rule("dominant order of subject, object and verb", "SOV")
    path = llm_project.path
    llm_project.project.close()
    requests, results = tmp_path / "requests.jsonl", tmp_path / "results.jsonl"
    write_batch_requests([path], ["81A", "GB107"], requests, batch_settings(llm_settings))
    server_results(llm_server, requests, results)
    with open_project(path, backup=False) as other, other.transaction():  # an answer stored before, by someone
        before = save_classification(other, classification("49A", [ValueRecord("49A", "1", "x")]), {})
    claims = AnswerClaims()
    report = import_batch_results([path], results, claims=claims)
    assert report.imported == 2
    answers = _answer_ids(path)
    assert claims.taken(path, answers) == set(answers) - {before.id} and len(answers) == 3
    assert claims.taken(tmp_path / "elsewhere.grammarlens", answers) == set()
