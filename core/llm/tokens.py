"""Token estimates for budgeting prompts, without a tokenizer for every possible model.

The LLM area counts tokens exactly as retrieval packs the evidence budget (about four characters
per token, :func:`core.retrieval.budget.estimate_tokens`), so a packed budget never surprises
the prompt builder.
"""

from __future__ import annotations

from core.retrieval.budget import estimate_tokens

__all__ = ["estimate_tokens"]
