"""Where each language of a sample stands: grammars, Glottocode, values per status, last change.

The statuses are core's own (:mod:`core.profile.entries`, the words the profile dock's filter
uses): ``coded`` (by hand, no model answer), ``accepted``, ``overridden``, ``unknown`` (the
coder's "?"), ``predicted`` (the model's value, nobody decided), and ``uncoded`` — the profile
dock's "not coded yet": every feature of the sample's feature set the coder has not decided
(so predicted values are counted there too, as the dock counts them).

The feature set is the one given (``--features``), else the sample's own: every feature that
holds a value (decided or predicted) in at least one of its projects, so "uncoded" reads as "what
the rest of the sample has and this language lacks".
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field

from core.profile.entries import ACCEPTED, CODED, NOT_ENOUGH, OVERRIDDEN, PREDICTED, UNKNOWN, ProfileEntry
from core.sample.snapshot import SampleRead, Snapshot

UNCODED = "uncoded"  # the profile dock's "not coded yet" (gui/profile/profile_summary.py)
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

    def to_json(self) -> dict:
        return {"features": len(self.feature_ids), "languages": [s.to_json() for s in self.languages],
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


def language_status(snapshot: Snapshot, feature_ids: list[str]) -> LanguageStatus:
    """Counts per status of one project; ``uncoded`` counts the features of ``feature_ids`` nobody decided."""
    wanted = set(feature_ids)
    counts = Counter(dict.fromkeys(COLUMNS, 0))
    decided: set[str] = set()
    for e in snapshot.entries:
        if e.status in DECIDED:
            counts[e.status] += 1
            decided.add(e.feature_id)
        elif e.status == PREDICTED and e.code is not None:
            counts[PREDICTED] += 1
        elif e.status == NOT_ENOUGH:
            pass  # the model's "not enough information": undecided, counted in uncoded only
    counts[UNCODED] = len(wanted - decided)
    return LanguageStatus(str(snapshot.path), snapshot.label, snapshot.glottocode, snapshot.grammars,
                          {c: counts[c] for c in COLUMNS}, snapshot.last_change, snapshot.coders)
