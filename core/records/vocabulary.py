"""The project's closed sets of words, each declared once: statuses, filter keys, job states, error kinds.

Why one module: the same words ("coded", "uncoded", "done", "auth") were typed in three or four
layers (the store, the profile, the sample, the window, the CLI), so a new status or a typo in one
place silently split them.  Each set is a ``StrEnum``: a member *is* its string, so what is stored
in SQLite, written to JSON and CSV and printed by the CLI is unchanged, and a comparison with a
plain string (a row read back, a command-line argument) still holds.  A set whose words overlap
another's takes the other's value rather than retyping it.
"""

from __future__ import annotations

from enum import StrEnum


class DecisionStatus(StrEnum):
    """What a coder's decision row says about its feature (``decisions.status``)."""

    CODED = "coded"  # a value set by hand, with or without a model answer
    ACCEPTED = "accepted"  # the model's value, confirmed
    OVERRIDDEN = "overridden"  # a value other than the model's, set while a model answer exists
    UNKNOWN = "unknown"  # "?": the grammar does not say enough (Grambank's code)
    NOTE = "note"  # notes or pins only, no value yet
    UNDO = "undo"  # the row cancels an earlier one (``decisions.undoes``); never the feature's current state


class ProfileStatus(StrEnum):
    """A profile row's status (:mod:`core.profile.entries`), the words the dock, the sample and the exports count.

    The coder's statuses are the decision's own (:class:`DecisionStatus`); the model's side says what
    happened without a decision.  ``UNCODED`` is no row's status: it is the word for every status no
    coder decided (the sample's column, the dock's "not coded yet", ``code show`` of a feature never
    touched).  ``NOT_CODED`` is the status of the dock's own rows for the features of the chosen set
    that nothing happened to yet (the profile has no row for them).
    """

    PREDICTED = "predicted"  # the model answered; nobody decided yet
    ACCEPTED = DecisionStatus.ACCEPTED.value
    OVERRIDDEN = DecisionStatus.OVERRIDDEN.value
    CODED = DecisionStatus.CODED.value  # set by hand without a model answer
    UNKNOWN = DecisionStatus.UNKNOWN.value  # the coder's "?" (exported as Grambank writes it)
    NOT_ENOUGH = "not enough information"  # the model's answer: the evidence does not say
    NO_VALUE = "no value"  # the model's answer could not be read
    EVIDENCE_ONLY = "evidence only"  # retrieval-only run, no model asked
    NOTED = DecisionStatus.NOTE.value  # only notes or pins so far, no value and no model answer
    UNCODED = "uncoded"
    NOT_CODED = "not coded"


class FilterKey(StrEnum):
    """Which features a coding pass visits (``code next --filter``, the window's pass, a saved resume point)."""

    ALL = "all"
    UNCODED = ProfileStatus.UNCODED.value
    PREDICTED = ProfileStatus.PREDICTED.value  # the model answered, nobody reviewed
    DISAGREE = "disagree"  # the coder's value differs from WALS/Grambank's for the language


class JobState(StrEnum):
    """Where a profile batch job, or one feature of it, stands (``profile_jobs.state``, ``profile_job_items.state``)."""

    PENDING = "pending"  # not run yet
    RUNNING = "running"
    DONE = "done"
    INCOMPLETE = "incomplete"  # ran to the end, some features failed (a resume asks them again)
    CANCELLED = "cancelled"  # stopped by the person; a resume goes on
    FAILED = "failed"  # stopped by an error no further feature could get past (bad key, server gone)


RESUMABLE_STATES = frozenset({JobState.INCOMPLETE, JobState.CANCELLED, JobState.FAILED})  # running again goes on


class ErrorKind(StrEnum):
    """What went wrong with a model call (``LlmError.kind``), so a caller reacts to a case without reading text."""

    ERROR = "error"  # nothing more specific is known
    NO_KEY = "no_key"
    AUTH = "auth"
    MODEL_NOT_FOUND = "model_not_found"
    QUOTA = "quota"
    RATE_LIMITED = "rate_limited"
    SERVER = "server"
    TIMEOUT = "timeout"
    CONNECTION = "connection"
    CONTEXT_LENGTH = "context_length"  # the prompt is too long: shrink the evidence
    FORMAT_UNSUPPORTED = "format_unsupported"  # no JSON schema: fall back to the "Conclusion:" format
    BAD_REQUEST = "bad_request"
    BAD_REPLY = "bad_reply"  # a reply that cannot be read
    EMPTY = "empty"
    NOT_FOUND = "not_found"  # a batch or its results the server does not know (any more)
