"""Evidence ahead of the coder: retrieve the next features' paragraphs before the coder gets there.

Moving on in a coding pass must show evidence at once, but a retrieval (BM25, then the reranker) takes
from milliseconds to a second.  :class:`EvidenceCache` keeps each feature's hits in memory;
:meth:`EvidenceCache.prefetch` fills it for the features :meth:`CodingPass.upcoming` names, between
features it checks the progress object for cancel, so the GUI runs it in a worker (with the worker's own
project connection) and reads the cache from the UI thread.  :func:`with_pinned` adds the paragraphs
the coder pinned that the retrieval did not find, and :func:`pinned_first` puts the pinned ones at the
top, as the evidence list shows them (the window's state orders its list with it).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from core.progress import Progress
from core.store.database import ProjectDatabase
from core.store.repository import get_paragraphs

if TYPE_CHECKING:
    from core.retrieval.pipeline import Hit
    from core.retrieval.settings import RetrievalSettings


PROVISIONAL_RETRY_S = 2.0  # a provisional look-ahead entry is retrieved again at most this often


@dataclass(frozen=True)
class Prefetched:
    """The hits of one feature and how long their retrieval took."""

    feature_id: str
    hits: tuple
    seconds: float
    fetched_at: float = field(default_factory=time.monotonic, compare=False)

    @property
    def provisional(self) -> bool:
        """Ranked without the embedding model (it was still loading): replaced once it is loaded."""
        return any(getattr(h, "provisional", False) for h in self.hits)


@dataclass
class EvidenceCache:
    """Feature id -> retrieved hits, for one project and one set of retrieval settings; thread-safe."""

    settings: RetrievalSettings
    _items: dict[str, Prefetched] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _ready: set[str] = field(default_factory=set)  # provisional entries whose final order can be had now

    def get(self, feature_id: str) -> Prefetched | None:
        with self._lock:
            return self._items.get(feature_id)

    def missing(self, feature_ids: Sequence[str]) -> list[str]:
        """Ids not cached yet, and, once the settings' model is loaded, those cached only provisionally.

        A provisional entry is asked again at most every :data:`PROVISIONAL_RETRY_S` seconds: its
        candidates get their vectors from the book's preparation, and retrieving it again at every key
        would keep Python busy (and the window's UI thread waiting for the GIL) for nothing.
        """
        upgrade = _model_loaded(self.settings)
        now = time.monotonic()
        with self._lock:
            return [f for f in feature_ids
                    if f not in self._items or (self._items[f].provisional and (
                        f in self._ready or (upgrade and now - self._items[f].fetched_at >= PROVISIONAL_RETRY_S)))]

    def mark_ready(self, feature_ids: Sequence[str]) -> list[str]:
        """These features' candidates all have a vector now (the book's preparation said so): their provisional
        entries are named by :meth:`missing` at once, without waiting out the retry interval.  Returns the ids
        cached provisionally."""
        with self._lock:
            stale = [f for f in feature_ids if f in self._items and self._items[f].provisional]
            self._ready.update(stale)
        return stale

    def put(self, item: Prefetched) -> None:
        with self._lock:
            self._items[item.feature_id] = item
            self._ready.discard(item.feature_id)  # asked once: a still provisional answer waits for the interval

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._ready.clear()

    def hits(self, project: ProjectDatabase, feature_id: str) -> Prefetched:
        """The feature's hits: from the cache, else retrieved now (and kept)."""
        found = self.get(feature_id)
        if found is None:
            found = self._retrieve(project, feature_id)
            self.put(found)
        return found

    def prefetch(self, project: ProjectDatabase, feature_ids: Sequence[str], progress: Progress | None = None
                 ) -> list[str]:
        """Retrieve the features not cached yet, nearest first; returns those retrieved now.

        ``project`` must be a connection of the calling thread.  Cancel stops between features
        (raising :class:`~core.errors.Cancelled`); what was retrieved stays cached.  While the
        embedding model is still loading, the hits kept are provisional (BM25 and vocabulary, in
        milliseconds): a coder moving on in the first minute sees evidence at once, and its re-ranked
        order follows as for any provisional evidence; once the model is loaded, :meth:`missing` names
        them again and they are replaced by final ones.
        """
        progress = progress or Progress()
        todo = self.missing(list(dict.fromkeys(feature_ids)))
        done: list[str] = []
        for n, fid in enumerate(todo):
            progress.step(n, len(todo), f"evidence for {fid}")
            found = self._retrieve(project, fid, wait_for_model=False)
            self.put(found)
            done.append(fid)
        progress.step(len(todo), len(todo), "evidence ready")
        return done

    def _retrieve(self, project: ProjectDatabase, feature_id: str, *, wait_for_model: bool = True) -> Prefetched:
        """One feature's hits; without ``wait_for_model`` nothing is waited for nor embedded: while the model
        loads or some candidates still lack a vector the hits are provisional (the book's preparation embeds
        the upcoming features' candidates first, and :meth:`missing` names provisional hits again)."""
        from core.catalog import load_catalog
        from core.retrieval import retrieve

        started = time.perf_counter()
        settings = self.settings
        hits = retrieve(project, load_catalog().get(feature_id), settings, wait_for_model=wait_for_model)
        return Prefetched(feature_id, tuple(hits), time.perf_counter() - started)

    def mean_seconds(self, last: int = 5) -> float | None:
        """Mean time of the last ``last`` retrievals kept (None before any): how fast looking ahead goes."""
        with self._lock:
            times = [item.seconds for item in self._items.values() if item.seconds > 0][-last:]
        return sum(times) / len(times) if times else None


def _model_loaded(settings) -> bool:
    """True when the settings rank without a model, or their model is loaded: retrieving costs no model load."""
    from core.retrieval.dense import model_ready, reranker_installed

    if not settings.reranker or settings.ranking == "bm25":
        return True
    return reranker_installed() and model_ready(settings.reranker, kind=settings.reranker_kind,
                                                device=settings.device)


def pinned_first(hits: Sequence[Hit], pinned: Collection[int]) -> list[Hit]:
    """Evidence as the list shows it: the pinned paragraphs first, then the rest, each part in rank order.

    A pinned paragraph the retrieval never found (rank 0, added by :func:`with_pinned`) leads its part.
    """
    return sorted(hits, key=lambda h: (h.paragraph.id not in pinned, h.rank))


def with_pinned(project: ProjectDatabase, hits: Sequence[Hit], pinned: Collection[int]) -> list[Hit]:
    """``hits`` with every pinned paragraph among them, so the list always shows what the coder pinned.

    A pinned paragraph the retrieval did not find joins as a hit of rank 0 and score 0; a rank-0 hit
    no longer pinned leaves.  Page-only pins have no paragraph and are not listed.
    """
    from core.retrieval.pipeline import Hit  # loaded when first needed, as retrieve() above

    kept = [h for h in hits if h.rank > 0 or h.paragraph.id in pinned]
    listed = {h.paragraph.id for h in kept}
    missing = [pid for pid in pinned if pid not in listed]
    if missing:
        kept += [Hit(rank=0, score=0.0, paragraph=p) for p in get_paragraphs(project, missing)]
    return kept
