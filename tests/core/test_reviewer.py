"""One reviewer-name lookup for the window and the CLI (core.coding.reviewer, issue 29)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from core.coding import reviewer
from core.store import create_project
from tests.cli_runs import run_main


@pytest.fixture
def config(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv(reviewer.ENV_VAR, raising=False)
    return tmp_path / "config" / "GrammarLens"


def test_given_then_environment_then_saved_then_login(config, monkeypatch) -> None:
    import getpass

    assert reviewer.known_name() == "" and reviewer.reviewer_name() == getpass.getuser()
    reviewer.save_name("  Ana Souza ")
    assert json.loads((config / "coder.json").read_text(encoding="utf-8")) == {"name": "Ana Souza"}
    assert reviewer.saved_name() == reviewer.reviewer_name() == "Ana Souza"
    monkeypatch.setenv(reviewer.ENV_VAR, "Bo")
    assert reviewer.reviewer_name() == "Bo" and reviewer.reviewer_name("Cy") == "Cy"
    assert reviewer.reviewer_name("") == ""  # --reviewer "": nobody, on purpose
    reviewer.save_name("")
    assert not (config / "coder.json").exists() and reviewer.saved_name() == ""


def test_a_damaged_file_is_no_name(config) -> None:
    config.mkdir(parents=True)
    (config / "coder.json").write_text("{not json", encoding="utf-8")
    assert reviewer.saved_name() == ""
    (config / "coder.json").write_text('["Ana"]', encoding="utf-8")
    assert reviewer.saved_name() == ""


def _code(project: Path, env: dict, *more: str) -> str:
    done = run_main("code", project, "--feature", "81A", "--value", "SOV", *more, env=env)
    assert done.returncode == 0, done.stderr
    history = run_main("code", project, "--feature", "81A", "--json", env=env)
    return json.loads(history.stdout)["reviewer"]


def test_the_cli_stamps_acts_with_the_name_the_window_saved(config, tmp_path) -> None:
    project = tmp_path / "p.grammarlens"
    create_project(project).close()
    reviewer.save_name("Ana Souza")  # what the window's first-act question keeps
    env = {k: v for k, v in os.environ.items() if k != reviewer.ENV_VAR}
    assert _code(project, env) == "Ana Souza"
    assert _code(project, {**env, reviewer.ENV_VAR: "Bo"}) == "Bo"
    assert _code(project, env, "--reviewer", "Cy") == "Cy"
