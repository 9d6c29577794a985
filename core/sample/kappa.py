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
"n/a"), never as 1 or 0.  With no items at all kappa is None too.  :meth:`Kappa.shown` prints n
beside every kappa, flags n < :data:`SMALL_N` ("small n": one disagreement more or less moves
kappa by a lot) and says why an undefined one is "n/a".

Categories when features are pooled (:func:`feature_kappa`): a code means something only within
its feature ("1" is "present" for GB020 but "SOV" for 81A), so each item's label is qualified by
its feature, except for the features whose value set is exactly Grambank's binary
absent/present (0/1): those share one scale, and pooling them is what Grambank's own reliability
figures do.  p_e is then computed over these categories with the usual formula: agreeing by
chance on 81A's "1" and GB020's "1" is no longer possible.  Kappa over one feature's items (a
feature across languages) uses that feature's own codes either way.

Missing values are counted by kind: ``unknown`` (a "?" on either side) and ``uncoded`` (no value
on a side); ``excluded`` is their sum.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

SMALL_N = 10  # below this many items kappa is printed with a "small n" flag
BINARY_SCALE = (("0", "absent"), ("1", "present"))


@dataclass(frozen=True)
class Kappa:
    """Cohen's kappa over the items both raters labelled, with what it was computed from."""

    n: int  # items both raters gave a value
    agreed: int  # of those, items with the same value
    excluded: int  # items left out because one side (or both) had no value
    observed: float | None  # p_o; None when n = 0
    expected: float | None  # p_e; None when n = 0
    kappa: float | None  # None when undefined (n = 0, or p_e = 1)
    unknown: int = 0  # of the excluded: a "?" on a side
    uncoded: int = 0  # of the excluded: no value on a side

    @property
    def small(self) -> bool:
        """Too few items for kappa to be read as more than an indication."""
        return 0 < self.n < SMALL_N

    @property
    def undefined_reason(self) -> str:
        """Why kappa is "n/a" ("" when it is defined)."""
        if self.n == 0:
            return "no item coded with a value on both sides"
        if self.kappa is None:
            return "both sides gave one and the same value to every item"
        return ""

    @property
    def agreement(self) -> float | None:
        """The raw share of agreement (p_o)."""
        return self.observed

    def to_json(self) -> dict:
        return {**asdict(self), "agreement": self.observed, "small_n": self.small,
                "undefined_reason": self.undefined_reason or None}

    def shown(self) -> str:
        """Kappa as reports print it, n beside it: "0.62 (n 40)", "0.40 (n 3, small n)", "n/a (n 0: ...)"."""
        if self.kappa is None:
            return f"n/a (n {self.n}: {self.undefined_reason})"
        return f"{self.kappa:.2f} (n {self.n}{', small n' if self.small else ''})"

    def agreement_shown(self) -> str:
        """The share of agreement as reports print it: "0.750" or "n/a"."""
        return "n/a" if self.observed is None else f"{self.observed:.3f}"


def cohen_kappa(a: Sequence[str | None], b: Sequence[str | None]) -> Kappa:
    """Cohen's kappa of two raters' labels for the same items (``a[i]`` and ``b[i]`` label item i)."""
    if len(a) != len(b):
        raise ValueError(f"the raters labelled different numbers of items ({len(a)} and {len(b)})")
    return feature_kappa(("", x, y) for x, y in zip(a, b, strict=True))


def category(feature_id: str, code: str) -> str:
    """The label kappa counts for ``code`` of ``feature_id``: the code on the binary scale, else "feature=code"."""
    if not feature_id or _binary(feature_id):
        return code
    return f"{feature_id}={code}"


def _binary(feature_id: str) -> bool:
    from core.catalog import load_catalog

    catalog = load_catalog()
    return feature_id in catalog and tuple(catalog.get(feature_id).values) == BINARY_SCALE


def feature_kappa(items: Iterable[tuple[str, str | None, str | None]]) -> Kappa:
    """Kappa over (feature id, A's code, B's code) items: missing ones counted by kind, categories per feature.

    A feature id of "" keeps the codes as they are (two raters' labels of one scale).
    """
    pairs: list[tuple[str, str]] = []
    unknown = uncoded = 0
    for fid, x, y in items:
        if x in (None, "") or y in (None, ""):
            uncoded += 1
        elif x == "?" or y == "?":
            unknown += 1
        else:
            pairs.append((category(fid, str(x)), category(fid, str(y))))
    return kappa_of_pairs(pairs, excluded=unknown + uncoded, unknown=unknown, uncoded=uncoded)


def kappa_of_pairs(pairs: Iterable[tuple[str, str]], *, excluded: int = 0, unknown: int = 0,
                   uncoded: int = 0) -> Kappa:
    """Cohen's kappa over (rater A's label, rater B's label) pairs, all with values."""
    pairs = list(pairs)
    n = len(pairs)
    extra = {"unknown": unknown, "uncoded": uncoded}
    if n == 0:
        return Kappa(0, 0, excluded, None, None, None, **extra)
    agreed = sum(1 for x, y in pairs if x == y)
    observed = agreed / n
    count_a = Counter(x for x, _ in pairs)
    count_b = Counter(y for _, y in pairs)
    expected = sum(count_a[k] * count_b[k] for k in count_a) / (n * n)
    if expected >= 1.0 - 1e-12:  # both raters constant on the same label: no variation to agree on
        return Kappa(n, agreed, excluded, observed, expected, None, **extra)
    return Kappa(n, agreed, excluded, observed, expected, (observed - expected) / (1.0 - expected), **extra)
