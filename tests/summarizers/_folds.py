"""Messages and folds for the extractive summarizer's example tests: one fold per turn, each
carrying the summary of the one before."""

from __future__ import annotations

from typing import Any

from chatfold import SummaryRequest
from chatfold.summarizers.extractive import ExtractiveSummarizer


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def assistant(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def folds(lang: str, *turns: list[dict[str, Any]]) -> str:
    """The summary after one fold per turn, each carrying the one before."""
    summary = ""
    for turn in turns:
        summary = ExtractiveSummarizer().summarize(SummaryRequest(summary, turn, lang, 400))
    return summary


def tool_turn(cid: str, name: str, args: str, result: str) -> list[dict[str, Any]]:
    """An assistant's tool call and the tool's result, as an OpenAI-style chat has them."""
    call = {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}
    return [{"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": cid, "content": result}]
