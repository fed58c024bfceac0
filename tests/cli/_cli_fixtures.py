"""Conversations and fakes for the command-line tests (self-contained: no shared conftest
import, so the module name cannot clash with another test folder's helpers)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from chatfold.fold import SummaryRequest
from chatfold.messages import message_text


class FakeSummarizer:
    """Answers with ``fn(request)`` (default: a fixed short summary), recording each request."""

    accepts_request = True

    def __init__(self, fn: Callable[[SummaryRequest], str] | None = None) -> None:
        self.fn = fn or (lambda r: "They talked about the weather.")
        self.requests: list[SummaryRequest] = []

    @property
    def calls(self) -> int:
        return len(self.requests)

    def summarize(self, request: SummaryRequest) -> str:
        self.requests.append(request)
        return self.fn(request)


class WordCounter:
    """Deterministic: one token per word, plus 2 per message."""

    name = "words"

    def count(self, text: str) -> int:
        return len(text.split())

    def count_message(self, message: Mapping[str, Any]) -> int:
        return 2 + self.count(message_text(message))


def chat(n: int, *, words: int = 20, system: bool = True) -> list[dict[str, Any]]:
    """An alternating English conversation of ``n`` messages (plus a system prompt)."""
    out: list[dict[str, Any]] = []
    if system:
        out.append({"role": "system", "content": "You are a helpful assistant."})
    for i in range(n):
        role = "user" if i % 2 == 0 else "assistant"
        out.append({"role": role,
                    "content": f"Message {i}: " + " ".join(f"word{k}" for k in range(words))})
    return out


def tool_turn(i: int, results: int = 1) -> list[dict[str, Any]]:
    """A question, an assistant tool call with ``results`` results, and the answer."""
    calls = [{"id": f"call_{i}_{k}", "type": "function",
              "function": {"name": "get_weather", "arguments": f'{{"city": "City{i}"}}'}}
             for k in range(results)]
    msgs: list[dict[str, Any]] = [
        {"role": "user", "content": f"What is the weather in City{i}? " + "please " * 20},
        {"role": "assistant", "content": None, "tool_calls": calls},
    ]
    msgs += [{"role": "tool", "tool_call_id": c["id"], "content": f"{10 + i} C, dry"}
             for c in calls]
    msgs.append({"role": "assistant", "content": f"It is {10 + i} C and dry in City{i}."})
    return msgs


def tool_chat(turns: int) -> list[dict[str, Any]]:
    """A system prompt and ``turns`` tool-call turns (4 messages each)."""
    out: list[dict[str, Any]] = [{"role": "system", "content": "You can call tools."}]
    for i in range(turns):
        out += tool_turn(i)
    return out


def locomo_sample(sample_id: str, sessions: int = 3, turns: int = 6) -> dict[str, Any]:
    """A LoCoMo-shaped sample with invented text (the real data set is never copied)."""
    conv: dict[str, Any] = {"speaker_a": "Ana", "speaker_b": "Bo"}
    for s in range(1, sessions + 1):
        conv[f"session_{s}_date_time"] = f"10:00 am on {s} March, 2024"
        conv[f"session_{s}"] = [
            {"speaker": "Ana" if t % 2 == 0 else "Bo", "dia_id": f"D{s}:{t + 1}",
             "text": f"Session {s} line {t}: " + "we planted tomatoes and basil " * 6}
            for t in range(turns)
        ]
    if turns > 1:
        conv["session_1"][1]["img_url"] = ["https://example.invalid/garden.jpg"]
        conv["session_1"][1]["blip_caption"] = "a photo of a small garden"
    return {"sample_id": sample_id, "conversation": conv, "qa": []}


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def write_jsonl(path: Path, messages: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(m, ensure_ascii=False) + "\n" for m in messages),
                    encoding="utf-8")
    return path
