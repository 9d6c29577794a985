"""Retrieval-augmented classification: ask an LLM for a feature's value from its closed set.

Public API (used by the CLI, the GUI and the profile builder):

* :class:`LlmSettings`, :func:`resolve_api_key`, :func:`test_connection`
* :func:`classify` -> :class:`Classification` (stored), :func:`list_classifications`,
  :func:`get_classification`
* reviews: :func:`add_review`, :func:`latest_review`, :func:`list_reviews`
* :class:`LlmError` (``retryable``, ``kind``)
"""

from core.llm.classify import classify
from core.llm.client import LlmClient, test_connection
from core.llm.errors import LlmError
from core.llm.features import NOT_ENOUGH_INFORMATION, FeatureSpec, as_spec
from core.llm.prompts import CONFIGS, Evidence
from core.llm.records import Classification, EvidenceRecord, Flag, Review, ValueRecord
from core.llm.settings import LlmSettings, resolve_api_key, store_api_key_in_keyring
from core.llm.store import add_review, get_classification, latest_review, list_classifications, list_reviews

__all__ = [
    "CONFIGS", "Classification", "Evidence", "EvidenceRecord", "FeatureSpec", "Flag", "LlmClient", "LlmError",
    "LlmSettings", "NOT_ENOUGH_INFORMATION", "Review", "ValueRecord", "add_review", "as_spec", "classify",
    "get_classification", "latest_review", "list_classifications", "list_reviews", "resolve_api_key",
    "store_api_key_in_keyring", "test_connection",
]
