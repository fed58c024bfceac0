"""The store contract: every backend, sync and async, must pass every test here."""

from __future__ import annotations

import inspect
import json
import time
from typing import Any

import pytest
from _store_workers import Backend, new_namespace

from chatfold import (
    ConversationNotFoundError,
    FoldConflictError,
    InvalidArgumentError,
    InvalidConversationIdError,
    InvalidMessageError,
    StoreError,
)
from chatfold.stores import AsyncStore, BaseStore, FoldState, LogEntry, Store

MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "你是一个旅行助手。You are a travel assistant."},
    {"role": "user", "content": "我想去杭州玩三天 🏞️，预算 3000 元。Emoji: 👩‍👩‍👧 🇨🇳"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "杭州", "days": 3}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": '{"temp": 21.5, "sky": "晴"}'},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "看看这张图"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        ],
    },
    {
        "role": "assistant",
        "content": "Quotes \" ' \\ and control \x00\x01\t\n chars, 𝄞, \u2028, \ud800 lone",
        "name": "bot",
        "pinned": True,
        "n": [0, -1, 2**53, 1.5e-300, True, False, None],
        "nested": {"z": 1, "a": {"deeper": ["x", {"y": []}]}},
    },
]


def test_append_returns_contiguous_seqs_and_entries_round_trip(driven: Any) -> None:
    before = time.time()
    assert driven.append("c1", MESSAGES[:2]) == [1, 2]
    assert driven.append("c1", MESSAGES[2:]) == [3, 4, 5, 6]
    after = time.time()
    entries = driven.entries("c1")
    assert [e.seq for e in entries] == [1, 2, 3, 4, 5, 6]
    assert [e.message for e in entries] == MESSAGES
    # Key order survives too: the message is stored exactly as appended.
    assert [list(e.message) for e in entries] == [list(m) for m in MESSAGES]
    assert all(isinstance(e, LogEntry) for e in entries)
    assert all(before - 1 <= e.created_at <= after + 1 for e in entries)
    assert driven.last_seq("c1") == 6


def test_entries_after_and_limit(driven: Any) -> None:
    driven.append("c1", [{"role": "user", "content": str(i)} for i in range(10)])
    assert [e.seq for e in driven.entries("c1", after=7)] == [8, 9, 10]
    assert [e.seq for e in driven.entries("c1", after=2, limit=3)] == [3, 4, 5]
    assert [e.message["content"] for e in driven.entries("c1", after=2, limit=3)] == ["2", "3", "4"]
    assert driven.entries("c1", after=10) == []
    assert driven.entries("c1", after=50, limit=5) == []
    assert driven.entries("c1", limit=0) == []
    assert [e.seq for e in driven.entries("c1", after=8, limit=100)] == [9, 10]


def test_entries_rejects_negative_arguments(store: BaseStore) -> None:
    with pytest.raises(InvalidArgumentError):
        store.entries("c1", after=-1)
    with pytest.raises(InvalidArgumentError):
        store.entries("c1", limit=-1)
    with pytest.raises(InvalidArgumentError, match="after"):
        store.entries("c1", after="3")  # type: ignore[arg-type]


def test_missing_conversation_reads_as_empty(driven: Any) -> None:
    assert driven.entries("nope") == []
    assert driven.last_seq("nope") == 0
    assert driven.exists("nope") is False
    assert driven.load_state("nope") == FoldState()
    assert driven.list_conversations() == []
    driven.delete("nope")  # no error


def test_empty_append_creates_the_conversation(driven: Any) -> None:
    assert driven.append("c1", []) == []
    assert driven.exists("c1") is True
    assert driven.last_seq("c1") == 0
    assert driven.list_conversations() == ["c1"]
    assert driven.append("c1", [{"role": "user", "content": "hi"}]) == [1]


def test_invalid_message_appends_nothing(driven: Any) -> None:
    driven.append("c1", [{"role": "user", "content": "first"}])
    bad: list[Any] = [
        [{"role": "user", "content": "ok"}, {"role": "user", "content": object()}],
        [{"role": "user", "content": "ok"}, "not a mapping"],
        [{"role": "user", "content": float("nan")}],
    ]
    for batch in bad:
        with pytest.raises(InvalidMessageError):
            driven.append("c1", batch)
    assert driven.last_seq("c1") == 1
    assert [e.message["content"] for e in driven.entries("c1")] == ["first"]


def test_invalid_message_error_names_its_index(store: BaseStore) -> None:
    with pytest.raises(InvalidMessageError) as info:
        store.append("c1", [{"a": 1}, {"a": 2}, {"a": {1, 2}}])
    assert info.value.index == 2


def test_appended_messages_are_copied(store: BaseStore) -> None:
    message: dict[str, Any] = {"role": "user", "content": "original", "parts": [1]}
    store.append("c1", [message])
    message["content"] = "mutated"
    message["parts"].append(2)
    got = store.entries("c1")[0].message
    assert got == {"role": "user", "content": "original", "parts": [1]}
    got["content"] = "mutated again"
    assert store.entries("c1")[0].message["content"] == "original"


def test_tuples_come_back_as_lists(store: BaseStore) -> None:
    store.append("c1", [{"role": "user", "content": ("a", "b")}])
    assert store.entries("c1")[0].message == {"role": "user", "content": ["a", "b"]}


def test_list_conversations_is_sorted(driven: Any) -> None:
    for cid in ["b", "a:1", "A", "a", "z@x.org", "0", "a-b"]:
        driven.append(cid, [{"role": "user", "content": cid}])
    assert driven.list_conversations() == sorted(["b", "a:1", "A", "a", "z@x.org", "0", "a-b"])


def test_ids_that_look_like_key_parts_stay_apart(store: BaseStore) -> None:
    ids = ["a", "log:a", "state:a", "lease:a", "a:log", "conversations", "schema", "a.b", "a..b"]
    for i, cid in enumerate(ids):
        store.append(cid, [{"i": i}] * (i + 1))
    for i, cid in enumerate(ids):
        assert store.last_seq(cid) == i + 1
        assert {e.message["i"] for e in store.entries(cid)} == {i}
    assert store.list_conversations() == sorted(ids)
    store.delete("a")
    assert store.list_conversations() == sorted(ids[1:])
    assert store.last_seq("log:a") == 2


def test_delete_removes_log_state_and_lease(driven: Any) -> None:
    driven.append("c1", [{"role": "user", "content": "x"}] * 3)
    driven.save_state(
        "c1", FoldState(summary="s", covered_through=2, version=1), expected_version=0
    )
    assert driven.acquire_lease("c1", "owner-a", 60) is True
    driven.append("c2", [{"role": "user", "content": "kept"}])

    driven.delete("c1")

    assert driven.exists("c1") is False
    assert driven.entries("c1") == []
    assert driven.last_seq("c1") == 0
    assert driven.load_state("c1") == FoldState()
    assert driven.acquire_lease("c1", "owner-b", 60) is True  # the old lease is gone
    assert driven.list_conversations() == ["c2"]
    assert driven.last_seq("c2") == 1
    # A conversation created again starts from seq 1 and version 0.
    assert driven.append("c1", [{"role": "user", "content": "again"}]) == [1]
    driven.save_state("c1", FoldState(version=1), expected_version=0)
    driven.delete("c1")
    driven.delete("c1")  # idempotent


def test_save_state_compare_and_set(driven: Any) -> None:
    driven.append("c1", [{"role": "user", "content": "x"}] * 4)
    first = FoldState(
        summary="用户想去杭州。", covered_through=2, version=1, language="zh", folds=1
    )
    driven.save_state("c1", first, expected_version=0)
    assert driven.load_state("c1") == first

    with pytest.raises(FoldConflictError) as info:
        driven.save_state("c1", FoldState(summary="late", version=1), expected_version=0)
    assert (info.value.expected_version, info.value.actual_version) == (0, 1)
    with pytest.raises(FoldConflictError) as info:
        driven.save_state("c1", FoldState(summary="future", version=6), expected_version=5)
    assert (info.value.expected_version, info.value.actual_version) == (5, 1)
    assert driven.load_state("c1") == first

    second = FoldState(summary="s2", covered_through=4, version=2, folds=2, summarizer_calls=3)
    driven.save_state("c1", second, expected_version=1)
    assert driven.load_state("c1") == second


def test_save_state_round_trips_every_field(store: BaseStore) -> None:
    store.append("c1", [{"role": "user", "content": "x"}])
    state = FoldState(
        summary='摘要 with emoji 🙂 and "quotes"\n第二行',
        covered_through=1,
        version=1,
        language="zh",
        folds=7,
        summarizer_calls=9,
        last_fold_seconds=1.25,
    )
    store.save_state("c1", state, expected_version=0)
    assert store.load_state("c1") == state


def test_save_state_rejects_a_version_that_does_not_follow(store: BaseStore) -> None:
    store.append("c1", [{"role": "user", "content": "x"}])
    with pytest.raises(InvalidArgumentError):
        store.save_state("c1", FoldState(version=2), expected_version=0)
    with pytest.raises(InvalidArgumentError):
        store.save_state("c1", FoldState(version=0), expected_version=0)
    with pytest.raises(InvalidArgumentError):
        store.save_state("c1", FoldState(version=0), expected_version=-1)
    assert store.load_state("c1") == FoldState()


def test_save_state_of_missing_conversation_raises(driven: Any) -> None:
    with pytest.raises(ConversationNotFoundError) as info:
        driven.save_state("ghost", FoldState(version=1), expected_version=0)
    assert info.value.conversation_id == "ghost"
    assert driven.exists("ghost") is False


def test_leases(driven: Any) -> None:
    assert driven.acquire_lease("c1", "a", 30) is True
    assert driven.acquire_lease("c1", "b", 30) is False
    assert driven.acquire_lease("c1", "a", 30) is True  # the holder renews
    driven.release_lease("c1", "b")  # not the holder: nothing happens
    assert driven.acquire_lease("c1", "b", 30) is False
    driven.release_lease("c1", "a")
    assert driven.acquire_lease("c1", "b", 30) is True
    assert driven.acquire_lease("c2", "a", 30) is True  # leases are per conversation
    driven.release_lease("nobody-home", "a")  # no error


def test_lease_does_not_create_the_conversation(store: BaseStore) -> None:
    assert store.acquire_lease("c1", "a", 30) is True
    assert store.exists("c1") is False
    assert store.list_conversations() == []


def test_expired_lease_can_be_taken_over(driven: Any) -> None:
    assert driven.acquire_lease("c1", "crashed", 0.05) is True  # then never renewed
    assert driven.acquire_lease("c1", "b", 30) is False  # live (SQLite starts watching it)
    time.sleep(0.15)
    assert driven.acquire_lease("c1", "b", 30) is True
    assert driven.acquire_lease("c1", "crashed", 30) is False


def test_lease_arguments_are_checked(store: BaseStore) -> None:
    for ttl in (0, -1.0, float("nan"), float("inf"), "10"):
        with pytest.raises(InvalidArgumentError):
            store.acquire_lease("c1", "a", ttl)
    with pytest.raises(InvalidArgumentError):
        store.acquire_lease("c1", "", 10)


INVALID_IDS: list[Any] = [
    "",
    ".hidden",
    "..",
    "a b",
    "a/b",
    "a\\b",
    "a*",
    "a?",
    "a[1]",
    "{ns}",
    "a'b",
    'a"b',
    "a;b",
    "a\n",
    "a\x00",
    "héllo",
    "你好",
    "x" * 201,
    None,
    5,
    b"bytes",
]


def test_invalid_conversation_ids_are_rejected(store: BaseStore) -> None:
    for bad in INVALID_IDS:
        _check_rejected(store, bad)
    assert store.list_conversations() == []


def _check_rejected(store: BaseStore, bad: Any) -> None:
    calls = [
        lambda: store.append(bad, [{"a": 1}]),
        lambda: store.entries(bad),
        lambda: store.last_seq(bad),
        lambda: store.exists(bad),
        lambda: store.delete(bad),
        lambda: store.load_state(bad),
        lambda: store.save_state(bad, FoldState(version=1), expected_version=0),
        lambda: store.acquire_lease(bad, "a", 1),
        lambda: store.release_lease(bad, "a"),
    ]
    for call in calls:
        with pytest.raises(InvalidConversationIdError):
            call()


def test_valid_conversation_ids_work(store: BaseStore) -> None:
    good = ["a", "-", "0", "x" * 200, "user@example.com:thread-1.v2", "a.b", "A:B@C-D.E",
            "user_1", "_"]
    for cid in good:
        assert store.append(cid, [{"a": cid}]) == [1]
        assert store.entries(cid)[0].message == {"a": cid}
    assert store.list_conversations() == sorted(good)


def test_invalid_namespaces_are_rejected(backend: Backend, namespace: str) -> None:
    store = backend.open(namespace)
    for bad in ["", ".x", "a b", "a*", "{x}", "x" * 201, None]:
        with pytest.raises(InvalidConversationIdError):
            store.with_namespace(bad)
        if backend.kind in ("memory", "sqlite"):
            with pytest.raises(InvalidConversationIdError):
                backend.open(bad)


def test_namespaces_are_isolated(backend: Backend) -> None:
    a = backend.open(new_namespace())
    b = backend.track(a.with_namespace(new_namespace()))
    assert b.namespace != a.namespace

    a.append("shared-id", [{"role": "user", "content": "tenant A secret"}] * 3)
    a.save_state("shared-id", FoldState(summary="A's summary", version=1), expected_version=0)
    assert a.acquire_lease("shared-id", "folder-a", 60) is True

    # B sees nothing of A's, under the same id.
    assert b.exists("shared-id") is False
    assert b.entries("shared-id") == []
    assert b.last_seq("shared-id") == 0
    assert b.list_conversations() == []
    assert b.load_state("shared-id") == FoldState()
    with pytest.raises(ConversationNotFoundError):
        b.save_state("shared-id", FoldState(version=1), expected_version=0)
    assert b.acquire_lease("shared-id", "folder-b", 60) is True  # its own lease

    # B's writes and deletes never touch A's conversation.
    assert b.append("shared-id", [{"role": "user", "content": "tenant B"}]) == [1]
    b.save_state("shared-id", FoldState(summary="B's summary", version=1), expected_version=0)
    b.release_lease("shared-id", "folder-a")
    b.delete("shared-id")
    assert a.last_seq("shared-id") == 3
    assert {e.message["content"] for e in a.entries("shared-id")} == {"tenant A secret"}
    assert a.load_state("shared-id").summary == "A's summary"
    assert a.acquire_lease("shared-id", "folder-b", 60) is False
    assert a.list_conversations() == ["shared-id"]


def test_closed_store_refuses_work(backend: Backend, namespace: str) -> None:
    store = backend.open(namespace)
    store.append("c1", [{"a": 1}])
    store.close()
    store.close()  # idempotent
    assert store.closed
    for call in (
        lambda: store.append("c1", [{"a": 1}]),
        lambda: store.entries("c1"),
        lambda: store.list_conversations(),
    ):
        with pytest.raises(StoreError):
            call()


def test_context_managers_close(backend: Backend, namespace: str) -> None:
    with backend.open(namespace) as store:
        store.append("c1", [{"a": 1}])
    assert store.closed

    async def use() -> BaseStore:
        async with backend.open(namespace) as other:
            assert await other.alast_seq("c1") in (0, 1)  # 0 for MemoryStore (fresh memory)
        return other

    import asyncio

    assert asyncio.run(use()).closed


def test_capabilities_and_protocols(store: BaseStore) -> None:
    cls = type(store)
    assert isinstance(store, Store)
    assert isinstance(store, AsyncStore)
    for attr in ("persistent", "shared_across_processes", "shared_across_machines"):
        assert isinstance(getattr(cls, attr), bool)
    assert isinstance(cls.name, str) and cls.name
    assert isinstance(cls.schema_version, int)
    if cls.shared_across_machines:
        assert cls.shared_across_processes
    assert cls.__name__ in repr(store)


SYNC_METHODS = [
    "append",
    "entries",
    "last_seq",
    "exists",
    "list_conversations",
    "delete",
    "load_state",
    "save_state",
    "acquire_lease",
    "release_lease",
    "close",
]


@pytest.mark.parametrize("method", SYNC_METHODS)
def test_async_twins_match_sync_methods(store: BaseStore, method: str) -> None:
    sync = inspect.signature(getattr(store, method))
    twin = getattr(store, "a" + method)
    assert inspect.iscoroutinefunction(twin)
    assert list(inspect.signature(twin).parameters.values()) == list(sync.parameters.values())
    assert hasattr(AsyncStore, "a" + method)
    assert hasattr(Store, method)


def test_created_at_is_shared_by_a_batch(store: BaseStore) -> None:
    store.append("c1", [{"a": 1}, {"a": 2}])
    first, second = store.entries("c1")
    assert first.created_at == second.created_at
    json.dumps(first.created_at)  # a plain float
