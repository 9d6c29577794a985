"""What the Sample window shows, as plain data: languages, a language × feature matrix, agreement rows.

Why a module of its own: the window's heatmap, map and agreement plots are drawn from these
records only, so they are tested without projects and filled the same way whatever read the
sample (:mod:`core.sample`'s reader, a test, a benchmark).  No Qt here.

A cell's ``mark`` is what the heatmap draws (see :mod:`gui.sample.heatmap`): ``hand`` (coded or
overridden by the coder), ``accepted`` (the model's value, confirmed), ``predicted`` (the model's
value, not reviewed), ``unknown`` (the coder's "?", or the model found not enough information);
anything else (evidence only, notes, an unreadable answer) is uncoded and drawn empty.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from core.records.vocabulary import ProfileStatus

HAND = "hand"  # the one mark that is not a status's own word
ACCEPTED, PREDICTED, UNKNOWN = ProfileStatus.ACCEPTED, ProfileStatus.PREDICTED, ProfileStatus.UNKNOWN
MARKS = (HAND, ACCEPTED, PREDICTED, UNKNOWN)
_MARK_OF_STATUS: dict[str, str] = {
    ProfileStatus.CODED: HAND, ProfileStatus.OVERRIDDEN: HAND, ProfileStatus.ACCEPTED: ACCEPTED,
    ProfileStatus.PREDICTED: PREDICTED, ProfileStatus.UNKNOWN: UNKNOWN, ProfileStatus.NOT_ENOUGH: UNKNOWN}
SORT_KEYS = ("name", "macroarea", "coverage", "family")
NO_GROUP = "(no group)"


def mark_of(status: str) -> str | None:
    """The heatmap's mark for a profile status (:mod:`core.profile.entries`); None: uncoded."""
    return _MARK_OF_STATUS.get(status)


@dataclass(frozen=True)
class SampleLanguage:
    """One language of the sample: the project it lives in and where it is spoken."""

    project_path: Path
    name: str
    glottocode: str = ""
    macroarea: str = ""
    latitude: float | None = None
    longitude: float | None = None
    family: str = ""  # core.catalog.genealogy: the top-level family ("(isolate)" for an isolate)
    genus: str = ""

    @property
    def key(self) -> str:
        """The language's key in :attr:`SampleView.cells`: its project file."""
        return str(self.project_path)

    @property
    def has_coordinates(self) -> bool:
        return self.latitude is not None and self.longitude is not None


@dataclass(frozen=True)
class SampleCell:
    """One value of one language: the code, how it was reached, who decided, and the reference's code."""

    code: str | None
    label: str | None
    status: str
    coder: str = ""
    reference_code: str | None = None
    reference_label: str | None = None

    @property
    def mark(self) -> str | None:
        return mark_of(self.status)

    @property
    def disagrees(self) -> bool:
        """The reference (Grambank/WALS) holds another value than ours (a "?" of ours never disagrees)."""
        return (self.reference_code is not None and self.mark in (HAND, ACCEPTED, PREDICTED)
                and self.code is not None and self.code != self.reference_code)


@dataclass
class SampleView:
    """The sample as the window draws it; ``cells`` is keyed by (language key, feature id)."""

    languages: list[SampleLanguage]
    feature_ids: list[str]
    cells: dict[tuple[str, str], SampleCell]
    groups: dict[str, str] = field(default_factory=dict)  # feature id -> group (Grambank's domain)
    feature_names: dict[str, str] = field(default_factory=dict)
    value_labels: dict[str, dict[str, str]] = field(default_factory=dict)  # feature -> code -> label
    reference_name: str = ""  # "Grambank", "WALS", or "" when no reference was read

    def cell(self, language: SampleLanguage, feature_id: str) -> SampleCell | None:
        return self.cells.get((language.key, feature_id))

    def coverage(self, language: SampleLanguage) -> float:
        """Share of the sample's features this language has a value or "?" for (0..1)."""
        if not self.feature_ids:
            return 0.0
        marked = sum(1 for f in self.feature_ids if (c := self.cell(language, f)) is not None and c.mark)
        return marked / len(self.feature_ids)

    def sorted_languages(self, by: str = "name") -> list[SampleLanguage]:
        """Languages by name, by macroarea (then name), by coverage (most coded first, then name), or by family
        (then genus, then name)."""
        if by not in SORT_KEYS:
            raise ValueError(f"sort by one of {SORT_KEYS}, not {by!r}")
        name = lambda lang: (lang.name.casefold(), lang.key)  # noqa: E731
        if by == "macroarea":
            return sorted(self.languages, key=lambda lang: (lang.macroarea or "~", *name(lang)))
        if by == "family":
            return sorted(self.languages, key=lambda lang: (lang.family or "~", lang.genus, *name(lang)))
        if by == "coverage":
            return sorted(self.languages, key=lambda lang: (-self.coverage(lang), *name(lang)))
        return sorted(self.languages, key=name)

    def group_names(self) -> list[str]:
        """The feature groups present, alphabetically; features without one fall in :data:`NO_GROUP`."""
        return sorted({self.groups.get(f) or NO_GROUP for f in self.feature_ids})

    def features_in(self, group: str | None = None) -> list[str]:
        """The sample's features of ``group`` (all of them for None), in the sample's order."""
        if group is None:
            return list(self.feature_ids)
        return [f for f in self.feature_ids if (self.groups.get(f) or NO_GROUP) == group]

    def value_label(self, feature_id: str, code: str | None) -> str:
        if code is None:
            return ""
        return self.value_labels.get(feature_id, {}).get(code, code)

    def codes_of(self, feature_id: str) -> list[str]:
        """The feature's codes: its value set in catalog order, then any other code the sample holds."""
        known = list(self.value_labels.get(feature_id, {}))
        seen = {c.code for (key, fid), c in self.cells.items() if fid == feature_id and c.code and c.mark != UNKNOWN}
        return known + sorted(seen - set(known))


@dataclass(frozen=True)
class FeatureAgreement:
    """Agreement on one feature (or group): between our values and a reference, or between two coders."""

    feature_id: str
    n: int  # values compared (both sides have one)
    agreement: float | None  # share of equal values, 0..1
    kappa: float | None  # Cohen's kappa; None when undefined (one class only, no values)
    group: str = ""


@dataclass(frozen=True)
class AgreementSeries:
    """One agreement plot: a title ("Sample vs Grambank", "Coder A vs coder B") and its bars."""

    title: str
    rows: tuple[FeatureAgreement, ...]


def read_wals_icons(folder: str | Path | None) -> dict[tuple[str, str], str]:
    """WALS's own value icons, ``(feature, code) -> "c0000dd"``, from a WALS CLDF folder's codes.csv.

    WALS's ``icon`` column reads shape + colour: ``c0000dd`` a blue circle, ``d`` a diamond, ``s`` a
    square, ``t`` a triangle.  ``folder`` may be the WALS folder itself or a folder holding it one level down (as
    ``../shared/cldf`` does); anything unreadable gives an empty table (the palette's fallback
    sequence is used then).
    """
    import csv

    if folder is None:
        return {}
    root = Path(folder)
    candidates = [root / "codes.csv"] + sorted(root.glob("*/codes.csv")) if root.is_dir() else []
    icons: dict[tuple[str, str], str] = {}
    for path in candidates:
        try:
            with open(path, newline="", encoding="utf-8") as fh:
                reader = csv.DictReader(fh)
                if "icon" not in (reader.fieldnames or ()):
                    continue
                for row in reader:
                    icon, number = (row.get("icon") or "").strip(), (row.get("Number") or "").strip()
                    if len(icon) == 7 and number:
                        icons[(row["Parameter_ID"], number)] = icon.lower()
        except (OSError, KeyError, csv.Error, UnicodeDecodeError):
            continue
    return icons


def build_view(snapshots, *, references: dict[tuple[str, str], tuple[str, str]] | None = None,
               reference_name: str = "", groups: dict[str, str] | None = None) -> SampleView:
    """The view of read projects (:class:`core.sample.snapshot.Snapshot`), with the reference's codes.

    ``references`` maps (Glottocode, feature) to the reference's (code, label).  Columns are the
    features any language has a value or "?" for, WALS first, then Grambank, in numeric order;
    languages are placed by the bundled table (:func:`core.catalog.languages.place_of`).
    """
    from core.catalog import load_catalog
    from core.catalog.languages import place_of
    from core.profile.entries import sort_key
    from core.sample.groups import group_of

    catalog, references, groups = load_catalog(), references or {}, groups or {}
    languages: list[SampleLanguage] = []
    cells: dict[tuple[str, str], SampleCell] = {}
    used: set[str] = set()
    from core.catalog.genealogy import lineage_of

    for s in snapshots:
        place, lineage = place_of(s.glottocode), lineage_of(s.glottocode)
        language = SampleLanguage(s.path, s.label, s.glottocode or "", place.macroarea if place else "",
                                  place.latitude if place else None, place.longitude if place else None,
                                  lineage.family, lineage.genus)
        languages.append(language)
        for e in s.entries:
            mark = mark_of(e.status)
            ref = references.get((s.glottocode or "", e.feature_id))
            code = "?" if mark == UNKNOWN else e.code
            cells[(language.key, e.feature_id)] = SampleCell(code, e.label, e.status, e.reviewer,
                                                             ref[0] if ref else None, ref[1] if ref else None)
            if mark is not None:
                used.add(e.feature_id)
    features = sorted(used, key=sort_key)
    known = [f for f in features if f in catalog]
    return SampleView(
        languages, features, cells, groups={f: group_of(f, groups) for f in features},
        feature_names={f: catalog.get(f).name for f in known},
        value_labels={f: dict(catalog.get(f).values) for f in known}, reference_name=reference_name)


def read_references(folder: str | Path | None, glottocodes) -> tuple[dict[tuple[str, str], tuple[str, str]], str]:
    """The reference's (code, label) per (Glottocode, feature) for the sample's languages, and its name.

    Read by the one reference reader, :func:`core.profile.agreement.load_reference_values_for`, in
    one pass over each table for the whole sample (a CLDF release or the ``values_subset.csv`` tables
    of ../shared/cldf, the folder and its sub-folders one level down).  "?" and empty codes are left
    out: the heatmap flags only real disagreements.  The name is the databases that gave values
    ("Grambank and WALS").
    """
    from core.profile.agreement import load_reference_values_for

    if folder is None:
        return {}, ""
    by_language = load_reference_values_for([folder], glottocodes)
    out: dict[tuple[str, str], tuple[str, str]] = {}
    names: set[str] = set()
    for glottocode, values in by_language.items():
        for fid, value in values.items():
            if value.code and value.code != "?":
                out[(glottocode, fid)] = (str(value.code), value.label)
                names.add(value.dataset)
    return out, " and ".join(sorted(names))


def reference_series(comparison, name: str = "") -> list[AgreementSeries]:
    """Agreement plots of :func:`core.sample.reference.compare_with_reference`: per feature, then per group.

    Agreement has the one meaning of :mod:`core.sample.kappa` (items both sides coded with a real
    value; "?" and uncoded left out), as in ``compare A B`` and the coders' plot.
    """
    name = name or "the reference"

    def rows(slices: dict) -> tuple[FeatureAgreement, ...]:
        return tuple(FeatureAgreement(key, s.n, s.agreement, s.kappa.kappa) for key, s in slices.items() if s.n)

    return [AgreementSeries(f"Sample vs {name}, per feature", rows(comparison.by_feature)),
            AgreementSeries(f"Sample vs {name}, per feature group", rows(comparison.by_group))]


def coder_agreement(by_feature: dict, title: str = "Coder A vs coder B (blind)") -> AgreementSeries:
    """Per feature: agreement and kappa between two coders (``compare_folders(...).by_feature``, or one pair's).

    ``compare_folders`` reports the blind values (before any resolution), hence the title.
    """
    return AgreementSeries(title, tuple(FeatureAgreement(fid, k.n, k.agreement, k.kappa)
                                        for fid, k in by_feature.items() if k.n))
