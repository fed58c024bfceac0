"""The model of the ``chatfold chat`` tests: a Chat Completions server on loopback
(:class:`ChatCompletionsServer`) that answers ``"echo: <last user message>"`` (its first
``ECHO_CHARS`` characters, so a summary stays under any cap), so a test can see which context
the model got; it records every request and can be told to hang.
"""

from __future__ import annotations

from typing import Any

from _chat_completions import ChatCompletionsServer, Reply

ECHO_CHARS = 60


def echo_reply(body: dict[str, Any]) -> Reply:
    """``echo: `` and the start of the latest user message."""
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    last = str(users[-1]["content"])[:ECHO_CHARS] if users else ""
    return {"role": "assistant", "content": f"echo: {last}"}


class FakeOpenAI(ChatCompletionsServer):
    """``with FakeOpenAI() as server:`` then point ``--base-url`` at ``server.base_url``."""

    def __init__(self) -> None:
        super().__init__(echo_reply)
