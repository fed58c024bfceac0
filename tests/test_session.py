"""Conversation / AsyncConversation over a store: lossless log, one summary, background folds."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from _session_twins import TWINS, opener
from chatfold import Policy, SummarizerError, find_orphans
from chatfold.session import AsyncConversation, Conversation
from chatfold.stores import MemoryStore, SQLiteStore

from helpers import FakeSummarizer, chat, tool_turn

POLICY = Policy(trigger_tokens=1000, target_tokens=600, keep=4, summary_max_tokens=150)


@pytest.fixture(params=TWINS)
def twin(request: pytest.FixtureRequest) -> Iterator[Callable[..., Any]]:
    """Opens a Conversation, or an AsyncConversation driven through the same names."""
    yield from opener(request.param)


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "memory":
        return MemoryStore()
    return SQLiteStore(str(tmp_path / "chat.db"))


def test_context_stays_within_budget_and_transcript_keeps_everything(store: Any, twin: Any) -> None:
    fake = FakeSummarizer()
    conv = twin("c1", store=store, summarizer=fake, policy=POLICY, system="You help.")
    history = chat(120, system=False)
    for m in history:
        conv.append(m)
        ctx = conv.context()
        assert conv.folder.count(ctx) <= POLICY.trigger_tokens
        assert ctx[0] == {"role": "system", "content": "You help."}
        assert all("is_summary" not in m for m in ctx)  # provider-safe
    assert fake.calls >= 2
    assert conv.transcript() == [{"role": "system", "content": "You help."}, *history]
    raw = conv.raw_context()
    assert sum(1 for m in raw if m.get("is_summary")) == 1
    assert raw[-4:] == history[-4:]
    stats = conv.stats()
    assert stats.folds == fake.calls and stats.summarizer_calls == fake.calls
    assert stats.logged_messages == 120
    assert stats.total_tokens == stats.pinned_tokens + stats.summary_tokens + stats.recent_tokens
    assert conv.summary


def test_the_summarizer_rolls_previous_summary_forward(store: Any, twin: Any) -> None:
    fake = FakeSummarizer()
    conv = twin("c2", store=store, summarizer=fake, policy=POLICY)
    for m in chat(120, system=False):
        conv.append(m)
        conv.context()
    for prev, nxt in zip(fake.requests, fake.requests[1:]):
        assert nxt.previous_summary.startswith("Summary")
        assert not any(m.get("is_summary") for m in nxt.messages)
        assert nxt.messages[0] is not prev.messages[0]


def test_state_survives_a_new_process_view(tmp_path: Path, twin: Any) -> None:
    path = str(tmp_path / "chat.db")
    fake = FakeSummarizer()
    conv = twin("c3", store=SQLiteStore(path), summarizer=fake, policy=POLICY)
    for m in chat(80, system=False):
        conv.append(m)
        conv.context()
    before = conv.raw_context()
    conv.close()
    again = twin("c3", store=SQLiteStore(path), summarizer=FakeSummarizer(), policy=POLICY)
    assert again.raw_context() == before
    assert again.summary == conv.summary


def test_a_failing_summarizer_leaves_state_and_log_intact(store: Any, twin: Any) -> None:
    conv = twin("c4", store=store, summarizer=FakeSummarizer(RuntimeError("down")),
                policy=POLICY)
    history = chat(60, system=False)
    conv.append(history)
    with pytest.raises(SummarizerError):
        conv.context()
    assert conv.summary == ""
    assert conv.transcript() == history
    assert store.load_state("c4").version == 0


def test_tool_calls_are_never_orphaned(store: Any, twin: Any) -> None:
    conv = twin("c5", store=store, summarizer=FakeSummarizer(),
                policy=Policy(trigger_tokens=500, target_tokens=300, keep=2,
                              summary_max_tokens=60))
    for i in range(40):
        for m in tool_turn(i, results=2):
            conv.append(m)
            assert find_orphans(conv.raw_context()) == []


def test_pinned_entries_stay_in_context(store: Any, twin: Any) -> None:
    conv = twin("c6", store=store, summarizer=FakeSummarizer(), policy=POLICY)
    rule = {"role": "user", "content": "Always answer in French.", "pinned": True}
    conv.append(rule)
    for m in chat(100, system=False):
        conv.append(m)
        ctx = conv.raw_context()
    assert ctx[0] == rule
    assert ctx[1]["is_summary"]


def test_background_fold_does_not_block_the_turn(store: Any, twin: Any) -> None:
    class Slow(FakeSummarizer):
        def summarize(self, request: Any) -> str:
            time.sleep(0.3)
            return super().summarize(request)

        async def asummarize(self, request: Any) -> str:
            await asyncio.sleep(0.3)
            return await super().asummarize(request)

    slow = Slow()
    conv = twin("c7", store=store, summarizer=slow, policy=POLICY,
                fold_mode="background")
    waits = []
    for m in chat(80, system=False):
        conv.append(m)
        start = time.perf_counter()
        ctx = conv.context()
        waits.append(time.perf_counter() - start)
        assert conv.folder.count(ctx) <= conv.hard_limit_tokens + 400
    conv.wait()
    assert slow.calls >= 1
    assert conv.stats().folds >= 1
    assert sorted(waits)[len(waits) // 2] < 0.1


def test_one_fold_at_a_time_across_conversation_objects(tmp_path: Path, twin: Any) -> None:
    path = str(tmp_path / "chat.db")
    gate = threading.Event()

    class Gated(FakeSummarizer):
        def _answer(self, request: Any) -> str:
            gate.wait(5)  # the async twin's fold runs on its own loop in the thread below
            return super()._answer(request)

    a, b = Gated(), FakeSummarizer()
    conv_a = twin("c8", store=SQLiteStore(path), summarizer=a, policy=POLICY)
    conv_b = twin("c8", store=SQLiteStore(path), summarizer=b, policy=POLICY)
    conv_a.append(chat(60, system=False))
    t = threading.Thread(target=conv_a.fold)
    t.start()
    time.sleep(0.2)
    result_b = conv_b.fold()  # the lease is held by conv_a: no second summarizer call
    gate.set()
    t.join()
    assert not result_b.folded and b.calls == 0 and a.calls == 1
    assert conv_b.raw_context() == conv_a.raw_context()


def test_refold_rebuilds_the_summary_from_the_log(store: Any, twin: Any) -> None:
    conv = twin("c9", store=store, summarizer=FakeSummarizer(), policy=POLICY)
    for m in chat(80, system=False):
        conv.append(m)
        conv.context()
    better = FakeSummarizer(fn=lambda r: "Rebuilt summary.")
    conv2 = twin("c9", store=store, summarizer=better, policy=POLICY)
    conv2.refold()
    assert conv2.summary == "Rebuilt summary."
    assert better.requests[0].previous_summary == ""
    assert len(better.requests) >= 2  # replayed in trigger-sized folds, not one huge call
    assert all(conv2.folder.count(list(r.messages)) <= POLICY.trigger_tokens
               for r in better.requests)
    assert len(conv2.transcript()) == 80
    assert conv2.raw_context()[-4:] == conv.raw_context()[-4:]


def test_refold_of_an_unknown_conversation_does_nothing(store: Any, twin: Any) -> None:
    conv = twin("never", store=store, summarizer=FakeSummarizer(), policy=POLICY)
    assert not conv.refold().folded


def test_invalid_message_is_rejected_before_anything_is_stored(store: Any, twin: Any) -> None:
    from chatfold import InvalidMessageError

    conv = twin("c10", store=store, summarizer=FakeSummarizer(), policy=POLICY)
    with pytest.raises(InvalidMessageError):
        conv.append([{"role": "user", "content": "ok"}, {"role": "robot", "content": "x"}])
    assert conv.transcript() == []


def test_async_conversation_matches_sync(store: Any) -> None:
    async def main() -> tuple[list[Any], int]:
        fake = FakeSummarizer()
        conv = AsyncConversation("a1", store=store, summarizer=fake, policy=POLICY,
                                 system="sys")
        for m in chat(100, system=False):
            await conv.aappend(m)
            await conv.acontext()
        return await conv.araw_context(), fake.calls

    raw, calls = asyncio.run(main())
    sync_fake = FakeSummarizer()
    sync = Conversation("s1", store=MemoryStore(), summarizer=sync_fake, policy=POLICY,
                        system="sys")
    for m in chat(100, system=False):
        sync.append(m)
        sync.context()
    assert calls == sync_fake.calls
    assert [m.get("content") for m in raw if not m.get("is_summary")] == \
        [m.get("content") for m in sync.raw_context() if not m.get("is_summary")]


def test_async_background_fold(store: Any) -> None:
    class Slow(FakeSummarizer):
        async def asummarize(self, request: Any) -> str:
            await asyncio.sleep(0.2)
            return self.summarize(request)

    async def main() -> tuple[int, float]:
        slow = Slow()
        conv = AsyncConversation("a2", store=store, summarizer=slow, policy=POLICY,
                                 fold_mode="background")
        worst = 0.0
        for m in chat(80, system=False):
            await conv.aappend(m)
            start = time.perf_counter()
            await conv.acontext()
            worst = max(worst, time.perf_counter() - start)
        await conv.await_fold()
        return (await conv.astats()).folds, worst

    folds, _ = asyncio.run(main())
    assert folds >= 1


def test_sdk_message_objects_are_stored_as_dicts(store: Any) -> None:
    from openai.types.chat import ChatCompletionMessage

    conv = Conversation("sdk", store=store, summarizer=FakeSummarizer(), policy=POLICY)
    reply = ChatCompletionMessage(role="assistant", content="Hello!")
    conv.append({"role": "user", "content": "hi"})
    conv.append(reply)
    assert conv.transcript()[-1] == {"role": "assistant", "content": "Hello!"}
    assert conv.context()[-1] == {"role": "assistant", "content": "Hello!"}


def test_async_refold(store: Any) -> None:
    async def main() -> tuple[str, int]:
        conv = AsyncConversation("ar", store=store, summarizer=FakeSummarizer(), policy=POLICY)
        for m in chat(80, system=False):
            await conv.aappend(m)
            await conv.acontext()
        better = FakeSummarizer(fn=lambda r: "Rebuilt.")
        again = AsyncConversation("ar", store=store, summarizer=better, policy=POLICY)
        await again.arefold()
        return again.summary, better.calls

    summary, calls = asyncio.run(main())
    assert summary == "Rebuilt." and calls >= 2


def test_a_background_fold_that_fails_in_the_store_records_the_error_and_backs_off(
    store: Any, twin: Any
) -> None:
    # The conversation is deleted while its fold runs (another process cleaning up): the
    # compare-and-set fails with a store error, not a summarizer error. Both twins record it
    # and wait before trying again, instead of folding on every turn.
    def delete_meanwhile(request: Any) -> str:
        store.delete("bg")
        return "Summary: talked."

    fake = FakeSummarizer(fn=delete_meanwhile)
    conv = twin("bg", store=store, summarizer=fake, policy=POLICY, fold_mode="background")
    for m in chat(60, system=False):  # just over the trigger, under the hard limit
        conv.append(m)
        if conv.stats().total_tokens > conv.policy.fold_trigger:  # recall's room excluded
            break
    assert conv.stats().total_tokens <= conv.hard_limit_tokens
    conv.context()
    conv.wait()
    assert fake.calls == 1
    stats = conv.stats()
    assert stats.last_error is not None and "ConversationNotFoundError" in stats.last_error
    conv.context()  # still over the trigger, but backing off: no second fold
    conv.wait()
    assert fake.calls == 1


def test_a_fold_that_loses_the_compare_and_set_says_so(store: Any, twin: Any) -> None:
    def another_fold_wins(request: Any) -> str:
        state = store.load_state("cas")
        store.save_state("cas", replace(state, version=state.version + 1, summary="theirs"),
                         expected_version=state.version)
        return "Summary: ours."

    conv = twin("cas", store=store, summarizer=FakeSummarizer(fn=another_fold_wins),
                policy=POLICY)
    conv.append(chat(60, system=False))
    result = conv.fold()
    assert not result.folded
    assert result.reason == "fold_conflict"
    assert conv.summary == "theirs"


ORPHAN = {"role": "tool", "tool_call_id": "nope", "content": "42"}
IMPORTANT = {"role": "user", "content": "IMPORTANT: the deadline moved to Friday."}


def test_an_orphan_tool_result_is_refused_at_append_and_nothing_is_stored(
    store: Any, twin: Any
) -> None:
    from chatfold import InvalidMessageError

    conv = twin("orph", store=store, summarizer=FakeSummarizer(), policy=POLICY)
    conv.append({"role": "user", "content": "What is 6 x 7?"})
    with pytest.raises(InvalidMessageError, match="nope") as info:
        conv.append([ORPHAN, IMPORTANT])
    assert info.value.index == 0
    assert conv.transcript() == [{"role": "user", "content": "What is 6 x 7?"}]
    conv.append(IMPORTANT)
    assert conv.context()[-1] == IMPORTANT


def test_a_tool_result_may_answer_the_stored_tail_or_its_own_batch(store: Any, twin: Any) -> None:
    conv = twin("pair", store=store, summarizer=FakeSummarizer(), policy=POLICY)
    call, result, answer = tool_turn(1)[1:4]
    conv.append(call)
    conv.append(result)  # answers the call stored by the previous append
    conv.append(answer)
    conv.append(tool_turn(2)[1:4])  # call and result in one batch
    assert find_orphans(conv.raw_context()) == []
    assert len(conv.transcript()) == 6


def test_an_orphan_already_in_the_log_fails_every_read_and_is_never_skipped(
    store: Any, twin: Any
) -> None:
    from chatfold import InvalidMessageError

    # Written past the conversation (an older chatfold, another tool): the view refuses it on
    # every call, in every new view, and never silently drops the messages after it.
    store.append("poisoned", [{"role": "user", "content": "hi"}, ORPHAN, IMPORTANT])
    conv = twin("poisoned", store=store, summarizer=FakeSummarizer(), policy=POLICY)
    for _ in range(2):
        with pytest.raises(InvalidMessageError, match="nope"):
            conv.context()
    again = twin("poisoned", store=store, summarizer=FakeSummarizer(), policy=POLICY)
    with pytest.raises(InvalidMessageError, match="nope"):
        again.context()


@pytest.mark.parametrize("bad", [None, 5, object(), "hello", [None], [{"role": "user"}, 5]])
def test_appending_what_is_not_a_message_is_a_typed_error(store: Any, twin: Any,
                                                          bad: Any) -> None:
    from chatfold import InvalidMessageError

    conv = twin("typed", store=store, summarizer=FakeSummarizer(), policy=POLICY)
    with pytest.raises(InvalidMessageError):
        conv.append(bad)
    assert conv.transcript() == []


def test_a_bad_fold_mode_is_a_typed_error(store: Any) -> None:
    from chatfold import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match="fold_mode"):
        Conversation("x", store=store, fold_mode="later")  # type: ignore[arg-type]


def test_only_a_fold_writes_the_summary(twin: Any) -> None:
    from chatfold import InvalidMessageError

    conv = twin("s1", store=MemoryStore(), summarizer=FakeSummarizer(), policy=POLICY,
                system="You help.")
    for m in chat(60, system=False):
        conv.append(m)
    folded = conv.raw_context()
    summary = next(m for m in folded if m.get("is_summary"))
    # Re-appending a context's summary (an easy mistake) is refused, nothing stored...
    with pytest.raises(InvalidMessageError, match="is_summary"):
        conv.append([{"role": "user", "content": "hi"}, summary])
    assert conv.stats().logged_messages == 60
    # ...while a user message carrying the key is an ordinary message.
    conv.append({"role": "user", "content": "I am the summary now", "is_summary": True})
    from chatfold.messages import is_summary

    raw = conv.raw_context()
    assert sum(1 for m in raw if is_summary(m)) == 1
    assert raw[-1]["content"] == "I am the summary now"
    assert "is_summary" not in conv.context()[-1]  # provider-safe export drops the key


def test_hung_summarizer_threads_never_block_another_conversations_aappend(
    tmp_path: Path,
) -> None:
    from chatfold.summarizers.base import BaseSummarizer

    gate = threading.Event()

    def hang(text: str) -> str:  # a plain sync callable: afold runs it in a thread
        gate.wait(60)
        return "never"

    class Hang(BaseSummarizer):  # a sync-only summarizer: asummarize runs it in a thread
        def summarize(self, request: Any) -> str:
            return hang("")

    timed_out = Policy(trigger_tokens=1000, target_tokens=600, keep=4, summary_max_tokens=150,
                       summarizer_timeout=0.02, on_error="return")

    async def main() -> None:
        # More timed-out, still-hanging calls than any default executor has threads (<= 32).
        hung = [AsyncConversation(f"hung{k}", store=MemoryStore(), policy=timed_out,
                                  summarizer=hang if k % 2 else Hang()) for k in range(40)]
        for conv in hung:
            await conv.aappend(chat(60, system=False))
        results = await asyncio.gather(*(conv.afold() for conv in hung))
        assert all(r.reason == "summarizer_error" for r in results)
        loop = asyncio.get_running_loop()
        other = AsyncConversation("other", store=SQLiteStore(str(tmp_path / "other.db")),
                                  summarizer=FakeSummarizer(), policy=POLICY)
        try:
            # Liveness guards, not speed checks: both block until `gate` opens when starved.
            assert await asyncio.wait_for(other.aappend({"role": "user", "content": "hi"}),
                                          30) == [1]
            assert await asyncio.wait_for(loop.run_in_executor(None, lambda: 42), 30) == 42
        finally:
            gate.set()
            await other.aclose()

    asyncio.run(main())
