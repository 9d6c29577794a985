"""Finding the paragraphs of a grammar that decide a feature's value.

BM25 over all paragraphs (the paper's baseline), then a combined re-ranking of the top candidates
by the feature's value vocabulary, BM25, an optional embedding model and the paragraph's kind,
and finally an evidence budget for classification.  Nothing here imports sentence-transformers
or torch until a model is used.
"""

from core.retrieval.budget import estimate_tokens, pack_budget
from core.retrieval.pipeline import Hit, load_retrieval_run, retrieve, store_retrieval_run
from core.retrieval.ranking import rank_texts
from core.retrieval.settings import DEFAULT_RERANKER, INSTRUCTIONS, RetrievalSettings

__all__ = [
    "DEFAULT_RERANKER", "INSTRUCTIONS", "Hit", "RetrievalSettings", "estimate_tokens", "load_retrieval_run",
    "pack_budget", "rank_texts", "retrieve", "store_retrieval_run",
]
