"""Feature groups for reports: Grambank's domains for analysis, else the feature's database.

Grambank publishes ``feature_grouping_for_analysis.csv`` (columns ``Feature_ID``,
``Main_domain``, ``Finer_grouping``; in ``../shared/cldf/grambank/`` and in Grambank's
repository, CC-BY 4.0): agreement is easier to read per domain ("clause", "nominal domain")
than per 195 features.  A feature the file does not group is reported under its database
("WALS", "Grambank") so that every feature belongs to exactly one group.
"""

from __future__ import annotations

import csv
from pathlib import Path

from core.errors import GrammarLensError

GROUPING_FILE = "feature_grouping_for_analysis.csv"


def find_grouping(folder: str | Path | None) -> Path | None:
    """Grambank's grouping file in ``folder`` or one of its sub-folders (the layout load_reference_values reads)."""
    if folder is None:
        return None
    root = Path(folder)
    if not root.is_dir():
        return None
    for sub in [root, *sorted(p for p in root.iterdir() if p.is_dir())]:
        if (sub / GROUPING_FILE).is_file():
            return sub / GROUPING_FILE
    return None


def load_groups(path: str | Path | None) -> dict[str, str]:
    """Feature id -> its main domain, from a grouping file (empty without one)."""
    if path is None:
        return {}
    path = Path(path)
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            if not {"Feature_ID", "Main_domain"} <= set(reader.fieldnames or ()):
                raise GrammarLensError(f"{path} has no Feature_ID and Main_domain columns.",
                                       f"Give Grambank's {GROUPING_FILE}.")
            return {r["Feature_ID"].strip(): (r["Main_domain"] or "").strip() for r in reader
                    if (r.get("Feature_ID") or "").strip() and (r.get("Main_domain") or "").strip()}
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise GrammarLensError(f"Cannot read the feature groups in {path}: {exc}.",
                               f"Give Grambank's {GROUPING_FILE} (UTF-8 CSV).") from exc


def group_of(feature_id: str, groups: dict[str, str]) -> str:
    """The feature's group: its domain in ``groups``, else its database's name."""
    if feature_id in groups:
        return groups[feature_id]
    from core.catalog import load_catalog

    catalog = load_catalog()
    if feature_id in catalog:
        return catalog.get(feature_id).dataset or "other"
    return "Grambank" if feature_id.startswith("GB") else "other"
