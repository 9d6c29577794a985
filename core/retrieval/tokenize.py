"""Tokenizer for BM25 over descriptive grammars.

Grammars mix an English metalanguage with object-language forms: diacritics (``Gã``), IPA letters
(``ŋ``, ``ɛ``, ``ʔ``), interlinear glosses whose morphemes are joined by ``-`` and ``=``
(``yarro-ngomay``, ``3SG=NOM``) and small-caps gloss labels that PDF extraction often turns
into lowercase letters.  The tokenizer therefore

* normalises with NFKC (ligatures such as ``ﬁ`` become ``fi``) and case-folds, so ``NOM``,
  ``Nom`` and small-caps ``nom`` are one term;
* strips combining marks after NFD, so a query typed without diacritics still matches
  (``Gã`` -> ``ga``) while base IPA letters, which are letters in their own right, are kept;
* splits on everything that is not a letter or digit, so each morpheme of a gloss is a term;
* drops a short list of English function words (the metalanguage of the grammars we read),
  which keeps long descriptive queries from being dominated by "the" and "of".

It is deliberately simple and language-agnostic: no stemming beyond a plural ``s`` rule would
be principled across the object languages, so none is applied.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# Function words of the English metalanguage; content words are never listed here.
STOPWORDS: frozenset[str] = frozenset(
    [
        "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as", "at",
        "be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
        "can", "could",
        "did", "do", "does", "doing", "down", "during",
        "each",
        "few", "for", "from", "further",
        "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how",
        "i", "if", "in", "into", "is", "it", "its", "itself",
        "just",
        "me", "more", "most", "my", "myself",
        "no", "nor", "not", "now",
        "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own",
        "same", "she", "should", "so", "some", "such",
        "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this",
        "those", "through", "to", "too",
        "under", "until", "up",
        "very",
        "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would",
        "you", "your", "yours", "yourself", "yourselves",
        "e", "g", "eg", "ie", "i.e", "etc", "cf", "see",  # abbreviations as tokenized ("e.g." -> e, g) and "see"
    ]
)

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


@lru_cache(maxsize=131072)
def _chunk_terms(chunk: str) -> tuple[str, ...]:
    """Terms of one whitespace-delimited chunk, stop words included (cached: grammars repeat a lot).

    Diacritics are stripped *before* splitting, because combining marks are not word
    characters for ``re`` and would otherwise cut ``ŋɔ́ɔ`` in two.
    """
    folded = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", chunk).casefold())
    bare = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return tuple(_TOKEN.findall(unicodedata.normalize("NFC", bare)))


def tokenize(text: str, *, keep_stopwords: bool = False) -> list[str]:
    """Split ``text`` into normalised BM25 terms (see the module docstring for the rules)."""
    out: list[str] = []
    for chunk in text.split():
        terms = _chunk_terms(chunk)
        if keep_stopwords:
            out.extend(terms)
        else:
            out.extend(t for t in terms if t not in STOPWORDS)
    return out
