"""What the profile dock says in words: its status filter with counts, the summary line and the estimate.

Plain data, no Qt, so it is tested without a window.  The statuses are core's own, never retyped
here: the coder's decisions (:mod:`core.records.decisions`: coded, accepted, overridden, unknown "?",
note) come first, because they are what hand coding produces, then "not coded yet" (every row the
coder has not decided) and the model's side from :mod:`core.profile.entries` (predicted, not
enough information, no value, evidence only).  A status core adds later joins the filter by itself.

The estimate quotes a price only when a hosted model is set up: without a key or a server nothing
will be asked (so nothing costs anything), and a local server is free.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable

from core.profile import entries as profile_entries
from core.records import decisions as records
from core.records.vocabulary import ProfileStatus

ALL = ""  # the filter's key for every status
UNCODED = ProfileStatus.UNCODED  # the filter's key for the rows the coder has not decided (no value, no "?")
# The status of the dock's own rows for the features of the chosen set that nothing happened to yet: the
# profile has no row for them, so without these "not coded yet" counted 0 with 185 of 195 features untouched.
# Shown under "All features" (plainly: no value, in grey) and "not coded yet"; an export never holds them.
NOT_CODED = ProfileStatus.NOT_CODED
DECIDED = frozenset(records.VALUE_STATUSES)
CODER_STATUSES = tuple(records.VALUE_STATUSES) + (records.NOTE,)
MODEL_STATUSES = tuple(s for s in profile_entries.STATUSES if s not in CODER_STATUSES)
FILTER_KEYS = (ALL,) + CODER_STATUSES + (UNCODED,) + MODEL_STATUSES
# "All features", not "All statuses": the choice lists every feature of the set, coded or not.  It said "All
# statuses (2)" beside "not coded yet (8)", counting only rows someone or something had decided, which a coder
# read as "the set has 2 features" (issue 29).
LABELS = {ALL: "All features", records.UNKNOWN: 'unknown "?"', UNCODED: "not coded yet",
          NOT_CODED: "not coded yet"}
TOOLTIPS = {
    ALL: "Every feature of the set chosen above, coded or not (those not coded yet in grey, with no value), "
         "and every other value of the project's profile",
    records.CODED: "Values set by hand without a model answer",
    records.ACCEPTED: "The model's value, confirmed by the coder",
    records.OVERRIDDEN: "Another value than the model's, set by the coder",
    records.UNKNOWN: 'The coder\'s "?": the grammar does not say enough',
    records.NOTE: "Only notes or pins so far, no value",
    UNCODED: "Every row, and every feature of the set chosen above, the coder has not decided yet (no value, "
             "no \"?\")",
    profile_entries.PREDICTED: "The model answered; nobody decided yet",
    profile_entries.NOT_ENOUGH: "The model found the evidence insufficient",
    profile_entries.NO_VALUE: "The model's answer could not be read",
    profile_entries.EVIDENCE_ONLY: "Evidence retrieved without asking a model",
}
NO_MODEL = ("No model is set up: add an API key or a local server in Settings (Ctrl+,) to ask one, "
            "or choose Evidence only.")


def statuses_of(key: str) -> frozenset[str]:
    """The row statuses a filter key stands for (empty for every status)."""
    if key == ALL:
        return frozenset()
    if key == UNCODED:
        return (frozenset(profile_entries.STATUSES) - DECIDED) | {NOT_CODED}
    return frozenset((key,))


@dataclass(frozen=True)
class StatusChoice:
    """One line of the status filter: its key (the combo's data), its text with the count, and a tooltip."""

    key: str
    count: int

    @property
    def label(self) -> str:
        return f"{LABELS.get(self.key, self.key)} ({self.count})"

    @property
    def tooltip(self) -> str:
        return TOOLTIPS.get(self.key, "")


def status_choices(statuses: Iterable[str]) -> list[StatusChoice]:
    """The filter's lines, always in :data:`FILTER_KEYS` order, counted over the rows' ``statuses``.

    "All features" counts every row the dock lists: the profile's, and the :data:`NOT_CODED` ones of the set.
    """
    counts = Counter(statuses)
    choices = [StatusChoice(ALL, sum(counts.values()))]
    for key in FILTER_KEYS[1:]:
        choices.append(StatusChoice(key, sum(counts[s] for s in statuses_of(key))))
    return choices


def summary_line(entries: list[Any], agreement: Any | None) -> str:
    """'18 values · 12 coded · 3 unknown · …', in the filter's order, then the agreement with the databases."""
    counts = Counter(e.status for e in entries)
    known = [s for s in FILTER_KEYS if s not in (ALL, UNCODED)]
    ordered = known + sorted(s for s in counts if s not in known)
    parts = [f"{len(entries)} values"] + [f"{counts[s]} {s}" for s in ordered if counts[s]]
    if agreement is not None:
        rate = f"{agreement.rate:.0%}" if agreement.rate is not None else "n/a"
        parts.append(f"agreement with the databases: {agreement.agreed}/{agreement.compared} ({rate})")
    return " · ".join(parts)


def estimate_text(guess: Any, pending: int, *, retrieval_only: bool, model_ready: bool, note: str = "") -> str:
    """What the dock says before a batch: ``note`` (what the last batch did), then the work and its cost.

    ``guess`` is a :class:`core.profile.Estimate`.  Its price is quoted only for a hosted model that is
    set up (``model_ready``); a local server says "free"; without a model no cost at all.
    """
    if retrieval_only:
        return f"{note}{pending} feature(s) to retrieve; no model is asked."
    lead = note or "Before starting: "
    if guess.features and not model_ready:
        tokens = guess.prompt_tokens + guess.completion_tokens
        return (f"{lead}{guess.features} feature(s), about {tokens:,} tokens "
                f"({guess.prompt_tokens:,} in, {guess.completion_tokens:,} out). {NO_MODEL}")
    return lead + guess.describe()
