"""Which model to ask and how: :class:`LlmSettings`, and where the API key comes from.

The key is looked up at call time (environment, then the operating system's keyring) and is
never a field of the settings, so settings can be stored in the project file, printed and
exported without leaking it.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from urllib.parse import urlsplit, urlunsplit

DEFAULT_MODEL = "gpt-4o"
DEFAULT_TEMPERATURE = 0.2  # the paper's setting
KEYRING_SERVICE = "GrammarLens"
KEY_ENV_VARS = ("GRAMMARLENS_API_KEY", "OPENAI_API_KEY")
ANSWER_FORMATS = ("auto", "json_schema", "conclusion")

# Context windows of well-known models (tokens); anything else falls back to LlmSettings.context_tokens
# or, if that is unset, a conservative 8k that suits small local models.
KNOWN_CONTEXT_TOKENS = {
    "gpt-4o": 128_000,
    "gpt-4o-mini": 128_000,
    "gpt-4.1": 1_000_000,
    "gpt-4.1-mini": 1_000_000,
    "gpt-4-turbo": 128_000,
}
FALLBACK_CONTEXT_TOKENS = 8_192


@dataclass
class LlmSettings:
    """How to reach the model. ``base_url=None`` means OpenAI's own API."""

    model: str = DEFAULT_MODEL
    base_url: str | None = None
    temperature: float = DEFAULT_TEMPERATURE
    timeout_s: float = 120.0
    max_retries: int = 4
    backoff_base_s: float = 1.0  # first retry waits about this long, then doubles
    backoff_max_s: float = 30.0
    max_concurrency: int = 4
    context_tokens: int | None = None  # None: known model table, else 8,192
    max_output_tokens: int = 2_000
    answer_format: str = "auto"  # auto: JSON schema, falling back to "Conclusion:" if refused
    api_key_env: str | None = None  # an extra environment variable to read the key from, checked first
    use_keyring: bool = True
    keyring_user: str = "default"
    use_cache: bool = True
    extra: dict = field(default_factory=dict)

    def context_window(self) -> int:
        if self.context_tokens:
            return int(self.context_tokens)
        return KNOWN_CONTEXT_TOKENS.get(self.model, FALLBACK_CONTEXT_TOKENS)

    def is_local(self) -> bool:
        """True for servers on this machine (Ollama, llama.cpp, LM Studio), which need no key."""
        if not self.base_url:
            return False
        host = (urlsplit(self.base_url).hostname or "").lower()
        return host in {"localhost", "127.0.0.1", "::1", "0.0.0.0"}

    def is_openai(self) -> bool:
        """True for OpenAI's own API (no base URL, or api.openai.com over https): the only server that gets
        the key of GRAMMARLENS_API_KEY / OPENAI_API_KEY."""
        if not self.base_url:
            return True
        parts = urlsplit(self.base_url)
        return parts.scheme == "https" and (parts.hostname or "").lower() == "api.openai.com"

    def key_account(self) -> str:
        """The keyring account of this server's key: one key per endpoint, as the window saves them."""
        if self.keyring_user != "default" or self.is_openai():
            return self.keyring_user
        return f"compatible:{(self.base_url or '').strip()}"

    def public_base_url(self) -> str:
        """The base URL without credentials or query string, safe to store."""
        if not self.base_url:
            return "https://api.openai.com/v1"
        parts = urlsplit(self.base_url)
        netloc = parts.hostname or ""
        if parts.port:
            netloc += f":{parts.port}"
        return urlunsplit((parts.scheme, netloc, parts.path, "", ""))

    def to_public_dict(self) -> dict:
        """Settings as stored with a classification: no key, no credentials in the URL."""
        data = asdict(self)
        data["base_url"] = self.public_base_url()
        data.pop("extra", None)
        return data


def resolve_api_key(settings: LlmSettings, *, session_key: str | None = None,
                    environment: bool = True) -> str | None:
    """The API key, found by one rule for the app and the command line (first found wins):

    1. ``session_key``: a key typed in the app's Settings and kept for this session only (no keyring);
    2. the environment: ``settings.api_key_env`` (a variable named for this server, e.g. by
       ``--api-key-env``), then GRAMMARLENS_API_KEY and OPENAI_API_KEY *only for OpenAI's own API*:
       a key for OpenAI is never handed to another server because a ``--base-url`` was given
       (``environment=False`` skips the environment altogether);
    3. the OS keyring, under the server's own account (:meth:`LlmSettings.key_account`: the key
       saved in Settings for that endpoint).

    The environment wins over the keyring, as with most tools: to use another key for one run, set
    a variable.  Returns None when nothing is found; keyring failures (no backend on a headless
    machine) count as "not found" rather than as errors.
    """
    if session_key and session_key.strip():
        return session_key.strip()
    names = ([settings.api_key_env] if settings.api_key_env else []) + (
        list(KEY_ENV_VARS) if settings.is_openai() else [])
    for name in names if environment else ():
        value = os.environ.get(name, "").strip()
        if value:
            return value
    if settings.use_keyring:
        try:
            import keyring

            saved = keyring.get_password(KEYRING_SERVICE, settings.key_account())
        except Exception:
            saved = None
        if saved:
            return saved.strip()
    return None
