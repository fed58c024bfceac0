"""A scripted OpenAI-compatible Chat Completions server on loopback, shared by the tests that
need a model endpoint (``chatfold chat`` in ``cli/``, agent runs in ``integrations/``).

Real sockets, real bytes: the ``openai`` SDK (in the test process or a child process) talks to
it exactly as to a real endpoint. For each ``POST /v1/chat/completions`` it records the body and
answers with the assistant message ``respond(body)`` returns. It can be told to hang (``hang``),
so a test can interrupt a client that is waiting for its reply; ``received`` is set by every
request.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

Reply = dict[str, Any]
"""The assistant message to answer with."""

HANG_LIMIT = 20.0
"""A hanging reply never waits longer than this."""


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        fake = self.server.fake
        with fake.lock:
            fake.requests.append(body)
        fake.received.set()
        if not self.path.endswith("/chat/completions"):
            self._send(404, {"error": {"message": "not found"}})
            return
        if fake.hang.is_set():
            fake.release.wait(HANG_LIMIT)
            return
        message = fake.respond(body)
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        self._send(200, {
            "id": f"chatcmpl-{len(fake.requests)}", "object": "chat.completion",
            "created": 1_700_000_000, "model": body.get("model", "fake"),
            "choices": [{"index": 0, "finish_reason": finish, "message": message}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        })

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: ChatCompletionsServer


class ChatCompletionsServer:
    """``with ChatCompletionsServer(respond) as server:`` then point a client at
    ``server.base_url``."""

    def __init__(self, respond: Callable[[dict[str, Any]], Reply]) -> None:
        self.respond = respond
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.received = threading.Event()
        self.hang = threading.Event()
        self.release = threading.Event()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
