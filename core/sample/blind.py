"""Blind figures stay blind: the two coders' values before any resolution, kept in A's project.

After a resolution A holds the agreed value, so comparing A with B again gives agreement 1.000;
a reliability figure read from the tool after adjudication would be wrong.  So the first time a
feature is resolved against B, the comparison as it stood is recorded in A (one ``meta`` row per
B, :mod:`core.store.blind_comparisons`; no migration, so read-only readers of A read it too)::

    {"b_path": "/…/b/veshari.grammarlens", "b_file": "veshari.grammarlens",
     "recorded_at": "2026-…", "features": {"GB020": ["1", "0"], "81A": ["1", "1"], …}}

Every feature both coders had decided is recorded at that moment (with the value each had then);
a feature first decided later is added at the next resolution, before that resolution is stored.
The blind pair of a feature is thus its record's, else (resolved by a GrammarLens that kept no
record) the pair written in the resolution's note, else the current pair (never resolved: still
blind).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from core.store.database import ProjectDatabase

_NOTE = re.compile(r"\[Resolved between two coders\] A: (\S+) .*? \| B: (\S+) ", re.S)


def b_key(b_path: str | Path) -> str:
    """The key of B's record in A: B's resolved path."""
    return str(Path(b_path).resolve())


def find_record(records: dict[str, str], b_path: str | Path) -> dict | None:
    """B's blind record among A's (by B's path; else by B's file name when exactly one record has it)."""
    text = records.get(b_key(b_path))
    if text is None:
        named = [t for k, t in records.items() if Path(k).name == Path(b_path).name]
        text = named[0] if len(named) == 1 else None
    if not text:
        return None
    try:
        record = json.loads(text)
    except ValueError:
        return None
    return record if isinstance(record, dict) and isinstance(record.get("features"), dict) else None


def pair_from_note(note: str) -> tuple[str, str] | None:
    """(A's code, B's code) written in a resolution's note, or None if the note records no resolution."""
    match = _NOTE.search(note or "")
    return (match.group(1), match.group(2)) if match else None


def record_blind(project_a: ProjectDatabase, comparison) -> None:
    """Add the features of ``comparison`` (a :class:`core.sample.coders.CoderComparison`, made before
    this resolution) that B's record in A lacks, with the values both sides had; inside the caller's transaction."""
    from core.store.blind_comparisons import read_blind_records, write_blind_record
    from core.timestamps import now_iso

    key = b_key(comparison.b.path)
    record = find_record(read_blind_records(project_a), comparison.b.path) or {
        "b_path": key, "b_file": Path(key).name, "recorded_at": now_iso(), "features": {}}
    features = record["features"]
    added = False
    for f in comparison.features:
        if f.a is not None and f.b is not None and f.feature_id not in features:
            features[f.feature_id] = list(f.blind_pair or (f.a.code, f.b.code))
            added = True
    if added or key not in read_blind_records(project_a):
        write_blind_record(project_a, key, json.dumps(record, ensure_ascii=False, sort_keys=True))
