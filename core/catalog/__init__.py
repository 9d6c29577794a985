"""Typological features (WALS, Grambank, GrammarLens composites) with their value sets."""

from core.catalog.model import Catalog, Feature, UnknownFeature, Vocabulary, load_catalog

__all__ = ["Catalog", "Feature", "UnknownFeature", "Vocabulary", "load_catalog"]
