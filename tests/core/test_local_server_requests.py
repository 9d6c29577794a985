"""The local OpenAI-compatible server logs only whole, well-formed chat requests (issue 19).

A client killed mid-request left a request without messages in ``server.requests`` (an empty body
read as ``{}``), and a test counting the prompts the server received failed with KeyError once in
a few runs.  Here such requests are sent over a raw socket.
"""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest


def send_raw(server, data: bytes, *, read_reply: bool = True) -> bytes:
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(data)
        if not read_reply:
            return b""
        sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)


def post(path: str, body: bytes, length: int | None = None) -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body) if length is None else length}\r\n\r\n").encode() + body


def settle(server, count: int) -> None:
    """Wait (at most 5 s) until the handler threads are done: the server has logged ``count`` requests or will not."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and len(server.requests) < count:
        time.sleep(0.01)
    time.sleep(0.2)


def test_a_request_cut_off_by_a_killed_client_is_not_logged(llm_server):
    body = json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}).encode()
    send_raw(llm_server, post("/v1/chat/completions", b"", length=len(body)), read_reply=False)  # headers only
    send_raw(llm_server, post("/v1/chat/completions", body[:20], length=len(body)), read_reply=False)  # half
    settle(llm_server, 1)
    assert llm_server.requests == [] and llm_server.chat_requests == []
    reply = send_raw(llm_server, post("/v1/chat/completions", body))  # the same request whole is answered
    assert reply.startswith(b"HTTP/1.1 200") and len(llm_server.chat_requests) == 1
    assert llm_server.chat_requests[0]["messages"] == [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize("body", [b"", b"{}", b'{"model": "gpt-4o"}', b'{"messages": "hi"}', b'{"messages": [1]}',
                                  b"[1, 2]", b"not json"])
def test_a_chat_request_without_messages_is_refused_and_not_logged(llm_server, body):
    reply = send_raw(llm_server, post("/v1/chat/completions", body))
    assert reply.startswith(b"HTTP/1.1 400")
    assert llm_server.chat_requests == []


def test_a_held_reply_waits_for_its_event(llm_server, llm_settings):
    from core.llm.client import LlmClient

    gate = threading.Event()
    llm_server.enqueue({"wait": gate})
    replies = []
    thread = threading.Thread(target=lambda: replies.append(
        LlmClient(llm_settings).complete([{"role": "user", "content": "Reply with: ready"}])))
    thread.start()
    deadline = time.monotonic() + 5
    while not llm_server.chat_requests and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.1)
    assert len(llm_server.chat_requests) == 1 and not replies  # received, not answered
    gate.set()
    thread.join(timeout=5)
    assert len(replies) == 1
