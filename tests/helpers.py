"""Test helpers shared by the suite: a recording fake summarizer, the seed's duck-typed llm,
and conversation builders."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from chatfold import SummaryRequest


class FakeSummarizer:
    """Answers from a queue (or a function of the request) and records every request.

    An item that is an exception instance is raised instead of returned.
    """

    accepts_request = True

    def __init__(self, *replies: Any, fn: Callable[[SummaryRequest], str] | None = None):
        self.replies = list(replies)
        self.fn = fn
        self.requests: list[SummaryRequest] = []

    @property
    def calls(self) -> int:
        return len(self.requests)

    def _answer(self, request: SummaryRequest) -> str:
        self.requests.append(request)
        if self.replies:
            reply = self.replies.pop(0)
        elif self.fn is not None:
            reply = self.fn(request)
        else:
            reply = f"Summary {len(self.requests)}: the user and assistant talked."
        if isinstance(reply, BaseException):
            raise reply
        return reply  # type: ignore[no-any-return]

    def summarize(self, request: SummaryRequest) -> str:
        return self._answer(request)

    async def asummarize(self, request: SummaryRequest) -> str:
        await asyncio.sleep(0)
        return self._answer(request)


class SeedLLM:
    """The seed's duck type: summarize(text) -> str, recording the texts it got."""

    def __init__(self, reply: str = "用户和助手聊了天。") -> None:
        self.reply = reply
        self.texts: list[str] = []

    def summarize(self, text: str) -> str:
        self.texts.append(text)
        return self.reply


def chat(n: int, *, words: int = 30, lang: str = "en", system: bool = True) -> list[dict[str, Any]]:
    """A plain alternating conversation of ``n`` messages."""
    out: list[dict[str, Any]] = []
    if system:
        out.append({"role": "system", "content": "You are a helpful assistant."})
    for i in range(n):
        role = "user" if i % 2 == 0 else "assistant"
        if lang == "zh":
            text = f"第{i}条消息：" + "我们继续讨论杭州旅行的安排。" * max(1, words // 10)
        else:
            text = f"Message {i}: " + " ".join(f"word{k}" for k in range(words))
        out.append({"role": role, "content": text})
    return out


def tool_turn(i: int, results: int = 1) -> list[dict[str, Any]]:
    """A user question, an assistant tool call with ``results`` results, and the answer."""
    calls = [
        {"id": f"call_{i}_{k}", "type": "function",
         "function": {"name": "get_weather", "arguments": f'{{"city": "City{i}-{k}"}}'}}
        for k in range(results)
    ]
    msgs: list[dict[str, Any]] = [
        {"role": "user", "content": f"What is the weather in City{i}?"},
        {"role": "assistant", "content": None, "tool_calls": calls},
    ]
    msgs += [
        {"role": "tool", "tool_call_id": c["id"], "content": f"{20 + i}°C and sunny in City{i}"}
        for c in calls
    ]
    msgs.append({"role": "assistant", "content": f"It is {20 + i}°C and sunny in City{i}."})
    return msgs
