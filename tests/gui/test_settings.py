"""Settings: the core's settings objects stored by their own names, old settings upgraded, and a
session-only API key that reaches the server without ever entering the environment."""

from __future__ import annotations

import dataclasses
import json
import os

import pytest
from PySide6.QtCore import QSettings

from core.llm.settings import LlmSettings
from core.retrieval.settings import RetrievalSettings
from gui.common import settings as gui_settings
from gui.common.settings import AppSettings, load_settings, save_settings

SESSION_KEY = "sk-session-only-4242"


def test_only_changed_values_are_stored_under_the_cores_names(gui_store, tmp_path) -> None:
    settings = AppSettings(LlmSettings(model="llama3", base_url="http://127.0.0.1:9/v1", temperature=0.5),
                           RetrievalSettings(reranker=None, final_top=10), reviewer="Ana")
    save_settings(settings, gui_store)
    assert load_settings(gui_store) == settings
    text = (tmp_path / "grammarlens.ini").read_text(encoding="utf-8")
    assert "final_top" in text and "temperature" in text
    assert "bm25_top" not in text and "max_retries" not in text  # defaults are not pinned in the file
    save_settings(AppSettings(), gui_store)
    assert load_settings(gui_store) == AppSettings()


def test_settings_of_the_old_names_are_upgraded_once(tmp_path) -> None:
    store = QSettings(str(tmp_path / "old.ini"), QSettings.Format.IniFormat)
    for name, value in (("provider", "compatible"), ("base_url", "http://127.0.0.1:8080/v1"), ("model", "qwen"),
                        ("temperature", "0.5"), ("reranker_model", ""), ("bm25_top_k", "40"),
                        ("evidence_token_budget", "3000"), ("reviewer", "Ana"), ("request_timeout_s", "30.0")):
        store.setValue(f"{gui_settings.LEGACY_GROUP}/{name}", value)
    loaded = load_settings(store)
    assert loaded.provider == gui_settings.PROVIDER_COMPATIBLE
    assert (loaded.llm.base_url, loaded.llm.model, loaded.llm.temperature, loaded.llm.timeout_s) == (
        "http://127.0.0.1:8080/v1", "qwen", 0.5, 30.0)
    assert (loaded.retrieval.reranker, loaded.retrieval.bm25_top, loaded.retrieval.budget_tokens) == (None, 40, 3000)
    assert loaded.reviewer == "Ana"
    assert not store.childGroups().count(gui_settings.LEGACY_GROUP)  # read once, then gone
    assert load_settings(store) == loaded
    # every old name points at a field that exists: a renamed core field fails here, not silently
    fields = {"llm": {f.name for f in dataclasses.fields(LlmSettings)},
              "retrieval": {f.name for f in dataclasses.fields(RetrievalSettings)}, "": {"reviewer"}}
    assert all(name in fields[group] for group, name in gui_settings.LEGACY_KEYS.values())
    openai = QSettings(str(tmp_path / "openai.ini"), QSettings.Format.IniFormat)
    openai.setValue(f"{gui_settings.LEGACY_GROUP}/provider", "openai")
    openai.setValue(f"{gui_settings.LEGACY_GROUP}/base_url", "http://127.0.0.1:8080/v1")  # left from a switch
    assert load_settings(openai).provider == gui_settings.PROVIDER_OPENAI


def test_a_value_of_the_wrong_type_is_ignored_with_a_warning(gui_store, caplog) -> None:
    gui_store.setValue("retrieval/bm25_top", json.dumps("many"))
    with caplog.at_level("WARNING"):
        assert load_settings(gui_store).retrieval.bm25_top == RetrievalSettings().bm25_top
    assert "retrieval/bm25_top" in caplog.text


@pytest.fixture
def session_key(gui_store, monkeypatch, llm_server):
    """A key typed into Settings on a machine without a keyring: kept for this session only."""
    monkeypatch.setattr(gui_settings, "keyring_available", lambda: False)
    settings = AppSettings.local_server(llm_server.url, timeout_s=10.0)
    assert gui_settings.set_api_key(settings, SESSION_KEY) is False  # "for this session only"
    llm_server.require_key = SESSION_KEY
    yield settings
    gui_settings.forget_session_keys()


def _environment_holds_the_key() -> bool:
    return any(SESSION_KEY in value for value in os.environ.values())


def test_a_session_key_reaches_the_server_but_never_the_environment(session_key, llm_server, demo_project) -> None:
    from core.catalog import load_catalog
    from core.progress import Progress
    from gui.common import backend
    from gui.profile import profile_backend

    assert "Connected" in backend.test_connection(session_key)
    llm_server.add_rule("SOV", "SOV")
    result = backend.classify(demo_project, load_catalog().get("81A"), session_key, Progress())
    assert [v.label for v in result.values] == ["SOV"]
    assert {r["_auth"] for r in llm_server.chat_requests} == {f"Bearer {SESSION_KEY}"}
    assert not _environment_holds_the_key()  # so no child process (the reranker's) can inherit it
    batch = profile_backend.batch_settings(session_key, profile_backend.MODE_LLM)
    assert batch.api_key == SESSION_KEY and SESSION_KEY not in json.dumps(batch.public())
    assert SESSION_KEY not in repr(batch)
