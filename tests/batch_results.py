"""A small project's batch requests file, and the results file the OpenAI Batch API would give back for it.

The batch-import tests (backups, chunks, bad lines, file fuzz, restore safety) all start the same way:
the small Testish project (tests.fixtures_llm), closed, with a requests file for some features; then
each request answered from its own JSON schema (its first value, or every strategy present), so any
feature set works without a server.  Written once a module (the tests copy the closed project).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from core.llm import LlmSettings
from core.profile import BatchSettings, resolve_feature_set
from core.profile.batch_files import parse_custom_id, write_batch_requests
from core.retrieval import RetrievalSettings
from core.store import open_project
from tests.fixtures_llm import make_llm_project

# No server answers here: the requests are written, never sent.
LLM = LlmSettings(base_url="http://127.0.0.1:9/v1", model="gpt-4o", use_keyring=False)
# The tables a batch import writes to (a second import of the same file must leave their counts alone).
IMPORT_TABLES = ("classifications", "classification_values", "classification_evidence", "llm_cache",
                 "profile_job_items")


def write_requests(folder: Path, name: str, features: Sequence[str],
                   configs: Sequence[str] = ("rag",)) -> tuple[Path, Path]:
    """(the closed project ``folder/name``, ``folder/requests.jsonl`` asking for ``features`` in each config)."""
    holder = make_llm_project(folder / name)
    holder.project.close()
    requests = folder / "requests.jsonl"
    for i, config in enumerate(configs):
        settings = BatchSettings(mode="llm", config=config, llm=LLM, retrieval=RetrievalSettings(reranker=None))
        write_batch_requests([holder.path], list(features), requests, settings, append=i > 0)
    return holder.path, requests


def request_lines(requests: Path) -> list[dict]:
    return [json.loads(x) for x in requests.read_text(encoding="utf-8").splitlines()]


def requests_by_feature(requests: Path) -> dict[str, dict]:
    """Feature id -> its request line (one config: a feature's later line would replace its earlier one)."""
    return {parse_custom_id(x["custom_id"])[1]: x for x in request_lines(requests)}


def content_for(request: dict) -> str:
    """A valid JSON answer to a request: its first option, or every strategy present; cites paragraph 1."""
    schema = request["body"]["response_format"]["json_schema"]["schema"]["properties"]
    answer: dict = {"reasoning": "Paragraph 1 says so.", "cited_paragraphs": [1]}
    if "strategies" in schema:
        answer["strategies"] = dict.fromkeys(schema["strategies"]["properties"], "1")
    else:
        answer["value"] = schema["value"]["enum"][0]
    return json.dumps(answer)


def result_for(request: dict, content: str | None = None) -> dict:
    """The result line the OpenAI Batch API writes for a request (answering ``content`` or :func:`content_for`)."""
    return {"id": "batch_req_1", "custom_id": request["custom_id"], "error": None, "response": {
        "status_code": 200, "request_id": "req_1", "body": {
            "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-2024-08-06",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content or content_for(request)},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 900, "completion_tokens": 40, "total_tokens": 940}}}}


def dumps(obj: object) -> bytes:
    """One results-file line as bytes (lone surrogates kept: some tests write broken text on purpose)."""
    return json.dumps(obj, ensure_ascii=False).encode("utf-8", "surrogatepass")


def result_lines(requests: Path) -> list[bytes]:
    """A good result line for every request of the file, in its order."""
    return [dumps(result_for(r)) for r in request_lines(requests)]


def write_long_results(folder: Path, name: str) -> tuple[Path, Path, int]:
    """(the closed project ``folder/name``, a results file answering every Grambank and WALS feature in
    both configurations, the number of its lines)."""
    features = resolve_feature_set(None, "grambank") + resolve_feature_set(None, "wals")
    path, requests = write_requests(folder, name, features, configs=("rag", "baseline"))
    results, lines = folder / "results.jsonl", result_lines(requests)
    results.write_bytes(b"\n".join(lines) + b"\n")
    return path, results, len(lines)


def table_counts(path: Path) -> dict[str, int]:
    """Rows in each of :data:`IMPORT_TABLES` of a project file."""
    with open_project(path, readonly=True) as project:
        return {t: project.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in IMPORT_TABLES}
