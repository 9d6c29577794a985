"""Retrieval speed on a real project: index build, BM25 query, reranking cold and cached."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from core.catalog.model import Feature
from core.retrieval.pipeline import project_index, retrieve, search_text
from core.retrieval.ranking import bm25_query, rank_candidates
from core.retrieval.settings import RetrievalSettings
from core.retrieval.tokenize import tokenize
from core.store import open_project
from core.store.repository import total_pages


def run_speed_bench(path: str | Path, feature: Feature, model: str | None, *, device: str = "auto") -> dict:
    """Timings in seconds (medians where repeated); see README, Retrieval, for the targets."""
    out: dict = {}
    with open_project(path) as project:
        pages = total_pages(project)
        start = time.perf_counter()
        built = project_index(project)
        out["pages"] = int(pages)
        out["paragraphs"] = len(built.paragraphs)
        out["index_build_s"] = time.perf_counter() - start
        settings = RetrievalSettings(device=device, reranker=model)
        query = tokenize(bm25_query(feature, settings))
        times = []
        for _ in range(20):
            start = time.perf_counter()
            top = built.index.top(query, settings.bm25_top)
            times.append(time.perf_counter() - start)
        out["bm25_query_s"] = statistics.median(times)
        from rank_bm25 import BM25Okapi

        corpus = [tokenize(search_text(p)) for p in built.paragraphs]
        oracle = BM25Okapi(corpus)
        start = time.perf_counter()
        oracle.get_scores(query)
        out["rank_bm25_query_s"] = time.perf_counter() - start
        if model:
            from core.retrieval.dense import load_model

            start = time.perf_counter()
            loaded = load_model(model, device=device)
            out["model_import_and_load_s"] = time.perf_counter() - start
            out["device"] = loaded.device
            texts = [search_text(built.paragraphs[i]) for i, _ in top]
            cold = []
            for _ in range(2):
                start = time.perf_counter()
                embeddings = loaded.encode(texts, batch_size=settings.batch_size)
                rank_candidates(texts, feature, settings, embeddings=embeddings)
                cold.append(time.perf_counter() - start)
            out["rerank_50_uncached_s"] = min(cold)
            stats: dict = {}
            retrieve(project, feature, settings, stats=stats)  # fills the cache if needed
            out["first_retrieve_embedded"] = stats.get("embedded", 0)
            cached = []
            for _ in range(5):
                stats = {}
                start = time.perf_counter()
                retrieve(project, feature, settings, stats=stats)
                cached.append(time.perf_counter() - start)
            out["retrieve_cached_s"] = statistics.median(cached)
            out["second_retrieve_embedded"] = stats.get("embedded", 0)
        else:
            start = time.perf_counter()
            retrieve(project, feature, settings)
            out["retrieve_no_model_s"] = time.perf_counter() - start
    return out
