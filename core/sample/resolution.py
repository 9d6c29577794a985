"""Resolving a disagreement between two coders: a new decision in A that records both earlier ones.

What is stored (only in A, only when asked; B is never opened for writing): one ordinary decision
row, made by :func:`core.coding.code` (so the value is checked, the status says coded / accepted /
overridden / unknown as for any value, and undo works as usual), whose reviewer is the person who
resolved and whose note records who said what before::

    <the resolver's note>
    [Resolved between two coders] A: 1 (present) by ana, p. 12 (a.grammarlens #7, 2026-03-01T10:00:00+00:00;
    note: "§4.2") | B: 0 (absent) by ben, p. 14 (b.grammarlens #5, ...; note: "...")

A's earlier decision stays in A's history (nothing is rewritten); B's is recorded in that note,
with its coder, value, note, pins and time.  Why a note and no new table: a new schema version
would make every existing project unreadable *read-only* (``open_project`` refuses to read an
older schema it may not upgrade), which is exactly how a sample and a second coder's file are
read; and the note is what ``code --history`` and the window's history already show.

Evidence: a resolved value carries exactly the evidence of the side it came from, never the
other side's.  A's value keeps A's pins; B's value gets B's pins as found in A's copy of the book
(:mod:`core.sample.pin_mapping`: same PDF by paragraph, another edition by text), the pins that
could not be found named in the note; a value neither coder gave, or a side without pins, gets no
pins, and the note says where the value came from.

Languages: two files of different Glottocodes describe different languages; a resolution between
them is refused unless ``across_languages`` is given (CLI ``--across-languages``).

Blind figures: before the first resolution against B, the comparison as it stood is recorded in
A (:mod:`core.sample.blind`), in the same transaction.

The act runs in one ``BEGIN IMMEDIATE`` transaction that
first re-reads A's current decision: if A changed the feature since the comparison, nothing is
stored and the caller is told to compare again.
"""

from __future__ import annotations

from core.changes import Act, ProjectChange, decided
from core.errors import GrammarLensError
from core.sample.coders import CoderValue, Disagreement
from core.sample.members import same_file
from core.store.database import ProjectDatabase

RESOLUTION_MARK = "[Resolved between two coders]"


def resolve_disagreement(project_a: ProjectDatabase, disagreement: Disagreement, value: str,
                         note: str | None = None, resolver: str = "", *, across_languages: bool = False,
                         comparison=None):
    """Store ``value`` (a code, a label or "?") for the feature in A, recording both coders' earlier decisions.

    Returns the new :class:`core.coding.Decision`.  ``project_a`` must be A's file (opened
    writable); the feature's current decision in it must still be the one compared.  With
    ``comparison`` (the :class:`core.sample.coders.CoderComparison` the disagreement comes from)
    the blind figures are recorded in A first.
    """
    from core import coding

    _check_is_a(project_a, disagreement.a)
    _check_same_language(disagreement, across_languages)
    feature = coding.codable_feature(disagreement.feature_id)
    code, _label = coding.resolve_value(feature, value)
    with project_a.transaction():  # one act: re-read, check, record the blind figures, store
        now = coding.current(project_a, feature.id)
        if now is None or now.id != disagreement.a.decision_id:
            who = f" by {now.reviewer or 'someone'} at {now.created_at}" if now else ""
            raise GrammarLensError(f"{feature.id} changed in {project_a.path.name} since the comparison{who}.",
                                   "Nothing was stored. Compare the two files again, then resolve.")
        if comparison is not None:
            from core.sample.blind import record_blind

            record_blind(project_a, comparison)
        pins, evidence = evidence_of(disagreement, code)
        return coding.code(
            project_a, feature.id, value,
            paragraph_ids=[p.paragraph_id for p in pins if p.paragraph_id is not None] or None,
            page_labels=[p.page_label for p in pins if p.paragraph_id is None] or None,
            note=resolution_note(disagreement, note, evidence), reviewer=resolver, replace_pins=True)


def resolve(project_a: ProjectDatabase, disagreement: Disagreement, value: str, note: str | None = None,
            resolver: str = "", *, comparison=None) -> ProjectChange:
    """:func:`resolve_disagreement` as an act of the window: the record of what it changed (its row inside)."""
    stored = resolve_disagreement(project_a, disagreement, value, note, resolver, comparison=comparison)
    return decided(Act.RESOLUTION, [stored])


def evidence_of(disagreement: Disagreement, code: str) -> tuple[tuple, str]:
    """The pins a resolved value carries (pins of A's project) and the sentence saying where they come from."""
    a, b = disagreement.a, disagreement.b
    if code == a.code:
        pins = tuple(a.pins)
        return pins, ("Evidence: A's pins." if pins else "Evidence: none pinned (A's value; A pinned no evidence).")
    if code == b.code:
        pins = tuple(disagreement.b_pins_for_a)
        if not b.pins:
            return (), "Evidence: none pinned (B's value; B pinned no evidence)."
        unmapped = f" Not found in A's book: {'; '.join(disagreement.b_unmapped)}." if disagreement.b_unmapped else ""
        found = "B's pins, found in A's book." if pins else "none pinned (none of B's pins was found in A's book)."
        return pins, f"Evidence: {found}{unmapped}"
    return (), "Evidence: none pinned (a value neither coder gave, set by the resolver)."


def _check_same_language(d: Disagreement, across_languages: bool) -> None:
    a, b = d.a.glottocode, d.b.glottocode
    if a and b and a != b and not across_languages:
        raise GrammarLensError(
            f"A ({d.a.project.name}) describes {a} and B ({d.b.project.name}) describes {b}: "
            "a resolution would store another language's value. Nothing was stored.",
            "Compare two coders' files of the same language; if this is really meant, add --across-languages.")


def resolution_note(disagreement: Disagreement, note: str | None, evidence: str = "") -> str:
    """The note of a resolution: the resolver's words, then who said what before (both sides), then the evidence."""
    record = (f"{RESOLUTION_MARK} A: {_side(disagreement.a)} | B: {_side(disagreement.b)}")
    if evidence:
        record = f"{record}\n{evidence}"
    return f"{note.strip()}\n{record}" if note and note.strip() else record


def _side(v: CoderValue) -> str:
    paragraphs = f", paragraphs {', '.join(map(str, v.paragraph_ids))}" if v.paragraph_ids else ""
    said = f"; note: {v.note!r}" if v.note else ""
    return f"{v.shown()} ({v.project.name} #{v.decision_id}, {v.decided_at}{paragraphs}{said})"


def _check_is_a(project: ProjectDatabase, a: CoderValue) -> None:
    if not same_file(project.path, a.project):
        raise GrammarLensError(f"{project.path} is not the file the disagreement's side A came from ({a.project}).",
                               "Resolve into the project compared as A.")
