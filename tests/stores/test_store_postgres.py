"""PostgresStore specifics: unreachable servers, migrations, schemas, the shared pool."""

from __future__ import annotations

import socket
import time
import uuid
from collections.abc import Iterator
from urllib.parse import urlsplit, urlunsplit

import pytest

from chatfold import StoreCorruptError, StoreError, StoreUnavailableError
from chatfold.stores import FoldState, PostgresStore
from chatfold.stores.postgres import MIGRATIONS, SCHEMA_VERSION, migrate

psycopg = pytest.importorskip("psycopg")


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def with_password(url: str, password: str) -> str:
    parts = urlsplit(url)
    netloc = f"{parts.username}:{password}@{parts.hostname}:{parts.port}"
    return urlunsplit(parts._replace(netloc=netloc))


def test_an_unreachable_server_is_reported_quickly() -> None:
    url = f"postgresql://chatfold:s3cret-pw@127.0.0.1:{closed_port()}/chatfold"
    started = time.monotonic()
    with pytest.raises(StoreUnavailableError) as info:
        PostgresStore(url, connect_timeout=1)
    assert time.monotonic() - started < 5
    message = str(info.value)
    assert "s3cret-pw" not in message
    assert f"postgresql://chatfold:***@127.0.0.1:{url.rsplit(':', 1)[1]}" in message
    assert isinstance(info.value.__cause__, psycopg.OperationalError)


def test_a_wrong_password_is_unavailable_and_masked(postgres_url: str) -> None:
    url = with_password(postgres_url, "wrong-password-123")
    with pytest.raises(StoreUnavailableError) as info:
        PostgresStore(url, connect_timeout=2)
    assert "wrong-password-123" not in str(info.value)
    assert "***" in str(info.value)


def test_repr_hides_the_password(postgres_url: str) -> None:
    password = urlsplit(postgres_url).password
    with PostgresStore(postgres_url, namespace="repr-test") as store:
        assert password and password not in repr(store)
        assert "repr-test" in repr(store)


@pytest.fixture
def schema(postgres_url: str) -> Iterator[str]:
    """A schema of its own, dropped afterwards: migrations need an empty database."""
    name = "chatfold_t_" + uuid.uuid4().hex[:12]
    yield name
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")


def _connect(url: str, schema: str) -> psycopg.Connection:
    conn = psycopg.connect(url, autocommit=True, options=f"-c search_path={schema}")
    conn.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
    return conn


@pytest.mark.parametrize("version", range(SCHEMA_VERSION))
def test_migrations_run_from_every_earlier_version(
    postgres_url: str, schema: str, version: int
) -> None:
    with _connect(postgres_url, schema) as conn:
        migrate(conn, target=version)
        if version >= 1:
            conn.execute("INSERT INTO chatfold_conversations VALUES ('default', 'old', 1.0, 2)")
            conn.execute(
                "INSERT INTO chatfold_entries VALUES ('default', 'old', 1, %s, 1.0), "
                "('default', 'old', 2, %s, 1.0)",
                ('{"role":"user","content":"你好"}', '{"role":"assistant","content":"hi"}'),
            )
            state = FoldState(summary="old summary", covered_through=1, version=1)
            conn.execute(
                "INSERT INTO chatfold_states VALUES ('default', 'old', 1, %s)", (state.to_json(),)
            )

    with PostgresStore(postgres_url, schema=schema) as store:
        if version >= 1:
            assert [e.message["content"] for e in store.entries("old")] == ["你好", "hi"]
            assert store.load_state("old").summary == "old summary"
            assert store.append("old", [{"role": "user", "content": "new"}]) == [3]
        assert store.acquire_lease("old", "me", 10) is True
        assert store.append("fresh", [{"a": 1}]) == [1]

    with _connect(postgres_url, schema) as conn:
        row = conn.execute("SELECT value FROM chatfold_meta WHERE key = 'schema_version'")
        assert row.fetchone() == (str(SCHEMA_VERSION),)
    assert len(MIGRATIONS) == SCHEMA_VERSION


def test_a_newer_schema_is_refused(postgres_url: str, schema: str) -> None:
    PostgresStore(postgres_url, schema=schema).close()
    with _connect(postgres_url, schema) as conn:
        conn.execute(
            "UPDATE chatfold_meta SET value = %s WHERE key = 'schema_version'",
            (str(SCHEMA_VERSION + 1),),
        )
    with pytest.raises(StoreCorruptError, match="upgrade chatfold"):
        PostgresStore(postgres_url, schema=schema)


def test_a_dropped_table_is_reported_as_damage(postgres_url: str, schema: str) -> None:
    with PostgresStore(postgres_url, schema=schema) as store:
        with _connect(postgres_url, schema) as conn:
            conn.execute("DROP TABLE chatfold_entries")
        with pytest.raises(StoreCorruptError):
            store.entries("c1")


def test_tables_stay_in_their_schema(postgres_url: str, schema: str) -> None:
    with PostgresStore(postgres_url, schema=schema, namespace="n1") as store:
        store.append("only-here", [{"a": 1}])
    with PostgresStore(postgres_url, namespace="n1") as public:
        assert "only-here" not in public.list_conversations()


@pytest.mark.parametrize("bad", ["Public", "a-b", "1abc", "x; drop table y", ""])
def test_schema_names_are_checked(bad: str) -> None:
    with pytest.raises(ValueError, match="schema"):
        PostgresStore("postgresql://127.0.0.1:1/x", schema=bad)


def test_pool_size_is_checked() -> None:
    with pytest.raises(ValueError, match="pool_size"):
        PostgresStore("postgresql://127.0.0.1:1/x", pool_size=0)


def test_with_namespace_shares_the_pool_until_the_last_close(postgres_url: str) -> None:
    root = PostgresStore(postgres_url, namespace="root-" + uuid.uuid4().hex[:8])
    child = root.with_namespace("child-" + uuid.uuid4().hex[:8])
    pool = root._pool
    assert pool is not None and child._pool is pool
    root.close()
    assert child.append("c1", [{"a": 1}]) == [1]  # the pool outlives the first store
    child.delete("c1")
    child.close()
    assert pool.resource.closed
    with pytest.raises(StoreError):
        root.with_namespace("again")


def test_capabilities() -> None:
    assert PostgresStore.shared_across_machines and PostgresStore.shared_across_processes
    assert PostgresStore.persistent and PostgresStore.schema_version == SCHEMA_VERSION
