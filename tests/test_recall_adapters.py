"""The recall message through the framework adapters: a note like the summary (it takes the
summary's role, loses the marker a provider would reject, and is never logged back)."""

from __future__ import annotations

import pytest

RECALL = {"role": "system", "content": "Recalled from earlier in this conversation: [#1] x",
          "is_recall": True}


def test_openai_agents_gives_the_recall_note_the_summary_role() -> None:
    pytest.importorskip("agents")
    from chatfold.integrations.openai_agents import from_chatfold

    assert from_chatfold(RECALL, "user") == [{"role": "user", "content": RECALL["content"]}]
    assert from_chatfold(RECALL) == [{"role": "system", "content": RECALL["content"]}]


def test_llama_index_gives_the_recall_note_the_summary_role() -> None:
    pytest.importorskip("llama_index.core")
    from chatfold.integrations.llama_index import from_chatfold

    message = from_chatfold(RECALL, "user")
    assert message.role.value == "user" and message.content == RECALL["content"]
    assert "is_recall" not in message.additional_kwargs


def test_langchain_marks_the_recall_note_and_never_logs_it() -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.messages import HumanMessage, SystemMessage

    from chatfold.integrations.langchain import ChatfoldMiddleware, from_chatfold

    human = from_chatfold(RECALL, summary_role="human")
    assert isinstance(human, HumanMessage) and human.additional_kwargs["is_recall"] is True
    system = from_chatfold(RECALL)
    assert isinstance(system, SystemMessage) and system.id == human.id  # stable id
    assert system.id is not None and system.id.startswith("chatfold-recall-")
    later = HumanMessage(content="hello", id="m2")
    new = ChatfoldMiddleware._new_entries([system, later], set())
    assert [m["content"] for m in new] == ["hello"]
