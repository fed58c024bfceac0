"""A scripted OpenAI-compatible Chat Completions server on loopback, for agent runs.

Real sockets: the framework's ``openai`` client talks to it as to a real endpoint. For each
``POST /v1/chat/completions`` it records the body and answers with ``respond(body)``: a
tool call while the latest message is the user's, the final answer once the tool's result
is in (see :func:`weather_agent_reply`).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = dict[str, Any]


def weather_agent_reply(body: dict[str, Any]) -> Reply:
    """Call ``get_weather`` for the city of the latest user turn, then answer."""
    messages = body.get("messages", [])
    users = [m for m in messages if m.get("role") == "user"]
    text = str(users[-1].get("content")) if users else ""
    turn = re.search(r"Turn (\d+): I am flying to (\w+)", text)
    t, city = (int(turn.group(1)), turn.group(2)) if turn else (-1, "nowhere")
    if messages and messages[-1].get("role") == "tool":
        return {"role": "assistant",
                "content": f"Answer {t}: {city} will be rainy after three, take an umbrella."}
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": f"call_{t}", "type": "function",
         "function": {"name": "get_weather", "arguments": json.dumps({"city": city})}}]}


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
        if not self.path.endswith("/chat/completions"):
            self._send(404, {"error": {"message": "not found"}})
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
    fake: ChatServer


class ChatServer:
    """``with ChatServer() as server:`` then point a client at ``server.base_url``."""

    def __init__(self, respond: Callable[[dict[str, Any]], Reply] = weather_agent_reply) -> None:
        self.respond = respond
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
