"""The sample against a database (Grambank or WALS CLDF): agreement, kappa, macro-F1, disagreements.

One meaning for each figure, the same as ``compare A B`` (:mod:`core.sample.kappa`):

* an *item* is a (language, feature) the reference holds a row for;
* it is *scored* when both sides have a real value; agreement is the share of equal values among
  the scored items, macro-F1 and Cohen's kappa are computed over the same items, with each
  feature's own categories (:func:`core.sample.kappa.category`);
* everything else is *excluded and counted*, by kind: ``reference_unknown`` (the database's "?",
  whether a values table writes "?" or pycldf reads the row as having no value),
  ``unknown`` (our "?"), ``uncoded`` (no value of ours), and, with ``reviewed_only``,
  ``unreviewed`` (the model's prediction nobody decided).

Every slice is also split by where our value came from: ``decided`` (a coder's decision) and
``predicted`` (the model's value, not reviewed), so predictions and coders' decisions are never
mixed without saying so.  No scored item gives agreement "n/a" with the reason, never 0.000.

Reference values are read once for the whole sample by
:func:`core.profile.agreement.load_reference_values_for` (a full CLDF release through pycldf, or
the ``values_subset.csv`` tables of ``../shared/cldf``).  Which features: the ``--features`` set if
given, else every feature the sample holds a value for.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

from core.profile.entries import PREDICTED, UNKNOWN
from core.sample.groups import group_of
from core.sample.kappa import Kappa, category, feature_kappa
from core.sample.snapshot import SampleRead, Snapshot
from core.sample.status import sample_features

DISAGREEMENT_COLUMNS = ("language", "glottocode", "feature", "feature_name", "ours", "ours_label", "theirs",
                        "theirs_label", "our_status", "our_pages", "project", "reference_source")
DECIDED, PREDICTIONS = "decided", PREDICTED  # where our value comes from: a decision, or the model alone


@dataclass(frozen=True)
class ReferenceDisagreement:
    """A value where the sample and the database differ (both have one)."""

    language: str
    glottocode: str
    feature: str
    feature_name: str
    ours: str
    ours_label: str
    theirs: str
    theirs_label: str
    our_status: str
    our_pages: str
    project: str
    reference_source: str

    def row(self) -> list[str]:
        return [str(getattr(self, c)) for c in DISAGREEMENT_COLUMNS]


@dataclass(frozen=True)
class Item:
    """One (language, feature) the reference has a row for: our code and where it came from, and theirs."""

    glottocode: str
    feature_id: str
    ours: str | None  # None: no value of ours; "?": our unknown
    theirs: str | None  # None or "?": the reference's unknown
    origin: str  # DECIDED | PREDICTIONS | "" (no value of ours)


@dataclass
class Slice:
    """Figures of one slice (overall, a feature, a group, a language) under the one definition above."""

    items: int  # reference rows of the slice
    kappa: Kappa  # n (scored), agreed, agreement, kappa; unknown / uncoded counted
    macro_f1: float | None
    reference_unknown: int = 0
    unreviewed: int = 0

    @property
    def n(self) -> int:
        return self.kappa.n

    @property
    def agreement(self) -> float | None:
        return self.kappa.observed

    @property
    def excluded(self) -> int:
        return self.items - self.kappa.n

    @property
    def reason(self) -> str:
        """Why agreement is "n/a" ("" when it is defined)."""
        if self.kappa.n:
            return ""
        if not self.items:
            return "the reference holds no value for these languages and features"
        return "no item has a real value on both sides"

    def to_json(self) -> dict:
        k = self.kappa
        return {"items": self.items, "n": k.n, "agreement": k.observed, "macro_f1": self.macro_f1,
                "kappa": k.kappa, "kappa_n": k.n, "small_n": k.small, "excluded": self.excluded,
                "excluded_reference_unknown": self.reference_unknown, "excluded_our_unknown": k.unknown,
                "excluded_uncoded": k.uncoded - self.reference_unknown - self.unreviewed,
                "excluded_unreviewed": self.unreviewed, "reason": self.reason or None}


@dataclass
class ReferenceComparison:
    """The sample scored against a database: overall, per feature, per group, per language; disagreements."""

    reference: str
    overall: Slice
    by_feature: dict[str, Slice]
    by_group: dict[str, Slice]
    by_language: dict[str, Slice]  # Glottocode -> figures
    names: dict[str, str]  # Glottocode -> language name
    disagreements: list[ReferenceDisagreement]
    by_origin: dict[str, Slice] = field(default_factory=dict)  # DECIDED / PREDICTIONS -> figures
    by_family: dict[str, Slice] = field(default_factory=dict)  # top-level family (core.catalog.genealogy)
    by_macroarea: dict[str, Slice] = field(default_factory=dict)
    reviewed_only: bool = False
    skipped: list[str] = field(default_factory=list)  # why a language was left out
    problems: list = field(default_factory=list)

    def to_json(self) -> dict:
        return {"reference": self.reference, "reviewed_only": self.reviewed_only, "overall": self.overall.to_json(),
                "by_origin": {k: v.to_json() for k, v in self.by_origin.items()},
                "by_family": {k: v.to_json() for k, v in self.by_family.items()},
                "by_macroarea": {k: v.to_json() for k, v in self.by_macroarea.items()},
                "by_feature": {k: v.to_json() for k, v in self.by_feature.items()},
                "by_group": {k: v.to_json() for k, v in self.by_group.items()},
                "by_language": {k: {"language": self.names.get(k, k), **v.to_json()}
                                for k, v in self.by_language.items()},
                "disagreements": [asdict(d) for d in self.disagreements], "skipped": self.skipped,
                "problems": [p.to_json() for p in self.problems]}


def slice_of(items: list[Item], *, reviewed_only: bool = False) -> Slice:
    """The figures of ``items`` (see the module's definition)."""
    from core.profile.scoring import score_cell

    reference_unknown = sum(1 for i in items if i.theirs in (None, "", "?"))
    unreviewed = sum(1 for i in items if reviewed_only and i.origin == PREDICTIONS and i.theirs not in (None, "", "?"))
    pairs: list[tuple[str, str | None, str | None]] = []
    for i in items:
        if i.theirs in (None, "", "?") or (reviewed_only and i.origin == PREDICTIONS):
            pairs.append((i.feature_id, None, i.theirs))  # counted as uncoded by feature_kappa, told apart here
        else:
            pairs.append((i.feature_id, i.ours, i.theirs))
    kappa = feature_kappa(pairs)
    scored = [(category(i.feature_id, str(i.theirs)), category(i.feature_id, str(i.ours))) for i in items
              if i.theirs not in (None, "", "?") and i.ours not in (None, "", "?")
              and not (reviewed_only and i.origin == PREDICTIONS)]
    macro = score_cell([g for g, _ in scored], [p for _, p in scored]).macro_f1 if scored else None
    return Slice(len(items), kappa, macro, reference_unknown, unreviewed)


def compare_with_reference(read: SampleRead, reference: str | Path, *, feature_ids: list[str] | None = None,
                           groups: dict[str, str] | None = None, reviewed_only: bool = False) -> ReferenceComparison:
    """Score the sample's values against the reference folder's values for the same languages and features."""
    from core.profile.agreement import load_reference_values_for

    features = set(feature_ids) if feature_ids is not None else set(sample_features(read.snapshots))
    groups = groups or {}
    items: list[Item] = []
    context: dict[tuple[str, str], tuple] = {}
    names: dict[str, str] = {}
    skipped: list[str] = []
    languages = read.by_language()
    by_language = load_reference_values_for([reference], [s.glottocode for s in languages if s.glottocode])
    for s in languages:
        if not s.glottocode:
            skipped.append(f"{s.path.name}: the project has no Glottocode.")
            continue
        refs = by_language[s.glottocode]
        names[s.glottocode] = s.label
        by_feature = s.entry_map()
        for fid in sorted(features):
            ref = refs.get(fid)
            if ref is None:
                continue
            e = by_feature.get(fid)
            ours, origin = _ours(e)
            theirs = str(ref.code) if ref.code not in (None, "") else None
            items.append(Item(s.glottocode, fid, ours, theirs, origin))
            context[(s.glottocode, fid)] = (s, e, ref)
    parts = _partition(items, groups)

    def slices(kind: str) -> dict[str, Slice]:
        return {k: slice_of(v, reviewed_only=reviewed_only) for k, v in sorted(parts[kind].items())}

    from core.profile.entries import sort_key

    return ReferenceComparison(
        reference=str(reference), overall=slice_of(items, reviewed_only=reviewed_only),
        by_feature=dict(sorted(slices("feature").items(), key=lambda kv: sort_key(kv[0]))),
        by_group=slices("group"), by_language=slices("language"), names=names,
        by_family=slices("family"), by_macroarea=slices("macroarea"),
        disagreements=_disagreements(items, context, reviewed_only),
        by_origin={k: slice_of(parts["origin"].get(k, [])) for k in (DECIDED, PREDICTIONS)},
        reviewed_only=reviewed_only, skipped=skipped, problems=list(read.problems))


def _partition(items: list[Item], groups: dict[str, str]) -> dict[str, dict[str, list[Item]]]:
    """The items by feature, group, language, origin, family and macroarea: the comparison's slices."""
    from core.catalog.genealogy import lineage_of

    parts: dict[str, dict[str, list[Item]]] = {k: defaultdict(list) for k in
                                               ("feature", "group", "language", "origin", "family", "macroarea")}
    for i in items:
        lineage = lineage_of(i.glottocode)
        parts["family"][lineage.family or "(unknown)"].append(i)
        parts["macroarea"][lineage.macroarea or "(unknown)"].append(i)
        parts["feature"][i.feature_id].append(i)
        parts["group"][group_of(i.feature_id, groups)].append(i)
        parts["language"][i.glottocode].append(i)
        if i.origin:
            parts["origin"][i.origin].append(i)
    return parts


def _ours(entry) -> tuple[str | None, str]:
    """Our code of a profile entry ("?" for the coder's unknown, None for none) and where it came from."""
    if entry is None:
        return None, ""
    if entry.status == UNKNOWN:
        return "?", DECIDED
    if not entry.has_value or entry.code in (None, ""):
        return None, ""
    return str(entry.code), PREDICTIONS if entry.status == PREDICTED else DECIDED


def _disagreements(items: list[Item], context: dict, reviewed_only: bool) -> list[ReferenceDisagreement]:
    """Items where both sides have a real value and the values differ ("?" is never a disagreement)."""
    from core.export.cldf import page_ranges

    out = []
    for i in items:
        if i.ours in (None, "?") or i.theirs in (None, "?") or i.ours == i.theirs:
            continue
        if reviewed_only and i.origin == PREDICTIONS:
            continue
        s, e, ref = context[(i.glottocode, i.feature_id)]
        assert isinstance(s, Snapshot)
        out.append(ReferenceDisagreement(
            s.label, i.glottocode, i.feature_id, e.name, i.ours, e.label or "", i.theirs, ref.label, e.status,
            page_ranges(list(e.pages)) if e.pinned else "", str(s.path), ref.source))
    return out
