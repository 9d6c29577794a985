"""The batch JSONL line format: request lines written, result lines read, whoever runs the batch.

The OpenAI Batch API (half price, within 24 hours) and vLLM's offline runner
(``python -m vllm.entrypoints.openai.run_batch``) read the same request lines (``custom_id``,
``method``, ``url``, ``body``) and write the same result lines (``custom_id``, ``error``,
``response.status_code``, ``response.body``).  Nothing here knows a project: the profile's batch
files (:mod:`core.profile.batch_files`) and ``bench rag --batch-out/--batch-in``
(:mod:`bench.rag_batch`) both write and read their lines through here, so both check an answer's
body the same way before the online reader (:func:`core.llm.client.read_chat_response`) reads it.

A result line of any shape is read without a raw exception: what cannot be read raises
:class:`BadLine` with a kind (``broken``, ``error``) and a reason worded for a report.
"""

from __future__ import annotations

import json
import os
from typing import BinaryIO, Iterator

from core.llm.client import MAX_TOKENS, json_kind, token_count

ENDPOINT = "/v1/chat/completions"


class BadLine(Exception):
    """A result line that cannot be read: ``kind`` and ``reason`` go to the report as they are."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


def request_line(custom_id: str, body: dict) -> str:
    """One line of the OpenAI batch input format (also read by vLLM's run_batch)."""
    return json.dumps({"custom_id": custom_id, "method": "POST", "url": ENDPOINT, "body": body},
                      ensure_ascii=False, separators=(",", ":"))


# -- reading lines ---------------------------------------------------------------------------------

def iter_jsonl(path: str | os.PathLike) -> Iterator[tuple[int, bytes, bool]]:
    """(line number, raw line, ended with a newline) for each non-empty line, streamed."""
    with open(path, "rb") as fh:
        for number, raw, complete, _end in result_lines(fh, max_bytes=None):
            if raw is not None:  # always, without max_bytes
                yield number, raw, complete


def result_lines(fh: BinaryIO, max_bytes: int | None) -> Iterator[tuple[int, bytes | None, bool, int]]:
    """(line number, stripped line or None if longer than ``max_bytes``, ended with a newline, bytes read so far).

    Blank lines are skipped but counted.  A line longer than ``max_bytes`` is skipped unread (never
    held in memory whole), so one runaway line cannot exhaust memory.
    """
    number = position = 0
    while True:
        raw = fh.readline() if max_bytes is None else fh.readline(max_bytes + 1)
        if not raw:
            return
        number += 1
        position += len(raw)
        if max_bytes is not None and len(raw) > max_bytes and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):  # skip the rest of the line, a megabyte at a time
                raw = fh.readline(2 ** 20)
                position += len(raw)
            yield number, None, True, position
            continue
        stripped = raw.strip()
        if stripped:
            yield number, stripped, raw.endswith(b"\n"), position


def json_line(raw: bytes | None, complete: bool, max_bytes: int) -> dict:
    """The JSON object of a result line (None: longer than ``max_bytes``), or BadLine saying why there is none."""
    if raw is None:
        raise BadLine("broken", f"is longer than {max_bytes:,} bytes, more than any answer; "
                                 "skipped unread, nothing stored")
    try:
        obj = json.loads(raw)
    except UnicodeDecodeError as exc:
        why = "is cut off (the file ends mid-line)" if not complete else (
            f"is not UTF-8 text (byte 0x{exc.object[exc.start:exc.start + 1].hex()} at column {exc.start + 1})")
        raise BadLine("broken", f"{why}; nothing stored from it") from None
    except json.JSONDecodeError as exc:
        why = "is cut off (the file ends mid-line)" if not complete else (
            f"is not valid JSON ({exc.msg} at column {exc.colno})")
        raise BadLine("broken", f"{why}; nothing stored from it") from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise BadLine("broken", f"is not valid JSON ({one_line(str(exc), 80)}); nothing stored from it") from None
    except RecursionError:
        raise BadLine("broken", "is JSON nested too deeply to read; nothing stored from it") from None
    if not isinstance(obj, dict):
        raise BadLine("broken", f"is {json_kind(obj)}, not a batch result line (a JSON object); nothing stored from it")
    return obj


def line_error(obj: dict) -> str | None:
    """Why a result line carries no answer (OpenAI and vLLM both use ``error`` and ``response.status_code``)."""
    problem = line_problem(obj)
    return problem[1] if problem is not None else None


def line_problem(obj: dict) -> tuple[str, str] | None:
    """("error" or "broken", why) when a result line carries no answer body; None when it does."""
    error = obj.get("error")
    if error:
        if isinstance(error, dict):
            detail = " ".join(one_line(error.get(k)) for k in ("code", "message") if error.get(k)).strip()
        else:
            detail = one_line(error)
        return "error", f"the batch reported an error: {detail or 'no reason given'}"
    response = obj.get("response")
    if response is None:
        return "error", "the line has no response"
    if not isinstance(response, dict):
        return "broken", f"the response is {json_kind(response)}, not an object"
    status = token_count(response.get("status_code", 200), limit=999)
    if status is None:
        return "broken", f"the response's status_code is {json_kind(response.get('status_code'))}, not an HTTP status"
    body = response.get("body")
    if status != 200:
        detail = ""
        if isinstance(body, dict) and isinstance(body.get("error"), dict):
            detail = ": " + one_line(body["error"].get("message") or "")
        return "error", f"the request failed with status {status}{detail}"
    if body is None:
        return "error", "the response has no body"
    if not isinstance(body, dict):
        return "broken", f"the response's body is {json_kind(body)}, not an object"
    return None


def answer_body(body: dict) -> tuple[dict, bool]:
    """A chat completion reduced to what GrammarLens reads, each part checked: (body, usage was readable).

    The online reader (:func:`core.llm.client.read_chat_response`) then gets only values of the types
    it expects, so a batch answer is still read exactly as an online one.  A wrong type where the
    answer lives raises :class:`BadLine`; unreadable token counts only make the cost unknown.  Used by
    the import and by ``bench rag --batch-in``, so both check an answer's body the same way.
    """
    choices = body.get("choices")
    if choices is None or choices == []:
        return {"choices": [], "model": _model_of(body)}, True  # read_chat_response: "a reply without any answer"
    if not isinstance(choices, list):
        raise BadLine("broken", f"the response's choices is {json_kind(choices)}, not a list")
    choice = choices[0]
    if not isinstance(choice, dict):
        raise BadLine("broken", f"the response's first choice is {json_kind(choice)}, not an object")
    message = choice.get("message")
    if not isinstance(message, dict):
        raise BadLine("broken", f"the response's first choice has {json_kind(message)} as its message, not an object")
    content = message.get("content")
    if isinstance(content, list):  # content parts, as some servers send: keep the text ones
        texts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        strings = [t for t in texts if isinstance(t, str)]
        if len(strings) != len(content):
            raise BadLine("broken", "the answer's content parts are not all text")
        content = "".join(strings)
    if content is not None and not isinstance(content, str):
        raise BadLine("broken", f"the answer's content is {json_kind(content)}, not text")
    finish = choice.get("finish_reason")
    usage, usage_read = _usage_of(body.get("usage"))
    return {"choices": [{"message": {"content": _without_lone_surrogates(content or "")},
                         "finish_reason": finish if isinstance(finish, str) else None}],
            "usage": usage, "model": _model_of(body)}, usage_read


def _model_of(body: dict) -> str | None:
    model = body.get("model")
    return _without_lone_surrogates(model)[:200] if isinstance(model, str) and model else None


def _usage_of(usage: object) -> tuple[dict | None, bool]:
    """Token counts as ints (numbers given as text, "12", are read too); (None, False) if unreadable."""
    if usage is None:
        return None, True
    if not isinstance(usage, dict):
        return None, False
    counts = {}
    for name in ("prompt_tokens", "completion_tokens"):
        value = usage.get(name)
        counts[name] = 0 if value is None else token_count(value, MAX_TOKENS)
        if counts[name] is None:
            return None, False
    return counts, True


# -- text for reports ------------------------------------------------------------------------------

def storable(text: str) -> bool:
    """Whether SQLite can store ``text``: not when it holds a lone surrogate (JSON's "\\ud800" yields one)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _without_lone_surrogates(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD (a split pair shows instead of failing the line)."""
    return text if storable(text) else text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def one_line(value: object, limit: int = 200) -> str:
    """``value`` as one printable line of at most ``limit`` characters (for a problem's message)."""
    try:
        text = value if isinstance(value, str) else str(value)
    except (ValueError, RecursionError):  # a structure nested too deeply to print
        text = type(value).__name__
    text = " ".join(text.encode("utf-8", "backslashreplace").decode("utf-8").split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
