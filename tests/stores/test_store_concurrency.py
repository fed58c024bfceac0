"""Concurrent writers, folds and leases: nothing lost, nothing duplicated, seqs gap-free."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.pool import Pool
from pathlib import Path
from typing import Any

import pytest
from _store_workers import Backend, write, write_in_process

from chatfold import FoldConflictError
from chatfold.stores import BaseStore, FoldState, SQLiteStore
from chatfold.stores.sqlite import MIGRATIONS

THREADS = 4
PROCESSES = 2
PER_WRITER = 30


def check_log(store: BaseStore, cid: str, results: dict[str, list[list[int]]]) -> None:
    """Every message exactly once, in order per writer, each batch contiguous, seqs 1..n."""
    entries = store.entries(cid)
    total = sum(len(seqs) for batches in results.values() for seqs in batches)
    assert [e.seq for e in entries] == list(range(1, total + 1))
    assert store.last_seq(cid) == total
    by_writer: dict[str, list[int]] = defaultdict(list)
    for entry in entries:
        by_writer[entry.message["writer"]].append(entry.message["i"])
    assert set(by_writer) == set(results)
    for writer, numbers in by_writer.items():
        assert numbers == list(range(PER_WRITER)), writer  # once each, in the writer's order
    by_seq = {e.seq: e.message for e in entries}
    for writer, batches in results.items():
        assert sorted(s for b in batches for s in b) == [
            s for b in batches for s in b
        ]  # a writer's batches come back in increasing order
        for batch in batches:
            assert batch == list(range(batch[0], batch[0] + len(batch)))  # contiguous
            assert {by_seq[s]["writer"] for s in batch} == {writer}


def test_threads_append_concurrently(backend: Backend, namespace: str) -> None:
    store = backend.open(namespace)
    start_at = time.time() + 0.05
    with ThreadPoolExecutor(THREADS) as pool:
        futures = {
            f"t{k}": pool.submit(write, store, "busy", f"t{k}", PER_WRITER, start_at)
            for k in range(THREADS)
        }
        results = {writer: f.result() for writer, f in futures.items()}
    check_log(store, "busy", results)


def test_threads_and_processes_append_concurrently(
    shared_backend: Backend, namespace: str, process_pool: Pool
) -> None:
    store = shared_backend.open(namespace)
    store.append("busy", [])  # created up front, so every writer races on appends only
    start_at = time.time() + 0.3  # the pool's workers are warm: they start on time
    async_results = {
        f"p{k}": process_pool.apply_async(
            write_in_process,
            (shared_backend.spec, namespace, "busy", f"p{k}", PER_WRITER, start_at),
        )
        for k in range(PROCESSES)
    }
    with ThreadPoolExecutor(THREADS) as pool:
        futures = {
            f"t{k}": pool.submit(write, store, "busy", f"t{k}", PER_WRITER, start_at)
            for k in range(THREADS)
        }
        results = {writer: f.result() for writer, f in futures.items()}
    results.update({writer: r.get(timeout=60) for writer, r in async_results.items()})
    check_log(store, "busy", results)


def test_appends_race_with_folds(backend: Backend, namespace: str) -> None:
    """Folds advancing the state while writers append never lose or reorder a message."""
    store = backend.open(namespace)
    store.append("busy", [])
    stop = threading.Event()
    outcomes: dict[str, int] = defaultdict(int)

    def folder(name: str) -> None:
        while not stop.is_set():
            state = store.load_state("busy")
            last = store.last_seq("busy")
            new = FoldState(
                summary=f"{name} covered {last}", covered_through=last, version=state.version + 1
            )
            try:
                store.save_state("busy", new, expected_version=state.version)
                outcomes["won"] += 1
            except FoldConflictError:
                outcomes["lost"] += 1
            time.sleep(0.002)  # folds are rare next to appends; do not starve the writers

    start_at = time.time() + 0.05
    folders = [threading.Thread(target=folder, args=(f"f{k}",)) for k in range(2)]
    for thread in folders:
        thread.start()
    try:
        with ThreadPoolExecutor(THREADS) as pool:
            futures = {
                f"t{k}": pool.submit(write, store, "busy", f"t{k}", PER_WRITER, start_at)
                for k in range(THREADS)
            }
            results = {writer: f.result() for writer, f in futures.items()}
    finally:
        stop.set()
        for thread in folders:
            thread.join()
    check_log(store, "busy", results)
    state = store.load_state("busy")
    assert state.version == outcomes["won"] >= 1
    assert state.covered_through <= store.last_seq("busy")


def test_exactly_one_compare_and_set_wins(backend: Backend, namespace: str) -> None:
    store = backend.open(namespace)
    store.append("c1", [{"role": "user", "content": "x"}])
    barrier = threading.Barrier(6)

    def attempt(k: int) -> str:
        barrier.wait()
        try:
            store.save_state("c1", FoldState(summary=f"by {k}", version=1), expected_version=0)
        except FoldConflictError as exc:
            assert exc.actual_version == 1
            return "lost"
        return f"won {k}"

    with ThreadPoolExecutor(6) as pool:
        outcomes = list(pool.map(attempt, range(6)))
    winners = [o for o in outcomes if o.startswith("won")]
    assert len(winners) == 1
    assert store.load_state("c1").summary == "by " + winners[0].split()[1]


def test_exactly_one_lease_holder(backend: Backend, namespace: str) -> None:
    store = backend.open(namespace)
    barrier = threading.Barrier(6)

    def attempt(k: int) -> bool:
        barrier.wait()
        return store.acquire_lease("c1", f"owner-{k}", 30)

    with ThreadPoolExecutor(6) as pool:
        outcomes = list(pool.map(attempt, range(6)))
    assert outcomes.count(True) == 1


def test_async_appends_interleave_safely(backend: Backend, namespace: str) -> None:
    store = backend.open(namespace)

    async def main() -> list[list[int]]:
        async def one(k: int) -> list[int]:
            return await store.aappend("c1", [{"k": k, "part": 0}, {"k": k, "part": 1}])

        return list(await asyncio.gather(*(one(k) for k in range(20))))

    batches = asyncio.run(main())
    assert sorted(s for b in batches for s in b) == list(range(1, 41))
    by_seq: dict[int, Any] = {e.seq: e.message for e in store.entries("c1")}
    for k, batch in enumerate(batches):
        assert batch[1] == batch[0] + 1
        assert by_seq[batch[0]] == {"k": k, "part": 0}
        assert by_seq[batch[1]] == {"k": k, "part": 1}


def test_sqlite_stores_opening_a_fresh_file_together_migrate_once(fast_dir: Path) -> None:
    path = fast_dir / "fresh.db"
    barrier = threading.Barrier(4)

    def open_and_append(k: int) -> list[int]:
        barrier.wait()
        with SQLiteStore(path, namespace=f"n{k}") as store:
            return store.append("c1", [{"k": k}])

    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(open_and_append, range(4))) == [[1]] * 4
    with SQLiteStore(path) as store:
        assert store.schema_version == len(MIGRATIONS)


def test_many_sqlite_stores_opening_fresh_files_at_once_never_find_them_locked(
    fast_dir: Path,
) -> None:
    # Switching a new file to WAL and its first BEGIN IMMEDIATE can report "database is
    # locked" at once, without the busy handler, when other connections open it meanwhile.
    # Rounds of 8 openers at once make that likely without the retry (the test below
    # checks the retry itself deterministically).
    for round_ in range(100):
        path = fast_dir / f"fresh-{round_}.db"
        barrier = threading.Barrier(8)

        def open_and_append(k: int, path: Path = path, barrier: threading.Barrier = barrier
                            ) -> list[int]:
            barrier.wait()
            with SQLiteStore(path, namespace=f"n{k}") as store:
                return store.append("c1", [{"k": k}])

        with ThreadPoolExecutor(8) as pool:
            assert list(pool.map(open_and_append, range(8))) == [[1]] * 8


def test_sqlite_retries_a_busy_error_that_skips_the_busy_handler(fast_dir: Path) -> None:
    # SQLite answers SQLITE_BUSY at once, without waiting, where waiting could deadlock; a
    # connection whose busy handler is off stands in for those paths here, deterministically.
    from chatfold.stores._sqlite_file import connect, retry_busy

    path = str(fast_dir / "busy.db")
    waiter = connect(path, timeout=10)
    waiter.execute("PRAGMA busy_timeout = 0")
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        waiter.execute("BEGIN IMMEDIATE")  # what the store used to turn into an error
    release = threading.Timer(0.2, lambda: holder.execute("COMMIT"))
    release.start()
    retry_busy(waiter, lambda: waiter.execute("BEGIN IMMEDIATE"))
    assert waiter.in_transaction
    waiter.execute("COMMIT")
    release.join()
    holder.close()
    waiter.close()
