"""The value-vocabulary signal: does a paragraph name the feature's topic, and does it state a value?

A linguist deciding WALS 81A wants the sentence "the basic constituent order is SOV", not the many
paragraphs about the order of affixes or adjectives that BM25 also likes.  Each feature carries
``topic`` phrases ("constituent order") and ``values`` phrases ("SOV", "verb-final", "A V P"); a
paragraph scores ``sum(sat(topic counts)) + value_weight * sum(sat(value counts))`` with the
saturation ``c / (c + 1)``, so naming many different phrases beats repeating one.  Phrases match
as token sequences (stop words kept, so "in order to" never looks like "word order"), after the
same normalisation as BM25 plus folding of a plural -s, which is a property of the English
metalanguage of the grammars, not of the languages described.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from core.catalog.model import Vocabulary
from core.retrieval.tokenize import tokenize


def _fold(token: str) -> str:
    return token[:-1] if len(token) > 3 and token.endswith("s") and not token.endswith("ss") else token


# English idioms of the metalanguage that contain a feature's topic word without being about it:
# "in most cases" says nothing about grammatical case.  Their tokens are masked before matching.
IDIOMS: tuple[tuple[str, ...], ...] = tuple(
    tuple(_fold(t) for t in idiom.split())
    for idiom in (
        "in this case", "in that case", "in these cases", "in those cases", "in most cases", "in some cases",
        "in many cases", "in such cases", "in such a case", "in both cases", "in all cases", "in other cases",
        "in either case", "in any case", "in which case", "in case", "in each case", "in few cases",
        "is the case", "be the case", "was the case", "are the case", "not the case", "the case of",
        # "case" as "instance": a count of occurrences or a situation, never a grammatical case
        "no cases of", "no case of", "no cases where", "cases where", "case where", "cases in which",
        "case in which", "cases when", "such cases", "a case of", "particular cases", "special case",
        "special cases", "rare cases", "exceptional cases", "isolated cases", "for the case",
        "the case that", "the case for", "the case with",
    )
)
_MASK = "\x00"


_IDIOM_STARTS: dict[str, tuple[tuple[str, ...], ...]] = {}
for _idiom in sorted(IDIOMS, key=len, reverse=True):  # longest first: "in such a case" before "in case"
    _IDIOM_STARTS[_idiom[0]] = _IDIOM_STARTS.get(_idiom[0], ()) + (_idiom,)


def _mask_idioms(tokens: list[str]) -> list[str]:
    for i in range(len(tokens)):
        for idiom in _IDIOM_STARTS.get(tokens[i], ()):
            if tuple(tokens[i:i + len(idiom)]) == idiom:
                for j in range(i, i + len(idiom)):
                    tokens[j] = _MASK
                break
    return tokens


def vocab_tokens(text: str) -> list[str]:
    """Tokens for phrase matching: stop words kept, plural -s folded, idioms masked."""
    return _mask_idioms([_fold(t) for t in tokenize(text, keep_stopwords=True)])


@dataclass(frozen=True)
class CompiledVocabulary:
    """Phrases as token tuples, indexed by their first token for a single pass over a text."""

    phrases: tuple[tuple[str, ...], ...]
    is_value: tuple[bool, ...]

    def counts(self, tokens: list[str]) -> np.ndarray:
        """How often each phrase occurs in ``tokens``."""
        out = np.zeros(len(self.phrases), dtype=np.float64)
        starts = _starts(self)
        for i, token in enumerate(tokens):
            for index in starts.get(token, ()):
                phrase = self.phrases[index]
                if tuple(tokens[i:i + len(phrase)]) == phrase:
                    out[index] += 1
        return out

    def score(self, tokens: list[str], value_weight: float) -> float:
        counts = self.counts(tokens)
        sat = counts / (counts + 1.0)
        weights = np.where(np.asarray(self.is_value, dtype=bool), value_weight, 1.0)
        return float((sat * weights).sum())


@lru_cache(maxsize=256)
def _starts(vocab: CompiledVocabulary) -> dict[str, tuple[int, ...]]:
    starts: dict[str, list[int]] = {}
    for index, phrase in enumerate(vocab.phrases):
        starts.setdefault(phrase[0], []).append(index)
    return {k: tuple(v) for k, v in starts.items()}


@lru_cache(maxsize=1024)
def compile_vocabulary(vocabulary: Vocabulary) -> CompiledVocabulary:
    """Tokenise a feature's phrases once; a phrase listed as both topic and value counts as value."""
    phrases: dict[tuple[str, ...], bool] = {}
    for text, is_value in [(t, False) for t in vocabulary.topic] + [(v, True) for v in vocabulary.values]:
        tokens = tuple(vocab_tokens(text))
        if tokens:
            phrases[tokens] = phrases.get(tokens, False) or is_value
    return CompiledVocabulary(tuple(phrases), tuple(phrases.values()))


def vocabulary_scores(texts: list[str], vocabulary: Vocabulary, value_weight: float) -> np.ndarray:
    """The vocabulary signal for each text."""
    compiled = compile_vocabulary(vocabulary)
    return np.array([compiled.score(vocab_tokens(t), value_weight) for t in texts], dtype=np.float64)


class PhraseIndex:
    """Where each vocabulary token occurs in a book, so a feature's phrases are found without a full scan.

    BM25 ranks paragraphs by the question's words; a paragraph that states the value in other
    words ("Moloko is an SVO language") may sit far below its top 50.  Scoring every paragraph
    of a 700-page book with the vocabulary costs a pass over all its tokens per query; here each
    phrase is looked up through its rarest token, and only the paragraphs holding that token are
    matched in full.
    """

    def __init__(self, texts: list[str]) -> None:
        self.tokens = [vocab_tokens(t) for t in texts]
        postings: dict[str, list[int]] = {}
        for index, tokens in enumerate(self.tokens):
            for token in set(tokens):
                postings.setdefault(token, []).append(index)
        self._postings = postings

    def matching(self, vocabulary: Vocabulary) -> list[int]:
        """Indices of the paragraphs that contain at least one of the vocabulary's phrases (sorted)."""
        found: set[int] = set()
        for phrase in compile_vocabulary(vocabulary).phrases:
            lists = [self._postings.get(token, ()) for token in set(phrase)]
            rarest = min(lists, key=len)
            found.update(rarest)
        return sorted(found)

    def scores(self, vocabulary: Vocabulary, value_weight: float) -> dict[int, float]:
        """Vocabulary score of every paragraph that matches a phrase (absent = 0)."""
        compiled = compile_vocabulary(vocabulary)
        out = {}
        for index in self.matching(vocabulary):
            score = compiled.score(self.tokens[index], value_weight)
            if score > 0:
                out[index] = score
        return out
