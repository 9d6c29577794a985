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
import multiprocessing
import threading
from multiprocessing.connection import Connection
from typing import Any, Sequence

import numpy as np

from core.errors import GrammarLensError

LOAD_TIMEOUT_S = 600.0  # first load may include a model download when online
CALL_TIMEOUT_S = 600.0

_LIVE: list["ModelProcess"] = []


class ModelProcess:
    """A model served by a child process; same interface as ``LoadedModel``."""

    def __init__(self, name: str, kind: str, device: str) -> None:
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self._lock = threading.Lock()
        self._process = context.Process(
            target=serve, args=(child, name, kind, device), daemon=True, name="grammarlens-model"
        )
        self._process.start()
        child.close()
        self.name = name
        status, *rest = self._receive(LOAD_TIMEOUT_S)
        if status != "ready":
            self.close()
            raise _model_error(rest)
        self.kind, self.device = rest
        _LIVE.append(self)

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        return self._call("encode", list(texts), batch_size)

    def cross_scores(self, query: str, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        return self._call("cross_scores", query, list(texts), batch_size)

    @property
    def alive(self) -> bool:
        return self._process.is_alive()

    def close(self) -> None:
        """Stop the child (politely, then firmly)."""
        try:
            self._conn.send(("quit",))
        except (OSError, ValueError):
            pass
        self._process.join(timeout=5)
        if self._process.is_alive():
            self._process.kill()
            self._process.join(timeout=5)
        self._conn.close()
        if self in _LIVE:
            _LIVE.remove(self)

    def _call(self, method: str, *args: Any) -> Any:
        with self._lock:  # one request at a time on the pipe
            try:
                self._conn.send((method, *args))
            except (OSError, ValueError) as exc:
                raise _model_error(("The reranker process has stopped.", "Retry; GrammarLens starts a new one.")) from exc
            status, *rest = self._receive(CALL_TIMEOUT_S)
        if status != "ok":
            raise _model_error(rest)
        return rest[0]

    def _receive(self, timeout: float) -> tuple:
        try:
            if not self._conn.poll(timeout):
                return ("error", f"The reranker did not answer within {timeout:.0f} s.", "")
            return self._conn.recv()
        except (EOFError, OSError):
            return ("error", "The reranker process stopped unexpectedly.",
                    "It may have run out of memory; try a smaller model or --rerank none.")


def serve(conn: Connection, name: str, kind: str, device: str) -> None:
    """The child's loop: load the model once, then answer requests until told to quit."""
    from core.retrieval.dense import load_model, use_model_process  # torch is imported here, never in the parent

    use_model_process(False)  # whatever the parent's main module switched on: this process holds the model
    try:
        model = load_model(name, kind=kind, device=device)
    except GrammarLensError as exc:
        conn.send(("error", exc.message, exc.hint))
        return
    except Exception as exc:  # noqa: BLE001 - any load failure must reach the parent as a message
        conn.send(("error", f"Cannot load the reranker model '{name}': {exc}", ""))
        return
    conn.send(("ready", model.kind, model.device))
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        if request[0] == "quit":
            return
        try:
            conn.send(("ok", getattr(model, request[0])(*request[1:])))
        except Exception as exc:  # noqa: BLE001
            conn.send(("error", f"The reranker failed: {exc}", ""))


def _model_error(rest: Sequence) -> GrammarLensError:
    from core.retrieval.dense import ModelError

    message = rest[0] if rest else "The reranker failed."
    hint = rest[1] if len(rest) > 1 else ""
    return ModelError(message, hint)


@atexit.register
def _stop_all() -> None:
    for process in list(_LIVE):
        process.close()
