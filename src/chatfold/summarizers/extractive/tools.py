"""Tool calls and results as compact one-line statements."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

from ...messages import content_text
from .lexicon import (
    _MAX_ARG_CHARS,
    _MAX_ARGS,
    _MAX_ARGS_CHARS,
    _MAX_RESULT_KEYS,
    _TRIVIAL_RESULTS,
    NEW_KEY_WORDS,
    OLD_KEY_WORDS,
)
from .sentences import _SPACES, _trim

# ---------------------------------------------------------------------------------------------
# tool calls



def _scalar(value: object) -> str:
    if isinstance(value, str):
        return _trim(_SPACES.sub(" ", value).strip(), _MAX_ARG_CHARS)
    if value is None or isinstance(value, (bool, int, float)):
        return json.dumps(value)
    return _trim(json.dumps(value, ensure_ascii=False, sort_keys=True), _MAX_ARG_CHARS)


def _render_args(args: object) -> str:
    """Tool-call arguments (a JSON string or an object) as ``key=value, ...``."""
    if isinstance(args, str):
        raw = args
        try:
            args = json.loads(raw) if raw.strip() else {}
        except ValueError:
            return _trim(" ".join(raw.split()), _MAX_ARG_CHARS * 2)
    if isinstance(args, Mapping):
        pairs = [f"{k}={_scalar(v)}" for k, v in list(args.items())[:_MAX_ARGS]]
        if len(args) > _MAX_ARGS:
            pairs.append("…")
        return _trim(", ".join(pairs), _MAX_ARGS_CHARS)
    return _scalar(args)


# A result that reports a change beside the value it replaced ("old_price": 39.9, "new_price":
# 46.8): the old one is history the new one already tells; it is not carried.
_OLD_KEY = re.compile(rf"(?i)(?:{OLD_KEY_WORDS})[_ -]?(\w+)$")
_NEW_KEY = re.compile(rf"(?i)(?:{NEW_KEY_WORDS})[_ -]?(\w+)$")


def _replaced_keys(value: Mapping[object, object]) -> set[object]:
    news = {m.group(1).lower() for k in value if (m := _NEW_KEY.match(str(k)))}
    return {k for k in value if (m := _OLD_KEY.match(str(k))) and m.group(1).lower() in news}


def _flatten(value: object, depth: int = 0) -> str:
    """Compact text of a JSON value: ``k=v`` pairs, lists as ``a; b; c (+n)``."""
    if isinstance(value, Mapping):
        pairs = []
        replaced = _replaced_keys(value) if len(value) > 1 else set()
        kept = [(k, v) for k, v in value.items() if k not in replaced]
        for k, v in kept[:_MAX_RESULT_KEYS]:
            inner = _flatten(v, depth + 1) if depth < 3 else _scalar(v)
            if inner:
                pairs.append(f"{k}=[{inner}]" if isinstance(v, list) else f"{k}={inner}")
        return ", ".join(pairs)
    if isinstance(value, list):
        parts = [p for p in (_flatten(v, depth + 1) for v in value[:3]) if p]
        more = f" (+{len(value) - 3})" if len(value) > 3 else ""
        return " | ".join(parts) + more
    if value is None or value == "":
        return ""
    return _scalar(value)


def _render_result(result: str, limit: int) -> str:
    text = result.strip()
    last = ""
    if text[:1] in "{[":
        try:
            parsed = json.loads(text)
        except ValueError:
            pass
        else:
            text = _flatten(parsed)
    elif "\n" in text:
        # A command's output ends with its verdict ("…successfully enabled HTTPS", "12 passed",
        # the exception): when all cannot be kept, its first and its last line are.
        last = _SPACES.sub(" ", text.rsplit("\n", 1)[1]).strip()
    text = _SPACES.sub(" ", text).strip()
    if text.casefold() in _TRIVIAL_RESULTS:
        return ""
    if len(text) > limit and last and len(last) < len(text) // 2:
        tail = _trim(last, max(limit * 2 // 3, limit - len(text) + len(last)))
        return f"{_trim(text[:len(text) - len(last)].rstrip(), limit - len(tail) - 1)} {tail}"
    return _trim(text, limit)


@dataclass(slots=True)
class _ToolLine:
    name: str
    args: str
    result: str | None = None


def _result_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, (Mapping, list)) and not (
        isinstance(content, list) and all(isinstance(p, Mapping) and "type" in p for p in content)
    ):
        return json.dumps(content, ensure_ascii=False, sort_keys=True)
    return content_text(content)


def _is_tool_block(part: object) -> bool:
    return isinstance(part, Mapping) and part.get("type") in ("tool_use", "tool_result")
