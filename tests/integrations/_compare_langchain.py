"""Side by side on one scripted LangChain agent run: LangChain's SummarizationMiddleware and
ChatfoldMiddleware, same trigger, same fake tool-calling model (from the tests), 30 turns whose
tool results are about 400 tokens. Prints summarizer calls and model input sizes (LangChain's
``count_tokens_approximately``). Not a test: ``python tests/integrations/_compare_langchain.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import test_int_langchain as lc
from _int_checks import SYSTEM, user_turn, weather
from langchain.agents import create_agent
from langchain.agents.middleware import SummarizationMiddleware
from langchain_core.messages import BaseMessage, HumanMessage, convert_to_openai_messages
from langchain_core.messages.utils import count_tokens_approximately, get_buffer_string
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from chatfold import ExtractiveSummarizer, Policy, SummaryRequest, find_orphans
from chatfold.integrations.langchain import ChatfoldMiddleware

TURNS = 30
TRIGGER = 3000


@tool
def get_weather(city: str) -> str:
    """The weather forecast for a city."""
    return " ".join(weather(city) for _ in range(6))


class Counting(ExtractiveSummarizer):
    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def summarize(self, request: SummaryRequest) -> str:
        self.calls += 1
        return super().summarize(request)


def run(middleware: Any) -> list[list[BaseMessage]]:
    lc.TURNS = TURNS
    model = lc.ToolCallingFake(messages=lc.script())
    agent = create_agent(model, tools=[get_weather], system_prompt=SYSTEM,
                         middleware=[middleware], checkpointer=InMemorySaver())
    for t in range(TURNS):
        agent.invoke({"messages": [HumanMessage(user_turn(t))]},
                     {"configurable": {"thread_id": "x"}})
    return model.inputs


def main() -> None:
    lc_calls = 0

    def summarize(messages: list[BaseMessage]) -> str:  # same cost for both: no LLM
        nonlocal lc_calls
        lc_calls += 1
        return get_buffer_string(messages)[-1200:]

    theirs = SummarizationMiddleware(lc.ToolCallingFake(messages=iter(())),
                                     trigger=("tokens", TRIGGER), summarizer=summarize)
    counting = Counting()
    ours = ChatfoldMiddleware(counting, Policy(trigger_tokens=TRIGGER))
    for name, middleware in (("SummarizationMiddleware (keep: 20 messages)", theirs),
                             ("ChatfoldMiddleware (target: 60% of the trigger)", ours)):
        inputs = run(middleware)
        sizes = [count_tokens_approximately(m) for m in inputs]
        orphans = sum(bool(find_orphans(convert_to_openai_messages(m))) for m in inputs)
        calls = lc_calls if middleware is theirs else counting.calls
        print(f"{name}: {len(inputs)} model calls, {calls} summarizer calls, input tokens "
              f"max {max(sizes)} mean {sum(sizes) / len(sizes):.0f}, {orphans} with orphans")


if __name__ == "__main__":
    main()
