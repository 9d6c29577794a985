"""The coding pass of the open project, without Qt: set and filter, the running pass, its acts, where it stopped.

:class:`gui.coding.pass_controller.PassController` turns what :class:`PassSession` decides into
signals (show this feature, the bar shows this); the decisions themselves (which feature a pass
starts or continues at, what the bar says, what is remembered for the project) are plain Python,
tested without a window.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from core import coding
from core.coding.coding_pass import FILTER_LABELS
from core.coding.feature_sets import BUILTIN_SETS, canonical_set
from core.store.database import ProjectDatabase
from gui.coding.coding_state import PassActs, PassMemory, PassView

BUILT_IN_SETS = BUILTIN_SETS  # core's names ("word-order-case-negation-questions" for the study's four)


@dataclass
class RunningPass:
    coding_pass: coding.CodingPass
    feature_set: str


class PassSession:
    """What the coding pass of one open project is: wanted set and filter, the running pass, its acts."""

    def __init__(self) -> None:
        self.running: RunningPass | None = None
        self.feature_sets: tuple[str, ...] = BUILT_IN_SETS
        self.wanted_set, self.wanted_filter = "wals", coding.ALL
        self.references: dict = {}  # the language's WALS/Grambank values (gui.profile.references.ReferenceSource)
        self.disagree_waiting = False  # "disagreeing" was chosen; it applies once the values are read
        self.acts = PassActs()  # this session's acts of the pass, for Ctrl+Z
        self.resume: PassMemory | None = None  # the pass left in this project, offered until one starts

    # ------------------------------------------------------------------ the project
    def project_opened(self, saved_lists: tuple[str, ...], recall) -> PassMemory | None:
        """A project opened: no pass runs; ``recall(feature_sets)`` gives the pass left in it, offered to continue."""
        self.running = None
        self.acts.clear()
        self.feature_sets = BUILT_IN_SETS + tuple(saved_lists)
        self.resume = recall(self.feature_sets)
        if self.resume is not None:
            self.resume = replace(self.resume, feature_set=canonical_set(self.resume.feature_set))  # "paper" of old
            self.wanted_set = self.resume.feature_set
            # "disagreeing" needs the database values, read in the background: it applies once they are
            self.disagree_waiting = self.resume.filter == coding.DISAGREE and not self.references
            self.wanted_filter = coding.ALL if self.disagree_waiting else self.resume.filter
        return self.resume

    def project_closed(self) -> None:
        self.running, self.references, self.resume = None, {}, None
        self.acts.clear()

    # ------------------------------------------------------------------ the pass
    @property
    def filter(self) -> str:
        return self.running.coding_pass.filter if self.running else self.wanted_filter

    @property
    def feature_set(self) -> str:
        return self.running.feature_set if self.running else self.wanted_set

    def start(self, project: ProjectDatabase, feature_set: str | None, filter: str | None,
              current: str | None) -> str | None:
        """Open a pass (the running one's set and filter unless given) and say which feature it shows first.

        The feature on screen when it belongs; the place the pass left in this project stood, when
        this is a pass over the same set (past it when the filter now leaves it out); else the
        first.  Raises :class:`core.errors.GrammarLensError` (an unknown set, say) with nothing changed.
        """
        feature_set, filter = canonical_set(feature_set or self.feature_set), filter or self.filter
        opened = coding.CodingPass.open(project, feature_set, filter, self.references)
        self.running = RunningPass(opened, feature_set)
        self.wanted_set, self.wanted_filter = feature_set, filter
        resume, self.resume = self.resume, None
        items = opened.items()
        if resume is not None and resume.feature_set == feature_set and resume.feature in opened.states:
            return resume.feature if resume.feature in items else opened.next(resume.feature) or opened.next(None)
        return current if current in items else opened.next(None)

    def stop(self) -> None:
        """End the pass: its acts leave Ctrl+Z, nothing is offered to continue."""
        self.running, self.resume = None, None
        self.acts.clear()

    def refresh(self, project: ProjectDatabase, feature_ids) -> bool:
        """Re-read features of the running pass after a decision; true when one of them belongs to it."""
        if self.running is None:
            return False
        mine = [fid for fid in feature_ids if fid in self.running.coding_pass.states]
        for fid in mine:
            self.running.coding_pass.refresh(project, fid)
        return bool(mine)

    def upcoming(self, current: str, count: int) -> list[str]:
        return self.running.coding_pass.upcoming(current, count) if self.running else []

    def view(self, current: str) -> PassView:
        """The bar: the invitation (or the offer to continue) without a pass; set, filter, counter, place with one."""
        available = bool(self.references)
        if self.running is None:
            resume = self.resume.feature if self.resume and self.resume.feature_set == self.wanted_set else ""
            return PassView(False, self.wanted_set, self.wanted_filter, "", "", self.feature_sets, available, resume)
        p = self.running.coding_pass
        place, shown = p.position(current) if current else (0, len(p.items()))
        label = "" if p.filter == coding.ALL else f" {FILTER_LABELS[p.filter]}"
        where = f"feature {place} of {shown}{label}" if place else f"{shown}{label or ' features'}"
        return PassView(True, self.running.feature_set, p.filter, str(p.counter()), where, self.feature_sets,
                        available)

    def memory(self, current: str) -> PassMemory | None:
        """What to remember for the project while a pass runs (feature "" when the one on screen is not of it)."""
        if self.running is None:
            return None
        p = self.running.coding_pass
        return PassMemory(self.running.feature_set, p.filter, current if current in p.states else "")
