"""Fixtures of the Profile dock's batch-file tests: the dock on the demo project, the server's results.

``batch_view`` is a shown Profile dock on a copy of the demo project, asking the local
OpenAI-compatible server (``llm_server``) for the features :data:`FEATURES`;
:func:`server_results` writes the results file the server's Batch API would give back for a
requests file, and :func:`count` counts a table's rows in a project file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.store import open_project

WAIT_MS = 30_000
FEATURES = "81A,GB107"


@pytest.fixture
def batch_view(qtbot, llm_server, llm_settings, demo_project, make_profile_view):
    """The Profile dock, shown, on ``demo_project`` with the features :data:`FEATURES`; its work ends after."""
    from gui.common.settings import AppSettings

    settings = AppSettings(llm=llm_settings, retrieval=AppSettings().retrieval.with_(reranker=None))
    view = make_profile_view(settings, size=(1000, 500))
    with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
        view.set_project(demo_project)
    view.set_feature_set(FEATURES)
    return view


def server_results(server, requests: Path, results: Path) -> None:
    """The results file the server's Batch API would write for ``requests`` (its answering rules)."""
    out = []
    for raw in requests.read_text(encoding="utf-8").splitlines():
        request = json.loads(raw)
        content, tokens = server.answer(request["body"])
        out.append({"id": "batch_req_1", "custom_id": request["custom_id"], "error": None, "response": {
            "status_code": 200, "request_id": "req_1", "body": {
                "id": "chatcmpl-1", "object": "chat.completion", "model": request["body"]["model"],
                "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 500, "completion_tokens": tokens, "total_tokens": 500 + tokens}}}})
    results.write_text("".join(json.dumps(x) + "\n" for x in out), encoding="utf-8")


def window_dock_with_answered_requests(qtbot, window, project: Path, feature: str, llm_server, llm_settings,
                                       requests: Path, results: Path):
    """The window on ``project`` at ``feature`` (no reranker), its Profile dock on :data:`FEATURES`, the
    dock's requests file written to ``requests`` and the server's answers to it (81A SOV, GB107 1) to
    ``results``; returns the dock."""
    from gui.common.settings import AppSettings

    window.apply_settings(AppSettings(llm=llm_settings, retrieval=AppSettings().retrieval.with_(reranker=None)))
    with qtbot.waitSignal(window.retrievalFinished, timeout=WAIT_MS):
        assert window.open_project(project, feature=feature)
    view = window.show_profile_view()
    view.set_feature_set(FEATURES)
    with qtbot.waitSignal(view.batchFileFinished, timeout=WAIT_MS):
        view.batch_files.export_batch_file(requests)
    llm_server.add_rule("dominant order of subject, object and verb", "SOV")
    llm_server.add_rule("Standard negation is the negation", "1")
    server_results(llm_server, requests, results)
    return view


def count(path: Path, table: str) -> int:
    with open_project(path, readonly=True) as project:
        return project.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
