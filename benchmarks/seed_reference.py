"""A faithful re-implementation of the seed's ``memory/compress.py`` (the article in
``shared/seed/``), defects included.

It is here, outside the package, so that tests can show each defect exists in the seed and not
in chatfold, and benchmarks can compare against it in the same process. Do not fix it.
"""

from __future__ import annotations

from typing import Any


def _estimate_tokens(text: str) -> int:
    """粗略估算 token 数（无外部依赖）：中文约 0.6 token/字，英文约 4 字符/token。"""
    return max(1, int(len(text) * 0.6))


def _fmt(messages: list[dict[str, Any]]) -> str:
    """消息列表 → 纯文本（喂给 LLM 做摘要的原料）。"""
    return "\n".join(f"{m['role']}: {m['content']}" for m in messages)


def compress(messages: list[dict[str, Any]], llm: Any, keep: int = 4) -> list[dict[str, Any]]:
    """滚动摘要版压缩。llm 需要提供 summarize(text) -> str 方法。"""
    sys_msgs = [m for m in messages if m.get("role") == "system" and not m.get("is_summary")]
    old_sums = [m for m in messages if m.get("is_summary")]
    others = [m for m in messages if m.get("role") != "system" and not m.get("is_summary")]

    if len(others) <= keep:
        return messages

    old, recent = others[:-keep], others[-keep:]

    text = _fmt(old)
    if old_sums:
        text = f"已有摘要: {old_sums[-1]['content']}\n新增对话:\n{text}"

    summary = llm.summarize(text)
    summary_msg = {"role": "system", "content": f"历史摘要: {summary}", "is_summary": True}
    return sys_msgs + [summary_msg] + recent


def maybe_compress(
    messages: list[dict[str, Any]], llm: Any, max_tokens: int = 3000, keep: int = 4
) -> list[dict[str, Any]]:
    """自动触发：超阈值才压，没超原样返回。"""
    if _estimate_tokens(_fmt(messages)) > max_tokens and len(messages) > keep + 1:
        return compress(messages, llm, keep=keep)
    return messages
