"""Fixtures of the store suite: one contract, four backends, real loopback servers.

PostgreSQL and Redis come from ``CHATFOLD_TEST_POSTGRES_URL`` / ``CHATFOLD_TEST_REDIS_URL``
(``scripts/with-services.sh`` starts throwaway servers and sets them). When a URL is unset
its tests skip, except under ``CI=true``, where they fail: CI must test every backend.
Every test gets its own namespace, so tests never see each other's conversations.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from multiprocessing.pool import Pool
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _store_workers import Backend, StoreSpec, close_roots, new_namespace, warm_up

from chatfold.stores import BaseStore

BACKENDS = ("memory", "sqlite", "postgres", "redis")
SHARED_BACKENDS = ("sqlite", "postgres", "redis")


def server_url(variable: str, what: str) -> str:
    """The URL in ``variable``; skip (or fail under CI=true) when it is unset."""
    url = os.environ.get(variable, "")
    if url:
        return url
    reason = f"{variable} is not set: run under scripts/with-services.sh to test the {what} store"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true and {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session", autouse=True)
def _close_shared_stores() -> Iterator[None]:
    yield
    close_roots()


@pytest.fixture
def postgres_url() -> str:
    return server_url("CHATFOLD_TEST_POSTGRES_URL", "PostgreSQL")


@pytest.fixture
def redis_url() -> str:
    return server_url("CHATFOLD_TEST_REDIS_URL", "Redis")


@pytest.fixture
def namespace() -> str:
    """A namespace no other test uses."""
    return new_namespace()


@pytest.fixture
def fast_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory on tmpfs when there is one: the disk's fsync (~12 ms a commit here) would
    dominate the SQLite tests, and the store's settings stay the defaults."""
    if not os.access("/dev/shm", os.W_OK):
        yield tmp_path
        return
    path = Path(tempfile.mkdtemp(prefix="chatfold-test-", dir="/dev/shm"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _spec(kind: str, request: pytest.FixtureRequest) -> StoreSpec:
    if kind == "memory":
        return StoreSpec("memory", "")
    if kind == "sqlite":
        return StoreSpec("sqlite", str(request.getfixturevalue("fast_dir") / "chatfold.db"))
    if kind == "postgres":
        return StoreSpec("postgres", request.getfixturevalue("postgres_url"))
    return StoreSpec("redis", request.getfixturevalue("redis_url"))


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    """Each of the four backends in turn."""
    opened = Backend(_spec(request.param, request))
    yield opened
    opened.close_all()


@pytest.fixture(params=SHARED_BACKENDS)
def shared_backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    """The backends several processes can share."""
    opened = Backend(_spec(request.param, request))
    yield opened
    opened.close_all()


@pytest.fixture
def store(backend: Backend, namespace: str) -> BaseStore:
    """A store of each backend, in a namespace of its own."""
    return backend.open(namespace)


class AsyncDriver:
    """Calls the ``a``-prefixed twin of each method and runs it to completion."""

    def __init__(self, store: BaseStore, runner: asyncio.Runner) -> None:
        self.store = store
        self._runner = runner

    def __getattr__(self, name: str) -> Callable[..., Any]:
        twin = getattr(self.store, "a" + name)

        def call(*args: Any, **kwargs: Any) -> Any:
            return self._runner.run(twin(*args, **kwargs))

        return call


@pytest.fixture(params=["sync", "async"])
def driven(request: pytest.FixtureRequest, store: BaseStore) -> Iterator[Any]:
    """The store itself (sync), or a wrapper calling its async twins: one test body, both."""
    if request.param == "sync":
        yield store
        return
    with asyncio.Runner() as runner:
        yield AsyncDriver(store, runner)


@pytest.fixture(scope="session")
def process_pool() -> Iterator[Pool]:
    """Two spawned worker processes, started once and shared by the multi-process tests."""
    ctx = multiprocessing.get_context("spawn")
    pool = ctx.Pool(2, initializer=warm_up)
    try:
        pool.map(time.sleep, [0.2, 0.2], chunksize=1)  # both workers up before any test times
        yield pool
    finally:
        pool.close()
        pool.join()
