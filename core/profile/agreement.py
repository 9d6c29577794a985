"""Agreement with the typological databases: WALS and Grambank values for the project's language.

Reference values come from CLDF: a full release folder the user chooses (read with pycldf, found
by its ``*-metadata.json``) or the ``values_subset.csv`` tables shipped beside the tests in
``../shared/cldf``.  Languages are matched by Glottocode (WALS has its own language ids), and
values are compared by code: WALS ``Code_ID`` "81A-2" is code "2" of 81A, Grambank "GB107-1" is "1".
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from core.errors import GrammarLensError
from core.profile.entries import ProfileEntry

AGREE, DISAGREE, NO_REFERENCE, NOT_COMPARABLE = "agree", "disagree", "no reference", "not comparable"


@dataclass(frozen=True)
class ReferenceValue:
    """A database's value for one feature of the language."""

    dataset: str  # "WALS" | "Grambank" | the dataset's title
    feature_id: str
    code: str | None  # the code within the feature ("2" for 81A-2)
    label: str
    source: str = ""


@dataclass
class Agreement:
    """Per-feature comparison and the overall rate over features both sides have a value for."""

    rows: dict[str, tuple[str, ReferenceValue | None]] = field(default_factory=dict)  # feature -> (verdict, ref)

    @property
    def compared(self) -> int:
        return sum(1 for v, _ in self.rows.values() if v in (AGREE, DISAGREE))

    @property
    def agreed(self) -> int:
        return sum(1 for v, _ in self.rows.values() if v == AGREE)

    @property
    def rate(self) -> float | None:
        return self.agreed / self.compared if self.compared else None

    def verdict(self, feature_id: str) -> str:
        return self.rows.get(feature_id, (NO_REFERENCE, None))[0]

    def reference(self, feature_id: str) -> ReferenceValue | None:
        return self.rows.get(feature_id, (NO_REFERENCE, None))[1]

    def to_json(self) -> dict:
        return {
            "compared": self.compared, "agreed": self.agreed, "rate": self.rate,
            "features": {f: {"verdict": v, "reference": None if r is None else r.__dict__}
                         for f, (v, r) in sorted(self.rows.items())},
        }


def _code_of(code_id: str, feature_id: str, value: str) -> str | None:
    prefix = f"{feature_id}-"
    if code_id and code_id.startswith(prefix):
        return code_id[len(prefix):]
    return value or None


def load_reference_values(folders: Sequence[str | Path], glottocode: str) -> dict[str, ReferenceValue]:
    """Every database value for the language with ``glottocode`` in the given CLDF folders.

    A folder may hold a full CLDF StructureDataset (``values.csv`` + metadata) or only the
    ``values_subset.csv`` of ../shared/cldf; sub-folders one level down are searched too, so the
    parent of ``wals/`` and ``grambank/`` works.
    """
    if not glottocode:
        raise GrammarLensError("The project's language has no Glottocode.",
                               "Set it with 'language FILE --glottocode CODE' to compare with WALS and Grambank.")
    return load_reference_values_for(folders, [glottocode])[glottocode]


def load_reference_values_for(folders: Sequence[str | Path],
                              glottocodes: Iterable[str]) -> dict[str, dict[str, ReferenceValue]]:
    """Glottocode -> feature -> database value, for many languages in one pass over each table.

    A sample of 100 languages against a full Grambank release (about 440,000 values) reads the
    release once, not once per language.  Languages without values map to an empty dict.
    """
    wanted = {g for g in glottocodes if g}
    out: dict[str, dict[str, ReferenceValue]] = {g: {} for g in wanted}
    found = False
    for folder in folders:
        root = Path(folder)
        if not root.is_dir():
            raise GrammarLensError(f"{root} is not a folder.", "Choose the cldf/ folder of a WALS or Grambank release.")
        for sub in [root, *sorted(p for p in root.iterdir() if p.is_dir())]:
            values = _read_folder(sub, wanted)
            if values is not None:
                found = True
                for glottocode, v in values:
                    out[glottocode].setdefault(v.feature_id, _with_catalog_label(v))
    if not found:
        raise GrammarLensError(f"No CLDF values found in {', '.join(map(str, folders))}.",
                               "Choose a folder with a *-metadata.json and values.csv (a WALS or Grambank release).")
    return out


def _with_catalog_label(value: ReferenceValue) -> ReferenceValue:
    """The database's value worded as the catalog words it (Grambank "1" is shown as "present")."""
    from dataclasses import replace

    from core.catalog import load_catalog

    catalog = load_catalog()
    if value.code is None or value.feature_id not in catalog:
        return value
    label = catalog.get(value.feature_id).value_label(str(value.code))
    return replace(value, label=label) if label else value


def _dataset_name(folder: Path) -> str:
    name = folder.name.lower()
    text = ""
    for meta in folder.glob("*-metadata.json"):
        text = meta.read_text(encoding="utf-8", errors="replace").lower()
    if "wals" in name or "wals" in text[:4000]:
        return "WALS"
    if "grambank" in name or "grambank" in text[:4000]:
        return "Grambank"
    return folder.name


def _read_folder(folder: Path, wanted: set[str]) -> list[tuple[str, ReferenceValue]] | None:
    dataset = _dataset_name(folder)
    metadata = sorted(folder.glob("*-metadata.json"))
    if metadata and (folder / "values.csv").exists():
        return _read_cldf(metadata[0], wanted, dataset)
    subset = folder / "values_subset.csv"
    if subset.exists():
        return _read_subset(subset, wanted, dataset)
    return None


def _read_cldf(metadata: Path, wanted: set[str], dataset: str) -> list[tuple[str, ReferenceValue]]:
    import pycldf

    try:
        ds = pycldf.Dataset.from_metadata(metadata)
        glottocode_of = {str(r["ID"]): str(r.get("Glottocode")) for r in ds["LanguageTable"]
                         if r.get("Glottocode") in wanted}
        codes = {str(r["ID"]): str(r.get("Name") or "") for r in ds["CodeTable"]} if "CodeTable" in ds else {}
        out = []
        for r in ds["ValueTable"]:
            language = str(r["Language_ID"])
            glottocode = glottocode_of.get(language) or (language if language in wanted else None)
            if glottocode is None:
                continue
            fid, code_id, value = str(r["Parameter_ID"]), str(r.get("Code_ID") or ""), str(r.get("Value") or "")
            sources = r.get("Source")
            source = ";".join(sources) if isinstance(sources, list) else str(sources or "")
            out.append((glottocode, ReferenceValue(dataset, fid, _code_of(code_id, fid, value),
                                                   codes.get(code_id, value), source)))
        return out
    except GrammarLensError:
        raise
    except Exception as exc:  # pycldf raises many kinds for a broken release
        raise GrammarLensError(f"Cannot read CLDF dataset {metadata}: {exc}",
                               "Check that the release is complete.") from exc


def _read_subset(path: Path, wanted: set[str], dataset: str) -> list[tuple[str, ReferenceValue]]:
    out = []
    with open(path, newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            glottocode = r.get("glottocode") or r.get("Glottocode") or ""
            if glottocode not in wanted:
                continue
            if "feature" in r:  # WALS subset: value_number is the code
                fid = r["feature"]
                value = ReferenceValue(dataset, fid, r.get("value_number") or None, r.get("value_name") or "",
                                       r.get("source_with_pages") or "")
            else:
                fid = r["Parameter_ID"]
                value = ReferenceValue(dataset, fid, _code_of(r.get("Code_ID") or "", fid, r.get("Value") or ""),
                                       r.get("Value") or "", r.get("Source") or "")
            out.append((glottocode, value))
    return out


def compare(entries: list[ProfileEntry], references: dict[str, ReferenceValue]) -> Agreement:
    """Agreement of our effective values with the databases', feature by feature."""
    agreement = Agreement()
    for e in entries:
        ref = references.get(e.feature_id)
        if ref is None:
            verdict = NO_REFERENCE
        elif not e.has_value or ref.code is None:
            verdict = NOT_COMPARABLE
        else:
            verdict = AGREE if str(e.code) == str(ref.code) else DISAGREE
        agreement.rows[e.feature_id] = (verdict, ref)
    return agreement
