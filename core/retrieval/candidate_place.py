"""Where each candidate paragraph sits in its book: the place and part signals of the combined ranking.

The combination (core.retrieval.combine) weighs, beside the text scores (BM25, vocabulary, embeddings),
six per-candidate arrays that say where a paragraph stands: under which heading, in which part of the
book, first in its section or a cut fragment.  They travel together from the pipeline to the ranking,
so they are one value rather than six parameters threaded through every call.  Bare texts without a
book (the reranker benchmark's chunks, ``bench rag``) have none of them: :meth:`CandidatePlace.none`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np


def _filled(values: np.ndarray | None, n: int) -> np.ndarray:
    return np.zeros(n) if values is None else np.asarray(values, dtype=np.float64)


@dataclass(frozen=True, eq=False)
class CandidatePlace:
    """One float array a signal, one entry a candidate (in the candidates' order); a missing signal counts zero.

    * ``furniture``: 1 for a table of contents, index or bibliography paragraph (names topics, states no value).
    * ``section``: how well the paragraph's section heading names the feature's topic, 0..1
      (core.retrieval.sections).
    * ``outside``: 1 for front or back matter (core.retrieval.book_parts); it steps back behind the grammar
      proper unless only it speaks (core.retrieval.combine.outside_flags).
    * ``dictionary``: 1 for a dictionary entry (core.retrieval.book_parts).
    * ``opening``: 1 for a section's first paragraph, where grammars state their summary
      (core.retrieval.paragraph_place).
    * ``fragment``: 1 for a fragment: a cut bullet, a lone gloss line (core.retrieval.paragraph_place).

    Build it with :meth:`of` (which fills the missing signals with zeros and checks the lengths) or
    :meth:`none`; the arrays are float64 whatever they were given as.
    """

    furniture: np.ndarray
    section: np.ndarray
    outside: np.ndarray
    dictionary: np.ndarray
    opening: np.ndarray
    fragment: np.ndarray

    @classmethod
    def of(
        cls,
        n: int,
        *,
        furniture: np.ndarray | None = None,
        section: np.ndarray | None = None,
        outside: np.ndarray | None = None,
        dictionary: np.ndarray | None = None,
        opening: np.ndarray | None = None,
        fragment: np.ndarray | None = None,
    ) -> CandidatePlace:
        """The place of ``n`` candidates; a signal not given is zero for each of them."""
        place = cls(furniture=_filled(furniture, n), section=_filled(section, n), outside=_filled(outside, n),
                    dictionary=_filled(dictionary, n), opening=_filled(opening, n), fragment=_filled(fragment, n))
        wrong = [f.name for f in fields(cls) if len(getattr(place, f.name)) != n]
        if wrong:
            raise ValueError(f"{', '.join(wrong)}: not one entry for each of the {n} candidates")
        return place

    @classmethod
    def none(cls, n: int) -> CandidatePlace:
        """``n`` candidates without a book: every place signal zero."""
        return cls.of(n)

    def __len__(self) -> int:
        return len(self.furniture)
