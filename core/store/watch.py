"""Changes another process made to the open project, as one :class:`core.changes.ProjectChange`.

Why: the CLI beside the window (``main.py code ...``), a second window or a script writes the same
file; the window has to show what they did the way it shows its own acts.  SQLite's
``PRAGMA data_version`` changes on a connection when *another* connection committed, and costs no
read of the file, so the window can ask it every second.  When it moved, the decision rows appended
since the last look (less the window's own, which it has announced already), the model answers
stored since (a batch file imported, ``classify`` run beside the window), the language and the
number of grammars say what changed.  Qt-free: the window's timer only calls :meth:`ProjectWatch.look`.

The window's own answers are told from another program's by id when its record names them (a
classification), and by their link to a batch request while the window imports a batch file: an
import commits in chunks for minutes, and another program's ``classify`` meanwhile is shown at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from core.catalog import load_catalog
from core.changes import ANSWER_ACTS, Act, ProjectChange, decided
from core.store.database import ProjectDatabase
from core.store.decisions import decisions_by_ids
from core.store.repository import get_language


class Written(StrEnum):
    """What an act of the window may be writing from a worker (a look leaves it for later, see ``skip``)."""

    DECISIONS = "decisions"  # a disagreement resolved
    ANSWERS = "answers"  # a classification: every model answer waits for its record
    BATCH_ANSWERS = "batch answers"  # a batch file imported: only answers linked to its requests wait
    DOCUMENTS = "documents"  # a grammar read in (its language too)


EVERYTHING = frozenset(Written)


class ProjectWatch:
    """What changed in one open project since the last look, made by someone else than this connection."""

    def __init__(self, project: ProjectDatabase) -> None:
        self.project = project
        self._version = self._data_version()
        self._last_id = self._last_decision_id()
        self._last_answer = self._last_answer_id()
        self._language = get_language(project)
        self._documents = self._document_count()
        self._own: set[int] = set()
        self._own_answers: set[str] = set()  # features this window stored model answers for (already announced)
        self._own_answers_upto = 0  # ...in answers up to this id (a later one is someone else's)
        self._own_answer_ids: set[int] = set()  # answers this window stored, by id (a record that names them)
        self._again = False  # the last look skipped something: look again even if data_version stayed
        self._held: set[str] = set()  # features of batch-file answers left for the window's import's record

    def own(self, change: ProjectChange) -> None:
        """What this window wrote itself (already on its screens): a later look leaves it out.

        Decision rows by id; model answers by their ids when the record names them (a classification
        of the window: another program's answer to the same feature, committed between the window's
        commit and its record, stays theirs), else by the features the record names (a batch file).
        """
        self._own.update(d.id for d in change.decisions)
        if change.answers:
            self._own_answer_ids.update(i for i in change.answers if i > self._last_answer)
        elif change.act == Act.BATCH_IMPORT:  # its answers are the ones linked to batch requests (see _answers)
            self._held -= change.features
            self._own_answer_ids.update(self._batch_linked(self._answers_after(self._last_answer)))
        elif change.act in ANSWER_ACTS:
            self._own_answers.update(change.features)
            self._own_answers_upto = self._last_answer_id()
        if change.language or change.documents or change.whole_project:  # its own reading of them is current
            self._language, self._documents = get_language(self.project), self._document_count()

    def look(self, skip: frozenset[Written] = frozenset()) -> ProjectChange | None:
        """The change made by other connections since the last look (None: nothing anyone would see).

        ``skip``: what this window is writing from a worker right now (its record is not announced yet,
        so its rows cannot be told from another program's); those wait for a later look, the rest is
        found now.  A look that skipped something looks again next time, whatever ``data_version`` says.
        ``Written.BATCH_ANSWERS`` (a batch file being imported, committing in chunks) holds back only the
        answers linked to a batch request: another program's ``classify`` is found between two chunks.
        """
        version = self._data_version()
        if version == self._version and not self._again:
            return None
        self._version, self._again = version, bool(skip)
        leave_batch = Written.BATCH_ANSWERS in skip
        parts = [part() for kind, part in ((Written.DECISIONS, self._decisions),
                                           (Written.ANSWERS, lambda: self._answers(leave_batch)),
                                           (Written.DOCUMENTS, self._language_and_documents)) if kind not in skip]
        found = [p for p in parts if p is not None]
        change = found[0] if found else None
        for other in found[1:]:
            change = change.merged(other) if change is not None else other
        return change

    def _decisions(self) -> ProjectChange | None:
        ids = [i for i in self._decision_ids_after(self._last_id) if i not in self._own]
        self._last_id = max([self._last_id, *ids, *self._own])
        self._own = {i for i in self._own if i > self._last_id}
        return decided(Act.OUTSIDE, decisions_by_ids(self.project, ids)) if ids else None

    def _answers(self, leave_batch: bool = False) -> ProjectChange | None:
        """Answers stored by others since the last look; with ``leave_batch`` those of a batch file are held
        (the window's import announces them), and once it is over whatever it did not announce is found."""
        answered = self._answers_after(self._last_answer)
        if answered:
            self._last_answer = max(answered)
            answered = {i: f for i, f in answered.items() if i not in self._own_answer_ids
                        and (f not in self._own_answers or i > self._own_answers_upto)}
        if leave_batch:
            linked = self._batch_linked(answered)
            self._held.update(answered[i] for i in linked)
            answered = {i: f for i, f in answered.items() if i not in linked}
        self._own_answers.clear()
        self._own_answer_ids = {i for i in self._own_answer_ids if i > self._last_answer}
        features = set(answered.values())
        if not leave_batch:  # the import stopped without its record (cancelled, failed): what it stored shows now
            features |= self._held
            self._held.clear()
        return ProjectChange(Act.OUTSIDE, _with_parts(features), statuses=True) if features else None

    def _language_and_documents(self) -> ProjectChange | None:
        language, documents = get_language(self.project), self._document_count()
        if language == self._language and documents == self._documents:
            return None
        self._language, self._documents = language, documents
        return ProjectChange(Act.OUTSIDE, language=True, documents=True)

    # ------------------------------------------------------------------ reads
    def _data_version(self) -> int:
        return int(self.project.conn.execute("PRAGMA data_version").fetchone()[0])

    def _last_decision_id(self) -> int:
        return int(self.project.conn.execute("SELECT COALESCE(MAX(id), 0) FROM decisions").fetchone()[0])

    def _last_answer_id(self) -> int:
        return int(self.project.conn.execute("SELECT COALESCE(MAX(id), 0) FROM classifications").fetchone()[0])

    def _answers_after(self, last_id: int) -> dict[int, str]:
        """Model answers stored since ``last_id``: id -> the feature answered."""
        rows = self.project.conn.execute("SELECT id, feature_id FROM classifications WHERE id > ?", (last_id,))
        return {int(r[0]): str(r[1]) for r in rows.fetchall()}

    def _batch_linked(self, answers: dict[int, str]) -> set[int]:
        """Which of ``answers`` (id -> feature) a batch file's import stored (linked to its batch request)."""
        if not answers:
            return set()
        rows = self.project.conn.execute(
            "SELECT classification_id FROM batch_requests WHERE classification_id >= ?", (min(answers),))
        return {int(r[0]) for r in rows.fetchall()} & set(answers)

    def _decision_ids_after(self, last_id: int) -> Iterable[int]:
        rows = self.project.conn.execute("SELECT id FROM decisions WHERE id > ? ORDER BY id", (last_id,))
        return [int(r[0]) for r in rows.fetchall()]

    def _document_count(self) -> int:
        return int(self.project.conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0])


def _with_parts(feature_ids: Iterable[str]) -> frozenset[str]:
    """Features answered, and the parts of a multi-label one (116A*'s Grambank parts are coded one by one)."""
    catalog, found = load_catalog(), set()
    for fid in feature_ids:
        found.add(fid)
        if fid in catalog:
            found.update(catalog.get(fid).multi_label)
    return frozenset(found)
