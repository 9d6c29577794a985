"""Development and testing tools that the frozen app does not ship.

:mod:`devtools.openai_server` is an OpenAI-compatible chat-completions server on 127.0.0.1 used
by the tests, the offline benchmarks and the packaging smoke test in place of a paid API.
"""
