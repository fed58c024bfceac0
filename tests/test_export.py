"""Provider-safe export: ``provider_problems`` lists what a provider rejects, ``to_openai`` and
``to_anthropic`` raise a typed error naming it, and (fuzzed) never return an invalid body nor
raise anything else."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chatfold import InvalidMessageError, to_anthropic, to_openai
from chatfold.messages import OPENAI_KEYS, Problem, provider_problems

from helpers import tool_turn


def _call(call_id: str, arguments: Any = "{}", name: str = "f") -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}]}


def _result(call_id: str, text: str = "ok") -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


USER = {"role": "user", "content": "go"}


def _errors(messages: list[dict[str, Any]], provider: Any = None) -> list[Problem]:
    return [p for p in provider_problems(messages, provider) if p.severity == "error"]


# ---------------------------------------------------------------------------------------------
# the cases of issue 9, one by one: both exports refuse with InvalidMessageError naming it


CASES = {
    "call without results": ([USER, _call("c1"), {"role": "assistant", "content": "done"}],
                             1, "c1 (f) has no result before message 2"),
    "call at the end": ([USER, _call("c1")], 1, "c1 (f) has no result after it"),
    "result after a user turn": ([USER, _call("c1"), USER, _result("c1")],
                                 1, "has no result before message 2"),
    "duplicate tool ids": ([USER, _call("c1"), _result("c1"), USER, _call("c1"), _result("c1")],
                           4, "duplicate tool call id c1 (first used by message 1"),
    "second result": ([USER, _call("c1"), _result("c1"), _result("c1")],
                      3, "a second result for tool call c1"),
    "array arguments": ([USER, _call("c1", "[1, 2]"), _result("c1")],
                        1, "must be a JSON object, got JSON list"),
    "invalid JSON arguments": ([USER, _call("c1", "{nope"), _result("c1")],
                               1, "are not valid JSON"),
    "integer arguments": ([USER, _call("c1", 5), _result("c1")],
                          1, "must be a JSON string of an object, got int"),
    "orphan result": ([USER, _result("zz")], 1, "tool result without a matching tool call"),
    "call without an id": ([USER, _call(""), USER], 1, "without an id"),
}


@pytest.mark.parametrize("export", [to_openai, to_anthropic], ids=["openai", "anthropic"])
@pytest.mark.parametrize("case", list(CASES))
def test_each_provider_problem_is_a_typed_error(case: str, export: Any) -> None:
    messages, index, text = CASES[case]
    with pytest.raises(InvalidMessageError) as caught:
        export(messages)
    assert caught.value.index == index and text in caught.value.problem
    assert any(p.index == index and text in p.problem and p.provider == "all"
               for p in _errors(messages))


def test_a_result_after_a_user_turn_names_both_messages() -> None:
    problems = _errors([USER, _call("c1"), USER, _result("c1")])
    assert [p.index for p in problems] == [1, 3]
    assert "after an intervening message" in problems[1].problem


def test_anthropic_body_with_only_system_messages_is_refused() -> None:
    # What system_messages="fold" leaves when the recent tail is system notes only.
    msgs = [{"role": "system", "content": "You are helpful."},
            {"role": "system", "content": "Summary of the earlier conversation: x",
             "is_summary": True},
            {"role": "system", "content": "Note: the user is away."}]
    with pytest.raises(InvalidMessageError, match="no user or assistant message"):
        to_anthropic(msgs)
    with pytest.raises(InvalidMessageError, match="no user or assistant message"):
        to_anthropic([*msgs, {"role": "user", "content": "  "}])  # only empty text
    assert [p.index for p in _errors(msgs, "anthropic")] == [None]
    assert to_openai(msgs)  # OpenAI takes a list of system messages


def test_empty_text_blocks_are_dropped_for_anthropic() -> None:
    msgs = [{"role": "user", "content": [{"type": "text", "text": ""},
                                         {"type": "text", "text": "hi"}]},
            {"role": "assistant", "content": " "},
            {"role": "user", "content": "again"}]
    body = to_anthropic(msgs)
    assert body["messages"] == [{"role": "user", "content": [
        {"type": "text", "text": "hi"}, {"type": "text", "text": "again"}]}]
    warnings = [p for p in provider_problems(msgs, "anthropic") if p.severity == "warning"]
    assert [p.index for p in warnings] == [0, 1]
    assert "content[0]" in warnings[0].problem


def test_anthropic_tool_results_come_before_text() -> None:
    msgs = [USER,
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "s",
                                               "input": {}}]},
            {"role": "user", "content": [{"type": "text", "text": "here:"},
                                         {"type": "tool_result", "tool_use_id": "t1",
                                          "content": "found"}]}]
    body = to_anthropic(msgs)
    assert [b["type"] for b in body["messages"][2]["content"]] == ["tool_result", "text"]
    _check_anthropic(body)


def test_object_arguments_become_a_json_string_for_openai() -> None:
    msgs = [USER, _call("c1", {"city": "Paris"}), _result("c1")]
    out = to_openai(msgs)
    assert out[1]["tool_calls"][0]["function"]["arguments"] == '{"city": "Paris"}'
    assert msgs[1]["tool_calls"][0]["function"]["arguments"] == {"city": "Paris"}  # untouched
    assert to_anthropic(msgs)["messages"][1]["content"][0]["input"] == {"city": "Paris"}
    assert [p.severity for p in provider_problems(msgs, "openai")] == ["warning"]


def test_a_system_note_between_call_and_result() -> None:
    msgs = [USER, _call("c1"), {"role": "system", "content": "note"}, _result("c1")]
    assert [p.provider for p in _errors(msgs)] == ["openai", "openai"]
    with pytest.raises(InvalidMessageError, match="no result before message 2"):
        to_openai(msgs)
    _check_anthropic(to_anthropic(msgs))  # the note moves into 'system'


def test_valid_tool_conversations_have_no_problem() -> None:
    msgs = [{"role": "system", "content": "s"}, *tool_turn(1, results=3), *tool_turn(2)]
    assert provider_problems(msgs) == []
    _check_openai(to_openai(msgs))
    _check_anthropic(to_anthropic(msgs))


# ---------------------------------------------------------------------------------------------
# what a provider accepts, written independently of chatfold's checks


def _check_openai(out: list[dict[str, Any]]) -> None:
    json.dumps(out, allow_nan=False)
    seen: set[str] = set()
    pending: set[str] = set()
    for m in out:
        assert set(m) <= OPENAI_KEYS and m["role"] in ("system", "developer", "user",
                                                      "assistant", "tool", "function")
        if m["role"] == "tool":
            assert m["tool_call_id"] in pending, m
            pending.discard(m["tool_call_id"])
            continue
        assert not pending, f"unanswered calls {pending} before {m}"
        for call in m.get("tool_calls") or ():
            assert call["id"] and call["id"] not in seen
            seen.add(call["id"])
            pending.add(call["id"])
            args = call["function"]["arguments"]
            assert isinstance(args, str)
            assert not args.strip() or isinstance(json.loads(args), dict)
    assert not pending


def _check_anthropic(body: dict[str, Any]) -> None:
    json.dumps(body, allow_nan=False)
    assert set(body) <= {"system", "messages"}
    assert body.get("system", "x")
    messages = body["messages"]
    assert messages and messages[0]["role"] == "user"
    seen: set[str] = set()
    expected: set[str] = set()
    for k, m in enumerate(messages):
        assert set(m) == {"role", "content"} and m["content"]
        if k:
            assert m["role"] != messages[k - 1]["role"]
        types = [b["type"] for b in m["content"]]
        results = [b["tool_use_id"] for b in m["content"] if b["type"] == "tool_result"]
        assert types[: len(results)] == ["tool_result"] * len(results)  # results first
        assert set(results) == expected and len(results) == len(expected)
        expected = set()
        for b in m["content"]:
            if b["type"] == "text":
                assert isinstance(b["text"], str) and b["text"].strip()
            if b["type"] == "tool_use":
                assert m["role"] == "assistant"
                assert re.fullmatch(r"[A-Za-z0-9_-]+", b["id"]) and b["id"] not in seen
                assert isinstance(b["input"], dict)
                seen.add(b["id"])
                expected.add(b["id"])
    assert not expected


# ---------------------------------------------------------------------------------------------
# fuzz: generated message lists give a valid body or InvalidMessageError, nothing else

IDS = st.sampled_from(["c1", "c2", "c3", "bad id", ""])
TEXT = st.sampled_from(["", " ", "hi", "a\nb", "你好"])
ARGS = st.one_of(st.sampled_from(["{}", '{"a": 1}', "[1]", "5", "{nope", "", "null"]),
                 st.integers(), st.none(), st.just({"a": [1, 2]}), st.just([1]))
JUNK = st.one_of(st.none(), st.integers(), st.text(max_size=3), st.lists(st.integers(),
                                                                         max_size=2))


def _parts() -> st.SearchStrategy[Any]:
    return st.lists(st.one_of(
        st.builds(lambda t: {"type": "text", "text": t}, TEXT),
        st.builds(lambda i, a: {"type": "tool_use", "id": i, "name": "s", "input": a},
                  IDS, st.one_of(st.just({"q": 1}), ARGS)),
        st.builds(lambda i, t: {"type": "tool_result", "tool_use_id": i, "content": t},
                  IDS, st.one_of(TEXT, st.just([{"type": "text", "text": "x"}]))),
        st.just({"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJD"}}),
        st.just({"type": "thinking", "thinking": "hm", "signature": "s"}),
        st.builds(lambda t: {"type": t}, st.sampled_from(["mystery", "input_audio"])),
        JUNK,
    ), max_size=3)


def _message() -> st.SearchStrategy[Any]:
    call = st.builds(lambda i, a: {"id": i, "type": "function",
                                   "function": {"name": "f", "arguments": a}}, IDS, ARGS)
    return st.one_of(
        st.builds(lambda r, c: {"role": r, "content": c},
                  st.sampled_from(["system", "user", "assistant", "developer"]),
                  st.one_of(TEXT, _parts())),
        st.builds(lambda c, calls: {"role": "assistant", "content": c, "tool_calls": calls},
                  st.one_of(st.none(), TEXT), st.lists(call, min_size=1, max_size=2)),
        st.builds(lambda i, t: {"role": "tool", "tool_call_id": i, "content": t}, IDS, TEXT),
        st.builds(lambda t: {"role": "system", "content": t, "is_summary": True}, TEXT),
        st.builds(lambda t: {"role": "function", "name": "f", "content": t}, TEXT),
        st.dictionaries(st.sampled_from(["role", "content", "tool_calls", "name"]), JUNK,
                        max_size=3),
        JUNK,
    )


def _conversation() -> st.SearchStrategy[list[Any]]:
    # Mostly well-paired tool turns (so that valid bodies are common), with noise mixed in.
    turn = st.builds(lambda i, n: tool_turn(i, results=n), st.integers(0, 3), st.integers(1, 2))
    return st.lists(st.one_of(_message().map(lambda m: [m]), turn),
                    max_size=6).map(lambda chunks: [m for c in chunks for m in c])


FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(_conversation())
def test_fuzz_to_openai(messages: list[Any]) -> None:
    try:
        out = to_openai(messages)
    except InvalidMessageError:
        return
    _check_openai(out)


@FUZZ
@given(_conversation())
def test_fuzz_to_anthropic(messages: list[Any]) -> None:
    try:
        body = to_anthropic(messages)
    except InvalidMessageError:
        return
    _check_anthropic(body)


@FUZZ
@given(_conversation())
def test_fuzz_problems_agree_with_the_exports(messages: list[Any]) -> None:
    try:
        problems = provider_problems(messages)
    except InvalidMessageError:
        return
    for provider, export in (("openai", to_openai), ("anthropic", to_anthropic)):
        errors = [p for p in problems if p.severity == "error"
                  and p.provider in ("all", provider)]
        if errors:
            with pytest.raises(InvalidMessageError):
                export(messages)
        else:
            export(messages)


def test_problems_are_plain_values() -> None:
    p = provider_problems([USER, _call("c1")])[0]
    assert isinstance(p, Problem) and isinstance(p.problem, str)
    assert not isinstance(p, Mapping)
