"""Named sets of features a batch can run: the study's four, all of Grambank or WALS, saved lists.

A set is resolved to canonical catalog ids once, when a job is created, so a job keeps working
even if a saved list is later edited.
"""

from __future__ import annotations

import re

from core.catalog import load_catalog
from core.catalog.curated import PAPER_FEATURES
from core.errors import GrammarLensError
from core.store.database import ProjectDatabase
from core.store.feature_lists import get_feature_list, list_feature_lists, put_feature_list  # noqa: F401 - re-exported

# The four features of the study GrammarLens starts from (Kornilov & Shavrina), named by what they are:
# a linguist choosing a set reads "word-order-case-negation-questions", not "paper" (issue 29).
FOUR = "word-order-case-negation-questions"
BUILTIN_SETS = (FOUR, "grambank", "wals")
OLD_NAMES = {"paper": FOUR}  # earlier names: still understood everywhere (the CLI, jobs and passes saved with them)
_NAME = re.compile(r"^[A-Za-z][\w-]{0,63}$")


def canonical_set(spec: str) -> str:
    """A built-in set's name as shown today (``paper`` -> :data:`FOUR`); anything else unchanged."""
    return OLD_NAMES.get(spec.strip().casefold(), spec.strip())


def resolve_feature_set(project: ProjectDatabase | None, spec: str) -> list[str]:
    """Feature ids for ``spec``: a built-in set, a saved list's name, or comma-separated ids.

    Unknown ids raise :class:`~core.catalog.UnknownFeature` (a GrammarLensError with a hint).
    Duplicates are dropped, order is kept.
    """
    text = spec.strip()
    if not text:
        raise GrammarLensError("No feature set given.",
                               f"Use {FOUR}, grambank, wals, a saved list or ids like 81A,GB107.")
    catalog = load_catalog()
    key = text.casefold()
    if canonical_set(key) == FOUR:
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
    if not _NAME.match(name) or name.casefold() in BUILTIN_SETS or name.casefold() in OLD_NAMES:
        raise GrammarLensError(f"{name!r} cannot name a feature list.",
                               "Use letters, digits, '-' or '_', starting with a letter, and not the name of a "
                               f"built-in set ({', '.join(BUILTIN_SETS)}, paper).")
    catalog = load_catalog()
    ids = list(dict.fromkeys(catalog.get(f).id for f in feature_ids))
    if not ids:
        raise GrammarLensError("A feature list needs at least one feature.", "Give ids such as 81A,GB107.")
    put_feature_list(project, name, ids)
    return ids
