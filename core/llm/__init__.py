"""Retrieval-augmented classification: ask an LLM for a feature's value from its closed set.

Public API (used by the CLI, the GUI and the profile builder):

* :class:`LlmSettings`, :func:`resolve_api_key`, :func:`test_connection`
* :func:`classify` -> :class:`Classification` (stored), :func:`list_classifications`,
  :func:`get_classification`; the coder's decisions on an answer are :mod:`core.coding`'s acts
* :class:`LlmError` (``retryable``, ``kind``)
"""

from __future__ import annotations

import importlib
from typing import Any

# Names are imported on first use (PEP 562): the client pulls in openai, httpx and pydantic
# (~0.7 s), which a window must not pay on its UI thread just to read stored classifications.
_EXPORTS = {
    "classify": "core.llm.classification",
    "LlmClient": "core.llm.client", "test_connection": "core.llm.client",
    "LlmError": "core.llm.errors",
    "NOT_ENOUGH_INFORMATION": "core.llm.features", "feature_of": "core.llm.features",
    "CONFIGS": "core.llm.prompts",
    "Classification": "core.records.classifications", "Evidence": "core.records.classifications",
    "Flag": "core.records.classifications", "ValueRecord": "core.records.classifications",
    "LlmSettings": "core.llm.settings", "resolve_api_key": "core.llm.settings",
    "get_classification": "core.store.classifications", "list_classifications": "core.store.classifications",
}

# Spelled out (the keys of _EXPORTS, sorted) so that static tools see the names too.
__all__ = [
    "CONFIGS", "Classification", "Evidence", "Flag", "LlmClient", "LlmError", "LlmSettings", "NOT_ENOUGH_INFORMATION",
    "ValueRecord", "classify", "feature_of", "get_classification", "list_classifications", "resolve_api_key",
    "test_connection",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'core.llm' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
