"""Flat exports of a profile: one CSV row or JSON object per feature value, every status included.

Unlike the CLDF export these keep "not enough information", unreadable answers and evidence-only
features, because a reviewer's worklist needs them; they also carry the database agreement when
reference values are given.  Like the CLDF export they are written beside their target and moved
into place whole (:mod:`core.export.staging`).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Callable

from core.errors import GrammarLensError
from core.export.staging import staged_folder
from core.output_paths import check_export_folder
from core.profile.agreement import Agreement
from core.profile.entries import ProfileEntry
from core.store.database import ProjectDatabase

FORMATS = ("cldf", "csv", "json")
CSV_NAME = "profile.csv"
JSON_NAME = "profile.json"
CSV_COLUMNS = ("feature_id", "parent_id", "name", "dataset", "status", "reviewed", "code", "label",
               "predicted_code", "predicted_label", "pages", "source", "model", "classification_id",
               "retrieval_run_id", "note", "reviewer", "decided_at", "pinned", "reference_dataset", "reference_code",
               "reference_label", "agreement")


def _rows(entries: list[ProfileEntry], sources, agreement: Agreement | None) -> list[dict]:
    from core.export.cldf import source_list

    rows = []
    for e in entries:
        ref = agreement.reference(e.feature_id) if agreement else None
        row = {c: getattr(e, c, None) for c in CSV_COLUMNS if hasattr(e, c)}
        row.update(pages=", ".join(e.pages), source="; ".join(source_list(sources, e)) if e.pages else "",
                   reference_dataset=ref.dataset if ref else "", reference_code=ref.code if ref else "",
                   reference_label=ref.label if ref else "",
                   agreement=agreement.verdict(e.feature_id) if agreement else "")
        rows.append(row)
    return rows


def export_csv(project: ProjectDatabase, entries: list[ProfileEntry], out_dir: str | Path,
               agreement: Agreement | None = None, *, on_warning: Callable[[str], None] | None = None,
               overwrite: bool = False) -> Path:
    """Write ``profile.csv`` into ``out_dir`` (whole or not at all); returns its path.

    ``out_dir`` is checked first (:func:`core.output_paths.check_export_folder`): an earlier export
    there is replaced only with ``overwrite``, and a missing parent folder is refused, not created.
    """
    from core.export.bibtex import export_sources
    from core.export.cldf import warner

    check_export_folder(out_dir, "csv", overwrite=overwrite)
    source = export_sources(project)
    rows = _rows(entries, source, agreement)
    with staged_folder(out_dir) as folder:
        with open(folder / CSV_NAME, "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=CSV_COLUMNS)
            writer.writeheader()
            for row in rows:
                writer.writerow({k: "" if v is None else v for k, v in row.items()})
    for message in source.warnings:
        warner(on_warning)(message)
    return Path(out_dir) / CSV_NAME


def export_json(project: ProjectDatabase, entries: list[ProfileEntry], out_dir: str | Path,
                agreement: Agreement | None = None, *, on_warning: Callable[[str], None] | None = None,
                overwrite: bool = False) -> Path:
    """Write ``profile.json`` into ``out_dir`` (whole or not at all); returns its path.

    ``out_dir`` is checked first, as in :func:`export_csv`.
    """
    from core.export.bibtex import export_sources
    from core.export.cldf import export_language, warner

    check_export_folder(out_dir, "json", overwrite=overwrite)
    name, glottocode, warnings = export_language(project)
    source = export_sources(project)
    warnings += source.warnings
    data = {
        "language": name,
        "glottocode": glottocode,
        "bibtex": source.bibtex or None,
        "values": _rows(entries, source, agreement),
        "agreement": agreement.to_json() if agreement else None,
    }
    text = json.dumps(data, ensure_ascii=False, indent=1)
    with staged_folder(out_dir) as folder:
        (folder / JSON_NAME).write_text(text, encoding="utf-8")
    for message in warnings:
        warner(on_warning)(message)
    return Path(out_dir) / JSON_NAME


def export_profile(project: ProjectDatabase, fmt: str, out_dir: str | Path, *, reviewed_only: bool = False,
                   agreement: Agreement | None = None, include_unknown: bool = True,
                   on_warning: Callable[[str], None] | None = None, overwrite: bool = False) -> Path:
    """Build the profile and write it in ``fmt`` (cldf, csv or json); returns the main file written.

    Every export is written beside its target and moved into place only when complete (and, for
    CLDF, valid): a failure leaves the target as it was.  ``on_warning`` hears what the export had
    to leave out (a malformed Glottocode from an old project, a source that could not be cited...);
    without it, warnings go to the ``core.export`` logger.

    The target is checked before anything is built (:func:`core.output_paths.check_export_folder`):
    never a project, a PDF or a file; its parent folder must exist; an earlier export in it is
    replaced only with ``overwrite`` (the CLI's ``--force``; the window's folder dialog is that consent).
    """
    from core.export.cldf import export_cldf
    from core.profile.entries import build_profile

    if fmt not in FORMATS:
        raise GrammarLensError(f"Unknown export format {fmt!r}.", f"Use one of: {', '.join(FORMATS)}.")
    check_export_folder(out_dir, fmt, overwrite=overwrite)
    entries = build_profile(project)
    if not entries:
        raise GrammarLensError("The project has no classified or coded features to export.",
                               "Run 'profile FILE --features paper', classify features, or code them by hand "
                               "('code FILE --feature ID --value VALUE') first.")
    if fmt == "cldf":
        return export_cldf(project, entries, out_dir, reviewed_only=reviewed_only, include_unknown=include_unknown,
                           on_warning=on_warning, overwrite=overwrite)
    if reviewed_only:
        entries = [e for e in entries if e.reviewed]
    if fmt == "csv":
        return export_csv(project, entries, out_dir, agreement, on_warning=on_warning, overwrite=overwrite)
    return export_json(project, entries, out_dir, agreement, on_warning=on_warning, overwrite=overwrite)
