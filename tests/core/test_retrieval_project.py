"""Retrieval on real project files: ranking, the embedding cache, stored runs, the CLI, the bench."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cli import main as cli_main
from core.catalog import load_catalog
from core.retrieval import RetrievalSettings, load_retrieval_run, pack_budget, rank_texts, retrieve, store_retrieval_run
from core.store import open_project

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
LEXICAL = RetrievalSettings(reranker=None)


def test_retrieve_without_model_puts_the_stated_order_first(mini_project: Path) -> None:
    with open_project(mini_project) as project:
        hits = retrieve(project, load_catalog().get("81A"), LEXICAL)
    assert hits[0].paragraph.section == "4 Syntax > 4.3 Word order"
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert set(hits[0].signals) >= {"bm25", "vocabulary", "furniture", "score"}
    toc = next(h for h in hits if h.paragraph.kind.value == "toc")
    assert toc.signals["furniture"] == 1.0
    with open_project(mini_project) as project:
        hits = retrieve(project, load_catalog().get("GB107"), LEXICAL)
    assert "negative prefix" in hits[0].paragraph.text


def test_minilm_embeddings_are_cached_in_the_project(mini_project: Path, minilm_path: Path) -> None:
    settings = RetrievalSettings(reranker=str(minilm_path), device="cpu")
    feature = load_catalog().get("81A")
    with open_project(mini_project) as project:
        first: dict = {}
        hits = retrieve(project, feature, settings, stats=first)
        assert "dense" in hits[0].signals
        assert first["embedded"] == len(hits) > 0
        rows = project.conn.execute("SELECT count(*), min(dim) FROM embeddings").fetchone()
        assert rows == (len(hits), 384)
    with open_project(mini_project) as project:  # a new connection: the cache lives in the file
        second: dict = {}
        again = retrieve(project, feature, settings, stats=second)
        assert second["embedded"] == 0
        assert [h.paragraph.id for h in again] == [h.paragraph.id for h in hits]
        edited = hits[0].paragraph.id
        with project.transaction():
            project.conn.execute("UPDATE paragraphs SET text = text || ' Edited.' WHERE id = ?", (edited,))
        third: dict = {}
        retrieve(project, feature, settings, stats=third)
        assert third["embedded"] == 1  # only the edited paragraph is embedded again


def test_retrieval_runs_are_stored_and_reloaded(mini_project: Path) -> None:
    feature = load_catalog().get("PQ")
    with open_project(mini_project) as project:
        hits = retrieve(project, load_catalog().get("81A"), LEXICAL)
        run_id = store_retrieval_run(project, feature.id, LEXICAL, hits)
        feature_id, settings, loaded = load_retrieval_run(project, run_id)
    assert feature_id == "116A*" and settings == LEXICAL
    assert [(h.rank, h.paragraph.id, h.signals) for h in loaded] == [(h.rank, h.paragraph.id, h.signals) for h in hits]


def test_pack_budget_on_hits(mini_project: Path) -> None:
    with open_project(mini_project) as project:
        hits = retrieve(project, load_catalog().get("81A"), LEXICAL)
    packed = pack_budget(hits, 60)
    assert packed and sum(len(h.paragraph.text) for h in packed) <= 240
    assert [h.rank for h in packed] == sorted(h.rank for h in packed)


def test_rank_texts_on_plain_strings() -> None:
    texts = ["Nouns take the plural suffix -ni.", "Basic word order is VSO; the verb comes first.", "In order to eat."]
    ranked = rank_texts(texts, load_catalog().get("81A"), LEXICAL)
    assert ranked[0][0] == 1 and sorted(i for i, _ in ranked) == [0, 1, 2]


def test_retrieve_cli_json(mini_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli_main(["retrieve", str(mini_project), "--feature", "81A", "--top", "3", "--rerank", "none", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["hits"]) == 3 and out["run_id"] >= 1
    first = out["hits"][0]
    assert {"rank", "score", "paragraph_id", "pdf_page", "page_label", "section", "kind", "text"} <= set(first)
    assert first["rank"] == 1 and "SOV" in first["text"]
    assert cli_main(["retrieve", str(mini_project), "--feature", "nope", "--rerank", "none"]) == 2


def test_bench_reproduces_the_papers_bm25_score() -> None:
    from bench.retrieval import run_rerank_bench

    report = run_rerank_bench(SHARED / "bench" / "rerankers", load_catalog().get("81A"), None)
    configs = {c["name"]: c for c in report["configs"]}
    paper = configs["bm25 (paper order)"]
    assert paper["ndcg@20"] == pytest.approx(0.7598, abs=5e-5)
    assert len(paper["per_grammar"]) == 7
    assert configs["grammarlens (no model)"]["ndcg@20"] > paper["ndcg@20"]
    assert report["default"] in configs


def test_importing_core_retrieval_does_not_load_sentence_transformers() -> None:
    code = ("import sys, core.retrieval, core.catalog; "
            "print(any(m.startswith(('sentence_transformers', 'torch')) for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.slow
def test_ingested_real_grammar_retrieves_word_order_paragraphs(tmp_path: Path) -> None:
    from core.ingest import ingest

    pdf = SHARED / "grammars" / "118_Moloko.pdf"
    with open_project(tmp_path / "moloko.grammarlens", create=True) as project:
        ingest(project, pdf)
        hits = retrieve(project, load_catalog().get("81A"), LEXICAL)
    top = " ".join((h.paragraph.section + " " + h.paragraph.text).lower() for h in hits[:5])
    assert "order" in top and any(code in top for code in ("sov", "svo", "vso", "verb-initial", "verb initial"))
