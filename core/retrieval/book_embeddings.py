"""Embedding a whole book once, in large batches, before features ask for its paragraphs.

Why: retrieval embeds the candidates a feature needs and caches them (core.retrieval.cache), but
~150 candidates at a time means small batches, a first feature that waits for the model, and a
195-feature profile that spends most of its time embedding (3,477 paragraphs of the 770-page Papuan
Malay grammar in 3 minutes on two cores).  This module embeds every paragraph without a vector of
the model, longest first, in batches of about :data:`TOKEN_BUDGET` padded tokens (one forward pass
each: little padding, bounded memory), and stores each batch in a transaction of its own:

* a kill loses at most the batch in flight, and the next run embeds only what is still missing
  (a vector is stored with the hash of its text, so an edited paragraph counts as missing);
* each write holds the project's write lock for milliseconds, so the app's and the CLI's own writes
  go on meanwhile;
* between batches ``progress.step`` lets the caller cancel, and ``max_seconds`` ends a call after a
  time slice (the app runs the work as short jobs, so its two worker threads stay free for the person).
"""

from __future__ import annotations

import contextlib
import ctypes
import sys
import time
from dataclasses import dataclass
from typing import Any, Collection, Iterator, Sequence

from core.progress import Progress
from core.retrieval.cache import embedding_text, text_hash
from core.retrieval.dense import load_model, model_key, model_kind
from core.retrieval.settings import RetrievalSettings
from core.store.database import ProjectDatabase
from core.store.embeddings import embedded_hashes, put_embeddings

TOKEN_BUDGET = 8192  # padded tokens per forward pass: 32 paragraphs of 256 word pieces, 128 of 64
# ... and for the candidates of a feature the coder meets next: a re-ranking or the next feature waits at
# most one batch in flight (8,192 word pieces took 0.8 s quiet, 2-3 s on two busy cores; 2,048 a quarter of
# that, at the same speed per word piece: measured 4-8k word pieces/s for both on busy cores)
WANTED_BUDGET = 2048
MAX_TOKENS = 256  # what MiniLM reads of a paragraph (its max_seq_length): a longer one costs no more
CHARS_PER_TOKEN = 3.0  # grammar prose with examples: ~94 word pieces for ~270 characters


@dataclass(frozen=True)
class BookEmbeddings:
    """How far the embedding of a project's paragraphs with one model has come."""

    model: str
    embedded: int  # paragraphs with a vector of their current text
    total: int

    @property
    def complete(self) -> bool:
        return self.embedded >= self.total


@dataclass(frozen=True)
class EmbedRun:
    """What one call of :func:`embed_book` did."""

    model: str
    embedded: int  # paragraphs embedded by this call
    remaining: int  # paragraphs still without a vector (0: the book is done)
    total: int
    seconds: float
    batches: int
    first_pending: frozenset[int] = frozenset()  # ids asked for ``first`` still without a vector after this call

    @property
    def complete(self) -> bool:
        return self.remaining == 0


def estimated_tokens(text: str) -> int:
    """Word pieces the model will read of ``text`` (an estimate from its length; no tokenizer needed)."""
    return min(MAX_TOKENS, int(len(text) / CHARS_PER_TOKEN) + 2)


def plan_batches(texts: Sequence[str], budget: int = TOKEN_BUDGET,
                 lengths: Sequence[int] | None = None) -> list[list[int]]:
    """Indices of ``texts`` in batches, longest first, each at most ``budget`` padded tokens.

    A batch is padded to its longest text, which is its first one; texts of similar length share
    a batch, so short paragraphs go many to a pass and long ones few.  ``lengths`` are the model's
    own word-piece counts (:func:`token_lengths`); without them the lengths are estimated from the
    characters, which padded the 770-page grammar's batches by 42 % (exact: 2 %).
    """
    sizes = list(lengths) if lengths is not None else [estimated_tokens(t) for t in texts]
    order = sorted(range(len(texts)), key=lambda i: (-sizes[i], -len(texts[i]), i))
    batches: list[list[int]] = []
    current: list[int] = []
    longest = 0
    for i in order:
        if current and (len(current) + 1) * longest > budget:
            batches.append(current)
            current = []
        if not current:
            longest = sizes[i]
        current.append(i)
    if current:
        batches.append(current)
    return batches


_LENGTHS: dict[tuple[str, str], int] = {}  # (model, text hash) -> word pieces: a book's are counted once a process
_LENGTHS_KEPT = 200_000
COUNT_CHUNK = 1000  # texts counted per request to the model


def token_lengths(model: Any, key: str, items: Sequence[tuple[int, str, str]]) -> list[int] | None:
    """The model's word-piece count of each (id, text, hash), counted once per process; None when it cannot count.

    Counting asks the model (in its child process, in the app) to tokenise the texts: 0.3-0.5 s for a
    770-page book, repaid many times by batches without padding.
    """
    missing = [(text, digest) for _, text, digest in items if (key, digest) not in _LENGTHS]
    if missing:
        count = getattr(model, "token_lengths", None)
        if count is None:
            return None
        if len(_LENGTHS) + len(missing) > _LENGTHS_KEPT:
            _LENGTHS.clear()
        for start in range(0, len(missing), COUNT_CHUNK):  # a re-ranking's request may come between two
            chunk = missing[start:start + COUNT_CHUNK]
            for (_, digest), n in zip(chunk, count([text for text, _ in chunk]), strict=True):
                _LENGTHS[(key, digest)] = int(n)
    return [_LENGTHS[(key, digest)] for _, _, digest in items]


def _key(settings: RetrievalSettings) -> str:
    if not settings.reranker:
        raise ValueError("no embedding model in these settings")
    return model_key(settings.reranker)


def needs_book_embeddings(settings: RetrievalSettings) -> bool:
    """True when retrieval with ``settings`` uses stored paragraph vectors (a bi-encoder re-ranks)."""
    return settings.reranker is not None and settings.reranker != "" and settings.ranking != "bm25" \
        and model_kind(settings.reranker, settings.reranker_kind) == "bi"


_DIGESTS: dict[tuple[int, str, str], tuple[str, str]] = {}  # (id, section, text) -> (embedding text, its hash)


def pending_paragraphs(project: ProjectDatabase, model: str, paragraphs: Sequence[Any]
                       ) -> list[tuple[int, str, str]]:
    """(id, text, text hash) of the paragraphs without a vector of ``model`` for their current text.

    The app asks this before every slice of a book's embedding (100-150 times a book): the hashes of
    the paragraphs' texts are computed once a process (hashing 6,733 paragraphs took 30-130 ms a slice).
    """
    stored = embedded_hashes(project, model)
    if len(_DIGESTS) > _LENGTHS_KEPT:
        _DIGESTS.clear()
    out = []
    for p in paragraphs:
        known = _DIGESTS.get((p.id, p.section, p.text))
        if known is None:
            text = embedding_text(p)
            known = _DIGESTS[(p.id, p.section, p.text)] = (text, text_hash(text))
        if stored.get(p.id) != known[1]:
            out.append((p.id, *known))
    return out


def book_status(project: ProjectDatabase, settings: RetrievalSettings) -> BookEmbeddings:
    """How many of the project's paragraphs have a vector of the settings' model."""
    from core.retrieval.pipeline import project_index

    key = _key(settings)
    paragraphs = project_index(project).paragraphs
    missing = len(pending_paragraphs(project, key, paragraphs))
    return BookEmbeddings(key, len(paragraphs) - missing, len(paragraphs))


def _planned(model: Any, key: str, todo: Sequence[tuple[int, str, str]], groups: Sequence[Collection[int]],
             budget: int, wanted_budget: int) -> Iterator[tuple[list[int], bool]]:
    """Batches (indices of ``todo``) of each group of wanted paragraphs in turn, then of the rest, on exact lengths.

    Each batch comes with True when it ends a wanted group.  Groups go in their order (the feature on
    screen, then the next one...) and never share a batch, so the nearest feature's candidates are done
    first instead of being spread over the batches of all upcoming features (which are longest first).
    The rest are counted only when the wanted ones are done, so a first slice that embeds a feature's
    candidates does not wait for the whole book to be tokenised.
    """
    position = {pid: i for i, (pid, _, _) in enumerate(todo)}
    taken: set[int] = set()
    parts: list[tuple[list[int], bool]] = []
    for group in groups:
        part = [position[pid] for pid in group if pid in position and position[pid] not in taken]
        taken.update(part)
        parts.append((part, True))
    parts.append(([i for i in range(len(todo)) if i not in taken], False))
    for part, wanted in parts:
        if not part:
            continue
        lengths = token_lengths(model, key, [todo[i] for i in part])
        batches = plan_batches([todo[i][1] for i in part], wanted_budget if wanted else budget, lengths)
        for n, batch in enumerate(batches):
            yield [part[j] for j in batch], wanted and n == len(batches) - 1


def embed_book(project: ProjectDatabase, settings: RetrievalSettings, progress: Progress | None = None, *,
               max_seconds: float | None = None, token_budget: int = TOKEN_BUDGET, model: Any = None,
               first: Collection[int] | Sequence[Collection[int]] = (), wanted_budget: int = WANTED_BUDGET) -> EmbedRun:
    """Embed the project's paragraphs that have no vector of the settings' model yet (see the module).

    ``first`` holds paragraph ids to embed before all others (:func:`candidate_ids` of the features
    the coder meets next), or groups of ids embedded group after group (each feature's candidates,
    nearest feature first); with ``max_seconds`` the call also ends when a group is done, so the caller
    learns at once that a feature can be re-ranked (``EmbedRun.first_pending``).  Their batches hold at most
    ``wanted_budget`` word pieces (see :data:`WANTED_BUDGET`).

    ``project`` must be a connection of the calling thread.  ``max_seconds`` stops after the batch
    that passes that much time (at least one batch runs); ``model`` is a loaded model to use instead
    of loading the settings' one.  Cancelling (``progress``) raises :class:`~core.errors.Cancelled`
    between batches; the batches stored stay.
    """
    from core.retrieval.pipeline import project_index

    progress = progress or Progress()
    started = time.perf_counter()
    paragraphs = project_index(project).paragraphs
    total = len(paragraphs)
    if not needs_book_embeddings(settings):  # no model, or a cross-encoder: no paragraph vectors to store
        return EmbedRun(settings.reranker or "", 0, 0, total, time.perf_counter() - started, 0)
    model_name = settings.reranker or ""  # never empty here: needs_book_embeddings asked for a model
    key = _key(settings)
    todo = pending_paragraphs(project, key, paragraphs)
    if todo and project.readonly:
        from core.store.database import read_only_error

        raise read_only_error(project.path)  # said before the model is loaded, not after the first batch
    if not todo:
        progress.step(total, total, "paragraphs embedded")
        return EmbedRun(key, 0, 0, total, time.perf_counter() - started, 0)
    if model is None:
        model = load_model(model_name, kind=settings.reranker_kind, device=settings.device)
    before = total - len(todo)
    done = batches = 0
    groups = _groups(first)
    asked = {pid for group in groups for pid in group}
    pending = {pid for pid, _, _ in todo if pid in asked}
    planned = _planned(model, key, todo, groups, token_budget, min(token_budget, wanted_budget))
    group_done = False
    while True:
        progress.step(before + done, total, "embedding paragraphs")
        if batches and max_seconds is not None and (group_done or time.perf_counter() - started >= max_seconds):
            break  # before planning more: counting the rest of the book is the next slice's work
        step = next(planned, None)
        if step is None:
            break
        batch, group_done = step
        vectors = model.encode([todo[i][1] for i in batch], batch_size=len(batch))
        put_embeddings(project, key, [(todo[i][0], todo[i][2], vec) for i, vec in zip(batch, vectors, strict=True)])
        pending.difference_update(todo[i][0] for i in batch)
        done += len(batch)
        batches += 1
    progress.step(before + done, total, "embedding paragraphs")
    if batches:
        release_freed_memory()
    return EmbedRun(key, done, len(todo) - done, total, time.perf_counter() - started, batches, frozenset(pending))


def _groups(first: Collection[int] | Sequence[Collection[int]]) -> list[Collection[int]]:
    """``first`` as groups: a flat collection of ids is one group."""
    items: list[object] = list(first)
    ids = [item for item in items if isinstance(item, int)]
    if ids:
        return [ids]
    return [group for group in items if isinstance(group, Collection)]


def release_freed_memory() -> None:
    """Give the heap that the batches' tensors freed back to the system.

    glibc keeps freed memory for reuse: after a 770-page book the process stayed 160 MB larger than
    it needed to be for the retrievals that follow (a profile's features), and a profile's peak went
    over 1 GB.  ``malloc_trim`` exists only in glibc; elsewhere nothing happens.
    """
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):  # musl and other C libraries have no malloc_trim
        ctypes.CDLL(None).malloc_trim(0)
