"""Issue 9.2: one unpaired UTF-16 surrogate used to be stored and then stop every fold (each
summarizer failed on ``.encode()``). The rule: text that is not valid Unicode is rejected where
it enters, with an InvalidMessageError naming the message and the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chatfold import Folder, InvalidMessageError, Policy, to_openai
from chatfold.messages import find_surrogate, validate_message
from chatfold.session import Conversation
from chatfold.stores import SQLiteStore
from chatfold.summarizers._answer import clean_summary
from chatfold.summarizers.extractive import ExtractiveSummarizer

from helpers import chat

LONE = "\ud83d"  # the first half of an emoji, alone


@pytest.mark.parametrize(("message", "where"), [
    ({"role": "user", "content": f"hi {LONE}"}, "content holds"),
    ({"role": "user", "content": [{"type": "text", "text": LONE}]}, "content[0].text holds"),
    ({"role": "user", "name": f"a{LONE}", "content": "x"}, "name holds"),
    ({"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
      "function": {"name": "f", "arguments": json.dumps({"q": "x"})[:-1] + LONE + "}"}}]},
     "tool_calls[0].function.arguments holds"),
    ({"role": "user", "content": "x", "metadata": {"deep": [[{"k": "\udcff"}]]}},
     "metadata.deep[0][0].k holds"),
])
def test_a_lone_surrogate_is_rejected_naming_the_field(message: dict[str, Any],
                                                       where: str) -> None:
    with pytest.raises(InvalidMessageError) as caught:
        validate_message(message, 7)
    assert caught.value.index == 7
    assert caught.value.problem.startswith(where)
    assert "unpaired UTF-16 surrogate" in caught.value.problem


def test_valid_unicode_passes() -> None:
    assert find_surrogate({"role": "user", "content": "😀 你好 \U0001f600 ok"}) is None
    cyclic: dict[str, Any] = {"role": "user", "content": "x"}
    cyclic["self"] = cyclic  # a cycle ends the walk instead of hanging it
    assert find_surrogate(cyclic) is None


def test_a_surrogate_can_no_longer_stop_a_fold(tmp_path: Path) -> None:
    policy = Policy(trigger_tokens=600, target_tokens=360, keep=4, summary_max_tokens=80)
    conv = Conversation("s", store=SQLiteStore(str(tmp_path / "c.db")),
                        summarizer=ExtractiveSummarizer(), policy=policy)
    history = chat(40, system=False)
    for m in history[:20]:
        conv.append(m)
    with pytest.raises(InvalidMessageError, match="message 1: content holds an unpaired"):
        conv.append([{"role": "user", "content": "fine"},
                     {"role": "user", "content": f"broken {LONE}"}])
    assert len(conv.transcript()) == 20  # nothing of the batch was stored
    for m in history[20:]:
        conv.append(m)
    context = conv.context()
    assert conv.stats().folds >= 1 and conv.stats().last_error is None
    json.dumps(context, ensure_ascii=False).encode("utf-8")  # sendable
    to_openai(context)

    folder = Folder(ExtractiveSummarizer(), policy)
    with pytest.raises(InvalidMessageError, match="message 3: content holds"):
        folder.fold([*history[:3], {"role": "user", "content": LONE}, *history[3:]])


def test_a_model_reply_with_a_surrogate_is_repaired() -> None:
    assert clean_summary(f"Facts: Ann {LONE}likes tea") == "Facts: Ann \ufffdlikes tea"
