"""A scripted LLM server on loopback, for testing the real SDKs against their own wire protocol.

``FakeLLMServer`` is a threaded ``http.server`` that answers ``POST /v1/chat/completions`` in
the OpenAI shape and ``POST /v1/messages`` in the Anthropic shape. Tests queue the replies they
want (``Reply``: content, 429 with ``Retry-After``, 500, a hang for timeouts, malformed JSON,
empty choices...), run the summarizer, then read what the server received from ``requests``.
Once the queue is empty the server answers with a default summary, so a test only scripts what
it cares about. Nothing here is mocked: the SDK opens real sockets and parses real bytes.
"""

from __future__ import annotations

import json
import socket
import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

__all__ = [
    "FakeLLMServer",
    "RecordedRequest",
    "Reply",
    "anthropic_message",
    "openai_completion",
    "unused_port",
]

DEFAULT_SUMMARY = "Facts: the user is Ann."
HANG_LIMIT = 30.0
"""A hanging reply never waits longer than this, so a broken test cannot block forever."""


def openai_completion(content: str | None, *, finish_reason: str = "stop") -> dict[str, Any]:
    """A Chat Completions response body with one choice."""
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "fake-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish_reason,
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def anthropic_message(
    *texts: str, stop_reason: str = "end_turn", blocks: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """A Messages API response body whose content is ``blocks`` or one text block per text."""
    content = blocks if blocks is not None else [{"type": "text", "text": t} for t in texts]
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": "fake-claude",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


@dataclass(frozen=True)
class Reply:
    """One scripted answer.

    ``body`` (JSON-encoded when not bytes) is sent with ``status`` and ``headers``. ``hang``
    keeps the connection open without answering until the client gives up (or the server
    stops); ``drop`` closes the connection without a response.
    """

    status: int = 200
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    hang: bool = False
    drop: bool = False

    @classmethod
    def openai(cls, content: str | None, *, finish_reason: str = "stop") -> Reply:
        return cls(body=openai_completion(content, finish_reason=finish_reason))

    @classmethod
    def anthropic(cls, *texts: str, stop_reason: str = "end_turn") -> Reply:
        return cls(body=anthropic_message(*texts, stop_reason=stop_reason))

    @classmethod
    def error(
        cls,
        status: int,
        message: str = "scripted failure",
        *,
        headers: Mapping[str, str] | None = None,
        code: str | None = None,
        error_type: str = "api_error",
    ) -> Reply:
        """An error in the shape both providers use: ``{"error": {"message", "type", ...}}``."""
        error: dict[str, Any] = {"message": message, "type": error_type}
        if code is not None:
            error["code"] = code
        return cls(status=status, body={"type": "error", "error": error}, headers=headers or {})

    @classmethod
    def rate_limited(cls, retry_after: str | None = "0") -> Reply:
        headers = {} if retry_after is None else {"Retry-After": retry_after}
        return cls.error(429, "rate limited", headers=headers, error_type="rate_limit_error")

    @classmethod
    def malformed(cls) -> Reply:
        return cls(body=b'{"choices": [ this is not json')

    @classmethod
    def empty_choices(cls) -> Reply:
        body = openai_completion("unused")
        body["choices"] = []
        return cls(body=body)


@dataclass(frozen=True)
class RecordedRequest:
    """What the server received: method, path, headers (lower-cased names) and JSON body."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any


def unused_port() -> int:
    """A loopback port with nothing listening on it (for connection-refused tests)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output clean."""

    def do_GET(self) -> None:
        self._send(Reply(status=404, body={"error": {"message": "not found"}}))

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw
        owner = self.server.owner
        reply = owner._record_and_pop(
            RecordedRequest(
                method="POST",
                path=self.path,
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body,
            )
        )
        if reply is None:
            reply = self._default_reply()
        if reply.hang:
            owner._release.wait(HANG_LIMIT)
            self.close_connection = True
            return
        if reply.drop:
            self.close_connection = True
            return
        self._send(reply)

    def _default_reply(self) -> Reply:
        if self.path.rstrip("/").endswith("/messages"):
            return Reply.anthropic(DEFAULT_SUMMARY)
        if self.path.rstrip("/").endswith("/chat/completions"):
            return Reply.openai(DEFAULT_SUMMARY)
        return Reply.error(404, f"no route {self.path}")

    def _send(self, reply: Reply) -> None:
        if isinstance(reply.body, bytes):
            data = reply.body
        else:
            data = json.dumps(reply.body, ensure_ascii=False).encode()
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: FakeLLMServer


class FakeLLMServer:
    """A threaded HTTP server on 127.0.0.1 answering from a queue of ``Reply`` and recording
    every request. Use it as a context manager, or ``start()`` / ``stop()``.

    Example:
        >>> with FakeLLMServer() as server:
        ...     server.enqueue(Reply.rate_limited(), Reply.openai("ok"))
        ...     # point an SDK at server.openai_base_url, then read server.requests
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queue: deque[Reply] = deque()
        self._requests: list[RecordedRequest] = []
        self._release = threading.Event()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` (what the Anthropic SDK takes)."""
        if self._httpd is None:
            raise RuntimeError("server not started")
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def openai_base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1`` (what the OpenAI SDK takes)."""
        return self.base_url + "/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of the requests received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    def enqueue(self, *replies: Reply) -> None:
        """Answer the next requests with ``replies``, in order."""
        with self._lock:
            self._queue.extend(replies)

    def reset(self) -> None:
        """Forget queued replies and recorded requests."""
        with self._lock:
            self._queue.clear()
            self._requests.clear()

    def _record_and_pop(self, request: RecordedRequest) -> Reply | None:
        with self._lock:
            self._requests.append(request)
            return self._queue.popleft() if self._queue else None

    def start(self) -> FakeLLMServer:
        httpd = _Server(("127.0.0.1", 0), _Handler)
        httpd.owner = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._release.set()  # let hanging handlers finish so server_close() can join them
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
