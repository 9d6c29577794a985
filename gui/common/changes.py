"""The one way a project change reaches the screens: ``changed(record, initiator)``.

Why: every panel (feature list, profile dock, coding panel, evidence, sample window, queue) used
to listen to the signal of whichever controller made a change, six signals in all, and a panel
that missed one showed something stale.  Now every act runs through :meth:`ProjectChanges.run`
(or, for work that ran in the background, is announced with :meth:`ProjectChanges.announce`) and
ends in one :class:`core.changes.ProjectChange`; each panel reads the record and re-reads only
what it says changed.  Changes another process made (the CLI beside the window) arrive the same
way, with ``initiator`` None: a timer asks the project's :class:`core.store.watch.ProjectWatch`
once a second (``PRAGMA data_version``, no read of the file when nothing changed).

An act the window runs in the background writes through a connection of its own, which the watch
cannot tell from another process's; so such an act is run through :meth:`ProjectChanges.writing`:
the watch waits while it runs, and once its record is announced leaves out what it wrote.  Without
that, a commit that fell just before a look was announced twice, once as an outside change.  An act
that stores model answers for minutes (the profile dock's Run, a batch file's import) is run through
:meth:`ProjectChanges.claiming` instead: it claims each answer by id as it stores it, and the watch
tells exactly those from another program's answers stored meanwhile, which reach the screens at once.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from typing import TypeVar

from PySide6.QtCore import QObject, QTimer, Signal

from core.changes import ProjectChange
from core.errors import Cancelled, GrammarLensError
from core.store.claims import AnswerClaims
from core.store.database import ProjectDatabase
from core.store.watch import EVERYTHING, ProjectWatch, Written
from gui.common.operations import Operation

T = TypeVar("T")

log = logging.getLogger(__name__)

WATCH_MS = 1000  # how often the window looks for another process's writes


class ProjectChanges(QObject):
    """Runs acts on the open project and says what each changed, once, to every screen."""

    changed = Signal(object, object)  # ProjectChange, initiator (the object that asked; None: another process)
    failed = Signal(str, object)  # title, GrammarLensError: the act was refused, nothing changed

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.watch: ProjectWatch | None = None
        self._writing: list[frozenset[Written]] = []  # what the window's running background acts write
        self._claimants: dict[AnswerClaims, object] = {}  # a running act's claims -> who its answers are announced as
        self.timer = QTimer(self, interval=WATCH_MS)
        self.timer.timeout.connect(self.look)

    def set_project(self, project: ProjectDatabase | None) -> None:
        """Follow ``project`` (None: none open) for changes made by other processes."""
        self.watch = ProjectWatch(project) if project is not None else None
        for claims, initiator in self._claimants.items():  # a run or an import still going: its answers stay its own
            if self.watch is not None:
                self.watch.follow(claims, held=initiator is None)
        if self.watch is None:
            self.timer.stop()
        else:
            self.timer.start()

    def run(self, act: Callable[[], ProjectChange], initiator: object, title: str = "Not saved",
            failed: Callable[[str, GrammarLensError], object] | None = None) -> ProjectChange | None:
        """Run one act (a short transaction, on the UI thread) and announce its record; None when refused or cancelled.

        A refusal goes to ``failed`` (the initiator's own report), else to this object's ``failed``.
        """
        try:
            change = act()
        except Cancelled:  # e.g. the first act's name question ended by the window closing: no act, no report
            return None
        except GrammarLensError as exc:
            (failed or self.failed.emit)(title, exc)
            return None
        self.announce(change, initiator)
        return change

    def writing(self, operation: Operation[T], writes: frozenset[Written] = EVERYTHING) -> Operation[T]:
        """``operation`` is an act of this window writing ``writes`` from a worker: looks leave those for later.

        Its ``success`` is expected to :meth:`announce` the record (which tells the watch what was the
        window's own); a failed or cancelled one announces nothing, and what it committed before
        stopping is found by the next look.  What it does not write (a reading grammar writes no
        decision) is still found at once, so another program's acts are not held up by a long reading.
        Call it on the UI thread before the operation can finish.
        """
        self._writing.append(writes)
        operation.finished(lambda: self._writing.remove(writes))
        return operation

    def claiming(self, operation: Operation[T], claims: AnswerClaims, initiator: object | None = None) -> Operation[T]:
        """``operation`` stores model answers from a worker, claiming each in ``claims``: they are the window's.

        With an ``initiator`` (the profile dock's Run) each look announces the answers claimed since as
        ``initiator``'s, so the marks and the counts follow the run as it goes; without one (a batch
        file's import) they wait for the record its ``success`` announces.  Any other answer found
        meanwhile (another program's ``classify`` or ``batch import``) is another program's, at once.
        Once the operation is over a last look hands out its last answers and the claims are let go
        (a cancelled import's answers, announced by nobody, are then found as an outside change).
        Call it on the UI thread before the operation can finish and before a look can see its answers.
        """
        if self.watch is not None:
            self.watch.follow(claims, held=initiator is None)
        self._claimants[claims] = initiator

        def over() -> None:
            self.look()
            if self.watch is not None:
                self.watch.unfollow(claims)
            self._claimants.pop(claims, None)

        operation.finished(over)
        return operation

    @property
    def busy_writing(self) -> bool:
        """True while an act of this window writes in the background (the watch waits for its record)."""
        return bool(self._writing)

    def announce(self, change: ProjectChange, initiator: object) -> None:
        """Tell every screen what an act changed (one the window ran in the background, say)."""
        if self.watch is not None:
            self.watch.own(change)
        self.changed.emit(change, initiator)

    def look(self) -> ProjectChange | None:
        """Another process's writes since the last look, announced with no initiator (None: nothing new).

        The answers a running act of the window claimed (:meth:`claiming`) are announced as its own;
        what an act of the window writes from a worker is left for later while it runs (:meth:`writing`).
        """
        skip = frozenset().union(*self._writing)
        if self.watch is None or skip >= EVERYTHING:
            return None
        try:
            change = self.watch.look(skip)
        except (GrammarLensError, sqlite3.Error) as exc:  # the file went away: the project's own checks say so
            log.info("not looking for outside changes: %s", exc)
            self.timer.stop()
            return None
        for claims, own in self.watch.claimed():
            self.changed.emit(own, self._claimants.get(claims))
        if change is not None and not change.empty:
            self.changed.emit(change, None)
        return change
