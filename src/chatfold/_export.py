"""Provider-safe export: what a provider would reject, and the request it accepts.

:func:`provider_problems` lists every problem of a message list for OpenAI-compatible APIs and
for Anthropic's Messages API; :func:`to_openai` and :func:`to_anthropic` raise on the first
error it finds and otherwise convert. Re-exported by :mod:`chatfold.messages`, which is where
callers import them from; this module holds them only to keep that one readable.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ._errors import InvalidMessageError
from .messages import (
    OPENAI_KEYS,
    PINNED_KEY,
    SUMMARY_KEY,
    Message,
    Part,
    _part_text,
    content_text,
    is_summary,
    iter_parts,
    validate_messages,
)

__all__ = ["Problem", "Provider", "Severity", "provider_problems", "to_anthropic", "to_openai",
           "to_openai_message"]

Provider = Literal["openai", "anthropic"]
Severity = Literal["error", "warning", "info"]

_ANTHROPIC_ID = re.compile(r"[A-Za-z0-9_-]+")

_Add = Callable[..., None]
"""Records one problem: ``add(index, text, severity="error")``."""


@dataclass(frozen=True)
class Problem:
    """Something a provider would reject (or that an export changes) in a message list."""

    index: int | None
    """The message it is about (``None``: the list as a whole)."""
    problem: str
    """What is wrong, in plain English."""
    severity: Severity = "error"
    """``error``: the provider rejects it and the export refuses; ``warning``: the raw list
    would be rejected but the export fixes it; ``info``: the export drops a chatfold marker."""
    provider: Literal["openai", "anthropic", "all"] = "all"
    """Which provider rejects it (``all``: both)."""


def provider_problems(messages: Sequence[Message],
                      provider: Provider | None = None) -> list[Problem]:
    """Everything a provider would reject in ``messages``, in message order.

    The checks behind :func:`to_openai` and :func:`to_anthropic` (which raise on the first
    ``error``) and ``chatfold inspect``: tool results without their call right before them, tool
    calls without their results, duplicate tool ids, arguments that are not a JSON object, and
    for Anthropic a request with no user or assistant message. ``warning`` and ``info`` items
    say what the export changes (unknown keys dropped, system notes moved, empty text dropped).

    Args:
        messages: The list to check (each message is validated first).
        provider: ``"openai"``, ``"anthropic"``, or ``None`` for both (a problem both share is
            reported once, with ``provider="all"``).

    Raises:
        InvalidMessageError: a message is malformed (see :func:`validate_message`).

    Example:
        >>> call = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1",
        ...     "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
        >>> [p.problem for p in provider_problems([{"role": "user", "content": "hi"}, call])]
        ['tool call c1 (f) has no result after it (providers answer 400)']
    """
    validate_messages(messages)
    if provider is not None:
        return _problems(messages, provider)
    openai, anthropic = _problems(messages, "openai"), _problems(messages, "anthropic")
    shared = {(p.index, p.problem, p.severity) for p in openai} & {
        (p.index, p.problem, p.severity) for p in anthropic}
    merged: list[Problem] = []
    for p in [*openai, *anthropic]:
        key = (p.index, p.problem, p.severity)
        if key in shared:
            if p.provider == "openai":
                merged.append(Problem(p.index, p.problem, p.severity, "all"))
        else:
            merged.append(p)
    return sorted(merged, key=lambda p: -1 if p.index is None else p.index)


def _problems(messages: Sequence[Message], provider: Provider) -> list[Problem]:
    found: list[Problem] = []

    def add(index: int | None, text: str, severity: Severity = "error") -> None:
        found.append(Problem(index, text, severity, provider))

    calls: dict[str, int] = {}  # every call id -> the message making it
    answered: set[str] = set()
    pending: dict[str, str | None] = {}  # calls of the latest call message still unanswered

    def close(before: int | None) -> None:
        for call_id, name in pending.items():
            add(calls[call_id], f"tool call {call_id} ({name}) has no result after it "
                "(providers answer 400)" if before is None else
                f"tool call {call_id} ({name}) has no result before message {before} "
                "(its results must come right after it; providers answer 400)")
        pending.clear()

    anthropic = provider == "anthropic"
    content_messages = 0
    started = False
    for i, m in enumerate(messages):
        role = m.get("role")
        parts = list(iter_parts(m))
        misplaced = [p for p in parts if (p.type == "tool_use" and role != "assistant")
                     or (p.type == "tool_result" and role != "user")]
        if misplaced:
            add(i, f"a {misplaced[0].type} block in a {role!r} message (only assistant "
                "messages call tools, only user messages carry their results)")
            parts = [p for p in parts if p not in misplaced]
        if role in ("system", "developer"):
            if started and not is_summary(m) and anthropic:
                add(i, "system message after the conversation started: Anthropic accepts none "
                    "mid-list (to_anthropic moves it into 'system')", "warning")
            if not anthropic and pending:
                close(i)  # OpenAI wants the results right after the call
            _key_problems(m, i, provider, add)
            continue
        started = True
        # What to_anthropic keeps of it: tool results, non-text parts, text that is not blank
        # (a legacy function result is sent as its text).
        if role == "tool" or any(p.text.strip() if p.kind == "text" or role == "function"
                                 else True for p in parts):
            content_messages += 1
        if anthropic and role != "function":
            for p in parts:
                if p.kind == "text" and not p.text.strip():
                    where = "content" if p.position is None else f"content[{p.position}]"
                    add(i, f"empty text in {where}: Anthropic rejects empty text blocks "
                        "(to_anthropic drops it)", "warning")
        if role == "function":
            continue  # legacy function results carry no id to pair
        results = [p for p in parts if p.kind == "tool_result"]
        for r in results:
            if r.id is not None and r.id in pending:
                del pending[r.id]
                answered.add(r.id)
            elif r.id is not None and r.id in answered:
                add(i, f"a second result for tool call {r.id} (providers answer 400)")
            elif r.id is not None and r.id in calls:
                add(i, f"tool result for call {r.id} after an intervening message: results "
                    "must come right after their call (providers answer 400)")
            else:
                add(i, "tool result without a matching tool call earlier in the list "
                    "(providers answer 400)")
        if any(p.kind != "tool_result" for p in parts) or not results:
            close(i)  # a message that is not only results ends the call's answer
        for p in parts:
            if p.kind == "tool_call" and p.type != "function_call":
                _call_problems(p, i, provider, calls, pending, add)
        _key_problems(m, i, provider, add)
    close(None)
    if anthropic and not content_messages:
        add(None, "no user or assistant message with content: the Messages API needs at "
            "least one (a body with 'messages': [] is rejected)")
    found.sort(key=lambda p: -1 if p.index is None else p.index)
    return found


def _call_problems(part: Part, i: int, provider: Provider, calls: dict[str, int],
                   pending: dict[str, str | None], add: _Add) -> None:
    if not part.id:
        add(i, f"tool call ({part.name}) without an id (providers answer 400)")
        return
    if part.id in calls:
        add(i, f"duplicate tool call id {part.id} (first used by message {calls[part.id]}; "
            "providers answer 400)")
        return
    calls[part.id] = i
    pending[part.id] = part.name
    if provider == "anthropic" and not _ANTHROPIC_ID.fullmatch(part.id):
        add(i, f"tool call id {part.id!r} has characters Anthropic rejects (only letters, "
            "digits, '_' and '-')")
    args = part.arguments
    what = f"arguments of tool call {part.id} ({part.name})"
    if part.type == "tool_use":
        if not isinstance(args, Mapping):
            add(i, f"{what} must be a JSON object, got {type(args).__name__}")
    elif isinstance(args, Mapping):
        if provider == "openai":
            add(i, f"{what} given as an object: to_openai writes them as a JSON string",
                "warning")
    elif isinstance(args, str):
        if args.strip():
            try:
                parsed = json.loads(args)
            except (ValueError, RecursionError):
                add(i, f"{what} are not valid JSON (providers answer 400)")
            else:
                if not isinstance(parsed, dict):
                    add(i, f"{what} must be a JSON object, got JSON "
                        f"{type(parsed).__name__}")
    else:
        add(i, f"{what} must be a JSON string of an object, got {type(args).__name__}")


def _key_problems(m: Message, i: int, provider: Provider, add: _Add) -> None:
    if provider != "openai":
        return
    unknown = sorted(str(k) for k in m if k not in OPENAI_KEYS)
    markers = [k for k in unknown if k in (SUMMARY_KEY, PINNED_KEY)]
    others = [k for k in unknown if k not in markers]
    if others:
        add(i, f"unknown key(s) {', '.join(map(repr, others))}: strict endpoints reject "
            "them (to_openai drops them)", "warning")
    if markers:
        add(i, f"chatfold marker(s) {', '.join(map(repr, markers))}: to_openai drops them",
            "info")


def _raise_first_error(messages: Sequence[Message], provider: Provider) -> None:
    for p in provider_problems(messages, provider):
        if p.severity == "error":
            raise InvalidMessageError(p.index, p.problem)


def to_openai(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Messages an OpenAI-compatible API accepts: chatfold's keys (``is_summary``,
    ``pinned``) and any other unknown key removed; Anthropic tool blocks converted.

    Raises:
        InvalidMessageError: a message is malformed, or the list has a problem the provider
            rejects (see :func:`provider_problems`): the error names the first.
    """
    _raise_first_error(messages, "openai")
    out: list[dict[str, Any]] = []
    for m in messages:
        out.extend(to_openai_message(m))
    return out


def to_openai_message(message: Message) -> list[dict[str, Any]]:
    """One (valid) message as an OpenAI-compatible API accepts it, without the pairing check
    of :func:`to_openai`: unknown keys dropped, Anthropic tool blocks converted (a user
    message of ``tool_result`` blocks becomes one ``tool`` message per result), arguments
    given as an object written as a JSON string."""
    content = message.get("content")
    if isinstance(content, list) and any(
        isinstance(p, Mapping) and p.get("type") in ("tool_use", "tool_result") for p in content
    ):
        return _anthropic_blocks_to_openai(message)
    out = {k: v for k, v in message.items() if k in OPENAI_KEYS}
    calls = out.get("tool_calls")
    if isinstance(calls, list) and any(
        isinstance(c, Mapping) and isinstance(c.get("function"), Mapping)
        and isinstance(c["function"].get("arguments"), Mapping) for c in calls
    ):
        out["tool_calls"] = [_string_arguments(c) for c in calls]
    return [out]


def _string_arguments(call: Any) -> Any:
    fn = call.get("function") if isinstance(call, Mapping) else None
    if not isinstance(fn, Mapping) or not isinstance(fn.get("arguments"), Mapping):
        return call
    args = json.dumps(fn["arguments"], ensure_ascii=False)
    return {**call, "function": {**fn, "arguments": args}}


def _anthropic_blocks_to_openai(m: Message) -> list[dict[str, Any]]:
    content = m.get("content") or []
    texts = [p for p in content if p.get("type") not in ("tool_use", "tool_result")]
    if m.get("role") == "assistant":
        calls = [
            {
                "id": str(p.get("id")),
                "type": "function",
                "function": {
                    "name": str(p.get("name")),
                    "arguments": json.dumps(p.get("input", {}), ensure_ascii=False),
                },
            }
            for p in content
            if p.get("type") == "tool_use"
        ]
        text = content_text(texts)
        return [{"role": "assistant", "content": text or None, "tool_calls": calls}]
    results: list[dict[str, Any]] = [
        {
            "role": "tool",
            "tool_call_id": str(p.get("tool_use_id")),
            "content": content_text(p.get("content")),
        }
        for p in content
        if p.get("type") == "tool_result"
    ]
    if texts:
        results.append({"role": "user", "content": content_text(texts)})
    return results


def _openai_part_to_anthropic(part: Mapping[str, Any]) -> dict[str, Any]:
    kind = part.get("type")
    if kind == "image_url":
        url = part.get("image_url")
        url = url.get("url") if isinstance(url, Mapping) else url
        if isinstance(url, str) and url.startswith("data:") and ";base64," in url:
            media, data = url[5:].split(";base64,", 1)
            source = {"type": "base64", "media_type": media, "data": data}
            return {"type": "image", "source": source}
        return {"type": "image", "source": {"type": "url", "url": str(url)}}
    if kind in ("text", "image", "document", "tool_use", "tool_result", "thinking"):
        return dict(part)
    return {"type": "text", "text": _part_text(part)}


def _anthropic_content(m: Message) -> list[dict[str, Any]]:
    role = m.get("role")
    blocks: list[dict[str, Any]] = []
    if role == "tool":
        return [
            {
                "type": "tool_result",
                "tool_use_id": str(m.get("tool_call_id")),
                "content": content_text(m.get("content")),
            }
        ]
    content = m.get("content")
    if isinstance(content, str):
        blocks.append({"type": "text", "text": content})
    elif isinstance(content, list):
        blocks.extend(_openai_part_to_anthropic(p) for p in content)
    for call in m.get("tool_calls") or ():
        fn = call.get("function") or {}
        args = fn.get("arguments") or "{}"
        parsed = json.loads(args) if isinstance(args, str) else dict(args)  # checked before
        blocks.append(
            {"type": "tool_use", "id": str(call.get("id")), "name": str(fn.get("name")),
             "input": parsed}
        )
    # Anthropic rejects empty text blocks, and wants tool results before any text.
    blocks = [b for b in blocks if b.get("type") != "text" or str(b.get("text", "")).strip()]
    blocks.sort(key=lambda b: b.get("type") != "tool_result")
    return blocks


def to_anthropic(messages: Sequence[Message]) -> dict[str, Any]:
    """A Messages API request body (``system`` and ``messages``) for Anthropic.

    Every system message (pinned prompt, rolling summary, mid-list system notes) goes into
    the top-level ``system`` string, in order; consecutive same-role messages are merged so
    roles alternate; tool calls and results become ``tool_use`` / ``tool_result`` blocks;
    empty text blocks (which the API rejects) are dropped.

    Example:
        >>> body = to_anthropic([{"role": "system", "content": "Be brief."},
        ...     {"role": "system", "content": "历史摘要: 用户叫小王", "is_summary": True},
        ...     {"role": "user", "content": "hi"}])
        >>> body["system"]
        'Be brief.\\n\\n历史摘要: 用户叫小王'
        >>> body["messages"]
        [{'role': 'user', 'content': [{'type': 'text', 'text': 'hi'}]}]

    Raises:
        InvalidMessageError: a message is malformed, or the list has a problem the provider
            rejects (see :func:`provider_problems`), such as no user or assistant message at
            all: the error names the first.
    """
    _raise_first_error(messages, "anthropic")
    system: list[str] = []
    out: list[dict[str, Any]] = []
    for m in messages:
        role = m.get("role")
        if role in ("system", "developer"):
            system.append(content_text(m.get("content")))
            continue
        target = "assistant" if role == "assistant" else "user"
        blocks = _anthropic_content(m)
        if not blocks:
            continue
        if out and out[-1]["role"] == target:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": target, "content": blocks})
    if not out:  # provider_problems reports this; kept as a guard on the body itself
        raise InvalidMessageError(None, "no user or assistant message with content")
    if out[0]["role"] != "user":
        # The Messages API wants the first turn from the user.
        out.insert(0, {"role": "user", "content": [{"type": "text", "text": "(continued)"}]})
    body: dict[str, Any] = {"messages": out}
    joined = "\n\n".join(s for s in system if s)
    if joined:
        body["system"] = joined
    return body
