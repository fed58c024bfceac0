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
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
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
# provider-safe export

Provider = Literal["openai", "anthropic"]
Severity = Literal["error", "warning", "info"]

_ANTHROPIC_ID = re.compile(r"[A-Za-z0-9_-]+")


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
    provider: str = "all"
    """``openai``, ``anthropic``, or ``all``."""


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
                   pending: dict[str, str | None], add: Any) -> None:
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


def _key_problems(m: Message, i: int, provider: Provider, add: Any) -> None:
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
