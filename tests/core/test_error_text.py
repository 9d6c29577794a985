"""One reading of an error for a person (issue 29): ``core.errors.error_text`` replaced four ways of reading
``exc.message`` that disagreed where an error has no usable message."""

from __future__ import annotations

import httpx2
import openai
import pytest

from core.errors import GrammarLensError, PdfError, error_hint, error_text
from core.llm.client import _error_detail
from core.llm.errors import LlmError


class SdkError(Exception):
    """An SDK error whose ``message`` attribute is None (the shape a Qt label cannot take)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.message = None


def test_a_user_error_reads_as_its_message_without_the_hint():
    exc = PdfError("The PDF is encrypted.", "Remove the password and ingest it again.")
    assert error_text(exc) == "The PDF is encrypted."
    assert error_hint(exc) == "Remove the password and ingest it again."


def test_an_error_without_text_reads_as_its_type():
    # was "" in a batch job's stored error (str(getattr(exc, "message", exc)))
    assert error_text(TimeoutError()) == "TimeoutError"
    assert error_text(KeyboardInterrupt()) == "KeyboardInterrupt"


def test_a_message_that_is_not_text_falls_back_to_the_exception_text():
    # was None in the BibTeX dialog and the profile dock (getattr(exc, "message", str(exc))): setText(None) raises
    assert error_text(SdkError("upstream refused")) == "upstream refused"


def test_an_empty_message_falls_back_to_the_hint_text():
    assert error_text(GrammarLensError("", "Choose another folder.")) == "Choose another folder."


def test_a_bug_has_no_hint():
    assert error_hint(KeyError("81A")) == ""
    assert error_text(KeyError("81A")) == "'81A'"
    assert error_hint(LlmError("Bad key.", "Check the key.", kind="auth")) == "Check the key."


@pytest.mark.parametrize("body,expected", [
    ({"error": {"message": "model gpt-x does not exist", "code": "model_not_found"}},
     "model gpt-x does not exist model_not_found"),
    (None, "Bad gateway"),
])
def test_the_clients_error_detail_reads_the_sdk_error(body, expected):
    request = httpx2.Request("POST", "http://127.0.0.1:1/v1/chat/completions")
    assert _error_detail(openai.APIError("Bad gateway", request, body=body)) == expected


def test_no_module_reads_an_errors_message_its_own_way():
    """Every ``getattr(exc, "message", ...)`` became ``error_text(exc)``; a new one would split the readings again.

    The OpenAI batch API's per-line error entries (core/llm/batch_api.py) are data records, not exceptions.
    """
    import re
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    pattern = re.compile(r"""getattr\(\s*\w+\s*,\s*["'](message|hint)["']""")
    allowed = {"core/errors.py", "core/llm/batch_api.py"}
    found = [f"{p.relative_to(repo).as_posix()}:{n}" for folder in ("core", "cli", "gui", "bench")
             for p in sorted((repo / folder).rglob("*.py")) if p.relative_to(repo).as_posix() not in allowed
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert found == []
