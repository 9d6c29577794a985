"""The coder's acts as the window and the CLI (``main.py code``) run them, each returning one ProjectChange.

Why beside :mod:`core.coding.decisions`: those functions append rows and return them (what the
CLI prints, what the tests read); an act here runs one of them in its own transaction and says
what it changed, so that every screen updates from one record (see :mod:`core.changes`).  The
rows ride along in ``ProjectChange.decisions`` (a pass keeps them for Ctrl+Z).
"""

from __future__ import annotations

from collections.abc import Sequence

from core.changes import Act, ProjectChange, decided
from core.coding import decisions
from core.coding.coding_pass import ActUndone, undo_act
from core.coding.values import codable_feature
from core.records.decisions import Decision
from core.store import decisions as store
from core.store.database import ProjectDatabase


def code(project: ProjectDatabase, feature_id: str, value: str, *, note: str | None = None,
         reviewer: str = "", paragraph_ids: Sequence[int] | None = None, page_labels: Sequence[str] | None = None,
         unpin_paragraph_ids: Sequence[int] = (), unpin_page_labels: Sequence[str] = ()) -> ProjectChange:
    """Set a value by hand (a code, a label or "?"); the act is code, accept, override or unknown by the model's.

    Pins given replace the feature's pins, ``unpin_*`` drop some, in the same row (the CLI's ``code --pin``).
    """
    row = decisions.code(project, feature_id, value, note=note, reviewer=reviewer, paragraph_ids=paragraph_ids,
                         page_labels=page_labels, unpin_paragraph_ids=unpin_paragraph_ids,
                         unpin_page_labels=unpin_page_labels)
    return decided(row.action, [row])


def accept(project: ProjectDatabase, classification_id: int, *, reviewer: str = "") -> ProjectChange:
    """Accept a model answer (every value of it)."""
    return decided(Act.ACCEPT, decisions.accept(project, classification_id, reviewer=reviewer))


def note(project: ProjectDatabase, feature_id: str, text: str, *, reviewer: str = "",
         classification_id: int | None = None) -> ProjectChange:
    return decided(Act.NOTE, decisions.add_note(project, feature_id, text, reviewer=reviewer,
                                                classification_id=classification_id))


def pin(project: ProjectDatabase, feature_id: str, paragraph_ids: Sequence[int] = (),
        page_labels: Sequence[str] = (), *, reviewer: str = "") -> ProjectChange:
    return decided(Act.PIN, [decisions.pin(project, feature_id, paragraph_ids, page_labels, reviewer=reviewer)])


def unpin(project: ProjectDatabase, feature_id: str, paragraph_ids: Sequence[int] = (),
          page_labels: Sequence[str] = (), *, reviewer: str = "") -> ProjectChange:
    return decided(Act.UNPIN, [decisions.unpin(project, feature_id, paragraph_ids, page_labels, reviewer=reviewer)])


def undo(project: ProjectDatabase, feature_id: str, *, reviewer: str = "") -> ProjectChange:
    """Cancel the feature's latest decision; ``restored`` says what counts again (None: undecided)."""
    with project.transaction():
        restored = decisions.undo(project, feature_id, reviewer=reviewer)
        fid = codable_feature(feature_id).id
        row = store.feature_history(project, fid)[-1]  # the undo row just appended
    return decided(Act.UNDO, [row], {fid: restored})


def undo_pass_act(project: ProjectDatabase, rows: Sequence[Decision], *, reviewer: str = ""
                  ) -> tuple[ActUndone, ProjectChange | None]:
    """Ctrl+Z in a pass: :func:`core.coding.coding_pass.undo_act`, and its record when it wrote anything."""
    result = undo_act(project, rows, reviewer=reviewer)
    if not result.undone:
        return result, None
    return result, decided(Act.UNDO, (), result.restored)
