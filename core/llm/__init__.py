"""Retrieval-augmented classification: ask an LLM for a feature's value from its closed set.

Public API (used by the CLI, the GUI and the profile builder):

* :class:`LlmSettings`, :func:`resolve_api_key`, :func:`test_connection`
* :func:`classify` -> :class:`Classification` (stored), :func:`list_classifications`,
  :func:`get_classification`
* reviews: :func:`add_review`, :func:`latest_review`, :func:`list_reviews`
* :class:`LlmError` (``retryable``, ``kind``)
"""

from __future__ import annotations

import importlib
from typing import Any

# Names are imported on first use (PEP 562): the client pulls in openai, httpx and pydantic
# (~0.7 s), which a window must not pay on its UI thread just to read stored classifications.
_EXPORTS = {
    "classify": "classification",
    "LlmClient": "client", "test_connection": "client",
    "LlmError": "errors",
    "NOT_ENOUGH_INFORMATION": "features", "feature_of": "features",
    "CONFIGS": "prompts", "Evidence": "records",
    "Classification": "records", "Flag": "records", "Review": "records",
    "ValueRecord": "records",
    "LlmSettings": "settings", "resolve_api_key": "settings",
    "add_review": "store", "get_classification": "store", "latest_review": "store",
    "list_classifications": "store", "list_reviews": "store",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'core.llm' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"core.llm.{module}"), name)
    globals()[name] = value
    return value
