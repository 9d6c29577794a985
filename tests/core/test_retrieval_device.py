"""A device torch refuses is the user's to fix (exit 2, the device named), not a bug (issue 19)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli import main
from core.ingest import ingest
from core.retrieval import dense
from core.store import create_project
from tests.fixtures_ingest import SampleBook

pytestmark = pytest.mark.slow  # imports torch and sentence-transformers (~10 s)


def _absent_cuda_device() -> str:
    import torch

    return f"cuda:{torch.cuda.device_count() + 7}"  # "cuda:7" here; one past the GPUs on a GPU machine


@pytest.mark.parametrize("device", ["nonsense", "absent cuda"])
def test_a_device_torch_refuses_is_a_model_error_naming_the_device(device: str) -> None:
    device = _absent_cuda_device() if device == "absent cuda" else device
    with pytest.raises(dense.ModelError) as info:  # torch raises RuntimeError or AssertionError
        dense.load_model("all-MiniLM-L6-v2", device=device)
    assert f"device '{device}'" in info.value.message
    assert "auto or cpu" in info.value.hint
    assert not any(key[2] == device for key in dense._MODELS)  # nothing half-loaded is kept


def test_retrieve_on_an_absent_gpu_exits_2_with_the_device_named(sample_book: SampleBook, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "p.grammarlens"
    with create_project(project) as db:
        ingest(db, sample_book.path)
    device = _absent_cuda_device()
    rc = main(["retrieve", str(project), "--feature", "81A", "--rerank", "all-MiniLM-L6-v2", "--device", device,
               "--no-save"])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "\nerror: Cannot load the reranker model" in "\n" + err and f"'{device}'" in err
    assert "bug" not in err and "hint: The device" in err
