"""Changes another process made to the open project, as one :class:`core.changes.ProjectChange`.

Why: the CLI beside the window (``main.py code ...``), a second window or a script writes the same
file; the window has to show what they did the way it shows its own acts.  SQLite's
``PRAGMA data_version`` changes on a connection when *another* connection committed, and costs no
read of the file, so the window can ask it every second.  When it moved, the decision rows appended
since the last look (less the window's own, which it has announced already), the model answers
stored since (a batch file imported, ``classify`` run beside the window), the language and the
number of grammars say what changed.  Qt-free: the window's timer only calls :meth:`ProjectWatch.look`.

The window's own answers are told from another program's by id: a classification's record names
them, and a worker that stores answers for minutes (the profile dock's Run, a batch file's import,
committing in chunks) claims each id in the transaction that stores it (:mod:`core.store.claims`).
A run's claimed answers are found at once, as the run's; an import's wait for its record; another
program's answers meanwhile (its ``classify``, its own ``batch import``) are found at once, as theirs.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from core.catalog import load_catalog
from core.changes import ANSWER_ACTS, Act, ProjectChange, classified, decided
from core.store.claims import AnswerClaims
from core.store.database import ProjectDatabase
from core.store.decisions import decisions_by_ids
from core.store.repository import get_language


class Written(StrEnum):
    """What an act of the window may be writing from a worker (a look leaves it for later, see ``skip``)."""

    DECISIONS = "decisions"  # a disagreement resolved
    ANSWERS = "answers"  # a classification: every model answer waits for its record
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
        self._claims: dict[AnswerClaims, bool] = {}  # workers' claims followed -> held (an import) or not (a run)
        self._held: dict[AnswerClaims, set[str]] = {}  # features of an import's answers left for its record
        self._released: set[str] = set()  # ...of an import that stopped without its record: shown next look
        self._claimed: list[tuple[AnswerClaims, ProjectChange]] = []  # a run's answers found, for :meth:`claimed`

    def own(self, change: ProjectChange) -> None:
        """What this window wrote itself (already on its screens): a later look leaves it out.

        Decision rows by id; model answers by their ids when the record names them (a classification
        of the window: another program's answer to the same feature, committed between the window's
        commit and its record, stays theirs); a batch file's by the ids its import claimed (those found
        already were held for this record); else by the features the record names.
        """
        self._own.update(d.id for d in change.decisions)
        if change.answers:
            self._own_answer_ids.update(i for i in change.answers if i > self._last_answer)
        elif change.act == Act.BATCH_IMPORT:
            unseen = self._answers_after(self._last_answer)
            for claims, held in self._claims.items():
                if held:
                    self._held[claims] -= change.features
                    self._own_answer_ids.update(claims.taken(self.project.path, unseen))
        elif change.act in ANSWER_ACTS:
            self._own_answers.update(change.features)
            self._own_answers_upto = self._last_answer_id()
        if change.language or change.documents or change.whole_project:  # its own reading of them is current
            self._language, self._documents = get_language(self.project), self._document_count()

    def follow(self, claims: AnswerClaims, held: bool) -> None:
        """A worker of this window stores answers claiming them in ``claims``: they are the window's, not outside.

        ``held`` (a batch file's import): they wait for its record (see :meth:`own`); else (the dock's
        Run) each look hands them out through :meth:`claimed`, so the screens follow them as they land.
        """
        self._claims[claims] = held
        if held:
            self._held[claims] = set()

    def unfollow(self, claims: AnswerClaims) -> None:
        """The worker is over.  What an import held and its record did not take (cancelled, failed) is
        found by the next look, as an outside change; its answers not seen yet are then found unclaimed."""
        self._claims.pop(claims, None)
        self._released |= self._held.pop(claims, set())
        self._again = self._again or bool(self._released)

    def claimed(self) -> list[tuple[AnswerClaims, ProjectChange]]:
        """The answers the looks since the last call found claimed by a followed run, each with its claims."""
        found, self._claimed = self._claimed, []
        return found

    def look(self, skip: frozenset[Written] = frozenset()) -> ProjectChange | None:
        """The change made by other connections since the last look (None: nothing anyone would see).

        ``skip``: what this window is writing from a worker right now (its record is not announced yet,
        so its rows cannot be told from another program's); those wait for a later look, the rest is
        found now.  A look that skipped something looks again next time, whatever ``data_version`` says.
        Answers claimed by a followed worker (:meth:`follow`) are never in it.
        """
        version = self._data_version()
        if version == self._version and not self._again:
            return None
        self._version, self._again = version, bool(skip)
        parts = [part() for kind, part in ((Written.DECISIONS, self._decisions),
                                           (Written.ANSWERS, self._answers),
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

    def _answers(self) -> ProjectChange | None:
        """Answers stored by others since the last look.  Those a followed worker claimed are its own: a run's
        go to :meth:`claimed`, an import's are held for its record (found after it if it has none)."""
        answered = self._answers_after(self._last_answer)
        if answered:
            self._last_answer = max(answered)
            answered = {i: f for i, f in answered.items() if i not in self._own_answer_ids
                        and (f not in self._own_answers or i > self._own_answers_upto)}
        for claims, held in self._claims.items():
            mine = claims.taken(self.project.path, answered)
            if not mine:
                continue
            features = {answered.pop(i) for i in sorted(mine)}
            if held:
                self._held[claims] |= features
            else:
                self._claimed.append((claims, classified(_with_parts(features), mine)))
        self._own_answers.clear()
        self._own_answer_ids = {i for i in self._own_answer_ids if i > self._last_answer}
        features = set(answered.values()) | self._released
        self._released = set()
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
