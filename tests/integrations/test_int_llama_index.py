"""ChatfoldMemory in real LlamaIndex FunctionAgent runs, driven by LlamaIndex's
MockFunctionCallingLLM: multi-turn, with tool calls, crossing the trigger several times."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any

import pytest

pytest.importorskip("llama_index.core")

from _int_checks import CITIES, SYSTEM, check_input, summary_texts, user_turn, weather
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, ImageBlock, TextBlock, ToolCallBlock
from llama_index.core.llms import MockFunctionCallingLLM
from llama_index.core.tools import FunctionTool

from chatfold import MemoryStore, Policy
from chatfold.integrations.llama_index import ChatfoldMemory, from_chatfold, to_chatfold

# LlamaIndex's workflows walk the agent's attributes with inspect.getmembers, which touches
# pydantic's deprecated attributes: pydantic's deprecation warnings raised from `inspect` only
# (LlamaIndex's, not chatfold's).
pytestmark = pytest.mark.filterwarnings(
    "ignore::pydantic.warnings.PydanticDeprecationWarning:inspect")

TURNS = 12
# Recall off: these tests check that the folded history is the summary then the logged
# items exactly (recall would add its note after the summary).
POLICY = Policy(trigger_tokens=700, target_tokens=420, keep=4, summary_max_tokens=280,
                recall_tokens=0)


def get_weather(city: str) -> str:
    """The weather forecast for a city."""
    return weather(city)


def scripted(inputs: list[list[ChatMessage]]) -> MockFunctionCallingLLM:
    def respond(messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        inputs.append(list(messages))
        users = [m.content or "" for m in messages if m.role.value == "user"]
        turn = re.search(r"Turn (\d+): I am flying to (\w+)", users[-1])
        assert turn is not None
        t, city = int(turn.group(1)), turn.group(2)
        if messages[-1].role.value == "tool":
            return ChatMessage(role="assistant",
                               content=f"Answer {t}: {city} will be rainy after three.")
        return ChatMessage(role="assistant", blocks=[ToolCallBlock(
            tool_call_id=f"call_{t}", tool_name="get_weather", tool_kwargs={"city": city})])

    return MockFunctionCallingLLM(response_generator=respond, is_chat_model=True)


def test_memory_folds_a_function_agent_run() -> None:
    inputs: list[list[ChatMessage]] = []
    memory = ChatfoldMemory.from_defaults("li-agent", store=MemoryStore(), policy=POLICY)
    agent = FunctionAgent(tools=[FunctionTool.from_defaults(get_weather)], llm=scripted(inputs),
                          system_prompt=SYSTEM, streaming=False)

    async def run() -> None:
        for t in range(TURNS):
            answer = await agent.run(user_msg=user_turn(t), memory=memory)
            assert str(answer).startswith(f"Answer {t}:")

    asyncio.run(run())
    assert len(inputs) == 2 * TURNS
    summaries: list[str] = []
    for n, messages in enumerate(inputs):
        calls: set[str] = set()
        for m in messages:  # no tool answer without its call, checked on LlamaIndex's types
            calls.update(b.tool_call_id or "" for b in m.blocks if isinstance(b, ToolCallBlock))
            if m.role.value == "tool":
                assert m.additional_kwargs["tool_call_id"] in calls, f"orphan in input {n}"
        dicts = [to_chatfold(m) for m in messages]
        check_input(dicts, user_turn(n // 2))
        assert len(summary_texts(dicts)) <= 1
        summaries += [s for s in summary_texts(dicts) if s not in summaries]
    assert len(summaries) >= 3, "the run should cross the trigger several times"

    log = memory.get_all()
    assert len(log) == 4 * TURNS
    for t in range(TURNS):
        user, call, result, answer = log[4 * t: 4 * t + 4]
        assert user.content == user_turn(t)
        assert [b.tool_call_id for b in call.blocks if isinstance(b, ToolCallBlock)] == \
            [f"call_{t}"]
        assert result.additional_kwargs["tool_call_id"] == f"call_{t}"
        assert result.content == weather(CITIES[t % len(CITIES)])
        assert (answer.content or "").startswith(f"Answer {t}:")
    context = memory.get()
    assert context[0].role.value == "system" and context[0].content.startswith("Summary")
    assert context[1:] == log[len(log) - len(context) + 1:]


def test_messages_round_trip_and_set_reset() -> None:
    memory = ChatfoldMemory.from_defaults("li-set", store=MemoryStore(), policy=POLICY)
    messages = [
        ChatMessage(role="user", blocks=[TextBlock(text="look"),
                                         ImageBlock(url="https://example.com/a.png")]),
        ChatMessage(role="assistant", content="", additional_kwargs={"tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "f", "arguments": '{"x": 1}'}}]}),
        ChatMessage(role="tool", content="42", additional_kwargs={"tool_call_id": "c1"}),
    ]
    for m in messages:
        assert from_chatfold(to_chatfold(m)) == m
    assert to_chatfold(messages[1])["tool_calls"][0]["id"] == "c1"
    memory.put_messages(messages)
    assert memory.get_all() == messages
    memory.set(messages[:1])
    assert memory.get() == messages[:1]
    memory.reset()
    assert memory.get() == [] and memory.get_all() == []
    asyncio.run(memory.aput(messages[0]))
    assert asyncio.run(memory.aget()) == messages[:1]
