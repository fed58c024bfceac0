"""The seed-compatible API: the article's ``compress`` and ``maybe_compress``, same calls and
output shape, with the seed's defects fixed.

Example:
    >>> from chatfold import maybe_compress
    >>> class LLM:
    ...     def summarize(self, text): return "summary"
    >>> short = [{"role": "user", "content": "hi"}]
    >>> maybe_compress(short, LLM()) is short
    True
"""

from __future__ import annotations

import threading
from typing import Any

from .fold import DEFAULT_KEEP, DEFAULT_TRIGGER_TOKENS, MIN_SUMMARY_TOKENS, Folder, Policy
from .policy import DEFAULT_SUMMARY_MAX_TOKENS, default_summary_cap

__all__ = ["compress", "maybe_compress"]

def compress(messages: list[dict[str, Any]], llm: Any, keep: int = DEFAULT_KEEP) -> list[Any]:
    """The seed's ``compress``: fold everything but the last ``keep`` messages, now.

    Same call, same output shape (``pinned system + [summary] + recent``), with the seed's
    defects fixed: the window never splits a tool call from its results, every existing
    summary is read, tool calls are in the transcript, the summary is capped, and a failing
    ``llm`` raises :class:`SummarizerError` with nothing changed.

    Args:
        messages: The conversation.
        llm: An object with ``summarize(text) -> str`` (or a chatfold summarizer).
        keep: Messages kept verbatim.

    Returns:
        The folded list, or ``messages`` itself when there is nothing to fold.

    Example:
        >>> class LLM:
        ...     def summarize(self, text): return "用户想去杭州玩三天。"
        >>> msgs = [{"role": "system", "content": "你是助手"}] + [
        ...     {"role": "user", "content": f"第{i}条"} for i in range(8)]
        >>> out = compress(msgs, LLM(), keep=4)
        >>> [m["content"] for m in out][:2], len(out)
        (['你是助手', '历史摘要: 用户想去杭州玩三天。'], 6)
    """
    folder = Folder(llm, _compat_policy(keep, trigger=None))
    return folder.fold(messages, force=True, exact_keep=True).messages


def maybe_compress(
    messages: list[dict[str, Any]],
    llm: Any,
    max_tokens: int = DEFAULT_TRIGGER_TOKENS,
    keep: int = DEFAULT_KEEP,
) -> list[Any]:
    """The seed's ``maybe_compress``: fold only above ``max_tokens``; otherwise return the
    input list itself.

    Unlike the seed, it counts tokens by script (English is not over-counted 2.4x), folds down
    to the default target (the summary's cap plus a twentieth of ``max_tokens``) so the next
    turns do not fold again, and skips a fold that could not free enough. A conversation whose
    pinned head plus latest message exceed the budget is returned folded as far as possible,
    with a warning (the seed never raised).

    Example:
        >>> class LLM:
        ...     def summarize(self, text): return "summary"
        >>> short = [{"role": "user", "content": "hi"}]
        >>> maybe_compress(short, LLM()) is short
        True
    """
    return _compat_folder(llm, max_tokens, keep).fold(messages).messages


# The seed's signature has nowhere to keep per-conversation state, so maybe_compress keeps a
# few folders (and their counting memos) keyed by llm and settings: a chat loop calling it on
# a growing list then pays for the new messages only.
_COMPAT_FOLDERS: dict[tuple[int, int, int], Folder] = {}
_COMPAT_FOLDERS_MAX = 32
_COMPAT_FOLDERS_LOCK = threading.Lock()


def _compat_folder(llm: Any, max_tokens: int, keep: int) -> Folder:
    key = (id(llm), max_tokens, keep)
    with _COMPAT_FOLDERS_LOCK:
        folder = _COMPAT_FOLDERS.get(key)
        if folder is not None and folder.summarizer is llm:
            return folder
    folder = Folder(llm, _compat_policy(keep, trigger=max_tokens))
    with _COMPAT_FOLDERS_LOCK:
        if len(_COMPAT_FOLDERS) >= _COMPAT_FOLDERS_MAX:
            _COMPAT_FOLDERS.pop(next(iter(_COMPAT_FOLDERS)))
        _COMPAT_FOLDERS[key] = folder
    return folder


def _compat_policy(keep: int, trigger: int | None) -> Policy:
    # The seed's summary is 200 Chinese characters (about 400 tokens) whatever the budget: the
    # seed's API keeps that cap, where Policy's own default grows with the trigger.
    if trigger is None:
        # compress() has no budget: any trigger works since it always forces the fold.
        return Policy(trigger_tokens=10**9, target_tokens=10**9, keep=keep,
                      summary_max_tokens=DEFAULT_SUMMARY_MAX_TOKENS, on_overflow="keep")
    # The seed accepted any max_tokens: a tiny one still gets a target the summary fits under.
    trigger = max(trigger, 3 * MIN_SUMMARY_TOKENS)
    return Policy(trigger_tokens=trigger, keep=keep, on_overflow="keep",
                  summary_max_tokens=min(DEFAULT_SUMMARY_MAX_TOKENS, default_summary_cap(trigger)))
