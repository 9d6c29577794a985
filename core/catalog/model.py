"""The feature catalog: every WALS and Grambank feature, plus GrammarLens's own composites.

:class:`Feature` is the one representation of a feature in GrammarLens.  Retrieval reads its
queries and vocabulary, the prompts its definition, guidelines, question and option wording,
the parser its options and synonyms, the profile, export and GUI its value labels and
sub-features.  Nothing else defines a feature, so a label shown in one place is the label stored,
exported and parsed everywhere else.

Features are frozen dataclasses read from ``resources/features.json`` (built by
``scripts/build_catalog.py`` from the CLDF tables, Grambank's own coding text and our
vocabularies).  Loading is a JSON read (milliseconds), so the GUI can call :func:`load_catalog`
freely; the result is cached.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from core.catalog.curated import PAPER_FEATURES
from core.errors import GrammarLensError

CATALOG_PATH = Path(__file__).resolve().parent.parent.parent / "resources" / "features.json"

# The option every prompt offers beside the value set; it is never a value of a feature.
NOT_ENOUGH_INFORMATION = "Not enough information"


@dataclass(frozen=True)
class Vocabulary:
    """Phrases whose presence marks a paragraph as talking about a feature.

    ``topic`` phrases name the feature's domain ("word order"); ``values`` phrases name one of its
    values or a standard way of stating it ("SOV", "verb-final", "has no articles").  A paragraph
    that states a value is what a linguist needs, so value phrases weigh more in ranking (see
    core.retrieval.vocabulary).
    """

    topic: tuple[str, ...] = ()
    values: tuple[str, ...] = ()


def default_question(name: str) -> str:
    """The prompt question for a feature without a hand-written one (Grambank names are questions)."""
    name = name.strip()
    if name.endswith("?"):
        return f"Please answer this question about the language {{language}}: {name}"
    return f'Please determine the value of the typological feature "{name}" in the language {{language}}.'


@dataclass(frozen=True)
class Feature:
    """One typological feature: its closed value set and everything needed to find and ask it.

    ``values`` are the database's ``(code, label)`` pairs (Grambank binary features: ``0``/``absent``,
    ``1``/``present``, as in Grambank's codes.csv).  ``options`` is how a prompt words the same
    codes, in the prompt's order, when that differs from the labels: the paper's Appendix E asks
    GB107 with "1, 0" and lists 81A's orders as SOV, SVO, VOS, VSO...  For a multi-label feature
    (116A*) ``options`` is the wording of each part's codes.  ``synonyms`` maps further phrases a
    model may answer with to codes.  ``parts`` lists the sub-features of a multi-label feature
    with the name each has in the prompt; the sub-features themselves are ordinary catalog
    features, resolved into ``sub_features`` by :class:`Catalog`.
    """

    id: str
    name: str
    dataset: str  # "WALS" | "Grambank" | "GrammarLens"
    values: tuple[tuple[str, str], ...]  # (code, label)
    definition: str
    guidelines: str = ""  # how to decide: Grambank's procedure, or the paper's coding notes
    examples: str = ""  # worked examples (Grambank's), sent while the context allows
    question: str = ""  # "Please determine ... in the language {language}."
    instructions: tuple[str, ...] = ()  # further lines of the question block (the paper's prompts)
    options: tuple[tuple[str, str], ...] = ()  # (code, wording in the prompt); empty = the labels
    synonyms: dict[str, str] = field(default_factory=dict, compare=False, hash=False)  # phrase -> code
    parts: tuple[tuple[str, str], ...] = ()  # (sub-feature id, its name in prompts and the GUI)
    value_definitions: dict[str, str] = field(default_factory=dict, compare=False, hash=False)  # code -> text
    aliases: tuple[str, ...] = ()
    queries: dict[str, str] = field(default_factory=dict, compare=False, hash=False)  # "term", "descriptive"
    vocabulary: Vocabulary = Vocabulary()
    curated: bool = False  # a hand-written vocabulary (and, for the paper's four, prompts)
    coding: dict = field(default_factory=dict, compare=False, hash=False)  # Grambank coders' order and units
    sub_features: tuple[Feature, ...] = field(default=(), compare=False, hash=False, repr=False)

    # -- values and options -------------------------------------------------------------------

    @property
    def is_multilabel(self) -> bool:
        return bool(self.parts)

    @property
    def multi_label(self) -> tuple[str, ...]:
        """Ids of the sub-features (empty for an ordinary feature)."""
        return tuple(pid for pid, _ in self.parts)

    def labels(self) -> list[str]:
        return [label for _, label in self.values]

    def codes(self) -> list[str]:
        return [code for code, _ in self.values]

    def value_label(self, code: str) -> str | None:
        return next((label for c, label in self.values if c == code), None)

    def option_pairs(self) -> tuple[tuple[str, str], ...]:
        """``(code, wording)`` of the options a prompt offers, in the prompt's order."""
        return self.options or self.values

    def option_words(self) -> list[str]:
        return [word for _, word in self.option_pairs()]

    def prompt_options(self) -> list[str]:
        """What a single-valued prompt offers: the option words plus "Not enough information"."""
        return self.option_words() + [NOT_ENOUGH_INFORMATION]

    def option_of(self, code: str) -> str | None:
        """The prompt's wording of ``code`` ("1" for GB107's "present")."""
        return next((word for c, word in self.option_pairs() if c == code), None)

    @property
    def prompt_question(self) -> str:
        return self.question or default_question(self.name)

    # -- retrieval ----------------------------------------------------------------------------

    @property
    def term_query(self) -> str:
        return self.queries.get("term") or self.name

    @property
    def descriptive_query(self) -> str:
        return self.queries.get("descriptive") or self.definition

    # -- JSON ---------------------------------------------------------------------------------

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "name": self.name,
            "dataset": self.dataset,
            "values": [list(v) for v in self.values],
            "definition": self.definition,
            "guidelines": self.guidelines,
            "examples": self.examples,
            "question": self.question,
            "instructions": list(self.instructions),
            "options": [list(o) for o in self.options],
            "synonyms": dict(self.synonyms),
            "parts": [list(p) for p in self.parts],
            "value_definitions": dict(self.value_definitions),
            "aliases": list(self.aliases),
            "queries": dict(self.queries),
            "vocabulary": {"topic": list(self.vocabulary.topic), "values": list(self.vocabulary.values)},
            "curated": self.curated,
            "coding": dict(self.coding),
        }

    @classmethod
    def from_json(cls, data: dict) -> Feature:
        vocab = data.get("vocabulary") or {}
        return cls(
            id=data["id"],
            name=data["name"],
            dataset=data["dataset"],
            values=tuple((str(c), str(label)) for c, label in data["values"]),
            definition=data["definition"],
            guidelines=data.get("guidelines", ""),
            examples=data.get("examples", ""),
            question=data.get("question", ""),
            instructions=tuple(data.get("instructions", ())),
            options=tuple((str(c), str(w)) for c, w in data.get("options", ())),
            synonyms={str(k): str(v) for k, v in (data.get("synonyms") or {}).items()},
            parts=tuple((str(p), str(label)) for p, label in data.get("parts", ())),
            value_definitions={str(k): str(v) for k, v in (data.get("value_definitions") or {}).items()},
            aliases=tuple(data.get("aliases", ())),
            queries=dict(data.get("queries", {})),
            vocabulary=Vocabulary(tuple(vocab.get("topic", ())), tuple(vocab.get("values", ()))),
            curated=bool(data.get("curated", False)),
            coding=dict(data.get("coding") or {}),
        )


class UnknownFeature(GrammarLensError):
    """A feature id that is neither in WALS, Grambank nor GrammarLens's composites."""


def _key(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip().casefold()


class Catalog:
    """All features, looked up by id or alias (case-insensitive) and searchable by text."""

    def __init__(self, features: list[Feature], about: str = "") -> None:
        self.about = about
        by_id = {f.id: f for f in features}
        for feature in features:
            if feature.parts:  # resolve sub-features once, so every consumer sees the same objects
                missing = [pid for pid, _ in feature.parts if pid not in by_id]
                if missing:
                    raise GrammarLensError(f"Feature {feature.id} names unknown parts {missing}.",
                                           "Rebuild the catalog with 'python scripts/build_catalog.py'.")
                object.__setattr__(feature, "sub_features", tuple(by_id[pid] for pid, _ in feature.parts))
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

    def grambank_in_coding_order(self) -> list[Feature]:
        """Grambank's features in its coders' working order (``ENumLab``), which fills easily from a grammar."""
        features = self.by_dataset("Grambank")
        return sorted(features, key=lambda f: (f.coding.get("order", 10**6), features.index(f)))

    def search(self, text: str) -> list[Feature]:
        """Features whose id, alias, name, definition, query or topic phrases contain every word of ``text``.

        Topic phrases let a linguist find 81A by "word order", the term grammars use.

        Exact id matches come first, then the paper's four (hand-written prompts), then features with a
        curated vocabulary, then catalog order.
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
        found.sort(key=lambda f: (f is not exact, f.id not in PAPER_FEATURES, not f.curated))
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
    return Catalog([Feature.from_json(f) for f in data["features"]], about=data.get("about", ""))


def load_catalog(path: str | Path | None = None) -> Catalog:
    """The catalog shipped in ``resources/features.json`` (cached after the first call)."""
    return _load(str(path or CATALOG_PATH))
