"""Which upcoming features' candidates to embed first when the coder moves faster than the book embeds.

Why: in a coding pass at a key a second the book's preparation embeds the candidates of the feature on
screen, then of the next ones (gui.project.book_preparation).  When the model embeds fewer paragraphs a
second than the pass asks for (two cores shared with other work), the nearest feature is left before its
candidates are done, the next one starts late too, and every step misses its re-ranked order.  A
feature whose candidates cannot be done before the coder is expected to leave it is passed over, so
the time goes to features that can still be re-ranked while they are on screen.
"""

from __future__ import annotations

from typing import Collection, Mapping, Sequence

MARGIN_S = 0.2  # re-ranking and showing a ready feature take this long


def on_time(candidates: Mapping[str, Sequence[int]], pending: Collection[int], seconds_left: Mapping[str, float],
            rate: float) -> list[str]:
    """The features (in ``candidates``' order, nearest first) whose candidates to embed first.

    ``pending`` are the paragraph ids still without a vector, ``seconds_left`` how long the coder is
    expected to stay before leaving each feature (a feature without one is always kept), ``rate``
    paragraphs embedded a second.  A feature is kept when its still pending candidates (those not kept
    for a nearer feature) can be done, after those of the features kept before it, before it is left.
    """
    kept: list[str] = []
    taken: set[int] = set()
    spent = 0.0
    for feature, ids in candidates.items():
        new = {i for i in ids if i in pending and i not in taken}
        cost = len(new) / rate if rate > 0 else 0.0
        left = seconds_left.get(feature)
        if left is not None and new and spent + cost > left - MARGIN_S:
            continue  # left before it is done: its paragraphs wait for the rest of the book
        kept.append(feature)
        taken |= new
        spent += cost
    return kept
