"""Summarizers: the protocol, the prompts, and the backends.

``ExtractiveSummarizer`` is the embedded offline default; ``OpenAISummarizer`` (any
OpenAI-compatible endpoint) and ``AnthropicSummarizer`` need their extras and import their SDK
only when used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import (
    AsyncSummarizer,
    BaseSummarizer,
    CallableSummarizer,
    Language,
    Style,
    Summarizer,
    SummaryRequest,
)
from .prompts import PROMPT_VERSION, SECTION_TITLES, Prompt, build_prompt

if TYPE_CHECKING:
    from ._options import RemoteOptions
    from .anthropic import AnthropicSummarizer
    from .extractive import ExtractiveSummarizer
    from .openai import OpenAISummarizer

__all__ = [
    "PROMPT_VERSION",
    "SECTION_TITLES",
    "AnthropicSummarizer",
    "AsyncSummarizer",
    "BaseSummarizer",
    "CallableSummarizer",
    "ExtractiveSummarizer",
    "Language",
    "OpenAISummarizer",
    "Prompt",
    "RemoteOptions",
    "Style",
    "Summarizer",
    "SummaryRequest",
    "build_prompt",
]

_LAZY = {
    "ExtractiveSummarizer": ".extractive",
    "OpenAISummarizer": ".openai",
    "AnthropicSummarizer": ".anthropic",
    "RemoteOptions": "._options",
}


def __getattr__(name: str) -> Any:
    # Backends load on first use, so `import chatfold` needs no SDK.
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'chatfold.summarizers' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module, __name__), name)
