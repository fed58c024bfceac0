"""Reading and writing conversation files (``chatfold.cli.files``), and the docstring examples."""

from __future__ import annotations

import doctest
import importlib
import io
import json
from pathlib import Path

import pytest
from _cli_fixtures import chat, locomo_sample

from chatfold import ChatfoldError
from chatfold.cli.files import (
    ConversationFileError,
    dump_conversation,
    locomo_messages,
    parse_conversation,
    read_conversation,
    write_conversation,
)


@pytest.mark.parametrize("module", ["chatfold.cli.files", "chatfold.cli.replay"])
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0


def test_formats_are_detected_from_the_content() -> None:
    msgs = chat(3)
    as_list = json.dumps(msgs)
    as_object = json.dumps({"model": "m", "messages": msgs})
    as_jsonl = "".join(json.dumps(m) + "\n" for m in msgs)
    assert parse_conversation(as_list).format == "json"
    assert parse_conversation(as_object).format == "json-object"
    assert parse_conversation(as_object).extra == {"model": "m"}
    assert parse_conversation(as_jsonl).format == "jsonl"
    assert parse_conversation(json.dumps(msgs[0])).format == "jsonl"  # one line
    assert parse_conversation(as_jsonl, "x.ndjson").messages == msgs
    assert parse_conversation("\ufeff" + as_list).messages == msgs  # a BOM is fine


def test_dump_round_trips_every_format() -> None:
    msgs = chat(3)
    for text in (json.dumps(msgs), json.dumps({"model": "m", "messages": msgs}),
                 "".join(json.dumps(m) + "\n" for m in msgs)):
        conv = parse_conversation(text)
        again = parse_conversation(dump_conversation(conv, conv.messages))
        assert again.messages == msgs and again.format == conv.format
        assert again.extra == conv.extra


def test_non_ascii_is_written_as_is() -> None:
    conv = parse_conversation('[{"role": "user", "content": "你好"}]')
    assert "你好" in dump_conversation(conv, conv.messages)


def test_errors_are_typed_and_carry_their_facts() -> None:
    with pytest.raises(ConversationFileError) as info:
        parse_conversation('{"role": "user", "content": "a"}\n{"role": "x"}\n', "c.jsonl")
    err = info.value
    assert isinstance(err, ChatfoldError) and isinstance(err, ValueError)
    assert (err.source, err.line, err.index) == ("c.jsonl", 2, 1)
    assert str(err).startswith("c.jsonl line 2 (message 1): unknown role 'x'")
    with pytest.raises(ConversationFileError) as info:
        parse_conversation('[{"role": "user", "content": "a"}, {"role": "user"}]', "c.json")
    assert (info.value.line, info.value.index) == (None, 1)
    assert str(info.value) == "c.json: message 1: missing 'content' on a 'user' message " \
        "without tool_calls"


def test_read_from_stdin_and_files(tmp_path: Path) -> None:
    msgs = chat(2)
    conv = read_conversation("-", stdin=io.StringIO(json.dumps(msgs)))
    assert conv.source == "<stdin>" and conv.messages == msgs
    path = tmp_path / "bad.json"
    path.write_bytes(b"\xff\xfe[]")
    with pytest.raises(ConversationFileError, match="not UTF-8"):
        read_conversation(path)


def test_write_to_a_file_or_stdout(tmp_path: Path) -> None:
    out = io.StringIO()
    write_conversation("x\n", None, stdout=out)
    write_conversation("y\n", "-", stdout=out)
    assert out.getvalue() == "x\ny\n"
    write_conversation("z\n", tmp_path / "f.json")
    assert (tmp_path / "f.json").read_text() == "z\n"
    with pytest.raises(ConversationFileError, match="cannot write"):
        write_conversation("z\n", tmp_path / "no" / "f.json")


def test_locomo_mapping() -> None:
    sample = locomo_sample("s1", sessions=2, turns=3)
    msgs = locomo_messages(sample, dia_ids=True)
    assert [m["role"] for m in msgs] == ["user", "assistant", "user"] * 2
    assert [m["dia_id"] for m in msgs[:3]] == ["D1:1", "D1:2", "D1:3"]
    assert msgs[0]["content"].startswith("[10:00 am on 1 March, 2024] ")
    assert not msgs[1]["content"].startswith("[")
    assert "dia_id" not in locomo_messages(sample)[0]


def test_locomo_sessions_are_in_numeric_order() -> None:
    sample = locomo_sample("s1", sessions=11, turns=1)
    conv = sample["conversation"]
    shuffled = {k: conv[k] for k in sorted(conv, reverse=True)}
    msgs = locomo_messages({"conversation": shuffled})
    assert [m["content"].split("]")[0] for m in msgs][9:] == [
        "[10:00 am on 10 March, 2024", "[10:00 am on 11 March, 2024"]


def test_locomo_shape_errors() -> None:
    with pytest.raises(ConversationFileError, match="speaker_b"):
        locomo_messages({"conversation": {"speaker_a": "A"}})
    with pytest.raises(ConversationFileError, match="no session turns"):
        locomo_messages({"conversation": {"speaker_a": "A", "speaker_b": "B"}})
    with pytest.raises(ConversationFileError, match=r"session_1\[0\]\.text"):
        locomo_messages({"conversation": {"speaker_a": "A", "speaker_b": "B",
                                          "session_1": [{"speaker": "A", "text": 3}]}})


def test_locomo_samples_by_index_or_id() -> None:
    text = json.dumps([locomo_sample("a"), locomo_sample("b", sessions=1)])
    assert parse_conversation(text).sample == "a"
    assert parse_conversation(text, sample="1").sample == "b"
    assert parse_conversation(text, sample="b").samples == 2
    with pytest.raises(ConversationFileError, match="indices 0-1"):
        parse_conversation(text, sample="2")
