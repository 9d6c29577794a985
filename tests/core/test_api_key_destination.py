"""The environment's API key goes to OpenAI's own API only (issue 26, finding 11), seen by a logging server.

``classify`` and ``batch status`` run as real processes against the devtools server on 127.0.0.1,
which records the Authorization header of every request.  Before the fix both sent
GRAMMARLENS_API_KEY / OPENAI_API_KEY to whatever ``--base-url`` named.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from core.llm import LlmSettings, resolve_api_key
from tests.cli_runs import run_main
from tests.fixtures_llm import make_llm_project

SECRET = "sk-env-secret-for-openai-only"


def _run(*args: str, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_BASE_URL",)}
    env.update({"OPENAI_API_KEY": SECRET, "GRAMMARLENS_API_KEY": SECRET,
                "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring", "HF_HUB_OFFLINE": "1"})
    env.update(extra_env or {})
    return run_main(*args, env=env, timeout=300)


def test_the_environment_key_is_not_sent_to_another_server(llm_server, tmp_path: Path) -> None:
    holder = make_llm_project(tmp_path / "testish.grammarlens")
    holder.project.close()
    classified = _run("classify", str(holder.path), "--feature", "81A", "--base-url", llm_server.url,
                      "--no-reranker", "--no-cache")
    assert classified.returncode == 0, classified.stderr
    _run("batch", "status", "batch_missing", "--base-url", llm_server.url)
    auths = [r.get("_auth", "") for r in llm_server.requests]
    assert len(auths) >= 2 and all(SECRET not in a for a in auths), auths
    named = _run("batch", "status", "batch_missing", "--base-url", llm_server.url, "--api-key-env", "MY_SERVER_KEY",
                 extra_env={"MY_SERVER_KEY": "sk-for-this-server"})
    assert "Traceback" not in named.stderr
    assert llm_server.requests[-1]["_auth"] == "Bearer sk-for-this-server"  # a key named for the server goes there


def test_the_rule_in_core() -> None:
    env = {"OPENAI_API_KEY": SECRET}
    old = {k: os.environ.get(k) for k in ("OPENAI_API_KEY", "GRAMMARLENS_API_KEY", "OTHER_KEY")}
    try:
        os.environ.update(env)
        os.environ.pop("GRAMMARLENS_API_KEY", None)
        assert resolve_api_key(LlmSettings(use_keyring=False)) == SECRET
        assert resolve_api_key(LlmSettings(base_url="https://api.openai.com/v1", use_keyring=False)) == SECRET
        assert resolve_api_key(LlmSettings(base_url="https://llm.example.org/v1", use_keyring=False)) is None
        assert resolve_api_key(LlmSettings(base_url="http://api.openai.com.evil.test/v1", use_keyring=False)) is None
        os.environ["OTHER_KEY"] = "sk-other"
        assert resolve_api_key(LlmSettings(base_url="https://llm.example.org/v1", api_key_env="OTHER_KEY",
                                           use_keyring=False)) == "sk-other"
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
