"""The invariants of DESIGN.md, checked by hypothesis over generated conversations.

Conversations mix tool calls (OpenAI and Anthropic shapes, several results per call),
multi-part content, mid-conversation system messages, pinned messages, an existing summary,
Chinese / English / emoji text; summarizers succeed, fail, return empty or overlong output.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chatfold import (
    ContextOverflowError,
    Folder,
    Policy,
    SummarizerError,
    find_orphans,
)
from chatfold.plan import _classify, _summary_overhead
from chatfold.tokens import HeuristicCounter

from helpers import FakeSummarizer

COUNTER = HeuristicCounter()

WORDS = st.sampled_from(
    ["hello", "order", "#A-1029", "Paris", "2024-05-01", "预算", "八百元", "杭州", "西湖",
     "😀", "👍🏽", "allergic", "peanuts", "会议", "3pm", "https://x.test/a", "ok", "谢谢", "Bob"]
)
TEXT = st.lists(WORDS, min_size=1, max_size=60).map(" ".join)


@st.composite
def user_message(draw: st.DrawFn) -> dict[str, Any]:
    text = draw(TEXT)
    if draw(st.booleans()):
        return {"role": "user", "content": text}
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}]
    if draw(st.booleans()):
        parts.append({"type": "image_url", "image_url": {"url": "https://x.test/i.png"}})
    return {"role": "user", "content": parts}


@st.composite
def unit(draw: st.DrawFn, i: int) -> list[dict[str, Any]]:
    kind = draw(st.sampled_from(["user", "assistant", "tools", "anthropic_tools", "system"]))
    if kind == "user":
        return [draw(user_message())]
    if kind == "assistant":
        return [{"role": "assistant", "content": draw(TEXT)}]
    if kind == "system":
        return [{"role": "system", "content": "Note: " + draw(TEXT)}]
    n = draw(st.integers(1, 3))
    if kind == "tools":
        calls = [{"id": f"c{i}_{k}", "type": "function",
                  "function": {"name": "lookup", "arguments": '{"q": "x"}'}} for k in range(n)]
        msgs: list[dict[str, Any]] = [{"role": "assistant", "content": None, "tool_calls": calls}]
        msgs += [{"role": "tool", "tool_call_id": c["id"], "content": draw(TEXT)} for c in calls]
        return msgs
    uses = [{"type": "tool_use", "id": f"t{i}_{k}", "name": "search", "input": {"q": i}}
            for k in range(n)]
    return [
        {"role": "assistant", "content": [{"type": "text", "text": "checking"}, *uses]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": u["id"], "content": draw(TEXT)} for u in uses]},
    ]


@st.composite
def conversation(draw: st.DrawFn) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "You are a helpful assistant."}]
    if draw(st.booleans()):
        msgs.append({"role": "system", "content": "历史摘要: 用户叫小王。", "is_summary": True})
    msgs.append(draw(user_message()))
    for i in range(draw(st.integers(0, 60))):
        group = draw(unit(i))
        if draw(st.integers(0, 30)) == 0:
            group[0] = {**group[0], "pinned": True}
        msgs += group
    return msgs


@st.composite
def policy(draw: st.DrawFn) -> Policy:
    trigger = draw(st.integers(200, 3000))
    target = draw(st.integers(max(80, trigger // 3), trigger))
    cap = draw(st.integers(16, max(16, min(400, target - 20))))
    return Policy(
        trigger_tokens=trigger,
        target_tokens=target,
        keep=draw(st.integers(0, 8)),
        summary_max_tokens=cap,
        system_messages=draw(st.sampled_from(["pin", "fold"])),
        on_overflow=draw(st.sampled_from(["raise", "keep"])),
    )


REPLIES = st.one_of(
    st.just("The user and the assistant discussed several things."),
    TEXT,
    st.builds(lambda n: "Fact. " * n, st.integers(50, 600)),  # overlong
)


def keep_window(flow_units: list[list[int]], keep: int) -> list[int]:
    out: list[int] = []
    for u in reversed(flow_units):
        if len(out) >= keep and out:
            break
        out = u + out
    return out


def check_invariants(messages: list[dict[str, Any]], pol: Policy, result: Any) -> None:
    out = result.messages
    pinned, _, units = _classify(messages, pol)
    flow = [i for u in units for i in u]
    if not result.folded:
        assert out is messages
        return
    position = {id(m): i for i, m in enumerate(messages)}
    # exactly one summary, right after the pinned head
    at = [k for k, m in enumerate(out) if m.get("is_summary")]
    assert len(at) == 1
    head = [position[id(m)] for m in out[: at[0]]]
    idx = [position[id(m)] for m in out[at[0] + 1 :]]
    # every pinned message is kept unchanged, in order: before the summary, or in place when
    # it lies inside the recent window (the context still ends on the latest message)
    late = [i for i in idx if i in pinned]
    assert head == sorted(head) and sorted(head + late) == pinned
    # every message after it is an unchanged input message, in input order
    assert idx == sorted(idx)
    flow_idx = [i for i in idx if i not in pinned]
    assert all(i in flow for i in flow_idx)
    assert flow_idx == flow[len(flow) - len(flow_idx) :]  # a suffix of the flow: no gaps
    assert not late or (flow_idx and late[0] > flow_idx[0])
    idx = flow_idx
    # the last `keep` messages are among them, no unit split, no orphan
    assert set(keep_window(units, pol.keep)) <= set(idx)
    starts = {u[0] for u in units}
    assert not idx or idx[0] in starts
    assert find_orphans(out) == []
    # the budget: at or below the target unless the keep window / latest unit forbid it
    if result.tokens_after > pol.target:
        assert result.over_target
        window = sum(COUNTER.count_message(messages[i]) for i in keep_window(units, pol.keep))
        head = sum(COUNTER.count_message(messages[i]) for i in pinned)
        overhead = _summary_overhead(COUNTER, result.plan.language)
        floor = pol.summary_min_tokens
        if result.summary_squeezed:
            # the floor went only because the pinned head plus the latest unit leave no room
            # (the planner keeps 2 tokens of slack: a counter need not be exactly additive)
            latest = sum(COUNTER.count_message(messages[i]) for i in units[-1])
            assert head + latest + overhead + floor + 2 > pol.target
        else:
            assert head + window + overhead + floor > pol.target or result.plan.overflow


SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(conversation(), policy(), REPLIES)
def test_fold_invariants(messages: list[dict[str, Any]], pol: Policy, reply: str) -> None:
    fake = FakeSummarizer(fn=lambda r: reply)
    folder = Folder(fake, pol)
    try:
        result = folder.fold(messages)
    except ContextOverflowError as err:
        assert pol.on_overflow == "raise" and err.tokens > pol.target
        assert fake.calls == 0
        return
    check_invariants(messages, pol, result)
    if result.folded:
        assert 1 <= fake.calls <= 2
        assert all(not m.get("is_summary") for r in fake.requests for m in r.messages)
        # folding again with nothing new does nothing
        fake2 = FakeSummarizer()
        again = Folder(fake2, pol).fold(result.messages)
        assert not again.folded and fake2.calls == 0
    else:
        assert fake.calls == 0


@SETTINGS
@given(conversation(), policy(), st.sampled_from(["raise", "empty", "blank", "none"]))
def test_a_failing_summarizer_loses_nothing(
    messages: list[dict[str, Any]], pol: Policy, mode: str
) -> None:
    reply: Any = {"raise": RuntimeError("down"), "empty": "", "blank": " \n\t", "none": None}[mode]
    snapshot = [dict(m) for m in messages]
    fake = FakeSummarizer(fn=lambda r: reply)
    try:
        result = Folder(fake, pol).fold(messages)
    except SummarizerError:
        assert fake.calls >= 1
    except ContextOverflowError:
        pass
    else:
        assert result.messages is messages and fake.calls == 0
    assert [dict(m) for m in messages] == snapshot


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conversation(), policy(), REPLIES)
def test_async_twin_matches_sync(messages: list[dict[str, Any]], pol: Policy, reply: str) -> None:
    def run(is_async: bool) -> Any:
        folder = Folder(FakeSummarizer(fn=lambda r: reply), pol)
        if is_async:
            return asyncio.run(folder.afold(messages))
        return folder.fold(messages)

    try:
        sync = run(False)
    except ContextOverflowError:
        with pytest.raises(ContextOverflowError):
            run(True)
        return
    asyn = run(True)
    assert [id(m) for m in sync.messages if not m.get("is_summary")] == \
        [id(m) for m in asyn.messages if not m.get("is_summary")]
    assert (sync.folded, sync.reason, sync.summary) == (asyn.folded, asyn.reason, asyn.summary)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(conversation(), min_size=1, max_size=3), policy())
def test_rolling_replay_keeps_one_summary_and_the_pinned_head(
    chunks: list[list[dict[str, Any]]], pol: Policy
) -> None:
    pol = Policy(trigger_tokens=pol.trigger_tokens, target_tokens=pol.target_tokens, keep=pol.keep,
                 summary_max_tokens=pol.summary_max_tokens, on_overflow="keep")
    folder = Folder(FakeSummarizer(), pol)
    system = chunks[0][0]
    messages: list[dict[str, Any]] = [system]
    for chunk in chunks:
        for m in chunk[1:]:
            if m.get("is_summary") or m.get("role") == "system":
                continue
            if m.get("role") == "tool" or (m.get("role") == "user" and isinstance(
                    m.get("content"), list) and any(p.get("type") == "tool_result"
                                                    for p in m["content"])):
                messages = [*messages, m]  # results join their call before any fold
                continue
            messages = folder.fold(messages).messages
            messages = [*messages, m]
    messages = folder.fold(messages).messages
    assert messages[0] is system
    assert sum(1 for m in messages if m.get("is_summary")) <= 1
    assert find_orphans(messages) == []


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(st.lists(unit(0), min_size=1, max_size=4), min_size=1, max_size=12), policy(),
       st.integers(1, 5))
def test_a_stored_conversation_keeps_every_message_and_one_summary(
    batches: list[list[list[dict[str, Any]]]], pol: Policy, every: int
) -> None:
    from chatfold.session import Conversation
    from chatfold.stores import MemoryStore

    pol = Policy(trigger_tokens=pol.trigger_tokens, target_tokens=pol.target_tokens,
                 keep=pol.keep, summary_max_tokens=pol.summary_max_tokens, on_overflow="keep",
                 system_messages=pol.system_messages)
    conv = Conversation("prop", store=MemoryStore(), summarizer=FakeSummarizer(), policy=pol,
                        system="You are helpful.")
    appended: list[dict[str, Any]] = []
    n = 0
    for batch in batches:
        for group in batch:
            # Tool-call ids must be unique across the whole conversation.
            group = [_renamed(m, n) for m in group]
            n += 1
            conv.append(group)
            appended += group
            if n % every == 0:
                ctx = conv.raw_context()
                assert find_orphans(ctx) == []
                assert sum(1 for m in ctx if m.get("is_summary")) <= 1
                assert ctx[0] == {"role": "system", "content": "You are helpful."}
    assert conv.transcript()[1:] == appended
    from hypothesis import event

    event(f"folds: {min(conv.stats().folds, 3)}+")
    final = conv.raw_context()
    assert find_orphans(final) == []
    flow = [m for m in final if not m.get("is_summary") and m.get("role") != "system"]
    logged = [m for m in appended if m.get("role") != "system"]
    assert flow == logged[len(logged) - len(flow):]  # a suffix of the log, in order


def _renamed(m: dict[str, Any], n: int) -> dict[str, Any]:
    m = dict(m)
    if m.get("tool_calls"):
        m["tool_calls"] = [{**c, "id": f"{c['id']}-{n}"} for c in m["tool_calls"]]
    if m.get("role") == "tool":
        m["tool_call_id"] = f"{m['tool_call_id']}-{n}"
    content = m.get("content")
    if isinstance(content, list):
        parts = []
        for p in content:
            if p.get("type") == "tool_use":
                p = {**p, "id": f"{p['id']}-{n}"}
            elif p.get("type") == "tool_result":
                p = {**p, "tool_use_id": f"{p['tool_use_id']}-{n}"}
            parts.append(p)
        m["content"] = parts
    return m
