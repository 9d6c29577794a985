"""Errors a user can act on, kept apart from bugs.

Every exception that reaches a person (CLI or GUI) derives from :class:`GrammarLensError` and
carries a one-line ``message`` plus a ``hint`` saying what to do about it.  Anything else that
escapes is a bug in GrammarLens and is reported as such (the split qutebrowser makes between
``KnownError`` and ``BugError``).
"""

from __future__ import annotations


class GrammarLensError(Exception):
    """A problem with the user's input or environment, with advice on how to fix it."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message}\n{self.hint}" if self.hint else self.message


def error_text(exc: BaseException) -> str:
    """The line a person reads about ``exc``: its ``message`` if it has one, else its text, else its type.

    Why one function: the window, the batch job and the client each read an error their own way
    (``getattr(exc, "message", str(exc))``), and those ways differ where it matters: a ``message`` that is
    empty or not a string (an SDK's ``None``) gave an empty label or a ``TypeError`` in a Qt slot, and
    an exception without text (``KeyboardInterrupt()``, ``TimeoutError()``) was recorded as "".
    """
    message = getattr(exc, "message", None)
    if isinstance(message, str) and message.strip():
        return message
    return str(exc).strip() or type(exc).__name__


def error_hint(exc: BaseException) -> str:
    """What to do about ``exc``: a :class:`GrammarLensError`'s hint, else "" (a bug has no advice)."""
    return exc.hint if isinstance(exc, GrammarLensError) else ""


class PdfError(GrammarLensError):
    """The PDF cannot be read as a grammar (encrypted, broken, scanned, not a PDF...)."""


class ProjectError(GrammarLensError):
    """The project file cannot be used (not ours, corrupt, locked, read-only, too new...)."""


class DamagedProjectError(ProjectError):
    """The project file is damaged (SQLite cannot read it): a restore may replace it from a backup."""


class Cancelled(GrammarLensError):
    """Long work stopped because the user asked it to; nothing half-done was kept."""

    def __init__(self, message: str = "Cancelled.") -> None:
        super().__init__(message)
