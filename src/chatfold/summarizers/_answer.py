"""What a summary request asks of a model, and what makes its answer a usable summary.

The output budget sent with a request leaves headroom over the summary's cap (the fold
enforces the cap itself). :func:`clean_summary` strips ``<think>`` blocks of reasoning models
(DeepSeek-R1, Qwen3), surrounding whitespace and code fences; what remains must be non-empty
or the call fails with a non-retryable error (a deterministic model asked the same thing again
answers the same): :func:`usable_summary`.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from .._errors import SummarizerError

__all__ = ["OUTPUT_HEADROOM", "OUTPUT_SLACK", "clean_summary", "output_budget", "usable_summary"]

logger = logging.getLogger("chatfold.summarizers")

OUTPUT_HEADROOM = 1.5
OUTPUT_SLACK = 64


def output_budget(cap: int, reasoning_tokens: int = 0) -> int:
    """The ``max_tokens`` to send for a summary capped at ``cap`` tokens.

    The fold enforces the cap itself (re-ask, then cut at a sentence boundary), so the API
    limit leaves headroom: a provider's tokenizer counts differently from the fold's, and an
    answer cut mid-sentence by the API is worse than one a little over the cap.
    ``reasoning_tokens`` adds room for models whose thinking counts against the limit.
    """
    return int(max(1, cap) * OUTPUT_HEADROOM) + OUTPUT_SLACK + max(0, reasoning_tokens)


_THINK_TAGS = "think|thinking|reasoning"
_THINK_BLOCK = re.compile(rf"<({_THINK_TAGS})>.*?</\1\s*>", re.S | re.I)
_THINK_ORPHAN_CLOSE = re.compile(rf"\A.*</(?:{_THINK_TAGS})\s*>", re.S | re.I)
_THINK_UNCLOSED = re.compile(rf"\A\s*<(?:{_THINK_TAGS})>.*\Z", re.S | re.I)
_SURROGATES = re.compile("[\ud800-\udfff]")
_FENCED = re.compile(r"\A```[\w+-]*[ \t]*\n(.*?)\n?[ \t]*```\Z", re.S)


def clean_summary(text: str) -> str:
    """The summary in a model's answer: no ``<think>`` blocks, no fences, no outer whitespace.

    Handles a closed block anywhere, a closing tag whose opening tag was in the prompt
    (Qwen3 templates), and an opening tag never closed (the thinking used the whole output
    budget: nothing usable is left).

    Example:
        >>> clean_summary("<think>The user wants...</think>\\n\\n```\\nFacts:\\n- Ann\\n```\\n")
        'Facts:\\n- Ann'
    """
    # A model's answer is not the user's text: a lone surrogate (a bad "\\ud83d" escape in
    # the reply) becomes U+FFFD here rather than stop every later fold at .encode().
    text = _SURROGATES.sub("\ufffd", text)
    text = _THINK_BLOCK.sub("", text)
    text = _THINK_ORPHAN_CLOSE.sub("", text)
    text = _THINK_UNCLOSED.sub("", text)
    text = text.strip()
    fenced = _FENCED.match(text)
    if fenced:
        text = fenced.group(1).strip()
    return text


def usable_summary(raw: Any, *, where: str, truncated: bool, budget: int) -> str:
    """``raw`` cleaned, or a non-retryable SummarizerError if nothing usable is left.

    ``truncated`` says the provider stopped at the output limit: a non-empty answer is still
    returned (the fold enforces the cap) with a warning; an empty one names the likely cause.
    """
    if not isinstance(raw, str):
        raise SummarizerError(f"{where} returned no text content", retryable=False)
    text = clean_summary(raw)
    if not text:
        reason = "an empty summary"
        if truncated:
            reason += (
                f" (it stopped at the output limit of {budget} tokens, probably while "
                "reasoning; raise reasoning_tokens or turn thinking off)"
            )
        raise SummarizerError(f"{where} returned {reason}", retryable=False)
    if truncated:
        logger.warning(
            "%s stopped at the output limit of %d tokens; the summary may be cut short", where,
            budget,
        )
    return text
