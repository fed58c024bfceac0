"""Issue 9.8: no bad file makes the command line print a traceback or write non-standard
JSON; every bad file exits 2 with one line. The readers are fuzzed with hypothesis."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from _cli_fixtures import chat, write_json
from _fake_openai import FakeOpenAI
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chatfold import ConversationFileError
from chatfold.cli.app import cli
from chatfold.cli.files import MAX_NESTING, dump_conversation, parse_conversation


def run(*args: str, input: str | bytes | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def one_line_error(result: Result) -> str:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert "Traceback" not in result.output + result.stderr
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    return lines[0]


MESSAGE = '{"role": "user", "content": "hi"'
BAD_FILES = {
    "deep nesting": "[" * 100_000 + "]" * 100_000,
    "deep metadata": f'[{MESSAGE}, "m": ' + "[" * 5000 + "]" * 5000 + "}]",
    "nesting under the limit of json but over chatfold's": (
        f'[{MESSAGE}, "m": ' + "[" * (MAX_NESTING + 5) + "]" * (MAX_NESTING + 5) + "}]"),
    "huge integer": f'[{MESSAGE}, "n": {"7" * 5000}}}]',
    "NaN": f'[{MESSAGE}, "score": NaN}}]',
    "Infinity": f'[{MESSAGE}, "score": -Infinity}}]',
    "overflowing float": f'[{MESSAGE}, "score": 1e999}}]',
    "lone surrogate": '[{"role": "user", "content": "\\udc80"}]',
    "surrogate in extra keys": '{"model": "\\ud800", "messages": [' + MESSAGE + "}]}",
}
PROBLEMS = {
    "deep nesting": "nested too deeply", "deep metadata": "nested too deeply",
    "nesting under the limit of json but over chatfold's": "nested too deeply",
    "huge integer": "too many digits", "NaN": "NaN is not standard JSON",
    "Infinity": "-Infinity is not standard JSON", "overflowing float": "1e999",
    "lone surrogate": "surrogate", "surrogate in extra keys": "surrogate",
}


@pytest.mark.parametrize("command", ["inspect", "compress", "simulate"])
@pytest.mark.parametrize("case", list(BAD_FILES))
def test_every_bad_file_is_one_line_and_exit_2(tmp_path: Path, case: str, command: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(BAD_FILES[case], encoding="utf-8")
    result = run(command, str(path))
    assert result.exit_code == 2
    assert PROBLEMS[case] in one_line_error(result)
    jsonl = tmp_path / "bad.jsonl"  # the same value as one JSON line
    jsonl.write_text(BAD_FILES[case].replace("\n", " ") + "\n", encoding="utf-8")
    assert run(command, str(jsonl)).exit_code == 2


def test_a_file_name_with_undecodable_bytes_gives_valid_json(tmp_path: Path) -> None:
    name = os.fsdecode(b"chat-\xff.json")  # a surrogate in the str, as sys.argv has it
    try:
        path = write_json(tmp_path / name, chat(4))
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system refuses such a name")
    result = run("inspect", str(path), "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)  # standard JSON, UTF-8 all through
    assert data["file"] == str(path)
    result.stdout.encode("utf-8")


def test_jsonl_lines_split_on_newlines_only(tmp_path: Path) -> None:
    text = '{"role": "user", "content": "a\u2028b\u0085c"}\n{"role": "assistant", "content": "d"}\n'
    conv = parse_conversation(text, "c.jsonl")
    assert [m["content"] for m in conv.messages] == ["a\u2028b\u0085c", "d"]


def test_chat_refuses_a_line_that_is_not_unicode_and_goes_on(tmp_path: Path) -> None:
    with FakeOpenAI() as server:
        result = run("chat", "--db", str(tmp_path / "c.db"), "--model", "m", "--base-url",
                     server.base_url, input=b"bad \xff\nfine\n/transcript\n")
    assert "Traceback" not in result.stderr
    assert "surrogate" in result.stderr and "not saved" in result.stderr
    assert "user: fine" in result.stdout and "bad" not in result.stdout
    assert result.exit_code == 2  # a turn failed


# ---------------------------------------------------------------------------------------------
# fuzz: any text gives a conversation or ConversationFileError, and what is read is written
# back as standard JSON that reads the same


_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8),
              st.sampled_from(["user", "assistant", "tool", "system", "role", "content"])),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from(
                                ["role", "content", "messages", "tool_calls", "name",
                                 "tool_call_id", "conversation", "type", "text", "x"]),
                                inner, max_size=4)),
    max_leaves=12)

_MESSAGES = st.lists(st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "system"]),
     "content": st.text(max_size=12)},
    optional={"x": _JSON}), max_size=4)


def _texts() -> st.SearchStrategy[str]:
    as_json = st.one_of(_JSON, _MESSAGES, _MESSAGES.map(lambda m: {"messages": m}))
    return st.one_of(
        st.text(max_size=40),
        as_json.map(lambda v: json.dumps(v, ensure_ascii=False)),
        as_json.map(lambda v: json.dumps(v)),  # \u escapes, lone surrogates included
        _MESSAGES.map(lambda ms: "".join(json.dumps(m) + "\n" for m in ms)),
        st.builds(lambda a, b: a + b, st.sampled_from(["[", "{", '{"role": ', "[1e999", "NaN"]),
                  st.text(max_size=10)),
    )


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_texts(), st.sampled_from(["c.json", "c.jsonl"]))
def test_fuzz_the_readers(text: str, name: str) -> None:
    try:
        conv = parse_conversation(text, name)
    except ConversationFileError:
        return
    written = dump_conversation(conv, conv.messages)
    written.encode("utf-8")
    again = parse_conversation(written, name)  # parse_constant would refuse NaN/Infinity
    assert again.messages == conv.messages and again.format == conv.format
