"""A BERT bi-encoder (the shipped MiniLM) run in plain torch, so that loading it costs torch's import only.

Why: until the model has loaded, the first feature's re-ranked order waits, and loading it through
sentence-transformers costs far more than the model itself: ``import sentence_transformers`` pulls in
transformers, scikit-learn and scipy (4.7-7.4 s on top of torch's 1.5-2.6 s on a busy 2-core
machine; the model's weights load in 0.3 s).  A sentence-transformers model made of a BERT encoder,
mean pooling and (optionally) normalisation, like all-MiniLM-L6-v2, is a few matrix products: this
module runs them from the model folder's own files (``config.json``, ``model.safetensors``,
``tokenizer.json``) with the same operations in the same order, so its vectors agree with
sentence-transformers' to float precision (tested) and mix with them in a project's cache.  Any other
model is loaded by sentence-transformers as before (:func:`core.retrieval.dense.load_model`).

It also tells the exact number of word pieces it reads of each text (:meth:`BertEncoder.token_lengths`),
so that a book's batches are planned without padding (core.retrieval.book_embeddings).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Sequence

import numpy as np

WEIGHTS, TOKENIZER = "model.safetensors", "tokenizer.json"


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def plain_bert(folder: str | Path) -> bool:
    """True when ``folder`` holds a sentence-transformers BERT + mean pooling model this module runs as is.

    Anything else (another architecture, another pooling, a prompt, a lower-casing wrapper, a dense
    layer) is left to sentence-transformers.  ``GRAMMARLENS_PLAIN_BERT=0`` turns this module off.
    """
    if os.environ.get("GRAMMARLENS_PLAIN_BERT", "1") == "0":
        return False
    root = Path(folder)
    try:
        modules = _json(root / "modules.json")
        config = _json(root / "config.json")
        pooling = _json(root / modules[1]["path"] / "config.json") if len(modules) > 1 else {}
        wrapper = _json(root / "sentence_bert_config.json")
        prompts = _json(root / "config_sentence_transformers.json") \
            if (root / "config_sentence_transformers.json").exists() else {}
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return False
    kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules]
    means = [k for k, v in pooling.items() if k.startswith("pooling_mode") and v]
    return (kinds in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"])
            and modules[0].get("path", "") == ""
            and means == ["pooling_mode_mean_tokens"]
            and config.get("model_type") == "bert"
            and config.get("hidden_act") == "gelu"
            and config.get("position_embedding_type", "absolute") == "absolute"
            and not wrapper.get("do_lower_case", False)
            and not prompts.get("prompts") and not prompts.get("default_prompt_name")
            and (root / WEIGHTS).is_file() and (root / TOKENIZER).is_file())


class BertEncoder:
    """The encode/token_lengths subset of a SentenceTransformer, for a :func:`plain_bert` folder."""

    def __init__(self, folder: str | Path, device: str = "cpu") -> None:
        import torch
        from safetensors.torch import load_file
        from tokenizers import Tokenizer

        root = Path(folder)
        config = _json(root / "config.json")
        self.max_seq_length = int(_json(root / "sentence_bert_config.json").get("max_seq_length") or 512)
        self.max_seq_length = min(self.max_seq_length, int(config.get("max_position_embeddings", 512)))
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.pad_id = int(config.get("pad_token_id") or 0)
        self.device = device
        weights = load_file(str(root / WEIGHTS))
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""
        self.w = {k[len(prefix):]: v.to(device=device, dtype=torch.float32)
                  for k, v in weights.items() if k.startswith(prefix)}
        self.tokenizer = Tokenizer.from_file(str(root / TOKENIZER))
        self.tokenizer.no_padding()  # the file asks for a fixed 128: batches are padded here, to their longest
        self.tokenizer.enable_truncation(self.max_seq_length)

    def token_lengths(self, texts: Sequence[str]) -> list[int]:
        """Word pieces (with [CLS] and [SEP], after truncation) the model reads of each text."""
        return [len(e.ids) for e in self.tokenizer.encode_batch(list(texts))]

    def encode(self, texts: Sequence[str], batch_size: int = 32, normalize_embeddings: bool = True,
               convert_to_numpy: bool = True, show_progress_bar: bool = False) -> np.ndarray:
        """Embeddings of ``texts`` in their order; computed longest first, ``batch_size`` at a time (as s-t does)."""
        texts = list(texts)
        out = np.zeros((len(texts), self.w["embeddings.word_embeddings.weight"].shape[1]), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        for start in range(0, len(order), max(1, batch_size)):
            chunk = order[start:start + max(1, batch_size)]
            out[chunk] = self._embed([texts[i] for i in chunk], normalize_embeddings)
        return out

    def _embed(self, texts: list[str], normalize: bool) -> np.ndarray:
        import torch
        import torch.nn.functional as F

        encodings = self.tokenizer.encode_batch(texts)
        longest = max(len(e.ids) for e in encodings)
        ids = torch.full((len(texts), longest), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(texts), longest), dtype=torch.bool)
        for row, e in enumerate(encodings):
            ids[row, :len(e.ids)] = torch.tensor(e.ids, dtype=torch.long)
            mask[row, :len(e.ids)] = True
        ids, mask = ids.to(self.device), mask.to(self.device)
        w = self.w
        with torch.inference_mode():
            x = (F.embedding(ids, w["embeddings.word_embeddings.weight"])
                 + w["embeddings.position_embeddings.weight"][:longest]
                 + w["embeddings.token_type_embeddings.weight"][0])
            x = self._norm(x, "embeddings.LayerNorm")
            attend = mask[:, None, None, :]
            batch, hidden = x.shape[0], x.shape[2]
            for n in range(self.layers):
                p = f"encoder.layer.{n}."
                q, k, v = (F.linear(x, w[p + f"attention.self.{name}.weight"], w[p + f"attention.self.{name}.bias"])
                           .view(batch, longest, self.heads, hidden // self.heads).transpose(1, 2)
                           for name in ("query", "key", "value"))
                a = F.scaled_dot_product_attention(q, k, v, attn_mask=attend)
                a = a.transpose(1, 2).reshape(batch, longest, hidden)
                x = self._norm(F.linear(a, w[p + "attention.output.dense.weight"],
                                        w[p + "attention.output.dense.bias"]) + x, p + "attention.output.LayerNorm")
                h = F.gelu(F.linear(x, w[p + "intermediate.dense.weight"], w[p + "intermediate.dense.bias"]))
                x = self._norm(F.linear(h, w[p + "output.dense.weight"], w[p + "output.dense.bias"]) + x,
                               p + "output.LayerNorm")
            weights = mask.unsqueeze(-1).to(x.dtype)
            pooled = (x * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            if normalize:
                pooled = F.normalize(pooled.float(), p=2, dim=1)
            return pooled.float().cpu().numpy()

    def _norm(self, x: Any, name: str) -> Any:
        import torch.nn.functional as F

        return F.layer_norm(x, (x.shape[-1],), self.w[name + ".weight"], self.w[name + ".bias"], self.eps)
