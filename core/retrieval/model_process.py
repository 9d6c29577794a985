"""The embedding model in a child process, so that loading torch never stalls a window.

Importing torch and sentence-transformers holds Python's global interpreter lock for seconds
at a time; done in a GUI's worker thread it still freezes the window.  A :class:`ModelProcess`
loads the model in a ``spawn``-ed child instead and answers ``encode``/``cross_scores`` over a
pipe, while the calling thread waits without holding the lock.  It mirrors
:class:`core.retrieval.dense.LoadedModel`, so retrieval code does not know which one it got.

The desktop app switches this on (``dense.use_model_process(True)``); the CLI and tests load
models in-process, where there is no window to keep alive.
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import threading
import time
from multiprocessing.connection import Connection
from typing import Any, Callable, Sequence

import numpy as np

from core.errors import GrammarLensError

# How the child loads its model: (name, kind, device) -> an object with encode/cross_scores, kind, device.
# A module-level function of the caller (core.retrieval.dense), handed in so that this module never
# imports the one that imports it; ``spawn`` pickles it by name.
ModelLoader = Callable[[str, str, str], Any]

LOAD_TIMEOUT_S = 600.0  # first load may include a model download when online
CALL_TIMEOUT_S = 600.0
POLL_S = 0.2  # a thread waiting on the child looks this often whether the child was stopped meanwhile

_LIVE: list[ModelProcess] = []
_LIVE_LOCK = threading.Lock()
_REFUSING = False  # set by stop_all(refuse_new=True): no child starts while the app quits


class ModelError(GrammarLensError):
    """The reranker model cannot be found or loaded."""


class ModelProcess:
    """A model served by a child process; same interface as ``LoadedModel``.

    With ``wait=False`` the constructor only starts the child: :attr:`ready` says (without waiting)
    whether the model has loaded, and the first call waits for it.  That is how the app loads the
    model while it starts, without holding a worker thread for the seconds a load takes.
    """

    def __init__(self, name: str, kind: str, device: str, *, loader: ModelLoader, wait: bool = True) -> None:
        context = multiprocessing.get_context("spawn")
        self.name, self.kind, self.device = name, kind, device
        self._lock = threading.RLock()  # one request at a time on the pipe; re-entered by a failed load's close
        self._closed = False  # set first by close(): a thread waiting on the pipe stops within POLL_S
        self._ready = False
        self._failure: tuple | None = None  # (message, hint) when the model did not load
        with _LIVE_LOCK:  # started and listed in one step: a stop_all running meanwhile never misses a child
            if _REFUSING:
                raise ModelError("The reranker was not started: GrammarLens is quitting.",
                                 "Nothing to do; the next start of the app loads it again.")
            self._conn, child = context.Pipe()
            self._process = context.Process(
                target=serve, args=(child, loader, name, kind, device), daemon=True, name="grammarlens-model"
            )
            self._process.start()
            child.close()
            _LIVE.append(self)
        if wait:
            self.wait_ready()

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        return self._call("encode", list(texts), batch_size)

    def token_lengths(self, texts: Sequence[str]) -> list[int]:
        return self._call("token_lengths", list(texts))

    def cross_scores(self, query: str, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        return self._call("cross_scores", query, list(texts), batch_size)

    @property
    def alive(self) -> bool:
        return self._failure is None and self._process.is_alive()

    @property
    def ready(self) -> bool:
        """True once the model has loaded; never waits (false while another thread talks to the child)."""
        if self._ready:
            return True
        if not self._lock.acquire(blocking=False):
            return False
        try:
            return self._await_ready(0.0)
        finally:
            self._lock.release()

    def wait_ready(self, timeout: float = LOAD_TIMEOUT_S) -> None:
        """Wait until the model has loaded; raise its ModelError when it could not."""
        with self._lock:
            self._await_ready(timeout)
        if self._failure is not None:
            raise _model_error(self._failure)

    def _await_ready(self, timeout: float) -> bool:
        """With the lock held: read the child's first message if it has come within ``timeout``."""
        if self._ready or self._failure is not None:
            return self._ready
        if timeout <= 0:
            try:
                if not self._conn.poll(0):
                    return False
            except (OSError, EOFError):
                pass  # _receive says what happened
        status, *rest = self._receive(timeout)
        if status == "ready":
            self.kind, self.device = rest
            self._ready = True
        else:
            self._failure = tuple(rest)
            self.close()
        return self._ready

    def close(self, now: bool = False) -> None:
        """Stop the child (politely, then firmly); ``now`` kills it at once.

        A child still importing torch reads no "quit" before its import ends (seconds), so a polite
        stop of a loading child costs the whole 5 s wait: the window quitting stops them ``now``.
        The polite "quit" is sent only while no other thread is writing a request on the pipe (two
        writers would interleave their bytes); a thread waiting for an answer ends within
        :data:`POLL_S` with "stopped".
        """
        self._closed = True
        if not now and self._lock.acquire(timeout=POLL_S):
            try:
                with contextlib.suppress(OSError, ValueError):  # the child or the pipe is gone already
                    self._conn.send(("quit",))
            finally:
                self._lock.release()
        self._process.join(timeout=0 if now else 5)
        if self._process.is_alive():
            self._process.kill()
            self._process.join(timeout=5)
        with _LIVE_LOCK, contextlib.suppress(OSError):  # a waiting thread that saw the child end closes it too
            self._conn.close()
        with _LIVE_LOCK:
            if self in _LIVE:
                _LIVE.remove(self)

    def _call(self, method: str, *args: Any) -> Any:
        self.wait_ready()
        with self._lock:  # one request at a time on the pipe
            try:
                self._conn.send((method, *args))
            except (OSError, ValueError) as exc:
                stopped = ("The reranker process has stopped.", "Retry; GrammarLens starts a new one.")
                raise _model_error(stopped) from exc
            status, *rest = self._receive(CALL_TIMEOUT_S)
        if status != "ok":
            raise _model_error(rest)
        return rest[0]

    def _receive(self, timeout: float) -> tuple:
        """The child's next message, waited for in slices of :data:`POLL_S` so that a close ends the wait."""
        deadline = time.monotonic() + timeout
        try:
            while not self._conn.poll(max(0.0, min(POLL_S, deadline - time.monotonic()))):
                if self._closed:
                    return ("error", "The reranker process was stopped.", "Retry; GrammarLens starts a new one.")
                if time.monotonic() >= deadline:
                    return ("error", f"The reranker did not answer within {timeout:.0f} s.", "")
            return self._conn.recv()
        except (EOFError, OSError):
            return ("error", "The reranker process stopped unexpectedly.",
                    "It may have run out of memory; try a smaller model or --rerank none.")


def serve(conn: Connection, loader: ModelLoader, name: str, kind: str, device: str) -> None:
    """The child's loop: load the model once (torch is imported here, never in the parent), then answer."""
    try:
        model = loader(name, kind, device)
    except GrammarLensError as exc:
        conn.send(("error", exc.message, exc.hint))
        return
    except Exception as exc:
        conn.send(("error", f"Cannot load the reranker model '{name}': {exc}", ""))
        return
    conn.send(("ready", model.kind, model.device))
    warm_up = getattr(model, "warm_up", None)
    if warm_up is not None:  # while the parent prepares its first request, which would otherwise pay for this
        with contextlib.suppress(Exception):
            warm_up()
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        if request[0] == "quit":
            return
        try:
            conn.send(("ok", getattr(model, request[0])(*request[1:])))
        except Exception as exc:
            conn.send(("error", f"The reranker failed: {exc}", ""))


def _model_error(rest: Sequence) -> GrammarLensError:
    message = rest[0] if rest else "The reranker failed."
    hint = rest[1] if len(rest) > 1 else ""
    return ModelError(message, hint)


def stop_all(now: bool = False, *, refuse_new: bool = False) -> None:
    """Stop every model child (``now``: killed at once, see :meth:`ModelProcess.close`); a thread waiting on one
    gets "the reranker process stopped" within :data:`POLL_S` instead of waiting for its load.

    ``refuse_new`` (the window quitting): from now on no child starts, until :func:`allow_new`; without
    it, a worker between its "is the model loading?" and its load would start a fresh child after the
    stop, which nobody stops and which outlives the window.
    """
    global _REFUSING
    with _LIVE_LOCK:
        _REFUSING = _REFUSING or refuse_new
        processes = list(_LIVE)
    for process in processes:
        process.close(now)


def allow_new() -> None:
    """Let model children start again (a new window, or the app switching process mode on)."""
    global _REFUSING
    with _LIVE_LOCK:
        _REFUSING = False


def live_count() -> int:
    """How many model children run now (the quit tests and the bench look)."""
    with _LIVE_LOCK:
        return len(_LIVE)


atexit.register(stop_all)
