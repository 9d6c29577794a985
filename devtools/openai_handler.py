"""The HTTP side of the OpenAI-compatible stub server (:mod:`devtools.openai_server`): one request in, one reply out.

Why a module of its own: the server's scripted behaviour (rules, queued misbehaviour, files and batches)
is one job, parsing and answering HTTP requests is another; the handler only routes each request to the
server's API (``server_api``) and writes what it returns.
"""

from __future__ import annotations

import json
import time
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from devtools.openai_server import OpenAIStubServer


def _multipart_fields(content_type: str, raw: bytes) -> dict[str, tuple[str | None, bytes]]:
    """name -> (filename, bytes) of a multipart/form-data body (what ``files.create`` uploads)."""
    from email.parser import BytesParser
    from email.policy import HTTP

    message = BytesParser(policy=HTTP).parsebytes(b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n"
                                                  + raw)
    fields: dict[str, tuple[str | None, bytes]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if name:
            fields[str(name)] = (part.get_filename(), part.get_payload(decode=True) or b"")
    return fields


def schema_of(request: dict) -> dict | None:
    fmt = request.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return (fmt.get("json_schema") or {}).get("schema") or {}
    return None


def jsonl(rows: list[dict]) -> bytes:
    return b"".join(json.dumps(r).encode("utf-8") + b"\n" for r in rows)


class StubRequestHandler(BaseHTTPRequestHandler):
    server_api: OpenAIStubServer
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def do_GET(self) -> None:
        api = self.server_api
        api._state.requests.append({"_path": self.path, "_auth": self.headers.get("Authorization", "")})
        path = self.path.split("?")[0].rstrip("/")
        parts = path.split("/")
        if path.endswith("/models"):
            names = sorted(api.models) if api.models else ["stub-model"]
            data = [{"id": n, "object": "model", "owned_by": "stub"} for n in names]
            self._json(200, {"object": "list", "data": data})
        elif not self._authorised():
            return
        elif len(parts) >= 2 and parts[-2] == "batches":
            if parts[-1] not in api._state.batches:
                self._json(404, {"error": {"message": f"No batch found with id '{parts[-1]}'.",
                                           "type": "invalid_request_error"}})
            else:
                self._json(200, api.poll_batch(parts[-1]))
        elif len(parts) >= 3 and parts[-3] == "files" and parts[-1] == "content":
            f = api._state.files.get(parts[-2])
            if f is None:
                self._json(404, {"error": {"message": f"No such File object: {parts[-2]}",
                                           "type": "invalid_request_error"}})
            else:
                self._bytes(200, f["content"], "application/octet-stream")
        elif len(parts) >= 2 and parts[-2] == "files" and parts[-1] in api._state.files:
            self._json(200, api.file_object(parts[-1]))
        else:
            self._json(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})

    def _authorised(self) -> bool:
        key = self.server_api._state.require_key
        if key is not None and self.headers.get("Authorization", "") != f"Bearer {key}":
            self._json(401, {"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error",
                                       "code": "invalid_api_key"}})
            return False
        return True

    def do_POST(self) -> None:
        api = self.server_api
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            self._json(400, {"error": {"message": "bad Content-Length", "type": "invalid_request_error"}})
            return
        raw = self.rfile.read(length) if length > 0 else b""
        if len(raw) < length:
            # The client went away mid-request (a killed process): what arrived is not a request.  It used
            # to be logged as one ("{}" for an empty read, without messages), which made a test counting the
            # prompts received fail with KeyError: 'messages' once in a few runs on a busy machine.
            self.close_connection = True
            return
        path = self.path.split("?")[0].rstrip("/")
        if path.endswith("/files"):
            api._state.requests.append({"_path": self.path, "_auth": self.headers.get("Authorization", "")})
            if not self._authorised():
                return
            fields = _multipart_fields(self.headers.get("Content-Type", ""), raw)
            if "file" not in fields:
                self._json(400, {"error": {"message": "No file uploaded.", "type": "invalid_request_error"}})
                return
            purpose = fields.get("purpose", (None, b"batch"))[1].decode("utf-8")
            self._json(200, api.add_file(fields["file"][1], fields["file"][0] or "upload.jsonl", purpose))
            return
        try:
            request = json.loads(raw or b"{}")
        except ValueError:
            self._json(400, {"error": {"message": "invalid JSON body", "type": "invalid_request_error"}})
            return
        if not isinstance(request, dict):
            self._json(400, {"error": {"message": "the body is not a JSON object", "type": "invalid_request_error"}})
            return
        chat = self.path.rstrip("/").endswith("chat/completions")
        if chat and not (isinstance(request.get("messages"), list)
                         and all(isinstance(m, dict) for m in request["messages"])):
            self._json(400, {"error": {"message": "'messages' is a required property (a list of messages)",
                                       "type": "invalid_request_error", "param": "messages"}})
            return  # not logged: server.requests holds only well-formed requests
        request["_path"] = self.path
        request["_auth"] = self.headers.get("Authorization", "")
        api._state.requests.append(request)
        if path.endswith("/batches"):
            if self._authorised():
                self._json(*api.create_batch(request))
            return
        if not chat:
            self._json(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})
            return
        state = api._state
        if state.require_key is not None and request["_auth"] != f"Bearer {state.require_key}":
            self._json(401, {"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error",
                                       "code": "invalid_api_key"}})
            return
        model = str(request.get("model", ""))
        if state.models is not None and model not in state.models:
            self._json(404, {"error": {"message": f"The model `{model}` does not exist.",
                                       "type": "invalid_request_error", "code": "model_not_found"}})
            return
        behaviour = api._next_behaviour() or {}
        if behaviour.get("wait") is not None:
            behaviour["wait"].wait(timeout=60)
        if behaviour.get("delay"):
            time.sleep(float(behaviour["delay"]))
        status = behaviour.get("status")
        if status:
            messages = {401: "Incorrect API key provided.", 404: f"The model `{model}` does not exist.",
                        429: "Rate limit reached for requests.", 500: "The server had an error.",
                        503: "The server is overloaded."}
            headers = {"Retry-After": str(behaviour.get("retry_after", 0))} if status == 429 else {}
            self._json(status, {"error": {"message": messages.get(status, "error"), "type": "server_error",
                                          "code": None}}, headers)
            return
        if "body" in behaviour:  # a canned reply of any shape (garbage a client must survive)
            canned = behaviour["body"]
            data = canned if isinstance(canned, bytes) else json.dumps(canned).encode("utf-8")
            self._bytes(200, data, str(behaviour.get("content_type", "application/json")))
            return
        prompt_tokens = sum(len(str(m.get("content", ""))) for m in request.get("messages", [])) // 4
        if behaviour.get("context_error") or (state.context_limit and prompt_tokens > state.context_limit):
            limit = state.context_limit or 1000
            self._json(400, {"error": {"message": f"This model's maximum context length is {limit} tokens. However, "
                                                  f"your messages resulted in {prompt_tokens} tokens.",
                                       "type": "invalid_request_error", "code": "context_length_exceeded"}})
            return
        if schema_of(request) is not None and state.json_schema == "reject":
            self._json(400, {"error": {"message": "response_format json_schema is not supported by this server",
                                       "type": "invalid_request_error", "code": None}})
            return
        if behaviour.get("no_choices"):
            self._json(200, {"id": "chatcmpl-stub", "object": "chat.completion", "created": int(time.time()),
                             "model": model, "choices": []})
            return
        if "content" in behaviour:
            content, completion_tokens = str(behaviour["content"]), max(1, len(str(behaviour["content"])) // 4)
        elif behaviour.get("empty"):
            content, completion_tokens = "", 0
        else:
            try:
                content, completion_tokens = api.answer(request)
            except Exception as exc:
                self._json(500, {"error": {"message": f"stub answer failed: {exc!r}", "type": "server_error"}})
                return
        self._json(200, {
            "id": "chatcmpl-stub", "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens},
        })

    def _json(self, status: int, body: dict, headers: dict[str, str] | None = None) -> None:
        self._bytes(status, json.dumps(body).encode("utf-8"), "application/json", headers)

    def _bytes(self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test); nothing to do
