"""Shared fixtures: a fake summarizer that records its calls, and a sync/async driver."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from chatfold import Folder, FoldResult

from helpers import FakeSummarizer

# Property tests draw the same examples on every run (CI must not pass or fail by luck) and keep
# no example database between runs. HYPOTHESIS_PROFILE=explore draws new ones when hunting bugs.
settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore", database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))  # the seed's reference implementation lives there

_ENV_PREFIXES = ("CHATFOLD_", "OPENAI_", "ANTHROPIC_")
_ENV_KEEP = {
    "CHATFOLD_TEST_POSTGRES_URL",
    "CHATFOLD_TEST_REDIS_URL",
    "CHATFOLD_TEST_LLAMA_URL",
    "CHATFOLD_TEST_GGUF",
    "CHATFOLD_REQUIRE_LLAMA",
}


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees the developer's keys or chatfold settings."""
    for key in list(os.environ):
        if key.startswith(_ENV_PREFIXES) and key not in _ENV_KEEP:
            monkeypatch.delenv(key, raising=False)


@pytest.fixture
def fake() -> FakeSummarizer:
    return FakeSummarizer()


@pytest.fixture(params=["sync", "async"])
def driver(request: pytest.FixtureRequest) -> Callable[..., FoldResult]:
    """Run ``folder.fold`` or ``folder.afold`` with one test body."""

    def run(folder: Folder, messages: Any, **kwargs: Any) -> FoldResult:
        if request.param == "sync":
            return folder.fold(messages, **kwargs)
        return asyncio.run(folder.afold(messages, **kwargs))

    return run


@pytest.fixture
def caplog_chatfold(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    caplog.set_level("DEBUG", logger="chatfold")
    yield caplog
