"""Ranking plain texts for a feature (no project needed).

:func:`rank_texts` is what the benches and the LLM area's ``bench rag --ranking ours`` use on
other people's chunks: BM25 over the given texts, the feature's vocabulary, and the reranker when
the settings name one.  Embeddings of texts are memoised in-process by (model, text hash), so
several configurations over the same texts embed each text once.
"""

from __future__ import annotations

import hashlib
from typing import Sequence

import numpy as np

from core.catalog.model import Feature
from core.retrieval.bm25 import BM25Index
from core.retrieval.candidate_place import CandidatePlace
from core.retrieval.combine import Ranked, combine
from core.retrieval.dense import load_model, model_key, model_kind, with_instruction
from core.retrieval.expansion import retrieval_vocabulary
from core.retrieval.settings import RetrievalSettings
from core.retrieval.tokenize import tokenize
from core.retrieval.vocabulary import vocabulary_scores

_MEMO: dict[tuple[str, str], np.ndarray] = {}
_MEMO_LIMIT = 50_000


def bm25_query(feature: Feature, settings: RetrievalSettings, override: str | None = None) -> str:
    """The BM25 query text for ``settings.query`` (or ``override`` verbatim)."""
    if override is not None:
        return override
    if settings.query == "descriptive":
        return feature.descriptive_query
    if settings.query == "both":
        return f"{feature.term_query}\n{feature.descriptive_query}"
    return feature.term_query


def vocabulary_query(feature: Feature) -> str:
    """The feature's name, topic phrases and value phrases as one BM25 query.

    The question names the feature the way a database does; the vocabulary names it the way
    grammars do ("has no articles", "SVO", "postpositions").  Each phrase counts once, so a long
    value list (81A names every order) weighs by its rarest words, as BM25 does with any query.
    """
    return "\n".join([feature.name, *feature.vocabulary.topic, *feature.vocabulary.values])


def dense_query(feature: Feature, settings: RetrievalSettings, override: str | None = None) -> str:
    text = override if override is not None else (
        feature.term_query if settings.dense_query == "term" else feature.descriptive_query
    )
    return with_instruction(text, settings.instruction_text())


def embed_texts(texts: Sequence[str], settings: RetrievalSettings) -> np.ndarray:
    """Embeddings of ``texts`` with the settings' bi-encoder, memoised in-process."""
    assert settings.reranker
    model = load_model(settings.reranker, kind=settings.reranker_kind, device=settings.device)
    key = model_key(settings.reranker)
    hashes = [hashlib.sha1(t.encode("utf-8")).hexdigest() for t in texts]
    missing = [i for i, h in enumerate(hashes) if (key, h) not in _MEMO]
    if missing:
        vectors = model.encode([texts[i] for i in missing], batch_size=settings.batch_size)
        if len(_MEMO) + len(missing) > _MEMO_LIMIT:
            _MEMO.clear()
        for i, vec in zip(missing, vectors, strict=True):
            _MEMO[(key, hashes[i])] = vec
    return np.stack([_MEMO[(key, h)] for h in hashes]) if texts else np.zeros((0, 0), np.float32)


def dense_scores(
    texts: Sequence[str], query: str, settings: RetrievalSettings, embeddings: np.ndarray | None = None
) -> np.ndarray | None:
    """Similarity of each text to ``query`` with the settings' model, or None without a model."""
    if not settings.reranker or settings.ranking == "bm25" or not texts:
        return None
    model = load_model(settings.reranker, kind=settings.reranker_kind, device=settings.device)
    if model.kind == "cross":
        return model.cross_scores(query, texts, batch_size=settings.batch_size)
    if embeddings is None:
        embeddings = embed_texts(texts, settings)
    q = query_vectors([query], settings)[0]
    return embeddings.astype(np.float64) @ q.astype(np.float64)


def query_vectors(queries: Sequence[str], settings: RetrievalSettings) -> np.ndarray:
    """The bi-encoder's vectors of ``queries``, each encoded alone (as a re-ranking always did) and memoised.

    Why memoised: in the app the model answers one request at a time from its child process, and while
    the book embeds, a request waits for the batch in flight (1-2 s on two busy cores); a re-ranking whose
    query vector was computed ahead (:func:`remember_queries`) asks the model nothing.
    """
    return embed_texts(list(queries), settings.with_(batch_size=1))


def remember_queries(features: Sequence[Feature], settings: RetrievalSettings) -> int:
    """Compute ahead the query vectors of ``features``' re-rankings (bi-encoders); returns how many were new."""
    if not settings.reranker or settings.ranking == "bm25" or not features \
            or model_kind(settings.reranker, settings.reranker_kind) != "bi":
        return 0
    key = model_key(settings.reranker)
    queries = [dense_query(f, settings) for f in features]
    new = sum(1 for q in queries if (key, hashlib.sha1(q.encode("utf-8")).hexdigest()) not in _MEMO)
    if new:
        query_vectors(queries, settings)
    return new


def rank_candidates(
    texts: Sequence[str],
    feature: Feature,
    settings: RetrievalSettings,
    *,
    bm25: np.ndarray | None = None,
    embeddings: np.ndarray | None = None,
    query: str | None = None,
    dense_query_text: str | None = None,
    bm25_vocabulary: np.ndarray | None = None,
    vocabulary_texts: Sequence[str] | None = None,
    place: CandidatePlace | None = None,
) -> Ranked:
    """Rank candidate texts; BM25 is computed over the texts themselves unless given.

    ``bm25_vocabulary`` is BM25 for :func:`vocabulary_query` (the pipeline computes it over the whole
    book); it joins the question's BM25 and the embedding similarity in the combination when given.
    ``vocabulary_texts`` replace ``texts`` for the phrase match (a dictionary entry's definition).
    ``place`` says where each candidate sits in its book (core.retrieval.candidate_place); bare texts
    without a book have none.
    """
    if bm25 is None:
        index = BM25Index([tokenize(t) for t in texts])
        bm25 = index.scores(tokenize(bm25_query(feature, settings, query)))
    vocab = vocabulary_scores(list(vocabulary_texts or texts), retrieval_vocabulary(feature), settings.value_weight)
    dense = dense_scores(texts, dense_query(feature, settings, dense_query_text), settings, embeddings)
    return combine(settings, bm25, vocab, dense, bm25_vocabulary=bm25_vocabulary, place=place)


def rank_texts(texts: list[str], feature: Feature, settings: RetrievalSettings) -> list[tuple[int, float]]:
    """All ``texts`` as ``(index, score)``, best first, by the settings' ranking."""
    ranked = rank_candidates(texts, feature, settings)
    return [(i, float(ranked.scores[i])) for i in ranked.order]
