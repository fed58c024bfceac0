"""A change given with its difference: "they came down $600, so it's $17,300", "two more cousins,
so we're at 114 now", "pushed it back an hour. Same day, 11:45", "房东说涨了300，现在2100",
"提前了半小时，4点半开始".

Such a change often names nothing of what it changes ("it", "we're at"), so the rules of
:mod:`.changes`, which match a change to its old statement by what both speak of, miss it. The
arithmetic finds it instead: the older value that the difference takes to the new one (17,900 −
600 = 17,300) is the value replaced, in the latest statement of the speaker's that gives it. A
difference says which way it goes ("down", "more", "later", "涨", "提前"), and the sum must go that
way; numbers are compared as numbers, times on a twelve-hour clock (10:45 + an hour = 11:45),
dates by their day of the year (March 14 + a week = March 21).

Only what the user says is read (the user's values are the user's to change), and a small count
(under 100) must also share a word with the statement it changes: "two more signed up, 14 now"
is no revision of "my son is 12".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import NamedTuple

from .changes import (
    _REVISED_WEIGHT,
    _REWRITTEN_EDGE,
    _arabic,
    _assistants,
    _distinct,
    _rewrite,
    _Shape,
    _speaker_tag,
    _value_kind,
    _values,
)
from .items import _Item
from .lexicon import is_latin


class Difference(NamedTuple):
    """One difference a message says, and the values it may lead to."""

    kind: str
    """``amount``, ``minutes`` or ``days``: what is added or taken."""
    size: float
    sign: int
    """+1 up, more, later; -1 down, less, earlier; 0 when the words do not say."""
    fresh: frozenset[str]
    """The message's values of the kind the difference leads to (normalised, as ``_values``)."""


_EN_WORD_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
    "thirty": 30, "forty": 40, "forty-five": 45, "fifty": 50, "ninety": 90, "a couple": 2,
    "a couple of": 2, "half an": 0.5, "half a": 0.5,
}
_EN_COUNT = (r"\$\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?|a couple(?: of)?|half an?|an?|one|two"
             r"|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty"
             r"|forty(?:-five)?|fifty|ninety")
_EN_UNIT = r"hours?|hrs?|minutes?|mins?|days?|weeks?|wks?"
_UP_WORDS = frozenset(("more", "extra", "higher", "later", "late", "back", "raised", "increased",
                       "rose", "jumped", "climbed", "upped", "hiked", "extended", "delayed",
                       "postponed", "up"))
_DOWN_WORDS = frozenset(("less", "fewer", "off", "cheaper", "lower", "earlier", "sooner",
                         "early", "down", "cut", "lowered", "reduced", "dropped", "fell", "slid",
                         "discounted", "knocked"))
# "two more cousins", "$600 cheaper", "an hour later", "30 minutes earlier", "$500 off"
_EN_AFTER = re.compile(
    rf"(?i)(?<![\w$.,])(?P<n>{_EN_COUNT})\s+(?:(?P<u>{_EN_UNIT})\s+)?"
    r"(?P<w>more|extra|less|fewer|off|cheaper|higher|lower|later|earlier|sooner|early|late)\b")
# "came down $600", "pushed it back an hour", "it's up $200", "moved it up 45 minutes"
_EN_BEFORE = re.compile(
    r"(?i)\b(?:came|come|comes|went|go|goes|gone|going|dropped|knocked|brought|bumped|pushed"
    r"|moved|shifted|marked|jumped|slid|pulled|it's|it is|is|was|'s)"
    r"\s+(?:(?:it|them|that|things|everything|us|me|the \w+)\s+)?"
    rf"(?P<w>down|up|back|forward)\s+(?:by\s+)?(?P<n>{_EN_COUNT})(?:\s+(?P<u>{_EN_UNIT}))?\b")
# "raised it by $50", "delayed 40 minutes", "extended the deadline by a week"
_EN_BY = re.compile(
    r"(?i)\b(?P<w>raised|increased|cut|lowered|reduced|dropped|upped|hiked|discounted|extended"
    r"|delayed|postponed)\s+(?:[\w']+\s+){0,3}?(?:by\s+)"
    rf"(?P<n>{_EN_COUNT})(?:\s+(?P<u>{_EN_UNIT}))?\b"
    r"|\b(?P<w2>delayed|postponed)\s+(?:by\s+)?(?P<n2>{_EN_COUNT})\s+(?P<u2>{_EN_UNIT})\b")

_ZH_DIGITS = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
              "九": 9, "十": 10, "半": 0.5}
_ZH_UP = frozenset(("涨", "加", "多", "贵", "增加", "提高", "上调", "上涨", "晚", "推迟",
                    "延后", "延迟", "往后推", "推后", "挪后", "多订", "多买", "多要", "多报",
                    "多加"))
# "涨了300", "多了2个人", "便宜了五百", "提前了半小时", "推迟一个小时"; 涨/降 also without 了
# ("房租要涨300"), not "涨到300" (a value, not a difference) nor "差不多3000".
_ZH_DIFFERENCE = re.compile(
    r"(?P<w>(?:涨|降)了?|(?:加|多|少|减|贵)了|多(?:订|买|要|报|加)了?|(?:增加|提高|上调|上涨|减少|降低|下调|下降|便宜|优惠"
    r"|推迟|延后|延迟|往后推|推后|挪后|提前|往前挪|早|晚)了?)"
    r"(?P<n>\d+(?:\.\d+)?|[一两二三四五六七八九十]{1,2}|半)"
    r"(?P<u>个半小时|个?小时|个钟头|钟头|分钟|天|个?星期|周|块钱?|元|人|位|桌|个|张|套|只)?")
_ZH_TIME_SHIFT = frozenset(("推迟", "延后", "延迟", "往后推", "推后", "挪后", "提前", "往前挪",
                            "早", "晚"))


# What every difference holds: a digit and one of its words, searched for before the patterns.
_DIGIT = re.compile(r"\d")
_EN_KEY = re.compile(r"(?i)\b(?:more|extra|less|fewer|off|cheaper|higher|lower|later|earlier|sooner"
                     r"|early|late|down|up|back|forward|by|delayed|postponed)")
_ZH_KEY = re.compile(r"[涨降加多少减贵增提上下便优推延往挪早晚]")


def said_differences(text: str) -> tuple[Difference, ...]:
    """The differences a message says, each with the values it may lead to."""
    if not text:
        return ()
    out: list[Difference] = []
    if is_latin(text):
        if _DIGIT.search(text) is None or _EN_KEY.search(text) is None:
            return ()
        found = [*_EN_AFTER.finditer(text), *_EN_BEFORE.finditer(text), *_EN_BY.finditer(text)]
        values = _values(text)[0] if found else frozenset()
        for m in found:
            g = m.groupdict()
            word = (g["w"] or g.get("w2") or "").lower()
            said = (g["n"] or g.get("n2") or "").lower()
            unit = (g["u"] or g.get("u2") or "").lower()
            size = _en_size(said)
            if size is None or (not unit and said in ("a", "an", "one", "half an", "half a")):
                continue  # "one more thing", "a lot more": no difference of an amount
            got = _difference(word, size, unit, said.lstrip("$ "), values, english=True)
            if got is not None:
                out.append(got)
        return tuple(out)
    if _ZH_KEY.search(text) is None:
        return ()
    plain = _arabic(text)
    found = list(_ZH_DIFFERENCE.finditer(plain))
    values = _values(text)[0] if found else frozenset()
    for m in found:
        word = m.group("w").rstrip("了")
        n, unit = m.group("n"), m.group("u") or ""
        if not n[0].isdigit() and not unit:
            continue  # "加了一堆亲戚": a word, not a count
        size = float(n) if n[0].isdigit() else _zh_size(n)
        if unit.startswith("个半"):
            size, unit = size + 0.5, "小时"
        if word in _ZH_TIME_SHIFT and not unit:
            continue  # "早8点" is a time, not a difference
        got = _difference(word, size, unit, n, values, english=False)
        if got is not None:
            out.append(got)
    return tuple(out)


def _en_size(said: str) -> float | None:
    said = said.lstrip("$ ").replace(",", "")
    if said[:1].isdigit():
        try:
            return float(said)
        except ValueError:
            return None
    return _EN_WORD_NUMBERS.get(said)


def _zh_size(said: str) -> float:
    if said == "十":
        return 10.0
    if len(said) == 2 and said[0] == "十":
        return 10.0 + _ZH_DIGITS.get(said[1], 0)
    if len(said) == 2 and said[1] == "十":
        return 10.0 * _ZH_DIGITS.get(said[0], 0)
    return float(_ZH_DIGITS.get(said, 0))


def _difference(word: str, size: float, unit: str, literal: str, values: frozenset[str],
                english: bool) -> Difference | None:
    if size <= 0:
        return None
    up = word in _UP_WORDS if english else word in _ZH_UP
    down = word in _DOWN_WORDS if english else not up
    if unit.startswith(("hour", "hr", "小时", "钟头")):
        kind, size = "minutes", size * 60
    elif unit.startswith(("min", "分钟")):
        kind = "minutes"
    elif unit.startswith(("day", "天")):
        kind = "days"
    elif unit.startswith(("week", "wk", "星期", "周")):
        kind, size = "days", size * 7
    else:
        kind = "amount"
    if kind == "minutes" and word in ("up", "forward"):
        up = down = False  # "moved it up an hour": earlier, to most; said either way
    sign = 1 if up and not down else -1 if down and not up else 0
    want = {"amount": "number", "minutes": "time", "days": "date"}[kind]
    fresh = frozenset(v for v in values if _value_kind(v) == want and v != literal
                      and v.replace(",", "") != literal.replace(",", ""))
    return Difference(kind, size, sign, fresh) if fresh else None


# -- comparing values as quantities ----------------------------------------------------------

_CLOCK_EN = re.compile(r"(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$")
_CLOCK_ZH = re.compile(r"(\d{1,2})点(?:(半)|(\d{1,2})分?)?$")
_MONTHS = {m: i for i, m in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)}
_DATE_EN = re.compile(r"([a-z]{3})[a-z]*\.? (\d{1,2})")
_DATE_ZH = re.compile(r"(\d{1,2})月(\d{1,2})[日号]")
_MONTH_START = (0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)


def _quantity(value: str, kind: str) -> float | None:
    """``value`` as a number of its kind: an amount, minutes on a 12-hour clock, a day of the
    year; None when it is not one."""
    if kind == "amount":
        plain = value.lstrip("$€£¥").replace(",", "")
        try:
            return float(plain)
        except ValueError:
            return None
    if kind == "minutes":
        m = _CLOCK_EN.match(value) or None
        if m is not None and (m.group(2) or m.group(3)):
            return (int(m.group(1)) % 12) * 60 + int(m.group(2) or 0)
        z = _CLOCK_ZH.search(value)
        if z is not None:
            return (int(z.group(1)) % 12) * 60 + (30 if z.group(2) else int(z.group(3) or 0))
        return None
    d = _DATE_EN.match(value) or _DATE_ZH.search(value)
    if d is None:
        return None
    month = _MONTHS.get(d.group(1)) if not d.group(1).isdigit() else int(d.group(1))
    day = int(d.group(2))
    if not month or not 1 <= month <= 12 or not 1 <= day <= 31:
        return None
    return float(_MONTH_START[month] + day)


def _leads_to(old: float, new: float, diff: Difference) -> bool:
    moved = new - old
    if diff.kind == "minutes":
        moved = (moved + 360) % 720 - 360  # on a 12-hour clock: the shorter way round
    return any(abs(moved - sign * diff.size) < 1e-6 for sign in ((diff.sign,) if diff.sign
                                                                   else (1, -1)))


# -- applying them ---------------------------------------------------------------------------

_SMALL = 100  # a count below this must share a word with what it changes


def supersede_differences(items: list[_Item], said: Mapping[int, tuple[str, tuple[
        Difference, ...]]]) -> None:
    """Write each difference's new value over the older value it leads to (items oldest first;
    ``said``: {message index: (its text, its differences)}), in the latest of the speaker's
    statements that gives it and in what the assistant said of it in between."""
    for msg, (text, differences) in sorted(said.items()):
        mine = [it for it in items if it.msg == msg and not _assistants(it)]
        if not mine:
            continue
        tag = _speaker_tag(mine[0])
        first = min(it.order for it in mine)
        older = [it for it in items if it.order < first and not _assistants(it)
                 and _speaker_tag(it) == tag]
        topic = _Shape(text).topic
        for diff in differences:
            found = _latest_led(older, diff, topic)
            if found is None:
                continue
            old, pair = found
            if not _rewrite(old, pair, text, diff.kind == "amount"):
                continue
            # What the assistant said of the old value in between says the new one too.
            for echo in items:
                if echo is not old and _assistants(echo) and echo.order < first and (
                        echo.msg < 0 or echo.msg >= old.msg) \
                        and pair[0] in _values(echo.body)[0]:
                    _rewrite(echo, pair, text, diff.kind == "amount")
            best = max(it.score for it in mine)
            for it in mine:
                if pair[1] in _values(it.body)[0]:
                    it.score = max(it.score, old.score) + _REVISED_WEIGHT
                    it.replaces = True  # (its change is made: no other rule makes it again)
                    best = max(best, it.score)
            old.score = best + _REWRITTEN_EDGE
            older.remove(old)


def _latest_led(older: list[_Item], diff: Difference, topic: frozenset[str]
                ) -> tuple[_Item, tuple[str, str]] | None:
    """The latest statement with a value ``diff`` takes to one of its values, and the pair."""
    fresh = [(v, q) for v in diff.fresh if (q := _quantity(v, diff.kind)) is not None]
    kind = _value_kind(next(iter(diff.fresh)))  # (the fresh values are all of one kind)
    for old in reversed(older):
        was = _values(old.body)[0]
        for value in was:
            if value in diff.fresh or _value_kind(value) != kind:
                continue
            q = _quantity(value, diff.kind)
            if q is None:
                continue
            for new, n in fresh:
                if not _leads_to(q, n, diff):
                    continue
                if diff.kind == "amount" and max(q, n) < _SMALL and not _distinct({value}) \
                        and not topic & _Shape(old.body).topic:
                    continue
                return old, (value, new)
    return None
