"""Reliability statistics typologists report beside Cohen's kappa: Krippendorff's alpha, PABAK, Gwet's AC1,
and seeded bootstrap confidence intervals.

Why more than kappa: kappa is low when one value dominates even if the coders nearly always agree
(the "kappa paradox": 6 of 7 agreements with one rare value can give kappa 0), so Grambank-style
binary features with skewed values need a statistic that does not collapse there (PABAK, AC1);
and a sample double-coded by three or more coders, or with missing values, needs Krippendorff's
alpha.  All functions are plain Python over codes; "?" and uncoded values are missing.

Krippendorff's alpha (Krippendorff 2004, *Content Analysis*, ch. 11; "Computing Krippendorff's
alpha-reliability", 2011): units are items, each coded by any number of coders.  Only units with
at least two values count ("pairable").  The coincidence matrix adds, for each unit u with m_u
values, 1 / (m_u - 1) for every ordered pair of values of different coders: o[c][k].  With
n_c = sum_k o[c][k] and n = sum_c n_c::

    D_o = sum_{c,k} o[c][k] * d(c,k) / n
    D_e = sum_{c,k} n_c * n_k * d(c,k) / (n * (n - 1))
    alpha = 1 - D_o / D_e

nominal: d(c,k) = 0 if c == k else 1; ordinal (values in their order, ranks g):
d(c,k) = (sum_{g=c..k} n_g - (n_c + n_k) / 2) ** 2.  alpha is undefined (None) when D_e = 0.

PABAK (Byrt, Bishop & Carlin 1993): kappa with p_e fixed at 1/q for q categories,
(q * p_o - 1) / (q - 1); for two categories 2 * p_o - 1.

Gwet's AC1 (Gwet 2008): p_e = sum_k pi_k (1 - pi_k) / (q - 1) with pi_k the mean of the two
coders' shares of category k; AC1 = (p_o - p_e) / (1 - p_e).

Confidence intervals: the percentile bootstrap over items (Efron & Tibshirani 1993), resampled
with a seeded generator so the same data give the same interval.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

MISSING = (None, "", "?")
SEED = 30


def krippendorff_alpha(units: Sequence[Sequence[str | None]], *, ordered: Sequence[str] | None = None
                       ) -> float | None:
    """Krippendorff's alpha of ``units`` (each the values its coders gave; missing ones are None, "" or "?").

    ``ordered`` (the feature's values in their order) gives the ordinal alpha, else nominal.
    """
    coincidences: dict[tuple[str, str], float] = {}
    for unit in units:
        values = [str(v) for v in unit if v not in MISSING]
        m = len(values)
        if m < 2:
            continue
        for i, c in enumerate(values):
            for j, k in enumerate(values):
                if i != j:
                    coincidences[(c, k)] = coincidences.get((c, k), 0.0) + 1.0 / (m - 1)
    totals: dict[str, float] = {}
    for (c, _k), o in coincidences.items():
        totals[c] = totals.get(c, 0.0) + o
    n = sum(totals.values())
    if n <= 1:
        return None
    distance = _ordinal(totals, ordered) if ordered is not None else (lambda c, k: 0.0 if c == k else 1.0)
    observed = sum(o * distance(c, k) for (c, k), o in coincidences.items()) / n
    expected = sum(totals[c] * totals[k] * distance(c, k) for c in totals for k in totals) / (n * (n - 1))
    if expected <= 0:
        return None
    return 1.0 - observed / expected


def _ordinal(totals: dict[str, float], ordered: Sequence[str]) -> Callable[[str, str], float]:
    order = list(dict.fromkeys(list(ordered) + sorted(v for v in totals if v not in ordered)))
    rank = {v: i for i, v in enumerate(order)}

    def distance(c: str, k: str) -> float:
        if c == k:
            return 0.0
        low, high = sorted((rank[c], rank[k]))
        between = sum(totals.get(order[g], 0.0) for g in range(low, high + 1))
        return (between - (totals[c] + totals[k]) / 2.0) ** 2

    return distance


def pabak(pairs: Sequence[tuple[str, str]], categories: int = 2) -> float | None:
    """Prevalence- and bias-adjusted kappa over (A, B) pairs with values, for ``categories`` possible values."""
    if not pairs or categories < 2:
        return None
    p_o = sum(1 for a, b in pairs if a == b) / len(pairs)
    return (categories * p_o - 1.0) / (categories - 1.0)


def gwet_ac1(pairs: Sequence[tuple[str, str]], categories: Sequence[str] | None = None) -> float | None:
    """Gwet's AC1 over (A, B) pairs with values; ``categories`` the possible values (default: those seen)."""
    if not pairs:
        return None
    labels = list(dict.fromkeys([*(categories or ()), *(x for p in pairs for x in p)]))
    q = len(labels)
    if q < 2:
        return None
    n = len(pairs)
    p_o = sum(1 for a, b in pairs if a == b) / n
    count_a, count_b = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    p_e = sum(((count_a[k] + count_b[k]) / (2 * n)) * (1 - (count_a[k] + count_b[k]) / (2 * n))
              for k in labels) / (q - 1)
    return (p_o - p_e) / (1 - p_e) if p_e < 1 else None


@dataclass(frozen=True)
class Interval:
    """A percentile bootstrap interval of a statistic (None bounds when too few resamples were defined)."""

    estimate: float | None
    low: float | None
    high: float | None
    level: float
    resamples: int
    seed: int

    def shown(self) -> str:
        if self.estimate is None:
            return "n/a"
        if self.low is None or self.high is None:
            return f"{self.estimate:.2f}"
        return f"{self.estimate:.2f} [{self.low:.2f}, {self.high:.2f}]"

    def to_json(self) -> dict:
        return {"estimate": self.estimate, "low": self.low, "high": self.high, "level": self.level,
                "resamples": self.resamples, "seed": self.seed}


def bootstrap(items: Sequence, statistic: Callable[[list], float | None], *, resamples: int = 1000,
              level: float = 0.95, seed: int = SEED) -> Interval:
    """The statistic of ``items`` and its percentile bootstrap interval (items resampled with replacement)."""
    items = list(items)
    estimate = statistic(items)
    if not items or estimate is None:
        return Interval(estimate, None, None, level, resamples, seed)
    rng = random.Random(seed)
    values = []
    for _ in range(resamples):
        value = statistic([items[rng.randrange(len(items))] for _ in items])
        if value is not None:
            values.append(value)
    if len(values) < resamples / 2:  # mostly undefined (one value everywhere): no honest interval
        return Interval(estimate, None, None, level, resamples, seed)
    values.sort()
    tail = (1.0 - level) / 2.0
    low = values[int(tail * (len(values) - 1))]
    high = values[int(round((1.0 - tail) * (len(values) - 1)))]
    return Interval(estimate, low, high, level, resamples, seed)


# -- pooled over features, each with its own value set -------------------------------------------------------

ORDINAL = {"1A": ("1", "2", "3", "4", "5"), "2A": ("1", "2", "3"), "13A": ("1", "2", "3"),
           "49A": ("1", "2", "3", "4", "5", "6", "7", "8")}  # WALS features whose values are ordered sizes


def _value_count(feature_id: str, seen: set[str]) -> int:
    from core.catalog import load_catalog

    catalog = load_catalog()
    known = len(catalog.get(feature_id).values) if feature_id and feature_id in catalog else 0
    return max(known, len(seen), 2)


def pooled(items: Sequence[tuple[str, str, str]], kind: str) -> float | None:
    """PABAK (``kind`` "pabak") or AC1 ("ac1") over (feature, A, B) items with values, pooled over features.

    Each feature's chance agreement p_e uses its own value set (q_f values): 1/q_f for PABAK, Gwet's
    for AC1.  Pooled as kappa is (de Vries et al. 2008): (mean p_o - mean p_e) / (1 - mean p_e), means
    weighted by each feature's number of items.
    """
    by_feature: dict[str, list[tuple[str, str]]] = {}
    for fid, a, b in items:
        by_feature.setdefault(fid, []).append((a, b))
    n = sum(len(p) for p in by_feature.values())
    if n == 0:
        return None
    p_o = p_e = 0.0
    for fid, pairs in by_feature.items():
        q = _value_count(fid, {x for p in pairs for x in p})
        agreed = sum(1 for a, b in pairs if a == b)
        p_o += agreed
        if kind == "pabak":
            p_e += len(pairs) / q
        else:
            shares = Counter(x for p in pairs for x in p)
            p_e += len(pairs) * sum((c / (2 * len(pairs))) * (1 - c / (2 * len(pairs))) for c in shares.values()) \
                / (q - 1)
    p_o, p_e = p_o / n, p_e / n
    return (p_o - p_e) / (1 - p_e) if p_e < 1 else None


@dataclass(frozen=True)
class Reliability:
    """Agreement, kappa and alpha with bootstrap intervals, and AC1 and PABAK, over two coders' items."""

    n: int
    agreement: Interval
    kappa: Interval
    alpha: Interval
    ac1: float | None
    pabak: float | None
    alpha_ordinal: float | None = None  # only for one ordered feature (ORDINAL)

    def to_json(self) -> dict:
        return {"n": self.n, "agreement": self.agreement.to_json(), "kappa": self.kappa.to_json(),
                "alpha": self.alpha.to_json(), "ac1": self.ac1, "pabak": self.pabak,
                "alpha_ordinal": self.alpha_ordinal}

    def shown(self) -> str:
        level = f"{self.agreement.level:.0%}"
        parts = [f"agreement {self.agreement.shown()}", f"kappa {self.kappa.shown()}",
                 f"alpha {self.alpha.shown()}", f"AC1 {_num(self.ac1)}", f"PABAK {_num(self.pabak)}"]
        if self.alpha_ordinal is not None:
            parts.append(f"ordinal alpha {self.alpha_ordinal:.2f}")
        return f"{', '.join(parts)} ({level} bootstrap intervals, {self.agreement.resamples} resamples, " \
               f"seed {self.agreement.seed}; n {self.n})"


def _num(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}"


def reliability(items: Sequence[tuple[str, str | None, str | None]], *, resamples: int = 1000,
                seed: int = SEED) -> Reliability:
    """The statistics of two coders' (feature, A's code, B's code) items; missing codes ("?", none) left out."""
    from core.sample.kappa import category

    kept = [(fid, str(a), str(b)) for fid, a, b in items if a not in MISSING and b not in MISSING]
    labelled = [(category(f, a), category(f, b)) for f, a, b in kept]  # each feature's own categories
    agreement, kappa, alpha = pair_intervals(labelled, resamples=resamples, seed=seed)
    features = {f for f, _a, _b in kept}
    ordinal = None
    if len(features) == 1 and (only := next(iter(features))) in ORDINAL:
        ordinal = krippendorff_alpha([(a, b) for _f, a, b in kept], ordered=ORDINAL[only])
    return Reliability(len(kept), agreement, kappa, alpha, pooled(kept, "ac1"), pooled(kept, "pabak"), ordinal)


def pair_intervals(pairs: Sequence[tuple[str, str]], *, resamples: int = 1000, level: float = 0.95,
                   seed: int = SEED) -> tuple[Interval, Interval, Interval]:
    """Agreement, Cohen's kappa and Krippendorff's alpha of two coders' (A, B) label pairs, with percentile
    bootstrap intervals.

    The same resampling as :func:`bootstrap` (items with replacement), done on the counts of the
    distinct pairs (a multinomial draw per resample, numpy), so 1,000 resamples of a sample's
    thousand items take milliseconds.  Two coders, no missing value: alpha's coincidences are each
    pair counted both ways, N = 2n, D_o = 1 - p_o, D_e = (N^2 - sum_c N_c^2) / (N (N - 1)).
    """
    import numpy as np

    from core.sample.kappa import kappa_of_pairs

    n = len(pairs)
    estimate_kappa = kappa_of_pairs(pairs).kappa if n else None
    estimate_alpha = krippendorff_alpha(pairs) if n else None
    estimate_agreement = sum(1 for a, b in pairs if a == b) / n if n else None
    if n == 0:
        empty = Interval(None, None, None, level, resamples, seed)
        return empty, empty, empty
    kinds = Counter(pairs)
    types = list(kinds)
    labels = sorted({x for t in types for x in t})
    index = {label: i for i, label in enumerate(labels)}
    one_a = np.zeros((len(types), len(labels)))
    one_b = np.zeros((len(types), len(labels)))
    for t, (a, b) in enumerate(types):
        one_a[t, index[a]] = 1.0
        one_b[t, index[b]] = 1.0
    same = np.array([1.0 if a == b else 0.0 for a, b in types])
    probabilities = np.array([kinds[t] for t in types], dtype=float) / n
    counts = np.random.default_rng(seed).multinomial(n, probabilities, size=resamples).astype(float)
    p_o = counts @ same / n
    share_a, share_b = counts @ one_a / n, counts @ one_b / n
    p_e = (share_a * share_b).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappas = np.where(p_e < 1 - 1e-12, (p_o - p_e) / (1 - p_e), np.nan)
        big_n = 2.0 * n
        totals = (share_a + share_b) * n
        d_e = (big_n * big_n - (totals * totals).sum(axis=1)) / (big_n * (big_n - 1))
        alphas = np.where(d_e > 0, 1 - (1 - p_o) / d_e, np.nan)

    def interval(estimate: float | None, values) -> Interval:
        values = values[~np.isnan(values)]
        if estimate is None or len(values) < resamples / 2:
            return Interval(estimate, None, None, level, resamples, seed)
        values = np.sort(values)
        tail = (1.0 - level) / 2.0
        return Interval(estimate, float(values[int(tail * (len(values) - 1))]),
                        float(values[int(round((1.0 - tail) * (len(values) - 1)))]), level, resamples, seed)

    return interval(estimate_agreement, p_o), interval(estimate_kappa, kappas), interval(estimate_alpha, alphas)
