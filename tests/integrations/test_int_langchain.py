"""ChatfoldMiddleware in real LangChain v1 agents (``create_agent``) and LangGraph's prebuilt
agent, driven by a LangChain fake chat model through multi-turn runs with tool calls."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

pytest.importorskip("langchain")

from _int_checks import CITIES, SYSTEM, check_input, summary_texts, user_turn, weather
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    convert_to_openai_messages,
)
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import Field

from chatfold import Conversation, MemoryStore, Policy
from chatfold.integrations.langchain import ChatfoldMiddleware, from_chatfold, to_chatfold

TURNS = 12
POLICY = Policy(trigger_tokens=700, target_tokens=420, keep=4, summary_max_tokens=280)


@tool
def get_weather(city: str) -> str:
    """The weather forecast for a city."""
    return weather(city)


def script() -> Iterator[AIMessage]:
    """What the model answers, call by call: a tool call, then the answer, each turn."""
    for t in range(TURNS):
        city = CITIES[t % len(CITIES)]
        yield AIMessage(content="", tool_calls=[
            {"name": "get_weather", "args": {"city": city}, "id": f"call_{t}",
             "type": "tool_call"}])
        yield AIMessage(content=f"Answer {t}: {city} will be rainy after three, take an umbrella.")


class ToolCallingFake(GenericFakeChatModel):
    """LangChain's fake chat model, able to take tools, recording every input it gets."""

    inputs: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.inputs.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def _model() -> ToolCallingFake:
    return ToolCallingFake(messages=script())


def _check_run(model: ToolCallingFake) -> list[str]:
    """Check every model input; return the distinct summaries the model saw."""
    assert len(model.inputs) == 2 * TURNS
    seen: list[str] = []
    for n, messages in enumerate(model.inputs):
        dicts = convert_to_openai_messages(messages)
        check_input(dicts, user_turn(n // 2))
        for s in summary_texts(dicts):
            if s not in seen:
                seen.append(s)
        assert len(summary_texts(dicts)) <= 1
    return seen


def _run(agent: Any, mode: str) -> None:
    config = {"configurable": {"thread_id": "t1"}}
    for t in range(TURNS):
        payload = {"messages": [HumanMessage(user_turn(t))]}
        if mode == "sync":
            agent.invoke(payload, config)
        else:
            asyncio.run(agent.ainvoke(payload, config))


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_middleware_folds_a_tool_calling_agent(mode: str) -> None:
    model = _model()
    middleware = ChatfoldMiddleware(policy=POLICY)
    agent = create_agent(model, tools=[get_weather], system_prompt=SYSTEM,
                         middleware=[middleware], checkpointer=InMemorySaver())
    _run(agent, mode)
    summaries = _check_run(model)
    assert len(summaries) >= 3, "the run should cross the trigger several times"
    # The state holds chatfold's one summary (a marked SystemMessage) and whole tool units.
    state = agent.get_state({"configurable": {"thread_id": "t1"}}).values["messages"]
    marked = [m for m in state if m.additional_kwargs.get("is_summary")]
    assert len(marked) == 1 and isinstance(marked[0], SystemMessage)
    assert state.index(marked[0]) == 0


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_middleware_keeps_the_whole_log_in_a_conversation(mode: str) -> None:
    model = _model()
    conv = Conversation("lc-agent", store=MemoryStore(), policy=POLICY)
    middleware = ChatfoldMiddleware(conversation=conv)
    agent = create_agent(model, tools=[get_weather], system_prompt=SYSTEM,
                         middleware=[middleware], checkpointer=InMemorySaver())
    _run(agent, mode)
    assert len(_check_run(model)) >= 3
    log = conv.transcript()
    assert conv.stats().folds >= 3
    # Every message of every turn, once, in order, with its LangChain type and id.
    assert len(log) == 4 * TURNS
    for t in range(TURNS):
        user, call, result, answer = (from_chatfold(d) for d in log[4 * t: 4 * t + 4])
        assert isinstance(user, HumanMessage) and user.content == user_turn(t)
        assert isinstance(call, AIMessage) and call.tool_calls[0]["id"] == f"call_{t}"
        assert isinstance(result, ToolMessage) and result.tool_call_id == f"call_{t}"
        assert result.content == weather(CITIES[t % len(CITIES)])
        assert isinstance(answer, AIMessage) and answer.content.startswith(f"Answer {t}:")
    # The model saw the logged messages themselves: same ids.
    logged_ids = {from_chatfold(d).id for d in log}
    last_input = model.inputs[-1]
    assert all(m.id in logged_ids for m in last_input if not isinstance(m, SystemMessage))


def test_pre_model_hook_in_langgraph_prebuilt_agent() -> None:
    from langgraph.prebuilt import create_react_agent
    from langgraph.warnings import LangGraphDeprecatedSinceV10

    model = _model()
    conv = Conversation("lg-agent", store=MemoryStore(), policy=POLICY)
    middleware = ChatfoldMiddleware(conversation=conv)
    with pytest.warns(LangGraphDeprecatedSinceV10, match="create_react_agent"):
        agent = create_react_agent(model, [get_weather], prompt=SYSTEM,
                                   pre_model_hook=middleware.pre_model_hook,
                                   post_model_hook=middleware.post_model_hook,
                                   checkpointer=InMemorySaver())
    _run(agent, "sync")
    assert len(_check_run(model)) >= 3
    assert len(conv.transcript()) == 4 * TURNS


def test_messages_round_trip_through_the_log() -> None:
    ai = AIMessage(content="checking", id="ai-1", response_metadata={"model": "m"},
                   tool_calls=[{"name": "f", "args": {"x": 1}, "id": "c1", "type": "tool_call"}])
    result = ToolMessage(content="42", tool_call_id="c1", id="t-1", status="success",
                         artifact={"raw": [1, 2]})
    for message in (ai, result, HumanMessage("hi", id="h-1"), SystemMessage("be brief")):
        assert from_chatfold(to_chatfold(message, native=True)) == message
    assert to_chatfold(ai)["tool_calls"] == [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}]
    summary = from_chatfold({"role": "system", "content": "Summary: x", "is_summary": True})
    assert isinstance(summary, SystemMessage) and to_chatfold(summary)["is_summary"] is True
    human = from_chatfold({"role": "system", "content": "S", "is_summary": True},
                          summary_role="human")
    assert isinstance(human, HumanMessage) and to_chatfold(human).get("is_summary") is None


def test_conversation_with_its_own_system_prompt_settles() -> None:
    conv = Conversation("lc-sys", store=MemoryStore(), policy=POLICY, system=SYSTEM)
    middleware = ChatfoldMiddleware(conversation=conv)
    first = middleware.fold_state({"messages": [HumanMessage("hi", id="h1")]})
    assert first is not None
    state = list(first["messages"][1:])
    assert isinstance(state[0], SystemMessage) and state[0].content == SYSTEM
    # The same context again is no state update (stable ids for unlogged messages too).
    assert middleware.fold_state({"messages": state}) is None
    assert len(conv.transcript()) == 2


def test_conversation_and_own_policy_is_an_error() -> None:
    conv = Conversation("lc-err", store=MemoryStore(), policy=POLICY)
    with pytest.raises(ValueError, match="its own summarizer, policy"):
        ChatfoldMiddleware(policy=POLICY, conversation=conv)


def test_middleware_with_an_async_conversation() -> None:
    from chatfold import AsyncConversation

    model = _model()
    conv = AsyncConversation("lc-async", store=MemoryStore(), policy=POLICY)
    middleware = ChatfoldMiddleware(conversation=conv)
    agent = create_agent(model, tools=[get_weather], system_prompt=SYSTEM,
                         middleware=[middleware], checkpointer=InMemorySaver())
    _run(agent, "async")
    assert len(_check_run(model)) >= 3
    log = asyncio.run(conv.atranscript())
    assert [from_chatfold(d).content for d in log[::4]] == [user_turn(t) for t in range(TURNS)]
    assert len(log) == 4 * TURNS
    with pytest.raises(TypeError, match="async hook"):
        middleware.fold_state({"messages": [HumanMessage("hi")]})


def test_a_new_thread_continues_the_conversation() -> None:
    model = ToolCallingFake(messages=iter([AIMessage("Noted: code 4711."), AIMessage("4711.")]))
    conv = Conversation("lc-threads", store=MemoryStore(), policy=POLICY)
    agent = create_agent(model, system_prompt=SYSTEM, checkpointer=InMemorySaver(),
                         middleware=[ChatfoldMiddleware(conversation=conv)])
    agent.invoke({"messages": [HumanMessage("My locker code is 4711.")]},
                 {"configurable": {"thread_id": "a"}})
    agent.invoke({"messages": [HumanMessage("What is my locker code?")]},
                 {"configurable": {"thread_id": "b"}})
    seen = [m.content for m in model.inputs[-1]]
    assert seen == [SYSTEM, "My locker code is 4711.", "Noted: code 4711.",
                    "What is my locker code?"]
    assert len(conv.transcript()) == 4
