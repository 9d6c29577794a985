"""Which catalog feature a classification is about, and the option words every prompt shares.

There is one feature model in GrammarLens, the catalog's :class:`core.catalog.Feature`; the
classifier reads its definition, guidelines, question, options, synonyms and sub-features
directly.  This module only resolves what callers pass (a Feature or an id such as "81A",
"gb107", "PQ") to that Feature, with an error a user can act on.
"""

from __future__ import annotations

from core.catalog.model import NOT_ENOUGH_INFORMATION, Feature

# The paper's wording for the "Not enough information" option in its benchmark CSVs.
PAPER_NOT_MENTIONED = "Not mentioned in the grammar"

__all__ = ["NOT_ENOUGH_INFORMATION", "PAPER_NOT_MENTIONED", "Feature", "feature_of"]


def feature_of(feature: Feature | str) -> Feature:
    """The catalog feature for ``feature`` (a Feature is returned as it is).

    Raises :class:`~core.catalog.UnknownFeature` (a GrammarLensError with a hint) for an unknown
    id, and :class:`~core.llm.errors.LlmError` for a feature with nothing to choose from.
    """
    if isinstance(feature, Feature):
        resolved = feature
    else:
        from core.catalog import load_catalog

        resolved = load_catalog().get(str(feature))
    if resolved.parts and len(resolved.sub_features) != len(resolved.parts):  # built outside a Catalog
        from core.catalog import load_catalog

        resolved = load_catalog().get(resolved.id)
    if not resolved.values and not resolved.parts:
        from core.llm.errors import LlmError

        raise LlmError(f"Feature {resolved.id} has no value set to choose from.", "Pick a feature with coded values.")
    return resolved
