"""Code written against the seed's memory/compress.py works unchanged with chatfold."""

from __future__ import annotations

from typing import Any

import pytest

import chatfold
from chatfold import (
    SummarizerError,
    compress,
    estimate_tokens,
    format_messages,
    maybe_compress,
)

import seed_reference as seed
from helpers import SeedLLM, chat


def seed_conversation() -> list[dict[str, Any]]:
    # The article's running example: a persona prompt, then a long chat.
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "你是一个耐心的旅行规划助手。"}]
    for i in range(1, 11):
        msgs.append({"role": "user", "content": f"msg_{i}: 我想去杭州玩，第{i}天想看西湖。"})
        msgs.append({"role": "assistant", "content": f"好的，第{i}天的行程已经记下了。"})
    return msgs


def test_the_seed_functions_are_importable_from_chatfold() -> None:
    for name in ("compress", "maybe_compress", "estimate_tokens", "format_messages"):
        assert name in chatfold.__all__


def test_seed_signatures_and_defaults() -> None:
    import inspect

    c = inspect.signature(compress)
    assert list(c.parameters)[:3] == ["messages", "llm", "keep"]
    assert c.parameters["keep"].default == 4
    m = inspect.signature(maybe_compress)
    assert list(m.parameters)[:4] == ["messages", "llm", "max_tokens", "keep"]
    assert m.parameters["max_tokens"].default == 3000
    assert m.parameters["keep"].default == 4


def test_compress_output_has_the_seed_shape() -> None:
    msgs = seed_conversation()
    llm = SeedLLM("用户计划去杭州玩十天。")
    out = compress(msgs, llm, keep=4)
    ref = seed.compress(msgs, SeedLLM("用户计划去杭州玩十天。"), keep=4)
    assert len(out) == len(ref) == 6
    assert out[0] is msgs[0]
    assert out[1] == {"role": "system", "content": "历史摘要: 用户计划去杭州玩十天。",
                      "is_summary": True}
    assert out[1] == ref[1]
    assert out[2:] == msgs[-4:] == ref[2:]


def test_compress_sends_the_seed_text_format() -> None:
    msgs = seed_conversation()
    llm = SeedLLM("第一版摘要")
    first = compress(msgs, llm, keep=4)
    assert llm.texts[0].startswith("<<<TRANSCRIPT ")  # fenced as data
    assert "\nuser: msg_1: 我想去杭州玩" in llm.texts[0]
    assert "assistant: 好的，第1天的行程已经记下了。" in llm.texts[0]
    more = first + [{"role": "user", "content": f"第{i}个新问题"} for i in range(6)]
    compress(more, llm, keep=4)
    text = llm.texts[1]
    assert text.startswith("已有摘要: 第一版摘要\n新增对话:\n")
    assert "user: 第0个新问题" in text


def test_compress_with_few_messages_returns_the_input() -> None:
    msgs = seed_conversation()[:4]
    llm = SeedLLM()
    assert compress(msgs, llm, keep=4) is msgs
    assert llm.texts == []


def test_maybe_compress_under_threshold_is_the_same_object() -> None:
    msgs = seed_conversation()
    llm = SeedLLM()
    assert maybe_compress(msgs, llm) is msgs
    assert maybe_compress(msgs, llm, max_tokens=3000, keep=4) is msgs
    assert llm.texts == []


def test_maybe_compress_over_threshold_folds_like_the_seed() -> None:
    msgs = chat(200, lang="zh")
    llm = SeedLLM("用户在规划杭州旅行。")
    out = maybe_compress(msgs, llm, max_tokens=3000, keep=4)
    assert out is not msgs
    assert out[0] is msgs[0]
    assert out[1]["content"] == "历史摘要: 用户在规划杭州旅行。" and out[1]["is_summary"] is True
    assert out[-4:] == msgs[-4:]
    assert len(llm.texts) == 1
    assert estimate_tokens(format_messages(out)) < 3000


def test_rolling_the_seed_way_keeps_one_summary() -> None:
    llm = SeedLLM("摘要")
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "系统提示"}]
    for m in chat(400, lang="zh", system=False):
        msgs = maybe_compress(msgs + [m], llm, max_tokens=1500, keep=4)
        assert sum(1 for x in msgs if x.get("is_summary")) <= 1
        assert msgs[0]["content"] == "系统提示"
    assert any("已有摘要: 摘要" in t for t in llm.texts)


def test_estimate_tokens_keeps_the_seed_floor() -> None:
    assert estimate_tokens("") == 1
    assert estimate_tokens("a") >= 1


def test_format_messages_is_the_seed_fmt_for_plain_messages() -> None:
    msgs = [{"role": "user", "content": "你好"}, {"role": "assistant", "content": "你好！"}]
    assert format_messages(msgs) == seed._fmt(msgs)


def test_a_failing_llm_raises_and_loses_nothing() -> None:
    class Broken:
        def summarize(self, text: str) -> str:
            raise ConnectionError("network down")

    msgs = chat(200, lang="zh")
    snapshot = [dict(m) for m in msgs]
    with pytest.raises(SummarizerError) as info:
        maybe_compress(msgs, Broken())
    assert isinstance(info.value.__cause__, ConnectionError)
    assert isinstance(info.value, RuntimeError)  # `except Exception` code keeps working
    assert msgs == snapshot


def test_english_conversation_gets_an_english_prefix_and_format() -> None:
    llm = SeedLLM("The user plans a trip.")
    first = compress(chat(12), llm, keep=4)
    assert first[1]["content"] == "Summary of the earlier conversation: The user plans a trip."
    compress(first + chat(6, system=False), llm, keep=4)
    assert llm.texts[1].startswith("Previous summary: The user plans a trip.\nNew messages:\n")


@pytest.mark.parametrize("module", ["chatfold.compat", "chatfold._summary", "chatfold._adapter",
                                    "chatfold._media"])
def test_docstring_examples_run(module: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module),
                             optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
