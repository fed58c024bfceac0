"""ChatfoldSession in real OpenAI Agents SDK runs against a loopback Chat Completions server:
multi-turn runs with tool calls, the session's conversion of Responses items, pop and clear."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("agents")

from _chat_server import ChatServer
from _int_checks import CITIES, SYSTEM, check_input, summary_texts, user_turn, weather
from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool, set_tracing_disabled
from openai import AsyncOpenAI

from chatfold import MemoryStore, Policy
from chatfold.integrations.openai_agents import ChatfoldSession, from_chatfold, to_chatfold

TURNS = 12
# Recall off: these tests check that the folded history is the summary then the logged
# items exactly (recall would add its note after the summary).
POLICY = Policy(trigger_tokens=700, target_tokens=420, keep=4, summary_max_tokens=280,
                recall_tokens=0)


@pytest.fixture(autouse=True)
def _no_tracing() -> Iterator[None]:
    # The SDK exports traces to OpenAI by default: never from a test.
    set_tracing_disabled(True)
    yield
    set_tracing_disabled(False)


@function_tool
def get_weather(city: str) -> str:
    """The weather forecast for a city."""
    return weather(city)


def _agent(client: AsyncOpenAI) -> Agent[Any]:
    model = OpenAIChatCompletionsModel(model="fake-model", openai_client=client)
    return Agent(name="travel", instructions=SYSTEM, model=model, tools=[get_weather])


def test_session_folds_a_tool_calling_agent_run() -> None:
    session = ChatfoldSession("agents-run", store=MemoryStore(), policy=POLICY)

    async def run() -> None:
        with ChatServer() as server:
            client = AsyncOpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)
            agent = _agent(client)
            for t in range(TURNS):
                result = await Runner.run(agent, user_turn(t), session=session)
                assert result.final_output.startswith(f"Answer {t}:")
            await client.close()
            requests = server.requests
        assert len(requests) == 2 * TURNS
        folds = 0
        for n, body in enumerate(requests):
            check_input(body["messages"], user_turn(n // 2))
            found = summary_texts(body["messages"])
            assert len(found) <= 1
            # A fold shows as a shorter input than the one before: a summary kept full of
            # equally worthy turns may read the same after two folds.
            folds += n > 0 and len(body["messages"]) < len(requests[n - 1]["messages"])
        assert folds >= 3, "the run should cross the trigger several times"

        # Nothing is lost: the log holds every item of every turn, once, in order.
        log = await session.conversation.atranscript()
        items = [i for m in log for i in from_chatfold(m)]
        assert len(items) == 4 * TURNS
        for t in range(TURNS):
            user, call, output, answer = items[4 * t: 4 * t + 4]
            assert user["content"] == user_turn(t)
            assert call["type"] == "function_call" and call["call_id"] == f"call_{t}"
            assert output["type"] == "function_call_output" and output["call_id"] == f"call_{t}"
            assert output["output"] == weather(CITIES[t % len(CITIES)])
            assert answer["role"] == "assistant"
            assert answer["content"][0]["text"].startswith(f"Answer {t}:")
        # get_items is the folded history: the summary, then items exactly as logged.
        folded = await session.get_items()
        assert folded[0]["role"] == "system" and folded[0]["content"].startswith("Summary")
        assert folded[1:] == items[len(items) - len(folded) + 1:]
        assert await session.get_items(limit=2) == items[-2:]

    asyncio.run(run())


def test_items_convert_both_ways_without_loss() -> None:
    items: list[dict[str, Any]] = [
        {"role": "user", "content": "weather in Paris and Rome?"},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "two"}]},
        {"type": "function_call", "call_id": "c1", "name": "get_weather",
         "arguments": '{"city": "Paris"}', "id": "fc_1", "status": "completed"},
        {"type": "reasoning", "id": "rs_2", "summary": []},
        {"type": "function_call", "call_id": "c2", "name": "get_weather",
         "arguments": '{"city": "Rome"}', "id": "fc_2", "status": "completed"},
        {"type": "function_call_output", "call_id": "c1", "output": "18C"},
        {"type": "function_call_output", "call_id": "c2",
         "output": [{"type": "input_text", "text": "24C"}]},
        {"type": "message", "role": "assistant", "id": "msg_1", "status": "completed",
         "content": [{"type": "output_text", "text": "Paris 18C, Rome 24C.", "annotations": []}]},
        {"type": "web_search_call", "id": "ws_1", "status": "completed",
         "action": {"type": "search", "query": "rome"}},
    ]
    messages = to_chatfold(items)
    # Parallel calls are one assistant message: the fold keeps them with both outputs.
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "assistant",
                                             "assistant"]
    assert [c["id"] for c in messages[1]["tool_calls"]] == ["c1", "c2"]
    assert [i for m in messages for i in from_chatfold(m)] == items
    summary = {"role": "system", "content": "Summary of the earlier conversation: x",
               "is_summary": True}
    assert from_chatfold(summary, "developer") == [
        {"role": "developer", "content": "Summary of the earlier conversation: x"}]


def test_pop_item_and_clear_session() -> None:
    session = ChatfoldSession("agents-pop", store=MemoryStore(), policy=POLICY)

    async def run() -> None:
        assert await session.pop_item() is None
        await session.add_items([{"role": "user", "content": "one"},
                                 {"role": "assistant", "content": "two"}])
        await session.add_items([{"role": "user", "content": "three"}])
        assert await session.pop_item() == {"role": "user", "content": "three"}
        assert [i["content"] for i in await session.get_items()] == ["one", "two"]
        await session.add_items([{"role": "user", "content": "four"}])
        assert [i["content"] for i in await session.get_items()] == ["one", "two", "four"]
        await session.clear_session()
        assert await session.get_items() == []

    asyncio.run(run())


def test_session_is_the_sdk_protocol_and_persists(tmp_path: Any) -> None:
    from agents.memory import Session

    from chatfold import SQLiteStore

    path = str(tmp_path / "agents.db")
    session = ChatfoldSession("agents-db", store=SQLiteStore(path), policy=POLICY)
    assert isinstance(session, Session)
    items = [{"role": "user", "content": user_turn(t)} for t in range(30)]

    async def run() -> None:
        await session.add_items(items)
        folded = await session.get_items()
        folds = (await session.conversation.astats()).folds
        assert folds >= 1
        session.conversation.store.close()
        again = ChatfoldSession("agents-db", store=SQLiteStore(path), policy=POLICY)
        assert await again.get_items() == folded
        assert (await again.conversation.astats()).folds == folds  # saved, not recomputed
        assert folded[0]["role"] == "system" and folded[-1] == items[-1]
        logged = await again.conversation.atranscript()
        assert [i for m in logged for i in from_chatfold(m)] == items
        again.conversation.store.close()

    asyncio.run(run())
