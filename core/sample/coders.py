"""Two coders, blind, then agreement: compare two coders' project files of the same grammar.

A second coder codes the same grammar in a project file of their own; this module compares the
two coders' *current decisions* (core.coding: coded, accepted, overridden, unknown "?"; a model's
prediction nobody decided is no coder's value) feature by feature.  Both files are opened
read-only (:mod:`core.sample.snapshot`) and nothing of either changes here; storing a resolved
value is :mod:`core.sample.resolution`'s job, and only into the file the person names.

The shape the GUI (a disagreement queue) and the CLI (``compare A B``) build on::

    compare_projects(a_path, b_path, groups=None) -> CoderComparison
        .a, .b             : CoderFile (path, language name, Glottocode, coders)
        .features          : [FeatureVerdict] one per feature either side decided
                             (feature_id, feature_name, group, verdict, a, b, resolved, blind_pair)
        .disagreements     : [Disagreement] both sides decided, with different values ("?" included)
                             (…, b_pins_for_a: B's pins as pins of A's own copy of the book,
                              b_unmapped: B's pins that could not be found there, named)
        .overall           : Kappa (core.sample.kappa) of the current values
        .blind             : Kappa of the values before any resolution (core.sample.blind)
        .by_group          : {group: Kappa} (current), .blind_by_group
    CoderValue: project, coder, code ("?" for unknown), label, status, note, paragraph_ids,
                page_labels, decided_at, decision_id, pins, glottocode
    compare_folders(dir_a, dir_b, groups=None) -> SampleCoderComparison
        pairs the projects of two folders by Glottocode; .pairs (one CoderComparison per language),
        .by_coder_pair {("ana", "ben"): Kappa}, .by_feature {feature: Kappa over languages} (blind values)

Agreement has one meaning everywhere (:mod:`core.sample.kappa`): the share of equal values over
the features both coders decided with a real value; features with "?" on a side and features
decided by one side only are left out and counted (``unknown``, ``uncoded``).  Kappa's categories
are each feature's own (a code means something only within its feature).
"""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from core.errors import GrammarLensError
from core.sample.blind import find_record, pair_from_note
from core.sample.groups import group_of
from core.sample.kappa import Kappa, feature_kappa
from core.sample.members import same_file
from core.sample.pin_mapping import map_pins
from core.sample.snapshot import Snapshot, read_project

AGREE, DISAGREE, ONLY_A, ONLY_B = "agree", "disagree", "only A", "only B"


@dataclass(frozen=True)
class CoderValue:
    """One coder's current decision about one feature, as a disagreement shows it side by side."""

    project: Path
    coder: str
    code: str  # the value's code within the feature, or "?" (not enough information)
    label: str
    status: str  # coded | accepted | overridden | unknown (core.coding's statuses)
    note: str
    paragraph_ids: tuple[int, ...]  # pinned paragraphs (ids of *this* coder's project)
    page_labels: tuple[str, ...]  # printed pages of the pins
    decided_at: str
    decision_id: int
    pins: tuple = ()  # core.coding Pin records of this coder's project (page, paragraph, document)
    glottocode: str | None = None  # the language of this coder's project

    def to_json(self) -> dict:
        return {"project": str(self.project), "coder": self.coder, "value": self.code, "label": self.label,
                "status": self.status, "note": self.note, "paragraph_ids": list(self.paragraph_ids),
                "pages": list(self.page_labels), "decided_at": self.decided_at, "decision_id": self.decision_id,
                "glottocode": self.glottocode}

    def shown(self) -> str:
        """"1 (present), by ana, p. 12, 14" for reports and notes."""
        value = self.code if self.code == "?" else f"{self.code} ({self.label})"
        pages = f", p. {', '.join(self.page_labels)}" if self.page_labels else ""
        return f"{value} by {self.coder or 'an unnamed coder'}{pages}"


@dataclass(frozen=True)
class FeatureVerdict:
    """One feature of the comparison: agree, disagree, or decided by one side only."""

    feature_id: str
    feature_name: str
    group: str
    verdict: str
    a: CoderValue | None
    b: CoderValue | None
    resolved: bool = False  # A's current value is a resolution between the two coders
    blind_pair: tuple[str, str] | None = None  # (A's, B's) code before the resolution; None: never resolved

    @property
    def blind_verdict(self) -> str:
        """The verdict before any resolution."""
        if self.blind_pair is None:
            return self.verdict
        return AGREE if self.blind_pair[0] == self.blind_pair[1] else DISAGREE

    def to_json(self) -> dict:
        return {"feature": self.feature_id, "name": self.feature_name, "group": self.group, "verdict": self.verdict,
                "a": self.a.to_json() if self.a else None, "b": self.b.to_json() if self.b else None,
                "resolved": self.resolved, "blind_verdict": self.blind_verdict,
                "blind": list(self.blind_pair) if self.blind_pair else None}


@dataclass(frozen=True)
class Disagreement:
    """A feature both coders decided differently: what each said, and B's pins as A's project knows them."""

    feature_id: str
    feature_name: str
    group: str
    a: CoderValue
    b: CoderValue
    b_pins_for_a: tuple = ()  # core.coding Pin records valid in A's project (same book), for a resolution
    b_unmapped: tuple[str, ...] = ()  # B's pins not found in A's book, named ("p. 14 (¶8): why")

    def to_json(self) -> dict:
        return {"feature": self.feature_id, "name": self.feature_name, "group": self.group,
                "a": self.a.to_json(), "b": self.b.to_json(),
                "b_pins_for_a": [p.to_json() for p in self.b_pins_for_a], "b_unmapped": list(self.b_unmapped)}


@dataclass(frozen=True)
class CoderFile:
    """One side of a comparison: the project file, its language and who coded in it."""

    path: Path
    language: str
    glottocode: str | None
    coders: tuple[str, ...]

    @property
    def coder(self) -> str:
        """The file's coder: whoever made most of its current decisions ("" if none)."""
        return self.coders[0] if self.coders else ""

    def to_json(self) -> dict:
        return {"path": str(self.path), "language": self.language, "glottocode": self.glottocode,
                "coders": list(self.coders)}


@dataclass
class CoderComparison:
    """Two coders' files of one language compared feature by feature."""

    a: CoderFile
    b: CoderFile
    features: list[FeatureVerdict]
    disagreements: list[Disagreement]
    overall: Kappa
    by_group: dict[str, Kappa]
    warnings: list[str] = field(default_factory=list)
    blind: Kappa | None = None  # the figures before any resolution (= overall when nothing was resolved)
    blind_by_group: dict[str, Kappa] = field(default_factory=dict)
    blind_recorded_at: str = ""  # when A recorded the blind comparison with B ("" if never)

    @property
    def resolved(self) -> list[str]:
        """Features whose current value in A is a resolution between the two coders."""
        return [f.feature_id for f in self.features if f.resolved]

    def items(self, *, blind: bool) -> list[tuple[str, str | None, str | None]]:
        """(feature, A's code, B's code) of every feature either side decided, blind or current values."""
        out = []
        for f in self.features:
            pair = f.blind_pair if blind and f.blind_pair else (f.a.code if f.a else None, f.b.code if f.b else None)
            out.append((f.feature_id, *pair))
        return out

    def reliability(self, *, blind: bool):
        """Alpha, AC1, PABAK and bootstrap intervals (core.sample.reliability) of the blind or current values."""
        from core.sample.reliability import reliability

        return reliability(self.items(blind=blind))

    def to_json(self) -> dict:
        blind = self.blind or self.overall
        return {"a": self.a.to_json(), "b": self.b.to_json(), "overall": self.overall.to_json(),
                "current": self.overall.to_json(), "blind": blind.to_json(),
                "reliability": {"blind": self.reliability(blind=True).to_json(),
                                "current": self.reliability(blind=False).to_json()},
                "blind_recorded_at": self.blind_recorded_at or None, "resolved": self.resolved,
                "by_group": {g: k.to_json() for g, k in sorted(self.by_group.items())},
                "blind_by_group": {g: k.to_json() for g, k in sorted(self.blind_by_group.items())},
                "features": [f.to_json() for f in self.features],
                "disagreements": [d.to_json() for d in self.disagreements], "warnings": self.warnings}


def compare_projects(a_path: str | os.PathLike[str], b_path: str | os.PathLike[str], *,
                     groups: dict[str, str] | None = None) -> CoderComparison:
    """Compare coder A's project with coder B's (both opened read-only; neither changes)."""
    a_path, b_path = Path(a_path), Path(b_path)
    _refuse_same_file(a_path, b_path)
    a, b = read_project(a_path), read_project(b_path)
    comparison = compare_snapshots(a, b, groups=groups)
    if comparison.disagreements:
        comparison.disagreements = map_pins(a_path, b_path, comparison.disagreements)
    return comparison


def compare_snapshots(a: Snapshot, b: Snapshot, *, groups: dict[str, str] | None = None) -> CoderComparison:
    """The comparison of two read projects (no pin mapping: that needs both files, see compare_projects)."""
    from core.catalog import load_catalog

    catalog = load_catalog()
    groups = groups or {}
    warnings: list[str] = []
    if a.glottocode and b.glottocode and a.glottocode != b.glottocode:
        warnings.append(f"The two files describe different languages ({a.glottocode} and {b.glottocode}); "
                        "a resolution between them is refused unless asked for explicitly.")
    if set(a.grammars) != set(b.grammars) and a.grammars and b.grammars:
        warnings.append("The two files hold different grammars (or editions): B's pins are found in A's book by "
                        "their text; those that cannot be found are named.")
    values_a, values_b = coder_values(a), coder_values(b)
    record = find_record(a.blind_records, b.path)
    recorded = (record or {}).get("features", {})
    features: list[FeatureVerdict] = []
    disagreements: list[Disagreement] = []
    from core.profile.entries import sort_key

    for fid in sorted(set(values_a) | set(values_b), key=sort_key):
        va, vb = values_a.get(fid), values_b.get(fid)
        name = catalog.get(fid).name if fid in catalog else fid
        group = group_of(fid, groups)
        if va is None or vb is None:
            features.append(FeatureVerdict(fid, name, group, ONLY_B if va is None else ONLY_A, va, vb))
            continue
        verdict = AGREE if va.code == vb.code else DISAGREE
        noted = pair_from_note(va.note)  # A's current value is a resolution (its note records both sides)
        blind = _blind_pair(recorded.get(fid)) or noted
        changed = blind is not None and blind != (va.code, vb.code)
        features.append(FeatureVerdict(fid, name, group, verdict, va, vb, noted is not None,
                                       blind if changed or noted is not None else None))
        if verdict == DISAGREE:
            disagreements.append(Disagreement(fid, name, group, va, vb))
    current = [(f.group, f.feature_id, f.a.code if f.a else None, f.b.code if f.b else None) for f in features]
    blind_items = [(f.group, f.feature_id, *f.blind_pair) if f.blind_pair else item
                   for f, item in zip(features, current, strict=True)]
    return CoderComparison(
        _side(a), _side(b), features, disagreements, _kappa_of(current), _by_group(current), warnings,
        blind=_kappa_of(blind_items), blind_by_group=_by_group(blind_items),
        blind_recorded_at=str((record or {}).get("recorded_at", "")))


def _blind_pair(value) -> tuple[str, str] | None:
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return (str(value[0]), str(value[1]))
    return None


def _kappa_of(items: list) -> Kappa:
    """Kappa over (group, feature, A's code, B's code) items (one code None: decided by one side only)."""
    return feature_kappa((fid, x, y) for _g, fid, x, y in items)


def _by_group(items: list) -> dict[str, Kappa]:
    return {g: _kappa_of([i for i in items if i[0] == g]) for g in sorted({i[0] for i in items})}


def coder_values(snapshot: Snapshot) -> dict[str, CoderValue]:
    """Feature id -> the coder's current value in this project (features with only notes or pins left out)."""
    out: dict[str, CoderValue] = {}
    for fid, d in snapshot.decisions.items():
        if not d.has_value:
            continue
        out[fid] = CoderValue(
            project=snapshot.path, coder=d.reviewer or "", code=str(d.code), label=d.label or "", status=d.status,
            note=d.note or "", paragraph_ids=tuple(p.paragraph_id for p in d.pins if p.paragraph_id is not None),
            page_labels=tuple(dict.fromkeys(p.page_label for p in d.pins)), decided_at=d.created_at,
            decision_id=d.id, pins=tuple(d.pins), glottocode=snapshot.glottocode)
    return out


def _side(s: Snapshot) -> CoderFile:
    return CoderFile(s.path, s.label, s.glottocode, s.coders)


def _refuse_same_file(a: Path, b: Path) -> None:
    if same_file(a, b):
        raise GrammarLensError(f"{a} and {b} are the same file.", "Compare two coders' own project files.")


# -- two folders: the double-coded languages of a sample ----------------------------------------------------

@dataclass
class SampleCoderComparison:
    """Coder A's folder against coder B's, projects paired by Glottocode."""

    pairs: list[CoderComparison]
    by_coder_pair: dict[tuple[str, str], Kappa]
    by_feature: dict[str, Kappa]
    unpaired: list[Path]
    problems: list  # core.sample.snapshot.MemberProblem

    def reliability(self):
        """Alpha, AC1, PABAK and bootstrap intervals over every paired language's blind values."""
        from core.sample.reliability import reliability

        return reliability([item for p in self.pairs for item in p.items(blind=True)])

    def to_json(self) -> dict:
        return {"pairs": [p.to_json() for p in self.pairs], "reliability": self.reliability().to_json(),
                "by_coder_pair": [{"a": a, "b": b, **k.to_json()} for (a, b), k in sorted(self.by_coder_pair.items())],
                "by_feature": {f: k.to_json() for f, k in self.by_feature.items()},
                "unpaired": [str(p) for p in self.unpaired], "problems": [p.to_json() for p in self.problems]}


def compare_folders(dir_a: str | os.PathLike[str], dir_b: str | os.PathLike[str], *,
                    groups: dict[str, str] | None = None) -> SampleCoderComparison:
    """Pair the projects of two samples by Glottocode and compare each pair; kappa per coder pair and per feature."""
    from core.profile.entries import sort_key
    from core.sample.snapshot import read_sample

    side_a, side_b = read_sample(dir_a), read_sample(dir_b)
    by_code_b = {s.glottocode: s for s in side_b.by_language() if s.glottocode}
    pairs: list[CoderComparison] = []
    unpaired: list[Path] = []
    for s in side_a.by_language():
        other = by_code_b.pop(s.glottocode, None) if s.glottocode else None
        if other is None or os.path.samefile(s.path, other.path):
            unpaired.append(s.path)
            continue
        pairs.append(compare_snapshots(s, other, groups=groups))
    unpaired.extend(s.path for s in by_code_b.values())
    coder_pairs: dict[tuple[str, str], list[tuple[str, str | None, str | None]]] = defaultdict(list)
    features: dict[str, list[tuple[str, str | None, str | None]]] = defaultdict(list)
    for p in pairs:
        for f in p.features:  # blind values: a resolution does not make two coders agree
            x, y = f.blind_pair or (f.a.code if f.a else None, f.b.code if f.b else None)
            coder_pairs[(p.a.coder, p.b.coder)].append((f.feature_id, x, y))
            features[f.feature_id].append((f.feature_id, x, y))
    return SampleCoderComparison(
        pairs=pairs,
        by_coder_pair={k: feature_kappa(v) for k, v in coder_pairs.items()},
        by_feature={f: feature_kappa(features[f]) for f in sorted(features, key=sort_key)},
        unpaired=unpaired, problems=side_a.problems + side_b.problems)


def alpha_of_folders(folders: list) -> tuple[float | None, int, int]:
    """Krippendorff's nominal alpha over two or more coders' folders: units are (language, feature), each
    coder's value in it (missing ones left out), categories per feature.  Returns (alpha, units, coders)."""
    from core.sample.kappa import category
    from core.sample.reliability import krippendorff_alpha
    from core.sample.snapshot import read_sample

    units: dict[tuple[str, str], list[str | None]] = defaultdict(lambda: [None] * len(folders))
    for i, folder in enumerate(folders):
        for s in read_sample(folder).by_language():
            for fid, v in coder_values(s).items():
                units[(s.language_key, fid)][i] = category(fid, v.code) if v.code != "?" else None
    pairable = [u for u in units.values() if sum(x is not None for x in u) >= 2]
    return krippendorff_alpha(list(units.values())), len(pairable), len(folders)
