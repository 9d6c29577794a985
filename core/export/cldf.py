"""A profile as a CLDF StructureDataset, the format WALS and Grambank exchange.

Decisions (see README, "Profiles and export"):

* Coded values are exported: the model's (predicted), and the coder's (coded by hand, accepted,
  overridden).  The coder's "?" (the grammar does not say enough) is exported as Grambank writes it:
  ``Value`` "?", no ``Code_ID``; ``include_unknown=False`` (CLI ``export --no-unknown``) leaves those
  rows out.  The model's "Not enough information", unreadable answers and evidence-only features
  have no row (nobody decided them).  The flat CSV/JSON exports keep every row, with its status.
* ``Value`` is the code within the feature, as both databases do ("2" for 81A SVO, "1" for a
  Grambank "present"); ``Code_ID`` is ``<feature>-<code>`` ("81A-2", "GB107-1").
* ``Source`` is ``bibkey[pages]`` with the printed pages the coder pinned, consecutive arabic pages
  joined as ranges ("dolatian2023[34-37, 53]"), each page under the key of *its own* grammar (a
  project of two documents cites "friesen2017[12]" and "friesen2018[150]").  The model's cited
  pages are cited only for the model's own value (predicted, or accepted unchanged); a value a
  coder set without pins (coded, overridden, "?") cites the grammar without pages, and its
  ``Comment`` says it was coded from the grammar without pinned evidence.
* ``Comment`` says whether a value was predicted, coded by hand, accepted or overridden, by whom
  and with which model.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Callable

from core.catalog.glottocode import EXAMPLE, is_glottocode
from core.catalog.model import Feature
from core.errors import GrammarLensError
from core.profile.entries import ACCEPTED, CODED, OVERRIDDEN, PREDICTED, UNKNOWN, ProfileEntry
from core.store.database import ProjectDatabase

METADATA_NAME = "StructureDataset-metadata.json"
_NOT_ID = re.compile(r"[^A-Za-z0-9_\-]")


def page_ranges(labels: list[str]) -> str:
    """Printed page labels as a compact list: arabic pages sorted and joined into ranges, others kept."""
    numbers = sorted({int(x) for x in labels if x.isdigit()})
    others = list(dict.fromkeys(x for x in labels if not x.isdigit()))
    runs: list[list[int]] = []  # [first, last] of each run of consecutive pages
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    parts = [f"{first}-{last}" if last != first else str(first) for first, last in runs]
    return ", ".join(others + parts)


def cited_pages(entry: ProfileEntry) -> list[tuple[int | None, str]]:
    """(document id, printed page) the value's source cites: the coder's pins; the model's citations only for
    the model's own value (predicted, accepted); none for a value a coder set without pins."""
    if not (entry.pinned or entry.status in (PREDICTED, ACCEPTED)):
        return []
    documents = list(entry.page_documents) + [None] * (len(entry.pages) - len(entry.page_documents))
    return list(zip(documents, entry.pages, strict=False))


def source_list(sources, entry: ProfileEntry) -> list[str]:
    """The ValueTable ``Source`` of an entry: ``key[pages]`` per grammar cited (``sources``: ExportSources).

    A ";" inside a page label would split the Source list, so it is written ",".
    """
    if sources is None or not sources.documents:
        return []
    by_key: dict[str, list[str]] = {}
    for document_id, label in cited_pages(entry):
        by_key.setdefault(sources.key_of(document_id) or "", []).append(label)
    if not by_key:
        return [sources.documents[0].key]
    return [f"{key}[{page_ranges(labels).replace(';', ',')}]" for key, labels in by_key.items() if key]


def comment_of(entry: ProfileEntry) -> str:
    who = f"{entry.model}" if entry.model else "the model"
    coder = entry.reviewer or "a reviewer"
    when = f" on {entry.decided_at[:10]}" if entry.decided_at else ""
    if entry.status == OVERRIDDEN:
        text = f"Reviewer override by {coder}{when} (model {who} said {entry.predicted_label})"
    elif entry.status == ACCEPTED:
        text = f"Predicted by {who}, accepted by {coder}{when}"
    elif entry.status == CODED:
        text = f"Coded by hand by {coder}{when}"
    elif entry.status == UNKNOWN:
        text = f"Not enough information in the grammar, decided by {coder}{when}"
    else:
        text = f"Predicted by {who}, not reviewed"
    if entry.status in (CODED, OVERRIDDEN, UNKNOWN) and not entry.pinned:
        text += "; coded from the grammar without pinned evidence"
    return text + (f". Note: {entry.note}" if entry.note else "")


def language_id(name: str, glottocode: str | None) -> str:
    if glottocode and is_glottocode(glottocode):
        return glottocode
    slug = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    return slug or "language"


def cldf_id(text: str) -> str:
    """``text`` as a CLDF identifier (letters, digits, - and _ only): "116A*" -> "116A_"."""
    return _NOT_ID.sub("_", text) or "_"


def export_language(project: ProjectDatabase) -> tuple[str | None, str | None, list[str]]:
    """The language's name (None when none is set) and Glottocode as exports write them, and warnings.

    A malformed Glottocode, stored by an older GrammarLens that did not check it, is left out (CLDF
    would reject the dataset), with a warning.
    """
    from core.store.repository import get_language

    language = get_language(project)
    name = language.name.strip() if language and language.name and language.name.strip() else None
    code = language.glottocode if language else None
    warnings: list[str] = []
    if code and not is_glottocode(code):
        warnings.append(f"The project's Glottocode {code!r} is malformed, so the export leaves it out. "
                        f"Set a correct one with 'language FILE --glottocode CODE' (e.g. {EXAMPLE}).")
        code = None
    return name, code or None, warnings


def warner(on_warning: Callable[[str], None] | None) -> Callable[[str], None]:
    """Where an export's warnings go: the caller's function, else the ``core.export`` logger.

    With no logging set up, Python prints a logger's warnings to stderr, so the CLI shows them as they are.
    """
    return on_warning or logging.getLogger("core.export").warning


def export_cldf(project: ProjectDatabase, entries: list[ProfileEntry], out_dir: str | Path, *,
                reviewed_only: bool = False, include_unknown: bool = True,
                on_warning: Callable[[str], None] | None = None, overwrite: bool = False) -> Path:
    """Write the CLDF dataset into ``out_dir`` and validate it; returns the metadata path.

    The dataset is written and validated in a temporary folder beside ``out_dir`` and moved into
    place only when valid, so a failed export leaves ``out_dir`` as it was (:mod:`core.export.staging`).
    What the export had to leave out or change is said through ``on_warning``.  ``out_dir`` is
    checked first (:func:`core.output_paths.check_export_folder`): an earlier export there is
    replaced only with ``overwrite``, and a missing parent folder is refused, not created.
    """
    from core.export.bibtex import export_sources
    from core.export.staging import staged_folder
    from core.output_paths import check_export_folder

    out = Path(out_dir)
    check_export_folder(out, "cldf", overwrite=overwrite)
    name, glottocode, warnings = export_language(project)
    if name is None:
        warnings.append("The project has no language set, so the CLDF export names it 'Unknown'. "
                        "Set it with 'language FILE --name NAME --glottocode CODE'.")
        name = "Unknown"
    sources = export_sources(project)
    warnings.extend(sources.warnings)
    rows = [e for e in entries if (e.has_value or (include_unknown and e.is_unknown))
            and (e.reviewed or not reviewed_only)]
    tables = _tables(rows, name, glottocode, sources, warnings)
    with staged_folder(out) as folder:
        _write(folder, tables, name, sources.bibtex or None)
        validate_dataset(folder / METADATA_NAME)
    warn = warner(on_warning)
    for message in warnings:
        warn(message)
    return out / METADATA_NAME


def _tables(rows: list[ProfileEntry], name: str, glottocode: str | None, sources,
            warnings: list[str]) -> dict[str, list[dict]]:
    from core.catalog import load_catalog

    catalog = load_catalog()
    lid = language_id(name, glottocode)
    values: dict[str, dict] = {}
    parameters: dict[str, dict] = {}
    codes: list[dict] = []
    for e in sorted(rows, key=lambda e: not e.reviewed):  # a reviewed row wins over a duplicate
        feature = catalog.get(e.feature_id) if e.feature_id in catalog else None
        pid = cldf_id(e.feature_id)
        vid = f"{lid}-{pid}"
        if vid in values:
            warnings.append(f"{e.feature_id} has more than one value in the profile; the export keeps "
                            f"{values[vid]['Value']!r} and leaves out {e.code!r}.")
            continue
        known = feature is not None and e.code in dict(feature.values)
        if feature is not None and not e.is_unknown and not known:
            warnings.append(f"{e.feature_id}: {e.code!r} is not one of the feature's codes, "
                            "so it is exported without a Code_ID.")
        values[vid] = value_row(lid, e, feature, sources)
        if pid not in parameters:
            parameters[pid], feature_codes = parameter_rows(e, feature)
            codes.extend(feature_codes)
    order = {vid: i for i, vid in enumerate(f"{lid}-{cldf_id(e.feature_id)}" for e in rows)}
    return {
        "ValueTable": sorted(values.values(), key=lambda v: order[v["ID"]]),
        "LanguageTable": [{"ID": lid, "Name": name, "Glottocode": glottocode}],
        "ParameterTable": list(parameters.values()),
        "CodeTable": codes,
    }


def value_row(lid: str, entry: ProfileEntry, feature: Feature | None, sources) -> dict:
    """One ValueTable row: the value, its Code_ID when it is one of the feature's codes, Comment and Source.

    ``sources`` is the project's :class:`core.export.bibtex.ExportSources` (None: no grammar to cite).
    """
    pid = cldf_id(entry.feature_id)
    known = feature is not None and entry.code is not None and entry.code in dict(feature.values)
    return {
        "ID": f"{lid}-{pid}", "Language_ID": lid, "Parameter_ID": pid, "Value": entry.code,
        "Code_ID": f"{pid}-{cldf_id(entry.code)}" if known and entry.code is not None and not entry.is_unknown
        else None,
        "Comment": comment_of(entry), "Source": source_list(sources, entry),
    }


def parameter_rows(entry: ProfileEntry, feature: Feature | None) -> tuple[dict, list[dict]]:
    """The ParameterTable row of the entry's feature and its CodeTable rows (none for a feature not in the catalog)."""
    pid = cldf_id(entry.feature_id)
    parameter = {"ID": pid, "Name": entry.name or entry.feature_id,
                 "Description": feature.definition if feature else ""}
    codes = [{"ID": f"{pid}-{cldf_id(c)}", "Parameter_ID": pid, "Name": label}
             for c, label in (feature.values if feature is not None else ())]
    return parameter, codes


def _write(folder: Path, tables: dict[str, list[dict]], name: str, bibtex: str | None) -> None:
    import pycldf

    ds = pycldf.StructureDataset.in_dir(folder)
    ds.add_component("LanguageTable")
    ds.add_component("ParameterTable")
    ds.add_component("CodeTable")
    if bibtex:
        ds.add_sources(bibtex)
    ds.properties["dc:title"] = f"GrammarLens profile of {name}"
    ds.properties["dc:description"] = ("Typological feature values read from a descriptive grammar with "
                                       "retrieval-augmented classification; see each value's Comment for its "
                                       "review status.")
    ds.write(**tables)


def validate_dataset(metadata: Path) -> None:
    import pycldf

    from core.export.staging import csv_field_limit

    try:
        with csv_field_limit():  # notes longer than the csv module's default 131,072 characters
            pycldf.Dataset.from_metadata(metadata).validate()
    except Exception as exc:  # pycldf raises ValueError and others for invalid data
        raise GrammarLensError(f"The CLDF export did not validate: {exc}",
                               "Nothing was written. This is a bug; please report it.") from exc


def read_cldf_values(metadata: str | Path) -> dict[str, dict]:
    """Parameter id -> {value, code_id, source} of an exported dataset (to check a round trip)."""
    import pycldf

    from core.export.staging import csv_field_limit

    with csv_field_limit():
        ds = pycldf.Dataset.from_metadata(metadata)
        rows = list(ds["ValueTable"])
    return {str(r["Parameter_ID"]): {"value": r["Value"], "code_id": r.get("Code_ID"),
                                     "source": list(r["Source"] or []), "language_id": r["Language_ID"],
                                     "comment": r.get("Comment")}
            for r in rows}
