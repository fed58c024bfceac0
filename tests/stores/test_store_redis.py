"""RedisStore specifics: unreachable servers, layout migrations, damaged keys, shared client."""

from __future__ import annotations

import json
import socket
import time
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from chatfold import StoreCorruptError, StoreError, StoreUnavailableError
from chatfold.stores import FoldState, RedisStore
from chatfold.stores._redis_schema import _glob_escape
from chatfold.stores.redis import MIGRATIONS, SCHEMA_VERSION, RedisKeys, migrate

redis = pytest.importorskip("redis")


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def client(redis_url: str) -> Iterator[Any]:
    raw = redis.Redis.from_url(redis_url, decode_responses=True)
    yield raw
    raw.close()


@pytest.fixture
def fresh_namespace(client: Any) -> Iterator[str]:
    """A namespace whose keys are all deleted afterwards."""
    namespace = "t-" + uuid.uuid4().hex[:16]
    yield namespace
    keys = list(client.scan_iter(match=RedisKeys(namespace).prefix.replace("{", "\\{") + "*"))
    if keys:
        client.delete(*keys)


def test_an_unreachable_server_is_reported_quickly() -> None:
    url = f"redis://:s3cret-pw@127.0.0.1:{closed_port()}/0"
    started = time.monotonic()
    with pytest.raises(StoreUnavailableError) as info:
        RedisStore(url, connect_timeout=1)
    assert time.monotonic() - started < 3
    assert "s3cret-pw" not in str(info.value)
    assert "redis://:***@127.0.0.1:" in str(info.value)
    assert isinstance(info.value.__cause__, redis.ConnectionError)


def test_a_wrong_password_is_unavailable_and_masked(redis_url: str) -> None:
    parts = urlsplit(redis_url)
    url = urlunsplit(parts._replace(netloc=f":wrong-pw-456@{parts.hostname}:{parts.port}"))
    with pytest.raises(StoreUnavailableError) as info:
        RedisStore(url)
    assert "wrong-pw-456" not in str(info.value)


def test_repr_hides_the_password(redis_url: str, fresh_namespace: str) -> None:
    password = urlsplit(redis_url).password
    with RedisStore(redis_url, namespace=fresh_namespace) as store:
        assert password and password not in repr(store)


def test_key_layout(redis_url: str, client: Any, fresh_namespace: str) -> None:
    with RedisStore(redis_url, namespace=fresh_namespace) as store:
        store.append("c1", [{"a": 1}])
        store.save_state("c1", FoldState(summary="s", version=1), expected_version=0)
        store.acquire_lease("c1", "me", 30)
        prefix = f"chatfold:{{{fresh_namespace}}}:"
        assert client.get(prefix + "schema") == str(SCHEMA_VERSION)
        assert client.smembers(prefix + "conversations") == {"c1"}
        assert json.loads(client.lindex(prefix + "log:c1", 0))["m"] == {"a": 1}
        assert client.hget(prefix + "state:c1", "version") == "1"
        assert client.get(prefix + "lease:c1") == "me"
        assert 0 < client.pttl(prefix + "lease:c1") <= 30_000


def _build_at(client: Any, namespace: str, version: int) -> None:
    """A namespace as an older chatfold left it, with a conversation in it (from version 1)."""
    migrate(client, namespace, target=version)
    if version >= 1:
        keys = RedisKeys(namespace)
        client.rpush(
            keys.log("old"),
            '{"at":1.0,"m":{"role":"user","content":"你好"}}',
            '{"at":1.0,"m":{"role":"assistant","content":"hi"}}',
        )
        state = FoldState(summary="old summary", covered_through=1, version=1)
        client.hset(keys.state("old"), mapping={"version": "1", "state": state.to_json()})
        if version >= 2:  # layout 2 lists conversations in an index set
            client.sadd(keys.index, "old")


@pytest.mark.parametrize("version", range(SCHEMA_VERSION))
def test_migrations_run_from_every_earlier_version(
    redis_url: str, client: Any, fresh_namespace: str, version: int
) -> None:
    _build_at(client, fresh_namespace, version)
    with RedisStore(redis_url, namespace=fresh_namespace) as store:
        assert client.get(RedisKeys(fresh_namespace).schema) == str(SCHEMA_VERSION)
        if version >= 1:
            assert store.list_conversations() == ["old"]  # the index was built
            assert store.exists("old")
            assert [e.message["content"] for e in store.entries("old")] == ["你好", "hi"]
            assert store.load_state("old").summary == "old summary"
            # Migration 3 indexed the entries already stored (recall's search).
            assert store.search("old", ["你好", "hi"], through_seq=2, max_df=5).hits == {
                "你好": ((1, 1),), "hi": ((2, 1),)}
            assert store.append("old", [{"role": "user", "content": "new"}]) == [3]
            store.save_state("old", FoldState(version=2), expected_version=1)
        assert store.acquire_lease("old", "me", 10) is True
        assert store.append("fresh", [{"a": 1}]) == [1]
    assert len(MIGRATIONS) == SCHEMA_VERSION


def test_a_newer_layout_is_refused(redis_url: str, client: Any, fresh_namespace: str) -> None:
    client.set(RedisKeys(fresh_namespace).schema, str(SCHEMA_VERSION + 1))
    with pytest.raises(StoreCorruptError, match="upgrade chatfold"):
        RedisStore(redis_url, namespace=fresh_namespace)
    client.set(RedisKeys(fresh_namespace).schema, "banana")
    with pytest.raises(StoreCorruptError, match="banana"):
        RedisStore(redis_url, namespace=fresh_namespace)


def test_keys_of_the_wrong_type_are_reported(
    redis_url: str, client: Any, fresh_namespace: str
) -> None:
    keys = RedisKeys(fresh_namespace)
    with RedisStore(redis_url, namespace=fresh_namespace) as store:
        client.set(keys.log("c1"), "a string, not a list")
        with pytest.raises(StoreCorruptError, match="another type"):
            store.entries("c1")
        with pytest.raises(StoreCorruptError):
            store.append("c1", [{"a": 1}])


def test_damaged_entries_are_reported(redis_url: str, client: Any, fresh_namespace: str) -> None:
    keys = RedisKeys(fresh_namespace)
    with RedisStore(redis_url, namespace=fresh_namespace) as store:
        store.append("c1", [{"a": 1}])
        client.rpush(keys.log("c1"), "{not json", '{"no": "fields"}')
        with pytest.raises(StoreCorruptError, match="log entry 2"):
            store.entries("c1")
        assert store.entries("c1", limit=1)[0].message == {"a": 1}
        with pytest.raises(StoreCorruptError, match="log entry 3"):
            store.entries("c1", after=2)
        client.hset(keys.state("c1"), mapping={"version": "x", "state": "{}"})
        with pytest.raises(StoreCorruptError, match="not a number"):
            store.load_state("c1")


def test_glob_characters_are_escaped_in_scan_patterns() -> None:
    assert _glob_escape("a*b?c[d]e\\f") == "a\\*b\\?c\\[d\\]e\\\\f"
    assert RedisKeys("ns-1").log_pattern() == "chatfold:{ns-1}:log:*"


def test_with_namespace_shares_the_client_until_the_last_close(
    redis_url: str, client: Any, fresh_namespace: str
) -> None:
    root = RedisStore(redis_url, namespace=fresh_namespace)
    child = root.with_namespace(fresh_namespace + "-child")
    assert child._client is root._client
    assert client.get(RedisKeys(fresh_namespace + "-child").schema) == str(SCHEMA_VERSION)
    root.close()
    assert child.append("c1", [{"a": 1}]) == [1]
    child.delete("c1")
    child.close()
    client.delete(RedisKeys(fresh_namespace + "-child").schema)
    with pytest.raises(StoreError):
        root.with_namespace("again")


def test_large_batches_are_appended_in_one_piece(redis_url: str, fresh_namespace: str) -> None:
    with RedisStore(redis_url, namespace=fresh_namespace) as store:
        store.append("c1", [{"i": -1}])
        seqs = store.append("c1", [{"i": i} for i in range(2500)])  # over Lua's unpack limit
        assert seqs == list(range(2, 2502))
        assert [e.message["i"] for e in store.entries("c1", after=2495)] == list(range(2494, 2500))
        store.delete("c1")
