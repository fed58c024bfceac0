"""SQLiteStore specifics: foreign and damaged files, migrations, locking, connections."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from chatfold import StoreCorruptError, StoreUnavailableError
from chatfold.stores import FoldState, SQLiteStore
from chatfold.stores.sqlite import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION, migrate


def _pragma(path: Path, name: str) -> object:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(f"PRAGMA {name}").fetchone()[0]
    finally:
        conn.close()


def test_a_text_file_is_not_a_store(fast_dir: Path) -> None:
    path = fast_dir / "notes.txt"
    path.write_text("meeting notes, definitely not a database\n" * 100)
    before = path.read_bytes()
    with pytest.raises(StoreCorruptError) as info:
        SQLiteStore(path)
    assert str(path) in str(info.value)
    assert isinstance(info.value.__cause__, sqlite3.DatabaseError)
    assert path.read_bytes() == before


def test_a_foreign_sqlite_database_is_refused_and_left_alone(fast_dir: Path) -> None:
    path = fast_dir / "app.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO users (name) VALUES ('ada')")
    conn.commit()
    conn.close()
    with pytest.raises(StoreCorruptError, match="not a chatfold store"):
        SQLiteStore(path)
    conn = sqlite3.connect(path)
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    conn.close()
    assert tables == ["users"]
    assert _pragma(path, "user_version") == 0
    assert _pragma(path, "application_id") == 0


def test_another_applications_empty_database_is_refused(fast_dir: Path) -> None:
    path = fast_dir / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA application_id = 12345")
    conn.close()
    with pytest.raises(StoreCorruptError, match="application_id 12345"):
        SQLiteStore(path)


def test_a_newer_schema_is_refused(fast_dir: Path) -> None:
    path = fast_dir / "new.db"
    SQLiteStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreCorruptError, match="upgrade chatfold"):
        SQLiteStore(path)


def test_damaged_pages_give_a_typed_error(fast_dir: Path) -> None:
    path = fast_dir / "damaged.db"
    with SQLiteStore(path) as store:
        store.append("c1", [{"content": "x" * 500, "i": i} for i in range(200)])
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    with path.open("r+b") as f:
        f.seek(4096 * 3)
        f.write(bytes(range(256)) * 80)
    with pytest.raises(StoreCorruptError, match="damaged"), SQLiteStore(path) as store:
        store.entries("c1")


def test_a_missing_table_is_reported_as_damage(fast_dir: Path) -> None:
    path = fast_dir / "partial.db"
    SQLiteStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE chatfold_entries")
    conn.close()
    with SQLiteStore(path) as store, pytest.raises(StoreCorruptError):
        store.entries("c1")


def test_a_stored_message_that_is_not_json_is_reported(fast_dir: Path) -> None:
    path = fast_dir / "badjson.db"
    with SQLiteStore(path) as store:
        store.append("c1", [{"a": 1}])
    conn = sqlite3.connect(path)
    conn.execute("UPDATE chatfold_entries SET message = '{not json'")
    conn.commit()
    conn.close()
    with SQLiteStore(path) as store, pytest.raises(StoreCorruptError, match="not valid JSON"):
        store.entries("c1")


def test_an_unopenable_path_is_unavailable(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "dir" / "chatfold.db"
    with pytest.raises(StoreUnavailableError) as info:
        SQLiteStore(missing)
    assert str(missing) in str(info.value)
    with pytest.raises(StoreUnavailableError):
        SQLiteStore(tmp_path)  # a directory


@pytest.mark.parametrize("path", ["", ":memory:"])
def test_in_memory_paths_are_refused(path: str) -> None:
    with pytest.raises(ValueError, match="MemoryStore"):
        SQLiteStore(path)


def _build_at(path: Path, version: int) -> None:
    """A file as an older chatfold left it, with a conversation in it (from version 1)."""
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, str(path), target=version)
    if version >= 1:
        conn.execute("BEGIN")
        conn.execute(
            "INSERT INTO chatfold_conversations VALUES ('default', 'old', 1.0, 2)",
        )
        conn.executemany(
            "INSERT INTO chatfold_entries VALUES ('default', 'old', ?, ?, 1.0)",
            [(1, '{"role":"user","content":"你好"}'), (2, '{"role":"assistant","content":"hi"}')],
        )
        state = FoldState(summary="old summary", covered_through=1, version=1)
        conn.execute(
            "INSERT INTO chatfold_states VALUES ('default', 'old', 1, ?)", (state.to_json(),)
        )
        conn.execute("COMMIT")
    conn.close()


@pytest.mark.parametrize("version", range(SCHEMA_VERSION))
def test_migrations_run_from_every_earlier_version(fast_dir: Path, version: int) -> None:
    path = fast_dir / f"v{version}.db"
    _build_at(path, version)
    assert _pragma(path, "user_version") == version

    with SQLiteStore(path) as store:
        assert _pragma(path, "user_version") == SCHEMA_VERSION == len(MIGRATIONS)
        assert _pragma(path, "application_id") == APPLICATION_ID
        if version >= 1:
            assert [e.message["content"] for e in store.entries("old")] == ["你好", "hi"]
            assert store.load_state("old").summary == "old summary"
            # Migration 3 indexed the entries already stored (recall's search).
            assert store.search("old", ["你好", "hi"], through_seq=2, max_df=5).hits == {
                "你好": ((1, 1),), "hi": ((2, 1),)}
            assert store.append("old", [{"role": "user", "content": "new"}]) == [3]
        assert store.acquire_lease("old", "me", 10) is True
        assert store.append("fresh", [{"a": 1}]) == [1]


def test_migration_failure_rolls_back_with_its_version(
    fast_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import chatfold.stores._sqlite_file as sqlite_file

    path = fast_dir / "half.db"
    _build_at(path, 1)
    broken = (*MIGRATIONS[:1], ("CREATE TABLE chatfold_leases (x)", "THIS IS NOT SQL"))
    monkeypatch.setattr(sqlite_file, "MIGRATIONS", broken)
    with pytest.raises(Exception):  # noqa: B017 - any error: what matters is the rollback
        SQLiteStore(path)
    assert _pragma(path, "user_version") == 1
    conn = sqlite3.connect(path)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    conn.close()
    assert "chatfold_leases" not in tables
    monkeypatch.undo()
    with SQLiteStore(path) as store:
        assert store.last_seq("old") == 2


def test_file_settings(fast_dir: Path) -> None:
    path = fast_dir / "settings.db"
    with SQLiteStore(path, timeout=7.5) as store:
        conn = store._conn()
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL: committed is kept
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 7500
    assert store.persistent and store.shared_across_processes
    assert not store.shared_across_machines


def test_a_held_write_lock_is_waited_for_then_reported(fast_dir: Path) -> None:
    path = fast_dir / "locked.db"
    with SQLiteStore(path, timeout=0.2) as store:
        other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreUnavailableError, match="locked"):
            store.append("c1", [{"a": 1}])
        assert store.entries("c1") == []  # WAL: readers never wait

        with SQLiteStore(path, timeout=5) as patient:  # opening needs no write lock
            release = threading.Timer(0.05, other.execute, ("COMMIT",))
            release.start()
            try:
                assert patient.append("c1", [{"a": 1}]) == [1]  # waited for the lock
            finally:
                release.join()
                other.close()


def test_each_thread_has_its_own_connection(fast_dir: Path) -> None:
    with SQLiteStore(fast_dir / "threads.db") as store:
        mine = store._conn()
        seen: list[sqlite3.Connection] = []
        thread = threading.Thread(target=lambda: seen.append(store._conn()))
        thread.start()
        thread.join()
        assert seen[0] is not mine
        assert len(store._conns) == 2
        # A new thread's connection retires the dead thread's one.
        thread = threading.Thread(target=store._conn)
        thread.start()
        thread.join()
        assert len(store._conns) == 2
        assert store._conn() is mine


def test_data_survives_reopening(fast_dir: Path) -> None:
    path = fast_dir / "persist.db"
    with SQLiteStore(path, namespace="tenant") as store:
        store.append("c1", [{"a": 1}])
        store.save_state("c1", FoldState(summary="s", version=1), expected_version=0)
    time.sleep(0)  # nothing cached anywhere but the file
    with SQLiteStore(path, namespace="tenant") as store:
        assert store.last_seq("c1") == 1
        assert store.load_state("c1").summary == "s"
    with SQLiteStore(path) as store:
        assert store.list_conversations() == []


def test_leases_trust_no_process_wall_clock(fast_dir: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    real = time.time
    path = fast_dir / "clocks.db"
    holder, contender = SQLiteStore(path), SQLiteStore(path)

    # A holder whose clock runs a day ahead takes a lease, then dies without releasing it.
    monkeypatch.setattr(time, "time", lambda: real() + 86_400)
    assert holder.acquire_lease("c1", "holder", 0.3) is True
    # A contender 10 minutes ahead: the lease is live, whatever either clock says...
    monkeypatch.setattr(time, "time", lambda: real() + 600)
    assert contender.acquire_lease("c1", "contender", 0.3) is False
    # ...and expired once the contender has watched it unchanged for its TTL (not in a day).
    time.sleep(0.4)
    assert contender.acquire_lease("c1", "contender", 0.3) is True

    # A live lease is never taken by a process whose clock runs 10 minutes ahead.
    monkeypatch.setattr(time, "time", real)
    assert holder.acquire_lease("c2", "holder", 300) is True
    monkeypatch.setattr(time, "time", lambda: real() + 600)
    assert contender.acquire_lease("c2", "contender", 300) is False

    # A holder that renews (a new token each time) is never taken over, however long it holds.
    assert holder.acquire_lease("c3", "holder", 0.3) is True
    for _ in range(5):
        assert contender.acquire_lease("c3", "contender", 0.3) is False
        time.sleep(0.1)
        assert holder.acquire_lease("c3", "holder", 0.3) is True
    holder.close()
    contender.close()


def test_a_process_watching_a_lease_sees_it_expire_through_new_store_objects(
    fast_dir: Path,
) -> None:
    path = fast_dir / "per-request.db"
    with SQLiteStore(path) as dead:
        assert dead.acquire_lease("c1", "dead", 0.2) is True
    with SQLiteStore(path) as request_1:
        assert request_1.acquire_lease("c1", "live", 30) is False
    time.sleep(0.3)
    with SQLiteStore(path) as request_2:
        assert request_2.acquire_lease("c1", "live", 30) is True


@pytest.mark.parametrize(("synchronous", "code"), [(None, 2), ("FULL", 2), ("NORMAL", 1),
                                                   ("OFF", 0)])
def test_synchronous_is_set_on_every_connection(fast_dir: Path, synchronous: str | None,
                                                code: int) -> None:
    kwargs = {} if synchronous is None else {"synchronous": synchronous}
    with SQLiteStore(fast_dir / "sync.db", **kwargs) as store:  # type: ignore[arg-type]
        assert store.synchronous == (synchronous or "FULL")
        seen = [store._conn().execute("PRAGMA synchronous").fetchone()[0]]
        thread = threading.Thread(
            target=lambda: seen.append(store._conn().execute("PRAGMA synchronous").fetchone()[0]))
        thread.start()
        thread.join()
        with store.with_namespace("other") as other:
            seen.append(other._conn().execute("PRAGMA synchronous").fetchone()[0])
            assert other.synchronous == store.synchronous
    assert seen == [code, code, code]


def test_an_unknown_synchronous_setting_is_refused(fast_dir: Path) -> None:
    from chatfold import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match="synchronous"):
        SQLiteStore(fast_dir / "x.db", synchronous="EXTRA")  # type: ignore[arg-type]
    assert not (fast_dir / "x.db").exists()
