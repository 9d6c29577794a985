"""The options that name the model, its OpenAI-compatible server and the server's key, written once.

Why one place: the help states a promise about secrets (GRAMMARLENS_API_KEY and OPENAI_API_KEY are
sent to OpenAI's own API only; another server's key comes from the variable ``--api-key-env`` names:
core.llm.settings), and the four commands that ask a model (classify, profile, bench profile, batch)
must say it alike.
"""

from __future__ import annotations

import argparse

from cli import arg_types

LOCAL_SERVER_HELP = "OpenAI-compatible server, e.g. http://localhost:11434/v1"
API_KEY_ENV_HELP = ("environment variable holding the key for --base-url's server "
                    "(GRAMMARLENS_API_KEY and OPENAI_API_KEY are sent to OpenAI's own API only)")


def add_server_options(p: argparse.ArgumentParser, *, model: bool = True,
                       base_url_help: str = LOCAL_SERVER_HELP) -> None:
    """``--model`` (unless ``model`` is False), ``--base-url`` and ``--api-key-env``."""
    if model:
        p.add_argument("--model", type=arg_types.line, default=None, help="model name (default gpt-4o)")
    p.add_argument("--base-url", type=arg_types.url, default=None, help=base_url_help)
    p.add_argument("--api-key-env", type=arg_types.env_name, default=None, metavar="NAME", help=API_KEY_ENV_HELP)
