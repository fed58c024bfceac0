"""Fixtures for the HTTP backends: a scripted loopback server and a sync/async runner."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _servers, _llama, _sdk_common

from _servers import FakeLLMServer

from chatfold import SummaryRequest

Runner = Callable[[Any, SummaryRequest], str]


@pytest.fixture(scope="session")
def _empty_ca_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("no-ca")


@pytest.fixture(autouse=True)
def _no_ca_bundle(monkeypatch: pytest.MonkeyPatch, _empty_ca_dir: Path) -> None:
    """Every SDK client loads the CA bundle when created (60-100 ms, most of these tests' CPU
    time). These tests only speak plain HTTP on loopback: an empty CA directory will do."""
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.setenv("SSL_CERT_DIR", str(_empty_ca_dir))


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    """A fresh scripted server on 127.0.0.1 for one test."""
    with FakeLLMServer() as srv:
        yield srv


@pytest.fixture
def small_request() -> SummaryRequest:
    return SummaryRequest(
        previous_summary="Facts:\n- The user is Ann.",
        messages=[
            {"role": "user", "content": "I moved to Lyon on 2024-03-01, order #A-1093."},
            {"role": "assistant", "content": "Noted: Lyon since 2024-03-01."},
        ],
        language="en",
        max_tokens=120,
    )


@pytest.fixture(params=["sync", "async"])
def run(request: pytest.FixtureRequest) -> Runner:
    """Call ``summarize`` or ``asummarize`` with one test body.

    The async flavour runs in its own event loop and closes the summarizer's async client
    inside that loop (an async HTTP pool must be closed on the loop that opened it).
    """

    def sync(summarizer: Any, req: SummaryRequest) -> str:
        return summarizer.summarize(req)  # type: ignore[no-any-return]

    def in_loop(summarizer: Any, req: SummaryRequest) -> str:
        async def go() -> str:
            try:
                return await summarizer.asummarize(req)  # type: ignore[no-any-return]
            finally:
                await summarizer.aclose()

        return asyncio.run(go())

    return sync if request.param == "sync" else in_loop


# -- a real llama.cpp server (see _llama.py) ----------------------------------------------

LLAMA_STARTUP_LIMIT = 120.0


@pytest.fixture
def real_request() -> SummaryRequest:
    """One request for every real-model test: llama.cpp caches the shared prompt prefix, so
    only the first test pays for reading the ~450-token prompt."""
    return SummaryRequest(
        previous_summary="",
        messages=[
            {"role": "user", "content": "My name is Ann and I live in Lyon."},
            {"role": "assistant", "content": "Nice to meet you, Ann."},
        ],
        language="en",
        max_tokens=24,
    )


def _llama_unavailable(reason: str) -> None:
    """Skip, or fail when the run requires the real model (``CHATFOLD_REQUIRE_LLAMA=1``)."""
    message = f"real llama.cpp server unavailable: {reason}"
    if os.environ.get("CHATFOLD_REQUIRE_LLAMA") == "1":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def llama_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``http://127.0.0.1:PORT`` of a llama.cpp server running SmolLM2-135M-Instruct.

    ``CHATFOLD_TEST_LLAMA_URL`` points at a server already running; otherwise one is started
    from ``xllamacpp`` (the ``test-llm`` extra) and the GGUF that ``_llama.py fetch`` put in
    ``.cache/models/``, and stopped at the end of the session. Without them the tests skip.
    """
    external = os.environ.get("CHATFOLD_TEST_LLAMA_URL")
    if external:
        yield external.rstrip("/")
        return
    import _llama

    if importlib.util.find_spec("xllamacpp") is None:
        _llama_unavailable("xllamacpp is not installed (pip install xllamacpp)")
    model = _llama.model_path()
    if not model.is_file():
        _llama_unavailable(f"no model at {model} (run: python tests/summarizers/_llama.py fetch)")
    log_path = tmp_path_factory.mktemp("llama") / "server.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, _llama.__file__, "serve", "--model", str(model)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
    try:
        url = _await_ready(proc, log_path)
        yield url
    finally:
        _stop(proc)


def _await_ready(proc: subprocess.Popen[str], log_path: Path) -> str:
    found: list[str] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("LISTENING "):
                found.append(line.split(" ", 1)[1].strip())
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(LLAMA_STARTUP_LIMIT)
    if not found:
        _stop(proc)
        tail = log_path.read_text(errors="replace")[-2000:]
        pytest.fail(f"llama.cpp server did not start (exit {proc.returncode}):\n{tail}")
    return found[0]


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        assert proc.stdin is not None
        proc.stdin.close()  # the server stops when its stdin closes
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
    if proc.stdout is not None:
        proc.stdout.close()
