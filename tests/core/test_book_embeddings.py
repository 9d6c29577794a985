"""A book embedded once, in batches, on real project files with the real MiniLM model (issue 20).

Retrieval after that embeds nothing; a retrieval that may not wait for the model ranks by BM25 and
vocabulary and says its hits are provisional; the work is resumable: a process killed with SIGKILL
half-way leaves an intact project that the next run finishes, without duplicates.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from core.catalog import load_catalog
from core.progress import Progress
from core.retrieval import RetrievalSettings, retrieve
from core.retrieval.book_embeddings import (
    TOKEN_BUDGET,
    book_status,
    embed_book,
    estimated_tokens,
    needs_book_embeddings,
    plan_batches,
)
from core.retrieval.pipeline import candidate_ids
from core.store import open_project
from tests.fixtures_retrieval import build_project, generated_grammar

REPO = Path(__file__).resolve().parents[2]
@pytest.fixture(scope="module")
def minilm(minilm_path: Path) -> RetrievalSettings:
    return RetrievalSettings(reranker=str(minilm_path), device="cpu")


def embedding_rows(path: Path) -> tuple[int, int, int]:
    """(vectors, distinct paragraphs among them, paragraphs), read with a connection of our own."""
    with open_project(path) as project:
        rows, distinct = project.conn.execute(
            "SELECT count(*), count(DISTINCT paragraph_id) FROM embeddings").fetchone()
        paragraphs = project.conn.execute("SELECT count(*) FROM paragraphs").fetchone()[0]
    return rows, distinct, paragraphs


def test_batches_are_longest_first_and_within_the_token_budget() -> None:
    texts = ["x" * n for n in (10, 2000, 300, 45, 900, 5, 1200, 60)] * 40
    batches = plan_batches(texts, budget=1024)
    assert sorted(i for batch in batches for i in batch) == list(range(len(texts)))
    lengths = [len(texts[i]) for batch in batches for i in batch]
    assert lengths == sorted(lengths, reverse=True)
    for batch in batches:
        longest = estimated_tokens(texts[batch[0]])
        assert len(batch) == 1 or len(batch) * longest <= 1024
    assert len(plan_batches(texts)) < len(texts) / 8  # short paragraphs go many to a pass
    assert plan_batches([]) == []
    assert TOKEN_BUDGET >= 1024


def test_a_book_embedded_once_needs_no_embedding_at_retrieval(tmp_path: Path, minilm: RetrievalSettings) -> None:
    path = build_project(tmp_path / "book.grammarlens", generated_grammar(120))
    feature = load_catalog().get("81A")
    with open_project(path) as project:
        assert needs_book_embeddings(minilm) and not needs_book_embeddings(minilm.with_(reranker=None))
        assert book_status(project, minilm).embedded == 0
        steps: list[tuple[int, int]] = []
        run = embed_book(project, minilm, Progress(lambda done, total, _m: steps.append((done, total))))
        assert run.embedded == run.total == 120 and run.complete and run.batches >= 1
        assert steps[-1] == (120, 120) and [d for d, _ in steps] == sorted(d for d, _ in steps)
        assert book_status(project, minilm).complete
        again = embed_book(project, minilm)
        assert again.embedded == 0 and again.complete  # nothing is embedded twice
        stats: dict = {}
        hits = retrieve(project, feature, minilm, stats=stats)
        assert stats["embedded"] == 0 and "dense" in hits[0].signals and not hits[0].provisional
        quick: dict = {}
        same = retrieve(project, feature, minilm, stats=quick, wait_for_model=False)
        assert not quick["provisional"] and [h.paragraph.id for h in same] == [h.paragraph.id for h in hits]
        edited = hits[0].paragraph.id
        with project.transaction():
            project.conn.execute("UPDATE paragraphs SET text = text || ' Edited.' WHERE id = ?", (edited,))
        assert embed_book(project, minilm).embedded == 1  # only the edited paragraph
    assert embedding_rows(path) == (120, 120, 120)


def test_without_waiting_for_the_model_a_retrieval_embeds_nothing_and_is_provisional(
        tmp_path: Path, minilm: RetrievalSettings) -> None:
    path = build_project(tmp_path / "fresh.grammarlens")
    feature = load_catalog().get("81A")
    with open_project(path) as project:
        stats: dict = {}
        hits = retrieve(project, feature, minilm, stats=stats, wait_for_model=False)
        assert stats["provisional"] and stats["embedded"] == 0
        assert hits and all(h.provisional for h in hits) and "dense" not in hits[0].signals
        assert hits[0].paragraph.section == "4 Syntax > 4.3 Word order"  # BM25 and vocabulary already find it
        assert project.conn.execute("SELECT count(*) FROM embeddings").fetchone()[0] == 0
        final = retrieve(project, feature, minilm)  # waiting: the model's order
        assert not any(h.provisional for h in final) and "dense" in final[0].signals
        assert "provisional" not in final[0].to_json()


def test_time_slices_add_up_to_the_whole_book(tmp_path: Path, minilm: RetrievalSettings) -> None:
    path = build_project(tmp_path / "sliced.grammarlens", generated_grammar(200))
    runs = []
    with open_project(path) as project:
        while not runs or not runs[-1].complete:
            runs.append(embed_book(project, minilm, max_seconds=0.0, token_budget=512))  # one batch a call
            assert len(runs) < 200
    assert all(r.batches == 1 for r in runs if r.embedded) and sum(r.embedded for r in runs) == 200
    assert embedding_rows(path) == (200, 200, 200)


def test_the_next_features_candidates_are_embedded_before_the_rest_of_the_book(
        tmp_path: Path, minilm: RetrievalSettings) -> None:
    """The first minute (issue 28): a coder moving on while the book embeds finds the next features re-ranked."""
    path = build_project(tmp_path / "ahead.grammarlens", generated_grammar(300))
    catalog = load_catalog()
    upcoming = [catalog.get("GB107"), catalog.get("81A")]
    with open_project(path) as project:
        first = candidate_ids(project, upcoming, minilm)
        assert 0 < len(first) < 300 and len(set(first)) == len(first)
        run = embed_book(project, minilm, max_seconds=0.0, token_budget=100_000, first=first,
                         wanted_budget=100_000)  # one batch: them all
        assert run.batches == 1 and run.embedded == len(first) and not run.complete
        stored = {row[0] for row in project.conn.execute("SELECT paragraph_id FROM embeddings")}
        assert stored == set(first)
        for feature in upcoming:  # re-ranked at once, while most of the book has no vector yet
            stats: dict = {}
            hits = retrieve(project, feature, minilm, stats=stats, wait_for_model=False)
            assert not stats["provisional"] and stats["embedded"] == 0 and "dense" in hits[0].signals


def test_each_upcoming_feature_is_embedded_in_turn_and_the_call_says_which_are_ready(
        tmp_path: Path, minilm: RetrievalSettings) -> None:
    """The first minute (issue 28): the nearest feature's candidates are done first, not spread over the batches
    of all upcoming features (longest first), and a slice ends when a feature is done, so it is re-ranked at once."""
    path = build_project(tmp_path / "turns.grammarlens", generated_grammar(300))
    catalog = load_catalog()
    with open_project(path) as project:
        near = candidate_ids(project, [catalog.get("GB107")], minilm)
        later = [i for i in candidate_ids(project, [catalog.get("81A")], minilm) if i not in set(near)]
        assert near and later
        # a budget of a few paragraphs a batch, and time enough for the whole book: it stops when GB107 is done
        run = embed_book(project, minilm, max_seconds=600.0, token_budget=2048, first=[near, later])
        stored = {row[0] for row in project.conn.execute("SELECT paragraph_id FROM embeddings")}
        assert run.batches > 1 and stored == set(near) and run.first_pending == frozenset(later)
        stats: dict = {}
        retrieve(project, catalog.get("GB107"), minilm, stats=stats, wait_for_model=False)
        assert not stats["provisional"] and stats["embedded"] == 0  # re-ranked now, without the model's help
        run = embed_book(project, minilm, max_seconds=600.0, token_budget=2048, first=[near, later])
        stored = {row[0] for row in project.conn.execute("SELECT paragraph_id FROM embeddings")}
        assert stored == set(near) | set(later) and run.first_pending == frozenset() and not run.complete


def test_query_vectors_computed_ahead_are_those_a_reranking_computes(minilm: RetrievalSettings) -> None:
    """A re-ranking whose query vector was computed ahead asks the model nothing (in the app a request waits
    for the book's batch in flight); the vector is the one encoding the query alone gives."""
    import hashlib

    from core.retrieval import ranking
    from core.retrieval.dense import load_model, model_key
    from core.retrieval.ranking import dense_query, query_vectors, remember_queries

    features = [load_catalog().get("GB021"), load_catalog().get("116A")]
    remember_queries(features, minilm)
    key = model_key(minilm.reranker or "")
    assert all((key, hashlib.sha1(dense_query(f, minilm).encode("utf-8")).hexdigest()) in ranking._MEMO
               for f in features)
    assert remember_queries(features, minilm) == 0  # kept: nothing new to ask
    alone = load_model(minilm.reranker or "", device="cpu").encode([dense_query(features[1], minilm)], batch_size=1)
    assert np.allclose(query_vectors([dense_query(features[1], minilm)], minilm)[0], alone[0], atol=1e-6)
    assert remember_queries(features, minilm.with_(ranking="bm25")) == 0  # no model, nothing to compute


def test_looking_ahead_while_the_model_loads_keeps_provisional_evidence_and_upgrades_it(
        tmp_path: Path, minilm_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first minute: evidence of the next features is at hand before the model is loaded, re-ranked after."""
    from core.coding import lookahead
    from core.coding.lookahead import EvidenceCache
    from core.retrieval.dense import load_model

    fresh = tmp_path / "minilm-copy"  # a model name no test has loaded in this process
    fresh.symlink_to(minilm_path, target_is_directory=True)
    settings = RetrievalSettings(reranker=str(fresh), device="cpu")
    path = build_project(tmp_path / "first-minute.grammarlens", generated_grammar(60))
    catalog = load_catalog()
    cache = EvidenceCache(settings)
    with open_project(path) as project:
        assert cache.prefetch(project, ["81A", "GB107"]) == ["81A", "GB107"]
        assert cache.get("81A").provisional and cache.get("81A").hits  # shown at once, without the model
        assert cache.missing(["81A", "GB107"]) == []  # not retried while the model is still to load
        load_model(str(fresh), device="cpu")
        cache.prefetch(project, ["81A"])
        assert "81A" not in cache.missing(["81A"])  # just retrieved: not asked again at every key
        monkeypatch.setattr(lookahead, "PROVISIONAL_RETRY_S", 0.0)
        assert cache.missing(["81A", "GB107"]) == ["81A", "GB107"]  # the model is there: upgrade them
        cache.prefetch(project, ["81A", "GB107"])  # the look-ahead never embeds: still provisional
        assert cache.get("81A").provisional and cache.missing(["81A"]) == ["81A"]
        first = candidate_ids(project, [catalog.get("81A"), catalog.get("GB107")], settings)
        embed_book(project, settings, first=first, max_seconds=0.0, token_budget=100_000,
                   wanted_budget=100_000)  # as the app does
        assert cache.prefetch(project, ["81A", "GB107"]) == ["81A", "GB107"]
        assert not cache.get("81A").provisional and "dense" in cache.get("81A").hits[0].signals
        assert cache.missing(["81A", "GB107"]) == []


def test_a_feature_said_ready_is_looked_ahead_again_at_once(tmp_path: Path, minilm: RetrievalSettings) -> None:
    """The book's preparation says when a feature's candidates are embedded: its provisional look-ahead entry is
    retrieved again then, not after the retry interval (2 s: two features later at a key a second)."""
    from core.coding.lookahead import EvidenceCache
    from core.retrieval.dense import load_model

    load_model(minilm.reranker or "", device="cpu")
    path = build_project(tmp_path / "ready.grammarlens", generated_grammar(60))
    cache = EvidenceCache(minilm)
    with open_project(path) as project:
        cache.prefetch(project, ["81A"])
        assert cache.get("81A").provisional and cache.missing(["81A"]) == []  # within the retry interval
        embed_book(project, minilm, first=[candidate_ids(project, [load_catalog().get("81A")], minilm)],
                   max_seconds=0.0, token_budget=100_000, wanted_budget=100_000)  # its candidates, one batch
        assert cache.mark_ready(["81A", "GB107"]) == ["81A"]  # GB107 was never looked ahead
        assert cache.missing(["81A"]) == ["81A"]
        cache.prefetch(project, ["81A"])
        assert not cache.get("81A").provisional and cache.missing(["81A"]) == []


def test_embedding_killed_half_way_leaves_an_intact_project_that_the_next_run_finishes(
        tmp_path: Path, minilm: RetrievalSettings) -> None:
    path = build_project(tmp_path / "killed.grammarlens", generated_grammar(900))
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    command = [sys.executable, "main.py", "embed", str(path), "--model", minilm.reranker, "--device", "cpu"]
    child = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 240
        stored = 0
        while stored == 0 and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as reader:  # sees committed batches only
                stored = reader.execute("SELECT count(*) FROM embeddings").fetchone()[0]
        assert child.poll() is None, child.stderr.read().decode() if child.stderr else ""
        child.send_signal(signal.SIGKILL)  # mid-way: some batches are stored, most are not
    finally:
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    rows, distinct, paragraphs = embedding_rows(path)
    assert 0 < rows < paragraphs and rows == distinct
    with open_project(path) as project:
        assert project.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    done = subprocess.run([*command, "--json"], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["embedded"] == paragraphs - rows and report["already"] == rows and report["total"] == paragraphs
    assert embedding_rows(path) == (paragraphs, paragraphs, paragraphs)
    with open_project(path) as project:
        assert project.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stats: dict = {}
        retrieve(project, load_catalog().get("81A"), minilm, stats=stats)
        assert stats["embedded"] == 0


def test_a_read_only_project_ranks_with_the_model_but_stores_no_vectors(tmp_path: Path,
                                                                         minilm: RetrievalSettings) -> None:
    from core.errors import GrammarLensError

    path = build_project(tmp_path / "read-only.grammarlens")
    with open_project(path, readonly=True) as project:
        hits = retrieve(project, load_catalog().get("81A"), minilm)
        assert "dense" in hits[0].signals
        with pytest.raises(GrammarLensError, match="read-only"):
            embed_book(project, minilm)
    assert embedding_rows(path)[0] == 0
