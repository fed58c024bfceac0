"""LlamaIndex: a memory backed by a chatfold conversation, usable where
``llama_index.core.memory.Memory`` is (``FunctionAgent.run(..., memory=...)``, workflows).

:class:`ChatfoldMemory` keeps every message in a :class:`~chatfold.Conversation`'s log and
answers ``get()`` with the folded context: chatfold's one rolling summary, then the recent
messages as they were put. An assistant message with tool calls (``ToolCallBlock`` s or
``additional_kwargs["tool_calls"]``) is never separated from the tool messages that answer it.
``get_all()`` returns the whole log: each logged message keeps its full LlamaIndex
serialization under ``"llama_index"``, so nothing is lost in the round trip.

Example (needs ``pip install 'chatfold[llama-index]'``)::

    from llama_index.core.agent.workflow import FunctionAgent
    from chatfold import Policy, SQLiteStore
    from chatfold.integrations.llama_index import ChatfoldMemory

    memory = ChatfoldMemory.from_defaults("user-42", store=SQLiteStore("chat.db"),
                                          policy=Policy(trigger_tokens=8000))
    answer = await agent.run(user_msg="Where did we leave off?", memory=memory)
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Mapping
from typing import Any

from chatfold import Conversation, MissingDependencyError

try:
    from llama_index.core.base.llms.types import ChatMessage, ToolCallBlock
    from llama_index.core.memory import BaseMemory
    from pydantic import ConfigDict, Field, PrivateAttr
except ImportError as exc:  # pragma: no cover - exercised without the extra installed
    raise MissingDependencyError("chatfold.integrations.llama_index", "llama-index") from exc

__all__ = ["NATIVE_KEY", "ChatfoldMemory", "from_chatfold", "to_chatfold"]

NATIVE_KEY = "llama_index"
"""Key of a logged message that holds its full LlamaIndex serialization."""

_ROLES = {"system": "system", "developer": "developer", "user": "user",
          "assistant": "assistant", "chatbot": "assistant", "model": "assistant",
          "tool": "tool", "function": "tool"}


def _call(raw: Any) -> dict[str, Any]:
    """An ``additional_kwargs["tool_calls"]`` entry (dict or SDK object) in OpenAI format."""
    dump = getattr(raw, "model_dump", None)
    call = dump(mode="json") if callable(dump) else dict(raw)
    fn = call.get("function") or {}
    return {"id": str(call.get("id") or ""), "type": "function",
            "function": {"name": str(fn.get("name") or ""),
                         "arguments": str(fn.get("arguments") or "")}}


def to_chatfold(message: ChatMessage) -> dict[str, Any]:
    """One LlamaIndex ``ChatMessage`` as a chatfold message, its full serialization kept."""
    role = _ROLES.get(str(message.role.value), "user")
    calls = [
        {"id": b.tool_call_id or "", "type": "function",
         "function": {"name": b.tool_name,
                      "arguments": b.tool_kwargs if isinstance(b.tool_kwargs, str)
                      else json.dumps(b.tool_kwargs, ensure_ascii=False)}}
        for b in message.blocks if isinstance(b, ToolCallBlock)
    ]
    calls += [_call(c) for c in message.additional_kwargs.get("tool_calls") or ()]
    out: dict[str, Any] = {"role": role, "content": message.content or ""}
    if calls and role == "assistant":
        out["tool_calls"] = calls
    if role == "tool":
        call_id = message.additional_kwargs.get("tool_call_id")
        if isinstance(call_id, str):
            out["tool_call_id"] = call_id
        else:  # a tool answer that names no call cannot be paired: folded as plain text
            out["role"] = "user"
    out[NATIVE_KEY] = message.model_dump(mode="json")
    return out


def from_chatfold(message: Mapping[str, Any], summary_role: str = "system") -> ChatMessage:
    """A chatfold message back as a ``ChatMessage``: the original one when it was logged by
    :func:`to_chatfold`; chatfold's summary as a message with ``summary_role`` (no marker in
    ``additional_kwargs``: LlamaIndex's OpenAI client would send it to the provider)."""
    native = message.get(NATIVE_KEY)
    if isinstance(native, Mapping):
        return ChatMessage.model_validate(dict(native))
    role = (summary_role if message.get("is_summary") or message.get("is_recall")
            else str(message.get("role", "user")))
    extra: dict[str, Any] = {}
    if message.get("tool_call_id"):
        extra["tool_call_id"] = message["tool_call_id"]
    if message.get("tool_calls"):
        extra["tool_calls"] = list(message["tool_calls"])
    content = message.get("content")
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    return ChatMessage(role=role, content=text, additional_kwargs=extra)


class ChatfoldMemory(BaseMemory):
    """A LlamaIndex memory whose history chatfold folds within a token budget.

    Build it with :meth:`from_defaults`. ``get()`` folds when the conversation is over its
    trigger; ``put()`` only appends. The async methods run the same work in a thread.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    session_id: str = Field(description="The conversation's id in the chatfold store.")
    summary_role: str = Field(default="system",
                              description="Role of the summary message in get().")
    conversation: Any = Field(default=None, exclude=True,
                              description="The chatfold Conversation holding the log.")
    _options: dict[str, Any] = PrivateAttr(default_factory=dict)

    @classmethod
    def class_name(cls) -> str:
        """The name LlamaIndex serializes this memory under."""
        return "ChatfoldMemory"

    @classmethod
    def from_defaults(
        cls, session_id: str | None = None, *, summary_role: str = "system", **options: Any,
    ) -> ChatfoldMemory:
        """A memory over ``Conversation(session_id, **options)``.

        Args:
            session_id: The conversation's id in the store (default: a new random id, as
                LlamaIndex's ``Memory`` does).
            summary_role: Role of the summary message (``"system"``, or ``"user"`` for
                models that take no second system message).
            **options: :class:`~chatfold.Conversation`'s keyword arguments (``store``,
                ``summarizer``, ``policy``, ``system``, ``counter``, ``fold_mode``...).
        """
        if session_id is None:
            session_id = f"chat-{uuid.uuid4().hex}"
        memory = cls(session_id=session_id, summary_role=summary_role,
                     conversation=Conversation(session_id, **options))
        memory._options = {**options, "store": memory.conversation.store}
        return memory

    def get(self, input: str | None = None, **kwargs: Any) -> list[ChatMessage]:
        """The folded context (folding first if over the trigger); ``input`` is unused."""
        return [from_chatfold(m, self.summary_role) for m in self.conversation.raw_context()]

    def get_all(self) -> list[ChatMessage]:
        """Every message ever put, in order (the system prompt first, if the conversation
        has one)."""
        return [from_chatfold(m) for m in self.conversation.transcript()]

    def put(self, message: ChatMessage) -> None:
        """Append one message to the log."""
        self.conversation.append(to_chatfold(message))

    def put_messages(self, messages: list[ChatMessage]) -> None:
        """Append several messages at once (atomically)."""
        if messages:
            self.conversation.append([to_chatfold(m) for m in messages])

    def set(self, messages: list[ChatMessage]) -> None:
        """Replace the whole history with ``messages`` (the log is rewritten)."""
        self.reset()
        self.put_messages(messages)

    def reset(self) -> None:
        """Delete the log and the summary."""
        self.conversation.store.delete(self.session_id)
        # A fresh conversation object: the old one caches the deleted log's view.
        self.conversation = Conversation(self.session_id, **self._options)

    async def aget(self, input: str | None = None, **kwargs: Any) -> list[ChatMessage]:
        """Async :meth:`get`."""
        return await asyncio.to_thread(self.get, input, **kwargs)

    async def aget_all(self) -> list[ChatMessage]:
        """Async :meth:`get_all`."""
        return await asyncio.to_thread(self.get_all)

    async def aput(self, message: ChatMessage) -> None:
        """Async :meth:`put`."""
        await asyncio.to_thread(self.put, message)

    async def aput_messages(self, messages: list[ChatMessage]) -> None:
        """Async :meth:`put_messages`."""
        await asyncio.to_thread(self.put_messages, messages)

    async def aset(self, messages: list[ChatMessage]) -> None:
        """Async :meth:`set`."""
        await asyncio.to_thread(self.set, messages)

    async def areset(self) -> None:
        """Async :meth:`reset`."""
        await asyncio.to_thread(self.reset)
