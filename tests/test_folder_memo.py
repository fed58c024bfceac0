"""The Folder's count memo: a turn counts only the new messages, and is never wrong.

The memo keeps the messages a folder was last given (or the context its last fold returned)
with their counts, extended in place as the list grows; a replaced, removed or reordered
message must still be noticed.
"""

from __future__ import annotations

import dataclasses
import pickle
import threading
from typing import Any

import pytest

from chatfold import Folder, InvalidMessageError, Policy
from chatfold.fold import FoldResult
from chatfold.tokens import HeuristicCounter


class Quiet:
    def summarize(self, text: str) -> str:
        return "They talked about the plan."


def msg(i: int, words: int = 8) -> dict[str, Any]:
    return {"role": "user" if i % 2 == 0 else "assistant",
            "content": f"message {i} " + " ".join(f"w{i}x{k}" for k in range(words))}


class Recording(HeuristicCounter):
    """Records every message it counts (no cache, so each count is seen)."""

    def __init__(self) -> None:
        super().__init__(cache_size=0)
        self.counted: list[Any] = []

    def count_message(self, message: Any) -> int:
        self.counted.append(message)
        return super().count_message(message)


def fresh(messages: list[Any]) -> int:
    return HeuristicCounter(cache_size=0).count_messages(messages)


def test_a_growing_list_is_counted_one_new_message_at_a_time() -> None:
    counter = Recording()
    folder = Folder(Quiet(), Policy(trigger_tokens=10**6), counter=counter)
    history: list[Any] = [{"role": "system", "content": "Be brief."}]
    folder.count(history)
    for i in range(30):
        history.append(msg(i))
        counter.counted.clear()
        assert folder.count(history) == fresh(history)
        assert counter.counted == [history[-1]]
    # a new list with the same prefix objects (as `[*context, message]` builds) as well
    counter.counted.clear()
    grown = [*history, msg(99)]
    assert folder.fold(grown).tokens_before == fresh(grown)
    assert counter.counted == [grown[-1]]


def test_replaced_removed_and_reordered_messages_are_noticed() -> None:
    folder = Folder(Quiet(), Policy(trigger_tokens=10**6))
    history = [msg(i) for i in range(20)]
    folder.count(history)
    history[5] = msg(500, words=40)  # replaced in place, same length
    assert folder.count(history) == fresh(history)
    history[-1] = msg(501, words=2)  # the last one replaced
    assert folder.count(history) == fresh(history)
    del history[3]
    history.append(msg(502))  # removed one, added one: same length again
    assert folder.count(history) == fresh(history)
    history.reverse()
    assert folder.count(history) == fresh(history)
    assert folder.count(history[:4]) == fresh(history[:4])  # shorter
    assert folder.count(tuple(history)) == fresh(history)  # any sequence


def test_the_fast_under_trigger_result_equals_a_built_one() -> None:
    folder = Folder(Quiet(), Policy(trigger_tokens=10**6))
    history = [msg(i) for i in range(5)]
    result = folder.fold(history)
    total = fresh(history)
    assert result == FoldResult(messages=history, folded=False, reason="under_trigger",
                                tokens_before=total, tokens_after=total)
    assert result.messages is history
    # Only the fields that differ from their defaults are set on it; it still copies,
    # pickles and converts as a built one does.
    assert pickle.loads(pickle.dumps(result)) == result
    assert dataclasses.asdict(result) == dataclasses.asdict(FoldResult(
        messages=history, folded=False, reason="under_trigger", tokens_before=total,
        tokens_after=total))
    assert dataclasses.replace(result, tokens_after=1).tokens_after == 1


def test_one_folder_shared_by_threads_counts_right() -> None:
    folder = Folder(Quiet(), Policy(trigger_tokens=10**6))
    lists = [[msg(1000 * t + i) for i in range(60)] for t in range(4)]
    errors: list[str] = []

    def work(history: list[Any]) -> None:
        for k in range(1, len(history) + 1):
            part = history[:k]
            if folder.count(part) != fresh(part):
                errors.append(f"wrong count at {k}")

    threads = [threading.Thread(target=work, args=(h,)) for h in lists]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_after_a_fold_the_next_turn_counts_only_the_new_message() -> None:
    counter = Recording()
    folder = Folder(Quiet(), Policy(trigger_tokens=600, keep=2), counter=counter)
    history: list[Any] = [msg(i, words=30) for i in range(40)]
    result = folder.fold(history)
    assert result.folded
    counter.counted.clear()
    context = [*result.messages, msg(77)]
    assert folder.fold(context).tokens_before == fresh(context)
    assert counter.counted == [context[-1]]


def test_a_bad_new_message_leaves_the_memo_as_it_was() -> None:
    folder = Folder(Quiet(), Policy(trigger_tokens=10**6))
    history = [msg(i) for i in range(10)]
    folder.count(history)
    with pytest.raises(InvalidMessageError):
        folder.count([*history, msg(10, words=60), {"role": "user"}])  # the second is bad
    assert folder.count(history) == fresh(history)
    other = [*history, msg(11), msg(12)]
    assert folder.count(other) == fresh(other)
    # the per-message counts the planner reads stay aligned with the messages
    per_message = [HeuristicCounter(cache_size=0).count_message(m) for m in other]
    assert folder._scan(other)[0][:len(other)] == per_message
    assert folder.count([*other, msg(13)]) == fresh([*other, msg(13)])
