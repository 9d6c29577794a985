"""One slice of a book's embedding that serves the coding pass: the upcoming features' candidates first.

Why here and not in the window: which paragraphs go first, which features are then ready to be re-ranked
without asking the model anything, and the per-feature candidate lists kept between slices are retrieval
decisions; the window only runs a slice in a worker and reads the answer (gui/project/book_preparation.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from core.catalog import load_catalog
from core.progress import Progress
from core.retrieval import dense
from core.retrieval.book_embeddings import EmbedRun, embed_book, pending_paragraphs
from core.retrieval.pipeline import candidate_ids, project_index
from core.retrieval.ranking import remember_queries
from core.retrieval.schedule import on_time
from core.retrieval.settings import RetrievalSettings
from core.store import ProjectDatabase


@dataclass(frozen=True)
class Slice:
    """What one slice of a book's embedding did, and which of the upcoming features can now be re-ranked."""

    run: EmbedRun
    ready: tuple[str, ...]  # upcoming features whose candidates all have a vector (their re-ranking embeds nothing)


def embed_upcoming_first(project: ProjectDatabase, retrieval: RetrievalSettings, progress: Progress,
                         max_seconds: float, upcoming: Sequence[str] = (),
                         seconds_left: Mapping[str, float] | None = None, rate: float | None = None) -> Slice:
    """Embed for about ``max_seconds``: the ``upcoming`` features' candidates (nearest first), then the book.

    Feature after feature, and their query vectors are computed too: a re-ranking of a feature found
    ready then asks the model nothing (in the app, a request waits for the batch in flight).  With
    ``seconds_left`` (how long the coder will stay on each) and ``rate`` (paragraphs a second), a feature
    that would be left before its candidates are done is passed over (:func:`core.retrieval.schedule.on_time`).
    """
    wanted = _candidates_of(project, retrieval, tuple(upcoming)) if upcoming else {}
    catalog = load_catalog()
    remember_queries([catalog.get(f) for f in wanted], retrieval)
    paragraphs = project_index(project).paragraphs
    pending = {pid for pid, _, _ in pending_paragraphs(project, dense.model_key(retrieval.reranker or ""),
                                                       paragraphs)} if wanted else set()
    chosen = on_time(wanted, pending, seconds_left or {}, rate) if seconds_left and rate else list(wanted)
    groups, asked = [], set()
    for feature in chosen:  # each feature's candidates not already asked for a nearer one
        groups.append([i for i in wanted[feature] if i not in asked])
        asked.update(wanted[feature])
    run = embed_book(project, retrieval, progress, max_seconds=max_seconds, first=groups)
    done = asked - run.first_pending
    return Slice(run, tuple(f for f, ids in wanted.items() if all(i in done or i not in pending for i in ids)))


_PRIORITY: dict[tuple, list[int]] = {}  # (project, index stamp, settings, feature) -> candidate ids
_PRIORITY_KEPT = 64  # a pass names about nine features at a time; each key adds one


def _candidates_of(project: ProjectDatabase, retrieval: RetrievalSettings,
                   upcoming: tuple[str, ...]) -> dict[str, list[int]]:
    """Candidate paragraph ids of each upcoming feature, nearest first.

    Kept per feature (10-20 ms each): each key of a pass adds one feature to the nine upcoming ones, and
    computing all nine again held the slice's worker (and the model, idle meanwhile) 0.15 s a slice.
    """
    state = (str(project.path), project_index(project).stamp, retrieval.to_json())
    catalog = load_catalog()
    out: dict[str, list[int]] = {}
    for feature in upcoming:
        if feature not in catalog:
            continue
        key = (*state, feature)
        if key not in _PRIORITY:
            if len(_PRIORITY) >= _PRIORITY_KEPT:
                _PRIORITY.clear()
            _PRIORITY[key] = candidate_ids(project, [catalog.get(feature)], retrieval)
        out[feature] = _PRIORITY[key]
    return out
