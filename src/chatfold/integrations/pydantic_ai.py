"""pydantic-ai: a history processor that folds an agent's message history with chatfold.

pydantic-ai calls an agent's history processors before every model request and keeps what
they return as the run's history (pydantic-ai 2 takes them as the ``ProcessHistory``
capability, ``Agent(capabilities=[processor.capability()])``; pydantic-ai 1 as
``Agent(history_processors=[processor])``). :class:`ChatfoldHistoryProcessor` (sync) and
:class:`AsyncChatfoldHistoryProcessor` (async) fold that history: the system prompt parts
stay, everything older than the recent window becomes chatfold's one rolling summary (a
``SystemPromptPart`` marked in its ``metadata``, rolled forward on the next fold), and the
recent window keeps the original ``ModelRequest`` / ``ModelResponse`` objects. A
``ModelResponse`` with ``ToolCallPart`` s is never separated from the ``ToolReturnPart`` s that
answer it.

How parts map onto chatfold messages: a ``ModelResponse`` is one assistant message (its text
parts, its tool calls); each part of a ``ModelRequest`` is its own message (system prompt,
user prompt, tool return); parts chatfold does not read travel with a neighbour of the same
request.

Example (needs ``pip install 'chatfold[pydantic-ai]'``)::

    from pydantic_ai import Agent
    from chatfold import Policy
    from chatfold.integrations.pydantic_ai import ChatfoldHistoryProcessor

    fold = ChatfoldHistoryProcessor(policy=Policy(trigger_tokens=8000))
    agent = Agent("openai:gpt-4o", system_prompt="You are terse.",
                  capabilities=[fold.capability()])
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from chatfold import Folder, FoldResult, MissingDependencyError, Policy, TokenCounter

try:
    from pydantic_ai.messages import (
        BaseToolReturnPart,
        ModelMessage,
        ModelRequest,
        ModelResponse,
        SystemPromptPart,
        TextPart,
        ToolCallPart,
        UserPromptPart,
    )
except ImportError as exc:  # pragma: no cover - exercised without the extra installed
    raise MissingDependencyError("chatfold.integrations.pydantic_ai", "pydantic-ai") from exc

__all__ = [
    "SUMMARY_METADATA",
    "AsyncChatfoldHistoryProcessor",
    "ChatfoldHistoryProcessor",
    "to_chatfold",
]

SUMMARY_METADATA = {"chatfold": "summary"}
"""``SystemPromptPart.metadata`` of chatfold's summary (kept in the history, never sent)."""

# A chatfold message stands for: a whole response (part None), or some parts of a request.
_Ref = tuple[int, int | None]


def _is_summary(part: object) -> bool:
    meta = getattr(part, "metadata", None)
    return isinstance(part, SystemPromptPart) and isinstance(meta, Mapping) and \
        meta.get("chatfold") == "summary"


def _user_text(content: Any) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    parts: list[dict[str, Any]] = []
    for item in content:
        if isinstance(item, str):
            parts.append({"type": "text", "text": item})
        else:  # images, audio, documents: named, not inlined
            parts.append({"type": str(getattr(item, "kind", type(item).__name__))})
    return parts


def _request_part(part: Any) -> dict[str, Any] | None:
    """The chatfold message for one request part, or ``None`` for parts chatfold does not
    read (they travel with a neighbour)."""
    if _is_summary(part):
        return {"role": "system", "content": part.content, "is_summary": True}
    if isinstance(part, SystemPromptPart):
        return {"role": "system", "content": part.content}
    if isinstance(part, UserPromptPart):
        return {"role": "user", "content": _user_text(part.content)}
    if isinstance(part, BaseToolReturnPart) and part.tool_call_id:
        return {"role": "tool", "tool_call_id": part.tool_call_id,
                "content": part.model_response_str()}
    content = getattr(part, "content", None)
    if isinstance(content, str) and getattr(part, "part_kind", "").startswith("retry"):
        return {"role": "user", "content": content}  # feedback on an unusable response
    return None


def _response(message: ModelResponse) -> dict[str, Any]:
    texts = [p.content for p in message.parts if isinstance(p, TextPart)]
    calls = [{"id": p.tool_call_id, "type": "function",
              "function": {"name": p.tool_name, "arguments": p.args_as_json_str()}}
             for p in message.parts if isinstance(p, ToolCallPart)]
    out: dict[str, Any] = {"role": "assistant", "content": "\n".join(texts)}
    if calls:
        out["tool_calls"] = calls
        out["content"] = out["content"] or None
    return out


def to_chatfold(messages: Sequence[ModelMessage]) -> tuple[list[dict[str, Any]], list[list[_Ref]]]:
    """The history as chatfold messages, with what each one stands for (message index, and
    part index for request parts)."""
    dicts: list[dict[str, Any]] = []
    refs: list[list[_Ref]] = []
    for i, message in enumerate(messages):
        if isinstance(message, ModelResponse):
            dicts.append(_response(message))
            refs.append([(i, None)])
            continue
        start = len(dicts)
        loose: list[_Ref] = []  # unread parts before the request's first read one
        for j, part in enumerate(message.parts):
            d = _request_part(part)
            if d is None:
                (refs[-1] if len(dicts) > start else loose).append((i, j))
                continue
            dicts.append(d)
            refs.append([*loose, (i, j)])
            loose = []
        if loose:  # a request with no part chatfold reads
            dicts.append({"role": "user", "content": ""})
            refs.append(loose)
    return dicts, refs


def _rebuild(messages: Sequence[ModelMessage], dicts: Sequence[dict[str, Any]],
             refs: Sequence[list[_Ref]], result: FoldResult) -> list[ModelMessage]:
    """The folded history: kept parts in their original messages, the summary as a
    ``SystemPromptPart`` in the request just before (or after) where chatfold put it."""
    where = {id(d): r for d, r in zip(dicts, refs, strict=True)}
    entries: list[_Ref | SystemPromptPart] = []
    for d in result.messages:
        if id(d) in where:
            entries.extend(where[id(d)])
        else:
            entries.append(SystemPromptPart(d["content"], metadata=dict(SUMMARY_METADATA)))
    groups: list[tuple[int | None, list[Any]]] = []  # (message index, parts), None: summary
    for e in entries:
        if isinstance(e, SystemPromptPart):
            groups.append((None, [e]))
        elif groups and groups[-1][0] == e[0]:
            groups[-1][1].append(e[1])
        else:
            groups.append((e[0], [e[1]]))
    out: list[ModelMessage] = []
    pending_summary: list[Any] = []
    for index, parts in groups:
        if index is None:
            if out and isinstance(out[-1], ModelRequest):
                out[-1] = dataclasses.replace(out[-1], parts=[*out[-1].parts, *parts])
            else:
                pending_summary = parts
            continue
        message = messages[index]
        if isinstance(message, ModelRequest):
            kept = [message.parts[j] for j in parts if j is not None]
            if pending_summary or len(kept) != len(message.parts):
                message = dataclasses.replace(message, parts=[*pending_summary, *kept])
                pending_summary = []
        elif pending_summary:
            out.append(ModelRequest(parts=pending_summary))
            pending_summary = []
        out.append(message)
    if pending_summary:
        out.append(ModelRequest(parts=pending_summary))
    return out


class _BaseHistoryProcessor:
    """Shared by the sync and async processors: the folder and the conversion."""

    def __init__(self, summarizer: object = None, policy: Policy | None = None, *,
                 counter: TokenCounter | None = None) -> None:
        if summarizer is None:
            from chatfold import ExtractiveSummarizer

            summarizer = ExtractiveSummarizer()
        self.folder = Folder(summarizer, policy, counter=counter)
        self.last_result: FoldResult | None = None
        """The last fold's result (folded or why not), for inspection."""

    def capability(self) -> Any:
        """This processor as pydantic-ai 2's ``ProcessHistory`` capability, for
        ``Agent(capabilities=[...])``."""
        from pydantic_ai.capabilities import ProcessHistory

        return ProcessHistory(self)  # type: ignore[arg-type]  # a sync or async processor


class ChatfoldHistoryProcessor(_BaseHistoryProcessor):
    """A synchronous history processor for a pydantic-ai agent.

    pydantic-ai runs a sync processor in a worker thread, so the summarizer call does not
    block the event loop.

    Args:
        summarizer: What writes the summary (default: chatfold's offline
            ``ExtractiveSummarizer``); any summarizer :class:`~chatfold.Folder` accepts.
        policy: When to fold and how much to keep (default ``Policy()``).
        counter: Token counter (default: chatfold's heuristic).
    """

    def __call__(self, messages: list[ModelMessage]) -> list[ModelMessage]:
        """Fold ``messages`` if the policy says so; the same list when nothing is folded."""
        dicts, refs = to_chatfold(messages)
        self.last_result = result = self.folder.fold(dicts)
        if not result.folded:
            return messages
        return _rebuild(messages, dicts, refs, result)


class AsyncChatfoldHistoryProcessor(_BaseHistoryProcessor):
    """The async twin of :class:`ChatfoldHistoryProcessor` (same arguments): awaits the
    summarizer's ``asummarize`` when it has one."""

    async def __call__(self, messages: list[ModelMessage]) -> list[ModelMessage]:
        """Fold ``messages`` if the policy says so; the same list when nothing is folded."""
        dicts, refs = to_chatfold(messages)
        self.last_result = result = await self.folder.afold(dicts)
        if not result.folded:
            return messages
        return _rebuild(messages, dicts, refs, result)
