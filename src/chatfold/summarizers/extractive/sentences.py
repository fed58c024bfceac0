"""Sentence splitting, leading filler and normalised keys for duplicates."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any

from .lexicon import (
    _CAP_STOP,
    _MAX_ITEM_CHARS,
    _NAME_VERBS,
    _NOT_NAMES,
    _SURNAMES,
    CASUAL_SPELLINGS,
    NAG_ME_KEYS,
    ZH_CHILD_NAMED,
    ZH_NUMERALS,
    is_latin,
)


def _trie_pattern(words: Iterable[str]) -> str:
    """A regex matching any of ``words``, longest first, shaped as a trie (one branch per
    distinct next character) so each position costs a few comparisons, not one per word."""
    root: dict[str, Any] = {}
    for word in words:
        node = root
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def walk(node: dict[str, Any]) -> str:
        alts = [re.escape(ch) + walk(child) for ch, child in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        if "" in node:
            return f"(?:{body})?"
        return body

    return "|".join(re.escape(ch) + walk(child) for ch, child in sorted(root.items()))


# ---------------------------------------------------------------------------------------------
# chat shorthand

# A shorthand word alone: not inside a word, a hyphenated one, a contraction or an
# abbreviation ("U-turn", "i.e.", "I'm", "u2").
_CASUAL = re.compile(
    r"(?<![\w'’\-./])(?i:" + _trie_pattern(CASUAL_SPELLINGS) + r")(?![\w'’\-]|\.\w)"
)


def _spelled_out(m: re.Match[str]) -> str:
    word = m.group()
    full = CASUAL_SPELLINGS[word.lower()]
    if len(word) == 1 and word.isupper():
        return word  # "U" alone is a letter ("U of M", "Plan U"); "u" is "you"
    if word.isupper():
        return full  # "BTW", "IDK": said loud, meant the same
    return full[:1].upper() + full[1:] if word[:1].isupper() else full


# Chinese typed on a phone breaks its clauses with a space ("今天连着三台手术 累死了 当麻醉师
#真的是体力活"): between two Chinese characters (or after an emoji) a space is a comma.
# So is one after a closing particle, or after a value and 了, whatever follows ("我改成9527了
# nginx是不是也得改"); not after 了 that marks a deed ("买了 iPhone 15").
_CJK_SPACE = re.compile(r"(?:(?<=[\u3400-\u9fff\U0001f300-\U0001faff])[ \u3000]+"
                        r"(?=[\u3400-\u9fff])"
                        r"|(?:(?<=[吧啊呢呀哦嘛啦呗])|(?<=\d了))[ \u3000]+(?=\w))")


def plain_spelling(text: str) -> str:
    """``text`` with chat shorthand spelled out ("can u help me pls" -> "can you help me
    please", "im allergic" -> "I'm allergic") and a space between Chinese clauses read as the
    comma it stands for, so the summarizer reads what was meant.

    Example:
        >>> plain_spelling("btw im allergic to peanuts, pls dont forget. U-turn i.e. ok")
        "by the way I'm allergic to peanuts, please don't forget. U-turn i.e. ok"
        >>> plain_spelling("下周去西安 帮我看看住哪 用 Python 写")
        '下周去西安，帮我看看住哪，用 Python 写'

    """
    if not is_latin(text):
        if " " in text or "\u3000" in text:
            text = _CJK_SPACE.sub("，", text)
        if not any("a" <= ch <= "z" for ch in text):
            return text
    return _CASUAL.sub(_spelled_out, text)


# ---------------------------------------------------------------------------------------------
# sentence splitting

_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
_LIST_MARK = re.compile(r"[ \t]*(?:[-*•·>]+|#{1,6}|\d{1,3}[.)、]|[（(]\d{1,3}[)）])[ \t]+")
_CLOSERS = "”’」』）)\\]\"'"
# One character class first, so the regex engine skips ordinary text quickly.
_BREAK = re.compile(rf"[。！？；…!?;.\n][。！？；…!?;.]*[{_CLOSERS}]*")
_ABBREV = re.compile(
    r"(?:^|[\s(\[\"'])(?:mr|mrs|ms|dr|prof|sr|jr|st|vs|e\.g|i\.e|inc|ltd|co|no|nos|fig|approx"
    r"|dept|est|a\.m|p\.m|u\.s|u\.k|cf|al|ca|mt|ft|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct"
    r"|nov|dec|[a-z])$",
    re.I,
)
# A line that ends in one of these is not continued by a lowercase next line: a heading, a
# label ("Steps:"), a line of code.
_NO_WRAP_BEFORE = frozenset(":：{}[]()<>=|`\n")
_SOFT_BREAK = re.compile(r"[，、]|,(?!\d)")
_HAS_WORD = re.compile(r"[0-9A-Za-z\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_SPACES = re.compile(r"\s+")
_STRAY = re.compile(r"\W*\w?\W*|\d{1,3}[.)、]")
_NON_WORD = re.compile(r"[\W_]+")
_FULL_WIDTH = re.compile(r"[\uff10-\uff19\uff21-\uff3a\uff41-\uff5a]")  # letters, digits
_ROLE_TAG = re.compile(r"^(?:User|Assistant|用户|助手)\s*[:：]\s*")


def _is_cjk(ch: str) -> bool:
    return "\u3000" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" or "\uff00" <= ch <= "\uffef"


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into sentences (Chinese and Western punctuation), list markers removed.

    A Western ``. ! ? ;`` ends a sentence only before a space, a line end or a Chinese
    character, so decimals, versions, URLs, emails and paths stay whole; ``Mr.``, ``e.g.`` and
    initials do not end one. Fenced code blocks are skipped; overlong sentences are cut at
    commas, then trimmed.

    Example:
        >>> split_sentences("Pi is 3.14. Mail a.b@x.io now! 我住在北京。你呢？")
        ['Pi is 3.14.', 'Mail a.b@x.io now!', '我住在北京。', '你呢？']
    """
    out: list[str] = []
    if "```" in text:
        text = _FENCE.sub("\n", text)
    n = len(text)
    mark_at = _LIST_MARK.match(text)
    start = mark_at.end() if mark_at else 0
    for m in _BREAK.finditer(text):
        at = m.start()
        if at < start:
            continue  # inside a list marker such as "1."
        first = text[at]
        if first == "\n":
            if (
                at + 1 < n and "a" <= text[at + 1] <= "z" and at > start
                and text[at - 1] not in _NO_WRAP_BEFORE
            ):
                continue  # a hard-wrapped line (mail, docs): "…using *sep* as the\ndelimiter"
            if at > start:
                _add_sentence(out, text[start:at])
            mark_at = _LIST_MARK.match(text, at + 1)
            start = mark_at.end() if mark_at else at + 1
            continue
        end = m.end()
        if first in ".!?;":
            nxt = text[end] if end < n else " "
            if not (nxt.isspace() or _is_cjk(nxt)):
                continue  # 3.14, v1.2, a.b@x.io, https://x.io/a?b=1, ./path
            if end - at == 1 and first == "." and _ABBREV.search(text, max(start, at - 6), at):
                continue
        _add_sentence(out, text[start:end])
        start = end
    if start < n:
        _add_sentence(out, text[start:])
    return out


def _add_sentence(out: list[str], piece: str) -> None:
    piece = " ".join(piece.split())
    if not _HAS_WORD.search(piece) or _STRAY.fullmatch(piece):
        return  # empty, punctuation, or a stray list number like "1."
    if len(piece) <= _MAX_ITEM_CHARS:
        out.append(piece)
        return
    chunk = ""
    pos = 0
    for m in _SOFT_BREAK.finditer(piece):
        part = piece[pos : m.end()]
        pos = m.end()
        if chunk and len(chunk) + len(part) > _MAX_ITEM_CHARS:
            out.append(_trim(chunk.strip(), _MAX_ITEM_CHARS))
            chunk = ""
        chunk += part
    chunk += piece[pos:]
    if chunk.strip():
        out.append(_trim(chunk.strip(), _MAX_ITEM_CHARS))


def _trim(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, at a word boundary when there is one."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit * 0.6:
        cut = cut[:space]
    return cut.rstrip(" ,，、;；:：") + "…"


# "好的，就订这家" keeps only "就订这家": a leading acknowledgement costs room and says nothing.
_LEAD_FILLER = re.compile(
    r"(?:(?:好的|好吧|好|嗯+|哦+|噢|哈哈+|对了|另外|还有|那么|太好了|好极了|太棒了|谢谢|多谢"
    r"|(?i:ok|okay|sure|yes|yeah|yep|great"
    r"|thanks|thank you|also|so|well|oh|alright|right|anyway))[，,、!！ —–]+)+"
)


# "帮我记一下，房东的电话是…", "Please remember that my gate code is 4512", "FYI, …": a request
# to keep a fact is the fact itself, not a task that closes once the assistant says "noted"
# ("remember to call Mom" is a task, and keeps its lead).
_MEMO_LEAD = re.compile(
    r"(?:(?:另外|还有|顺便|对了)?[，,]?(?:请|麻烦你?|帮我|你)*(?:记一下|记住|记下来?|记着|备注一下"
    r"|提醒一下|提醒你一下|提个醒|说一下|补充一下|顺便说一下|跟你说一下)(?:吧|哦)?[，,：:、 ]+"
    r"|(?i:(?:please |can you |could you )?(?:remember|note|make a note|keep in mind|note down)"
    r"(?: that|:)\s+|(?:fyi|for your records|for the record|just so you know|heads up"
    r"|just a heads up|also note)[,:]?\s+))"
)


# A value taken back as it is said: "staging is at 10.4.12.88 — no wait, sorry, that's the old
# box", "NAS的IP是192.168.3.45，啊不对，说错了，NAS是192.168.3.60": what follows is meant.
_RETRACTED = re.compile(
    r"(?i:[,;—–-]\s*(?:no wait|wait,? no|no,? wait|actually,? no|scratch that|correction)"
    r"(?:[,:!.]?\s*(?:sorry|my bad|oops))?[,:!.—–-]?\s+)"
    r"|(?:[，,]|——?)\s*(?:啊|哦|呃)?(?:不对|说错了|搞错了|记错了|打错了)(?:不对)?"
    r"(?:[，,]\s*(?:我)?(?:说错了|搞错了|记错了|记岔了|不对))?[，,]\s*"
)

# A number and its unit: "7岁", "35 kg", "12%".
_MEASURE = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s?([a-z%]+|[\u4e00-\u9fff])")
_RETRACTED_KEYS = ("wait", "scratch", "correction", "actually", "不对", "错了", "记岔")


# A number put right in passing, naming again what it numbers: "my box is now in rack F shelf 14
# sorry shelf 4 not 14", "gate B12, I mean gate B21": the statement stands, with the number meant.
_RENUMBERED = re.compile(
    r"(?i)\b(?P<word>[a-z]{2,}) (?P<was>[a-z]?\d[\w.]*),? (?:sorry|i mean|i meant|or rather|oops)"
    r",? (?P=word) (?P<now>[a-z]?\d[\w.]*)(?:,? not (?P=was)\b)?")
_RENUMBERED_KEYS = ("sorry", "mean", "rather", "oops")  # (a substring test rules most out)


def _strip_filler(sentence: str) -> str:
    low = sentence.lower()
    if any(k in low for k in _RENUMBERED_KEYS) \
            and (fix := _RENUMBERED.search(sentence)) is not None \
            and fix.group("was") != fix.group("now"):
        sentence = f"{sentence[:fix.start('was')]}{fix.group('now')}{sentence[fix.end():]}"
        low = sentence.lower()
    cut = None
    if any(k in low for k in _RETRACTED_KEYS):
        for found in _RETRACTED.finditer(sentence):
            cut = found  # the last one: what follows it is meant
    if cut is not None and len(sentence) - cut.end() >= 8:
        rest = sentence[cut.end():]
        head = sentence[:cut.start()]
        at, meant = _MEASURE.search(head), _MEASURE.findall(rest)
        if at is not None and len(_MEASURE.findall(head)) == len(meant) == 1 \
                and at.group(2) == meant[0][1]:
            # "我儿子乐乐7岁，哦不对，上个月过完生日8岁了": the statement stands, its value right.
            sentence = f"{head[:at.start(1)]}{meant[0][0]}{head[at.end(1):]}"
        else:
            sentence = rest[:1].upper() + rest[1:] if is_latin(rest) else rest
    m = _LEAD_FILLER.match(sentence)
    if m and m.end() < len(sentence):
        sentence = sentence[m.end() :]
    m = _MEMO_LEAD.match(sentence)
    if m and m.end() < len(sentence):
        rest = sentence[m.end() :]
        sentence = rest[:1].upper() + rest[1:] if is_latin(rest) else rest
    return sentence

# "Don't let me forget.", "Keep it on the list.", "你别让我忘了": a reminder that names nothing
# asks to remember the sentence before it, and goes with it.
_BARE_REMINDER = re.compile(
    r"(?i:^(?:(?:and|so|please|pls|oh|just|but)[, ]+)*(?:don't let me forget(?: (?:it|that|this))?"
    r"|(?:keep|put) (?:it|that|this) on (?:the|my) (?:list|radar)"
    r"|add (?:it|that|this) to (?:the|my) list"
    # "nag me next week", "can you keep reminding me, I keep putting it off"
    r"|(?:(?:can|could|would|will) you |pls |please )?(?:keep )?"
    r"(?:remind|nag|ping|bug|nudge)(?:ing)? me(?: (?:about|of) (?:it|that|this))?(?: again)?"
    r"(?: (?:later|tomorrow|tonight|next (?:week|month)|this (?:week|weekend)"
    r"|in a (?:few days|week)|on (?:mon|tues|wednes|thurs|fri|satur|sun)day))?"
    r"(?:[,;—–-] [^.!?]{1,60})?)[\s.!]*$)"
    r"|^(?:你|请|麻烦)?(?:别让我忘了?|记得提醒我(?:一下)?|到时候提醒我(?:一下)?|提醒我一下|帮我记着)"
    r"(?:啊|哦|吧)?[。！!]*$"
)
_KEEP_ON_LIST = re.compile(r"(?i)\b(?:so |and )?(?:keep|put) (?:it|that|this) on (?:the|my) list\b")
_BARE_REMINDER_CHARS = 80
_REMINDER_KEYS = ("forget", "list", "emind", "radar", "忘", "提醒", "记着", *NAG_ME_KEYS)


def _join_to_previous(sentences: list[str], joins: Callable[[str, str], bool]) -> list[str]:
    """``sentences`` with each one that ``joins(previous, it)`` joined to the one before it."""
    if len(sentences) < 2:
        return sentences
    out = [sentences[0]]
    for sentence in sentences[1:]:
        if joins(out[-1], sentence):
            out[-1] = _glue(out[-1], sentence)
        else:
            out.append(sentence)
    return out


# An assistant's bare report of what it did, then what: "Sent. I asked Coach Brandt to move
# the lesson to Wednesdays.", "搞定了。已经把周会改到周四。"
_BARE_REPORT = re.compile(
    r"(?i:(?:ok(?:ay)?,?\s+)?(?:done|sent|booked|ordered|paid|submitted|scheduled|cancell?ed"
    r"|emailed|mailed|filed|fixed|updated|all set)[.!]*)"
    r"|(?:好了|搞定了?|办好了|发好了|订好了|改好了|发(?:出去|过去)了|已发送)[。！!]*")


def join_bare_report(sentences: list[str]) -> list[str]:
    """``sentences`` of an assistant's message with a bare report opening it ("Sent.") joined
    to the sentence after it, which says what was done: one report."""
    if len(sentences) < 2 or _BARE_REPORT.fullmatch(sentences[0].strip()) is None:
        return sentences
    return [_glue(sentences[0], sentences[1]), *sentences[2:]]


def opens_with_report(text: str) -> bool:
    """Whether an assistant's statement opens with a bare report of what it did ("Sent. I
    asked Coach Brandt…"): it did the thing, whosever errand it was."""
    text = text.lstrip()
    opening = _BARE_REPORT.match(text)
    if opening is None:
        return False
    end = opening.end()
    return text[end:end + 1] in ("", " ") or text[end - 1:end] in (".", "!", "。", "！")


def _glue(before: str, sentence: str) -> str:
    sep = "" if _is_cjk(before[-1]) or before[-1] in "。！？；" else " "
    return f"{before}{sep}{sentence}"


def _bare_reminder(_: str, sentence: str) -> bool:
    return len(sentence) <= _BARE_REMINDER_CHARS and any(k in sentence for k in _REMINDER_KEYS) \
        and bool(_BARE_REMINDER.search(sentence) or _KEEP_ON_LIST.search(sentence))


def join_bare_reminders(sentences: list[str]) -> list[str]:
    """``sentences`` with a bare reminder joined to the sentence before it: "Ticket #88213
    goes to tier 2 on Monday." + "Don't let me forget." is one request."""
    return _join_to_previous(sentences, _bare_reminder)


# An errand of the speaker's whose thing is the sentence before it: "…we've opened a 529 for
# Juniper yet and... no. I should really get that set up", "…防水层坏了。得把这事跟物业说".
_POINTING_ERRAND = re.compile(
    r"(?i:\b(?:i|we)(?:'ll| will|'ve)? (?:really )?(?:should|need to|have to|gotta|got to|must"
    r"|still need to|still have to)(?: really| still)? (?:get|do|set|sort|look into|deal with"
    r"|handle|take care of|finish|book|file|send|fix|schedule|renew|cancel) (?:that|this|it)\b"
    # A reminder or a list asked for by pointing back: "Remind me to do that once…", "can you
    # keep it on my to-do list?", "don't let me forget it".
    r"|\bremind me (?:to (?:do|handle|send|book|file) )?(?:about )?(?:that|this|it)\b"
    # "Can you remind me to ask the front office to book it?": the thing is before
    # (or her, him, one, then perhaps when: "remind me to take her", "remind me to start one",
    # "remind me to go through them before thursday's call")
    r"|\bremind me to (?:[\w'-]+ ){1,6}?(?:it|that|this|them|her|him|one)"
    r"(?: (?:before|by|on|at|after|when|once|next|this|tomorrow|tonight|later|one day|someday)"
    r"\b[^.!?]{0,60})?[?.!]*$"
    r"|\b(?:keep|put|add|stick) (?:that|this|it) (?:on|to) (?:my|the) (?:to-?do )?list\b"
    r"|\bdon't let me forget (?:about )?(?:that|this|it)\b)"
    r"|(?:得|要|还得|必须)把(?:这事|那事|这件事|那件事|这个|那个|它)"
    r"|(?:提醒我|帮我记着?)(?:一下)?(?:这事|这件事|这个事)|把(?:这事|这件事|它)(?:加到|记到|放到|记在)")
# A choice that names its thing only by pointing back: "Kestrel Coffee Co's medium won by a
# mile. everybody picked it blind. we're switching to them", "匠心报价最实在。就定他们家了".
_POINTING_CHOICE = re.compile(
    r"(?i:\b(?:switch(?:ing)?(?: over)? to|go(?:ing)? with|went with|stick(?:ing)? with"
    r"|settled on|order(?:ing)? from|chose|choosing) (?:them|it|that|this|those|these)\b)"
    r"|(?:就|那就|还是|最后)(?:定|选|用|订|找|买)了?(?:它|这家|那家|这个|那个|他们|他家|这款|那款)")
# A sentence about someone only by pronoun ("Biscotti snagged one off the counter. he's a 9 yr
# old beagle mix", "need cleats for Theo. he's a youth 2.5 now", "我家狗叫豆豆。它今年9岁了"):
# alone it says of nobody what it says.
_POINTING_WHO = re.compile(
    r"(?i:^(?:he|she)(?:'s| is| was| has| just turned| turned| turns)\s)"
    r"|^(?:他|她|它)(?:今年|是|已经|才|有)")
# Who the sentence before names: a capital inside it, or a first word that is no sentence opener
# and does something ("Biscotti snagged…"); in Chinese, a name given ("叫豆豆").
_NAMED_DOING = re.compile(
    r"[A-Z][a-z]+ (?:[a-z]+(?:ed|s)|got|ate|ran|took|found|made|came|went|broke|bit|stole|hid"
    r"|fell|threw|caught|left|lost|won|grew|swallowed|chewed|knocked)\b")
_ZH_NAMED = re.compile(r"叫|名字")
# A value with nothing it is the value of: "…asks for salary expectations. I put $92,000.",
# "Door code? It's 4471.", "…填期望薪资。我填的是25k。": alone it says a number of nothing.
_BARE_VALUE = re.compile(
    r"(?i:^(?:so |and )?(?:i|we|it|that|this|mine|ours)(?:'s|'m|'re| is| was| put| paid| said"
    r"| wrote| entered| chose| picked| went with| got| offered| asked for| quoted)?"
    r" (?:about |around |roughly |like |just )?[$€£¥]?\d[\d,.:]*"
    r"(?:k|%| ?(?:bucks|dollars|euros|an hour|a month|/hr|/mo))?\s*[.!]*$)"
    r"|^(?:我|我们)(?:填|写|报|出|给|付|交)(?:了|的是?)\s*[约大概]?[\d.,]+(?:万|千|元|块|k|K)?[。！!]*$")
_POINTING_CHARS = 240  # the sentences joined, at most
_POINTING_BACK = 2  # how far back the thing pointed at may be
# What names a thing: a number, a capital inside a sentence ("Kestrel Coffee Co"; not "I"), or
# one that starts it and is then said to be something ("Gusto was the only one…").
_NAMES_A_THING = re.compile(r"\d|(?<=\s)(?!I\b)[A-Z]")
_FIRST_WORD = re.compile(r"[A-Z][A-Za-z]+")
_INNER_CAPITAL = re.compile(r"(?<=\s)(?!I\b)[A-Z][a-z]")


def _opening_name(sentence: str) -> re.Match[str] | None:
    """The capitalised word opening ``sentence`` when it may be a name (no "The", "Today")."""
    first = _FIRST_WORD.match(sentence)
    if first is None or first.group() in _CAP_STOP or first.group() in _NOT_NAMES:
        return None
    return first


def _names_a_thing(sentence: str) -> bool:
    if _NAMES_A_THING.search(sentence):
        return True
    first = _opening_name(sentence)
    return first is not None and sentence.startswith(_NAME_VERBS, first.end())


def _names_someone(sentence: str) -> bool:
    if _ZH_NAMED.search(sentence) or _INNER_CAPITAL.search(sentence):
        return True
    return _opening_name(sentence) is not None and _NAMED_DOING.match(sentence) is not None


def join_pointing(sentences: list[str]) -> list[str]:
    """``sentences`` with an errand or a choice that points back ("I should really get that set
    up", "we're switching to them") joined to the sentence it points at (the nearest of the
    last two that names something; for an errand, else the one before), so the item names
    its thing; a sentence about "he" or "she" joined to the one before that names them; and a
    value said of nothing ("I put $92,000.") joined to the one before, which names its thing."""
    out: list[str] = []
    for sentence in sentences:
        if out and ((_POINTING_WHO.search(sentence) and _names_someone(out[-1]))
                    or (_BARE_VALUE.search(sentence) and _names_a_thing(out[-1]))) \
                and len(out[-1]) + len(sentence) < _POINTING_CHARS:
            out[-1] = _glue(out[-1], sentence)
            continue
        errand = out and _POINTING_ERRAND.search(sentence)
        if errand or (out and _POINTING_CHOICE.search(sentence)):
            # (A choice with no named thing before it points at the assistant's offer: "I'll go
            # with that one" is read against the options, not joined.)
            back = next((k for k in range(1, min(_POINTING_BACK, len(out)) + 1)
                         if _names_a_thing(out[-k])), 1 if errand else 0)
            group = [*out[-back:], sentence] if back else []
            if group and sum(map(len, group)) < _POINTING_CHARS:
                del out[-back:]
                joined = group[0]
                for part in group[1:]:
                    joined = _glue(joined, part)
                out.append(joined)
                continue
        out.append(sentence)
    return out


# "Oops no, checked the car." + "It's KLM 4892.", "打错了。" + "是陈皓": a slip owned up to,
# then the value meant. The owning-up names nothing; the next sentence says what is right.
_OWNED_UP = re.compile(
    r"(?i:\b(?:oops|whoops|my bad|no,? sorry|sorry,? (?:wrong|i meant|typo)|wait,? no|no wait"
    r"|autocorrect|typo|i transposed"
    r"|i mistyped|i misspelled|correction)\b)|打错|说错|写错|记错|搞错|不对")
_OWNED_UP_CHARS = 60
_DIGIT_OR_CAP = re.compile(r"\d|(?<=\s)[A-Z]")


_DIGIT = re.compile(r"\d")
_ASKS_WORD = re.compile(
    r"吗|呢|什么|啥|咋|哪|多少|几|怎么|为什么|是否|是不是|能不能|可不可以|有没有"
    r"|(?i:^\s*(?:what|where|when|how|why|which|who|whose|is|are|am|do|does|did|can|could"
    r"|would|will|should|shall|have|has|any)\b)")
_ASKS_TO_DO_ZH = re.compile(r"提醒|帮我|记一下|记下")
_HEAD_CLAUSE = re.compile(r"^([^，,？?]+?)(?:，|, )(.+(?:[？?]|吗|呢))\s*$")
# The user saying who or where they or theirs are: "我家闺女朵朵在实验二小", "我是3栋的业主";
# or naming a thing of theirs by its measure word: "我那台比亚迪秦PLUS开了快三年了".
_OWN_FACT_ZH = re.compile(r"我(?:家|的|们家)?[^，。？]{0,6}?(?:叫|在|是|住在?|读|上)"
                          r"|我(?:家|们家)?(?:那|这)[台辆只条部套位]")


_TOLD_THEN_ASKED_EN = re.compile(
    r"^([^?]*\d[^?]*?),\s+((?:so|but|and|which)\b[^,]*\?)\s*$", re.I)
# The user saying what they are, then asking about it: "I'm O-negative, does that mean they'll
# want me back a lot?" ("My order is 4417, can you check it?" asks for something: whole.)
_OWN_THEN_ASKED_EN = re.compile(
    r"^((?:i'm|i am|i've|i have|i was|i live|i work|i drive|my [\w' -]{1,30}? (?:is|are|was))"
    r"\b[^?,]{2,80}),\s+((?:(?:does|is|will|would|could|can) (?:that|it|this)"
    r"|(?:should|do|can|am|must) (?:i|we)|how (?:do|should|can|often|long|much) (?:i|we)"
    r"|what (?:should|can|do) (?:i|we))\b[^?]*\?)\s*$", re.I)
# Where the user is from: "过年回湖南常德老家", "我是湖南人".
# Or names a child by a doubled name: "我女儿朵朵下个月上幼儿园小班，怎么…？".
# Or what they cannot take: "对了我自己是青霉素过敏，以后…是不是每次都得主动说？".
_HOME_ZH = re.compile(rf"老家|家乡|我是[\u4e00-\u9fff]{{2,3}}人|我(?:家)?{ZH_CHILD_NAMED}"
                      r"|我[^，。？]{0,8}?过敏")


def split_stated_question(sentences: list[str]) -> list[str]:
    """``sentences`` with a value stated before a Chinese question split from it: "顺丰月结卡号
    7550128833，寄件的时候直接报这个就行了吧？" states the number, then asks; the number is no
    question's. (In English "My order is 4417, can you check it?" is one request about the
    order: it stays whole.) So is a Chinese question asked without its mark before what it is
    for: "账户里现在还有多少钱，月底要发工资" asks, then says why."""
    out: list[str] = []
    for sentence in sentences:
        # (A question is often typed without its mark: "我老家郴州的，…有啥推荐吗": only where
        # the user is from or what they cannot take is split from it so.)
        marked = sentence.rstrip()[-1:] == "？"
        m = _HEAD_CLAUSE.match(sentence) if marked or (
            sentence.rstrip()[-1:] in ("吗", "呢") and _HOME_ZH.search(sentence)) else None
        if m is not None and not marked and (_HOME_ZH.search(m.group(1)) is None
                                             or _ASKS_TO_DO_ZH.search(m.group(2))):
            m = None
        if m is not None and not _DIGIT.search(m.group(1)) and not _ASKS_WORD.search(m.group(1)):
            # What the user says of their own before asking, clauses on: "老师好，我家闺女朵朵在
            # 实验二小读四年级，最近…老是错，能帮她练练吗？" states the school, then asks.
            clauses = sentence.split("，")
            q = next((i for i, c in enumerate(clauses) if _ASKS_WORD.search(c)), 0)
            head = "，".join(clauses[:q])
            # So is a value or an event told first: "钢琴老师说她那边调课了，以后改到周六15:20上，
            # …，可以给孩子报个游泳吗？", "之前那位阿姨回老家了，中介新介绍了一位蒋阿姨，…，要交代
            # 哪些事？".
            told = (q > 1 and (_OWN_FACT_ZH.search(head) is not None
                               or sum("了" in c for c in clauses[:q]) >= 2)) \
                or (q >= 1 and _HOME_ZH.search(head) is not None)
            if told or (q >= 1 and _DIGIT.search(head) is not None):
                out += [head + "。", "，".join(clauses[q:]).strip()]
                continue
        stated = (_TOLD_THEN_ASKED_EN.match(sentence) or _OWN_THEN_ASKED_EN.match(sentence)) \
            if is_latin(sentence) else None
        if stated is not None and not _ASKS_WORD.search(stated.group(1)):
            # "Had my follow-up, today's reading was 129/84, so I guess the amlodipine is
            # working?": a value told, then a question about it.
            out += [stated.group(1).strip() + ".", stated.group(2).strip()]
            continue
        if m is None or not _DIGIT.search(m.group(1)) or _ASKS_WORD.search(m.group(1)):
            # (Only Chinese asks without its mark: an English sentence is not scanned.)
            asked = None if is_latin(sentence) else _UNMARKED_ASK.match(sentence)
            if asked is not None and not _ASKS_WORD.search(sentence[asked.end():]):
                out += [asked.group(1), sentence[asked.end():].strip()]
            else:
                out.append(sentence)
            continue
        head = m.group(1).strip()
        out += [head + ("。" if any(map(_is_cjk, head)) else "."), m.group(2).strip()]
    return out


# A first clause that ends asking, with no question mark: "现在还有多少钱，", "几点到，".
_UNMARKED_ASK = re.compile(
    r"^([^，,。？?！!]*?(?:(?:多少|几点|几号|什么时候|哪里|哪儿|有没有)[\u4e00-\u9fff]{0,3}|[吗呢]))"
    r"\s*[，,]\s*(?=[\u4e00-\u9fff])")


def join_bare_corrections(sentences: list[str]) -> list[str]:
    """``sentences`` with a short owning-up to a slip that gives no value ("autocorrect
    again.", "ugh my bad, that one's been dead for months.", "打错了。") joined to the sentence
    after it, which says what is right: one correction."""
    if len(sentences) < 2:
        return sentences
    out: list[str] = []
    i = 0
    while i < len(sentences):
        sentence = sentences[i]
        if i + 1 < len(sentences) and len(sentence) <= _OWNED_UP_CHARS \
                and _OWNED_UP.search(sentence) and not _DIGIT_OR_CAP.search(sentence):
            nxt = sentences[i + 1]
            sep = "" if _is_cjk(sentence[-1]) or sentence[-1] in "。！？；" else " "
            out.append(f"{sentence}{sep}{nxt}")
            i += 2
            continue
        out.append(sentence)
        i += 1
    return out


# ---------------------------------------------------------------------------------------------
# normalisation and near duplicates

_TRAILING_FILLER = re.compile(r"(?:了|啦|呀|吧|呢|哦|啊|anymore|too|also|again|now)+\Z")
# The last characters of those fillers: a key ending in none of them has none to strip, and
# most keys do, so the search (which tries every position) is skipped.
_TRAILING_FILLER_ENDS = frozenset("了啦呀吧呢哦啊eonw")


def _normalise(text: str) -> str:
    if _FULL_WIDTH.search(text):
        text = unicodedata.normalize("NFKC", text)
    return _NON_WORD.sub("", text.casefold())


def _dedup_key(text: str) -> str:
    tag = _ROLE_TAG.match(text)
    key = _normalise(text[tag.end() :] if tag else text)
    return _TRAILING_FILLER.sub("", key) if key[-1:] in _TRAILING_FILLER_ENDS else key



_VOCATIVE_END = re.compile(r",\s*(?P<name>[A-Z][a-z]+)\s*(?P<end>[.!?…~]*)\s*$")
_VOCATIVE_ONLY = re.compile(
    r"^(?:(?i:hey|hi|hello|oh|wow|thanks|thank you|bye|good morning|morning|yo|dear)[ ,!]*)?"
    r"(?P<name>[A-Z][a-z]+)\s*[.!?,~…]*$"
)
_VOCATIVE_START = re.compile(
    r"^(?:(?i:hey|hi|hello|oh|wow|aw+|yay|thanks|thank you|haha|ha)[ ,!]+)?(?P<name>[A-Z][a-z]+)"
    r"\s*[,!]+\s+(?=\S)"
)


def _strip_vocative(sentence: str, names: frozenset[str]) -> str:
    """``sentence`` without the participant it addresses ("Totally agree, Mel." → "Totally
    agree."): the name of the one spoken to says nothing about the world and makes near
    duplicates look different. Only names of the conversation's participants (or their
    first letters, "Mel" for "Melanie") count, so "We met in Paris, France." stays whole."""
    if not names or (len(sentence) > 24 and "," not in sentence and "!" not in sentence):
        return sentence
    if not any(head in sentence for head in _heads(names)):
        return sentence  # no participant's name here
    m = _VOCATIVE_ONLY.match(sentence)
    if m and _is_participant(m.group("name"), names):
        return ""  # "Hey Mel!": a greeting, nothing else
    m = _VOCATIVE_END.search(sentence) if "," in sentence else None
    if m and _is_participant(m.group("name"), names):
        sentence = sentence[: m.start()] + m.group("end")
    m = _VOCATIVE_START.match(sentence)
    if m and _is_participant(m.group("name"), names):
        rest = sentence[m.end() :]
        sentence = rest[:1].upper() + rest[1:]
    return sentence


_HEADS: dict[frozenset[str], tuple[str, ...]] = {}


def _heads(names: frozenset[str]) -> tuple[str, ...]:
    """The first three letters of each name, capitalised ("Mel"): a vocative starts so."""
    heads = _HEADS.get(names)
    if heads is None:
        if len(_HEADS) > 64:
            _HEADS.clear()  # a long-lived process meets many casts; keep this small
        heads = _HEADS[names] = tuple({n[:3].capitalize() for n in names})
    return heads


def _is_participant(word: str, names: frozenset[str]) -> bool:
    low = word.casefold()
    return any(n == low or (len(low) >= 3 and n.startswith(low)) for n in names)


_SHORT_BYTES = 48  # UTF-8 bytes: shorter sentences are kept whole
_LONG_BYTES = 150  # about 50 Chinese characters, or 150 Latin ones
# (Never inside brackets: "Ledgerly (online, flat fee), Patel & Voss (in person, pricier)".)
_CLAUSE_BREAK = re.compile(
    r"([，；;](?![^(（]*[)）])\s*|,(?!\d)(?![^(（]*[)）])\s*|\s+[-–—]+\s+|——"
    r"|\s+(?=(?:and|but) (?:it|that|this)(?:'s| is| was| felt| has been) ))"
)
_SAYS_SOMETHING = re.compile(
    r"[0-9@#$¥￥€£%]|(?<=[^\s.!?])\s+[A-Z][A-Za-z]|[A-Z]{2,}|我|(?i:\b(?:my|i|i'm|i've|we)\b)"
    # A Chinese count of a place or a price, a choice made: "婚宴最后定在锦华酒店三楼的牡丹厅了".
    # (Not any place or time word: reviews' clauses are full of them, and kept whole they
    # crowd out other facts: the Chinese sessions at 2,000 tokens lost 0.014.)
    r"|[一二两三四五六七八九十百千万]+[楼层号栋桌份元块]|定在|改到|改成|约在|订了"
    # Someone by surname, given name and title: "挂的是李淑芬主任的号" (not "前台经理").
    rf"|[{_SURNAMES}][\u4e00-\u9fff]{{1,2}}(?:主任|医生|律师|大夫|教授|院长)"
    # What is still to do: "…哦对周末还得去物业那把停车费交了", "…so I need to call the vet".
    r"|还得|得去|得把|得给|得找|得交|得约|要把|需要|必须|提醒"
    r"|(?i:\b(?:need to|have to|gotta|got to|must|remind)\b)"
)
_NAME_FIRST = re.compile(r"[A-Z][A-Za-z]")
_HEALTH = re.compile(r"(?i:allerg|intoleran|celiac|coeliac|diabet|asthma|epilep|anaphyla)"
                     r"|过敏|不耐受|哮喘|糖尿病|癫痫")
_INTRO_COLON = re.compile(r"[:：](?!\d)")
# A clause that only says how it felt ("it was so powerful", "which was awesome", "太开心了"),
# set off by a comma, a dash or "and it was": the event it follows is the fact.
_FEELING = re.compile(
    r"(?i:(?:and |but |so )?(?:it|that|this|which)(?:'s| is| was| has been| felt| feels)"
    r" (?:so |really |super |just |truly |very |such |a |an |totally |pretty |quite )*"
    r"(?:great|amazing|awesome|powerful|rewarding|fun|cool|nice|good|lovely|wonderful"
    r"|incredible|fantastic|beautiful|special|exciting|inspiring|meaningful|hard|tough|sad"
    r"|experience|blast|relief|tiring|exhausting|stressful|relaxing|enlightening|emotional"
    r"|touching|memorable|unforgettable|surreal|intense|worth it)\b[^0-9]{0,24})"
    r"|(?:真是|真的|太|好|特别|非常)?(?:开心|高兴|棒|好玩|有意思|难忘|感动|累)了?[!！。.~]*",
)


# A clause that asks the assistant something ("贵不贵", "你觉得呢", "is that a lot?"), not one
# that asks it to do something ("帮我看看…", "can you book it?").
_ASKING_CLAUSE = re.compile(
    r"[?？]\W*$|(?:吗|呢|么|不|没)[。.!！~～啊呀哈]*$|要不要|值不值|贵不贵|合不合适|合适|怎么办|咋办"
    r"|行不行|好不好|对吧|对不对|你觉得|你说|怎么样|咋样|多少合适|算贵|算便宜")
_VALUE_OR_NAME = re.compile(  # ("一" is in many words: "一直", "一起")
    rf"[0-9@#$¥￥€£%{ZH_NUMERALS.replace('一', '')}]|(?<=[^\s.!?])\s+[A-Z][A-Za-z]|[A-Z]{{2,}}")
_QUESTION_OPENERS = "can|could|would|will|do|does|did|is|are|should|what|how|why"
_ASK_OPENING = re.compile(
    rf"(?i:(?:{_QUESTION_OPENERS}|what's|where|when|who|which|please)\b)"
    r"|请|麻烦|帮我|能不能|可不可以|可以帮|你能")
_EN_QUESTION = re.compile(  # an English clause that opens a question of its own
    rf"(?i)(?:{_QUESTION_OPENERS}|was|were|any|anything|right|ok|okay|or|thoughts)\b")
_CONDITION = re.compile(  # a clause that opens with what it supposes
    r"(?i:(?:and |but |so |ok |okay )?(?:if|unless|whether|suppose|supposing|assuming|even if"
    r"|in case|what if)\b)|如果|假如|要是|万一|假设|倘若|若是")
_ASKS_TO_DO_CLAUSE = re.compile(
    r"帮我|帮忙|麻烦|提醒|记得|(?i:\b(?:can|could|would|will) you\b|\bplease\b|remind)")


def _compress(sentence: str, user: bool = True) -> str:
    """A sentence without the clauses that only say how something felt ("…last Saturday – it
    was really rewarding"), and a long one cut to its first clause and those that carry
    something a question could ask for (a number, a name, an identifier, the speaker's own
    "I"/"我"): more facts fit the cap. The ``user``'s question at its end goes too. Where little
    would go, it stays as it is."""
    if len(sentence.encode()) <= _SHORT_BYTES:
        return sentence
    parts = _CLAUSE_BREAK.split(sentence)
    if len(parts) < 3:  # one clause: nothing to cut
        return sentence
    if _INTRO_COLON.search(parts[0]):
        return sentence  # a listing ("Three to consider: quartz (…), butcher block (…), or…")
    clauses = [parts[0].strip()] + [parts[i].strip() for i in range(2, len(parts), 2)]
    keep = [not _FEELING.fullmatch(c.rstrip(" .!！?？。~")) for c in clauses]
    # What the sentence asks at its end ("…底薪三千五加提成，想给他涨点，涨多少合适", "…一年
    # 1280，你觉得贵不贵"): the facts before it are what is worth keeping, not the question.
    asked = len(clauses)
    # (Not the assistant's, an offer: "…每晚680元，要不要订湖畔酒店？"; nor a sentence that asks
    # from its start: "Can you change the address on B2290-KM to 1190 Harbor View Drive,
    # Columbus OH 43215?")
    while user and asked > 1 and not _ASK_OPENING.match(clauses[0]) \
            and _ASKING_CLAUSE.search(clauses[asked - 1]) \
            and not _ASKS_TO_DO_CLAUSE.search(clauses[asked - 1]) \
            and (not is_latin(clauses[asked - 1]) or _EN_QUESTION.match(clauses[asked - 1])):
        asked -= 1
    # (Only of a value or a name: chatter asked of stays chatter, "我也喜欢猫，你呢". Nor when
    # what comes first is the question's own condition: "if I stretch to 3,600, is the M3 Max
    # worth it?", "要是加到3600，值不值" say no value of the user's.)
    if asked < len(clauses) and not _CONDITION.match(clauses[0]) \
            and any(_VALUE_OR_NAME.search(c) for c in clauses[:asked]):
        keep[asked:] = [False] * (len(clauses) - asked)
    else:
        asked = len(clauses)
    felt = not all(keep)
    if len(sentence.encode()) > _LONG_BYTES and len(clauses) >= 3:
        for i in range(1, len(clauses)):
            # (A clause mid-sentence that opens with a capital opens with a name: "Clover
            # (simple, low monthly cost)" in a listing.)
            keep[i] = keep[i] and bool(_SAYS_SOMETHING.search(clauses[i])
                                       or _NAME_FIRST.match(clauses[i]))
        for i in range(1, len(clauses)):
            if _HEALTH.search(clauses[i]):
                # "…, zero sesame anywhere near it, she's allergic": the allergy and what it
                # is to, said just before it.
                keep[i] = keep[i - 1] = True
    if not any(keep):
        return sentence
    kept = ""
    for i, c in enumerate(clauses):
        if keep[i]:
            kept += (parts[2 * i - 1] if kept and i else "") + c
    if not felt and asked == len(clauses) and len(kept) > 0.8 * len(sentence):
        return sentence  # a small saving is not worth a sentence cut in pieces
    kept = kept.rstrip(" ，,;；-–—")
    end = sentence.rstrip()[-1:]
    if asked < len(clauses):
        end = "。" if end in "?？" and not is_latin(kept) else "." if end in "?？" else end
    if end in "。.!！?？" and not kept.endswith(end):
        kept += end
    return kept
