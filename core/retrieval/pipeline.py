"""Retrieval over a project: BM25 over every paragraph, then the combined re-ranking of the top.

The BM25 index of a project is kept in-process and rebuilt only when the paragraphs change, so a
second query on the same project costs milliseconds.  Embeddings of candidates come from the
project's cache (core.retrieval.cache), so a second rerank with the same model runs no model on
the paragraphs at all.
"""

from __future__ import annotations

import functools
import threading
import time
from dataclasses import dataclass, field
from typing import Iterable

import numpy as np

from core.catalog.model import Feature
from core.collector import collector_paused
from core.ingest.entries import parse_entry
from core.models import Paragraph, ParagraphKind
from core.progress import Progress
from core.retrieval.bm25 import BM25Index
from core.retrieval.book_parts import BookPart, classify_parts
from core.retrieval.cache import cached_embeddings, embedding_text, missing_embeddings
from core.retrieval.candidate_place import CandidatePlace
from core.retrieval.candidates import Candidates, PhraseIndexSource, select_candidates
from core.retrieval.dense import load_model, model_key, model_kind, model_ready, reranker_installed
from core.retrieval.paragraph_place import fragment_flags, opening_flags
from core.retrieval.ranking import rank_candidates
from core.retrieval.sections import BookSections
from core.retrieval.settings import RetrievalSettings
from core.retrieval.tokenize import tokenize
from core.store import retrieval_runs
from core.store.database import ProjectDatabase
from core.store.repository import get_paragraphs, list_paragraphs, paragraphs_stamp
from core.store.retrieval_runs import StoredHit

# Kinds that name topics without stating values: ranked down by settings.kind_penalty.
FURNITURE_KINDS = frozenset({ParagraphKind.TOC, ParagraphKind.INDEX, ParagraphKind.BIBLIOGRAPHY})


@dataclass(frozen=True)
class Hit:
    """One retrieved paragraph: its rank (1-based), final score and every signal behind it.

    ``provisional`` marks a ranking made without the embedding model the settings name (it was not
    loaded yet, or some candidates had no vector yet): BM25 and vocabulary only, shown first and
    replaced by the re-ranked order (see :func:`retrieve`'s ``wait_for_model``).
    """

    rank: int
    score: float
    paragraph: Paragraph
    signals: dict[str, float] = field(default_factory=dict, compare=False, hash=False)
    provisional: bool = field(default=False, compare=False)
    part: BookPart = field(default=BookPart.BODY, compare=False)  # front/back matter or dictionary: marked

    @property
    def outside_grammar(self) -> bool:
        """Front or back matter: shown only because nothing in the grammar proper speaks to the feature."""
        return self.part in (BookPart.FRONT, BookPart.BACK)

    def to_json(self) -> dict:
        p = self.paragraph
        return {
            "rank": self.rank, "score": round(self.score, 6), "paragraph_id": p.id, "document_id": p.document_id,
            "pdf_page": p.pdf_page, "page_label": p.page_label, "section": p.section, "kind": p.kind.value,
            "part": self.part.value,
            "signals": {k: round(v, 6) for k, v in self.signals.items()}, "text": p.text,
            "ocr_confidence": p.ocr_confidence, "low_confidence": p.low_confidence,
        }


def search_text(paragraph: Paragraph) -> str:
    """What BM25 and the reranker see: the section path (headings are strong evidence) and the text."""
    return embedding_text(paragraph)


def vocabulary_text(paragraph: Paragraph) -> str:
    """What the feature's phrases are matched against.

    For a dictionary entry, its definition in words ("definite article the", core.ingest.entries):
    the part of speech and gloss say what the word is, while the English translations of its
    examples contain every common word and would match any feature.  Everything else: search_text.
    """
    if paragraph.kind is ParagraphKind.ENTRY:
        entry = parse_entry(paragraph.text)
        if entry is not None:
            return entry.definition
    return search_text(paragraph)


@dataclass
class ProjectIndex:
    """A project's paragraphs and their BM25 index, valid for one state of the paragraphs table."""

    stamp: tuple
    paragraphs: list[Paragraph]
    index: BM25Index
    phrases: PhraseIndexSource = field(init=False)  # vocabulary phrase index, built on first widened query
    parts: list[BookPart] = field(init=False)  # front/back matter, dictionary, grammar proper (book_parts)
    sections: BookSections = field(init=False)  # the book's section paths, for the section match
    outside: np.ndarray = field(init=False)  # per paragraph: front or back matter
    dictionary: np.ndarray = field(init=False)  # per paragraph: in a dictionary part
    opening: np.ndarray = field(init=False)  # per paragraph: the first of its section (paragraph_place)

    def __post_init__(self) -> None:
        # no reference back to self: a dropped index is freed at once, without the collector
        self.phrases = PhraseIndexSource(functools.partial(_vocabulary_texts, self.paragraphs))
        self.parts = classify_parts(self.paragraphs)
        self.sections = BookSections.build([p.section for p in self.paragraphs])
        codes = np.array([_PART_CODES[p] for p in self.parts], dtype=np.int8)
        self.outside = codes == 1  # front or back matter
        self.dictionary = codes == 2
        self.opening = opening_flags(self.paragraphs)


_PART_CODES = {BookPart.BODY: 0, BookPart.FRONT: 1, BookPart.BACK: 1, BookPart.DICTIONARY: 2}
# A hit's part travels in its stored signals as this index ("part"), so a stored run shows it again.
PART_ORDER = (BookPart.BODY, BookPart.FRONT, BookPart.BACK, BookPart.DICTIONARY)


def part_of_signals(signals: dict[str, float]) -> BookPart:
    code = int(signals.get("part", 0))
    return PART_ORDER[code] if 0 <= code < len(PART_ORDER) else BookPart.BODY


def _vocabulary_texts(paragraphs: list[Paragraph]) -> list[str]:
    return [vocabulary_text(p) for p in paragraphs]


_INDEXES: dict[str, ProjectIndex] = {}
_INDEX_LOCK = threading.Lock()
_BUILD_LOCKS: dict[str, threading.Lock] = {}  # one build per project at a time: a second caller waits for it


def project_index(project: ProjectDatabase) -> ProjectIndex:
    """The (cached) BM25 index of all paragraphs in the project.

    Threads that ask for the same project's index at once (the app prepares it while the first
    feature's retrieval starts) share one build instead of each building it.
    """
    stamp = paragraphs_stamp(project)
    key = str(project.path)
    with _INDEX_LOCK:
        cached = _INDEXES.get(key)
        if cached is not None and cached.stamp == stamp:
            return cached
        build_lock = _BUILD_LOCKS.setdefault(key, threading.Lock())
    with build_lock:
        with _INDEX_LOCK:
            cached = _INDEXES.get(key)
        if cached is not None and cached.stamp == stamp:
            return cached  # built by the thread this one waited for
        with collector_paused():
            paragraphs = list_paragraphs(project)
            built = ProjectIndex(stamp, paragraphs, BM25Index([tokenize(search_text(p)) for p in paragraphs]))
        with _INDEX_LOCK:
            _INDEXES[key] = built
    return built


def prepare_indexes(project: ProjectDatabase, progress: Progress | None = None) -> ProjectIndex:
    """Build what a first retrieval needs in memory (the BM25 and the vocabulary phrase indexes) now.

    The app calls it in the background when a project opens, so the first feature's evidence does
    not wait for a second of index building.
    """
    progress = progress or Progress()
    progress.step(0, 2, "indexing paragraphs")
    built = project_index(project)
    progress.step(1, 2, "indexing vocabulary phrases")
    built.phrases()
    progress.step(2, 2, "indexes ready")
    return built


def forget_project_index(project_path: object) -> None:
    """Drop a project's in-memory index: work over many grammars (a batch file for 100 of them) keeps one
    index at a time instead of all of them."""
    with _INDEX_LOCK:
        _INDEXES.pop(str(project_path), None)


def retrieve(
    project: ProjectDatabase,
    feature: Feature,
    settings: RetrievalSettings = RetrievalSettings(),
    progress: Progress | None = None,
    *,
    stats: dict | None = None,
    wait_for_model: bool = True,
) -> list[Hit]:
    """The ``settings.final_top`` best paragraphs of the project for ``feature``.

    BM25 picks ``settings.bm25_top`` candidates, widened by the feature's vocabulary
    (core.retrieval.candidates); they are re-ranked by ``settings.ranking``.
    ``stats`` (optional) receives timings and how many embeddings had to be computed.

    With ``wait_for_model=False`` the retrieval never loads the embedding model nor embeds a
    paragraph: when the model is not loaded yet or a candidate has no stored vector, the hits are
    ranked by BM25 and vocabulary alone and come back ``provisional`` (the app shows them at once and
    asks again with the model); otherwise they are the same as with ``wait_for_model=True``.
    """
    progress = progress or Progress()
    timings: dict = {} if stats is None else stats
    progress.step(0, 3, "indexing paragraphs")
    start = time.perf_counter()
    built = project_index(project)
    timings["index_s"] = time.perf_counter() - start
    progress.step(1, 3, "BM25")
    start = time.perf_counter()
    pool = _candidates(built, feature, settings)
    timings["bm25_s"] = time.perf_counter() - start
    if not pool.indices:
        progress.step(3, 3, "no paragraphs")
        return []
    candidates = [built.paragraphs[i] for i in pool.indices]
    bm25 = pool.bm25
    place = CandidatePlace.of(  # as float64 arrays, one entry a candidate
        len(candidates), furniture=np.array([p.kind in FURNITURE_KINDS for p in candidates]), section=pool.section,
        outside=built.outside[pool.indices], dictionary=built.dictionary[pool.indices],
        opening=built.opening[pool.indices], fragment=fragment_flags(candidates),
    )
    texts = [search_text(p) for p in candidates]
    progress.step(2, 3, "re-ranking")
    start = time.perf_counter()
    embeddings = None
    timings["embedded"] = 0
    provisional = False
    if settings.reranker and settings.ranking != "bm25" and not wait_for_model \
            and not _rerank_ready(project, candidates, settings):
        provisional, settings = True, settings.with_(reranker=None)
    timings["provisional"] = provisional
    if settings.reranker and settings.ranking != "bm25":
        model = load_model(settings.reranker, kind=settings.reranker_kind, device=settings.device)
        timings["load_s"] = time.perf_counter() - start
        if model.kind == "bi":
            embeddings, computed = cached_embeddings(
                project, candidates, model_key(settings.reranker),
                lambda batch: model.encode(batch, batch_size=settings.batch_size),
            )
            timings["embedded"] = computed
    ranked = rank_candidates(texts, feature, settings, bm25=bm25, embeddings=embeddings,
                             bm25_vocabulary=pool.bm25_vocabulary,
                             vocabulary_texts=[vocabulary_text(p) for p in candidates], place=place)
    timings["rerank_s"] = time.perf_counter() - start
    progress.step(3, 3, "done")
    hits = []
    for r, i in enumerate(ranked.order[: settings.final_top]):
        part = built.parts[pool.indices[i]]
        signals = {**ranked.signals[i], "part": float(PART_ORDER.index(part))}
        hits.append(Hit(rank=r + 1, score=float(ranked.scores[i]), paragraph=candidates[i], signals=signals,
                        provisional=provisional, part=part))
    return hits


def _candidates(built: ProjectIndex, feature: Feature, settings: RetrievalSettings) -> Candidates:
    section = built.sections.paragraph_scores(feature) if settings.ranking != "bm25" else None
    return select_candidates(built.index, built.phrases, feature, settings, section=section, eligible=~built.outside)


def candidate_ids(project: ProjectDatabase, features: Iterable[Feature], settings: RetrievalSettings) -> list[int]:
    """Ids of the paragraphs the re-ranking of ``features`` will need, nearest feature first, each once.

    Lexical and fast (milliseconds a feature once the indexes are built): the app embeds these
    before the rest of the book (core.retrieval.book_embeddings), so the features a coder meets next
    are re-ranked from the first minute.
    """
    built = project_index(project)
    out: dict[int, None] = {}
    for feature in features:
        for i in _candidates(built, feature, settings).indices:
            out.setdefault(built.paragraphs[i].id, None)
    return list(out)


def _rerank_ready(project: ProjectDatabase, candidates: list[Paragraph], settings: RetrievalSettings) -> bool:
    """Whether re-ranking these candidates now costs no model load and no embedding."""
    assert settings.reranker
    if not reranker_installed():
        return False
    kind = model_kind(settings.reranker, settings.reranker_kind)
    if not model_ready(settings.reranker, kind=kind, device=settings.device):
        return False
    return kind != "bi" or not missing_embeddings(project, candidates, model_key(settings.reranker))


def store_retrieval_run(
    project: ProjectDatabase, feature_id: str, settings: RetrievalSettings, hits: list[Hit], *, query: str = "",
    seconds: float = 0.0,
) -> int:
    """Save a retrieval and its hits; the returned run id is what a classification links to."""
    stored = [StoredHit(h.rank, h.paragraph.id, h.score, h.signals) for h in hits]
    return retrieval_runs.insert_run(project, feature_id, settings.to_json(), stored, query=query, seconds=seconds)


def load_retrieval_run(project: ProjectDatabase, run_id: int) -> tuple[str, RetrievalSettings, list[Hit]]:
    """A stored run as (feature id, settings, hits); hits whose paragraph was deleted are dropped."""
    from core.errors import GrammarLensError

    run = retrieval_runs.get_run(project, run_id)
    if run is None:
        raise GrammarLensError(f"No retrieval run {run_id} in this project.", "List runs with 'retrieve --runs'.")
    stored = retrieval_runs.run_hits(project, run_id)
    return run.feature_id, RetrievalSettings.from_json(run.settings_json), hits_of(project, stored)


def hits_of(project: ProjectDatabase, stored: Iterable[StoredHit]) -> list[Hit]:
    """Stored (rank, paragraph id, score) rows as hits with their paragraphs; deleted paragraphs are dropped."""
    stored = list(stored)
    paragraphs = {p.id: p for p in get_paragraphs(project, [h.paragraph_id for h in stored])}
    return [Hit(h.rank, h.score, paragraphs[h.paragraph_id], dict(h.signals), part=part_of_signals(h.signals))
            for h in stored if h.paragraph_id in paragraphs]
