"""Errors of the LLM path, each saying whether trying again could help.

Retrying is decided by the error itself (``retryable``) rather than by the caller guessing from
a status code, so the client's backoff loop, the CLI and the GUI agree on what is transient
(429, 5xx, timeouts, dropped connections) and what needs the user (bad key, unknown model).
"""

from __future__ import annotations

from core.errors import GrammarLensError
from core.records.vocabulary import ErrorKind


class LlmError(GrammarLensError):
    """A failed exchange with the language model server.

    ``kind`` is a :class:`~core.records.vocabulary.ErrorKind` (auth, model not found, rate limited,
    context length, ...) so callers can react to a case (shrink the evidence, fall back to the
    "Conclusion:" format) without parsing text.
    """

    def __init__(self, message: str, hint: str = "", *, kind: ErrorKind = ErrorKind.ERROR,
                 retryable: bool = False) -> None:
        super().__init__(message, hint)
        self.kind = kind
        self.retryable = retryable


def redact(text: str, secret: str | None) -> str:
    """Remove an API key (and any long prefix of it) from a message before it is shown or kept.

    Servers sometimes echo part of a rejected key ("Incorrect API key provided: sk-abc***"),
    so the first 8 characters are scrubbed too.
    """
    if not secret:
        return text
    text = text.replace(secret, "***")
    if len(secret) >= 12:
        text = text.replace(secret[:8], "***")
    return text
