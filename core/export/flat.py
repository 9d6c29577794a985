"""Flat exports of a profile: one CSV row or JSON object per feature value, every status included.

Unlike the CLDF export these keep "not enough information", unreadable answers and evidence-only
features, because a reviewer's worklist needs them; they also carry the database agreement when
reference values are given.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from core.errors import GrammarLensError
from core.profile.agreement import Agreement
from core.profile.entries import ProfileEntry
from core.store.database import ProjectDatabase

FORMATS = ("cldf", "csv", "json")
CSV_COLUMNS = ("feature_id", "parent_id", "name", "dataset", "status", "reviewed", "code", "label",
               "predicted_code", "predicted_label", "pages", "source", "model", "classification_id",
               "retrieval_run_id", "note", "reviewer", "decided_at", "pinned", "reference_dataset", "reference_code",
               "reference_label", "agreement")


def _rows(project: ProjectDatabase, entries: list[ProfileEntry], agreement: Agreement | None) -> list[dict]:
    from core.export.bibtex import bibkey, get_bibtex
    from core.export.cldf import source_of

    key = bibkey(get_bibtex(project))
    rows = []
    for e in entries:
        ref = agreement.reference(e.feature_id) if agreement else None
        row = {c: getattr(e, c, None) for c in CSV_COLUMNS if hasattr(e, c)}
        row.update(pages=", ".join(e.pages), source=source_of(key, e) if e.pages else "",
                   reference_dataset=ref.dataset if ref else "", reference_code=ref.code if ref else "",
                   reference_label=ref.label if ref else "",
                   agreement=agreement.verdict(e.feature_id) if agreement else "")
        rows.append(row)
    return rows


def export_csv(project: ProjectDatabase, entries: list[ProfileEntry], out_dir: str | Path,
               agreement: Agreement | None = None) -> Path:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "profile.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        for row in _rows(project, entries, agreement):
            writer.writerow({k: "" if v is None else v for k, v in row.items()})
    return path


def export_json(project: ProjectDatabase, entries: list[ProfileEntry], out_dir: str | Path,
                agreement: Agreement | None = None) -> Path:
    from core.export.bibtex import get_bibtex
    from core.store.repository import get_language

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    language = get_language(project)
    data = {
        "language": language.name if language else None,
        "glottocode": language.glottocode if language else None,
        "bibtex": get_bibtex(project),
        "values": _rows(project, entries, agreement),
        "agreement": agreement.to_json() if agreement else None,
    }
    path = out / "profile.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def export_profile(project: ProjectDatabase, fmt: str, out_dir: str | Path, *, reviewed_only: bool = False,
                   agreement: Agreement | None = None, include_unknown: bool = True) -> Path:
    """Build the profile and write it in ``fmt`` (cldf, csv or json); returns the main file written."""
    from core.export.cldf import export_cldf
    from core.profile.entries import build_profile

    entries = build_profile(project)
    if not entries:
        raise GrammarLensError("The project has no classified or coded features to export.",
                               "Run 'profile FILE --features paper', classify features, or code them by hand "
                               "('code FILE --feature ID --value VALUE') first.")
    if fmt == "cldf":
        return export_cldf(project, entries, out_dir, reviewed_only=reviewed_only, include_unknown=include_unknown)
    if reviewed_only:
        entries = [e for e in entries if e.reviewed]
    if fmt == "csv":
        return export_csv(project, entries, out_dir, agreement)
    if fmt == "json":
        return export_json(project, entries, out_dir, agreement)
    raise GrammarLensError(f"Unknown export format {fmt!r}.", f"Use one of: {', '.join(FORMATS)}.")
