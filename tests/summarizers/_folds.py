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
