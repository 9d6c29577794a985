"""The evidence budget: whole paragraphs, in ranking order, up to a token limit.

Tokens are estimated as ``ceil(characters / 4)``, the usual rule of thumb for English prose with
BPE tokenizers; grammars' object-language examples tokenize worse, which the 6,000-token default
leaves room for.  No tokenizer dependency is needed.

:data:`DEFAULT_BUDGET_TOKENS` is the one definition of the default evidence budget: the retrieval
settings, the CLI, the benchmarks and the GUI's settings all import it.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence, TypeVar

CHARS_PER_TOKEN = 4
DEFAULT_BUDGET_TOKENS = 6000  # the paper sent ~40,000 tokens of chunks; a tight budget is cheaper and sharper

T = TypeVar("T")


def estimate_tokens(text: str) -> int:
    """Rough token count of ``text`` (characters / 4, rounded up)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _text_of_hit(hit: Any) -> str:
    """A plain string as it is, a core Hit's paragraph text."""
    return hit if isinstance(hit, str) else hit.paragraph.text


def pack_budget(hits: Sequence[T], max_tokens: int = DEFAULT_BUDGET_TOKENS,
                text_of: Callable[[T], str] | None = None) -> list[T]:
    """The hits that fit in ``max_tokens``, in their ranking order, never cutting a paragraph.

    A hit that does not fit is skipped and smaller, lower-ranked hits may still fill the rest, so
    the budget is used well while order is kept.  ``text_of`` reads a hit's text; without it hits
    are plain strings or expose their text as ``hit.paragraph.text`` (core Hit).
    """
    read: Callable[[T], str] = text_of if text_of is not None else _text_of_hit
    chosen: list[T] = []
    used = 0
    for hit in hits:
        cost = estimate_tokens(read(hit))
        if used + cost <= max_tokens:
            chosen.append(hit)
            used += cost
    return chosen
