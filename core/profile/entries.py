"""A language's profile: one row per feature value, with its review status and cited pages.

The profile is computed, never stored: the latest classification of each feature plus the coder's
current decision about it (:mod:`core.coding`: a value coded by hand, accepted, overridden or "?",
with its note and pinned pages, which replace the model's cited pages).  Features coded by hand
without any model answer have rows too.  The paper's polar-question
complex (116A*) yields one row per Grambank sub-feature (GB257...), because that is how the
databases code it.  Features that only have stored retrieval evidence (``--no-llm`` runs) appear as
"evidence only" with the pages of their best paragraphs.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from core.llm import NOT_ENOUGH_INFORMATION, list_classifications
from core.records.classifications import Classification, ValueRecord
from core.records.decisions import Decision
from core.records.vocabulary import ProfileStatus
from core.store.database import ProjectDatabase
from core.store.decisions import current_decisions
from core.store.repository import get_paragraphs
from core.store.retrieval_runs import get_run, latest_run_ids, run_hits

# A row's status: :class:`ProfileStatus`, under the names the profile has always exported.
PREDICTED = ProfileStatus.PREDICTED
ACCEPTED = ProfileStatus.ACCEPTED
OVERRIDDEN = ProfileStatus.OVERRIDDEN
NOT_ENOUGH = ProfileStatus.NOT_ENOUGH
NO_VALUE = ProfileStatus.NO_VALUE
EVIDENCE_ONLY = ProfileStatus.EVIDENCE_ONLY
CODED = ProfileStatus.CODED
UNKNOWN = ProfileStatus.UNKNOWN
NOTED = ProfileStatus.NOTED
STATUSES = (PREDICTED, ACCEPTED, OVERRIDDEN, CODED, UNKNOWN, NOT_ENOUGH, NO_VALUE, EVIDENCE_ONLY, NOTED)
EVIDENCE_ONLY_PAGES = 3  # pages shown for an evidence-only row: those of its best paragraphs


@dataclass
class ProfileEntry:
    """One feature value of the language, as a typologist reviews and exports it."""

    feature_id: str  # the id the value is coded under (GB263 for a polar-question strategy)
    parent_id: str  # the feature that was run (116A* for the polar strategies, else = feature_id)
    name: str
    dataset: str
    status: str
    code: str | None  # effective value: the override if any, else the model's
    label: str | None
    predicted_code: str | None = None
    predicted_label: str | None = None
    reviewed: bool = False
    pages: list[str] = field(default_factory=list)  # printed pages of the cited paragraphs
    paragraph_ids: list[int] = field(default_factory=list)  # cited paragraphs (jump to evidence)
    classification_id: int | None = None
    retrieval_run_id: int | None = None
    model: str = ""
    created_at: str = ""
    note: str = ""
    reasoning: str = ""
    reviewer: str = ""  # who made the current decision
    decided_at: str = ""
    pinned: bool = False  # pages/paragraph_ids are the coder's pins, not the model's citations
    page_documents: list[int | None] = field(default_factory=list)  # the document of each of ``pages``

    @property
    def has_value(self) -> bool:
        """True when there is a coded value to export (not "?", NEI, unreadable or evidence only)."""
        return self.code is not None and self.status not in (NOT_ENOUGH, NO_VALUE, EVIDENCE_ONLY, UNKNOWN, NOTED)

    @property
    def is_unknown(self) -> bool:
        """The coder decided "?": the grammar does not say enough."""
        return self.status == UNKNOWN

    def to_json(self) -> dict:
        return asdict(self)


def build_profile(project: ProjectDatabase, feature_ids: list[str] | None = None) -> list[ProfileEntry]:
    """The profile of the project's language: every feature run (or only ``feature_ids``)."""
    from core.catalog import load_catalog

    catalog = load_catalog()
    wanted = set(feature_ids) if feature_ids is not None else None
    latest: dict[str, Classification] = {}
    for c in list_classifications(project):  # newest first
        if c.feature_id not in latest and (wanted is None or c.feature_id in wanted):
            latest[c.feature_id] = c
    decisions = current_decisions(project)
    entries: list[ProfileEntry] = []
    for c in latest.values():
        entries.extend(_entries_of(project, c, catalog, decisions))
    for feature_id, run_id in latest_run_ids(project).items():
        if feature_id in latest or (wanted is not None and feature_id not in wanted):
            continue
        entries.append(_with_decision(_evidence_only(project, feature_id, run_id, catalog),
                                      decisions.get(feature_id)))
    seen = {e.feature_id for e in entries}
    parts = _parts_of(wanted, catalog)
    for feature_id, d in decisions.items():
        if feature_id in seen or (wanted is not None and feature_id not in wanted and feature_id not in parts):
            continue
        feature = catalog.get(feature_id) if feature_id in catalog else None
        entries.append(_with_decision(ProfileEntry(
            feature_id=feature_id, parent_id=d.parent_id, name=feature.name if feature else feature_id,
            dataset=feature.dataset if feature else "", status=NOTED, code=None, label=None), d))
    entries.sort(key=lambda e: sort_key(e.feature_id))
    return entries


def sort_key(feature_id: str) -> tuple:
    """WALS before Grambank, each in numeric order (81A after 49A, GB107 after GB020)."""
    import re

    m = re.match(r"^(GB)?(\d+)(\D*)$", feature_id)
    if not m:
        return (2, 0, feature_id)
    return (1 if m.group(1) else 0, int(m.group(2)), m.group(3))


def _entries_of(project: ProjectDatabase, c: Classification, catalog,
                decisions: dict[str, Decision]) -> list[ProfileEntry]:
    from core.store.decisions import paragraph_documents

    cited = [e for e in c.evidence if e.cited]
    paragraphs = [e.paragraph_id for e in cited if e.paragraph_id is not None]
    documents = paragraph_documents(project, paragraphs)
    located = list(dict.fromkeys((documents.get(e.paragraph_id, (None, ""))[0] if e.paragraph_id else None,
                                  e.page_label) for e in cited if e.page_label))
    pages = [label for _doc, label in located]
    values: list[ValueRecord | None] = list(c.values) or [None]  # an unreadable answer: one row saying so
    out = []
    for v in values:
        fid = v.feature_id if v is not None else c.feature_id
        feature = catalog.get(fid) if fid in catalog else None
        code, label = (v.code, v.label) if v is not None else (None, None)
        status = PREDICTED if v is not None else NO_VALUE
        if label == NOT_ENOUGH_INFORMATION:
            code, status = None, NOT_ENOUGH
        elif feature is not None and code is not None:
            label = dict(feature.values).get(code, label)  # one wording per code: the catalog's
        entry = ProfileEntry(
            feature_id=fid, parent_id=c.feature_id,
            name=feature.name if feature else (c.feature_name or fid),
            dataset=feature.dataset if feature else "", status=status, code=code, label=label,
            predicted_code=v.code if v is not None else None, predicted_label=v.label if v is not None else None,
            pages=list(pages), paragraph_ids=list(paragraphs), classification_id=c.id,
            page_documents=[doc for doc, _label in located],
            retrieval_run_id=c.retrieval_run_id, model=c.model, created_at=c.created_at, reasoning=c.reasoning,
        )
        out.append(_with_decision(entry, decisions.get(fid)))
    return out


def _with_decision(entry: ProfileEntry, d: Decision | None) -> ProfileEntry:
    """The entry as the coder's current decision leaves it: its value and status, note and pinned pages."""
    if d is None:
        return entry
    entry.note = d.note or ""
    if d.pins:
        located = list(dict.fromkeys((p.document_id, p.page_label) for p in d.pins))
        entry.pages = [label for _doc, label in located]
        entry.page_documents = [doc for doc, _label in located]
        entry.paragraph_ids = [p.paragraph_id for p in d.pins if p.paragraph_id is not None]
        entry.pinned = True
    if not d.has_value:
        return entry
    entry.status = ProfileStatus(d.status)  # a value's decision status is its row's (the words are shared)
    entry.code, entry.label = d.code, d.label
    entry.reviewed, entry.reviewer, entry.decided_at = True, d.reviewer, d.created_at
    return entry


def _parts_of(wanted: set[str] | None, catalog) -> set[str]:
    """Parts of the multi-label features among ``wanted`` (116A* -> GB257...), which decisions are stored under."""
    if not wanted:
        return set()
    return {part for fid in wanted if fid in catalog for part in catalog.get(fid).multi_label}


def _evidence_only(project: ProjectDatabase, feature_id: str, run_id: int, catalog) -> ProfileEntry:
    hits = run_hits(project, run_id, limit=EVIDENCE_ONLY_PAGES)
    found = {p.id: p for p in get_paragraphs(project, [h.paragraph_id for h in hits])}
    labels = {i: p.page_label for i, p in found.items()}
    kept = [h.paragraph_id for h in hits if h.paragraph_id in labels]
    located = list(dict.fromkeys((found[i].document_id, labels[i]) for i in kept))
    run = get_run(project, run_id)
    feature = catalog.get(feature_id) if feature_id in catalog else None
    return ProfileEntry(
        feature_id=feature_id, parent_id=feature_id, name=feature.name if feature else feature_id,
        dataset=feature.dataset if feature else "", status=EVIDENCE_ONLY, code=None, label=None,
        pages=[label for _doc, label in located], page_documents=[doc for doc, _label in located],
        paragraph_ids=kept,
        retrieval_run_id=run_id, created_at=run.created_at if run else "",
    )
