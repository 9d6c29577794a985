"""The jobs the GUI runs in workers, each a plain function over core.

Why a module of its own: widgets should not know how core's pieces fit together, and these
functions are what the workers run, so each opens its own project connection (SQLite
connections never cross threads) and takes a :class:`core.progress.Progress`.  Nothing here
imports Qt widgets.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, NamedTuple, Sequence

from core.errors import GrammarLensError
from core.progress import Progress
from core.store import create_project, open_project
from gui.common.settings import AppSettings, get_api_key

if TYPE_CHECKING:  # imported when a job runs: the window starts without loading the model side
    from core.catalog.model import Feature
    from core.records.classifications import Classification

CLASSIFY_CONFIG = "rag"  # the paper's retrieval-augmented configuration


def llm_client(settings: AppSettings) -> Any:
    """A client for the configured model, handed the key directly.

    The key (from this session, the keyring or the environment, see :func:`gui.common.settings.get_api_key`)
    goes to the client object and nowhere else: never into ``os.environ``, where the reranker's
    child process and anything else started later would inherit it.
    """
    from core.llm import LlmClient

    return LlmClient(settings.client_settings(), api_key=get_api_key(settings) or None)


def load_catalog(progress: Progress) -> Any:
    """The feature catalog; also warms the LLM client's imports while the app starts.

    openai, httpx and pydantic take ~0.7 s to import, partly in C code that holds the GIL; paid
    here, at start-up, they cannot stall the window in the middle of the first classification.
    Then the start-up heap is frozen out of the garbage collector's full passes (gui/common/startup_heap.py).
    """
    import core.llm.classification  # noqa: F401  (warm-up import, see docstring)
    from core.catalog import load_catalog as _load
    from gui.common.startup_heap import freeze_startup_heap

    catalog = _load()
    freeze_startup_heap()
    return catalog


def ingest(project_path: Path, pdf_path: Path, progress: Progress, language: str | None = None, *,
           new_project: bool = False, created: list[Path] | None = None, ocr: Any = None,
           reports: list[Any] | None = None) -> Any:
    """Read a grammar PDF into a project; returns what it did (:class:`core.ingest.IngestResult`: the document's
    id, and the act's change record).

    With ``new_project`` the project file is created here (``O_EXCL``: never one that exists) and noted
    in ``created``; if reading fails or is cancelled, that file and its ``-wal``/``-shm`` are removed
    again, so a failed first ingest leaves no empty project behind, unless OCR had read pages into it:
    those are kept (and the file taken off ``created``), and reading the PDF again continues from them.
    A file this job did not create is never removed.  ``ocr`` holds the OCR options
    (:class:`core.ingest.page_reading.OcrOptions`); what OCR did is appended to ``reports``.
    """
    from core.ingest import ingest as _ingest
    from core.store.ocr_pages import count_ocr_pages

    def run(project: Any) -> Any:
        result = _ingest(project, pdf_path, language=language, progress=progress, ocr=ocr)
        if reports is not None and result.ocr is not None:
            reports.append(result.ocr)
        return result

    if not new_project:
        with open_project(project_path, create=True) as project:
            return run(project)
    project = create_project(project_path)
    if created is not None:
        created.append(project_path)
    try:
        with project:
            return run(project)
    except BaseException:
        try:
            with open_project(project_path, readonly=True, backup=False) as reopened:
                kept = count_ocr_pages(reopened)
        except (GrammarLensError, sqlite3.Error):  # the file never became a project: nothing to keep
            kept = 0
        if not kept:
            remove_project_files(project_path)
        elif created is not None:
            created.remove(project_path)  # it holds pages read: no longer a file to clean away
        raise


def remove_project_files(path: Path) -> None:
    """Delete a project file this process made and has closed, with the files SQLite keeps beside it."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def retrieve(project_path: Path, feature: Any, settings: AppSettings, progress: Progress, *,
             wait_for_model: bool = True) -> list[Any]:
    """The feature's evidence; with ``wait_for_model=False`` BM25 and vocabulary only (hits marked
    ``provisional``) whenever re-ranking would have to wait for the model or for embeddings."""
    from core.retrieval import retrieve as _retrieve

    with open_project(project_path) as project:
        return list(_retrieve(project, feature, settings.retrieval, progress=progress, wait_for_model=wait_for_model))


def model_process_mode() -> bool:
    """True when models run in a child process (the app), so loading one holds no thread of ours."""
    from core.retrieval.dense import model_process_enabled

    return model_process_enabled()


def allow_models() -> None:
    """A new window: embedding-model children may start again after an earlier window quit."""
    from core.retrieval.dense import allow_model_processes

    allow_model_processes()


def start_model(retrieval: Any) -> None:
    """Begin loading the retrieval settings' embedding model (returns at once in process mode)."""
    from core.retrieval.dense import start_model as _start

    if retrieval.reranker and retrieval.ranking != "bm25":
        _start(retrieval.reranker, kind=retrieval.reranker_kind, device=retrieval.device)


def model_ready(retrieval: Any) -> bool:
    """True when the retrieval settings' embedding model is loaded (here or in its child); never waits or loads."""
    from core.retrieval.dense import model_ready as _ready

    return bool(retrieval.reranker) and retrieval.ranking != "bm25" and _ready(
        retrieval.reranker, kind=retrieval.reranker_kind, device=retrieval.device)


def model_loading(retrieval: Any) -> bool:
    """True while the retrieval settings' embedding model is loading in its child process (never waits)."""
    from core.retrieval.dense import model_loading as _loading

    return bool(retrieval.reranker) and retrieval.ranking != "bm25" and _loading(
        retrieval.reranker, kind=retrieval.reranker_kind, device=retrieval.device)


def prepare_project(project_path: Path, retrieval: Any, progress: Progress) -> None:
    """What a first retrieval needs: the project's indexes in memory, and its embedding model on its way."""
    from core.retrieval.pipeline import prepare_indexes

    if model_process_mode():
        start_model(retrieval)  # the child loads while the indexes are built here
    with open_project(project_path, backup=False) as project:  # the window's opening took the backup
        prepare_indexes(project, progress)
    if not model_process_mode():
        start_model(retrieval)  # in this process (tests): loads now, in this worker


def embed_slice(project_path: Path, retrieval: Any, progress: Progress, max_seconds: float,
                upcoming: Sequence[str] = (), seconds_left: Mapping[str, float] | None = None,
                rate: float | None = None) -> Any:
    """Embed the project's paragraphs for about ``max_seconds``, the ``upcoming`` features' candidates first.

    Returns a :class:`core.retrieval.upcoming.Slice` (what was embedded, which upcoming features are
    ready), or None while the model is still loading in its child process (asked again later; this job
    never waits for it).
    """
    from core.retrieval import dense
    from core.retrieval.book_embeddings import EmbedRun, needs_book_embeddings
    from core.retrieval.upcoming import Slice, embed_upcoming_first

    if not needs_book_embeddings(retrieval):
        return Slice(EmbedRun(retrieval.reranker or "", 0, 0, 0, 0.0, 0), tuple(upcoming))
    if dense.model_loading(retrieval.reranker, kind=retrieval.reranker_kind, device=retrieval.device):
        return None
    with open_project(project_path, backup=False) as project:
        return embed_upcoming_first(project, retrieval, progress, max_seconds, upcoming, seconds_left, rate)


def classify(project_path: Path, feature: Feature, settings: AppSettings, progress: Progress) -> Classification:
    from core.llm import classify as _classify

    with open_project(project_path) as project:
        return _classify(
            project,
            feature,
            config=CLASSIFY_CONFIG,
            llm_settings=settings.client_settings(),
            retrieval_settings=settings.retrieval,
            progress=progress,
            client=llm_client(settings),
        )


def test_connection(settings: AppSettings) -> str:
    from core.llm import test_connection as _test

    # One quick try: the person is waiting for an answer, not for a retry schedule.
    quick = dataclasses.replace(settings.client_settings(), max_retries=0, timeout_s=min(settings.llm.timeout_s, 15.0))
    result = _test(quick, api_key=get_api_key(settings) or None)
    return str(result) if result else "Connected."


class PdfMatch(NamedTuple):
    """One place a searched text occurs in a PDF: its 1-based page and its rectangle in PDF points."""

    page: int
    rect: tuple[float, float, float, float]


def search_pdf(pdf_path: Path, text: str, progress: Progress) -> list[PdfMatch]:
    """Every place ``text`` occurs in the PDF; a job of its own MuPDF document."""
    from core.ingest.pdf_open import open_pdf  # the guarded open: never MuPDF on an open project file

    hits: list[PdfMatch] = []
    with open_pdf(pdf_path) as doc:
        total = doc.page_count
        for number in range(total):
            for rect in doc[number].search_for(text):
                hits.append(PdfMatch(number + 1, (rect.x0, rect.y0, rect.x1, rect.y1)))
            if number % 10 == 0:
                progress.step(number, total, f"page {number + 1}")
    return hits
