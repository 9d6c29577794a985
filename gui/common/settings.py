"""The app's settings: the core's own settings objects in QSettings, the API key in the OS keyring.

Why the core's objects: the window used to re-declare every knob under other names and bridge
them with a helper that silently dropped fields it no longer knew; now :class:`AppSettings`
holds a :class:`core.llm.settings.LlmSettings` and a
:class:`core.retrieval.settings.RetrievalSettings`, so a renamed core field fails loudly in the
dialog and in the tests.  Only values that differ from the core's defaults are stored, so a
better default in a new version reaches people who never changed it.

Why two stores: QSettings is a plain file (or registry) that anyone can read, so it never holds
a secret; the key goes to the keyring (Keychain, Windows Credential Locker, Secret Service).
Where no keyring exists (headless Linux), the key is kept in this process's memory for the
session and handed to the client directly (:func:`get_api_key`), never through the environment,
so child processes (the reranker's) never see it.  ``OPENAI_API_KEY`` in the environment also works.
"""

from __future__ import annotations

import contextlib
import json
import logging
from dataclasses import dataclass, field, fields, replace
from typing import Any

import keyring
import keyring.errors
from PySide6.QtCore import QSettings

from core.coding.reviewer import known_name, reviewer_name, save_name, saved_name
from core.llm.settings import KEYRING_SERVICE, LlmSettings, resolve_api_key
from core.retrieval.settings import RetrievalSettings

PROVIDER_OPENAI = "openai"
PROVIDER_COMPATIBLE = "compatible"
GROUPS = ("llm", "retrieval")
_NOT_STORED = {"extra"}  # free-form dicts stay out of the settings file

log = logging.getLogger(__name__)
_session_keys: dict[str, str] = {}  # keyring account -> key, when the OS has no keyring

# Settings written by GrammarLens before AppSettings held the core's objects: old name -> (group, field).
# Read once, then removed; an explicit table (checked by a test) rather than a guess by name.
LEGACY_GROUP = "llm_retrieval"
LEGACY_KEYS = {
    "base_url": ("llm", "base_url"), "model": ("llm", "model"), "temperature": ("llm", "temperature"),
    "request_timeout_s": ("llm", "timeout_s"), "reranker_model": ("retrieval", "reranker"),
    "reranker_device": ("retrieval", "device"), "bm25_top_k": ("retrieval", "bm25_top"),
    "rerank_top_k": ("retrieval", "final_top"), "evidence_token_budget": ("retrieval", "budget_tokens"),
    "reviewer": ("", "reviewer"),
}


@dataclass
class AppSettings:
    """Everything the settings dialog edits; the defaults are the core's and work out of the box."""

    llm: LlmSettings = field(default_factory=LlmSettings)
    retrieval: RetrievalSettings = field(default_factory=RetrievalSettings)
    reviewer: str = ""

    @classmethod
    def local_server(cls, url: str, *, model: str = "gpt-4o", reranker: str | None = None,
                     reviewer: str = "", timeout_s: float = 60.0) -> AppSettings:
        """Settings for an OpenAI-compatible server (llama.cpp, Ollama...); tests and benches use it too."""
        return cls(LlmSettings(model=model, base_url=url, timeout_s=timeout_s), RetrievalSettings(reranker=reranker),
                   reviewer)

    @property
    def provider(self) -> str:
        """OpenAI's own API without a server URL, an OpenAI-compatible server with one."""
        return PROVIDER_COMPATIBLE if (self.llm.base_url or "").strip() else PROVIDER_OPENAI

    @property
    def reviewer_name(self) -> str:
        """Who the acts are by: the CLI's lookup too (:func:`core.coding.reviewer.reviewer_name`)."""
        return reviewer_name(self.reviewer.strip() or None)

    @property
    def reviewer_known(self) -> bool:
        """True when somebody gave a name (here, in ``$GRAMMARLENS_REVIEWER`` or the CLI's file): no need to ask."""
        return bool(known_name(self.reviewer))

    @property
    def key_account(self) -> str:
        """The keyring account: one key per provider endpoint."""
        if self.provider == PROVIDER_COMPATIBLE:
            return f"compatible:{(self.llm.base_url or '').strip()}"
        return "default"

    def client_settings(self) -> LlmSettings:
        """The LLM settings as the client needs them: the keyring account follows the endpoint."""
        return replace(self.llm, keyring_user=self.key_account)


def _coerce(value: Any, default: Any) -> Any:
    """A stored value in the default's type (an int stored for a float field, say); ValueError if impossible."""
    if default is None or value is None:
        return value
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ValueError(value)
        return value
    return type(default)(value)


def _load_group(store: QSettings, group: str, defaults: Any) -> Any:
    changes = {}
    for f in fields(defaults):
        key = f"{group}/{f.name}"
        if f.name in _NOT_STORED or not store.contains(key):
            continue
        try:
            changes[f.name] = _coerce(json.loads(str(store.value(key))), getattr(defaults, f.name))
        except (TypeError, ValueError):
            log.warning("ignoring the stored setting %s: %r is not a valid value", key, store.value(key))
    return replace(defaults, **changes)


def _save_group(store: QSettings, group: str, values: Any, defaults: Any) -> None:
    for f in fields(values):
        if f.name in _NOT_STORED:
            continue
        key, value = f"{group}/{f.name}", getattr(values, f.name)
        if value == getattr(defaults, f.name):
            store.remove(key)
        else:
            store.setValue(key, json.dumps(value))


def _upgrade_legacy(store: QSettings) -> None:
    """Move settings saved under the old names to the new ones (once; the old group is then removed)."""
    store.beginGroup(LEGACY_GROUP)
    old = {k: store.value(k) for k in store.childKeys()}
    store.endGroup()
    if not old:
        return
    if old.get("provider") == PROVIDER_OPENAI:
        old.pop("base_url", None)  # a URL typed for another provider: OpenAI's own API was chosen
    for name, raw in old.items():
        target = LEGACY_KEYS.get(name)
        if name == "reranker_model" and raw == "":
            raw = None  # the old way of saying "no embedding model"
        elif target is None or raw in (None, ""):
            continue
        group, field_name = target  # type: ignore[misc]
        store.setValue(f"{group}/{field_name}" if group else field_name, json.dumps(raw) if group else raw)
    store.remove(LEGACY_GROUP)


def load_settings(store: QSettings | None = None) -> AppSettings:
    store = store or QSettings()
    _upgrade_legacy(store)
    llm = _load_group(store, "llm", LlmSettings())
    retrieval = _load_group(store, "retrieval", RetrievalSettings())
    reviewer = str(store.value("reviewer", "") or "") or (saved_name() if _users_own(store) else "")
    return AppSettings(llm, retrieval, reviewer)


def _users_own(store: QSettings) -> bool:
    """True for the app's own settings (not a bench's or a test's file): only they share the coder's name with the CLI.

    The name is kept for the CLI in :mod:`core.coding.reviewer`'s file; a bench with its own settings
    file must neither read the person's name into its settings nor overwrite or forget it.
    """
    return store.fileName() == QSettings().fileName()


def save_settings(settings: AppSettings, store: QSettings | None = None) -> None:
    store = store or QSettings()
    _save_group(store, "llm", settings.llm, LlmSettings())
    _save_group(store, "retrieval", settings.retrieval, RetrievalSettings())
    store.setValue("reviewer", settings.reviewer)
    store.sync()
    if _users_own(store):
        save_name(settings.reviewer)  # the CLI's acts are stamped with the same name (core.coding.reviewer)


def keyring_available() -> bool:
    backend = keyring.get_keyring()
    return getattr(backend, "priority", 0) > 0 and "fail" not in type(backend).__module__


def get_api_key(settings: AppSettings) -> str:
    """The key for the configured provider, by core's one rule (:func:`core.llm.settings.resolve_api_key`).

    This session's key first, then the environment (for OpenAI's own API only), then the keyring.
    """
    return resolve_api_key(settings.client_settings(), session_key=_session_keys.get(settings.key_account),
                           environment=settings.provider == PROVIDER_OPENAI) or ""


def set_api_key(settings: AppSettings, key: str) -> bool:
    """Store (or, with an empty key, delete) the key; false when it could only be kept for this session."""
    account = settings.key_account
    key = key.strip()
    if keyring_available():
        try:
            if key:
                keyring.set_password(KEYRING_SERVICE, account, key)
            else:
                with contextlib.suppress(keyring.errors.PasswordDeleteError):  # there was none to delete
                    keyring.delete_password(KEYRING_SERVICE, account)
            _session_keys.pop(account, None)
            return True
        except keyring.errors.KeyringError:
            pass
    if key:
        _session_keys[account] = key
    else:
        _session_keys.pop(account, None)
    return False


def forget_session_keys() -> None:
    """Drop every key kept for this session only (tests; a person switching machines' accounts)."""
    _session_keys.clear()


def llm_configured(settings: AppSettings) -> bool:
    """True when a classification can be attempted: a local server URL, or an OpenAI key."""
    if settings.provider == PROVIDER_COMPATIBLE:
        return True
    return bool(get_api_key(settings))
