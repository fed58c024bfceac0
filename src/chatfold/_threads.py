"""chatfold's own bounded worker threads, one pool per kind of blocking work.

Async code runs blocking calls (a sync summarizer, a store's database driver) in a thread. In
asyncio's default executor they would share the application's threads and each other's: a sync
summarizer that hangs past ``summarizer_timeout`` keeps its thread, and a few of those would
leave an unrelated conversation's ``aappend`` waiting for a free one. So summarizer calls and
store I/O each get a pool of their own, bounded: a hung summarizer can only ever hold the
summarizer pool's threads (later calls queue there and time out as ``SummarizerError``).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import ParamSpec, TypeVar

__all__ = ["STORE_THREADS", "SUMMARIZER_THREADS", "ThreadPool"]

_P = ParamSpec("_P")
_T = TypeVar("_T")


class ThreadPool:
    """A lazily started, bounded ``ThreadPoolExecutor`` that a forked child replaces with its
    own (a child inherits the parent's pool object but none of its threads)."""

    def __init__(self, name: str, max_workers: int) -> None:
        self.name = name
        self.max_workers = max_workers
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._pid = 0

    def executor(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None or self._pid != os.getpid():
                self._pool = ThreadPoolExecutor(self.max_workers, thread_name_prefix=self.name)
                self._pid = os.getpid()
            return self._pool

    def submit(self, fn: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> Future[_T]:
        """Run ``fn`` in the pool (from sync code)."""
        return self.executor().submit(fn, *args, **kwargs)

    async def run(self, fn: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        """Await ``fn`` run in the pool, with the caller's context variables (as
        ``asyncio.to_thread`` does)."""
        call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(self.executor(), call)


SUMMARIZER_THREADS = ThreadPool("chatfold-summarizer", 8)
"""Sync summarizer calls made from async code, and sync calls with a timeout."""

STORE_THREADS = ThreadPool("chatfold-store", 16)
"""The blocking stores' async twins (SQLite, PostgreSQL, Redis)."""
