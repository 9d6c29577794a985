"""The OpenAI-compatible test server for benchmarks that need answers but no paid API.

It lives in :mod:`devtools.openai_server`, which a source checkout has and the built app does not
carry; a bench started from the built app gets a clear error with what to do instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.errors import GrammarLensError

if TYPE_CHECKING:
    from devtools.openai_server import OpenAIStubServer


def stub_server_class() -> type[OpenAIStubServer]:
    """:class:`devtools.openai_server.OpenAIStubServer`, or a GrammarLensError where devtools is absent."""
    try:
        from devtools.openai_server import OpenAIStubServer
    except ImportError as exc:
        raise GrammarLensError(
            "This bench needs the OpenAI-compatible test server, which the built app does not carry.",
            "Run it from a source checkout (python main.py bench ...), or where it offers --llm-url, give a "
            "running server (python -m devtools.openai_server --rule SOV=SOV).") from exc
    return OpenAIStubServer
