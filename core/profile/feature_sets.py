"""Named sets of features a batch can run: the paper's four, all of Grambank or WALS, saved lists.

A set is resolved to canonical catalog ids once, when a job is created, so a job keeps working
even if a saved list is later edited.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone

from core.catalog import load_catalog
from core.errors import GrammarLensError
from core.store.database import ProjectDatabase

# The paper's RAG benchmark: word order, number of cases, verbal negation and polar questions.
PAPER_FEATURES = ("81A", "49A", "GB107", "116A*")
BUILTIN_SETS = ("paper", "grambank", "wals")
_NAME = re.compile(r"^[A-Za-z][\w-]{0,63}$")


def resolve_feature_set(project: ProjectDatabase | None, spec: str) -> list[str]:
    """Feature ids for ``spec``: a built-in set, a saved list's name, or comma-separated ids.

    Unknown ids raise :class:`~core.catalog.UnknownFeature` (a GrammarLensError with a hint).
    Duplicates are dropped, order is kept.
    """
    text = spec.strip()
    if not text:
        raise GrammarLensError("No feature set given.", "Use paper, grambank, wals, a saved list or ids like 81A,GB107.")
    catalog = load_catalog()
    key = text.casefold()
    if key == "paper":
        ids = list(PAPER_FEATURES)
    elif key == "grambank":
        ids = [f.id for f in catalog.by_dataset("Grambank")]
    elif key == "wals":
        ids = [f.id for f in catalog.by_dataset("WALS")]
    else:
        saved = get_feature_list(project, text) if project is not None and "," not in text else None
        ids = saved if saved is not None else [catalog.get(part).id for part in text.split(",") if part.strip()]
    return list(dict.fromkeys(ids))


def save_feature_list(project: ProjectDatabase, name: str, feature_ids: list[str]) -> list[str]:
    """Save (or replace) a named custom list; ids are checked against the catalog first."""
    if not _NAME.match(name) or name.casefold() in BUILTIN_SETS:
        raise GrammarLensError(f"{name!r} cannot name a feature list.",
                               "Use letters, digits, '-' or '_', starting with a letter, and not paper/grambank/wals.")
    catalog = load_catalog()
    ids = list(dict.fromkeys(catalog.get(f).id for f in feature_ids))
    if not ids:
        raise GrammarLensError("A feature list needs at least one feature.", "Give ids such as 81A,GB107.")
    with project.transaction():
        project.conn.execute(
            "INSERT OR REPLACE INTO feature_lists (name, feature_ids, created_at) VALUES (?,?,?)",
            (name, json.dumps(ids), datetime.now(timezone.utc).isoformat(timespec="seconds")))
    return ids


def get_feature_list(project: ProjectDatabase, name: str) -> list[str] | None:
    row = project.conn.execute("SELECT feature_ids FROM feature_lists WHERE name = ?", (name,)).fetchone()
    return json.loads(row[0]) if row else None


def list_feature_lists(project: ProjectDatabase) -> dict[str, list[str]]:
    rows = project.conn.execute("SELECT name, feature_ids FROM feature_lists ORDER BY name").fetchall()
    return {r[0]: json.loads(r[1]) for r in rows}
