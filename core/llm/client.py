"""A thin, careful client for any server that speaks OpenAI's chat-completions API.

It wraps the ``openai`` package and adds what a desktop tool needs: a key that never leaves
memory, a timeout on every call, retries with exponential backoff on 429, 5xx, timeouts and
dropped connections (and nothing else), a bound on concurrent calls shared by all threads,
and token usage and cost per call.  Every failure becomes an :class:`LlmError` with a plain
message, a hint and ``retryable``, a reply of any shape included (a body that is not JSON,
choices that are not a list...: see :func:`read_chat_response`).  The client is thread-safe;
caching is done by the caller (:mod:`core.llm.cache`) on the thread that owns the project connection.
"""

from __future__ import annotations

import json
import random
import threading
import time
from dataclasses import dataclass
from typing import Callable, TypeVar

import openai

from core.errors import error_text
from core.llm.errors import LlmError, redact
from core.llm.pricing import cost_usd
from core.llm.settings import LlmSettings, resolve_api_key
from core.records.vocabulary import ErrorKind

LOCAL_PLACEHOLDER_KEY = "not-needed"  # local servers ignore the key but the openai package wants one
_SEMAPHORES: dict[tuple[str, int], threading.BoundedSemaphore] = {}
_SEMAPHORES_LOCK = threading.Lock()
T = TypeVar("T")


def chat_request_body(settings: LlmSettings, messages: list[dict] | tuple[dict, ...], *,
                      response_format: dict | None = None, model: str | None = None) -> dict:
    """The JSON body of one chat-completions request.

    The online client sends exactly this, and batch files (:mod:`core.profile.batch_files`) write exactly
    this as each line's ``body``, so an answer made by the OpenAI Batch API or vLLM's ``run_batch``
    is an answer to the very prompt the online path would have sent.
    """
    body: dict = {"model": model or settings.model, "messages": [dict(m) for m in messages],
                  "temperature": settings.temperature, "max_tokens": settings.max_output_tokens}
    if response_format is not None:
        body["response_format"] = response_format
    return body


@dataclass(frozen=True)
class ChatResponse:
    """What came back from one call (or from the cache, then with zero cost)."""

    content: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    cost_usd: float | None
    finish_reason: str | None = None
    cached: bool = False
    attempts: int = 1


class LlmClient:
    """Sends chat requests with retries; build one per settings and share it between threads."""

    def __init__(self, settings: LlmSettings, api_key: str | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.settings = settings
        key = api_key or resolve_api_key(settings)
        if not key:
            if not settings.base_url:
                raise LlmError(
                    "No API key for OpenAI.",
                    "Set GRAMMARLENS_API_KEY (or OPENAI_API_KEY), or save a key in the settings (kept in the "
                    "system keyring); or give --base-url of a local server such as Ollama.",
                    kind=ErrorKind.NO_KEY,
                )
            key = LOCAL_PLACEHOLDER_KEY
        self._key = key
        self._sleep = sleep
        self._openai = openai.OpenAI(api_key=key, base_url=settings.base_url or None,
                                     timeout=settings.timeout_s, max_retries=0)
        bound = max(1, int(settings.max_concurrency))
        with _SEMAPHORES_LOCK:
            self._slots = _SEMAPHORES.setdefault((settings.public_base_url(), bound), threading.BoundedSemaphore(bound))

    def complete(self, messages: list[dict] | tuple[dict, ...], *, response_format: dict | None = None,
                 model: str | None = None) -> ChatResponse:
        """One chat completion, retried on transient failures; raises :class:`LlmError`.

        The body is read here, not by the ``openai`` package, so a reply of any shape is an
        :class:`LlmError` (see :func:`read_reply_json`) and is read as a batch answer is.
        """
        model = model or self.settings.model
        body = chat_request_body(self.settings, messages, response_format=response_format, model=model)
        started = time.monotonic()
        raw, attempts = self.call(lambda api: api.chat.completions.with_raw_response.create(**body), model=model)
        where = self.settings.public_base_url()
        return read_chat_response(read_reply_json(raw.content, where), model, time.monotonic() - started, attempts,
                                  local=self.settings.is_local(), where=where)

    def call(self, request: Callable[[openai.OpenAI], T], *, model: str | None = None,
             not_found: Callable[[], LlmError] | None = None) -> tuple[T, int]:
        """Run ``request(openai client)`` with the retries, backoff, concurrency bound and messages of
        :meth:`complete`; returns its result and the number of attempts.

        The batch endpoints (:mod:`core.llm.batch_api`) go through here too, so they share the
        key handling, timeouts and retry policy.  ``not_found`` gives the message for a 404 when it
        does not mean an unknown model (an unknown batch or file).
        """
        s = self.settings
        model = model or s.model
        attempt = 0
        while True:
            attempt += 1
            try:
                with self._slots:
                    return request(self._openai), attempt
            except openai.APIError as exc:
                if not_found is not None and getattr(exc, "status_code", None) == 404:
                    raise not_found() from None
                error = self._translate(exc, model)
                if not error.retryable or attempt > s.max_retries:
                    if error.retryable:
                        error.message += f" (gave up after {attempt} attempts)"
                    raise error from None
                self._sleep(self._delay(attempt, exc))

    def _delay(self, attempt: int, exc: Exception) -> float:
        s = self.settings
        retry_after = None
        response = getattr(exc, "response", None)
        if response is not None:
            try:
                retry_after = float(response.headers.get("retry-after"))
            except (TypeError, ValueError):
                retry_after = None
        base = s.backoff_base_s * (2 ** (attempt - 1))
        delay = max(base, retry_after or 0.0) * (1 + random.random() * 0.25)
        return min(delay, s.backoff_max_s)

    def _translate(self, exc: openai.APIError, model: str) -> LlmError:
        where = self.settings.public_base_url()
        detail = redact(_error_detail(exc), self._key)
        if isinstance(exc, openai.APITimeoutError):
            return LlmError(f"The model server at {where} did not answer within {self.settings.timeout_s:g} s.",
                            "Try again later, raise the timeout, or use a smaller model or fewer paragraphs.",
                            kind=ErrorKind.TIMEOUT, retryable=True)
        if isinstance(exc, openai.APIConnectionError):
            return LlmError(f"Cannot reach the model server at {where}.",
                            "Check that the server is running and the base URL is right (e.g. "
                            "http://localhost:11434/v1 for Ollama).", kind=ErrorKind.CONNECTION, retryable=True)
        status = getattr(exc, "status_code", None)
        if isinstance(exc, openai.AuthenticationError) or status == 401:
            return LlmError(f"The model server at {where} refused the API key (401).",
                            "Check GRAMMARLENS_API_KEY / OPENAI_API_KEY or the key saved in the settings.",
                            kind=ErrorKind.AUTH)
        if isinstance(exc, openai.PermissionDeniedError) or status == 403:
            return LlmError(f"The API key may not use model {model!r} at {where} (403): {detail}",
                            "Check the key's permissions or choose another model.", kind=ErrorKind.AUTH)
        if isinstance(exc, openai.NotFoundError) or status == 404:
            return LlmError(f"Model {model!r} is not available at {where} (404).",
                            "Check the model name (for Ollama, 'ollama list' shows installed models).",
                            kind=ErrorKind.MODEL_NOT_FOUND)
        if isinstance(exc, openai.RateLimitError) or status == 429:
            if "insufficient_quota" in detail:
                return LlmError(f"The account behind the API key has no quota left at {where}.",
                                "Check the billing of the account.", kind=ErrorKind.QUOTA)
            return LlmError(f"The model server at {where} is rate-limiting requests (429).",
                            "Wait a minute and try again, or lower the concurrency.", kind=ErrorKind.RATE_LIMITED,
                            retryable=True)
        if status is not None and status >= 500:
            return LlmError(f"The model server at {where} failed ({status}): {detail}",
                            "This is usually temporary; try again later.", kind=ErrorKind.SERVER, retryable=True)
        low = detail.lower()
        if status in (400, 413, 422) and ("context" in low or "too long" in low or "maximum" in low and "token" in low):
            return LlmError(f"The prompt is longer than model {model!r} accepts: {detail}",
                            "Use fewer paragraphs or a model with a longer context.", kind=ErrorKind.CONTEXT_LENGTH)
        if status in (400, 422) and ("response_format" in low or "json_schema" in low or "structured" in low):
            return LlmError(f"The server at {where} does not support JSON-schema answers: {detail}",
                            "GrammarLens falls back to the 'Conclusion:' answer format.",
                            kind=ErrorKind.FORMAT_UNSUPPORTED)
        return LlmError(f"The model server at {where} rejected the request ({status}): {detail}",
                        "Check the model name and settings.", kind=ErrorKind.BAD_REQUEST)


MAX_TOKENS = 10 ** 9  # a larger token count is garbage (the batch import's limit too)
_MALFORMED_HINT = ("The server does not answer in OpenAI's chat-completions format. Check the base URL (it usually "
                   "ends in /v1) and the model, or try another server; asking again will not help.")


def _malformed(why: str, where: str | None) -> LlmError:
    at = f" of the model server at {where}" if where else ""
    return LlmError(f"The reply{at} cannot be read: {why}.", _MALFORMED_HINT, kind=ErrorKind.BAD_REPLY, retryable=False)


def read_reply_json(data: bytes, where: str | None = None) -> object:
    """The JSON value of a reply's body, or an :class:`LlmError` (``bad_reply``) saying why there is none.

    The online client parses the body itself (rather than the ``openai`` package, which raised a raw
    ``JSONDecodeError`` on a body that is not JSON) so that the reply reaches
    :func:`read_chat_response` as plain JSON, exactly like an answer of a batch results file.
    """
    try:
        return json.loads(data)
    except UnicodeDecodeError:
        raise _malformed("it is not UTF-8 text", where) from None
    except json.JSONDecodeError as exc:
        start = data[:60].decode("utf-8", "replace")
        shown = " ".join(start.split())
        what = "it is empty" if not data.strip() else f"it is not JSON ({exc.msg}; it starts {shown!r})"
        raise _malformed(what, where) from None
    except ValueError:  # an integer of more than 4,300 digits
        raise _malformed("it holds a number too long to read", where) from None
    except RecursionError:
        raise _malformed("it is JSON nested too deeply to read", where) from None


def read_chat_response(response: object, model: str, seconds: float = 0.0, attempts: int = 1, *,
                       local: bool = False, where: str | None = None) -> ChatResponse:
    """A chat completion as parsed JSON (the online reply, or the body of a batch results line) as a
    :class:`ChatResponse`; one reader for both, so a batch answer is read exactly as an online one.

    Any shape is read without a raw exception: a reply whose answer cannot be found (choices not a
    list, a first choice or message that is not an object, content that is neither text nor null)
    raises :class:`LlmError` (``bad_reply``, not retryable; ``empty`` when there is no choice at all).
    Token counts that cannot be read (usage not an object; a count that is negative, fractional,
    too large, a boolean or text other than digits) do not lose the answer: the counts are 0 and
    the cost is unknown (``cost_usd`` None).  ``where`` names the server in messages.
    """
    if not isinstance(response, dict):
        raise _malformed(f"it is {json_kind(response)}, not a chat completion (a JSON object)", where)
    choices = response.get("choices")
    if choices is None or choices == []:
        at = f" at {where}" if where else ""
        raise LlmError(f"The server{at} sent a reply without any answer.", "Try again or try another model.",
                       kind=ErrorKind.EMPTY, retryable=False)
    if not isinstance(choices, list):
        raise _malformed(f"its choices is {json_kind(choices)}, not a list", where)
    choice = choices[0]
    if not isinstance(choice, dict):
        raise _malformed(f"its first choice is {json_kind(choice)}, not an object", where)
    message = choice.get("message")
    if not isinstance(message, dict):
        raise _malformed("its first choice has no message" if message is None
                         else f"its first choice's message is {json_kind(message)}, not an object", where)
    content = message.get("content")
    if isinstance(content, list):  # content parts, as some servers send: the text ones (as a batch import does)
        texts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        strings = [t for t in texts if isinstance(t, str)]
        if len(strings) != len(content):
            raise _malformed("the answer's content parts are not all text", where)
        content = "".join(strings)
    if content is not None and not isinstance(content, str):
        raise _malformed(f"the answer's content is {json_kind(content)}, not text", where)
    counts = _usage_counts(response.get("usage"))
    p_tok, c_tok = counts or (0, 0)
    cost = cost_usd(model, p_tok, c_tok, local=local) if counts is not None else None
    finish = choice.get("finish_reason")
    named = response.get("model")
    return ChatResponse(content=_storable(content or ""),
                        model=_storable(named)[:200] if isinstance(named, str) and named else model,
                        prompt_tokens=p_tok, completion_tokens=c_tok, seconds=seconds, cost_usd=cost,
                        finish_reason=_storable(finish)[:100] if isinstance(finish, str) else None, attempts=attempts)


def _usage_counts(usage: object) -> tuple[int, int] | None:
    """(prompt tokens, completion tokens) of a reply's usage; None when they cannot be read.

    No usage, or a count left out, reads as 0 (as before); the batch import reads usage the same way.
    """
    if usage is None:
        return 0, 0
    if not isinstance(usage, dict):
        return None
    counts = []
    for name in ("prompt_tokens", "completion_tokens"):
        value = usage.get(name)
        count = 0 if value is None else token_count(value)
        if count is None:
            return None
        counts.append(count)
    return counts[0], counts[1]


def token_count(value: object, limit: int = MAX_TOKENS) -> int | None:
    """A count from JSON: 12, 12.0 or "12", from 0 to ``limit``; None for anything else (true, -1, 12.5, 1e400,
    "twelve").  One rule for the online client and the batch import (token counts, status codes)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit() and len(value.strip()) <= 12:
        value = int(value.strip())
    return value if isinstance(value, int) and 0 <= value <= limit else None


def _storable(text: str) -> str:
    """``text`` with each lone surrogate (JSON's "\\ud800" yields one) replaced by U+FFFD: SQLite cannot store one."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def json_kind(value: object) -> str:
    """How a JSON value is named in a message: 'a list', 'the number 12', 'the text 'x'', 'null'.

    One wording for the online reader here and the batch result lines (:mod:`core.llm.batch_lines`);
    a long text shows its first 40 characters, so a runaway value never makes a runaway message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        shown = repr(value)
        return f"the number {shown if len(shown) <= 30 else shown[:27] + '...'}"
    if isinstance(value, str):
        shown = repr(_storable(value[:40]))
        return f"the text {shown}" + ("..." if len(value) > 40 else "")
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def _error_detail(exc: openai.APIError) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            parts = [str(inner.get("message") or ""), str(inner.get("code") or "")]
            return " ".join(p for p in parts if p and p != "None").strip() or str(exc)
        return str(inner)
    return error_text(exc)


def test_connection(settings: LlmSettings, api_key: str | None = None) -> str:
    """Ask the model for a one-word reply; return a line saying it works (or raise LlmError).

    ``api_key`` is for a key the caller holds (the app's session-only key); else it is looked up.
    """
    client = LlmClient(settings, api_key=api_key)
    reply = client.complete([{"role": "user", "content": "Reply with the single word: ready"}])
    text = " ".join(reply.content.split())[:60]
    return (f"Connected to {settings.public_base_url()} with model {reply.model!r} "
            f"in {reply.seconds:.1f} s (reply: {text!r}).")


test_connection.__test__ = False  # type: ignore[attr-defined]  # keep pytest from collecting it when imported
