"""Where a paragraph stands in its section, and whether it is a paragraph at all: two small ranking signals.

A linguist who opens the section named for a feature ("Noun phrase", "Tense") reads its first
paragraph first, and grammars put their summary statements there ("Moloko nouns carry no overt
case markers"; "There is no system of tense as such").  On the judged benchmark 28 % of the graded
opening paragraphs decide their feature, against 10 % of the others.  So a paragraph that *opens*
its section earns a bonus in proportion to how well the section's heading names the feature
(core.retrieval.combine: ``opening_weight * opening * section``); a heading matching nothing gives
nothing, so the bonus cannot lift an unrelated section.

PDF extraction leaves *fragments*: the tail of a bullet cut by a page break ("tive (9–10, Section
5.3)."), a lone gloss line, a mis-read glyph ("⁇").  Under a matching heading they inherit its
section score and used to fill a top ten; of the graded prose paragraphs with fewer than five
content words 68 were useless and 5 useful.  A paragraph with fewer than :data:`FRAGMENT_WORDS`
content words (headings aside: they are the section's name, shown as such) loses
``fragment_penalty`` phrases' worth.  Both weights are fitted leave-one-grammar-out with the others
(scripts/fit_fusion.py).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from core.models import Paragraph, ParagraphKind
from core.retrieval.tokenize import tokenize

# Fewer content words (stop words aside) than this make a fragment.
FRAGMENT_WORDS = 8


def opening_flags(paragraphs: Sequence[Paragraph]) -> np.ndarray:
    """1.0 for the first paragraph (headings aside) of each section of each document, else 0.0.

    ``paragraphs`` are in reading order within each document (as the project lists them); a section
    path that recurs later in the same document (a running head re-read) opens only once.
    """
    seen: set[tuple[int, str]] = set()
    out = np.zeros(len(paragraphs), dtype=np.float64)
    for i, p in enumerate(paragraphs):
        if p.kind is ParagraphKind.HEADING or not p.section:
            continue
        key = (p.document_id, p.section)
        if key not in seen:
            seen.add(key)
            out[i] = 1.0
    return out


@lru_cache(maxsize=65536)
def _content_words(text: str) -> int:
    return len(tokenize(text))  # memoised: the next features' candidates are mostly the same paragraphs


def is_fragment(paragraph: Paragraph) -> bool:
    """Fewer than :data:`FRAGMENT_WORDS` content words, and not a heading."""
    return paragraph.kind is not ParagraphKind.HEADING and _content_words(paragraph.text) < FRAGMENT_WORDS


def fragment_flags(paragraphs: Sequence[Paragraph]) -> np.ndarray:
    """1.0 for each fragment (:func:`is_fragment`) among ``paragraphs``, else 0.0."""
    return np.array([float(is_fragment(p)) for p in paragraphs], dtype=np.float64)
