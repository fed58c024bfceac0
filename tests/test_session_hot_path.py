"""The per-turn fast paths of Conversation (a plain dict appended, a text entry read back, the
context copied for the caller) keep the guarantees of the general path, in both twins."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from _session_twins import TWINS, opener
from chatfold import InvalidMessageError, Policy
from chatfold.stores import MemoryStore

from helpers import FakeSummarizer, chat

POLICY = Policy(trigger_tokens=1000, target_tokens=600, keep=4, summary_max_tokens=150,
                recall_tokens=0)


@pytest.fixture(params=TWINS)
def twin(request: pytest.FixtureRequest) -> Iterator[Callable[..., Any]]:
    yield from opener(request.param)


def test_a_caller_editing_its_context_changes_neither_the_next_context_nor_the_log(
        twin: Any) -> None:
    conv = twin("c", store=MemoryStore(), summarizer=FakeSummarizer(), policy=POLICY,
                system="You help.")
    for m in chat(80, system=False):  # past the trigger: a summary in the context
        conv.append(m)
    first = conv.context()
    expected = [dict(m) for m in first]
    for m in first:
        m["content"] = "edited"
        m["extra"] = 1
    first.clear()
    assert conv.context() == expected
    assert all(m["content"] != "edited" for m in conv.transcript())


def test_a_message_edited_after_append_is_stored_as_appended(twin: Any) -> None:
    conv = twin("c", store=MemoryStore(), summarizer=FakeSummarizer(), policy=POLICY)
    m = {"role": "user", "content": "the original text", "name": "ann"}  # three keys
    conv.append(m)
    m["content"] = "changed later"
    assert conv.context()[-1] == {"role": "user", "content": "the original text", "name": "ann"}
    assert conv.transcript()[-1]["content"] == "the original text"


def test_a_summary_message_appended_alone_is_refused_and_nothing_stored(twin: Any) -> None:
    conv = twin("c", store=MemoryStore(), summarizer=FakeSummarizer(), policy=POLICY)
    conv.append({"role": "user", "content": "hello"})
    with pytest.raises(InvalidMessageError, match="is_summary"):
        conv.append({"role": "system", "content": "Summary: ...", "is_summary": True})
    with pytest.raises(InvalidMessageError, match="role"):
        conv.append({"content": "no role"})
    assert [m["content"] for m in conv.transcript()] == ["hello"]


def test_tool_results_still_need_their_call_on_the_fast_path(twin: Any) -> None:
    conv = twin("c", store=MemoryStore(), summarizer=FakeSummarizer(), policy=POLICY)
    with pytest.raises(InvalidMessageError, match="answers no tool call"):
        conv.append({"role": "tool", "tool_call_id": "call_1", "content": "42"})
    call = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
    conv.append(call)
    conv.append({"role": "tool", "tool_call_id": "call_1", "content": "42"})
    ctx = conv.context()
    assert [m["role"] for m in ctx] == ["assistant", "tool"]
    assert ctx[0]["tool_calls"][0]["id"] == "call_1"


class Text(str):
    """A str subclass: MemoryStore keeps it as JSON, like a persistent store, not as is."""


def test_memory_store_returns_plain_strings_for_a_str_subclass() -> None:
    store = MemoryStore()
    store.append("c", [{"role": "user", "content": Text("hi")}])
    got = store.entries("c")[0].message
    assert got == {"role": "user", "content": "hi"}
    assert type(got["content"]) is str
