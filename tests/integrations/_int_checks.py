"""What every integration test checks on each model input, framework-agnostic: the input
as OpenAI-format dicts holds no orphan tool result, starts with the pinned system prompt and
holds the latest user turn."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chatfold import find_orphans
from chatfold.messages import content_text

SYSTEM = "You are a travel agent. Always check the weather tool before answering."
CITIES = ["Paris", "Lisbon", "Kyoto", "Lima", "Oslo", "Cairo", "Quito", "Hanoi", "Perth",
          "Seville", "Tbilisi", "Bergen", "Porto", "Dakar", "Cusco", "Nara"]


def user_turn(t: int) -> str:
    city = CITIES[t % len(CITIES)]
    return (f"Turn {t}: I am flying to {city} next week with booking code BK{1000 + t}. "
            f"What is the weather there, and should I pack an umbrella for {city}? "
            "Please also remind me what I asked you before.")


def weather(city: str) -> str:
    """The tool the agents call: a long, fact-dense result, so folds come quickly."""
    return (f"Forecast for {city}: 18 degrees Celsius, light rain in the afternoon, wind "
            f"12 km/h from the west, humidity 71 percent. Station {city.upper()}-7 reports "
            "clear mornings all week and showers after three pm on most days.")


def check_input(messages: Sequence[Mapping[str, Any]], latest_user: str,
                system: str = SYSTEM) -> None:
    """The checks the issue asks for, on one model input (OpenAI-format dicts)."""
    assert not find_orphans(messages), f"orphan tool result in the model input: {messages}"
    assert messages[0]["role"] in ("system", "developer")
    assert content_text(messages[0]["content"]) == system, "pinned system prompt missing"
    users = [content_text(m.get("content")) for m in messages if m["role"] == "user"]
    assert any(latest_user in u for u in users), "latest user turn missing from the input"


def summary_texts(messages: Sequence[Mapping[str, Any]]) -> list[str]:
    """Summary messages in a model input (by chatfold's summary prefix)."""
    return [t for m in messages
            if (t := content_text(m.get("content"))).startswith("Summary of the earlier")]
