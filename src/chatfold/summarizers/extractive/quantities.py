"""Corrected quantities: "make it 25 postcards instead of 17" rewrites the request it corrects.

A user who asked for "17 postcards for the wedding guests" and later says "scratch that, make
it 25" has one request, not two: the summary should say "order 25 postcards for the wedding
guests", not keep the old number beside a correction that no longer says what it is for. A
slot (``slots.py``) can only drop the older clause; a quantity is rewritten in place, so the
request keeps its object, its purpose and its section.

A statement corrects a quantity when it says so (a word of change: "make it", "instead",
"改成", "换成") and counts the same thing as an earlier statement by the same speaker: the same
noun after the number ("25 postcards" / "17 postcards"), or in Chinese the same measure word
with a word in common ("伴手礼改成35份" / "订20份年会的伴手礼"). The correction itself is dropped
when it says nothing else ("Scratch that, make it 25 postcards instead of 17.").
"""

from __future__ import annotations

import re

from .items import _Item
from .lexicon import ZH_NUMERALS, is_latin
from .scoring import _is_question
from .slots import _CLAUSE_SPLIT
from .threads import _ZH_STOP_CHARS, _stem, content_tokens

# Words that change a number already given. Not "now" or "actually": "actually, I ran 5 miles"
# tells of another run, it does not correct the last one.
_CORRECTION = re.compile(
    r"(?i:\bmake (?:it|that)\b|\b(?:change|changed|update|updated|bump|raise|increase|reduce"
    r"|lower|cut) (?:it |that |this )?to\b|\binstead\b|scratch that|correction|i meant|\bnot \d)"
    r"|改成|改为|改到|换成|变成|变为|调整为|调到|调成|提高到|增加到|加到|降到|减少到|减到|更正"
    r"|应该是|说错了|改一下|不是.{0,12}而是"
)
_CUE_WORDS = content_tokens(
    "scratch that sorry oops actually correction instead change changed update updated "
    "meant revised 不好意思 抱歉 对不起 更正一下 改一下 说错了 其实 对了 现在"
)
_EN_QTY = re.compile(
    r"(?<![\w.,$€£¥])(?P<num>\d[\d,]*(?:\.\d+)?)\s+(?P<words>[a-z][a-z'-]*(?:\s+[a-z][a-z'-]*)?)",
    re.I,
)
_ZH_QTY = re.compile(
    # (not the day of "周六两个人", "星期三五个人": a weekday, then the count; nor an ordinal,
    # "第二天", "第一次参加"; nor a time, "同一天", "这两天", "前两天", "每一天"; nor a lone "一",
    # which is "per" as often as "one": "一天320元", "一个月房租", "6L一包9.8元")
    rf"(?<![第\d])(?P<num>\d+(?:\.\d+)?|(?<![周期拜这那哪同每前{ZH_NUMERALS}])(?!一(?![{ZH_NUMERALS}]))[{ZH_NUMERALS}]+)\s*"
    r"(?P<unit>公斤|小时|分钟|个|只|条|张|本|辆|套|件|位|名|人|盆|台|部|份|双|枚|家|间|晚|天|箱|瓶"
    r"|杯|桌|块|斤|次|页|盒|包|袋|束|把|支|篇|首|场|层)"
)
# Not 元 (an amount is a budget's or a price's: slots), nor 号 or 周 (dates).
# Words after a number that say nothing of what is counted ("25 more", "3 of the").
_NOT_NOUN_TEXT = (
    "more extra new additional other of the a an and or for to in at on per each instead "
    "total altogether please now then than"
)
_NOT_NOUN = frozenset(_NOT_NOUN_TEXT.split())


_DIGITS = re.compile(f"[0-9{ZH_NUMERALS}]")


def _has_digit(text: str) -> bool:
    """A correction of a quantity holds a number: most statements are ruled out here."""
    return _DIGITS.search(text) is not None


def _quantities(text: str) -> list[tuple[re.Match[str], str]]:
    """Each counted quantity in ``text`` with what it counts: an English noun's stem, or a
    Chinese measure word (prefixed ``zh:``)."""
    found = []
    for m in _EN_QTY.finditer(text):
        nouns = [_stem(w.lower().strip("'-")) for w in m.group("words").split()
                 if w.lower() not in _NOT_NOUN]
        if nouns:
            found.append((m, nouns[0]))
    if not is_latin(text):
        found.extend((m, "zh:" + m.group("unit")) for m in _ZH_QTY.finditer(text))
    return found


def _number(m: re.Match[str]) -> str:
    return m.group("num").replace(",", "")


_NUMERALS = re.compile(rf"[\d,.]*\d|[{ZH_NUMERALS}]+")


def _topic(text: str) -> frozenset[str]:
    """What a statement is about, numbers and words of change left out: its content words, and
    each Chinese character that is not a function word or a light verb ("住三晚" and "改成住四晚"
    share "住"; "5支笔" and "笔改成10支" share "笔")."""
    # The count with its measure word goes too: "每分钟2000次" and "只会活一次" share "次", which
    # is no topic.
    text = _NUMERALS.sub(" ", _ZH_QTY.sub(" ", _CORRECTION.sub(" ", text)))
    return (content_tokens(text) | {ch for ch in _HAN.findall(text) if ch not in _ZH_LIGHT}) \
        - _CUE_WORDS


_HAN = re.compile(r"[\u4e00-\u9fff]")
# function words, light verbs, and the words of when ("先打两周看看" and "周三休息" share no
# thing)
_ZH_LIGHT = _ZH_STOP_CHARS | frozenset("他她有去买订给想再还把周天月年号点")


def _absorbed(item: _Item, quantity: re.Match[str], older: _Item) -> bool:
    """True when ``item`` says nothing but the correction: every clause, once its words of
    change and the quantity are taken out, holds only words the corrected statement has."""
    rest = item.body[: quantity.start()] + " " + item.body[quantity.end():]
    rest = _CORRECTION.sub(" ", rest)
    allowed = content_tokens(older.body) | _CUE_WORDS
    for i, clause in enumerate(_CLAUSE_SPLIT.split(rest)):
        if i % 2 == 0 and not content_tokens(re.sub(r"\d[\d,.]*", " ", clause)) <= allowed:
            return False
    return True


def correct_quantities(items: list[_Item]) -> list[_Item]:
    """Rewrite each corrected quantity into the statement it corrects (items oldest first);
    return the items without the corrections that said nothing more."""
    absorbed: set[int] = set()
    for n, it in enumerate(items):
        if (it.role == "assistant" or it.replaces or not _has_digit(it.body)
                or not _CORRECTION.search(it.body) or _is_question(it.body)):
            continue  # a slot already took the old value out, or nothing is corrected
        # The number after the word of change is the new one: "再加3个，变成15个人了" is 15.
        cue = _CORRECTION.search(it.body)
        after = cue.start() if cue is not None else 0
        found = sorted(_quantities(it.body), key=lambda q: q[0].start() < after)
        for quantity, counted in found:
            older = _corrected(items[:n], it, quantity, counted)
            if older is None:
                continue
            target, old_quantity = older
            num = old_quantity.span("num")
            target.body = target.body[: num[0]] + quantity.group("num") + target.body[num[1]:]
            target.score = max(target.score, it.score)
            target.date = it.date or target.date
            it.replaces = True
            if _absorbed(it, quantity, target):
                absorbed.add(id(it))
            break
    return [it for it in items if id(it) not in absorbed] if absorbed else items


def _corrected(
    older: list[_Item], item: _Item, quantity: re.Match[str], counted: str
) -> tuple[_Item, re.Match[str]] | None:
    """The latest earlier statement by the same speaker that counts the same thing with
    another number, and its quantity."""
    new_number = _number(quantity)
    words = _topic(item.body)
    for prev in reversed(older):
        if prev.tag != item.tag or prev.role == "assistant":
            continue
        for m, what in _quantities(prev.body):
            if what != counted or _number(m) == new_number:
                continue
            if counted.startswith("zh:"):
                # "35份" alone could count anything: it must name the same thing ("个" counts
                # most things, so by a word, not a character: "14个单位" is no "两个人")
                shared = words & _topic(prev.body)
                if not (shared if counted != "zh:个" else [w for w in shared if len(w) > 1]):
                    continue
            return prev, m
    return None
