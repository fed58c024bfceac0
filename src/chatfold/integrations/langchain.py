"""LangChain v1 agents and LangGraph: chatfold as a ``before_model`` middleware (and a
``pre_model_hook``), a drop-in replacement for LangChain's ``SummarizationMiddleware``.

Before each model call the agent state's messages are folded: the pinned head (any leading
``SystemMessage``) stays, everything older than the recent window becomes chatfold's one
rolling summary (a ``SystemMessage`` marked ``additional_kwargs["is_summary"]``), and the
recent window keeps the original message objects -- an ``AIMessage`` with ``tool_calls`` is
never separated from its ``ToolMessage`` results, and ids are preserved. The next fold reads
the summary back as the previous summary: it is rolled forward, never summarized as an old
message.

Given a :class:`~chatfold.Conversation`, the middleware also appends every new state message
to the conversation's log (the complete transcript, with each message's full LangChain
serialization under the ``"langchain"`` key) and takes the folded context from it.

Example (needs ``pip install 'chatfold[langchain]'``)::

    from langchain.agents import create_agent
    from chatfold import Policy
    from chatfold.integrations.langchain import ChatfoldMiddleware

    agent = create_agent(model, tools=[...], system_prompt="You are terse.",
                         middleware=[ChatfoldMiddleware(policy=Policy(trigger_tokens=8000))])
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from chatfold import Conversation, Folder, MissingDependencyError, Policy, TokenCounter

try:
    from langchain.agents.middleware import AgentMiddleware, AgentState
    from langchain_core.messages import (
        AIMessage,
        BaseMessage,
        ChatMessage,
        FunctionMessage,
        HumanMessage,
        RemoveMessage,
        SystemMessage,
        ToolMessage,
        convert_to_messages,
        messages_from_dict,
    )
    from langchain_core.runnables import RunnableLambda
    from langgraph.graph.message import REMOVE_ALL_MESSAGES
    from langgraph.runtime import Runtime
except ImportError as exc:  # pragma: no cover - exercised without the extra installed
    raise MissingDependencyError("chatfold.integrations.langchain", "langchain") from exc

__all__ = ["ChatfoldMiddleware", "from_chatfold", "to_chatfold"]

SUMMARY_MARK = "is_summary"
"""``additional_kwargs`` key marking chatfold's summary message (LangChain does not send
``additional_kwargs`` of system or human messages to providers)."""
RECALL_MARK = "is_recall"
"""The same for chatfold's recall message (rebuilt from the log each turn, never logged)."""
NATIVE_KEY = "langchain"
"""Key of a logged message that holds its full LangChain serialization."""


def _content(content: Any) -> str | list[dict[str, Any]]:
    """LangChain content as chatfold accepts it: a string or a list of typed parts."""
    if isinstance(content, str):
        return content
    parts: list[dict[str, Any]] = []
    for part in content or ():
        if isinstance(part, str):
            parts.append({"type": "text", "text": part})
        elif isinstance(part, Mapping) and isinstance(part.get("type"), str):
            parts.append(dict(part))
        else:
            parts.append({"type": "text", "text": json.dumps(part, ensure_ascii=False,
                                                             default=str)})
    return parts


def _is_summary(message: BaseMessage) -> bool:
    return bool(message.additional_kwargs.get(SUMMARY_MARK))


def _is_recall(message: BaseMessage) -> bool:
    # The recall message chatfold placed (rebuilt each turn from the log: never logged).
    return bool(message.additional_kwargs.get(RECALL_MARK))


def to_chatfold(message: BaseMessage, *, native: bool = False) -> dict[str, Any]:
    """One LangChain message as a chatfold (OpenAI-format) message dict.

    Args:
        message: Any LangChain message; chatfold's own summary message becomes the
            ``is_summary`` dict chatfold rolls forward.
        native: Also keep the full LangChain serialization (under ``"langchain"``), so
            :func:`from_chatfold` rebuilds the very same message.

    Returns:
        ``{"role", "content", ...}`` with ``tool_calls`` / ``tool_call_id`` where they apply.
    """
    out: dict[str, Any] = {"content": _content(message.content)}
    if isinstance(message, SystemMessage):
        role = message.additional_kwargs.get("__openai_role__", "system")
        out["role"] = "developer" if role == "developer" else "system"
        if _is_summary(message):
            out[SUMMARY_MARK] = True
    elif isinstance(message, HumanMessage):
        out["role"] = "user"
    elif isinstance(message, AIMessage):
        out["role"] = "assistant"
        if message.tool_calls:
            # Anthropic-style tool_use blocks repeat the tool calls: keep one copy.
            if isinstance(out["content"], list):
                out["content"] = [p for p in out["content"] if p.get("type") != "tool_use"]
            out["tool_calls"] = [
                {"id": call.get("id") or "", "type": "function",
                 "function": {"name": call["name"],
                              "arguments": json.dumps(call["args"], ensure_ascii=False)}}
                for call in message.tool_calls
            ]
    elif isinstance(message, ToolMessage):
        out["role"] = "tool"
        out["tool_call_id"] = message.tool_call_id
    elif isinstance(message, FunctionMessage):
        out["role"] = "function"
    elif isinstance(message, ChatMessage):
        roles = {"human": "user", "ai": "assistant"}
        role = roles.get(message.role, message.role)
        out["role"] = role if role in ("system", "user", "assistant", "developer") else "user"
    else:
        out["role"] = "user"
    if message.name:
        out["name"] = message.name
    if native:
        out[NATIVE_KEY] = {"type": message.type, "data": message.model_dump(mode="json")}
    return out


def from_chatfold(message: Mapping[str, Any], *, summary_role: str = "system") -> BaseMessage:
    """A chatfold message dict back as a LangChain message.

    A dict written by :func:`to_chatfold` with ``native=True`` gives back the original
    message (type, id, tool calls, metadata); chatfold's summary becomes a ``SystemMessage``
    (or a ``HumanMessage`` with ``summary_role="human"``) marked ``is_summary``; any other
    dict goes through ``langchain_core``'s converter.
    """
    native = message.get(NATIVE_KEY)
    if isinstance(native, Mapping):
        return messages_from_dict([dict(native)])[0]
    if message.get(SUMMARY_MARK) or message.get(RECALL_MARK):
        text = message.get("content")
        kind = SUMMARY_MARK if message.get(SUMMARY_MARK) else RECALL_MARK
        marked = {kind: True, "lc_source": "summarization" if kind == SUMMARY_MARK else "recall"}
        # The same summary gets the same id, so an unchanged context is no state update.
        msg_id = f"chatfold-{kind[3:]}-{uuid.uuid5(uuid.NAMESPACE_OID, str(text)).hex}"
        if summary_role == "human":
            return HumanMessage(content=text, additional_kwargs=marked, id=msg_id)
        return SystemMessage(content=text, additional_kwargs=marked, id=msg_id)
    plain = {k: v for k, v in message.items() if k not in ("is_summary", "pinned")}
    # The same message gets the same id each time, so an unchanged context is no update.
    seed = json.dumps(plain, ensure_ascii=False, sort_keys=True, default=str)
    plain.setdefault("id", f"chatfold-{uuid.uuid5(uuid.NAMESPACE_OID, seed).hex}")
    return convert_to_messages([plain])[0]


class ChatfoldMiddleware(AgentMiddleware[AgentState[Any], Any, Any]):
    """Folds the agent's messages before each model call (replaces ``SummarizationMiddleware``).

    Use it in ``create_agent(middleware=[...])``, or with LangGraph's prebuilt agent as
    ``create_react_agent(..., pre_model_hook=middleware.pre_model_hook)``.

    Args:
        summarizer: What writes the summary (default: chatfold's offline
            ``ExtractiveSummarizer``); any summarizer :class:`~chatfold.Folder` accepts.
        policy: When to fold and how much to keep (default ``Policy()``).
        conversation: A :class:`~chatfold.Conversation` (or ``AsyncConversation``) that keeps
            the complete raw log; the folded context then comes from it, and its policy and
            summarizer are the ones used.
        counter: Token counter (default: chatfold's heuristic).
        summary_role: ``"system"`` (chatfold's summary message) or ``"human"`` (the role
            LangChain's own summary uses, for providers that accept only one system message).
    """

    def __init__(
        self,
        summarizer: object = None,
        policy: Policy | None = None,
        *,
        conversation: Any = None,
        counter: TokenCounter | None = None,
        summary_role: Literal["system", "human"] = "system",
    ) -> None:
        super().__init__()
        if summary_role not in ("system", "human"):
            raise ValueError("summary_role must be 'system' or 'human'")
        if conversation is not None and (summarizer, policy, counter) != (None, None, None):
            raise ValueError("a conversation folds with its own summarizer, policy and "
                             "counter: pass them to the Conversation, not the middleware")
        if summarizer is None:
            from chatfold import ExtractiveSummarizer

            summarizer = ExtractiveSummarizer()
        self.folder = Folder(summarizer, policy, counter=counter)
        self.conversation = conversation
        self.summary_role = summary_role
        self._known: set[str] | None = None  # ids in the conversation's log, read once

    # -- the hooks -----------------------------------------------------------------------------

    def before_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Fold the state's messages if the policy says so; returns the state update."""
        return self.fold_state(state)

    async def abefore_model(self, state: AgentState[Any],
                            runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Async :meth:`before_model`."""
        return await self.afold_state(state)

    def after_agent(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Log the run's last messages (the final answer) in the conversation, if any."""
        self.log_state(state)
        return None

    async def aafter_agent(self, state: AgentState[Any],
                           runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Async :meth:`after_agent`."""
        await self.alog_state(state)
        return None

    @property
    def pre_model_hook(self) -> RunnableLambda[Any, dict[str, Any]]:
        """The same fold as a LangGraph prebuilt agent's ``pre_model_hook`` (sync and async)."""

        def hook(state: Mapping[str, Any]) -> dict[str, Any]:
            return self.fold_state(state) or {}

        async def ahook(state: Mapping[str, Any]) -> dict[str, Any]:
            return await self.afold_state(state) or {}

        return RunnableLambda(hook, afunc=ahook, name="chatfold_pre_model_hook")

    # -- folding -------------------------------------------------------------------------------

    def fold_state(self, state: Mapping[str, Any]) -> dict[str, Any] | None:
        """Fold ``state["messages"]``: ``None`` when nothing changes, else the update that
        replaces the messages (``RemoveMessage(REMOVE_ALL_MESSAGES)`` then the new list).

        Raises:
            TypeError: the middleware holds an ``AsyncConversation`` (use the async hook).
        """
        messages = _with_ids(state["messages"])
        conv = self.conversation
        if conv is None:
            dicts = [to_chatfold(m) for m in messages]
            return self._replace(messages, dicts, self.folder.fold(dicts).messages)
        if not isinstance(conv, Conversation):
            raise TypeError("an AsyncConversation needs the async hook (ainvoke / astream)")
        self._log(conv, messages)
        return self._replace(messages, [], conv.raw_context())

    async def afold_state(self, state: Mapping[str, Any]) -> dict[str, Any] | None:
        """Async :meth:`fold_state` (``Folder.afold``, or the async conversation)."""
        messages = _with_ids(state["messages"])
        conv = self.conversation
        if conv is None:
            dicts = [to_chatfold(m) for m in messages]
            result = await self.folder.afold(dicts)
            return self._replace(messages, dicts, result.messages)
        if isinstance(conv, Conversation):
            return await asyncio.to_thread(self.fold_state, state)
        await self._alog(conv, messages)
        return self._replace(messages, [], await conv.araw_context())

    def log_state(self, state: Mapping[str, Any]) -> None:
        """Append the state's messages the conversation's log does not hold yet (no fold).

        Raises:
            TypeError: the middleware holds an ``AsyncConversation`` (use :meth:`alog_state`).
        """
        conv = self.conversation
        if conv is None:
            return
        if not isinstance(conv, Conversation):
            raise TypeError("an AsyncConversation needs the async hook (ainvoke / astream)")
        self._log(conv, _with_ids(state["messages"]))

    async def alog_state(self, state: Mapping[str, Any]) -> None:
        """Async :meth:`log_state`."""
        conv = self.conversation
        if conv is None:
            return
        if isinstance(conv, Conversation):
            await asyncio.to_thread(self.log_state, state)
            return
        await self._alog(conv, _with_ids(state["messages"]))

    @property
    def post_model_hook(self) -> RunnableLambda[Any, dict[str, Any]]:
        """For LangGraph's prebuilt agent: logs each model reply as it comes (no fold), so
        the final answer is in the conversation's log when the run ends."""

        def hook(state: Mapping[str, Any]) -> dict[str, Any]:
            self.log_state(state)
            return {}

        async def ahook(state: Mapping[str, Any]) -> dict[str, Any]:
            await self.alog_state(state)
            return {}

        return RunnableLambda(hook, afunc=ahook, name="chatfold_post_model_hook")

    def _log(self, conv: Conversation, messages: Sequence[BaseMessage]) -> None:
        if self._known is None:
            self._known = _native_ids(conv.transcript())
        conv.append(self._new_entries(messages, self._known))

    async def _alog(self, conv: Any, messages: Sequence[BaseMessage]) -> None:
        if self._known is None:
            self._known = _native_ids(await conv.atranscript())
        await conv.aappend(self._new_entries(messages, self._known))

    @staticmethod
    def _new_entries(messages: Sequence[BaseMessage], known: set[str]) -> list[dict[str, Any]]:
        """State messages the log does not hold yet: those after the last one it holds (so
        a fresh thread continues the conversation), chatfold's summary excepted. Their ids
        are added to ``known``."""
        last = max((i for i, m in enumerate(messages) if m.id in known), default=-1)
        new = [m for m in messages[last + 1:] if not _is_summary(m) and not _is_recall(m)]
        known.update(m.id for m in new if m.id is not None)
        return [to_chatfold(m, native=True) for m in new]

    def _replace(self, messages: Sequence[BaseMessage], dicts: Sequence[Mapping[str, Any]],
                 folded: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
        """The state update that swaps ``messages`` for ``folded``, or ``None`` if equal.

        Messages that came from ``dicts`` (by identity) map back to the original objects;
        anything else (the new summary, logged messages) is rebuilt."""
        original = {id(d): m for d, m in zip(dicts, messages, strict=False)}
        previous = {m.id: m for m in messages}
        out: list[BaseMessage] = []
        for d in folded:
            m = original.get(id(d))
            if m is None:
                m = from_chatfold(d, summary_role=self.summary_role)
                m = previous.get(m.id, m) if m.id is not None else m
            out.append(m)
        if [m.id for m in out] == [m.id for m in messages]:
            return None
        return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *out]}


def _native_ids(log: Sequence[Mapping[str, Any]]) -> set[str]:
    return {str(n["data"].get("id")) for d in log if isinstance(n := d.get(NATIVE_KEY), Mapping)}


def _with_ids(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    # The messages reducer matches by id; like SummarizationMiddleware, give any message
    # without one an id so that the replacement keeps it.
    for m in messages:
        if m.id is None:
            m.id = str(uuid.uuid4())
    return list(messages)
