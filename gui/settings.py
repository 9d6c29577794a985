"""The app's settings: plain values in QSettings, the API key in the OS keyring.

Why two stores: QSettings is a plain file (or registry) that anyone can read, so it never
holds a secret; the key goes to the keyring (Keychain, Windows Credential Locker, Secret
Service).  Where no keyring exists (headless Linux), the key is kept for this session only
and the settings dialog says so; ``OPENAI_API_KEY`` in the environment also works.
"""

from __future__ import annotations

import getpass
import os
from dataclasses import asdict, dataclass, fields

import keyring
import keyring.errors
from PySide6.QtCore import QSettings

from core.retrieval.settings import INSTALLED_RERANKER

KEYRING_SERVICE = "GrammarLens"
PROVIDER_OPENAI = "openai"
PROVIDER_COMPATIBLE = "compatible"

_session_keys: dict[str, str] = {}  # fallback when the OS has no keyring
SESSION_KEY_ENV = "GRAMMARLENS_SESSION_KEY"  # how a session-only key reaches core.llm (this process only)


@dataclass
class AppSettings:
    """Everything the settings dialog edits, with defaults that work out of the box."""

    provider: str = PROVIDER_OPENAI  # "openai" or "compatible" (an OpenAI-compatible URL)
    base_url: str = ""  # only for "compatible", e.g. http://127.0.0.1:8080/v1
    model: str = "gpt-4o"
    temperature: float = 0.2  # the paper's setting
    reranker_model: str = INSTALLED_RERANKER or ""  # empty: BM25 and vocabulary only, no embedding model
    reranker_device: str = "auto"
    bm25_top_k: int = 50
    rerank_top_k: int = 20
    evidence_token_budget: int = 6000
    reviewer: str = ""
    request_timeout_s: float = 60.0

    @property
    def reviewer_name(self) -> str:
        return self.reviewer.strip() or _user_name()

    @property
    def key_account(self) -> str:
        """The keyring account: one key per provider endpoint."""
        if self.provider == PROVIDER_COMPATIBLE:
            return f"compatible:{self.base_url.strip()}"
        return "default"


def _user_name() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no login name on some systems
        return "reviewer"


def load_settings(store: QSettings | None = None) -> AppSettings:
    store = store or QSettings()
    defaults = AppSettings()
    values = {}
    for f in fields(AppSettings):
        raw = store.value(f"llm_retrieval/{f.name}", getattr(defaults, f.name))
        kind = type(getattr(defaults, f.name))
        try:
            values[f.name] = kind(raw)
        except (TypeError, ValueError):
            values[f.name] = getattr(defaults, f.name)
    return AppSettings(**values)


def save_settings(settings: AppSettings, store: QSettings | None = None) -> None:
    store = store or QSettings()
    for name, value in asdict(settings).items():
        store.setValue(f"llm_retrieval/{name}", value)
    store.sync()


def keyring_available() -> bool:
    backend = keyring.get_keyring()
    return getattr(backend, "priority", 0) > 0 and "fail" not in type(backend).__module__


def get_api_key(settings: AppSettings) -> str:
    """The key for the configured provider: keyring, then this session, then OPENAI_API_KEY."""
    account = settings.key_account
    if account in _session_keys:
        return _session_keys[account]
    if keyring_available():
        try:
            value = keyring.get_password(KEYRING_SERVICE, account)
        except keyring.errors.KeyringError:
            value = None
        if value:
            return value
    if settings.provider == PROVIDER_OPENAI:
        return os.environ.get("GRAMMARLENS_API_KEY", "") or os.environ.get("OPENAI_API_KEY", "")
    return ""


def set_api_key(settings: AppSettings, key: str) -> bool:
    """Store (or, with an empty key, delete) the key; false when it could only be kept for this session."""
    account = settings.key_account
    key = key.strip()
    if keyring_available():
        try:
            if key:
                keyring.set_password(KEYRING_SERVICE, account, key)
            else:
                try:
                    keyring.delete_password(KEYRING_SERVICE, account)
                except keyring.errors.PasswordDeleteError:
                    pass
            _session_keys.pop(account, None)
            return True
        except keyring.errors.KeyringError:
            pass
    if key:
        _session_keys[account] = key
    else:
        _session_keys.pop(account, None)
    return False


def session_key_env(settings: AppSettings) -> str | None:
    """Put a session-only key where core.llm can read it; returns the variable's name (or None)."""
    key = _session_keys.get(settings.key_account)
    if not key:
        os.environ.pop(SESSION_KEY_ENV, None)
        return None
    os.environ[SESSION_KEY_ENV] = key
    return SESSION_KEY_ENV


def llm_configured(settings: AppSettings) -> bool:
    """True when a classification can be attempted: a local server URL, or an OpenAI key."""
    if settings.provider == PROVIDER_COMPATIBLE:
        return bool(settings.base_url.strip())
    return bool(get_api_key(settings))
