"""Conversation files for the command line: read them, write them back in the same format.

Formats understood (detected from the content, not the file name):

- **JSON list** of OpenAI-format messages: ``[{"role": "user", "content": "hi"}, ...]``.
- **JSON object** with a ``"messages"`` list (a request body); its other keys are kept.
- **JSONL**: one message per line (blank lines skipped).
- **LoCoMo**: a JSON list of samples, or one sample, each with a ``"conversation"`` dict of
  ``speaker_a``, ``speaker_b``, ``session_N`` turn lists and ``session_N_date_time``.
  ``speaker_a`` becomes ``user`` and ``speaker_b`` ``assistant`` (``name`` is the speaker),
  each session's first message starts with its date, and a shared photo's caption is kept as
  ``[shares a photo: …]``.

``-`` reads standard input. Errors are :class:`ConversationFileError` naming the file, the line
(JSON syntax, JSONL) or the message index and field.

Example:
    >>> conv = parse_conversation('{"role": "user", "content": "hi"}\\n'
    ...                           '{"role": "assistant", "content": "hello"}\\n', "chat.jsonl")
    >>> conv.format, len(conv.messages)
    ('jsonl', 2)
    >>> print(dump_conversation(conv, conv.messages[:1]), end="")
    {"role": "user", "content": "hi"}
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO

from .._errors import ConversationFileError, InvalidMessageError
from ..messages import find_surrogate, validate_message

__all__ = [
    "MAX_NESTING",
    "ConversationFile",
    "ConversationFileError",
    "Format",
    "dump_conversation",
    "dumps",
    "locomo_messages",
    "parse_conversation",
    "read_conversation",
    "write_conversation",
]

Format = Literal["json", "json-object", "jsonl", "locomo"]

STDIN = "-"
"""The path that means standard input (and standard output for ``-o``)."""

_SESSION_KEY = re.compile(r"^session_(\d+)$")


@dataclass
class ConversationFile:
    """A conversation read from a file, with what is needed to write it back alike."""

    messages: list[dict[str, Any]]
    """The messages, OpenAI format."""
    format: Format
    """The format it was read in."""
    source: str
    """The file name, or ``<stdin>``."""
    extra: dict[str, Any] = field(default_factory=dict)
    """A JSON object's keys other than ``messages`` (kept when writing)."""
    sample: str | None = None
    """LoCoMo: the chosen sample's id (or index)."""
    samples: int = 1
    """LoCoMo: how many samples the file holds."""


# ---------------------------------------------------------------------------------------------
# reading


def read_conversation(path: str | Path, *, sample: str | None = None,
                      stdin: TextIO | None = None) -> ConversationFile:
    """Read a conversation file (``-`` for standard input) in any supported format.

    Args:
        path: The file, or ``-``.
        sample: LoCoMo: which sample (its index or ``sample_id``); default the first.
        stdin: Stream to read for ``-`` (default ``sys.stdin``).

    Raises:
        ConversationFileError: the file cannot be read or holds no valid conversation.
    """
    if str(path) == STDIN:
        source = "<stdin>"
        stream = stdin if stdin is not None else sys.stdin
        try:
            text = stream.read()
        except UnicodeDecodeError as exc:
            raise ConversationFileError(source, f"not UTF-8 text ({exc.reason})") from exc
    else:
        source = str(path)
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8-sig")
        except FileNotFoundError as exc:
            raise ConversationFileError(source, "no such file") from exc
        except IsADirectoryError as exc:
            raise ConversationFileError(source, "is a directory, not a file") from exc
        except UnicodeDecodeError as exc:
            raise ConversationFileError(
                source, f"not UTF-8 text (byte {exc.start}: {exc.reason})") from exc
        except OSError as exc:
            raise ConversationFileError(source, exc.strerror or str(exc)) from exc
    return parse_conversation(text, source, sample=sample)


def parse_conversation(text: str, source: str = "<string>", *,
                       sample: str | None = None) -> ConversationFile:
    """Parse a conversation from ``text`` (see the module docstring for the formats).

    Raises:
        ConversationFileError: not JSON/JSONL, or no valid conversation in it.
    """
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise ConversationFileError(source, "the file is empty")
    jsonl_name = source.endswith((".jsonl", ".ndjson"))
    if not jsonl_name:
        try:
            data = _loads(text, source)
        except json.JSONDecodeError as exc:
            if not exc.msg.startswith("Extra data"):
                raise ConversationFileError(
                    source, f"invalid JSON: {exc.msg} (column {exc.colno})", line=exc.lineno
                ) from exc
            # One JSON value, then more: JSON Lines.
        else:
            return _from_json(data, source, sample)
    return _from_jsonl(text, source)


MAX_NESTING = 100
"""Deepest nesting of arrays and objects a conversation file may have (a message needs ~6)."""


class _NotStandard(ValueError):
    """NaN or an infinite number: Python's json reads them, no other JSON reader does."""


def _no_constant(name: str) -> Any:
    raise _NotStandard(name)


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _NotStandard(f"{text} (too large for a number)")
    return value


def _loads(text: str, source: str, *, line: int | None = None) -> Any:
    """``json.loads`` of a file's text; any problem but a syntax error (which the caller
    places) is a ConversationFileError: NaN/Infinity, huge numbers, deep nesting."""
    try:
        data = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except json.JSONDecodeError:
        raise
    except _NotStandard as exc:
        raise ConversationFileError(
            source, f"{exc} is not standard JSON (write null or a string)", line=line) from None
    except RecursionError:
        raise ConversationFileError(
            source, f"nested too deeply (at most {MAX_NESTING} levels)", line=line) from None
    except ValueError as exc:  # an integer of more than 4300 digits
        problem = "a number with too many digits" if "digits" in str(exc) else str(exc)
        raise ConversationFileError(source, f"unreadable JSON: {problem}", line=line) from None
    if _nesting(data) > MAX_NESTING:
        raise ConversationFileError(
            source, f"nested too deeply (at most {MAX_NESTING} levels)", line=line)
    return data


def _nesting(data: Any) -> int:
    # Iterative: the data may be nested deeper than Python's recursion limit allows.
    deepest = 0
    stack = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_NESTING:
            break
        stack.extend((child, depth + 1) for child in children)
    return deepest


_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps(value: Any, *, indent: int | None = None) -> str:
    """``value`` as standard JSON that encodes as UTF-8 whatever it holds: never NaN or
    Infinity, and a lone surrogate (a file name with undecodable bytes) as a ``\\u`` escape."""
    text = json.dumps(value, ensure_ascii=False, indent=indent, allow_nan=False)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _from_json(data: object, source: str, sample: str | None) -> ConversationFile:
    if isinstance(data, list):
        if data and all(isinstance(x, Mapping) and "conversation" in x for x in data):
            return _from_locomo(data, source, sample)
        return ConversationFile(_messages(data, source), "json", source)
    if isinstance(data, Mapping):
        if "conversation" in data:
            return _from_locomo([data], source, sample)
        if "messages" in data:
            extra = {k: v for k, v in data.items() if k != "messages"}
            bad = find_surrogate(extra)
            if bad is not None:
                raise ConversationFileError(source, bad)
            msgs = data["messages"]
            if not isinstance(msgs, list):
                raise ConversationFileError(
                    source, f"'messages' must be a list, got {type(msgs).__name__}")
            return ConversationFile(_messages(msgs, source), "json-object", source, extra)
        if "role" in data:  # a one-line JSONL file
            return ConversationFile(_messages([data], source, lines=[1]), "jsonl", source)
        raise ConversationFileError(
            source, "a JSON object needs a 'messages' list (or a LoCoMo 'conversation')")
    raise ConversationFileError(
        source, f"expected a list of messages or an object, got JSON {type(data).__name__}")


def _from_jsonl(text: str, source: str) -> ConversationFile:
    items: list[Any] = []
    lines: list[int] = []
    # JSON Lines are separated by "\n" only: U+2028 and friends may appear inside a string.
    for n, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            items.append(_loads(line, source, line=n))
        except json.JSONDecodeError as exc:
            raise ConversationFileError(
                source, f"invalid JSON: {exc.msg} (column {exc.colno})", line=n) from exc
        lines.append(n)
    return ConversationFile(_messages(items, source, lines=lines), "jsonl", source)


def _messages(items: Sequence[Any], source: str,
              lines: Sequence[int] | None = None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, item in enumerate(items):
        try:
            validate_message(item, i)
        except InvalidMessageError as exc:
            raise ConversationFileError(
                source, exc.problem, index=i, line=lines[i] if lines is not None else None
            ) from exc
        out.append(dict(item))
    return out


# ---------------------------------------------------------------------------------------------
# LoCoMo


def _choose(samples: Sequence[Mapping[str, Any]], source: str, sample: str | None) -> int:
    if sample is None:
        return 0
    ids = [str(s.get("sample_id", "")) for s in samples]
    if sample in ids:
        return ids.index(sample)
    if sample.lstrip("-").isdigit():
        k = int(sample)
        if 0 <= k < len(samples):
            return k
    raise ConversationFileError(
        source, f"no sample {sample!r}: the file holds {len(samples)} "
        f"(indices 0-{len(samples) - 1}; ids {', '.join(i for i in ids if i) or 'none'})")


def _from_locomo(samples: Sequence[Mapping[str, Any]], source: str,
                 sample: str | None) -> ConversationFile:
    k = _choose(samples, source, sample)
    chosen = samples[k]
    label = str(chosen.get("sample_id") or k)
    msgs = locomo_messages(chosen, source=f"{source} sample {label}")
    msgs = _messages(msgs, f"{source} sample {label}")  # the same checks as any message
    return ConversationFile(msgs, "locomo", source, sample=label, samples=len(samples))


def locomo_messages(sample: Mapping[str, Any], *, source: str = "<locomo>",
                    dia_ids: bool = False) -> list[dict[str, Any]]:
    """One LoCoMo sample as OpenAI-format messages.

    ``speaker_a`` is the ``user`` and ``speaker_b`` the ``assistant``; ``name`` is the
    speaker; each session's first message starts with ``[<session date>] ``; a photo's
    ``blip_caption`` is appended as ``[shares a photo: …]``.

    Args:
        sample: One sample (a dict with a ``"conversation"``).
        source: Names the sample in errors.
        dia_ids: Also keep each turn's ``dia_id`` as a ``"dia_id"`` key (for benchmarks that
            track evidence turns; strip it before sending to a provider).

    Raises:
        ConversationFileError: the sample does not have LoCoMo's shape.

    Example:
        >>> sample = {"conversation": {"speaker_a": "Ana", "speaker_b": "Bo",
        ...     "session_1_date_time": "1 May 2023", "session_1": [
        ...         {"speaker": "Ana", "dia_id": "D1:1", "text": "Hi!"},
        ...         {"speaker": "Bo", "dia_id": "D1:2", "text": "Look.", "blip_caption": "a cat"}]}}
        >>> [m["content"] for m in locomo_messages(sample)]
        ['[1 May 2023] Hi!', 'Look. [shares a photo: a cat]']
    """
    conv = sample.get("conversation")
    if not isinstance(conv, Mapping):
        raise ConversationFileError(source, "'conversation' must be an object")
    speakers: dict[str, str] = {}
    for key, role in (("speaker_a", "user"), ("speaker_b", "assistant")):
        who = conv.get(key)
        if not isinstance(who, str) or not who:
            raise ConversationFileError(source, f"conversation.{key} must be a speaker name")
        speakers.setdefault(who, role)
    sessions = sorted(
        (int(m.group(1)), key) for key in conv if (m := _SESSION_KEY.match(str(key)))
    )
    out: list[dict[str, Any]] = []
    for _number, key in sessions:
        turns = conv[key]
        if not isinstance(turns, list):
            raise ConversationFileError(source, f"conversation.{key} must be a list of turns")
        date = conv.get(f"{key}_date_time")
        for t, turn in enumerate(turns):
            where = f"conversation.{key}[{t}]"
            if not isinstance(turn, Mapping):
                raise ConversationFileError(source, f"{where} must be an object")
            speaker = turn.get("speaker")
            if speaker not in speakers:
                raise ConversationFileError(
                    source, f"{where}.speaker {speaker!r} is neither speaker_a nor speaker_b")
            text = turn.get("text", "")
            if not isinstance(text, str):
                raise ConversationFileError(source, f"{where}.text must be a string")
            caption = turn.get("blip_caption")
            if isinstance(caption, str) and caption.strip():
                text = f"{text} [shares a photo: {caption.strip()}]".strip()
            if t == 0 and isinstance(date, str) and date:
                text = f"[{date}] {text}"
            message: dict[str, Any] = {
                "role": speakers[str(speaker)], "name": str(speaker), "content": text
            }
            if dia_ids and "dia_id" in turn:
                message["dia_id"] = turn["dia_id"]
            out.append(message)
    if not out:
        raise ConversationFileError(source, "the conversation has no session turns")
    return out


# ---------------------------------------------------------------------------------------------
# writing


def dump_conversation(conv: ConversationFile, messages: Sequence[Mapping[str, Any]]) -> str:
    """``messages`` as text in ``conv``'s format (LoCoMo input is written as a JSON list:
    a rolling summary has no place in LoCoMo's shape)."""
    if conv.format == "jsonl":
        return "".join(dumps(m) + "\n" for m in messages)
    if conv.format == "json-object":
        body = {**conv.extra, "messages": list(messages)}
        return dumps(body, indent=2) + "\n"
    return dumps(list(messages), indent=2) + "\n"


def write_conversation(text: str, path: str | Path | None, *,
                       stdout: TextIO | None = None) -> None:
    """Write ``text`` to ``path`` (``None`` or ``-``: standard output).

    Raises:
        ConversationFileError: the file cannot be written.
    """
    if path is None or str(path) == STDIN:
        (stdout if stdout is not None else sys.stdout).write(text)
        return
    try:
        # backslashreplace: a stray surrogate becomes a JSON escape, never a crash.
        Path(path).write_text(text, encoding="utf-8", errors="backslashreplace")
    except OSError as exc:
        raise ConversationFileError(str(path), f"cannot write: {exc.strerror or exc}") from exc
