"""The whole sample as ONE CLDF StructureDataset, as Grambank and WALS release theirs.

Built from the same pieces as a single project's export (:mod:`core.export.cldf`): which values
are exported (decided and predicted values, the coder's "?" unless ``include_unknown`` is false;
the model's "not enough information", unreadable answers and evidence-only features never),
``Value``/``Code_ID`` as the databases write them, ``Source`` as ``bibkey[pages]``, ``Comment``
saying who decided what, the parameter and code tables from the catalog, the staged write (the
folder appears whole or not at all) and pycldf's validation.  What a sample adds:

* ``LanguageTable``: one row per language (Glottocode as ID), with the project's language name,
  and Macroarea, Latitude, Longitude from the bundled WALS/Grambank language table
  (:func:`core.catalog.languages.place_of`); a language they do not place keeps empty cells.
* ``ValueTable`` gets two columns of its own, ``Status`` (core's status words) and ``Coder``.
* ``sources.bib`` holds one entry per grammar (every document of every project, each cited under
  its own key); two different grammars with the same key are told apart by a suffix
  ("friesen2017", "friesen2017b").  The entries come from the projects (their stored records), so
  the export reopens no PDF.

Projects without a Glottocode are exported under an ID made from their name; a second project of
the same Glottocode (a second coder's file) is left out with a warning: compare coders with
``compare``, export the resolved file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from core.sample.snapshot import SampleRead, Snapshot

EXTRA_VALUE_COLUMNS = ("Status", "Coder")
LICENCES = {  # what --licence accepts -> the licence's URL, as CLDF metadata names a licence (dc:license)
    "CC-BY-4.0": "https://creativecommons.org/licenses/by/4.0/",
    "CC-BY-SA-4.0": "https://creativecommons.org/licenses/by-sa/4.0/",
    "CC-BY-NC-4.0": "https://creativecommons.org/licenses/by-nc/4.0/",
    "CC0-1.0": "https://creativecommons.org/publicdomain/zero/1.0/",
}


def export_sample_cldf(read: SampleRead, out_dir: str | Path, *, reviewed_only: bool = False,
                       include_unknown: bool = True, overwrite: bool = False,
                       on_warning: Callable[[str], None] | None = None, licence: str = "CC-BY-4.0") -> Path:
    """Write and validate one CLDF dataset of a sample read ``with_sources=True``; returns its metadata path.

    The metadata names the coders whose decisions are exported as contributors (``dc:contributor``)
    and the ``licence`` chosen (one of :data:`LICENCES`; ``dc:license``).
    """
    from core.errors import GrammarLensError

    if licence not in LICENCES:
        raise GrammarLensError(f"Unknown licence {licence!r}.", f"Choose one of {', '.join(LICENCES)}.")
    from core.export.cldf import METADATA_NAME, validate_dataset, warner
    from core.export.staging import staged_folder
    from core.output_paths import check_export_folder

    out = Path(out_dir)
    check_export_folder(out, "cldf", overwrite=overwrite)
    warnings = list(read.warnings())
    languages = read.by_language()
    tables, bibtex = _tables(languages, reviewed_only=reviewed_only, include_unknown=include_unknown,
                             warnings=warnings)
    coders = sorted({v["Coder"] for v in tables["ValueTable"] if v.get("Coder")})
    with staged_folder(out) as folder:
        _write(folder, tables, bibtex, len(languages), coders, licence)
        validate_dataset(folder / METADATA_NAME)
    warn = warner(on_warning)
    for message in warnings:
        warn(message)
    return out / METADATA_NAME


def _tables(languages: list[Snapshot], *, reviewed_only: bool, include_unknown: bool,
            warnings: list[str]) -> tuple[dict[str, list[dict]], str]:
    from core.catalog import load_catalog
    from core.catalog.genealogy import lineage_of
    from core.catalog.languages import place_of
    from core.export.cldf import cldf_id, language_id, parameter_rows, value_row
    from core.sample.status import status_word

    catalog = load_catalog()
    values: list[dict] = []
    language_rows: list[dict] = []
    parameters: dict[str, dict] = {}
    codes: list[dict] = []
    keys = _SourceKeys()
    ids: set[str] = set()
    for s in languages:
        lid = _unique(language_id(s.label, s.glottocode), ids)
        place = place_of(s.glottocode)
        lineage = lineage_of(s.glottocode)
        language_rows.append({"ID": lid, "Name": s.label, "Glottocode": s.glottocode,
                              "Family": lineage.family or None, "Genus": lineage.genus or None,
                              "Macroarea": place.macroarea if place and place.macroarea else lineage.macroarea or None,
                              "Latitude": place.latitude if place else None,
                              "Longitude": place.longitude if place else None})
        warnings.extend(f"{s.path.name}: {w}" for w in s.warnings)
        sources = _sample_sources(s.sources, keys)
        seen: set[str] = set()
        for e in s.entries:
            if not (e.has_value or (include_unknown and e.is_unknown)) or (reviewed_only and not e.reviewed):
                continue
            pid = cldf_id(e.feature_id)
            if pid in seen:
                continue
            seen.add(pid)
            feature = catalog.get(e.feature_id) if e.feature_id in catalog else None
            values.append({**value_row(lid, e, feature, sources), "Status": status_word(e),
                           "Coder": e.reviewer or None})
            if pid not in parameters:
                parameters[pid], feature_codes = parameter_rows(e, feature)
                codes.extend(feature_codes)
    tables = {"ValueTable": values, "LanguageTable": language_rows, "ParameterTable": list(parameters.values()),
              "CodeTable": codes}
    return tables, keys.bibtex()


def _sample_sources(sources, keys: _SourceKeys):
    """A project's ExportSources with each key as the sample's sources.bib names it (None: no grammar)."""
    from core.export.bibtex import DocumentSource, ExportSources

    if sources is None or not sources.documents:
        return None
    renamed = []
    for d in sources.documents:
        key = keys.add(d.key, d.bibtex)
        if key is not None:
            renamed.append(DocumentSource(d.document_id, key, keys.entries[key]))
    return ExportSources(tuple(renamed), sources.warnings)


def _unique(base: str, taken: set[str]) -> str:
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}_{n}"
    taken.add(candidate)
    return candidate


class _SourceKeys:
    """One BibTeX entry per grammar; the same key for two different entries gets a suffix."""

    def __init__(self) -> None:
        self.entries: dict[str, str] = {}

    def add(self, key: str | None, bibtex: str | None) -> str | None:
        if not key or not bibtex:
            return None
        text = bibtex.strip()
        candidate, n = key, 1
        while candidate in self.entries and self.entries[candidate] != text:
            n += 1
            candidate = f"{key}{chr(ord('a') + n - 1)}" if n <= 26 else f"{key}_{n}"
            text = re.sub(r"(@\s*\w+\s*\{\s*)" + re.escape(key) + r"(\s*,)", rf"\g<1>{candidate}\g<2>",
                          bibtex.strip(), count=1)
        self.entries[candidate] = text
        return candidate

    def bibtex(self) -> str:
        return "\n\n".join(self.entries.values()) + ("\n" if self.entries else "")


def _write(folder: Path, tables: dict[str, list[dict]], bibtex: str, count: int, coders: list[str],
           licence: str) -> None:
    import pycldf

    ds = pycldf.StructureDataset.in_dir(folder)
    ds.add_component("LanguageTable")
    ds.add_component("ParameterTable")
    ds.add_component("CodeTable")
    ds.add_columns("ValueTable", *EXTRA_VALUE_COLUMNS)
    ds.add_columns("LanguageTable", "Family", "Genus")
    if bibtex.strip():
        ds.add_sources(bibtex)
    ds.properties["dc:title"] = f"GrammarLens sample of {count} language{'s' if count != 1 else ''}"
    ds.properties["dc:description"] = (
        "Typological feature values read from descriptive grammars with GrammarLens, one project per language; "
        "each value's Status and Coder say who decided it (coded by hand, accepted, overridden, unknown) or "
        "that a model predicted it. Coordinates and macroareas: WALS Online and Grambank (CC-BY 4.0); "
        "families and genera: Grambank (Glottolog) and WALS Online (CC-BY 4.0).")
    ds.properties["dc:contributor"] = coders  # the coders whose decisions the values are
    ds.properties["dc:license"] = LICENCES[licence]
    ds.write(**tables)
