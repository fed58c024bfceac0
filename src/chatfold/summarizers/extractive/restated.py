"""A value said again of the same thing, in the same measure, with no word of change.

"medigap renewal notice just came. $236/mo." after "mom's Medigap Plan G premium is $212 a
month"; "王阿姨工资六千三一个月" after "姓王…工资5800一个月，包吃住": people restate a value
without saying it changed, and the newer one holds. :mod:`.changes` handles what a word of
change or a short restatement names; this pass handles the rest, strictly: the same speaker, a
thing named by the same words (two in common, or one long word; in Chinese two character
pairs), nobody else's, not an event of a day, and exactly one value of the same measure on each
side (a time, a date, or a number with the same currency, unit and period). The older
statement then says the new value in its own words, or loses the clause that held the old one.

Standard library only; reads the statements :mod:`.summarizer` merged, oldest first.
"""

from __future__ import annotations

import re

from .changes import (
    _DIGITS,
    _EN_ADDRESS,
    _HAN,
    _NOT_UNIT,
    _WHEN_IT_HAPPENED,
    _WHEN_IT_HAPPENED_ZH,
    _ZH_ADDRESS,
    _arabic,
    _assistants,
    _far_amount,
    _in,
    _in_digits,
    _rewrite,
    _Shape,
    _speaker_tag,
    _take_out,
    _value_kind,
    _written,
)
from .items import _USER_TAGS, _is_tool_line, _Item
from .lexicon import _DONE_MARK, _TASKS, ZH_NUMERALS, is_latin
from .scoring import _is_question
from .threads import user_done

__all__ = ["restated_values"]

_DONE_MARKS = tuple(_DONE_MARK.values())  # (a request done is no statement of a value)
_LONG_WORD = 7  # a Latin word this long names one thing ("medigap", "metoprolol")
_SHARED_WORDS = 2
# What follows a number to say what it measures: "$212 a month", "$22/hr", "25mg", "3 liters",
# "40毫克", "一天280" (a period before it, in Chinese).
_AFTER = re.compile(r"\s?(?:/|per |an? |每|一)?\s?(?:个)?([A-Za-z]+|[公千毫厘]?[\u4e00-\u9fff]|%)")
_PERIOD_BEFORE_ZH = re.compile(r"(?:每|一)个?([天日晚周月年人平次])\s*$")  # "一天280", "每人50"
_SAME_MEASURE = {
    "mo": "month", "mos": "month", "months": "month", "hr": "hour", "hrs": "hour",
    "hours": "hour", "wk": "week", "weeks": "week", "yr": "year", "yrs": "year", "years": "year",
    "days": "day", "nights": "night", "毫克": "mg", "公斤": "kg", "千克": "kg", "kgs": "kg",
    "liters": "liter", "litres": "liter", "litre": "liter", "升": "liter", "小时": "hour",
    "月": "month", "年": "year", "天": "day", "日": "day", "晚": "night", "周": "week",
    "块": "元", "usd": "$", "dollars": "$", "dollar": "$", "bucks": "$",
}
_MEASURED_KINDS = frozenset(("number", "time", "date"))
# A count in Chinese numerals by its measure word, which no value holds: "每天三片" → "两片半".
_COUNTED_ZH = re.compile(rf"(?<![\d.{ZH_NUMERALS}])[一二两三四五六七八九十]{{1,2}}个?"
                         r"([片粒颗袋支瓶盒杯勺])半?")
_PRONOUNS_ZH = frozenset("我你他她它帮")
_WEEKDAY_EN = re.compile(r"(?i)\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b")


def _measure(value: str, text: str) -> str | None:
    """What ``value`` measures in ``text`` (normalised: digits for numerals): its kind, and for
    a number its currency and the unit or period written with it; None when not found or a
    number has none of them."""
    kind = _value_kind(value)
    if kind != "number":
        return kind
    m = _written(value, text, True)
    if m is None:
        return None
    sign = text[m.start() - 1] if m.start() and text[m.start() - 1] in "$€£¥" else ""
    after = _AFTER.match(text, m.end())
    unit = after.group(1).lower() if after is not None else ""
    unit = "" if unit in _NOT_UNIT else _SAME_MEASURE.get(unit, unit)
    if unit == "元":
        sign, unit = "¥", ""
    period = _period_zh(text, m.start()) if not is_latin(text) else ""
    # (A bare number measures nothing said: "房间302" is no price, "3，" a list's third item.)
    return f"{sign}|{unit}|{period}" if sign or unit or period else None


def _period_zh(text: str, end: int) -> str:
    """The span a Chinese number just before ``end`` is per ("一天", "每人"), or ""."""
    before = _PERIOD_BEFORE_ZH.search(text, 0, end)
    return _SAME_MEASURE.get(before.group(1), before.group(1)) if before is not None else ""


def _measures(body: str, values: frozenset[str]) -> dict[str, list[str]]:
    """The values of ``body`` by what they measure (values of other kinds left out); a count in
    Chinese numerals as written ("两片半")."""
    text = _in_digits(body) if is_latin(body) else _arabic(body)
    out: dict[str, list[str]] = {}
    if not is_latin(body):
        for c in _COUNTED_ZH.finditer(body):
            out.setdefault(f"|{c.group(1)}|{_period_zh(body, c.start())}", []).append(c.group())
    for v in values:
        if _value_kind(v) in _MEASURED_KINDS and _DIGITS.search(v) \
                and not _ZH_ADDRESS.fullmatch(v) and not _EN_ADDRESS.fullmatch(v) \
                and (m := _measure(v, text)) is not None:
            out.setdefault(m, []).append(v)
    return out


def _named_alike(words: frozenset[str], names: frozenset[str], was: _Shape) -> bool:
    """Whether a thing named by ``words`` and ``names`` (every Latin word, to find a name
    the older statement gives, in any case) is the one ``was`` names."""
    pool = (was.topic | {w for name in was.names for w in name.split()}) - was.units
    shared = [w for w in words - was.units if _in(w, pool)] + [
        w for w in names & was.names if w not in words]
    # (A short name alone is not enough: "Ivy starts riding the bus…, pickup 7:12" is not the
    # time of Ivy's tutoring.)
    return len(shared) >= _SHARED_WORDS or any(len(w) >= _LONG_WORD for w in shared)


def _new_weekday(old: _Item, said: str) -> None:
    """The one weekday ``said`` names for the one ``old`` names, when they differ: "dentist is
    thursday at 4:15" with "new time is friday 8:40am" moved the day too."""
    was, now = _WEEKDAY_EN.findall(old.body), _WEEKDAY_EN.findall(said)
    if len(was) == 1 and len({d.lower() for d in now}) == 1 \
            and was[0][:3].lower() != now[0][:3].lower():
        old.body = _WEEKDAY_EN.sub(now[0], old.body, count=1)


def restated_values(items: list[_Item], shaped: dict[str, _Shape] | None = None
                    ) -> list[_Item]:
    """Write each value the user restates of a thing into the latest older statement of the
    same thing and measure (items oldest first); return the items, emptied ones left out. See
    the module's docstring. ``shaped``: shapes by statement, made by a pass before."""
    by_body = shaped if shaped is not None else {}

    def shape(k: int) -> _Shape:
        body = items[k].body
        got = by_body.get(body)
        if got is None:
            got = by_body[body] = _Shape(body)
        return got

    def usable(it: _Item) -> bool:
        return _speaker_tag(it) in _USER_TAGS and not _assistants(it) and it.section != _TASKS \
            and not it.body.endswith(_DONE_MARKS) \
            and not _is_tool_line(it.body) and (_DIGITS.search(
                it.body if is_latin(it.body) else _arabic(it.body)) is not None
                or _COUNTED_ZH.search(it.body) is not None)

    measured: dict[str, dict[str, list[str]]] = {}
    # (asked once: a rewritten statement stays one; an emptied one is skipped below)
    candidates = [usable(it) for it in items]
    by_msg: dict[int, list[int]] = {}
    for k, it in enumerate(items):
        by_msg.setdefault(it.msg, []).append(k)
    for n, it in enumerate(items):
        if it.msg < 0 or it.replaces or not candidates[n] or _is_question(it.body) \
                or user_done(it.body) or (_WHEN_IT_HAPPENED.search(it.body) if is_latin(it.body)
                                          else "了" in it.body
                                          and _WHEN_IT_HAPPENED_ZH.search(it.body)):
            continue  # (what was done that day is an event: "今天跑了8公里", not "这次开的…")
        new = shape(n)
        fresh = _measures(it.body, new.values)
        if not fresh:
            continue
        # The other sentences of the message name the thing too: "medigap renewal notice just
        # came. $236/mo."
        # So does the reply to it: "…new time is friday 8:40am" "Got it, dentist Friday at 8:40."
        words, names = new.topic, new.words
        for k in by_msg[it.msg] + by_msg.get(it.msg + 1, []):
            other = items[k]
            if k != n and ((other.msg == it.msg and other.tag == it.tag)
                           or (other.msg == it.msg + 1 and _assistants(other))):
                words, names = words | shape(k).topic, names | shape(k).words
        heads = words if is_latin(it.body) else frozenset(
            w for w in new.topic if not _PRONOUNS_ZH & set(w))
        others = names - words if is_latin(it.body) else frozenset()  # (a name said lower-case)
        for k in range(n - 1, -1, -1):
            old = items[k]
            if old.msg == it.msg or not candidates[k] or not old.body \
                    or _speaker_tag(old) != _speaker_tag(it):
                continue
            low = old.body.lower()
            found = [w for w in heads if w[:5] in low]
            if len(found) + sum(1 for w in others if w.capitalize() in old.body) \
                    < _SHARED_WORDS and not any(len(w) >= _LONG_WORD for w in found):
                continue  # (too few words in common, asked before the statement is read)
            was = shape(k)
            if new.persons != was.persons and not (
                    new.persons < was.persons if new.persons else not new.own):
                continue  # someone else's ("my brother's flight"; "我老婆"; "my" of "mom's")
            if new.of and was.of and not new.of & was.of:
                continue  # "the deadline of the launch" / "the deadline of the report"
            if is_latin(it.body) != is_latin(old.body):
                continue
            if is_latin(it.body):
                if not _named_alike(words, names, was):
                    continue
            elif len(heads & was.topic) < _SHARED_WORDS:
                continue  # (not by "帮我", "我订": heads leave them out)
            stale = measured.get(old.body)
            if stale is None:
                stale = measured[old.body] = _measures(old.body, was.values)
            pairs = [(olds[0], fresh[m][0]) for m, olds in stale.items()
                     if m in fresh and len(olds) == 1 == len(fresh[m]) and olds[0] != fresh[m][0]]
            if len(pairs) != 1:
                continue
            pair = pairs[0]
            if _value_kind(pair[0]) == "number" and _far_amount(*pair):
                continue
            was_said = old.body
            if _HAN.search(pair[0]):  # (a count as written: "三片")
                old.body = old.body.replace(pair[0], pair[1], 1)
            elif not _rewrite(old, pair, it.body, True):
                _take_out(old, frozenset(), frozenset(pair[:1]))
            elif _value_kind(pair[0]) in ("time", "date"):
                _new_weekday(old, it.body)
            if old.body != was_said:
                it.replaces = True
                # (worth what the older statement was: the value is the one asked for now)
                it.score = max(it.score, old.score)
            break
    return [it for it in items if it.body]
