"""The vocabulary retrieval matches: a feature's own phrases, plus those of the class of features it belongs to.

A feature's phrases (resources/vocabulary) say how grammars state *its* values.  Some statements
decide a whole class of features at once: a grammar of an isolating language says once, in its
chapter on word classes, "due to the lack of inflectional morphology", and that sentence decides
every Grambank question about a bound marker on the verb or the noun (future tense, A-argument
suffixes, plural marking) as absent, though it names none of them.  A linguist coding such a grammar
reads it that way; so does retrieval, for the features whose question asks about bound morphology.

The phrases are English metalanguage, as all vocabulary is; they name the absence of inflection, never
a particular construction, so they cannot favour one bound-marker feature over another, only the
grammar's statement of its type over paragraphs that merely mention the topic.
"""

from __future__ import annotations

import re
from functools import lru_cache

from core.catalog.model import Feature, Vocabulary

# A question about a bound marker: an affix, clitic or inflection, or "morphological marking".
_BOUND_MORPHOLOGY = re.compile(
    r"(?<!non-)\b(affix\w*|prefix\w*|suffix\w*|infix\w*|circumfix\w*|\w*clitic\w*|morpholog\w*|inflect\w*|bound)\b",
    re.IGNORECASE,
)

# How grammars of isolating languages say that there is no bound marking at all (value phrases:
# they decide the value "absent").  No phrase contains another, so one statement counts once.
NO_INFLECTION: tuple[str, ...] = (
    "lack of inflectional", "lack of inflection", "lacks inflectional", "inflectional morphology is lacking",
    "no inflectional morphology", "little inflectional morphology", "very little morphology",
    "little productive morphology", "no productive morphology", "no bound morphology", "isolating language",
    "not marked for any grammatical category",
)


def asks_bound_morphology(feature: Feature) -> bool:
    """Whether the feature's question is about a bound marker (Grambank's questions say so in words)."""
    return feature.dataset == "Grambank" and bool(_BOUND_MORPHOLOGY.search(feature.name))


@lru_cache(maxsize=1024)
def _expanded(feature_id: str, vocabulary: Vocabulary, bound: bool) -> Vocabulary:
    if not bound:
        return vocabulary
    extra = tuple(p for p in NO_INFLECTION if p not in vocabulary.values)
    return Vocabulary(vocabulary.topic, vocabulary.values + extra)


def retrieval_vocabulary(feature: Feature) -> Vocabulary:
    """The phrases retrieval matches for ``feature``: its own, and its class's (see the module docstring)."""
    return _expanded(feature.id, feature.vocabulary, asks_bound_morphology(feature))
