"""The shipped MiniLM in plain torch: sentence-transformers' vectors and word-piece counts, without its import."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.retrieval import dense
from core.retrieval.bert_encoder import BertEncoder, plain_bert
from core.retrieval.book_embeddings import plan_batches, token_lengths

REPO = Path(__file__).resolve().parents[2]
TEXTS = [
    "Teshi is a verb-final language: the object precedes the verb.",
    "ka",
    "Polar questions end in the particle ka, which also marks alternative questions. " * 30,  # over 256 pieces
    "(12) a-dú mò kà\n3SG-go  QUES\n'Did he go?'",
]


@pytest.fixture(scope="module")
def minilm_path() -> str:
    return dense.resolve_model("all-MiniLM-L6-v2")


def test_vectors_and_lengths_are_those_of_sentence_transformers(minilm_path: str) -> None:
    import sentence_transformers as st

    reference = st.SentenceTransformer(minilm_path, device="cpu")
    plain = BertEncoder(minilm_path)
    expected = reference.encode(TEXTS, batch_size=3, normalize_embeddings=True, convert_to_numpy=True)
    got = plain.encode(TEXTS, batch_size=3)
    assert got.shape == expected.shape == (4, 384)
    assert np.abs(got - expected).max() < 1e-5
    counted = reference.tokenizer(TEXTS, truncation=True, max_length=reference.max_seq_length)["input_ids"]
    assert plain.token_lengths(TEXTS) == [len(ids) for ids in counted]
    assert plain.token_lengths(TEXTS)[2] == 256 and plain.token_lengths(["ka"]) == [3]  # truncated; [CLS] ka [SEP]


def test_only_a_bert_with_mean_pooling_is_run_plain(minilm_path: str, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    assert plain_bert(minilm_path)
    copy = tmp_path / "cls-pooled"
    shutil.copytree(minilm_path, copy)
    pooling = copy / "1_Pooling" / "config.json"
    config = json.loads(pooling.read_text())
    pooling.write_text(json.dumps(config | {"pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True}))
    assert not plain_bert(copy)  # another pooling: sentence-transformers loads it
    assert not plain_bert(tmp_path / "missing")
    monkeypatch.setenv("GRAMMARLENS_PLAIN_BERT", "0")
    assert not plain_bert(minilm_path)


def test_the_default_reranker_loads_without_importing_sentence_transformers() -> None:
    script = ("import sys; from core.retrieval.dense import load_model; "
              "m = load_model('all-MiniLM-L6-v2', device='cpu'); v = m.encode(['word order'], batch_size=1); "
              "print(type(m.model).__name__, v.shape, 'sentence_transformers' in sys.modules, "
              "'sklearn' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=300,
                          check=True)
    assert done.stdout.split() == ["BertEncoder", "(1,", "384)", "False", "False"]


def test_batches_planned_on_exact_lengths_are_padded_less(minilm_path: str) -> None:
    model = dense.load_model("all-MiniLM-L6-v2", device="cpu")
    texts = [f"{'(3) a-ná  kò-dú  ' * (n % 9 + 1)}{'The verb comes last. ' * (n % 7)}" for n in range(300)]
    items = [(n, text, f"hash-{n}") for n, text in enumerate(texts)]
    exact = token_lengths(model, "test-model", items)
    assert exact == model.token_lengths(texts)
    assert token_lengths(object(), "test-model", items) == exact  # counted once: no model asked again

    def padded(batches: list[list[int]]) -> int:
        return sum(len(batch) * max(exact[i] for i in batch) for batch in batches)

    planned = plan_batches(texts, 1024, exact)
    assert sorted(i for batch in planned for i in batch) == list(range(len(texts)))
    assert all(len(batch) * exact[batch[0]] <= 1024 for batch in planned if len(batch) > 1)
    assert padded(planned) < padded(plan_batches(texts, 1024))  # glossed examples: fewer characters a piece
