"""Prices per million tokens of well-known hosted models, to report what a run cost.

Local servers (Ollama, vLLM, llama.cpp, LM Studio) cost nothing per token; unknown hosted models
report no cost rather than a guessed one.  Prices are OpenAI's list prices at the time of writing
(USD per 1M input / output tokens) and only inform, never limit, a run.
"""

from __future__ import annotations

PRICES_PER_MILLION: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4-turbo": (10.00, 30.00),
}


def cost_usd(model: str, prompt_tokens: int, completion_tokens: int, *, local: bool) -> float | None:
    """Cost of one call in US dollars: 0 on a local server, None for an unknown hosted model."""
    if local:
        return 0.0
    price = PRICES_PER_MILLION.get(model)
    if price is None:
        base = next((m for m in sorted(PRICES_PER_MILLION, key=len, reverse=True) if model.startswith(m + "-")), None)
        price = PRICES_PER_MILLION.get(base) if base else None
    if price is None:
        return None
    return round(prompt_tokens * price[0] / 1e6 + completion_tokens * price[1] / 1e6, 6)
