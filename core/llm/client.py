"""A thin, careful client for any server that speaks OpenAI's chat-completions API.

It wraps the ``openai`` package and adds what a desktop tool needs: a key that never leaves
memory, a timeout on every call, retries with exponential backoff on 429, 5xx, timeouts and
dropped connections (and nothing else), a bound on concurrent calls shared by all threads,
and token usage and cost per call.  Every failure becomes an :class:`LlmError` with a plain
message, a hint and ``retryable``.  The client is thread-safe; caching is done by the caller
(:mod:`core.llm.cache`) on the thread that owns the project connection.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass
from typing import Callable, TypeVar

import openai

from core.llm.errors import LlmError, redact
from core.llm.pricing import cost_usd
from core.llm.settings import LlmSettings, resolve_api_key

LOCAL_PLACEHOLDER_KEY = "not-needed"  # local servers ignore the key but the openai package wants one
_SEMAPHORES: dict[tuple[str, int], threading.BoundedSemaphore] = {}
_SEMAPHORES_LOCK = threading.Lock()
T = TypeVar("T")


def chat_request_body(settings: LlmSettings, messages: list[dict] | tuple[dict, ...], *,
                      response_format: dict | None = None, model: str | None = None) -> dict:
    """The JSON body of one chat-completions request.

    The online client sends exactly this, and batch files (``core.llm.batch_files``) write exactly
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
                    kind="no_key",
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
        """One chat completion, retried on transient failures; raises :class:`LlmError`."""
        model = model or self.settings.model
        body = chat_request_body(self.settings, messages, response_format=response_format, model=model)
        started = time.monotonic()
        response, attempts = self.call(lambda api: api.chat.completions.create(**body), model=model)
        return read_chat_response(response, model, time.monotonic() - started, attempts,
                                  local=self.settings.is_local())

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
                            kind="timeout", retryable=True)
        if isinstance(exc, openai.APIConnectionError):
            return LlmError(f"Cannot reach the model server at {where}.",
                            "Check that the server is running and the base URL is right (e.g. "
                            "http://localhost:11434/v1 for Ollama).", kind="connection", retryable=True)
        status = getattr(exc, "status_code", None)
        if isinstance(exc, openai.AuthenticationError) or status == 401:
            return LlmError(f"The model server at {where} refused the API key (401).",
                            "Check GRAMMARLENS_API_KEY / OPENAI_API_KEY or the key saved in the settings.",
                            kind="auth")
        if isinstance(exc, openai.PermissionDeniedError) or status == 403:
            return LlmError(f"The API key may not use model {model!r} at {where} (403): {detail}",
                            "Check the key's permissions or choose another model.", kind="auth")
        if isinstance(exc, openai.NotFoundError) or status == 404:
            return LlmError(f"Model {model!r} is not available at {where} (404).",
                            "Check the model name (for Ollama, 'ollama list' shows installed models).",
                            kind="model_not_found")
        if isinstance(exc, openai.RateLimitError) or status == 429:
            if "insufficient_quota" in detail:
                return LlmError(f"The account behind the API key has no quota left at {where}.",
                                "Check the billing of the account.", kind="quota")
            return LlmError(f"The model server at {where} is rate-limiting requests (429).",
                            "Wait a minute and try again, or lower the concurrency.", kind="rate_limited",
                            retryable=True)
        if status is not None and status >= 500:
            return LlmError(f"The model server at {where} failed ({status}): {detail}",
                            "This is usually temporary; try again later.", kind="server", retryable=True)
        low = detail.lower()
        if status in (400, 413, 422) and ("context" in low or "too long" in low or "maximum" in low and "token" in low):
            return LlmError(f"The prompt is longer than model {model!r} accepts: {detail}",
                            "Use fewer paragraphs or a model with a longer context.", kind="context_length")
        if status in (400, 422) and ("response_format" in low or "json_schema" in low or "structured" in low):
            return LlmError(f"The server at {where} does not support JSON-schema answers: {detail}",
                            "GrammarLens falls back to the 'Conclusion:' answer format.", kind="format_unsupported")
        return LlmError(f"The model server at {where} rejected the request ({status}): {detail}",
                        "Check the model name and settings.", kind="bad_request")


def _field(obj: object, name: str) -> object:
    """An attribute of an openai response object, or a key of the same response as parsed JSON."""
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def read_chat_response(response: object, model: str, seconds: float = 0.0, attempts: int = 1, *,
                       local: bool = False) -> ChatResponse:
    """A chat completion (an openai object online, a JSON dict from a batch results file) as a
    :class:`ChatResponse`; one reader for both so a batch answer is read exactly as an online one."""
    choices = _field(response, "choices") or []
    if not choices:
        raise LlmError("The server sent a reply without any answer.", "Try again or try another model.",
                       kind="empty", retryable=False)
    choice = choices[0]
    message = _field(choice, "message")
    content = str((_field(message, "content") if message else None) or "")
    usage = _field(response, "usage")
    p_tok = int((_field(usage, "prompt_tokens") if usage else 0) or 0)
    c_tok = int((_field(usage, "completion_tokens") if usage else 0) or 0)
    finish = _field(choice, "finish_reason")
    return ChatResponse(content=content, model=str(_field(response, "model") or model), prompt_tokens=p_tok,
                        completion_tokens=c_tok, seconds=seconds, cost_usd=cost_usd(model, p_tok, c_tok, local=local),
                        finish_reason=str(finish) if finish is not None else None, attempts=attempts)


def _error_detail(exc: openai.APIError) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            parts = [str(inner.get("message") or ""), str(inner.get("code") or "")]
            return " ".join(p for p in parts if p and p != "None").strip() or str(exc)
        return str(inner)
    return getattr(exc, "message", None) or str(exc)


def test_connection(settings: LlmSettings, api_key: str | None = None) -> str:  # noqa: D401 - not a pytest test
    """Ask the model for a one-word reply; return a line saying it works (or raise LlmError).

    ``api_key`` is for a key the caller holds (the app's session-only key); else it is looked up.
    """
    client = LlmClient(settings, api_key=api_key)
    reply = client.complete([{"role": "user", "content": "Reply with the single word: ready"}])
    text = " ".join(reply.content.split())[:60]
    return (f"Connected to {settings.public_base_url()} with model {reply.model!r} "
            f"in {reply.seconds:.1f} s (reply: {text!r}).")


test_connection.__test__ = False  # type: ignore[attr-defined]  # keep pytest from collecting it when imported
