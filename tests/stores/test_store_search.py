"""The search contract of recall: every backend, sync and async, indexes at append time and
answers ``search`` with the same postings, so :func:`chatfold.recall.rank` ranks alike."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from _store_workers import Backend, new_namespace, write, write_in_process

from chatfold import InvalidArgumentError
from chatfold.recall import Postings, message_terms, rank, terms
from chatfold.stores import BaseStore, MemoryStore

CORPUS: list[dict[str, Any]] = [
    {"role": "user", "content": "My locker code is 4471 and my cat is called Miso."},
    {"role": "assistant", "content": "Noted: locker 4471, cat Miso."},
    {"role": "user", "content": "我下周去杭州出差，住在西湖边的酒店。"},
    {"role": "assistant", "content": None, "tool_calls": [{
        "id": "call_1", "type": "function",
        "function": {"name": "book_hotel", "arguments": '{"city": "杭州", "nights": 3}'}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": '{"hotel": "Lakeview", "room": 812}'},
    {"role": "user", "content": [{"type": "text", "text": "The cats are fine, thanks"}]},
    {"role": "assistant", "content": ""},
    {"role": "user", "content": "ＦＵＬＬＷＩＤＴＨ letters and the locker again"},
]


def _reference(query: str, through: int, max_df: int = 1000) -> Postings:
    store = MemoryStore()
    store.append("c", CORPUS)
    return store.search("c", terms(query), through_seq=through, max_df=max_df)


@pytest.mark.parametrize("query", ["locker code", "杭州 酒店", "cat miso", "room 812 hotel",
                                   "fullwidth", "nothing matches this"])
@pytest.mark.parametrize("through", [0, 3, 8])
def test_every_store_returns_the_reference_postings(driven: Any, query: str,
                                                    through: int) -> None:
    driven.append("c", CORPUS[:5])
    driven.append("c", CORPUS[5:])
    got = driven.search("c", terms(query), through_seq=through, max_df=1000)
    assert got == _reference(query, through)
    assert rank(got, through_seq=through) == rank(_reference(query, through), through_seq=through)


def test_postings_hold_seqs_and_lengths(driven: Any) -> None:
    driven.append("c", CORPUS)
    got = driven.search("c", ["locker", "杭州", "absent"], through_seq=8, max_df=10)
    lengths = [len(message_terms(m)) for m in CORPUS]
    assert got.hits["locker"] == ((1, lengths[0]), (2, lengths[1]), (8, lengths[7]))
    assert [s for s, _ in got.hits["杭州"]] == [3, 4]  # the tool call's arguments count
    assert got.hits["absent"] == ()
    assert got.docs == len(CORPUS) and got.total_length == sum(lengths)
    assert got.common == frozenset()


def test_through_seq_and_max_df(driven: Any) -> None:
    driven.append("c", CORPUS)
    assert [s for s, _ in driven.search("c", ["locker"], through_seq=2, max_df=5)
            .hits["locker"]] == [1, 2]
    common = driven.search("c", ["locker", "miso"], through_seq=8, max_df=2)
    assert common.common == frozenset({"locker"})  # in 3 entries, over max_df
    assert "locker" not in common.hits and len(common.hits["miso"]) == 2
    # max_df counts entries up to through_seq only.
    assert driven.search("c", ["locker"], through_seq=2, max_df=2).common == frozenset()


def test_missing_conversation_and_empty_query(driven: Any) -> None:
    assert driven.search("nope", ["cat"], through_seq=5, max_df=5) == Postings(hits={"cat": ()})
    driven.append("c", CORPUS)
    got = driven.search("c", [], through_seq=8, max_df=5)
    assert got.hits == {} and got.docs == len(CORPUS)


def test_search_arguments_are_checked(store: BaseStore) -> None:
    with pytest.raises(InvalidArgumentError, match="sequence of strings"):
        store.search("c", "cat", through_seq=1, max_df=1)
    with pytest.raises(InvalidArgumentError, match="non-empty"):
        store.search("c", ["cat", ""], through_seq=1, max_df=1)
    with pytest.raises(InvalidArgumentError, match="through_seq"):
        store.search("c", ["cat"], through_seq=-1, max_df=1)
    with pytest.raises(InvalidArgumentError, match="max_df"):
        store.search("c", ["cat"], through_seq=1, max_df=0)


def test_delete_removes_the_index(driven: Any) -> None:
    driven.append("c", CORPUS)
    driven.delete("c")
    assert driven.search("c", ["locker"], through_seq=8, max_df=5) == Postings(
        hits={"locker": ()})
    driven.append("c", [{"role": "user", "content": "a new locker"}])
    got = driven.search("c", ["locker"], through_seq=8, max_df=5)
    assert [s for s, _ in got.hits["locker"]] == [1] and got.docs == 1


def test_ids_that_look_like_key_parts_search_apart(store: BaseStore) -> None:
    store.append("a", [{"role": "user", "content": "alpha"}])
    store.append("a:b", [{"role": "user", "content": "beta"}])
    store.append("a:b:beta", [{"role": "user", "content": "gamma"}])
    assert store.search("a", ["beta"], through_seq=9, max_df=9).hits["beta"] == ()
    assert store.search("a:b", ["alpha", "beta"], through_seq=9, max_df=9).hits == {
        "alpha": (), "beta": ((1, 1),)}


def test_namespaces_isolate_search(backend: Backend) -> None:
    one, two = backend.open(new_namespace()), backend.open(new_namespace())
    one.append("same", [{"role": "user", "content": "secret plans"}])
    two.append("same", [{"role": "user", "content": "other words"}])
    assert one.search("same", ["secret"], through_seq=9, max_df=9).hits["secret"] == ((1, 2),)
    assert two.search("same", ["secret"], through_seq=9, max_df=9).hits["secret"] == ()


def test_concurrent_appends_keep_the_index_in_step(store: BaseStore) -> None:
    def writer(n: int) -> None:
        for i in range(10):
            store.append("c", [{"role": "user", "content": f"shared word{n}x{i}"},
                               {"role": "assistant", "content": "ok shared"}])

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    got = store.search("c", ["shared", "word2x7"], through_seq=80, max_df=100)
    assert [s for s, _ in got.hits["shared"]] == list(range(1, 81))
    (seq, _), = got.hits["word2x7"]
    assert store.entries("c", after=seq - 1, limit=1)[0].message["content"] == "shared word2x7"
    assert got.docs == 80


def test_entries_at_reads_chosen_entries(driven: Any) -> None:
    driven.append("c", CORPUS)
    got = driven.entries_at("c", [5, 1, 99, 5, 3])
    assert [e.seq for e in got] == [1, 3, 5]  # ascending, distinct, missing ones left out
    assert [e.message for e in got] == [CORPUS[0], CORPUS[2], CORPUS[4]]
    assert got == [e for e in driven.entries("c") if e.seq in (1, 3, 5)]
    assert driven.entries_at("c", []) == [] and driven.entries_at("nope", [1]) == []


def test_entries_at_checks_seqs(store: BaseStore) -> None:
    for bad in (0, -1, 1.5, True):
        with pytest.raises(InvalidArgumentError, match="positive integers"):
            store.entries_at("c", [1, bad])  # type: ignore[list-item]


def test_threads_and_processes_keep_the_index_in_step(
    shared_backend: Backend, namespace: str, process_pool: Any
) -> None:
    # Several writers (threads here, spawned processes there) append to one conversation; the
    # index must list every entry once, in seq order, under each of its terms.
    store = shared_backend.open(namespace)
    store.append("busy", [])
    start_at = time.time() + 0.3
    pending = {f"p{k}": process_pool.apply_async(
        write_in_process, (shared_backend.spec, namespace, "busy", f"p{k}", 12, start_at))
        for k in range(2)}
    with ThreadPoolExecutor(2) as pool:
        futures = {f"t{k}": pool.submit(write, store, "busy", f"t{k}", 12, start_at)
                   for k in range(2)}
        done = {w: f.result() for w, f in futures.items()}
    done.update({w: r.get(timeout=60) for w, r in pending.items()})
    last = store.last_seq("busy")
    assert last == 48
    every = store.search("busy", ["你好"], through_seq=last, max_df=100)
    assert [s for s, _ in every.hits["你好"]] == list(range(1, 49))
    for writer, batches in done.items():
        got = store.search("busy", [writer], through_seq=last, max_df=100).hits[writer]
        assert [s for s, _ in got] == sorted(s for b in batches for s in b)
