"""The reranker served from a child process gives the same embeddings, and clear errors."""

from __future__ import annotations

import numpy as np
import pytest

from core.retrieval import dense
from core.retrieval.model_process import ModelProcess

pytestmark = pytest.mark.slow

TEXTS = ["Teshi is a verb-final language: the object precedes the verb.", "Polar questions end in ka."]


def test_a_model_process_embeds_like_the_model_in_this_process() -> None:
    served = ModelProcess(dense.resolve_model("all-MiniLM-L6-v2"), "bi", "cpu", loader=dense.load_in_model_process)
    try:
        remote = served.encode(TEXTS, batch_size=2)
        assert served.kind == "bi" and served.device == "cpu" and served.alive
    finally:
        served.close()
    assert not served.alive
    local = dense.load_model("all-MiniLM-L6-v2", device="cpu").encode(TEXTS)
    assert remote.shape == local.shape == (2, 384)
    assert np.allclose(remote, local, atol=1e-5)


def test_process_mode_serves_load_model_and_reports_a_missing_model(tmp_path) -> None:
    dense.use_model_process(True)
    try:
        served = dense.load_model("all-MiniLM-L6-v2", device="cpu")
        assert isinstance(served, ModelProcess)
        assert dense.load_model("all-MiniLM-L6-v2", device="cpu") is served  # one child per model
        with pytest.raises(dense.ModelError) as info:
            dense.load_model(str(tmp_path / "no-such-model"), device="cpu")
        assert "no-such-model" in info.value.message
    finally:
        dense.use_model_process(False)
        served.close()
