"""The sample against a database (Grambank or WALS CLDF): agreement, kappa, macro-F1, disagreements.

One scorer: :func:`core.profile.scoring.score_profiles` (and its :func:`score_cell` for the
feature groups) computes agreement (its accuracy) and macro-F1 exactly as ``bench profile`` does,
over every reference value of the sample's languages and features.  A value we lack (uncoded,
"?", the model's "not enough information") counts as a miss there, as the scorer defines it.
Cohen's kappa (:mod:`core.sample.kappa`) is reported beside it over the pairs where *both* sides
have a value, with the excluded pairs counted.

Reference values are read once for the whole sample by
:func:`core.profile.agreement.load_reference_values_for` (a full CLDF release through pycldf, or
the ``values_subset.csv`` tables of ``../shared/cldf``).
Which features: the ``--features`` set if given, else every feature the sample holds a value for.
Our value of a feature is the profile's (:func:`core.profile.scoring.project_codes` reads the same
entries): the coder's decision, else the model's prediction.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

from core.profile.scoring import NO_VALUE, Cell, GoldValue, ProfileScores, score_cell, score_profiles
from core.sample.groups import group_of
from core.sample.kappa import Kappa, kappa_of_pairs
from core.sample.snapshot import SampleRead, Snapshot
from core.sample.status import sample_features

DISAGREEMENT_COLUMNS = ("language", "glottocode", "feature", "feature_name", "ours", "ours_label", "theirs",
                        "theirs_label", "our_status", "our_pages", "project", "reference_source")


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


@dataclass
class Slice:
    """Figures of one slice (overall, a feature, a group, a language): the scorer's cell and kappa."""

    cell: Cell
    kappa: Kappa

    def to_json(self) -> dict:
        return {"n": self.cell.n, "agreement": self.cell.accuracy, "macro_f1": self.cell.macro_f1,
                "kappa": self.kappa.kappa, "kappa_pairs": self.kappa.n, "kappa_excluded": self.kappa.excluded,
                "no_value_share": self.cell.no_value_share}


@dataclass
class ReferenceComparison:
    """The sample scored against a database: overall, per feature, per group, per language; disagreements."""

    reference: str
    scores: ProfileScores  # score_profiles's own result (overall, by_language keyed by Glottocode, by_feature)
    overall: Slice
    by_feature: dict[str, Slice]
    by_group: dict[str, Slice]
    by_language: dict[str, Slice]  # Glottocode -> figures
    names: dict[str, str]  # Glottocode -> language name
    disagreements: list[ReferenceDisagreement]
    skipped: list[str] = field(default_factory=list)  # why a language was left out
    problems: list = field(default_factory=list)

    def to_json(self) -> dict:
        return {"reference": self.reference, "overall": self.overall.to_json(),
                "by_feature": {k: v.to_json() for k, v in self.by_feature.items()},
                "by_group": {k: v.to_json() for k, v in self.by_group.items()},
                "by_language": {k: {"language": self.names.get(k, k), **v.to_json()}
                                for k, v in self.by_language.items()},
                "disagreements": [asdict(d) for d in self.disagreements], "skipped": self.skipped,
                "problems": [p.to_json() for p in self.problems]}


def compare_with_reference(read: SampleRead, reference: str | Path, *, feature_ids: list[str] | None = None,
                           groups: dict[str, str] | None = None) -> ReferenceComparison:
    """Score the sample's values against the reference folder's values for the same languages and features."""
    from core.profile.agreement import load_reference_values_for

    features = set(feature_ids) if feature_ids is not None else set(sample_features(read.snapshots))
    groups = groups or {}
    gold: list[GoldValue] = []
    ours: dict[tuple[str, str], str | None] = {}
    sources: dict[tuple[str, str], tuple[str, str]] = {}
    entries: dict[tuple[str, str], object] = {}
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
            if ref is None or ref.code is None:
                continue
            gold.append(GoldValue(s.path.name, s.glottocode, s.glottocode, fid, str(ref.code)))
            sources[(s.glottocode, fid)] = (ref.label, ref.source)
            e = by_feature.get(fid)
            ours[(s.glottocode, fid)] = e.code if e is not None and e.has_value else None
            entries[(s.glottocode, fid)] = (s, e)
    scores = score_profiles(gold, ours)
    pairs = [(g, _ours(ours.get((g.glottocode, g.feature_id)))) for g in gold]

    def slice_of(items: list[tuple[GoldValue, str]], cell: Cell | None = None) -> Slice:
        both = [(p, g.code) for g, p in items if p != NO_VALUE]
        return Slice(cell or score_cell([g.code for g, _ in items], [p for _, p in items]),
                     kappa_of_pairs(both, excluded=len(items) - len(both)))

    by_feature_items: dict[str, list] = defaultdict(list)
    by_group_items: dict[str, list] = defaultdict(list)
    by_language_items: dict[str, list] = defaultdict(list)
    for g, p in pairs:
        by_feature_items[g.feature_id].append((g, p))
        by_group_items[group_of(g.feature_id, groups)].append((g, p))
        by_language_items[g.glottocode].append((g, p))
    return ReferenceComparison(
        reference=str(reference), scores=scores, overall=slice_of(pairs, scores.overall),
        by_feature={f: slice_of(v, scores.by_feature[f]) for f, v in sorted(by_feature_items.items())},
        by_group={k: slice_of(v) for k, v in sorted(by_group_items.items())},
        by_language={k: slice_of(v, scores.by_language[k]) for k, v in by_language_items.items()},
        names=names, disagreements=_disagreements(pairs, entries, sources), skipped=skipped,
        problems=list(read.problems))


def _ours(code: str | None) -> str:
    return NO_VALUE if code in (None, "", NO_VALUE) else str(code)


def _disagreements(pairs, entries, sources) -> list[ReferenceDisagreement]:
    from core.export.cldf import page_ranges

    out = []
    for g, p in pairs:
        if p == NO_VALUE or p == g.code:
            continue
        s, e = entries[(g.glottocode, g.feature_id)]
        assert isinstance(s, Snapshot)
        label, source = sources[(g.glottocode, g.feature_id)]
        out.append(ReferenceDisagreement(
            s.label, g.glottocode, g.feature_id, e.name, p, e.label or "", g.code, label, e.status,
            page_ranges(list(e.pages)) if e.pinned else "", str(s.path), source))
    return out
