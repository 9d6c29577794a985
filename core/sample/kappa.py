"""Cohen's kappa: agreement of two raters beyond what their own label frequencies make likely.

Cohen (1960), "A coefficient of agreement for nominal scales": over the N items both raters
labelled,

    p_o = (items with the same label) / N
    p_e = sum over labels k of  p_A(k) * p_B(k)      (p_A(k): share of items rater A labelled k)
    kappa = (p_o - p_e) / (1 - p_e)

1 is perfect agreement, 0 agreement at chance level (what two raters with these label
frequencies would reach labelling independently), below 0 worse than chance.

How missing values are treated (Grambank's practice for its double-coded languages): an item
where either rater has no value (None, "" or "?": not enough information, or not coded) is left
out of N and counted in ``excluded``, so kappa measures agreement on values both gave.  Reported
beside it, so a high kappa over few items is visible as such.

The degenerate case: when p_e = 1 both raters gave one and the same label to every item (a
feature coded "absent" everywhere by both).  Agreement is then perfect but says nothing beyond
chance, and the formula divides by zero: kappa is *undefined* and returned as None (printed
"n/a"), never as 1 or 0.  With no items at all kappa is None too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

MISSING = (None, "", "?")


@dataclass(frozen=True)
class Kappa:
    """Cohen's kappa over the items both raters labelled, with what it was computed from."""

    n: int  # items both raters gave a value
    agreed: int  # of those, items with the same value
    excluded: int  # items left out because one side (or both) had no value
    observed: float | None  # p_o; None when n = 0
    expected: float | None  # p_e; None when n = 0
    kappa: float | None  # None when undefined (n = 0, or p_e = 1)

    @property
    def agreement(self) -> float | None:
        """The raw share of agreement (p_o)."""
        return self.observed

    def to_json(self) -> dict:
        return asdict(self)

    def shown(self) -> str:
        """Kappa as reports print it: "0.62" or "n/a"."""
        return "n/a" if self.kappa is None else f"{self.kappa:.2f}"


def cohen_kappa(a: Sequence[str | None], b: Sequence[str | None]) -> Kappa:
    """Cohen's kappa of two raters' labels for the same items (``a[i]`` and ``b[i]`` label item i)."""
    if len(a) != len(b):
        raise ValueError(f"the raters labelled different numbers of items ({len(a)} and {len(b)})")
    pairs = [(str(x), str(y)) for x, y in zip(a, b, strict=True) if x not in MISSING and y not in MISSING]
    return kappa_of_pairs(pairs, excluded=len(a) - len(pairs))


def kappa_of_pairs(pairs: Iterable[tuple[str, str]], *, excluded: int = 0) -> Kappa:
    """Cohen's kappa over (rater A's label, rater B's label) pairs, all with values."""
    pairs = list(pairs)
    n = len(pairs)
    if n == 0:
        return Kappa(0, 0, excluded, None, None, None)
    agreed = sum(1 for x, y in pairs if x == y)
    observed = agreed / n
    count_a = Counter(x for x, _ in pairs)
    count_b = Counter(y for _, y in pairs)
    expected = sum(count_a[k] * count_b[k] for k in count_a) / (n * n)
    if expected >= 1.0 - 1e-12:  # both raters constant on the same label: no variation to agree on
        return Kappa(n, agreed, excluded, observed, expected, None)
    return Kappa(n, agreed, excluded, observed, expected, (observed - expected) / (1.0 - expected))
