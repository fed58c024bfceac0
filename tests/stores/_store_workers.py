"""Code the store tests run in threads and in spawned processes (so it must be importable)."""

from __future__ import annotations

import random
import time
import uuid
from typing import NamedTuple

from chatfold.stores import BaseStore, MemoryStore, PostgresStore, RedisStore, SQLiteStore


class StoreSpec(NamedTuple):
    """How to open a store: picklable, so a child process can open its own."""

    kind: str
    location: str


def open_store(spec: StoreSpec, namespace: str) -> BaseStore:
    if spec.kind == "memory":
        return MemoryStore(namespace=namespace)
    if spec.kind == "sqlite":
        return SQLiteStore(spec.location, namespace=namespace)
    if spec.kind == "postgres":
        return PostgresStore(spec.location, namespace=namespace, pool_size=2)
    if spec.kind == "redis":
        return RedisStore(spec.location, namespace=namespace)
    raise ValueError(spec.kind)


def new_namespace() -> str:
    """A namespace no other test uses."""
    return "t-" + uuid.uuid4().hex[:16]


def _cleanup(store: BaseStore) -> None:
    for cid in store.list_conversations():
        store.delete(cid)
    client = getattr(store, "_client", None)
    keys = getattr(store, "_keys", None)
    if client is not None and keys is not None:  # Redis: the namespace's layout key too
        client.delete(keys.schema)


_ROOTS: dict[StoreSpec, BaseStore] = {}
"""One store per server for the whole session; tests get theirs from ``with_namespace``, which
shares its connection pool (opening a pool per test would dominate the suite's time)."""


def close_roots() -> None:
    while _ROOTS:
        _, root = _ROOTS.popitem()
        root.close()


class Backend:
    """Opens stores of one backend; empties and closes them after the test."""

    def __init__(self, spec: StoreSpec) -> None:
        self.spec = spec
        self.kind = spec.kind
        self._opened: list[BaseStore] = []

    def open(self, namespace: str) -> BaseStore:
        if self.kind not in ("postgres", "redis"):
            return self.track(open_store(self.spec, namespace))
        root = _ROOTS.get(self.spec)
        if root is None:
            root = _ROOTS[self.spec] = open_store(self.spec, "chatfold-test-root")
        return self.track(root.with_namespace(namespace))

    def track(self, store: BaseStore) -> BaseStore:
        self._opened.append(store)
        return store

    def close_all(self) -> None:
        for store in reversed(self._opened):
            if not store.closed:
                _cleanup(store)
                store.close()


def warm_up() -> None:
    """Pool initializer: load the client libraries before the timed part of a test."""
    import psycopg  # noqa: F401
    import psycopg_pool  # noqa: F401
    import redis  # noqa: F401


def write(
    store: BaseStore, conversation_id: str, writer: str, count: int, start_at: float
) -> list[list[int]]:
    """Append ``count`` messages tagged ``writer`` in batches of 1-3; returns each batch's seqs.

    Waits until ``start_at`` (a ``time.time()``) so threads and processes start together.
    """
    rng = random.Random(writer)
    time.sleep(max(0.0, start_at - time.time()))
    batches: list[list[int]] = []
    i = 0
    while i < count:
        size = min(rng.randint(1, 3), count - i)
        batch = [
            {"role": "user", "content": f"{writer} #{i + k} 你好 🙂", "writer": writer, "i": i + k}
            for k in range(size)
        ]
        batches.append(store.append(conversation_id, batch))
        i += size
    return batches


def write_in_process(
    spec: StoreSpec, namespace: str, conversation_id: str, writer: str, count: int, start_at: float
) -> list[list[int]]:
    """:func:`write` with a store of this process's own."""
    with open_store(spec, namespace) as store:
        return write(store, conversation_id, writer, count, start_at)
