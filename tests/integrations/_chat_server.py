"""The scripted model of the agent runs: a Chat Completions server on loopback
(:class:`ChatCompletionsServer`) answering with :func:`weather_agent_reply` by default: a tool
call while the latest message is the user's, the final answer once the tool's result is in.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from _chat_completions import ChatCompletionsServer, Reply


def weather_agent_reply(body: dict[str, Any]) -> Reply:
    """Call ``get_weather`` for the city of the latest user turn, then answer."""
    messages = body.get("messages", [])
    users = [m for m in messages if m.get("role") == "user"]
    text = str(users[-1].get("content")) if users else ""
    turn = re.search(r"Turn (\d+): I am flying to (\w+)", text)
    t, city = (int(turn.group(1)), turn.group(2)) if turn else (-1, "nowhere")
    if messages and messages[-1].get("role") == "tool":
        return {"role": "assistant",
                "content": f"Answer {t}: {city} will be rainy after three, take an umbrella."}
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": f"call_{t}", "type": "function",
         "function": {"name": "get_weather", "arguments": json.dumps({"city": city})}}]}


class ChatServer(ChatCompletionsServer):
    """``with ChatServer() as server:`` then point a client at ``server.base_url``."""

    def __init__(self, respond: Callable[[dict[str, Any]], Reply] = weather_agent_reply) -> None:
        super().__init__(respond)
