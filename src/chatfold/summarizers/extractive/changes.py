"""Changed values: a newer statement that says something changed replaces the older one it
changes, whatever the attribute is called.

Slots (``slots.py``) know a fixed set of attributes ("I live in", "my X is", "预算"). People
change other things: "The meeting moved to Wednesday at 10am" changes "The meeting is on
Tuesday at 3pm"; "The guest count is now 55" changes "We are expecting 40 guests"; "航班改成
CA5678了" changes "我的航班是CA1234". The rule, for statements by the same speaker:

* the newer one says it changes (a word of change: "moved", "is now", "no longer", "改到",
  "换成", "以后"; not "actually", which as often tells of something else);
* both speak of the same thing: at least half of the newer one's content words (once values
  are taken out) are the older one's ("meeting", "guest", "会议", "航班"; an email address or
  a phone number counts as a word), and the newer one is short (a long statement that mentions
  a change tells a story);
* the values differ: the older holds one the newer does not, and the newer brings a new one
  (numbers, times, dates, names, codes, addresses).

The older statement loses the clauses that speak of that thing (and value fragments like "at
3pm"); when nothing is left it is dropped.
"""

from __future__ import annotations

import re

from .items import _Item
from .lexicon import ZH_NUMERALS
from .scoring import _is_question
from .slots import _CLAUSE_SPLIT, _without_clauses
from .threads import content_tokens

_CHANGE = re.compile(
    r"(?i:\b(?:no longer|any ?more|instead|change[ds]?|moved|switched|updated|turned|became"
    r"|(?:is|are|was|were) now|now (?:is|are)|from now on|postponed|rescheduled|delayed"
    r"|pushed (?:back |out )?to|bumped (?:up |down )?to|(?:raised|lowered|increased|reduced"
    r"|dropped|went up|went down|grew) to)\b)"
    r"|改成|改为|改到|改在|换成|换到|变成|变为|搬到|搬去|跳槽|推迟|提前到|延期|延到|不再"
    r"|以后(?:请|就|都)?(?:用|联系|找|打)|更新|调整为|调到|增加到|减少到|降到|涨到|升到|现在是"
)
_MAX_TOPIC = 8
"""A statement of change names the thing it changes; one with more content words than this
tells a story ("the room was 902, dirty, noisy…") and changes nothing."""
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PHONE = re.compile(r"\+?\d[\d\s()-]{6,}\d")
_VALUE = re.compile(
    r"\d[\d,.:/-]*(?:\s?(?:am|pm))?"  # numbers, times, dates
    r"|(?<![A-Za-z])[A-Z][A-Za-z]*\d[A-Za-z\d-]*"  # codes: BA117, CA1234
    r"|(?<=[^\s.!?。！？])\s+(?P<cap>[A-Z][a-z]+)"  # a capitalised word inside a sentence
    rf"|(?:周|星期|礼拜)[一二三四五六日天]|[{ZH_NUMERALS}]+(?=[点号日月年岁个位人份天]|$)",
)
_CAP_NOT_VALUE = frozenset({"I", "I'm", "I'll", "I've", "I'd"})
_CUE_TOKENS = content_tokens(
    "no longer anymore instead change changed changes moved switched updated turned became now "
    "postponed rescheduled delayed pushed bumped raised lowered increased reduced dropped grew "
    "改成 改为 改到 改在 换成 换到 换了 变成 变为 搬到 搬去 跳槽 推迟 提前 延期 延到 以后 "
    "不再 更新 调整 调到 增加 减少 降到 涨到 升到 现在 已经"
)


def _values(text: str) -> tuple[frozenset[str], str]:
    """The values a statement gives (normalised), and its text with them blanked out."""
    found: set[str] = set()
    for m in _EMAIL.finditer(text):
        found.add(m.group().lower())
    text = _EMAIL.sub(" <email> ", text)
    for m in _PHONE.finditer(text):
        found.add(re.sub(r"\D", "", m.group()))
    text = _PHONE.sub(" <phone> ", text)
    out = []
    last = 0
    for m in _VALUE.finditer(text):
        value = m.group("cap") or m.group().strip()
        if value in _CAP_NOT_VALUE:
            continue
        found.add(value.lower())
        start = m.start("cap") if m.group("cap") else m.start()
        out.append(text[last:start])
        out.append(" ")
        last = m.end()
    out.append(text[last:])
    return frozenset(found), "".join(out)


def _topic(text: str) -> frozenset[str]:
    """What a text speaks of, its values and words of change left out; an email address or a
    phone number counts as the thing it is."""
    kinds = {kind for kind in ("<email>", "<phone>") if kind in text}
    return (content_tokens(_CHANGE.sub(" ", text)) - _CUE_TOKENS) | kinds


# Literal pieces every match of _CHANGE or _ENDED holds: a substring test in C rules most
# statements out before the regex engine tries them at every position.
_CHANGE_KEYS = (
    "longer", "more", "instead", "chang", "mov", "switch", "updat", "turn", "becam", "now",
    "postpon", "reschedul", "delay", "push", "bump", "rais", "lower", "increas", "reduc",
    "drop", "went", "grew", "改", "换", "变", "搬", "跳槽", "推迟", "提前", "延", "不再", "以后",
    "更新", "调", "增加", "减少", "降到", "涨到", "升到", "现在是",
)
_ENDED_KEYS = (
    "sold", "quit", "resign", "longer", "gave up", "broke up", "divorc", "moved out", "more",
    "不再", "卖了", "辞职", "离职", "戒了", "分手", "了",
)


def _has(text: str, keys: tuple[str, ...]) -> bool:
    low = text.lower()
    return any(k in low for k in keys)


def supersede_changes(items: list[_Item]) -> list[_Item]:
    """Apply each statement of change to the latest older statement it changes (items oldest
    first); return the items, the emptied ones left out."""
    facts: list[tuple[frozenset[str], frozenset[str]] | None] = [None] * len(items)

    def shape(k: int) -> tuple[frozenset[str], frozenset[str]]:
        got = facts[k]
        if got is None:
            values, rest = _values(items[k].body)
            got = facts[k] = (values, _topic(rest))
        return got

    emptied: set[int] = set()
    for n, it in enumerate(items):
        if (it.role == "assistant" or it.replaces or not _has(it.body, _CHANGE_KEYS)
                or not _CHANGE.search(it.body) or _is_question(it.body)):
            continue
        values, topic = shape(n)
        if not values or not topic or len(topic) > _MAX_TOPIC:
            continue  # a long statement that mentions a change is a story, not an update
        for k in range(n - 1, -1, -1):
            old = items[k]
            if id(old) in emptied or old.tag != it.tag or old.role == "assistant":
                continue
            old_values, old_topic = shape(k)
            shared = len(topic & old_topic)
            if 2 * shared < len(topic) or not old_values - values or not values - old_values:
                continue  # not mostly the same thing, or no value replaced
            _take_out(old, topic, old_values - values)
            if not old.body:
                emptied.add(id(old))
            it.score = max(it.score, old.score)
            it.replaces = True
            break
    return [it for it in items if id(it) not in emptied] if emptied else items


# A state that ended: "I sold the Corolla", "I quit my job at Google", "不喝咖啡了".
_ENDED = re.compile(
    r"(?i:\b(?:sold|quit|resigned from|no longer|gave up|broke up with|divorced|moved out of"
    r"|(?:don't|do not|doesn't|does not) \w+(?: \w+)? any ?more)\b)"
    r"|不再|卖了|辞职|离职|戒了|分手|不(?P<verb>[喝吃玩用住养开去做])(?P<obj>[\u4e00-\u9fff]{1,4}?)了"
)


def end_states(items: list[_Item]) -> list[_Item]:
    """Take out of older statements by the same speaker what a statement of an ended state
    ends: the clauses naming the same thing (a name or code in English, "Corolla", "Google";
    in Chinese what the verb's object shares, "不喝咖啡了" ends "我喜欢喝美式咖啡")."""
    emptied: set[int] = set()
    for n, it in enumerate(items):
        if it.role == "assistant" or not _has(it.body, _ENDED_KEYS) or _is_question(it.body):
            continue
        ended = _ENDED.search(it.body)
        if ended is None:
            continue
        if ended.group("obj"):
            what = content_tokens(ended.group("verb") + ended.group("obj")) | {ended.group("obj")}
            named = frozenset(w for w in what if len(w) >= 2)
        else:
            named = frozenset(v for v in _values(it.body)[0] if not v[:1].isdigit())
        if not named:
            continue
        for old in items[:n]:
            if id(old) in emptied or old.tag != it.tag or old.role == "assistant":
                continue
            if not any(w in old.body.lower() for w in named):
                continue
            parts = _CLAUSE_SPLIT.split(old.body)
            removed = {i // 2 for i in range(0, len(parts), 2)
                       if any(w in parts[i].lower() for w in named)}
            if len(removed) == (len(parts) + 1) // 2:
                old.body = ""
                emptied.add(id(old))
            else:
                old.body = _without_clauses(parts, removed, {})
    return [it for it in items if id(it) not in emptied] if emptied else items


def _take_out(old: _Item, topic: frozenset[str], stale: frozenset[str]) -> None:
    """Remove from ``old`` the clauses that speak of ``topic``, and the fragments that only
    hold a ``stale`` value ("at 3pm")."""
    parts = _CLAUSE_SPLIT.split(old.body)
    removed = set()
    for i in range(0, len(parts), 2):
        values, rest = _values(parts[i])
        own = _topic(rest)
        if own & topic or (not own and values & stale):
            removed.add(i // 2)
    if not removed:  # the thing was named across clauses: take out the stale values' clauses
        removed = {i // 2 for i in range(0, len(parts), 2) if _values(parts[i])[0] & stale}
    if len(removed) == (len(parts) + 1) // 2:
        old.body = ""
    elif removed:
        old.body = _without_clauses(parts, removed, {})

