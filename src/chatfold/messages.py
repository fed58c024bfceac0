"""Chat messages: validation, text of any content shape, atomic units, provider-safe export.

chatfold works on OpenAI-format message dicts (``{"role": ..., "content": ...}``) and also
understands Anthropic-style content blocks (``tool_use`` / ``tool_result``). Messages are
values: chatfold never mutates them, and a fold returns the unchanged input objects.

A **unit** is the smallest run of messages that can be kept or folded: an assistant message
with ``tool_calls`` (or ``tool_use`` blocks) together with the ``tool`` results that follow it.
Splitting a unit leaves an orphan tool result, which providers reject with a 400.

Example:
    >>> msgs = [
    ...     {"role": "user", "content": "Weather in Paris?"},
    ...     {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
    ...      "function": {"name": "weather", "arguments": '{"city": "Paris"}'}}]},
    ...     {"role": "tool", "tool_call_id": "c1", "content": "18°C, sunny"},
    ...     {"role": "assistant", "content": "18°C and sunny."},
    ... ]
    >>> split_units(msgs)
    [(0, 1), (1, 3), (3, 4)]
    >>> print(format_messages(msgs[1:3]))
    assistant: [calls weather({"city": "Paris"}) id=c1]
    tool (weather, id=c1): 18°C, sunny
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ._errors import InvalidMessageError

__all__ = [
    "OPENAI_KEYS",
    "PINNED_KEY",
    "ROLES",
    "SUMMARY_KEY",
    "check_sequence",
    "content_text",
    "find_orphans",
    "format_messages",
    "is_pinned",
    "is_summary",
    "is_tool_result",
    "message_text",
    "render_message",
    "split_units",
    "to_anthropic",
    "to_openai",
    "to_openai_message",
    "tool_call_ids",
    "tool_result_ids",
    "validate_message",
    "validate_messages",
]

Message = Mapping[str, Any]

ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
"""Roles chatfold accepts (OpenAI's, with ``developer`` and the legacy ``function``)."""

SUMMARY_KEY = "is_summary"
"""The seed's marker of the rolling-summary message."""

PINNED_KEY = "pinned"
"""Mark any message ``{"pinned": True}`` to keep it verbatim forever."""

OPENAI_KEYS = frozenset(
    {"role", "content", "name", "tool_calls", "tool_call_id", "function_call", "refusal", "audio"}
)
"""Keys an OpenAI-compatible API accepts on a message; :func:`to_openai` drops the rest."""


# ---------------------------------------------------------------------------------------------
# validation


def validate_message(message: object, index: int | None = None) -> None:
    """Check one message's shape; raise :class:`InvalidMessageError` naming the problem.

    Args:
        message: The message to check.
        index: Its position in the list, used in the error message.

    Raises:
        InvalidMessageError: missing or unknown role, wrong content type, malformed tool calls.
    """
    if not isinstance(message, Mapping):
        hint = ""
        if callable(getattr(message, "model_dump", None)):
            hint = " (an SDK object: pass message.model_dump(exclude_none=True))"
        raise InvalidMessageError(index, f"expected a dict, got {type(message).__name__}{hint}")
    role = message.get("role")
    if role is None:
        raise InvalidMessageError(index, "missing 'role'")
    if not isinstance(role, str) or role not in ROLES:
        raise InvalidMessageError(
            index, f"unknown role {role!r} (expected one of {', '.join(sorted(ROLES))})"
        )
    content = message.get("content")
    tool_calls = message.get("tool_calls")
    if tool_calls is not None:
        if role != "assistant":
            raise InvalidMessageError(index, f"'tool_calls' on a {role!r} message")
        if not isinstance(tool_calls, list):
            raise InvalidMessageError(index, "'tool_calls' must be a list")
        for k, call in enumerate(tool_calls):
            if not isinstance(call, Mapping) or not isinstance(call.get("id"), str):
                raise InvalidMessageError(index, f"tool_calls[{k}] needs a string 'id'")
            fn = call.get("function")
            if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
                raise InvalidMessageError(index, f"tool_calls[{k}] needs function.name")
    if content is None:
        # Only an assistant turn that calls tools (or refuses) may have no content.
        speaks = bool(tool_calls or message.get("function_call") or message.get("refusal"))
        if role != "assistant" or not speaks:
            what = "missing 'content'" if "content" not in message else "content is None"
            raise InvalidMessageError(index, f"{what} on a {role!r} message without tool_calls")
    elif isinstance(content, list):
        for k, part in enumerate(content):
            if not isinstance(part, Mapping) or not isinstance(part.get("type"), str):
                raise InvalidMessageError(
                    index, f"content[{k}] must be a dict with a string 'type'"
                )
            if part["type"] == "text" and not isinstance(part.get("text"), str):
                raise InvalidMessageError(index, f"content[{k}] text part needs a string 'text'")
    elif not isinstance(content, str):
        raise InvalidMessageError(
            index,
            f"content must be a string, None or a list of parts, got {type(content).__name__}",
        )
    if role == "tool" and not isinstance(message.get("tool_call_id"), str):
        raise InvalidMessageError(index, "'tool' message needs a string 'tool_call_id'")
    name = message.get("name")
    if name is not None and not isinstance(name, str):
        raise InvalidMessageError(index, f"'name' must be a string, got {type(name).__name__}")


def check_sequence(messages: object) -> None:
    """Check that ``messages`` is a list (or other sequence) of messages, not a str or dict.

    Raises:
        InvalidMessageError: it is not.
    """
    if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Sequence):
        raise InvalidMessageError(
            None, f"expected a list of messages, got {type(messages).__name__}"
        )


def validate_messages(messages: object) -> None:
    """Check a whole list; the error names the index of the first bad message.

    Raises:
        InvalidMessageError: the list is not a list, or one message is malformed.
    """
    check_sequence(messages)
    assert isinstance(messages, Sequence)
    for i, m in enumerate(messages):
        validate_message(m, i)


# ---------------------------------------------------------------------------------------------
# predicates


def is_summary(message: Message) -> bool:
    """True for chatfold's (and the seed's) rolling-summary message: a *system* message
    marked ``is_summary``. Only chatfold writes summaries, and always as system messages, so
    a user or assistant message carrying the key is an ordinary message, never promoted into
    the summary the summarizer is told to carry forward."""
    return message.get(SUMMARY_KEY) is True and message.get("role") == "system"


def is_pinned(message: Message) -> bool:
    """True for a message marked ``{"pinned": True}``."""
    return bool(message.get(PINNED_KEY))


def is_tool_result(message: Message) -> bool:
    """True for a message that answers a tool call (``tool``/``function`` role, or a user
    message carrying Anthropic ``tool_result`` blocks). Such a message cannot start a unit."""
    role = message.get("role")
    if role in ("tool", "function"):
        return True
    if role == "user":
        content = message.get("content")
        if isinstance(content, list):
            return any(
                isinstance(p, Mapping) and p.get("type") == "tool_result" for p in content
            )
    return False


def tool_call_ids(message: Message) -> list[str]:
    """Ids of the tool calls an assistant message makes (OpenAI or Anthropic shape)."""
    ids: list[str] = []
    for call in message.get("tool_calls") or ():
        ids.append(str(call.get("id")))
    content = message.get("content")
    if isinstance(content, list):
        for part in content:
            if isinstance(part, Mapping) and part.get("type") == "tool_use":
                ids.append(str(part.get("id")))
    return ids


def tool_result_ids(message: Message) -> list[str]:
    """Ids of the tool calls a tool result answers (``tool_call_id`` or ``tool_use_id``)."""
    if message.get("role") == "tool":
        return [str(message.get("tool_call_id"))]
    content = message.get("content")
    if isinstance(content, list):
        return [
            str(p.get("tool_use_id"))
            for p in content
            if isinstance(p, Mapping) and p.get("type") == "tool_result"
        ]
    return []


# ---------------------------------------------------------------------------------------------
# text


def _part_text(part: Mapping[str, Any]) -> str:
    kind = part.get("type")
    if kind in ("text", "input_text", "output_text"):
        return str(part.get("text", ""))
    if kind == "image_url":
        url = part.get("image_url")
        url = url.get("url") if isinstance(url, Mapping) else url
        if isinstance(url, str) and not url.startswith("data:"):
            return f"[image: {url}]"
        return "[image]"
    if kind == "image":
        return "[image]"
    if kind == "input_audio":
        return "[audio]"
    if kind == "file":
        f = part.get("file")
        name = f.get("filename") if isinstance(f, Mapping) else None
        return f"[file: {name}]" if name else "[file]"
    if kind == "document":
        return "[document]"
    if kind == "refusal":
        return str(part.get("refusal", ""))
    if kind == "tool_use":
        args = json.dumps(part.get("input", {}), ensure_ascii=False, sort_keys=True)
        return f"[calls {part.get('name')}({args}) id={part.get('id')}]"
    if kind == "tool_result":
        inner = part.get("content")
        text = content_text(inner) if inner is not None else ""
        err = " error" if part.get("is_error") else ""
        return f"[result{err} id={part.get('tool_use_id')}: {text}]"
    if kind == "thinking":
        return ""
    return f"[{kind}]"


def content_text(content: object) -> str:
    """Text of a message's ``content`` of any shape; non-text parts are described, not repr'd.

    Example:
        >>> content_text([{"type": "text", "text": "Look:"},
        ...               {"type": "image_url", "image_url": {"url": "https://x.test/a.png"}}])
        'Look:\\n[image: https://x.test/a.png]'
    """
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = (_part_text(p) for p in content if isinstance(p, Mapping))
        return "\n".join(t for t in texts if t)
    return str(content)


def _call_text(call: Mapping[str, Any]) -> str:
    fn = call.get("function") or {}
    args = fn.get("arguments", "")
    if not isinstance(args, str):
        args = json.dumps(args, ensure_ascii=False, sort_keys=True)
    return f"[calls {fn.get('name')}({args}) id={call.get('id')}]"


def message_text(message: Message) -> str:
    """Everything in a message that is sent to the model, as text (used for token counting).

    Content of any shape, the ``name``, tool-call names and JSON arguments, tool-call ids.
    """
    pieces = [content_text(message.get("content"))]
    name = message.get("name")
    if name:
        pieces.append(str(name))
    for call in message.get("tool_calls") or ():
        pieces.append(_call_text(call))
    fc = message.get("function_call")
    if isinstance(fc, Mapping):
        pieces.append(f"[calls {fc.get('name')}({fc.get('arguments', '')})]")
    if message.get("role") == "tool":
        pieces.append(str(message.get("tool_call_id", "")))
    return "\n".join(p for p in pieces if p)


def _indent_continuation(text: str) -> str:
    # A newline inside content must not start a line that looks like another speaker's turn.
    return text.replace("\r\n", "\n").replace("\n", "\n  ")


def render_message(message: Message, tool_names: Mapping[str, str] | None = None) -> str:
    """One message as a transcript entry: ``role (name): text``, tool calls and results
    included (the seed's ``_fmt`` printed ``None`` for them)."""
    role = str(message.get("role"))
    name = message.get("name")
    text = content_text(message.get("content"))
    calls = [_call_text(c) for c in message.get("tool_calls") or ()]
    fc = message.get("function_call")
    if isinstance(fc, Mapping):
        calls.append(f"[calls {fc.get('name')}({fc.get('arguments', '')})]")
    if role == "tool":
        call_id = str(message.get("tool_call_id", ""))
        tool = (tool_names or {}).get(call_id) or name
        label = f"tool ({tool}, id={call_id})" if tool else f"tool (id={call_id})"
    elif name:
        label = f"{role} ({name})"
    else:
        label = role
    body = "\n".join(p for p in [text, *calls] if p)
    return f"{label}: {_indent_continuation(body)}"


def format_messages(messages: Iterable[Message]) -> str:
    """A transcript of ``messages``, one entry per message (the seed's ``_fmt``, fixed).

    Tool results are labelled with the name of the tool that produced them.
    """
    names: dict[str, str] = {}
    lines = []
    for m in messages:
        for call in m.get("tool_calls") or ():
            fn = call.get("function") or {}
            names[str(call.get("id"))] = str(fn.get("name"))
        content = m.get("content")
        if isinstance(content, list):
            for p in content:
                if isinstance(p, Mapping) and p.get("type") == "tool_use":
                    names[str(p.get("id"))] = str(p.get("name"))
        lines.append(render_message(m, names))
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# units


def split_units(messages: Sequence[Message]) -> list[tuple[int, int]]:
    """Split into atomic units, as ``(start, stop)`` index ranges covering the list in order.

    A tool result never starts a unit: it stays with the message before it, so a unit
    boundary can never separate a tool call from its results.
    """
    units: list[tuple[int, int]] = []
    start = 0
    for i in range(1, len(messages)):
        if not is_tool_result(messages[i]):
            units.append((start, i))
            start = i
    if messages:
        units.append((start, len(messages)))
    return units


def find_orphans(messages: Sequence[Message]) -> list[int]:
    """Indices of tool results whose call is not in an earlier assistant message of the list.

    Providers reject such a request; chatfold's folds never create one.
    """
    seen: set[str] = set()
    orphans = []
    for i, m in enumerate(messages):
        if m.get("role") == "assistant":
            seen.update(tool_call_ids(m))
        if is_tool_result(m):
            ids = tool_result_ids(m)
            if m.get("role") == "function":
                continue  # legacy function results carry no id to pair
            if not ids or any(x not in seen for x in ids):
                orphans.append(i)
    return orphans


# ---------------------------------------------------------------------------------------------
# provider-safe export


def to_openai(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Messages an OpenAI-compatible API accepts: chatfold's keys (``is_summary``,
    ``pinned``) and any other unknown key removed; Anthropic tool blocks converted.

    Raises:
        InvalidMessageError: a message is malformed, or a tool result has no matching call.
    """
    validate_messages(messages)
    out: list[dict[str, Any]] = []
    for m in messages:
        out.extend(to_openai_message(m))
    orphans = find_orphans(out)
    if orphans:
        raise InvalidMessageError(
            orphans[0], "tool result without a matching tool call earlier in the list"
        )
    return out


def to_openai_message(message: Message) -> list[dict[str, Any]]:
    """One (valid) message as an OpenAI-compatible API accepts it, without the pairing check
    of :func:`to_openai`: unknown keys dropped, Anthropic tool blocks converted (a user
    message of ``tool_result`` blocks becomes one ``tool`` message per result)."""
    content = message.get("content")
    if isinstance(content, list) and any(
        isinstance(p, Mapping) and p.get("type") in ("tool_use", "tool_result") for p in content
    ):
        return _anthropic_blocks_to_openai(message)
    return [{k: v for k, v in message.items() if k in OPENAI_KEYS}]


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
        if content:
            blocks.append({"type": "text", "text": content})
    elif isinstance(content, list):
        blocks.extend(_openai_part_to_anthropic(p) for p in content)
    for call in m.get("tool_calls") or ():
        fn = call.get("function") or {}
        args = fn.get("arguments") or "{}"
        try:
            parsed = json.loads(args) if isinstance(args, str) else dict(args)
        except ValueError:
            parsed = {"arguments": args}
        blocks.append(
            {"type": "tool_use", "id": str(call.get("id")), "name": str(fn.get("name")),
             "input": parsed}
        )
    return blocks


def to_anthropic(messages: Sequence[Message]) -> dict[str, Any]:
    """A Messages API request body (``system`` and ``messages``) for Anthropic.

    Every system message (pinned prompt, rolling summary, mid-list system notes) goes into
    the top-level ``system`` string, in order; consecutive same-role messages are merged so
    roles alternate; tool calls and results become ``tool_use`` / ``tool_result`` blocks.

    Example:
        >>> body = to_anthropic([{"role": "system", "content": "Be brief."},
        ...     {"role": "system", "content": "历史摘要: 用户叫小王", "is_summary": True},
        ...     {"role": "user", "content": "hi"}])
        >>> body["system"]
        'Be brief.\\n\\n历史摘要: 用户叫小王'
        >>> body["messages"]
        [{'role': 'user', 'content': [{'type': 'text', 'text': 'hi'}]}]

    Raises:
        InvalidMessageError: a message is malformed, or a tool result has no matching call.
    """
    validate_messages(messages)
    orphans = find_orphans(messages)
    if orphans:
        raise InvalidMessageError(
            orphans[0], "tool result without a matching tool call earlier in the list"
        )
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
    if out and out[0]["role"] != "user":
        # The Messages API wants the first turn from the user.
        out.insert(0, {"role": "user", "content": [{"type": "text", "text": "(continued)"}]})
    body: dict[str, Any] = {"messages": out}
    if system:
        body["system"] = "\n\n".join(s for s in system if s)
    return body
