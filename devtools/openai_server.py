"""A real OpenAI-compatible chat-completions server on 127.0.0.1 for tests, benchmarks and screenshots.

It lives in the app (not under tests/) because ``bench gui``, ``bench batch`` and the screenshot
script run against it, and the frozen app excludes the tests package.

It is a stdlib ``ThreadingHTTPServer`` in a background thread that speaks enough of the
protocol for the ``openai`` package (``POST /v1/chat/completions``, ``GET /v1/models``, and the
Batch API: ``POST /v1/files``, ``GET /v1/files/ID/content``, ``POST /v1/batches``, ``GET
/v1/batches/ID``) and can be scripted to misbehave, so the whole LLM path is exercised over real HTTP.

API (the ``llm_server`` fixture in ``tests/fixtures_llm.py`` yields a reset instance)::

    server.url                         # "http://127.0.0.1:PORT/v1", pass as base_url
    server.add_rule("verb-final", "SOV")          # prompts containing the text get this value,
    server.add_rule("Tone", {"Tone": "1"})        # multi-label: {strategy label: "1"/"0"}
    server.answer_fn = lambda request: "..."      # or compute any reply from the request JSON
    server.enqueue(429, 429)            # the next two requests get 429 (with Retry-After: 0)
    server.enqueue({"status": 500}, {"delay": 2.0}, {"content": "```json {...} ```"},
                   {"empty": True}, {"no_choices": True})   # one-shot behaviours, in order
    server.enqueue({"wait": event})     # hold the reply until event.set() (at most 60 s): a test can act
                                        # while a client is known to be waiting (e.g. kill it mid-request)
    server.enqueue({"body": {"choices": {"x": 1}}}, {"body": b"<html>", "content_type": "text/html"})
                                        # a canned 200 reply, whatever the request: any value as JSON, or
                                        # bytes sent as they are (Content-Type application/json unless given)
    server.json_schema = "honour" | "reject" | "ignore"      # how response_format is treated
    server.models = {"gpt-4o", "llama3"}   # other model names get 404 (None: any model)
    server.require_key = "sk-test"         # requests without this Bearer key get 401
    server.context_limit = 2000            # prompts over this many tokens (chars/4) get a 400
    server.requests                        # JSON bodies received, in order (with "_auth"); a chat request
                                           # is logged only if it arrived whole with a list of messages
    server.reset()                         # back to defaults (the fixture does this per test)
    server.batch_outcome = "completed" | "failed" | "expired"   # how the next batches end
    server.batch_polls = 1                 # retrievals that still show "in_progress" before the end
    server.batch_line_errors = {"custom id"}   # these requests get an error line in the error file
    server.files, server.batches           # what was uploaded and created

A rule's answer cites the prompt paragraphs whose text contains the rule's text (or
``cite=[numbers]``).  JSON-schema requests get a JSON object that fits the schema; others get
the paper's text format ending in ``Conclusion: <value>``.  Unmatched prompts are answered
"Not enough information".  Run ``python -m devtools.openai_server --rule "verb-final=SOV"`` to
serve by hand (e.g. for GUI screenshots).
"""

from __future__ import annotations

import argparse
import json
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from typing import Any, Callable

from devtools.openai_handler import StubRequestHandler, jsonl, schema_of

_PARAGRAPH = re.compile(r'<paragraph number="(\d+)" page="[^"]*">\n(.*?)\n</paragraph>', re.S)
NOT_ENOUGH = "Not enough information"


@dataclass
class Rule:
    contains: str
    value: str | dict[str, str]
    cite: list[int] | None = None  # None: the paragraphs that contain ``contains``
    reasoning: str = ""


@dataclass
class _State:
    rules: list[Rule] = field(default_factory=list)
    queue: deque = field(default_factory=deque)
    requests: list[dict] = field(default_factory=list)
    answer_fn: Callable[[dict], str | dict] | None = None
    json_schema: str = "honour"
    models: set[str] | None = None
    require_key: str | None = None
    context_limit: int | None = None
    files: dict[str, dict] = field(default_factory=dict)  # id -> {"content": bytes, "filename", "purpose", ...}
    batches: dict[str, dict] = field(default_factory=dict)  # id -> the Batch object (JSON) plus "_polls"
    batch_outcome: str = "completed"
    batch_polls: int = 1
    batch_line_errors: set[str] = field(default_factory=set)


class OpenAIStubServer:
    """See the module docstring. Start with :meth:`start`, stop with :meth:`stop`."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._lock = threading.Lock()
        self._state = _State()
        outer = self

        class Handler(StubRequestHandler):
            server_api = outer

        self._httpd = ThreadingHTTPServer((host, port), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="openai-stub", daemon=True)

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> OpenAIStubServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def reset(self) -> None:
        with self._lock:
            self._state = _State()

    # -- scripting ---------------------------------------------------------------------------
    def add_rule(self, contains: str, value: str | dict[str, str], cite: list[int] | None = None,
                 reasoning: str = "") -> None:
        with self._lock:
            self._state.rules.append(Rule(contains, value, cite, reasoning))

    def enqueue(self, *behaviours: int | dict) -> None:
        with self._lock:
            for b in behaviours:
                self._state.queue.append({"status": b} if isinstance(b, int) else dict(b))

    def __getattr__(self, name: str) -> Any:
        if name in _State.__dataclass_fields__:
            return getattr(self.__dict__["_state"], name)
        raise AttributeError(name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _State.__dataclass_fields__ and "_state" in self.__dict__:
            setattr(self._state, name, value)
        else:
            super().__setattr__(name, value)

    @property
    def chat_requests(self) -> list[dict]:
        return [r for r in self._state.requests if r.get("_path", "").endswith("chat/completions")]

    # -- the Batch API -----------------------------------------------------------------------
    def add_file(self, content: bytes, filename: str, purpose: str) -> dict:
        with self._lock:
            file_id = f"file-{len(self._state.files) + 1:06d}"
            self._state.files[file_id] = {"content": content, "filename": filename, "purpose": purpose,
                                          "created_at": int(time.time())}
        return self.file_object(file_id)

    def file_object(self, file_id: str) -> dict:
        f = self._state.files[file_id]
        return {"id": file_id, "object": "file", "bytes": len(f["content"]), "created_at": f["created_at"],
                "filename": f["filename"], "purpose": f["purpose"], "status": "processed"}

    def create_batch(self, request: dict) -> tuple[int, dict]:
        input_id = str(request.get("input_file_id", ""))
        if input_id not in self._state.files:
            return 400, {"error": {"message": f"No such File object: {input_id}", "type": "invalid_request_error"}}
        if request.get("endpoint") != "/v1/chat/completions":
            return 400, {"error": {"message": f"Unsupported endpoint {request.get('endpoint')!r}",
                                   "type": "invalid_request_error"}}
        lines = [ln for ln in self._state.files[input_id]["content"].splitlines() if ln.strip()]
        with self._lock:
            batch_id = f"batch_{len(self._state.batches) + 1:06d}"
            self._state.batches[batch_id] = {
                "id": batch_id, "object": "batch", "endpoint": request["endpoint"], "input_file_id": input_id,
                "completion_window": request.get("completion_window", "24h"), "status": "validating",
                "created_at": int(time.time()), "output_file_id": None, "error_file_id": None, "errors": None,
                "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
                "metadata": request.get("metadata"), "_polls": 0,
            }
        return 200, self.batch_object(batch_id)

    def batch_object(self, batch_id: str) -> dict:
        return {k: v for k, v in self._state.batches[batch_id].items() if not k.startswith("_")}

    def poll_batch(self, batch_id: str) -> dict:
        """A retrieval: the batch advances validating -> in_progress -> its scripted outcome."""
        batch = self._state.batches[batch_id]
        if batch["status"] in ("completed", "failed", "expired", "cancelled"):
            return self.batch_object(batch_id)
        batch["_polls"] += 1
        if batch["_polls"] <= self._state.batch_polls:
            batch["status"] = "in_progress"
            batch.setdefault("in_progress_at", int(time.time()))
            return self.batch_object(batch_id)
        outcome = self._state.batch_outcome
        now = int(time.time())
        if outcome == "failed":
            batch.update(status="failed", failed_at=now, errors={"object": "list", "data": [
                {"code": "invalid_json_line", "message": "This line is not parseable as valid JSON.", "line": 1,
                 "param": None}]})
            return self.batch_object(batch_id)
        self._run_batch(batch, partial=outcome == "expired")
        if outcome == "expired":
            batch.update(status="expired", expired_at=now)
        else:
            batch.update(status="completed", completed_at=now)
        return self.batch_object(batch_id)

    def _run_batch(self, batch: dict, *, partial: bool) -> None:
        """Answer every request line as the chat endpoint would; an expired batch answers only half."""
        lines = [ln for ln in self._state.files[batch["input_file_id"]]["content"].splitlines() if ln.strip()]
        if partial:
            lines = lines[: len(lines) // 2]
        out, errors = [], []
        for i, line in enumerate(lines):
            request = json.loads(line)
            custom_id = request.get("custom_id")
            if custom_id in self._state.batch_line_errors:
                errors.append({"id": f"batch_req_{i}", "custom_id": custom_id, "response": None,
                               "error": {"code": "server_error", "message": "The request could not be processed."}})
                continue
            body = request.get("body") or {}
            content, completion_tokens = self.answer(body)
            prompt_tokens = sum(len(str(m.get("content", ""))) for m in body.get("messages", [])) // 4
            out.append({"id": f"batch_req_{i}", "custom_id": custom_id, "error": None, "response": {
                "status_code": 200, "request_id": f"req_{i}", "body": {
                    "id": f"chatcmpl-{i}", "object": "chat.completion", "created": int(time.time()),
                    "model": body.get("model", ""), "choices": [{"index": 0, "finish_reason": "stop", "message": {
                        "role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                              "total_tokens": prompt_tokens + completion_tokens}}}})
        if out:
            batch["output_file_id"] = self.add_file(jsonl(out), "batch_output.jsonl", "batch_output")["id"]
        if errors:
            batch["error_file_id"] = self.add_file(jsonl(errors), "batch_errors.jsonl", "batch_output")["id"]
        batch["request_counts"] = {"total": batch["request_counts"]["total"], "completed": len(out),
                                   "failed": len(errors)}

    # -- answering ---------------------------------------------------------------------------
    def _next_behaviour(self) -> dict | None:
        with self._lock:
            return self._state.queue.popleft() if self._state.queue else None

    def answer(self, request: dict) -> tuple[str, int]:
        """The reply content for a request, and its completion token count."""
        state = self._state
        if state.answer_fn is not None:
            produced = state.answer_fn(request)
            content = produced if isinstance(produced, str) else json.dumps(produced)
            return content, max(1, len(content) // 4)
        user = "\n".join(str(m.get("content", "")) for m in request.get("messages", []) if m.get("role") == "user")
        paragraphs = {int(n): text for n, text in _PARAGRAPH.findall(user)}
        rule = next((r for r in state.rules if r.contains in user), None)
        value: str | dict = rule.value if rule else NOT_ENOUGH
        cites = rule.cite if rule and rule.cite is not None else sorted(
            n for n, text in paragraphs.items() if rule and rule.contains in text)
        reasoning = (rule.reasoning if rule and rule.reasoning else
                     f"The grammar states this in paragraphs {cites}." if cites else "Judging from what I know.")
        schema = schema_of(request)
        if schema is not None and state.json_schema == "honour":
            props = schema.get("properties", {})
            obj: dict[str, Any] = {"reasoning": reasoning}
            if "cited_paragraphs" in props:
                obj["cited_paragraphs"] = cites
            if "strategies" in props:
                names = list(props["strategies"].get("properties", {}))
                given = value if isinstance(value, dict) else {}
                obj["strategies"] = {n: str(given.get(n, NOT_ENOUGH if value == NOT_ENOUGH else "0")) for n in names}
            else:
                obj["value"] = value if isinstance(value, str) else NOT_ENOUGH
            content = json.dumps(obj)
        else:
            conclusion = value if isinstance(value, str) else ", ".join(f"{k}: {v}" for k, v in value.items())
            cite_line = f"Paragraphs: {', '.join(map(str, cites))}\n" if cites else ""
            content = f"{reasoning}\n{cite_line}Conclusion: {conclusion}"
        return content, max(1, len(content) // 4)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve a scriptable OpenAI-compatible stub on 127.0.0.1.")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--rule", action="append", default=[], metavar="TEXT=VALUE",
                        help="answer VALUE when the prompt contains TEXT (repeatable)")
    parser.add_argument("--json-schema", choices=["honour", "reject", "ignore"], default="honour")
    args = parser.parse_args(argv)
    server = OpenAIStubServer(port=args.port)
    for rule in args.rule:
        text, _, value = rule.partition("=")
        server.add_rule(text, value)
    server.json_schema = args.json_schema
    server.start()
    print(f"OpenAI-compatible stub serving at {server.url} (Ctrl+C to stop)", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
