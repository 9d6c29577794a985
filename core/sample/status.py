"""Where each language of a sample stands: grammars, Glottocode, values per status, last change.

The statuses are core's own (:mod:`core.profile.entries`, the words the profile dock's filter
uses) and each feature of the set has exactly one (:func:`status_word`), so the six columns are
disjoint and sum to the set's size: ``coded`` (by hand, no model answer), ``accepted``,
``overridden``, ``unknown`` (the coder's "?"), ``predicted`` (the model's value only, nobody
decided) and ``uncoded`` (no value at all: nothing in the project, the model's "not enough
information", an unreadable answer, evidence or notes only).  The matrix's status sheet, the
window and the exports use the same words.

The feature set is the one given (``--features``), else the sample's own: every feature that
holds a value (decided or predicted) in at least one of its projects, so "uncoded" reads as "what
the rest of the sample has and this language lacks".
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field

from core.profile.entries import ACCEPTED, CODED, OVERRIDDEN, PREDICTED, UNKNOWN, ProfileEntry
from core.records.vocabulary import ProfileStatus
from core.sample.snapshot import SampleRead, Snapshot

UNCODED = ProfileStatus.UNCODED  # the profile dock's "not coded yet" (gui/profile/profile_summary.py)
DECIDED = (CODED, ACCEPTED, OVERRIDDEN, UNKNOWN)
COLUMNS = (CODED, ACCEPTED, OVERRIDDEN, UNKNOWN, PREDICTED, UNCODED)


@dataclass(frozen=True)
class LanguageStatus:
    """One language (project) of the sample and how far its coding has got."""

    path: str
    language: str
    glottocode: str | None
    grammars: tuple[str, ...]
    counts: dict[str, int]  # COLUMNS -> count
    last_change: str
    coders: tuple[str, ...] = ()
    family: str = ""  # from the bundled genealogy table (core.catalog.genealogy)
    genus: str = ""
    macroarea: str = ""

    def to_json(self) -> dict:
        out = asdict(self)
        out["grammars"] = list(self.grammars)
        out["coders"] = list(self.coders)
        return out


@dataclass
class SampleStatus:
    """Every language's status, the feature set counted against and the projects that could not be read."""

    languages: list[LanguageStatus]
    feature_ids: list[str]
    problems: list = field(default_factory=list)  # MemberProblem
    warnings: list[str] = field(default_factory=list)

    def totals_by(self, attribute: str) -> dict[str, dict[str, int]]:
        """Value counts per family or macroarea (``attribute``): languages, and each status column summed."""
        out: dict[str, dict[str, int]] = {}
        for s in self.languages:
            key = getattr(s, attribute) or "(unknown)"
            row = out.setdefault(key, {"languages": 0, **dict.fromkeys(COLUMNS, 0)})
            row["languages"] += 1
            for c in COLUMNS:
                row[c] += s.counts[c]
        return dict(sorted(out.items()))

    def to_json(self) -> dict:
        return {"features": len(self.feature_ids), "languages": [s.to_json() for s in self.languages],
                "by_family": self.totals_by("family"), "by_macroarea": self.totals_by("macroarea"),
                "problems": [p.to_json() for p in self.problems], "warnings": self.warnings}


def has_value(entry: ProfileEntry) -> bool:
    """A decided value (code or "?") or a model's value: what makes a feature part of the sample's set."""
    return entry.status in DECIDED or (entry.status == PREDICTED and entry.code is not None)


def sample_features(snapshots: list[Snapshot]) -> list[str]:
    """The sample's own feature set: features with a value in at least one project, in catalog order."""
    from core.profile.entries import sort_key

    found = {e.feature_id for s in snapshots for e in s.entries if has_value(e)}
    return sorted(found, key=sort_key)


def sample_status(read: SampleRead, feature_ids: list[str] | None = None) -> SampleStatus:
    """The status of every language of a read sample, counted against ``feature_ids`` (default: the sample's)."""
    features = list(feature_ids) if feature_ids is not None else sample_features(read.snapshots)
    return SampleStatus([language_status(s, features) for s in read.snapshots], features, list(read.problems),
                        read.warnings())


def status_word(entry: ProfileEntry | None) -> str:
    """The one status column a feature counts in (:data:`COLUMNS`); ``None`` (nothing stored) is uncoded."""
    if entry is None:
        return UNCODED
    if entry.status in DECIDED:
        return entry.status
    if entry.status == PREDICTED and entry.code is not None:
        return PREDICTED
    return UNCODED  # NOT_ENOUGH, no value, evidence only, notes only: no value yet


def language_status(snapshot: Snapshot, feature_ids: list[str]) -> LanguageStatus:
    """Counts per status of one project over ``feature_ids``: disjoint columns summing to ``len(feature_ids)``."""
    by_feature = snapshot.entry_map()
    counts: Counter[str] = Counter(dict.fromkeys(COLUMNS, 0))
    for fid in dict.fromkeys(feature_ids):
        counts[status_word(by_feature.get(fid))] += 1
    from core.catalog.genealogy import lineage_of

    lineage = lineage_of(snapshot.glottocode)
    return LanguageStatus(str(snapshot.path), snapshot.label, snapshot.glottocode, snapshot.grammars,
                          {c: counts[c] for c in COLUMNS}, snapshot.last_change, snapshot.coders,
                          lineage.family, lineage.genus, lineage.macroarea)
