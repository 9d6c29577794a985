"""The fitted weights of the combined ranking, shipped as data (``resources/retrieval/fusion_weights.json``).

The weights that combine the vocabulary, BM25, embedding similarity, the section match and the part
of the book are not guessed: ``scripts/fit_fusion.py`` fits them on the judged benchmark
(leave-one-grammar-out, reported in the file's ``logo`` entry) and writes this file.  Retrieval
reads it once; a missing or damaged file falls back to the weights below, which are those the
ranking had before any fitting, so retrieval never fails for want of it.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from core.resources import resources_dir

FILE_NAME = "fusion_weights.json"
# The combination as it was hand-set before fitting (README, Retrieval).
FALLBACK: dict[str, float] = {
    "value_weight": 2.0, "signal_weight": 0.25, "section_weight": 0.0, "dictionary_penalty": 0.0,
    "opening_weight": 0.0, "fragment_penalty": 0.0, "opening_bonus": 0.0,
}


def weights_path() -> Path:
    return resources_dir() / "retrieval" / FILE_NAME


@lru_cache(maxsize=1)
def fitted_weights() -> dict[str, float]:
    """The shipped weights (only the known names, as floats), or :data:`FALLBACK`."""
    try:
        data = json.loads(weights_path().read_text(encoding="utf-8"))
        weights = data["weights"]
        return {name: float(weights.get(name, default)) for name, default in FALLBACK.items()}
    except (OSError, ValueError, KeyError, TypeError):
        return dict(FALLBACK)
