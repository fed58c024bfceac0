"""OpenAI Agents SDK: a ``Session`` backed by a chatfold conversation.

The SDK's session protocol is four async methods: ``get_items(limit)``, ``add_items(items)``,
``pop_item()`` and ``clear_session()``. :class:`ChatfoldSession` implements them over an
:class:`~chatfold.AsyncConversation`: ``add_items`` appends to the conversation's log (every
item, verbatim), ``get_items`` returns the folded context -- chatfold's one summary as a
``system`` message item, then the recent items exactly as they were added. A
``function_call`` is never separated from its ``function_call_output``: consecutive calls and
their outputs are one unit for the fold.

Responses-API items convert both ways without loss: each logged message keeps the items it
came from under ``"responses_items"``; items chatfold does not read (reasoning, hosted tool
calls) travel with the next message.

Example (needs ``pip install 'chatfold[openai-agents]'``)::

    from agents import Agent, Runner
    from chatfold import Policy, SQLiteStore
    from chatfold.integrations.openai_agents import ChatfoldSession

    session = ChatfoldSession("user-42", store=SQLiteStore("chat.db"),
                              policy=Policy(trigger_tokens=8000))
    result = await Runner.run(agent, "Where did we leave off?", session=session)
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast

from chatfold import AsyncConversation

if TYPE_CHECKING:
    from agents import TResponseInputItem

__all__ = ["ITEMS_KEY", "ChatfoldSession", "from_chatfold", "to_chatfold"]

ITEMS_KEY = "responses_items"
"""Key of a logged message that holds the Responses-API items it was made from."""

_CALL_SKIP = ("type", "call_id", "id", "status", "name")


def _plain(item: Any) -> dict[str, Any]:
    """An item as a plain dict (the SDK passes TypedDicts; pydantic models are dumped)."""
    if isinstance(item, Mapping):
        return dict(item)
    dump = getattr(item, "model_dump", None)
    if callable(dump):
        return cast("dict[str, Any]", dump(exclude_unset=True, mode="json"))
    raise TypeError(f"a Responses input item must be a dict, got {type(item).__name__}")


def _content(content: Any) -> str | list[dict[str, Any]]:
    """Message or output content as chatfold accepts it (input_text / output_text parts are
    read as text)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
        isinstance(p, Mapping) and isinstance(p.get("type"), str) for p in content
    ):
        return [dict(p) for p in content]
    return json.dumps(content, ensure_ascii=False, default=str)


def _kind(item: Mapping[str, Any]) -> str:
    kind = item.get("type")
    if isinstance(kind, str):
        return kind
    return "message" if "role" in item else "unknown"


def to_chatfold(items: Sequence[Any]) -> list[dict[str, Any]]:
    """Responses-API input items as chatfold (OpenAI chat) messages.

    A run of tool calls (``function_call`` or any other ``*_call`` item with a ``call_id``,
    unread items such as reasoning allowed between them) becomes one assistant message with
    ``tool_calls``; each ``*_call_output`` becomes a ``tool`` message; messages keep their
    role and content. Every message holds the
    original items under ``"responses_items"``; other items (reasoning, hosted tool calls)
    ride with the next message, or with an empty assistant message at the end.

    Raises:
        TypeError: an item is not a dict (or a pydantic model).
    """
    out: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []
    calls: dict[str, Any] | None = None  # the assistant message collecting a run of calls
    for raw in items:
        item = _plain(raw)
        kind = _kind(item)
        if kind.endswith("_call") and isinstance(item.get("call_id"), str):
            args = item.get("arguments")
            if not isinstance(args, str):
                args = json.dumps({k: v for k, v in item.items() if k not in _CALL_SKIP},
                                  ensure_ascii=False, default=str)
            call = {"id": item["call_id"], "type": "function",
                    "function": {"name": str(item.get("name") or kind), "arguments": args}}
            if calls is not None:  # parallel calls: one unit with all their outputs
                calls["tool_calls"].append(call)
                calls[ITEMS_KEY].extend([*pending, item])
                pending = []
                continue
            calls = {"role": "assistant", "content": None, "tool_calls": [call],
                     ITEMS_KEY: [*pending, item]}
            out.append(calls)
            pending = []
            continue
        if kind.endswith("_call_output") and isinstance(item.get("call_id"), str):
            output = item.get("output", "")
            out.append({"role": "tool", "tool_call_id": item["call_id"],
                        "content": _content(output if output is not None else ""),
                        ITEMS_KEY: [*pending, item]})
        elif kind == "message" and item.get("role") in ("user", "assistant", "system",
                                                         "developer"):
            content = item.get("content")
            out.append({"role": item["role"], "content": _content(content or ""),
                        ITEMS_KEY: [*pending, item]})
        else:
            pending.append(item)
            continue
        calls, pending = None, []
    if pending:
        out.append({"role": "assistant", "content": "", ITEMS_KEY: pending})
    return out


def from_chatfold(message: Mapping[str, Any],
                  summary_role: str = "system") -> list[dict[str, Any]]:
    """The Responses-API items a chatfold message stands for.

    A message written by :func:`to_chatfold` gives back its original items (copies);
    chatfold's summary becomes an input message with ``summary_role``; any other message is
    converted (tool calls to ``function_call`` items, tool results to
    ``function_call_output`` items).
    """
    stored = message.get(ITEMS_KEY)
    if isinstance(stored, list):
        return copy.deepcopy(stored)
    role = message.get("role")
    content = message.get("content")
    if message.get("is_summary") or message.get("is_recall"):  # recall: a note like it
        return [{"role": summary_role, "content": content}]
    if role == "tool":
        return [{"type": "function_call_output", "call_id": message.get("tool_call_id"),
                 "output": content if isinstance(content, str) else json.dumps(content)}]
    items: list[dict[str, Any]] = []
    if content not in (None, "", []):
        items.append({"role": role, "content": content})
    for call in message.get("tool_calls") or ():
        fn = call.get("function", {})
        items.append({"type": "function_call", "call_id": call.get("id"),
                      "name": fn.get("name"), "arguments": fn.get("arguments", "")})
    return items


class ChatfoldSession:
    """An OpenAI Agents SDK session whose history chatfold folds within a token budget.

    The keyword arguments are :class:`~chatfold.AsyncConversation`'s (``store``,
    ``summarizer``, ``policy``, ``system``, ``counter``, ``fold_mode``...): the session owns
    its conversation, available as :attr:`conversation`.

    Args:
        session_id: The session's id, used as the conversation id in the store.
        summary_role: Role of the summary item: ``"system"`` (default), ``"developer"`` or
            ``"user"`` (for models that take no mid-history system message).
        **options: Passed to :class:`~chatfold.AsyncConversation`.
    """

    session_settings: Any = None
    """The SDK's ``SessionSettings`` (``None``: the defaults)."""

    def __init__(self, session_id: str, *,
                 summary_role: Literal["system", "developer", "user"] = "system",
                 **options: Any) -> None:
        if summary_role not in ("system", "developer", "user"):
            raise ValueError("summary_role must be 'system', 'developer' or 'user'")
        self.session_id = session_id
        self.summary_role = summary_role
        self._options = options
        self.conversation = AsyncConversation(session_id, **options)
        self._options["store"] = self.conversation.store  # the same store after a reset

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The folded history: the summary (once there is one), then the recent items.

        Folds first when the conversation is over its trigger.

        Args:
            limit: Return only the last ``limit`` items of the folded history (as the SDK's
                own sessions do, this can cut a call from its output: prefer no limit and
                let the policy bound the history).
        """
        context = await self.conversation.araw_context()
        items = [i for m in context for i in from_chatfold(m, self.summary_role)]
        if limit is not None:
            items = items[-limit:] if limit > 0 else []
        return cast("list[TResponseInputItem]", items)

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Append items to the log (one atomic append)."""
        messages = to_chatfold(items)
        if messages:
            await self.conversation.aappend(messages)

    async def pop_item(self) -> TResponseInputItem | None:
        """Remove and return the most recent item.

        The log is append-only, so this rewrites the conversation without its last item
        (and the summary is rebuilt on the next :meth:`get_items`); not atomic against a
        concurrent writer of the same session.
        """
        items = await self._logged_items()
        if not items:
            return None
        last = items.pop()
        await self._rewrite(items)
        return cast("TResponseInputItem", last)

    async def clear_session(self) -> None:
        """Delete the session's log and summary."""
        await self._rewrite([])

    async def _logged_items(self) -> list[dict[str, Any]]:
        log = await self.conversation.atranscript()
        entries = log[len(self.conversation.system):]  # the system prompt is not logged
        return [i for m in entries for i in from_chatfold(m, self.summary_role)]

    async def _rewrite(self, items: list[dict[str, Any]]) -> None:
        await self.conversation.store.adelete(self.session_id)
        # A fresh conversation object: the old one caches the deleted log's view.
        self.conversation = AsyncConversation(self.session_id, **self._options)
        if items:
            await self.conversation.aappend(to_chatfold(items))
