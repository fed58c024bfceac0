"""The summary's text: its message and prefix, cleaning a summarizer's reply, cutting it to
its cap at a sentence, and reading it back as items (what carry-forward is measured on).

Private to chatfold: :mod:`chatfold.fold` re-exports the public names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from ._errors import SummarizerError
from .messages import SUMMARY_KEY, content_text
from .tokens import TokenCounter

Message = Mapping[str, Any]
Language = Literal["zh", "en"]
"""Languages chatfold writes prompts and summary prefixes in."""
Style = Literal["sections", "paragraph"]
"""``sections``: facts / preferences / decisions / open tasks. ``paragraph``: the seed's style."""

SUMMARY_PREFIXES: dict[str, str] = {
    "zh": "历史摘要: ",
    "en": "Summary of the earlier conversation: ",
}
"""Prefix of the summary message's content, by language (Chinese is exactly the seed's)."""
_KNOWN_PREFIXES = ("历史摘要: ", "历史摘要：", "历史摘要:", *SUMMARY_PREFIXES.values())
_BARE_PREFIXES = ("历史摘要", "Summary of the earlier conversation")


def summary_text(message: Message) -> str:
    """Text of a summary message without its prefix (``历史摘要: `` or the English one)."""
    text = content_text(message.get("content"))
    for prefix in _KNOWN_PREFIXES:
        if text.startswith(prefix):
            return text[len(prefix) :]
    return text


def summary_message(text: str, language: Language) -> dict[str, Any]:
    """The summary message in the seed's shape: ``{"role": "system", "content": "历史摘要: …",
    "is_summary": True}``; export with :func:`~chatfold.to_openai` to drop the marker.

    Example:
        >>> summary_message("用户叫小王。", "zh")
        {'role': 'system', 'content': '历史摘要: 用户叫小王。', 'is_summary': True}
    """
    return {"role": "system", "content": SUMMARY_PREFIXES[language] + text, SUMMARY_KEY: True}


_SENTENCE_END = re.compile(r"(?<=[。！？!?；;…])|(?<=\.)(?=\s)|\n")


def cut_to_budget(text: str, budget: int, counter: TokenCounter, previous: str = "") -> str:
    """``text`` held to ``budget`` tokens, losing as little as possible.

    A summary written as items (bullet lines) loses whole items, one at a time, by a fixed
    priority: lowest value first, and among equals the earliest. An item is worth more when
    the previous summary already held it (a carried fact is never traded for new chatter) and
    when it holds a number or a date. Section headings stay while an item is under them.
    Other text keeps its longest prefix that ends at a sentence; a single sentence over the
    cap is cut by characters.
    """
    lines = text.splitlines()
    items = [i for i, line in enumerate(lines) if _BULLET.match(line)]
    if items:
        held = _keys(previous)

        def value(i: int) -> int:
            keys = _keys(lines[i])
            carried = bool(keys) and len(keys & held) >= 0.6 * len(keys)
            return 2 * carried + bool(_NUMBER.search(lines[i]))

        order = sorted(items, key=lambda i: (value(i), i))
        dropped: set[int] = set()
        for i in order:
            if counter.count(_join(lines, dropped)) <= budget:
                break
            dropped.add(i)
        out = _join(lines, dropped)
        if out and counter.count(out) <= budget:
            return out
    return _cut_prefix(text, budget, counter)


_NUMBER = re.compile(r"\d")


def _join(lines: list[str], dropped: set[int]) -> str:
    """The lines left, without headings whose items all went."""
    kept = [(i, line) for i, line in enumerate(lines) if i not in dropped and line.strip()]
    out: list[str] = []
    for k, (i, line) in enumerate(kept):
        is_heading = not _BULLET.match(line)
        following = kept[k + 1][1] if k + 1 < len(kept) else ""
        if is_heading and (not following or not _BULLET.match(following)) and \
                any(j in dropped for j in range(i + 1, len(lines))):
            continue  # a heading left with no item under it
        out.append(line)
    return "\n".join(out).strip()


def _cut_prefix(text: str, budget: int, counter: TokenCounter) -> str:
    """The longest prefix of ``text`` that ends at a sentence boundary and fits ``budget``."""
    pieces = [p for p in _SENTENCE_END.split(text) if p]
    out = ""
    for piece in pieces:
        candidate = out + piece
        if counter.count(candidate.strip()) > budget:
            break
        out = candidate
    out = out.strip()
    if out:
        return out
    # A single sentence over the cap: cut it by characters.
    return clip_to_budget(text, budget, counter) or "…"


def clip_to_budget(text: str, budget: int, counter: TokenCounter) -> str:
    """The longest prefix of ``text`` that fits ``budget`` with an ellipsis (binary search on
    its length); ``""`` when not even one character does."""
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if counter.count(text[:mid] + "…") <= budget:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + "…" if lo else ""


def clean_reply(reply: object) -> str:
    # A chat-model message object (LangChain's AIMessage, an SDK message) carries the text in
    # .content; anything else that is not a string is a summarizer bug.
    content = getattr(reply, "content", None)
    if not isinstance(reply, str) and isinstance(content, str):
        reply = content
    if not isinstance(reply, str):
        raise SummarizerError(
            f"the summarizer returned {type(reply).__name__}, expected str", retryable=False
        )
    text = reply.strip()
    stripped = True
    while stripped and text:
        # A reply that is nothing but the prefix (with or without its colon) is empty.
        stripped = False
        for prefix in _BARE_PREFIXES:
            rest = text[len(prefix) :]
            if text.startswith(prefix) and (not rest or rest[0] in " :：\t\r\n"):
                text = rest.lstrip(" :：\t\r\n")
                stripped = True
    if not text:
        raise SummarizerError("the summarizer returned an empty summary", retryable=True)
    return text


_BULLET = re.compile(r"^\s*(?:[-*•·]|\d+[.)、])\s*")
_KEY = re.compile(r"[0-9a-z]+|[\u3400-\u9fff]+")


def summary_items(text: str) -> list[str]:
    r"""The items of a summary: its bullet lines, or its sentences when it has none.

    Example:
        >>> summary_items("Facts:\n- Ada lives in Oslo.\n- Ada's cat is Luna.")
        ['Ada lives in Oslo.', "Ada's cat is Luna."]
    """
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    bullets = [_BULLET.sub("", line) for line in lines if _BULLET.match(line)]
    if bullets:
        return [b for b in bullets if b]
    return [p.strip() for p in _SENTENCE_END.split(text) if p.strip()]


def _keys(text: str) -> set[str]:
    """Words (Latin, digits) and Chinese character bigrams: what an item is recognised by."""
    keys: set[str] = set()
    for run in _KEY.findall(text.lower()):
        if run[0] >= "\u3400":
            keys.update(run[i : i + 2] for i in range(max(1, len(run) - 1)))
        elif len(run) > 1 or run.isdigit():
            keys.add(run)
    return keys


def count_carried(previous: str, new: str) -> tuple[int, int]:
    r"""``(items of previous, how many of them new still holds)``; an item is held when at
    least 60% of its words / character bigrams appear in ``new``.

    Example:
        >>> count_carried("- Ada lives in Oslo.\n- Ada's cat is Luna.", "- Ada lives in Oslo.")
        (2, 1)
    """
    items = [k for k in (_keys(i) for i in summary_items(previous)) if k]
    found = _keys(new)
    return len(items), sum(1 for k in items if len(k & found) >= 0.6 * len(k))
