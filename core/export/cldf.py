"""A profile as a CLDF StructureDataset, the format WALS and Grambank exchange.

Decisions (see README, "Profiles and export"):

* Coded values are exported: the model's (predicted), and the coder's (coded by hand, accepted,
  overridden).  The coder's "?" (the grammar does not say enough) is exported as Grambank writes it:
  ``Value`` "?", no ``Code_ID``; ``include_unknown=False`` (CLI ``export --no-unknown``) leaves those
  rows out.  The model's "Not enough information", unreadable answers and evidence-only features
  have no row (nobody decided them).  The flat CSV/JSON exports keep every row, with its status.
* ``Value`` is the code within the feature, as both databases do ("2" for 81A SVO, "1" for a
  Grambank "present"); ``Code_ID`` is ``<feature>-<code>`` ("81A-2", "GB107-1").
* ``Source`` is ``bibkey[pages]`` with the printed pages the coder pinned (else those of the
  paragraphs the model cited), consecutive arabic pages joined as ranges ("dolatian2023[34-37, 53]").
* ``Comment`` says whether a value was predicted, coded by hand, accepted or overridden, by whom
  and with which model.
"""

from __future__ import annotations

import re
from pathlib import Path

from core.errors import GrammarLensError
from core.profile.entries import ACCEPTED, CODED, OVERRIDDEN, UNKNOWN, ProfileEntry
from core.store.database import ProjectDatabase

METADATA_NAME = "StructureDataset-metadata.json"


def page_ranges(labels: list[str]) -> str:
    """Printed page labels as a compact list: arabic pages sorted and joined into ranges, others kept."""
    numbers = sorted({int(x) for x in labels if x.isdigit()})
    others = list(dict.fromkeys(x for x in labels if not x.isdigit()))
    parts: list[str] = []
    start = prev = None
    for n in numbers:
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            parts.append(f"{start}-{prev}" if prev != start else str(start))
            start = prev = n
    if start is not None:
        parts.append(f"{start}-{prev}" if prev != start else str(start))
    return ", ".join(others + parts)


def source_of(key: str, entry: ProfileEntry) -> str:
    pages = page_ranges(entry.pages)
    return f"{key}[{pages}]" if pages else key


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
    return text + (f". Note: {entry.note}" if entry.note else "")


def language_id(name: str, glottocode: str | None) -> str:
    if glottocode:
        return glottocode
    slug = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    return slug or "language"


def export_cldf(project: ProjectDatabase, entries: list[ProfileEntry], out_dir: str | Path, *,
                reviewed_only: bool = False, include_unknown: bool = True) -> Path:
    """Write the CLDF dataset into ``out_dir`` and validate it; returns the metadata path."""
    import pycldf

    from core.catalog import load_catalog
    from core.export.bibtex import bibkey, get_bibtex
    from core.store.repository import get_language

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    language = get_language(project)
    name = language.name if language else "Unknown"
    glottocode = language.glottocode if language else None
    lid = language_id(name, glottocode)
    bibtex = get_bibtex(project)
    key = bibkey(bibtex)
    catalog = load_catalog()
    rows = [e for e in entries if (e.has_value or (include_unknown and e.is_unknown))
            and (e.reviewed or not reviewed_only)]
    ds = pycldf.StructureDataset.in_dir(out)
    ds.add_component("LanguageTable")
    ds.add_component("ParameterTable")
    ds.add_component("CodeTable")
    ds.add_sources(bibtex)
    ds.properties["dc:title"] = f"GrammarLens profile of {name}"
    ds.properties["dc:description"] = ("Typological feature values read from a descriptive grammar with "
                                       "retrieval-augmented classification; see each value's Comment for its review status.")
    values, parameters, codes = [], {}, []
    for e in rows:
        feature = catalog.get(e.feature_id) if e.feature_id in catalog else None
        values.append({
            "ID": f"{lid}-{e.feature_id}", "Language_ID": lid, "Parameter_ID": e.feature_id, "Value": e.code,
            "Code_ID": f"{e.feature_id}-{e.code}" if feature is not None and not e.is_unknown else None,
            "Comment": comment_of(e), "Source": [source_of(key, e)],
        })
        if e.feature_id not in parameters:
            parameters[e.feature_id] = {"ID": e.feature_id, "Name": e.name,
                                        "Description": feature.definition if feature else ""}
            if feature is not None:
                codes.extend({"ID": f"{e.feature_id}-{c}", "Parameter_ID": e.feature_id, "Name": label}
                             for c, label in feature.values)
    ds.write(
        ValueTable=values,
        LanguageTable=[{"ID": lid, "Name": name, "Glottocode": glottocode}],
        ParameterTable=list(parameters.values()),
        CodeTable=codes,
    )
    metadata = out / METADATA_NAME
    try:
        pycldf.Dataset.from_metadata(metadata).validate()
    except Exception as exc:  # pycldf raises ValueError and others for invalid data
        raise GrammarLensError(f"The CLDF export did not validate: {exc}", "This is a bug; please report it.") from exc
    return metadata


def read_cldf_values(metadata: str | Path) -> dict[str, dict]:
    """Parameter id -> {value, code_id, source} of an exported dataset (to check a round trip)."""
    import pycldf

    ds = pycldf.Dataset.from_metadata(metadata)
    return {str(r["Parameter_ID"]): {"value": r["Value"], "code_id": r.get("Code_ID"), "source": list(r["Source"] or []),
                                     "language_id": r["Language_ID"], "comment": r.get("Comment")}
            for r in ds["ValueTable"]}
