"""MemoryStore's own shortcuts keep the store contract: string-only messages are kept as
tuples instead of JSON (the same copy, cheaper), and the search index is built lazily on the
first search after appends (the same postings as indexing at append time)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from chatfold import InvalidMessageError
from chatfold.recall import Postings, message_terms, terms
from chatfold.stores import MemoryStore

MESSAGES: list[dict[str, Any]] = [
    {"role": "user", "content": "My locker code is 4471.", "name": "ada"},
    {"role": "assistant", "content": None, "tool_calls": [{
        "id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    {"role": "user", "content": [{"type": "text", "text": "杭州 lake"}]},
    {"role": "user", "content": "lone \ud83d surrogate kept as is"},
    {"role": "assistant", "content": "", "extra": (1, 2)},
]


def _json_copy(message: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(message))  # type: ignore[no-any-return]


def test_entries_read_back_what_a_json_round_trip_gives() -> None:
    store = MemoryStore()
    store.append("c", MESSAGES)
    got = [e.message for e in store.entries("c")]
    assert got == [_json_copy(m) for m in MESSAGES]
    assert got[-1]["extra"] == [1, 2]  # not a string message: kept as JSON, tuples as lists
    assert [list(m) for m in got] == [list(m) for m in MESSAGES]  # key order kept
    assert [e.seq for e in store.entries_at("c", [5, 1])] == [1, 5]


def test_nothing_outside_the_store_changes_its_log() -> None:
    store = MemoryStore()
    message = {"role": "user", "content": "original"}
    store.append("c", [message])
    message["content"] = "changed"
    first = store.entries("c")[0].message
    first["content"] = "changed by a reader"
    assert store.entries("c")[0].message == {"role": "user", "content": "original"}
    assert store.entries("c")[0].message is not store.entries("c")[0].message


def test_a_str_subclass_or_bad_value_takes_the_json_path() -> None:
    class Text(str):
        pass

    store = MemoryStore()
    store.append("c", [{"role": "user", "content": Text("hi")}])
    assert type(store.entries("c")[0].message["content"]) is str
    with pytest.raises(InvalidMessageError):
        store.append("c", [{"role": "user", "content": float("nan")}])
    with pytest.raises(InvalidMessageError):
        store.append("c", {"role": "user", "content": "not a list"})  # type: ignore[arg-type]
    assert store.last_seq("c") == 1


def _eager(messages: list[dict[str, Any]], query: str, through: int) -> Postings:
    """What indexing every message at append time gives (the reference)."""
    postings: dict[str, list[int]] = {}
    lengths = []
    for seq, m in enumerate(messages, 1):
        found = message_terms(m)
        lengths.append(len(found))
        for t in found:
            postings.setdefault(t, []).append(seq)
    hits = {t: tuple((s, lengths[s - 1]) for s in postings.get(t, []) if s <= through)
            for t in terms(query)}
    return Postings(docs=len(messages), total_length=sum(lengths), hits=hits)


def test_the_lazy_index_answers_as_an_eager_one() -> None:
    store = MemoryStore()
    store.append("c", MESSAGES[:2])
    assert store.search("c", terms("locker lake"), through_seq=2, max_df=100) == \
        _eager(MESSAGES[:2], "locker lake", 2)
    store.append("c", MESSAGES[2:4])  # indexed on the next search, once
    store.append("c", MESSAGES[4:])
    for through in (1, 4, 6):
        assert store.search("c", terms("locker lake 杭州"), through_seq=through,
                            max_df=100) == _eager(MESSAGES, "locker lake 杭州", through)


def test_conversation_ids_are_checked_on_every_call() -> None:
    store = MemoryStore()
    store.append("ok", [{"role": "user", "content": "hi"}])
    for bad in (None, "", "a b"):
        with pytest.raises(Exception, match="conversation id"):
            store.entries(bad)  # type: ignore[arg-type]
    assert store.last_seq("ok") == 1
    store.close()
    with pytest.raises(Exception, match="closed"):
        store.last_seq("ok")
