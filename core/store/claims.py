"""Which model answers a worker of the window stored: each claimed by id inside the transaction that stores it.

Why: the window's watch (:mod:`core.store.watch`) finds every answer another *connection* committed,
and a worker of the window (the profile dock's Run, a batch file's import) writes through a connection
of its own, so its answers look like another program's.  Told apart by a guess they were mistaken:
while the dock ran, every answer found was credited to its run (another program's ``classify`` too),
and while the window imported a batch file every answer linked to *any* batch request was held as the
window's (a ``batch import`` of the CLI at the same time too).  A worker that claims each answer's id
before its transaction commits leaves no moment at which the watch could see the row unclaimed, so
the watch gives the claimed answers to the window and everything else to another program, exactly.

A claim names its project (a sample's import writes several; ids of two files are unrelated).  A
claim whose transaction rolled back must be dropped (:meth:`AnswerClaims.unclaim`): SQLite hands the
same id to the next row, which may be another program's.  Thread-safe: workers claim, the UI reads.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable


class AnswerClaims:
    """The ids of the model answers one act of the window stored (or is storing) from a worker, per project."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ids: set[tuple[str, int]] = set()
        self._paths: dict[str, str] = {}  # a path as given -> its real path (resolved once)

    def claim(self, project_path: str | os.PathLike, answer_id: int) -> None:
        """``answer_id`` in ``project_path`` is this act's: call it inside the transaction that stores the answer."""
        key = self._key(project_path)
        with self._lock:
            self._ids.add((key, int(answer_id)))

    def unclaim(self, project_path: str | os.PathLike, answer_ids: Iterable[int]) -> None:
        """The transaction that stored these rolled back: their ids may become another program's answers."""
        key = self._key(project_path)
        with self._lock:
            self._ids.difference_update((key, int(i)) for i in answer_ids)

    def taken(self, project_path: str | os.PathLike, answer_ids: Iterable[int]) -> set[int]:
        """Which of ``answer_ids`` (answers of ``project_path``) this act claimed."""
        key = self._key(project_path)
        with self._lock:
            return {int(i) for i in answer_ids if (key, int(i)) in self._ids}

    def _key(self, project_path: str | os.PathLike) -> str:
        given = os.fspath(project_path)
        with self._lock:
            known = self._paths.get(given)
        if known is None:
            known = os.path.realpath(given)
            with self._lock:
                self._paths[given] = known
        return known
