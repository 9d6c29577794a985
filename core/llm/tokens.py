"""Token estimates for budgeting prompts without a tokenizer for every possible model.

Uses the retrieval area's estimator when it is present so both areas agree on budgets;
otherwise about four characters per token, which is close for English prose with GPT tokenizers
and errs on the long side for glossed examples.
"""

from __future__ import annotations

import math


def estimate_tokens(text: str) -> int:
    try:
        from core.retrieval.budget import estimate_tokens as shared
    except ImportError:
        shared = None
    if shared is not None:
        return int(shared(text))
    return int(math.ceil(len(text) / 4))
