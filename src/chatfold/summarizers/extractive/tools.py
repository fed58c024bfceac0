"""Tool calls and results as compact one-line statements."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from ...messages import content_text
from .lexicon import _MAX_ARG_CHARS, _MAX_ARGS, _MAX_ARGS_CHARS, _MAX_RESULT_KEYS, _TRIVIAL_RESULTS
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


def _flatten(value: object, depth: int = 0) -> str:
    """Compact text of a JSON value: ``k=v`` pairs, lists as ``a; b; c (+n)``."""
    if isinstance(value, Mapping):
        pairs = []
        for k, v in list(value.items())[:_MAX_RESULT_KEYS]:
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
    if text[:1] in "{[":
        try:
            parsed = json.loads(text)
        except ValueError:
            pass
        else:
            text = _flatten(parsed)
    text = _SPACES.sub(" ", text).strip()
    if text.casefold() in _TRIVIAL_RESULTS:
        return ""
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
