"""The store's repository modules on a real project file: what is written comes back as the same records."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from core.models import LabelSource, Paragraph, ParagraphKind, Rect
from core.store import (
    classifications,
    create_project,
    embeddings,
    feature_lists,
    llm_cache,
    open_project,
    profile_jobs,
    retrieval_runs,
)
from core.store.repository import insert_document, list_paragraphs, paragraphs_stamp, total_pages

TEXTS = ["Testish is verb-final: subject object verb.", "Polar questions end in =ka.", "Nouns have no case."]


@pytest.fixture
def project(tmp_path: Path):
    with create_project(tmp_path / "p.grammarlens") as project:
        insert_document(
            project, sha256="f" * 64, file_name="t.pdf", path="", title="Testish", page_count=3,
            label_source=LabelSource.PDF_PAGE, pdf_page_of_printed_1=1,
            pages=[(i, str(i), LabelSource.PDF_PAGE, 595.0, 842.0, 100) for i in (1, 2, 3)],
            paragraphs=[Paragraph(0, 0, 0, i + 1, str(i + 1), LabelSource.PDF_PAGE, "4 Syntax", ParagraphKind.PROSE, t,
                                  (Rect(i + 1, 1, 2, 3, 4),)) for i, t in enumerate(TEXTS)])
        yield project


def _classification(paragraphs: list[Paragraph], run_id: int | None):
    from core.records.classifications import Classification, Evidence, Flag, ValueRecord

    evidence = [dataclasses.replace(Evidence.from_hit(_hit(p, rank), number=rank), cited=rank == 1)
                for rank, p in enumerate(paragraphs, start=1)]
    return Classification(
        id=None, created_at="2026-01-01T00:00:00+00:00", feature_id="81A", feature_name="Order", config="rag",
        language="Testish", model="m", base_url="http://127.0.0.1:1/v1", values=[ValueRecord("81A", "1", "SOV")],
        reasoning="p1", raw_answer="{}", status="ok", problem=None, flags=[Flag("k", "look", paragraphs[0].id)],
        evidence=evidence, prompt_hash="h", prompt_tokens=10, completion_tokens=2, evidence_tokens=5,
        cost_usd=None, seconds=0.1, cached=False, answer_format="json_schema", retrieval_run_id=run_id)


def _hit(paragraph: Paragraph, rank: int):
    from core.retrieval import Hit

    return Hit(rank, 1.0 / rank, paragraph, {"bm25": float(rank)})


def test_retrieval_run_round_trip_keeps_order_scores_and_signals(project) -> None:
    from core.retrieval import RetrievalSettings, load_retrieval_run, store_retrieval_run

    paragraphs = list_paragraphs(project)
    settings = RetrievalSettings(bm25_top=7, reranker=None)
    hits = [_hit(p, r) for r, p in enumerate(reversed(paragraphs), start=1)]
    run_id = store_retrieval_run(project, "81A", settings, hits, query="q", seconds=0.5)
    assert retrieval_runs.latest_run_ids(project) == {"81A": run_id}
    assert retrieval_runs.latest_run_after(project, "81A", run_id) is None
    assert retrieval_runs.latest_run_after(project, "81A", 0) == run_id
    feature_id, loaded_settings, loaded = load_retrieval_run(project, run_id)
    assert (feature_id, loaded_settings) == ("81A", settings)
    assert loaded == hits and [h.signals for h in loaded] == [h.signals for h in hits]
    assert [h.paragraph_id for h in retrieval_runs.run_hits(project, run_id, limit=2)] == [paragraphs[2].id,
                                                                                         paragraphs[1].id]


def test_classification_round_trip_brings_back_the_evidence_text_and_citations(project) -> None:
    from core.llm.evidence import evidence_hits

    paragraphs = list_paragraphs(project)
    saved = classifications.save_classification(project, _classification(paragraphs, None), {"model": "m"})
    assert saved.id == classifications.max_classification_id(project)
    loaded = classifications.get_classification(project, saved.id)
    assert loaded == saved
    assert [e.text for e in loaded.evidence] == TEXTS and loaded.cited == [loaded.evidence[0]]
    assert classifications.latest_classification_after(project, "81A", 0, model="m", config="rag") == saved.id
    assert classifications.latest_classification_after(project, "81A", 0, model="other", config="rag") is None
    shown = evidence_hits(project, reversed(loaded.evidence))
    assert [(h.rank, h.paragraph.id) for h in shown] == [(i + 1, p.id) for i, p in enumerate(paragraphs)]


def test_a_failed_classification_write_leaves_nothing_behind(project) -> None:
    paragraphs = list_paragraphs(project)
    broken = _classification(paragraphs, None)
    broken.evidence.append(broken.evidence[0])  # the same prompt number twice: the primary key refuses it
    with pytest.raises(sqlite3.IntegrityError):
        classifications.save_classification(project, broken, {})
    assert classifications.list_classifications(project) == []
    assert project.conn.execute("SELECT count(*) FROM classification_values").fetchone()[0] == 0


def test_profile_job_items_and_states(project) -> None:
    job_id = profile_jobs.insert_job(project, feature_set="paper", job_key="k", mode="llm", settings={"a": 1},
                                     feature_ids=["81A", "49A", "GB107"], mark_classification_id=3,
                                     mark_retrieval_run_id=4)
    assert profile_jobs.latest_job_id(project, "k") == job_id and profile_jobs.latest_job_id(project, "x") is None
    profile_jobs.set_item(project, job_id, "49A", "done", retrieval_run_id=9)
    profile_jobs.set_item(project, job_id, "GB107", "failed", error="timed out")
    profile_jobs.set_item(project, job_id, "49A", "done")  # a later tick without ids keeps the stored run id
    profile_jobs.set_job_state(project, job_id, "cancelled")
    job = profile_jobs.get_job(project, job_id)
    assert (job.state, job.settings, job.mark_classification_id, job.mark_retrieval_run_id) == ("cancelled", {"a": 1},
                                                                                                3, 4)
    assert job.done == ["49A"] and job.pending == ["81A", "GB107"]
    assert job.items[1].retrieval_run_id == 9 and job.items[2].error == "timed out"
    assert profile_jobs.job_ids(project) == [job_id] and profile_jobs.get_job(project, job_id + 1) is None


def test_feature_lists_cache_and_embeddings(project) -> None:
    feature_lists.put_feature_list(project, "mine", ["81A", "GB107"])
    feature_lists.put_feature_list(project, "mine", ["49A"])
    assert feature_lists.list_feature_lists(project) == {"mine": ["49A"]}
    assert feature_lists.get_feature_list(project, "none") is None

    assert llm_cache.get_reply(project, "k") is None
    llm_cache.put_reply(project, "k", "ph", llm_cache.CachedReply("SOV", "m", 10, 2))
    assert llm_cache.get_reply(project, "k") == llm_cache.CachedReply("SOV", "m", 10, 2)
    assert project.conn.execute("SELECT hits FROM llm_cache WHERE key = 'k'").fetchone()[0] == 1

    pid = list_paragraphs(project)[0].id
    embeddings.put_embeddings(project, "mini", [(pid, "h1", np.ones(3, dtype=np.float32))])
    embeddings.put_embeddings(project, "mini", [(pid, "h2", np.full(3, 2.0, dtype=np.float32))])
    (stored_hash, vector), = embeddings.get_embeddings(project, "mini", [pid, pid + 100]).values()
    assert stored_hash == "h2" and vector.tolist() == [2.0, 2.0, 2.0]


def test_stamp_and_pages_follow_the_paragraphs(project, tmp_path: Path) -> None:
    before = paragraphs_stamp(project)
    with project.transaction():
        project.conn.execute("UPDATE paragraphs SET text = text || ' More.' WHERE seq = 0")
    assert paragraphs_stamp(project) != before and total_pages(project) == 3
    project.close()
    with open_project(tmp_path / "p.grammarlens", readonly=True) as again:
        assert len(list_paragraphs(again)) == 3
