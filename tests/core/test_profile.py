"""Profiles: feature sets, batch jobs (estimate, concurrency, cancel, resume), review status, agreement.

The batch runs on a real grammar (Iranian Armenian) against the local OpenAI-compatible server;
the crash test kills ``python main.py profile`` with SIGKILL and counts the server's requests.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from core.errors import Cancelled, GrammarLensError
from core.profile import (
    BatchSettings,
    build_profile,
    compare,
    estimate,
    list_jobs,
    load_reference_values,
    open_job,
    resolve_feature_set,
    run_job,
    save_feature_list,
)
from core.progress import Progress
from core.retrieval import RetrievalSettings
from core.store import open_project
from tests.fixtures_profile import ARMENIAN_GLOTTOCODE, PROFILE_FEATURES
from tests.fixtures_shared import SHARED
from tests.reviews import add_review

REPO = Path(__file__).resolve().parents[2]
NO_MODEL = RetrievalSettings(reranker=None)


def settings_for(llm_settings, concurrency: int = 3) -> BatchSettings:
    return BatchSettings(mode="llm", llm=llm_settings, retrieval=NO_MODEL, concurrency=concurrency)


def request_hashes(server) -> Counter:
    """How often each exact prompt reached the server (the hash classifications store as prompt_hash).

    ``r["messages"]`` is always there: the server logs only whole chat requests with messages (a
    request cut off by a killed client once came through as ``{}`` and raised KeyError here).
    """
    return Counter(request_hash(r) for r in server.chat_requests)


def request_hash(request: dict) -> str:
    import hashlib

    payload = json.dumps({"messages": request["messages"], "response_format": request.get("response_format")},
                         sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def test_feature_sets_resolve(tmp_path, mini_project) -> None:
    with open_project(mini_project) as project:
        assert resolve_feature_set(project, "paper") == ["81A", "49A", "GB107", "116A*"]
        assert len(resolve_feature_set(project, "grambank")) == 195
        assert len(resolve_feature_set(project, "wals")) == 192
        assert resolve_feature_set(project, "wals 81a, gb107,81A") == ["81A", "GB107"]
        save_feature_list(project, "mine", ["gb020", "81A"])
        assert resolve_feature_set(project, "mine") == ["GB020", "81A"]
        with pytest.raises(GrammarLensError):
            resolve_feature_set(project, "nosuch")
        with pytest.raises(GrammarLensError):
            save_feature_list(project, "paper", ["81A"])


def test_estimate_scales_with_features_and_prices(mini_project) -> None:
    from core.llm import LlmSettings

    with open_project(mini_project) as project:
        hosted = BatchSettings(llm=LlmSettings(model="gpt-4o"), retrieval=RetrievalSettings(budget_tokens=2000))
        one = estimate(project, ["GB020"], hosted)
        ten = estimate(project, resolve_feature_set(project, "grambank")[:10], hosted)
        assert one.prompt_tokens > 2000 and ten.prompt_tokens > 9 * 2000
        assert ten.cost_usd == pytest.approx(ten.prompt_tokens * 2.5e-6 + ten.completion_tokens * 10e-6, abs=1e-6)
        local = estimate(project, ["GB020"], BatchSettings(llm=LlmSettings(base_url="http://localhost:11434/v1")))
        assert local.local and local.cost_usd == 0.0
        unknown = estimate(project, ["GB020"], BatchSettings(llm=LlmSettings(model="my-own-model")))
        assert unknown.cost_usd is None and "unknown" in unknown.describe()


@pytest.mark.slow
def test_batch_profile_review_status_and_agreement(armenian_project, canned_answers, llm_settings) -> None:
    ids = list(PROFILE_FEATURES)
    settings = settings_for(llm_settings)
    with open_project(armenian_project) as project:
        job = open_job(project, "custom", ids, settings)
        assert job.pending == ids
    seen: list[tuple[int, int]] = []
    result = run_job(armenian_project, job.id, settings, Progress(lambda d, t, m: seen.append((d, t))))
    assert sorted(result.ran) == sorted(ids) and result.state == "done" and not result.failed
    assert seen[-1] == (12, 12)
    assert len(canned_answers.chat_requests) == 12
    with open_project(armenian_project) as project:
        entries = {e.feature_id: e for e in build_profile(project)}
        assert len(entries) == 18  # 116A* gives seven Grambank values
        assert entries["81A"].label == "SOV" and entries["81A"].status == "predicted"
        assert entries["49A"].code == "5" and entries["GB257"].code == "1" and entries["GB263"].code == "0"
        assert entries["GB020"].label == "absent" and entries["GB021"].label == "present"
        for e in entries.values():  # every value was read and cites pages
            assert e.pages and e.status == "predicted", e.feature_id
        # reviews change the status, not the stored prediction
        add_review(project, entries["81A"].classification_id, "override", value="No dominant order")
        add_review(project, entries["GB107"].classification_id, "accept")
        add_review(project, entries["GB020"].classification_id, "override", value="Not enough information")
        entries = {e.feature_id: e for e in build_profile(project)}
        wals_81a = entries["81A"]
        assert (wals_81a.status, wals_81a.code, wals_81a.predicted_label) == ("overridden", "7", "SOV")
        assert entries["GB107"].status == "accepted" and entries["GB020"].status == "unknown"
        assert not entries["GB020"].has_value
        refs = load_reference_values([SHARED / "cldf"], ARMENIAN_GLOTTOCODE)
        agreement = compare(list(entries.values()), refs)
        # WALS 81A=7, 49A=5; Grambank GB107=1, GB257=1, the other six polar strategies 0
        assert agreement.verdict("81A") == "agree" and agreement.verdict("49A") == "agree"
        assert agreement.verdict("GB020") == "no reference"
        assert (agreement.agreed, agreement.compared) == (10, 10)
    # the same request again resumes the finished job: nothing is asked
    with open_project(armenian_project) as project:
        again = open_job(project, "custom", ids, settings)
        assert again.id == job.id and again.pending == []
    assert run_job(armenian_project, job.id, settings).ran == []
    assert len(canned_answers.chat_requests) == 12


@pytest.mark.slow
def test_cancel_keeps_finished_features_and_resume_skips_them(armenian_project, canned_answers, llm_settings) -> None:
    ids = list(PROFILE_FEATURES)
    settings = settings_for(llm_settings, concurrency=1)
    canned_answers.enqueue(*[{"delay": 0.15}] * 12)
    with open_project(armenian_project) as project:
        job = open_job(project, "custom", ids, settings)
    progress = Progress(lambda done, total, m: progress.cancel() if done >= 3 else None)
    with pytest.raises(Cancelled):
        run_job(armenian_project, job.id, settings, progress)
    with open_project(armenian_project) as project:
        stopped = list_jobs(project)[0]
        assert stopped.state == "cancelled" and 3 <= len(stopped.done) <= 4
        first = set(stopped.done)
    asked_before = len(canned_answers.chat_requests)
    assert asked_before == len(first)
    result = run_job(armenian_project, job.id, settings)
    assert set(result.skipped) == first and set(result.ran) == set(ids) - first
    assert len(canned_answers.chat_requests) == 12
    with open_project(armenian_project) as project:
        counts = Counter(r[0] for r in project.conn.execute("SELECT feature_id FROM classifications"))
        assert counts == Counter(ids)


def test_retrieval_only_mode_stores_evidence(mini_project, llm_server) -> None:
    settings = BatchSettings(mode="retrieval", retrieval=NO_MODEL)
    with open_project(mini_project) as project:
        job = open_job(project, "81A,GB107", ["81A", "GB107"], settings)
    result = run_job(mini_project, job.id, settings)
    assert sorted(result.ran) == ["81A", "GB107"] and llm_server.chat_requests == []
    with open_project(mini_project) as project:
        runs = project.conn.execute("SELECT feature_id, count(*) FROM retrieval_runs GROUP BY feature_id").fetchall()
        assert dict(runs) == {"81A": 1, "GB107": 1}
        entries = {e.feature_id: e for e in build_profile(project)}
        assert entries["81A"].status == "evidence only" and entries["81A"].pages[0] == "4"  # the SOV paragraph


def test_fatal_error_stops_the_job(mini_project, llm_server, llm_settings, monkeypatch) -> None:
    llm_server.require_key = "sk-right"
    llm_settings.api_key_env = "PROFILE_TEST_KEY"
    monkeypatch.setenv("PROFILE_TEST_KEY", "sk-wrong")
    settings = settings_for(llm_settings, concurrency=1)
    with open_project(mini_project) as project:
        job = open_job(project, "x", ["81A", "GB107", "49A"], settings)
    with pytest.raises(GrammarLensError) as info:
        run_job(mini_project, job.id, settings)
    assert getattr(info.value, "kind", "") == "auth"
    assert len(llm_server.chat_requests) == 1  # stopped after the first refusal
    with open_project(mini_project) as project:
        assert list_jobs(project)[0].state == "failed"


def _stored(path: Path) -> set[str]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    try:
        return {r[0] for r in conn.execute("SELECT feature_id FROM classifications")}
    except sqlite3.OperationalError:
        return set()
    finally:
        conn.close()


@pytest.mark.slow
def test_cli_profile_killed_mid_run_resumes_without_asking_twice(armenian_project, canned_answers, monkeypatch) -> None:
    """SIGKILL lands while exactly two requests are in flight, after exactly four answers were stored.

    The server answers the first four requests and holds the next two until the process is killed
    (its "wait" behaviour), so the figures are exact whatever the machine's load: it once used slow
    replies and a polling race, and failed once in three runs on a busy machine.
    """
    import threading

    for name in ("GRAMMARLENS_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    held = threading.Event()
    canned_answers.enqueue({}, {}, {}, {}, {"wait": held}, {"wait": held})  # 4 answered, then 2 held
    cmd = [sys.executable, "main.py", "profile", str(armenian_project), "--features", ",".join(PROFILE_FEATURES),
           "--base-url", canned_answers.url, "--no-reranker", "--concurrency", "2", "--json"]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 180  # a busy machine may take long to start the process
        while (len(_stored(armenian_project)) < 4 or len(canned_answers.chat_requests) < 6) \
                and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()[1].decode(errors="replace")[-2000:]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        held.set()  # the held replies go to a dead client
    proc.stdout.close()
    proc.stderr.close()
    before_kill = _stored(armenian_project)
    assert len(before_kill) == 4 and len(canned_answers.chat_requests) == 6  # 4 stored, 2 in flight
    held_prompts = {request_hash(r) for r in canned_answers.chat_requests[4:]}
    rest = set(PROFILE_FEATURES) - before_kill

    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert set(out["skipped"]) == before_kill and set(out["ran"]) == rest

    with open_project(armenian_project, readonly=True) as project:
        rows = project.conn.execute("SELECT feature_id, prompt_hash FROM classifications").fetchall()
    assert Counter(f for f, _ in rows) == Counter(PROFILE_FEATURES)  # one stored answer per feature
    asked = request_hashes(canned_answers)
    by_feature = {f: asked[h] for f, h in rows}
    assert all(by_feature[f] == 1 for f in before_kill), by_feature  # finished features never asked again
    twice = {f for f, n in by_feature.items() if n > 1}
    in_flight = {f for f, h in rows if h in held_prompts}
    assert len(in_flight) == 2 and in_flight <= rest
    assert twice == in_flight and all(n <= 2 for n in by_feature.values())  # only the 2 answers lost in flight
    assert sum(by_feature.values()) == len(canned_answers.chat_requests) == len(PROFILE_FEATURES) + 2


def test_the_studys_four_have_a_descriptive_name_and_paper_still_works(tmp_path) -> None:
    """Issue 29: "paper" is jargon to a linguist; the old id keeps working (CLI, saved jobs and passes)."""
    from core.coding.feature_sets import BUILTIN_SETS, FOUR, canonical_set
    from core.errors import GrammarLensError
    from core.profile import resolve_feature_set, save_feature_list
    from core.store import create_project

    assert BUILTIN_SETS[0] == FOUR == "word-order-case-negation-questions"
    assert canonical_set(" Paper ") == FOUR and canonical_set("grambank") == "grambank"
    with create_project(tmp_path / "p.grammarlens") as project:
        assert resolve_feature_set(project, FOUR) == resolve_feature_set(project, "paper") == [
            "81A", "49A", "GB107", "116A*"]
        for name in (FOUR, "paper"):
            with pytest.raises(GrammarLensError):
                save_feature_list(project, name, ["81A"])
