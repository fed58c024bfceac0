"""Chat messages: validation, text of any content shape, atomic units, provider-safe export.

chatfold works on OpenAI-format message dicts (``{"role": ..., "content": ...}``) and also
understands Anthropic-style content blocks (``tool_use`` / ``tool_result``). Messages are
values: chatfold never mutates them, and a fold returns the unchanged input objects.

A **unit** is the smallest run of messages that can be kept or folded: an assistant message
with ``tool_calls`` (or ``tool_use`` blocks) together with the ``tool`` results that follow it.
Splitting a unit leaves an orphan tool result, which providers reject with a 400.

Every shape is read through one walker, :func:`iter_parts` (text, tool call, tool result,
other part); text, rendering, tool ids and the provider checks are written on top of it.
Text that is not valid Unicode (a lone UTF-16 surrogate) is rejected by
:func:`validate_message`, so it can never be stored and stop later folds.
:func:`provider_problems` lists what a provider would reject; :func:`to_openai` and
:func:`to_anthropic` raise on it (they live in ``_export.py`` and are imported here).

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
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal, NamedTuple

from ._errors import InvalidMessageError

__all__ = [
    "OPENAI_KEYS",
    "PINNED_KEY",
    "ROLES",
    "SUMMARY_KEY",
    "Part",
    "Problem",
    "check_sequence",
    "content_text",
    "find_orphans",
    "find_surrogate",
    "format_messages",
    "is_pinned",
    "is_summary",
    "is_tool_result",
    "iter_parts",
    "message_text",
    "provider_problems",
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
    if type(message) is dict and len(message) == 2:
        # The common turn, {"role": ..., "content": "text"}: one look at each field (an ASCII
        # text holds no surrogate); anything else takes the full walk below.
        role = message.get("role")
        content = message.get("content")
        if (type(content) is str and role in _TEXT_ROLES and type(role) is str
                and (content.isascii() or _SURROGATE.search(content) is None)):
            return
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
    bad = find_surrogate(message)
    if bad is not None:
        raise InvalidMessageError(index, bad)


_SURROGATE = re.compile("[\ud800-\udfff]")
_TEXT_ROLES = frozenset({"system", "developer", "user", "assistant"})
"""Roles whose message may be just a role and a text (a tool result needs its call's id)."""


def _has_surrogate(value: object) -> bool:
    # Iterative (data may nest deeper than the recursion limit) and cycle-safe.
    seen: set[int] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not item.isascii() and _SURROGATE.search(item):
                return True
        elif isinstance(item, (dict, list, tuple, Mapping)):  # dict first: the fast case
            if id(item) in seen:
                continue
            seen.add(id(item))
            if isinstance(item, Mapping):
                stack.extend(item.keys())
                stack.extend(item.values())
            else:
                stack.extend(item)
    return False


def find_surrogate(value: object) -> str | None:
    """Where ``value`` (a message, or any JSON-like data) holds an unpaired UTF-16 surrogate.

    chatfold's rule for text that is not valid Unicode: it is **rejected where it enters**
    (:func:`validate_message`, which appending, folding, exporting and the command line's file
    readers all run), never stored. One lone surrogate (``"\\ud83d"`` in JSON, or bytes
    decoded with ``surrogateescape``) cannot be encoded as UTF-8, so every summarizer would
    fail on it and folding would stop for good; replacing it silently would change the
    user's text. Returns ``None`` when all is well, else a description naming the field.

    Example:
        >>> print(find_surrogate({"role": "user", "content": [{"type": "text",
        ...                                                    "text": "a\\ud83d"}]}))
        content[0].text holds an unpaired UTF-16 surrogate (U+D83D at character 1): not valid ...
    """
    if type(value) is dict:
        # The common message, every key and value a string: one join and one scan, in C.
        try:
            flat = "".join(value) + "".join(value.values())
        except TypeError:
            pass  # a value that is not a string: walk it below
        else:
            if flat.isascii() or _SURROGATE.search(flat) is None:
                return None
    if not _has_surrogate(value):
        return None  # the common case: no path strings built
    seen: set[int] = set()
    stack: list[tuple[str, object]] = [("", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            hit = None if item.isascii() else _SURROGATE.search(item)
            if hit is not None:
                where = path or "the text"
                return (f"{where} holds an unpaired UTF-16 surrogate (U+{ord(hit.group()):04X} "
                        f"at character {hit.start()}): not valid Unicode text; decode the "
                        'source with errors="replace" or fix it')
        elif isinstance(item, (Mapping, list, tuple)):
            if id(item) in seen:
                continue
            seen.add(id(item))
            if isinstance(item, Mapping):
                children = []
                for k, v in item.items():
                    key = str(k)
                    if isinstance(k, str) and not k.isascii() and _SURROGATE.search(k):
                        children.append((f"{path}.<key>" if path else "a key", k))
                    children.append((f"{path}.{key}" if path else key, v))
            else:
                children = [(f"{path}[{j}]", v) for j, v in enumerate(item)]
            stack.extend(reversed(children))
    return None


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
# parts

PartKind = Literal["text", "tool_call", "tool_result", "other"]


class Part(NamedTuple):
    """One piece of a message, whatever its shape (see :func:`iter_parts`).

    A named tuple rather than a dataclass: one is made per part on every walk, and walks run
    under token counting and rendering.
    """

    kind: PartKind
    """``text``, ``tool_call``, ``tool_result`` or ``other`` (image, file, thinking, ...)."""
    type: str
    """Where it came from: the content part's ``type`` (``text``, ``tool_use``,
    ``image_url``, ...), ``tool_calls`` / ``function_call`` for OpenAI calls, and the role
    (``tool`` / ``function``) for a whole tool-result message."""
    text: str = ""
    """A text part's text, a tool result's text, or a short description of another part
    (``[image: https://...]``); empty for a call."""
    id: str | None = None
    """A call's id, or the id of the call a result answers (``None`` when absent)."""
    name: str | None = None
    """A call's function name (a legacy ``function`` result's name)."""
    arguments: object = None
    """A call's arguments as given: a JSON string (OpenAI) or an object (Anthropic)."""
    is_error: bool = False
    """A tool result marked ``is_error``."""
    position: int | None = None
    """Position in ``content`` (or in ``tool_calls``); ``None`` for message-level parts."""


def _opt_str(value: object) -> str | None:
    return None if value is None else str(value)


def _content_parts(content: object) -> Iterator[Part]:
    if content is None:
        return
    if isinstance(content, str):
        if content:
            yield Part("text", "text", content)
        return
    if not isinstance(content, list):
        yield Part("text", "text", str(content))
        return
    for k, p in enumerate(content):
        if not isinstance(p, Mapping):
            continue
        kind = p.get("type")
        if kind == "tool_use":
            yield Part("tool_call", "tool_use", id=_opt_str(p.get("id")),
                       name=_opt_str(p.get("name")), arguments=p.get("input", {}), position=k)
        elif kind == "tool_result":
            inner = p.get("content")
            yield Part("tool_result", "tool_result", content_text(inner) if inner is not None
                       else "", id=_opt_str(p.get("tool_use_id")),
                       is_error=bool(p.get("is_error")), position=k)
        elif kind in ("text", "input_text", "output_text", "refusal"):
            field = "refusal" if kind == "refusal" else "text"
            yield Part("text", str(kind), str(p.get(field, "")), position=k)
        else:
            yield Part("other", str(kind), _describe(p), position=k)


def iter_parts(message: Message) -> Iterator[Part]:
    """Every part of a message in order, in one shape whatever the provider's.

    Content parts come first (text; Anthropic ``tool_use`` / ``tool_result`` blocks; images,
    files and other parts), then OpenAI ``tool_calls``, then a legacy ``function_call``. A
    ``tool`` (or legacy ``function``) message is one ``tool_result`` part holding its content.

    Example:
        >>> m = {"role": "assistant", "content": "Checking.", "tool_calls": [{"id": "c1",
        ...      "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
        >>> [(p.kind, p.id) for p in iter_parts(m)]
        [('text', None), ('tool_call', 'c1')]
    """
    role = message.get("role")
    content = message.get("content")
    if type(content) is str and role not in ("tool", "function") and not (
            message.get("tool_calls") or message.get("function_call")):
        if content:  # the common case, kept fast
            yield Part("text", "text", content)
        return
    if role in ("tool", "function"):
        ident = _opt_str(message.get("tool_call_id")) if role == "tool" else None
        name = _opt_str(message.get("name"))
        yield Part("tool_result", str(role), content_text(message.get("content")), id=ident,
                   name=name)
        return
    yield from _content_parts(content)
    calls = message.get("tool_calls")
    if isinstance(calls, list):
        for k, call in enumerate(calls):
            if not isinstance(call, Mapping):
                continue
            fn = call.get("function")
            fn = fn if isinstance(fn, Mapping) else {}
            yield Part("tool_call", "tool_calls", id=_opt_str(call.get("id")),
                       name=_opt_str(fn.get("name")), arguments=fn.get("arguments", ""),
                       position=k)
    fc = message.get("function_call")
    if isinstance(fc, Mapping):
        yield Part("tool_call", "function_call", name=_opt_str(fc.get("name")),
                   arguments=fc.get("arguments", ""))


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
    return role == "user" and isinstance(message.get("content"), list) and any(
        p.kind == "tool_result" for p in iter_parts(message))


def tool_call_ids(message: Message) -> list[str]:
    """Ids of the tool calls an assistant message makes (OpenAI or Anthropic shape)."""
    if not message.get("tool_calls") and not isinstance(message.get("content"), list):
        return []  # nothing to walk
    return [str(p.id) for p in iter_parts(message)
            if p.kind == "tool_call" and p.type != "function_call"]


def tool_result_ids(message: Message) -> list[str]:
    """Ids of the tool calls a tool result answers (``tool_call_id`` or ``tool_use_id``)."""
    if message.get("role") != "tool" and not isinstance(message.get("content"), list):
        return []  # nothing to walk
    return [str(p.id) for p in iter_parts(message)
            if p.kind == "tool_result" and p.type != "function"]


# ---------------------------------------------------------------------------------------------
# text


def _render(part: Part) -> str:
    # One part as transcript text: calls and results as bracketed notes, never a repr.
    if part.kind == "tool_call":
        args = part.arguments
        if part.type == "tool_use" or not isinstance(args, str):
            args = json.dumps(args, ensure_ascii=False, sort_keys=True, default=str)
        if part.type == "function_call":
            return f"[calls {part.name}({args})]"
        return f"[calls {part.name}({args}) id={part.id}]"
    if part.kind == "tool_result" and part.type == "tool_result":
        err = " error" if part.is_error else ""
        return f"[result{err} id={part.id}: {part.text}]"
    return part.text


def _part_text(part: Mapping[str, Any]) -> str:
    return "\n".join(_render(p) for p in _content_parts([part]))


def _describe(part: Mapping[str, Any]) -> str:
    # A part that is neither text nor a tool call/result, as a short label (never a repr).
    kind = part.get("type")
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
    return "\n".join(t for t in map(_render, _content_parts(content)) if t)


def message_text(message: Message) -> str:
    """Everything in a message that is sent to the model, as text (used for token counting).

    Content of any shape, tool-call names and JSON arguments, tool-call ids, the ``name``.
    """
    pieces = [_render(p) for p in iter_parts(message)]
    name = message.get("name")
    if name:
        pieces.append(str(name))
    if message.get("role") == "tool":
        pieces.append(str(message.get("tool_call_id", "")))
    return "\n".join(p for p in pieces if p)


# Every line boundary str.splitlines() knows: a model reading the transcript may too.
_LINE_BREAK = re.compile("\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")

_LABEL_ESCAPES = {
    c: f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"
    for c in [*range(0x20), 0x7F, *range(0x80, 0xA0), 0x2028, 0x2029]
} | {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"}


def _indent_continuation(text: str) -> str:
    # A line break inside content must not start a line that looks like another speaker's
    # turn: every continuation line is indented, whichever separator broke it.
    return _LINE_BREAK.sub("\n  ", text)


def _label(value: object) -> str:
    # A label (name, tool name, call id) stays on its line: control characters and line
    # separators are written as escapes.
    return str(value).translate(_LABEL_ESCAPES)


def render_message(message: Message, tool_names: Mapping[str, str] | None = None) -> str:
    """One message as a transcript entry: ``role (name): text``, tool calls and results
    included (the seed's ``_fmt`` printed ``None`` for them)."""
    role = str(message.get("role"))
    name = message.get("name")
    if role == "tool":
        call_id = str(message.get("tool_call_id", ""))
        tool = (tool_names or {}).get(call_id) or name
        label = (f"tool ({_label(tool)}, id={_label(call_id)})" if tool
                 else f"tool (id={_label(call_id)})")
    elif name:
        label = f"{_label(role)} ({_label(name)})"
    else:
        label = _label(role)
    body = "\n".join(t for t in map(_render, iter_parts(message)) if t)
    return f"{label}: {_indent_continuation(body)}"


def format_messages(messages: Iterable[Message]) -> str:
    """A transcript of ``messages``, one entry per message (the seed's ``_fmt``, fixed).

    Tool results are labelled with the name of the tool that produced them.
    """
    names: dict[str, str] = {}
    lines = []
    for m in messages:
        if m.get("tool_calls") or isinstance(m.get("content"), list):
            for p in iter_parts(m):
                if p.kind == "tool_call" and p.type != "function_call":
                    names[str(p.id)] = str(p.name)
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
# provider-safe export: in its own module (it reads every shape above), imported from here

from ._export import (  # noqa: E402 - needs the definitions above
    Problem,
    provider_problems,
    to_anthropic,
    to_openai,
    to_openai_message,
)
