"""A genealogically balanced subsample: one language per genus (else family, else the language itself).

Why: related languages share features by descent, so a sample with ten Bantu languages and one
Khoisan one over-counts what Bantu languages do (Dryer 1989, "Large linguistic areas and language
sampling"; WALS and Grambank analyses sample or control by genus and family).  The choice is
reproducible: within a unit, the language with the most decided values (a coder's code, accept,
override or "?"), ties broken by Glottocode, then by file path.  Languages without a Glottocode
are kept (nothing says what they are related to).
"""

from __future__ import annotations

from core.catalog.genealogy import lineage_of
from core.sample.snapshot import SampleRead, Snapshot


def balanced(read: SampleRead) -> SampleRead:
    """The read sample reduced to one language per genus/family, in the sample's order."""
    chosen: dict[str, Snapshot] = {}
    kept: list[Snapshot] = []
    for s in read.by_language():
        if not s.glottocode:
            kept.append(s)
            continue
        unit = lineage_of(s.glottocode).balance_unit(s.glottocode)
        best = chosen.get(unit)
        if best is None or _rank(s) < _rank(best):
            chosen[unit] = s
    picked = {id(s) for s in chosen.values()}
    out = [s for s in read.snapshots if id(s) in picked or any(s is k for k in kept)]
    return SampleRead(out, list(read.problems))


def _rank(s: Snapshot) -> tuple:
    decided = sum(1 for d in s.decisions.values() if d.has_value)
    return (-decided, s.glottocode or "", str(s.path))
