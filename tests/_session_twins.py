"""Both conversation twins behind one interface, so each session test runs for both: the sync
``Conversation`` as is, and ``AsyncConversation`` driven through the sync method names on an
event loop of its own (as ``driver`` does for ``Folder.fold`` / ``afold``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

from chatfold.session import AsyncConversation, Conversation

TWINS = ("sync", "async")

_ASYNC_NAMES = {
    "append": "aappend",
    "context": "acontext",
    "raw_context": "araw_context",
    "fold": "afold",
    "refold": "arefold",
    "transcript": "atranscript",
    "stats": "astats",
    "wait": "await_fold",
    "close": "aclose",
}


class AsyncTwin:
    """An ``AsyncConversation`` called through the sync names; each call runs on this twin's
    own event loop (so a background fold task lives on between calls, as in an app)."""

    def __init__(self, conversation: AsyncConversation) -> None:
        self.conversation = conversation
        self.runner = asyncio.Runner()

    def __getattr__(self, name: str) -> Any:
        twin = _ASYNC_NAMES.get(name)
        if twin is None:
            return getattr(self.conversation, name)
        method = getattr(self.conversation, twin)

        def call(*args: Any, **kwargs: Any) -> Any:
            return self.runner.run(method(*args, **kwargs))

        return call

    def shutdown(self) -> None:
        """Let a pending background fold land, then close the loop."""
        self.runner.run(self.conversation.await_fold())
        self.runner.close()


def open_conversation(kind: str, conversation_id: str, **kwargs: Any) -> Any:
    """A ``Conversation`` (``kind="sync"``) or an :class:`AsyncTwin` (``"async"``)."""
    if kind == "sync":
        return Conversation(conversation_id, **kwargs)
    return AsyncTwin(AsyncConversation(conversation_id, **kwargs))


def shutdown(conversation: Any) -> None:
    if isinstance(conversation, AsyncTwin):
        conversation.shutdown()


def opener(kind: str) -> Iterator[Callable[..., Any]]:
    """The body of each session test file's ``twin`` fixture: ``twin("c1", store=...)`` opens
    a conversation of the ``kind`` twin; every one opened is shut down afterwards."""
    opened: list[Any] = []

    def make(conversation_id: str, **kwargs: Any) -> Any:
        conversation = open_conversation(kind, conversation_id, **kwargs)
        opened.append(conversation)
        return conversation

    yield make
    for conversation in opened:
        shutdown(conversation)
