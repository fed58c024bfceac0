"""The chatfold history processors in real pydantic-ai agent runs (FunctionModel), multi-turn
with tool calls, sync and async."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

pytest.importorskip("pydantic_ai")

from _int_checks import CITIES, SYSTEM, check_input, summary_texts, user_turn, weather
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from chatfold import ExtractiveSummarizer, Policy, SummaryRequest, find_orphans
from chatfold.integrations.pydantic_ai import (
    AsyncChatfoldHistoryProcessor,
    ChatfoldHistoryProcessor,
    to_chatfold,
)

TURNS = 12
POLICY = Policy(trigger_tokens=700, target_tokens=420, keep=4, summary_max_tokens=280)


class Recording(ExtractiveSummarizer):
    """The embedded summarizer, keeping every message it was asked to fold."""

    def __init__(self) -> None:
        super().__init__()
        self.folded: list[Any] = []

    def summarize(self, request: SummaryRequest) -> str:
        self.folded.extend(request.messages)
        return super().summarize(request)


def model_fn(inputs: list[list[ModelMessage]]) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        inputs.append(list(messages))
        users = [p.content for m in messages if isinstance(m, ModelRequest)
                 for p in m.parts if isinstance(p, UserPromptPart)]
        turn = re.search(r"Turn (\d+): I am flying to (\w+)", str(users[-1]))
        assert turn is not None
        t, city = int(turn.group(1)), turn.group(2)
        last = messages[-1]
        if isinstance(last, ModelRequest) and any(isinstance(p, ToolReturnPart)
                                                  for p in last.parts):
            return ModelResponse(parts=[TextPart(
                f"Answer {t}: {city} will be rainy after three, take an umbrella.")])
        return ModelResponse(parts=[ToolCallPart("get_weather", {"city": city},
                                                 tool_call_id=f"call_{t}")])

    return FunctionModel(respond)


def _agent(processor: Any, inputs: list[list[ModelMessage]]) -> Agent[None, str]:
    agent = Agent(model_fn(inputs), system_prompt=SYSTEM, capabilities=[processor.capability()])

    @agent.tool_plain
    def get_weather(city: str) -> str:
        """The weather forecast for a city."""
        return weather(city)

    return agent


def _flat(messages: list[ModelMessage]) -> list[tuple[str, str]]:
    """(kind, text) of every part the test cares about, in order."""
    out = []
    for m in messages:
        for p in m.parts:
            if isinstance(p, UserPromptPart | TextPart):
                out.append((p.part_kind, str(p.content)))
            elif isinstance(p, ToolCallPart | ToolReturnPart):
                out.append((p.part_kind, p.tool_call_id))
    return out


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_processor_folds_a_tool_calling_agent(mode: str) -> None:
    summarizer = Recording()
    processor: Any = (ChatfoldHistoryProcessor if mode == "sync"
                      else AsyncChatfoldHistoryProcessor)(summarizer, POLICY)
    inputs: list[list[ModelMessage]] = []
    agent = _agent(processor, inputs)
    history: list[ModelMessage] = []
    everything: list[tuple[str, str]] = []
    for t in range(TURNS):
        # asyncio.run, not run_sync: run_sync leaves its event loop for the garbage collector.
        # A sync processor still runs as one (pydantic-ai calls it in a worker thread).
        result = asyncio.run(agent.run(user_turn(t), message_history=history))
        assert result.output.startswith(f"Answer {t}:")
        everything += _flat(result.new_messages())
        history = result.all_messages()

    assert len(inputs) == 2 * TURNS
    summaries: list[str] = []
    for n, messages in enumerate(inputs):
        # The model's input: no tool return without its call, system prompt first, and
        # the latest user turn.
        calls: set[str] = set()
        for m in messages:
            for p in m.parts:
                if isinstance(p, ToolCallPart):
                    calls.add(p.tool_call_id)
                if isinstance(p, ToolReturnPart):
                    assert p.tool_call_id in calls, f"orphan tool return in input {n}"
        first = messages[0].parts[0]
        assert isinstance(first, SystemPromptPart) and first.content == SYSTEM
        dicts = to_chatfold(messages)[0]
        check_input(dicts, user_turn(n // 2))
        assert sum(1 for d in dicts if d.get("is_summary")) <= 1
        summaries += [s for s in summary_texts(dicts) if s not in summaries]
    assert len(summaries) >= 3, "the run should cross the trigger several times"

    # Nothing lost: what was folded plus what the history still holds is every message.
    assert len(everything) == 4 * TURNS  # user prompt, tool call, tool return, text
    kept = [d for d in to_chatfold(history)[0] if d["role"] != "system"]
    folded = [d for d in summarizer.folded if d["role"] != "system"]
    seen = [(d["role"], d.get("tool_call_id") or str(d.get("content"))) for d in folded + kept]
    assert len(seen) == 4 * TURNS
    for t in range(TURNS):
        assert seen[4 * t] == ("user", user_turn(t))
        assert folded_or_kept_call(folded + kept, 4 * t + 1) == f"call_{t}"
        assert seen[4 * t + 2] == ("tool", f"call_{t}")
        assert seen[4 * t + 3][1].startswith(f"Answer {t}:")


def folded_or_kept_call(messages: list[Any], index: int) -> str:
    return str(messages[index]["tool_calls"][0]["id"])


def test_unchanged_history_is_returned_as_is_and_summary_rolls() -> None:
    processor = ChatfoldHistoryProcessor(policy=POLICY)
    short: list[ModelMessage] = [ModelRequest(parts=[SystemPromptPart(SYSTEM),
                                                     UserPromptPart("hi")])]
    assert processor(short) is short
    assert processor.last_result is not None and not processor.last_result.folded
    long: list[ModelMessage] = list(short)
    for t in range(8):
        long.append(ModelResponse(parts=[TextPart(weather(CITIES[t]))]))
        long.append(ModelRequest(parts=[UserPromptPart(user_turn(t))]))
    once = processor(long)
    assert processor.last_result.folded
    marked = [p for m in once for p in m.parts
              if isinstance(p, SystemPromptPart) and p.metadata == {"chatfold": "summary"}]
    assert len(marked) == 1 and once[0].parts[0].content == SYSTEM
    assert once[-1] is long[-1]
    for t in range(8, 14):
        once = [*once, ModelResponse(parts=[TextPart(weather(CITIES[t]))]),
                ModelRequest(parts=[UserPromptPart(user_turn(t))])]
        once = processor(once)
    marked = [p for m in once for p in m.parts
              if isinstance(p, SystemPromptPart) and p.metadata == {"chatfold": "summary"}]
    assert len(marked) == 1, "the summary is rolled forward, never duplicated"


def test_history_without_a_system_prompt_gets_the_summary_first() -> None:
    processor = ChatfoldHistoryProcessor(policy=POLICY)
    history: list[ModelMessage] = []
    for t in range(10):
        history.append(ModelRequest(parts=[UserPromptPart(user_turn(t))]))
        history.append(ModelResponse(parts=[
            TextPart("Checking."),
            ToolCallPart("get_weather", {"city": CITIES[t]}, tool_call_id=f"c{t}")]))
        history.append(ModelRequest(parts=[ToolReturnPart("get_weather", weather(CITIES[t]),
                                                          tool_call_id=f"c{t}")]))
    history.append(ModelRequest(parts=[UserPromptPart("And now?")]))
    folded = processor(history)
    assert processor.last_result is not None and processor.last_result.folded
    first = folded[0]
    assert isinstance(first, ModelRequest) and first.parts[0].metadata == {"chatfold": "summary"}
    assert folded[-1] is history[-1]
    # After the request holding the summary, the original message objects, unchanged.
    assert all(any(m is h for h in history) for m in folded[1:])
    dicts = to_chatfold(folded)[0]
    assert dicts[0].get("is_summary") and not find_orphans(dicts)
