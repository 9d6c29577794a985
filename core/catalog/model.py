"""The feature catalog: every WALS and Grambank feature, plus GrammarLens's own composites.

Features are frozen dataclasses read from ``resources/features.json`` (built by
``scripts/build_catalog.py`` from the CLDF tables).  Ids, names and value sets are the databases'
facts; definitions, queries and vocabularies are GrammarLens's own words.  Loading is a JSON read
(milliseconds), so the GUI can call :func:`load_catalog` freely; the result is cached.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from core.errors import GrammarLensError

CATALOG_PATH = Path(__file__).resolve().parent.parent.parent / "resources" / "features.json"


@dataclass(frozen=True)
class Vocabulary:
    """Phrases whose presence marks a paragraph as talking about a feature.

    ``topic`` phrases name the feature's domain ("word order"); ``values`` phrases name one of its
    values or a standard way of stating it ("SOV", "verb-final").  A paragraph that states a value
    is what a linguist needs, so value phrases weigh more in ranking (see core.retrieval.vocabulary).
    """

    topic: tuple[str, ...] = ()
    values: tuple[str, ...] = ()


@dataclass(frozen=True)
class Feature:
    """One typological feature with its closed value set."""

    id: str
    name: str
    dataset: str  # "WALS" | "Grambank" | "GrammarLens"
    values: tuple[tuple[str, str], ...]  # (code, label)
    definition: str
    multi_label: tuple[str, ...] = ()  # sub-feature ids when one answer holds several binary features
    aliases: tuple[str, ...] = ()
    queries: dict[str, str] = field(default_factory=dict, compare=False, hash=False)  # "term", "descriptive"
    vocabulary: Vocabulary = Vocabulary()
    curated: bool = False  # hand-tuned queries and vocabulary (the paper's four features)

    @property
    def term_query(self) -> str:
        return self.queries.get("term") or self.name

    @property
    def descriptive_query(self) -> str:
        return self.queries.get("descriptive") or self.definition

    def value_label(self, code: str) -> str | None:
        return next((label for c, label in self.values if c == code), None)

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "name": self.name,
            "dataset": self.dataset,
            "values": [list(v) for v in self.values],
            "definition": self.definition,
            "multi_label": list(self.multi_label),
            "aliases": list(self.aliases),
            "queries": dict(self.queries),
            "vocabulary": {"topic": list(self.vocabulary.topic), "values": list(self.vocabulary.values)},
            "curated": self.curated,
        }

    @classmethod
    def from_json(cls, data: dict) -> "Feature":
        vocab = data.get("vocabulary") or {}
        return cls(
            id=data["id"],
            name=data["name"],
            dataset=data["dataset"],
            values=tuple((str(c), str(label)) for c, label in data["values"]),
            definition=data["definition"],
            multi_label=tuple(data.get("multi_label", ())),
            aliases=tuple(data.get("aliases", ())),
            queries=dict(data.get("queries", {})),
            vocabulary=Vocabulary(tuple(vocab.get("topic", ())), tuple(vocab.get("values", ()))),
            curated=bool(data.get("curated", False)),
        )


class UnknownFeature(GrammarLensError):
    """A feature id that is neither in WALS, Grambank nor GrammarLens's composites."""


def _key(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip().casefold()


class Catalog:
    """All features, looked up by id or alias (case-insensitive) and searchable by text."""

    def __init__(self, features: list[Feature]) -> None:
        self.features: tuple[Feature, ...] = tuple(features)
        self._by_key: dict[str, Feature] = {}
        for feature in features:
            for name in (feature.id, *feature.aliases):
                self._by_key[_key(name)] = feature

    def __len__(self) -> int:
        return len(self.features)

    def __iter__(self):
        return iter(self.features)

    def __contains__(self, feature_id: str) -> bool:
        return _key(feature_id) in self._by_key

    def get(self, feature_id: str) -> Feature:
        """The feature with this id or alias ("81A", "WALS 81A", "gb107", "PQ", "116A*")."""
        key = _key(feature_id)
        key = re.sub(r"^(wals|grambank)\s+", "", key)
        try:
            return self._by_key[key]
        except KeyError:
            raise UnknownFeature(
                f"Unknown feature '{feature_id}'.",
                "Use a WALS id such as 81A, a Grambank id such as GB107, or PQ for polar questions; "
                "'catalog search WORDS' lists matching features.",
            ) from None

    def by_dataset(self, dataset: str) -> list[Feature]:
        return [f for f in self.features if f.dataset == dataset]

    def search(self, text: str) -> list[Feature]:
        """Features whose id, alias, name, definition, query or topic phrases contain every word of ``text``.

        Topic phrases let a linguist find 81A by "word order", the term grammars use.

        Exact id matches come first, then the paper's curated features, then catalog order.
        """
        words = [w for w in re.split(r"\W+", _key(text)) if w]
        if not words:
            return list(self.features)
        exact = self._by_key.get(_key(text))
        found = []
        for feature in self.features:
            hay = _key(" ".join((feature.id, *feature.aliases, feature.name, feature.definition,
                                 feature.term_query, *feature.vocabulary.topic)))
            if all(w in hay for w in words):
                found.append(feature)
        found.sort(key=lambda f: (f is not exact, not f.curated))
        if exact is not None and exact not in found:
            found.insert(0, exact)
        return found


@lru_cache(maxsize=4)
def _load(path: str) -> Catalog:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GrammarLensError(
            f"The feature catalog {path} is missing.", "Rebuild it with 'python scripts/build_catalog.py'."
        ) from None
    return Catalog([Feature.from_json(f) for f in data["features"]])


def load_catalog(path: str | Path | None = None) -> Catalog:
    """The catalog shipped in ``resources/features.json`` (cached after the first call)."""
    return _load(str(path or CATALOG_PATH))
