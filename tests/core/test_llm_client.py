"""The LLM client against a real HTTP server on 127.0.0.1: keys, faults, retries, usage."""

from __future__ import annotations

import socket
import time

import keyring
import pytest
from keyring.backend import KeyringBackend

from core.llm import LlmClient, LlmError, LlmSettings, resolve_api_key
from core.llm import client as client_module

MESSAGES = [{"role": "user", "content": "Testish is verb-final. Conclusion please."}]


def test_reply_usage_and_request_shape(llm_server, llm_settings) -> None:
    llm_server.add_rule("verb-final", "SOV")
    reply = LlmClient(llm_settings).complete(MESSAGES)
    assert reply.content.endswith("Conclusion: SOV")
    assert reply.prompt_tokens > 0 and reply.completion_tokens > 0
    assert reply.cost_usd == 0.0  # a local server costs nothing
    sent = llm_server.chat_requests[-1]
    assert sent["model"] == "gpt-4o" and sent["temperature"] == 0.2


def test_missing_key_for_openai_is_a_clear_error(monkeypatch) -> None:
    for name in ("GRAMMARLENS_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(LlmError) as info:
        LlmClient(LlmSettings(use_keyring=False))
    assert info.value.kind == "no_key" and "GRAMMARLENS_API_KEY" in info.value.hint


def test_key_order_environment_then_keyring(monkeypatch) -> None:
    class MemoryKeyring(KeyringBackend):
        priority = 1
        store: dict = {}

        def get_password(self, service, username):
            return self.store.get((service, username))

        def set_password(self, service, username, password):
            self.store[(service, username)] = password

        def delete_password(self, service, username):
            self.store.pop((service, username), None)

    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    try:
        for name in ("GRAMMARLENS_API_KEY", "OPENAI_API_KEY"):
            monkeypatch.delenv(name, raising=False)
        settings = LlmSettings()
        assert resolve_api_key(settings) is None
        keyring.set_password("GrammarLens", "default", "sk-from-keyring")
        assert resolve_api_key(settings) == "sk-from-keyring"
        monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
        assert resolve_api_key(settings) == "sk-openai"
        monkeypatch.setenv("GRAMMARLENS_API_KEY", "sk-grammarlens")
        assert resolve_api_key(settings) == "sk-grammarlens"
    finally:
        keyring.set_keyring(previous)


def test_wrong_key_401_is_not_retried_and_key_is_redacted(llm_server, llm_settings) -> None:
    llm_server.require_key = "sk-right-key-123456"
    with pytest.raises(LlmError) as info:
        LlmClient(llm_settings, api_key="sk-wrong-key-abcdef").complete(MESSAGES)
    assert info.value.kind == "auth" and not info.value.retryable
    assert "sk-wrong" not in str(info.value)
    assert len(llm_server.chat_requests) == 1
    assert LlmClient(llm_settings, api_key="sk-right-key-123456").complete(MESSAGES).content


def test_unknown_model_404(llm_server, llm_settings) -> None:
    llm_server.models = {"gpt-4o"}
    llm_settings.model = "no-such-model"
    with pytest.raises(LlmError) as info:
        LlmClient(llm_settings).complete(MESSAGES)
    assert info.value.kind == "model_not_found" and "no-such-model" in info.value.message
    assert len(llm_server.chat_requests) == 1


def test_429_then_success_is_retried(llm_server, llm_settings) -> None:
    llm_server.enqueue(429, 429)
    reply = LlmClient(llm_settings).complete(MESSAGES)
    assert reply.attempts == 3 and len(llm_server.chat_requests) == 3


def test_500_retried_then_gives_up_with_a_message(llm_server, llm_settings) -> None:
    llm_server.enqueue(*([500] * 10))
    with pytest.raises(LlmError) as info:
        LlmClient(llm_settings).complete(MESSAGES)
    assert info.value.kind == "server" and info.value.retryable
    assert "gave up after 4 attempts" in info.value.message
    assert len(llm_server.chat_requests) == 4


def test_timeout_is_retried(llm_server, llm_settings) -> None:
    llm_settings.timeout_s = 0.3
    llm_server.enqueue({"delay": 1.0})
    started = time.monotonic()
    reply = LlmClient(llm_settings).complete(MESSAGES)
    assert reply.attempts == 2 and time.monotonic() - started < 3
    llm_server.enqueue({"delay": 1.0}, {"delay": 1.0})
    llm_settings.max_retries = 1
    with pytest.raises(LlmError) as info:
        LlmClient(llm_settings).complete(MESSAGES)
    assert info.value.kind == "timeout" and "did not answer within 0.3 s" in info.value.message


def test_connection_refused(llm_settings) -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    llm_settings.base_url = f"http://127.0.0.1:{port}/v1"
    with pytest.raises(LlmError) as info:
        LlmClient(llm_settings).complete(MESSAGES)
    assert info.value.kind == "connection" and "Cannot reach" in info.value.message


def test_reply_without_choices(llm_server, llm_settings) -> None:
    llm_server.enqueue({"no_choices": True})
    with pytest.raises(LlmError) as info:
        LlmClient(llm_settings).complete(MESSAGES)
    assert info.value.kind == "empty"


def test_concurrency_is_bounded(llm_server, llm_settings) -> None:
    from concurrent.futures import ThreadPoolExecutor

    llm_settings.max_concurrency = 2
    client = LlmClient(llm_settings)
    llm_server.enqueue(*[{"delay": 0.2}] * 6)
    started = time.monotonic()
    with ThreadPoolExecutor(6) as pool:
        list(pool.map(lambda _: client.complete(MESSAGES), range(6)))
    assert time.monotonic() - started >= 0.55  # 6 slow calls, 2 at a time: three rounds


def test_connection_check(llm_server, llm_settings) -> None:
    assert "Connected to" in client_module.test_connection(llm_settings)
