"""The embedded offline summarizer: extractive, deterministic, Chinese and English.

No small offline model writes faithful summaries (0.5B-class models copy their input or drop
names and dates), so the summarizer that needs no key and no network picks sentences instead of
writing them. One fold is one linear pass:

1. **Split.** Message text is cut into sentences at Chinese (``。！？；…``) and Western
   (``. ! ? ;``) punctuation. A Western mark only ends a sentence when followed by a space, the
   end of the line or a Chinese character, so decimals (``3.14``), versions (``v1.2.3``), URLs,
   emails and file paths stay whole; abbreviations (``Mr.``, ``e.g.``) and initials do not
   split. Each tool call becomes one compact line: tool name, key arguments, trimmed result.
2. **Score.** All sentences of a fold are scanned together, once per pattern: identifiers
   (emails, URLs, paths, order numbers, versions), money, dates and times, names and
   capitalised entities, numbers, and preference, decision and task cues. The user's own
   statements weigh more than the assistant's; pleasantries (``你好``, ``谢谢``, ``ok``,
   ``thanks``…) score zero and are dropped, and text that tries to instruct the summarizer
   ("ignore the above…") is only a low-scoring sentence, never an instruction.
3. **Merge.** The previous summary is parsed back into its sections (a plain paragraph is split
   into sentences). Exact and near duplicates are dropped, and a newer statement replaces an
   older one about the same *slot* (who + what: the user's budget, where the user lives, a
   liked or disliked thing), clause by clause. The assistant echoing the user replaces nothing.
   Everything else from the previous summary is carried forward.
4. **Cap.** The highest-scoring items are kept until the token cap is reached, counted with
   the caller's counter. Previous items lose a little score with age, except durable ones
   (preferences, decisions, identifiers, names); older variants of a repeated statement, and items
   whose identifiers an item already kept shows, give way first. Items are written in the
   sections the LLM prompts use, most important first.

Example:
    >>> from chatfold.summarizers.base import SummaryRequest
    >>> msgs = [{"role": "user", "content": "Hi! My budget is $5000 and I'm allergic to peanuts."},
    ...         {"role": "assistant", "content": "Thanks, noted."}]
    >>> s = ExtractiveSummarizer()
    >>> print(s.summarize(SummaryRequest("", msgs, "en", max_tokens=100)))
    Preferences:
    - User: My budget is $5000 and I'm allergic to peanuts.
"""

from __future__ import annotations

import json
import re
import string
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..messages import content_text
from ..tokens import default_counter
from .base import BaseSummarizer, SummaryRequest
from .prompts import SECTION_TITLES

__all__ = [
    "DEFAULT_MIN_SCORE",
    "DEFAULT_TOOL_RESULT_CHARS",
    "ExtractiveSummarizer",
    "split_sentences",
]

DEFAULT_MIN_SCORE = 1.2
"""A new sentence scoring below this is not kept (small talk, filler, bare questions)."""

DEFAULT_TOOL_RESULT_CHARS = 120
"""A tool result is trimmed to about this many characters in its summary line."""

_FACTS, _PREFS, _DECISIONS, _TASKS = range(4)

_MAX_ITEM_CHARS = 220
_MAX_ARG_CHARS = 40
_MAX_ARGS = 6
_MAX_ARGS_CHARS = 100
_MAX_RESULT_KEYS = 8
_AGE_DECAY = 0.85  # previous-summary items that are not durable lose this factor per fold
_PREVIOUS_FLOOR = 1.5  # a previous item was kept once: it never scores like small talk
_ORPHAN_MIN_SCORE = 1.2  # a clause left alone by a replacement must say something itself
_MAX_MISSES = 64  # stop filling the cap after this many candidates in a row did not fit
_REPEAT_DISCOUNT = 0.5  # each older variant of a repeated statement keeps half its score
_NEAR_DUP_BUCKET = 8  # near-duplicate check looks at this many recent items per bucket

_COLON = {"en": ": ", "zh": "："}
_ROLE_TAGS = {
    "en": {"user": "User", "assistant": "Assistant"},
    "zh": {"user": "用户", "assistant": "助手"},
}
_TOOL_WORD = {"en": "Tool", "zh": "工具"}
_TOOL_RESULT_WORD = {"en": "Tool result", "zh": "工具结果"}
_NOTHING_TO_KEEP = {
    "en": "The earlier messages were small talk with nothing to keep.",
    "zh": "之前的对话只是寒暄，没有需要保留的信息。",
}
_NOTES = frozenset(_NOTHING_TO_KEEP.values())
_FULL_STOP = {"en": ".", "zh": "。"}

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
_SOFT_BREAK = re.compile(r"[，、]|,(?!\d)")
_HAS_WORD = re.compile(r"[0-9A-Za-z\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_SPACES = re.compile(r"\s+")
_STRAY = re.compile(r"\W*\w?\W*|\d{1,3}[.)、]")


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


# ---------------------------------------------------------------------------------------------
# scoring
#
# All sentences of a fold are joined into one text and scanned once per pattern; a match counts
# for the sentence it starts in. Cue words are literal tries (the regex engine then only stops
# at characters that can start one); English is matched on a lowercased copy of the same
# length, with the word boundary checked by hand. Per-sentence regex calls would cost more than
# all the scanning together.

_ID, _MONEY, _WHEN, _NAME, _NUM, _PREF, _DECIDE, _TASK, _INJECT, _FIRST, _SLOT = (
    1 << i for i in range(11)
)
_WEIGHTS = (
    (_ID, 2.0),
    (_MONEY, 1.5),
    (_WHEN, 1.5),
    (_NAME, 1.5),
    (_NUM, 1.0),
    (_PREF, 2.5),
    (_DECIDE, 2.5),
    (_TASK, 2.0),
)
_WEIGHTED_BITS = 0xFF
_INFORMATIVE = _ID | _MONEY | _WHEN | _NAME | _NUM | _PREF | _DECIDE | _TASK
_WEIGHT_OF = [sum(w for bit, w in _WEIGHTS if mask & bit) for mask in range(_WEIGHTED_BITS + 1)]
_CAP_WEIGHT = 0.6
_CAP_MAX = 3

_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)

_ZH_WORDS: dict[int, str] = {
    _PREF: "喜欢 爱吃 爱喝 不爱 讨厌 过敏 偏好 偏爱 更爱 最爱 不吃 不喝 吃素 素食 忌口"
    " 受不了 倾向 习惯",
    _DECIDE: "决定 定了 就这样 就这么定 确定 选了 选定 选择 敲定 拍板 最终 就用 就订 就选"
    " 改成 改为 换成 同意 采用 确认",
    _TASK: "帮我 帮忙 麻烦 记得 别忘 需要 要求 提醒 待办 任务 截止 尽快 请 务必 跟进 安排"
    " 我会 我来",
    _INJECT: "忽略以上 忽略上面 忽略之前 忽略前面 忽略所有 忽略上述 无视以上 无视上面"
    " 无视之前 无视上述 作为摘要 摘要只写 摘要就写 摘要改写 把摘要写成 系统提示",
    _NAME: "我叫 名叫 叫做 名字是 我姓 先生 女士 小姐 老师 经理 总监 医生 教授 律师",
    _MONEY: "预算 人均 每晚",
    _WHEN: "今天 明天 后天 昨天 前天 今晚 明晚 下周 本周 这周 上周 下个月 下月 月底 月初"
    " 年底 周末 早上 上午 中午 下午 晚上 凌晨 傍晚 周一 周二 周三 周四 周五 周六 周日"
    " 周天 星期一 星期二 星期三 星期四 星期五 星期六 星期日 星期天 礼拜一 礼拜二 礼拜三"
    " 礼拜四 礼拜五 礼拜六 礼拜天",
    _FIRST: "我 我叫 我会 我来 我姓",
    _SLOT: "住在 搬到 搬去 搬家 定居 预算 我叫 名叫 名字 电话 手机 邮箱 电子邮件 地址 职业"
    " 工作是 上班 就职 岁 截止 期限 人数 目的地 饮食 吃素 素食 喜欢 爱吃 爱喝 讨厌 偏好"
    " 偏爱 最爱 受不了 过敏",
}
# Matched as a whole so that the cue inside them is not: "不确定" decides nothing.
_ZH_NEUTRAL = "不确定 请问 申请 邀请 敬请 一定"

_EN_WORDS: dict[int, str] = {
    _PREF: "prefer|prefers|preferred|preference|allergic|allergy|allergies|hate|hates|like|likes"
    "|love|loves|dislike|dislikes|favorite|favourite|vegetarian|vegan|can't stand|would rather"
    "|i'd rather|enjoy|enjoys|fan of",
    _DECIDE: "decide|decided|decision|go with|going with|went with|let's|let us|settled on|agree"
    "|agreed|chose|chosen|choose|confirm|confirmed|opt for|opted for|we'll use|switch to"
    "|switched to|change to|changed to",
    _TASK: "todo|to-do|please|remind|reminder|need to|needs to|must|have to|has to|deadline|due"
    "|follow up|follow-up|action item|don't forget|make sure|can you|could you|will you|i'll"
    "|i will|would like|i'd like",
    _INJECT: "ignore the above|ignore all previous|ignore previous|ignore the previous|ignore all"
    " prior|ignore prior|ignore your instructions|ignore all instructions|ignore the instructions"
    "|ignore everything above|ignore all the above|disregard the above|disregard previous"
    "|disregard all previous|as the summary|as your summary|new instructions|system prompt"
    "|you are now",
    _NAME: "my name is|call me",
    _MONEY: "budget|per night|per person",
    _WHEN: "monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|tonight|tomorrow"
    "|yesterday|weekend|next week|next month|next year|end of day|end of the day|end of week"
    "|end of the week|end of month|end of the month|eod|eow|january|february|march|april|june"
    "|july|august|september|october|november|december",
    _FIRST: "i|i'm|i've|i'd|i'll|my|me|mine|we|our|us|i'd rather|i'd like|my name is",
    _SLOT: "live|lives|lived|living|moved|move|moving|relocated|based in|budget|name is|my name is"
    "|call me|phone|mobile|cell|email|e-mail|address|work|works|job is|occupation|years old"
    "|aged|deadline|ddl|due|headcount|destination|diet|vegetarian|vegan|allergic|prefer|prefers"
    "|preferred|like|likes|love|loves|hate|hates|dislike|dislikes|enjoy|enjoys|can't stand"
    "|favorite|favourite",
}
_EN_NEUTRAL = (
    "looks like|look like|seems like|sounds like|feel like|feels like|something like|be like"
    "|is like|was like|are like|were like|what's it like"
)


# "好的，就订这家" keeps only "就订这家": a leading acknowledgement costs room and says nothing.
_LEAD_FILLER = re.compile(
    r"(?:(?:好的|好吧|好|嗯+|哦+|噢|哈哈+|对了|另外|还有|那么|(?i:ok|okay|sure|yes|yeah|yep|great"
    r"|thanks|thank you|also|so|well|oh|alright|right|anyway))[，,、!！ ]+)+"
)


def _strip_filler(sentence: str) -> str:
    m = _LEAD_FILLER.match(sentence)
    return sentence[m.end() :] if m and m.end() < len(sentence) else sentence


def _lexicon(words: Mapping[int, str], neutral: str, sep: str) -> dict[str, int]:
    lex: dict[str, int] = {w: 0 for w in neutral.split(sep)}
    for bit, group in words.items():
        for w in group.split(sep):
            w = w.strip()
            lex[w] = lex.get(w, 0) | bit
            if "'" in w:
                curly = w.replace("'", "’")
                lex[curly] = lex.get(curly, 0) | bit
    return lex


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


_ZH_LEX = _lexicon(_ZH_WORDS, _ZH_NEUTRAL, " ")
_EN_LEX = _lexicon(_EN_WORDS, _EN_NEUTRAL, "|")
_ZH_RE = re.compile(_trie_pattern(_ZH_LEX))
_EN_RE = re.compile(f"(?:{_trie_pattern(_EN_LEX)})(?![a-z])")

_SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾萧肖田董袁潘蒋蔡余杜叶程"
    "苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦方白邹孟熊秦邱江尹薛段雷侯龙史陶黎贺顾毛郝龚"
    "邵钱严武戴莫孔汤"
)
_FILE_EXT = (
    "py|js|ts|tsx|jsx|md|txt|json|yaml|yml|toml|ini|cfg|csv|tsv|xls|xlsx|doc|docx|ppt|pptx|pdf"
    "|sql|sh|go|rs|java|kt|c|cc|cpp|h|hpp|rb|php|html|htm|css|png|jpg|jpeg|gif|svg|zip|gz|tar"
    "|log|env|lock|ipynb"
)


def _before(src: str, m: re.Match[str]) -> str:
    return src[m.start() - 1] if m.start() else " "


def _word_start(src: str, m: re.Match[str]) -> bool:
    return not _before(src, m).isalnum()


def _has_letter(src: str, m: re.Match[str]) -> bool:
    return any(ch.isalpha() for ch in m.group())


def _has_digit_at_word_start(src: str, m: re.Match[str]) -> bool:
    return _word_start(src, m) and any(ch.isdigit() for ch in m.group())


def _after_name(src: str, m: re.Match[str]) -> bool:
    ch = _before(src, m)
    return ch.isalnum() or ch in "_-"


def _version(src: str, m: re.Match[str]) -> bool:
    ch = _before(src, m)
    return not (ch.isalnum() or ch == ".")


def _cn_number(src: str, m: re.Match[str]) -> bool:
    g = m.group()  # a lone 一 is "a/one" (一个, 一下, 一些), not a number worth keeping
    return not (g[0] == "一" and (len(g) == 1 or g[1] not in "十百千万"))


_Check = Callable[[str, "re.Match[str]"], bool]


def _no_check(src: str, m: re.Match[str]) -> bool:
    return True


# Patterns that share a first character class are merged: one pass each, and the named group
# that matched says what was found. (group, bit, extra check)
_DIGIT_RE = re.compile(
    r"[0-9](?:(?P<year>[0-9]{3}[-/.年][0-9])|(?P<clock>[0-9]?[:：][0-9]{2})"
    r"|(?P<day>[0-9]?(?:[月日号点时](?!码)| ?(?:am|pm|a\.m\.|p\.m\.)(?![a-z])))"
    r"|(?P<version>[0-9]*\.[0-9]+\.[0-9]+)"
    r"|(?P<money>[0-9,]*(?:\.[0-9]+)? ?[万千百kw]? ?(?:元|块|美元|美金|欧元|英镑|人民币|usd|rmb|cny"
    r"|eur|gbp|dollar|buck|euro))"
    r"|(?P<long>[0-9]{7,})|(?P<num>[0-9]*))"
)
_DIGIT_GROUPS: dict[str, tuple[int, _Check]] = {
    "year": (_WHEN, _no_check),
    "clock": (_WHEN, _no_check),
    "day": (_WHEN, _no_check),
    "version": (_ID, _version),
    "money": (_MONEY, _no_check),
    "long": (_ID, _word_start),
    "num": (_NUM, _no_check),
}
_UPPER_RE = re.compile(
    r"[A-Z](?:(?P<code>[A-Z0-9-]*[0-9][A-Z0-9-]*)(?![A-Za-z0-9])|(?P<cap>[A-Za-z]+))"
)
_CN_NUM_RE = re.compile(
    r"[一二两三四五六七八九十百千万][零一二两三四五六七八九十百千万]*(?:(?P<money>块|元|美元)|(?P<day>[月日号]))?"
)

# (bit, pattern, match the lowercased text, extra check, skip unless one of these is present)
_PATTERNS: list[tuple[int, re.Pattern[str], bool, _Check | None, str]] = [
    (_ID, re.compile(r"(?:https?://|www\.)[^\s<>\"'，。！？；）)\]」]+"), True, None, ""),
    (_ID, re.compile(r"@[a-z0-9.-]+\.[a-z][a-z]+"), True, _after_name, "@"),
    (_ID, re.compile(r"[/\\][A-Za-z0-9_.-]+(?:[/\\][A-Za-z0-9_.-]+)+"), False, _has_letter, "/\\"),
    (_ID, re.compile(rf"\.(?:{_FILE_EXT})(?![a-z0-9])"), True, _after_name, "."),
    (
        _ID,
        re.compile(
            r"(?:订单号?|单号|编号|工单|票号)(?:是|为)?\s*[:：#]?\s*[A-Za-z0-9][A-Za-z0-9-]{3,}"
        ),
        False,
        None,
        "号单",
    ),
    (
        _ID,
        re.compile(
            r"(?:order|ticket|invoice|booking|reference|ref|case|tracking|confirmation)"
            r"(?: ?(?:no\.?|number|id|#))? ?[:：#]? ?[a-z0-9][a-z0-9-]{3,}"
        ),
        True,
        _has_digit_at_word_start,
        "",
    ),
    (_ID, re.compile(r"v[0-9][0-9]*(?:\.[0-9]+)*(?![a-z0-9])"), True, _version, ""),
    (_ID, re.compile(r"#[0-9]{3,}"), False, None, "#"),
    (_MONEY, re.compile(r"[¥￥$€£] ?[0-9]"), False, None, "¥￥$€£"),
    (_MONEY, re.compile(r"(?:usd|rmb|cny|eur|gbp|hkd|jpy) ?[0-9]"), True, _word_start, ""),
    (
        _WHEN,
        re.compile(r"(?:jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.? [0-9]"),
        True,
        _word_start,
        "",
    ),
    (_NAME, re.compile(rf"[小老][{_SURNAMES}]"), False, None, "小老"),
    (_NAME, re.compile(rf"我是[{_SURNAMES}]"), False, None, "我是"),
    (_NAME, re.compile(r"(?:I'm|I am|This is|this is) [A-Z][a-z]"), False, None, ""),
]
_CAP_STOP_WORDS = (
    "I OK The This That These Those It We You He She They My Our Your His Her Their A An And But"
    " So Or If When Then Also Yes No Hi Hello Hey Thanks Thank Sure Please Let Can Could Would"
    " Will What Why How Where Who Which Just Okay User Assistant Tool Great Good Nice Maybe"
    " Ok Is Are Do Does Did Not Here There Now Sorry Oh Well"
)
_CAP_STOP = frozenset(_CAP_STOP_WORDS.split())
_TASK_LEAD = re.compile(
    r"(?:帮我|帮忙|麻烦|记得|别忘|请(?!问)|提醒|务必|(?i:please|remind|don't\s+forget"
    r"|make\s+sure|todo|to-do|can\s+you|could\s+you|will\s+you))"
)
_PLEASANTRY = re.compile(
    # Longest first, each repetition atomic: no backtracking on text that is not small talk.
    r"(?>"
    r"thankssomuch|yourewelcome|goodmorning|letmethink|soundsgood|thanksalot|thatsgreat|"
    r"understood|goodnight|thatsgood|allright|thankyou|alright|awesome|goodbye|perfect|welcome|"
    r"gotit|great|hello|noted|right|cool|fine|good|haha|isee|lmao|nice|nope|okay|sure|yeah|我明白了|"
    r"让我想想|非常感谢|麻烦你了|bye|hey|lol|thx|wow|yay|yep|yes|yup|不客气|不用谢|大家好|太好了|太棒了|好的呢|我想想|早上好|晚上好|没问题|"
    r"等一下|谢谢您|辛苦了|no|np|ok|ty|了解|你好|再见|可以|哈喽|嘻嘻|多谢|好吧|好嘞|好滴|好的|好耶|对的|您好|感谢|懂了|拜拜|收到|早安|是的|晚安|稍等|"
    r"谢啦|呀|嗨|好|对|早|是|棒|耶|行|thanks?|hmm+|明白了?|谢谢你?|ha+|hi+|kk?|uh+|um+|呵+|哇+|哈+|哦+|啊+|嗯+|嘿+|噢+"
    r")++"
)
_PLEASANTRY_MAX_CHARS = 40
_NON_WORD = re.compile(r"[\W_]+")
_DIGITS = re.compile(r"\d+")
# Identifiers, amounts and dates: an item whose every such token is already in the summary
# repeats it (the assistant confirming a booking the tool line already shows).
_ID_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@/:-]*[0-9][A-Za-z0-9_.@/:-]*")
_FULL_WIDTH = re.compile(r"[\uff10-\uff19\uff21-\uff3a\uff41-\uff5a]")  # letters, digits
_SECOND_PERSON = re.compile(r"你|您|(?i:(?<![A-Za-z])(?:you|your|you're|yours)(?![A-Za-z]))")


class _Scored(NamedTuple):
    score: float
    section: int
    durable: bool
    hints_slot: bool


def _is_question(sentence: str) -> bool:
    tail = sentence.rstrip(" \"'”’」』）)")
    return tail[-1:] in ("?", "？") or tail.rstrip("。.!！~～")[-1:] == "吗"


def _scan(texts: Sequence[str]) -> tuple[list[int], list[int]]:
    """Feature bits and count of distinct capitalised names, for each text."""
    big = "\n".join(texts)
    # owner[p] is the text that character p of big belongs to (its joining newline included):
    # a match counts for the text it starts in.
    starts: list[int] = []
    owner: list[int] = []
    for i, t in enumerate(texts):
        starts.append(len(owner))
        owner += [i] * (len(t) + 1)
    low = big.lower()
    if len(low) != len(big):  # a few characters lowercase to two; keep offsets aligned
        low = big.translate(_ASCII_LOWER)
    masks = [0] * len(texts)
    for m in _ZH_RE.finditer(big):
        masks[owner[m.start()]] |= _ZH_LEX[m.group()]
    for m in _EN_RE.finditer(low):
        at = m.start()
        if not (at and low[at - 1].isalnum()):
            masks[owner[at]] |= _EN_LEX[m.group()]
    for bit, rx, lowered, check, guard in _PATTERNS:
        src = low if lowered else big
        if guard and not any(g in src for g in guard):
            continue
        for m in rx.finditer(src):
            if check is None or check(src, m):
                masks[owner[m.start()]] |= bit
    for m in _DIGIT_RE.finditer(low):
        group = m.lastgroup
        if group == "num":
            masks[owner[m.start()]] |= _NUM
            continue
        bit, check = _DIGIT_GROUPS[group or "num"]
        if check(low, m):
            masks[owner[m.start()]] |= bit
    for m in _CN_NUM_RE.finditer(big):
        kind = m.lastgroup
        bit = _MONEY if kind == "money" else _WHEN if kind == "day" else _NUM
        if kind or _cn_number(big, m):
            masks[owner[m.start()]] |= bit
    caps: dict[int, set[str]] = {}
    for m in _UPPER_RE.finditer(big):
        at = m.start()
        if at and big[at - 1].isalnum():
            continue
        i = owner[at]
        if m.lastgroup == "code":
            if m.end() - at >= 4:
                masks[i] |= _ID
        elif at != starts[i] and m.group() not in _CAP_STOP:
            caps.setdefault(i, set()).add(m.group())
    return masks, [min(len(caps.get(i, ())), _CAP_MAX) for i in range(len(texts))]


def _score_all(texts: Sequence[str], roles: Sequence[str]) -> list[_Scored]:
    """Information score and section of each sentence, said by the matching role."""
    masks, caps = _scan(texts)
    # A long history repeats itself (the same confirmation, the same tool line): each distinct
    # (text, role, features) is scored once per fold.
    seen: dict[tuple[str, str, int, int], _Scored] = {}
    out = []
    for row in zip(texts, roles, masks, caps, strict=True):
        scored = seen.get(row)
        if scored is None:
            scored = seen[row] = _score_one(*row)
        out.append(scored)
    return out


def _score_one(text: str, role: str, mask: int, n_caps: int) -> _Scored:
    if (
        not mask & _INFORMATIVE
        and len(text) <= _PLEASANTRY_MAX_CHARS
        and _PLEASANTRY.fullmatch(_normalise(text))
    ):
        return _Scored(0.0, _FACTS, False, False)
    if mask & _NUM and mask & (_ID | _MONEY | _WHEN):
        mask &= ~_NUM  # the number is already counted as an id, an amount or a date
    score = _WEIGHT_OF[mask & _WEIGHTED_BITS] + _CAP_WEIGHT * n_caps
    # UTF-8 length weighs a Chinese character like about three Latin letters, as it should.
    score += min(len(text.encode()) / 80, 0.4) - max(len(text) - 120, 0) / 120
    question = _is_question(text)
    if question:
        score -= 0.6
    if role == "user":
        score = (score + 0.6 + (0.4 if mask & _FIRST else 0.0)) * 1.3
    elif role == "assistant":
        score = (score + 0.1) * (0.3 if question else 0.6)  # its questions ask, they tell nothing
    elif role == "tool":
        score = (score + 0.5) * 0.8  # dense, but the assistant's means, not the user's ends
    else:  # mid-conversation system notes, developer messages, the previous summary
        score += 0.4
    if mask & _INJECT:
        score = min(score, 0.2)  # text addressed to the summarizer is data, and weak data
    if mask & _TASK and _TASK_LEAD.match(text):
        section = _TASKS
    elif mask & _DECIDE:
        section = _DECISIONS
    elif mask & _PREF:
        section = _PREFS
    elif mask & _TASK:
        section = _TASKS
    else:
        section = _FACTS
    durable = section in (_PREFS, _DECISIONS) or bool(mask & (_ID | _NAME))
    return _Scored(max(score, 0.0), section, durable, bool(mask & _SLOT))


# ---------------------------------------------------------------------------------------------
# slots: which statements a newer one replaces

_ZH_STOP = r"[^，。,.!?！？；;]"
_ATTR_ZH = re.compile(
    rf"(?P<residence>住在(?!{_ZH_STOP}{{0,8}}(?:酒店|宾馆|民宿|旅馆|客栈))|搬到|搬去|搬家到|定居)"
    r"|(?P<budget>预算)|(?P<name>我叫|名叫|名字)|(?P<phone>电话|手机号?)|(?P<email>邮箱|电子邮件)"
    r"|(?P<address>地址)|(?P<job>职业|工作是|上班|就职)|(?P<age>岁)|(?P<deadline>截止|期限)"
    r"|(?P<headcount>人数)|(?P<destination>目的地)|(?P<diet>吃素|素食|饮食)"
)
# English slot patterns run on the lowercased clause; re.ASCII makes \b treat Chinese
# characters as non-letters, so "我live in" still has a word boundary.
_ATTR_EN = re.compile(
    r"\b(?:(?P<residence>live[sd]? in|living in|moved to|move to|moving to|relocated to|based in)"
    r"|(?P<budget>budget)|(?P<name>name is|call me)|(?P<phone>phone(?: number)?|mobile|cell)"
    r"|(?P<email>e-?mail(?: address)?)|(?P<address>address)"
    r"|(?P<job>works? (?:at|for|as)|job is|occupation)|(?P<age>years old|my age|aged)"
    r"|(?P<deadline>deadline|ddl|due (?:date|by|on))"
    r"|(?P<headcount>headcount|number of (?:people|guests))|(?P<destination>destination)"
    r"|(?P<diet>vegetarian|vegan|diet))\b",
    re.ASCII,
)
_PREF_ZH = re.compile(
    rf"对(?P<allergen>{_ZH_STOP}{{1,10}}?)过敏"
    rf"|(?:喜欢|爱吃|爱喝|讨厌|偏好|偏爱|最爱|受不了)(?P<obj>{_ZH_STOP}{{1,12}})"
)
_PREF_EN = re.compile(
    r"\b(?:(?P<allergen>allergic to)|prefer(?:s|red)?|like[sd]?|love[sd]?|hate[sd]?|dislike[sd]?"
    r"|enjoy(?:s|ed)?|can't stand|favou?rite)\b +(?P<obj>[a-z][a-z' -]{0,40})",
    re.ASCII,
)
# "looks like rain" and "I'd like to" state no preference.
_LATIN = re.compile("[a-z]")
_NOT_PREF_BEFORE_WORDS = (
    "look looks seem seems sound sounds feel feels something would i'd just more be is was are were"
)
_NOT_PREF_BEFORE = frozenset(_NOT_PREF_BEFORE_WORDS.split())
_ROLE_TAG = re.compile(r"^(?:User|Assistant|用户|助手)\s*[:：]\s*")
_PERSON_ZH = re.compile(
    r"老婆|老公|妻子|丈夫|太太|女儿|儿子|孩子|妈妈|爸爸|母亲|父亲|父母|爷爷|奶奶|外公|外婆|哥哥"
    r"|姐姐|弟弟|妹妹|同事|老板|上司|领导|朋友|室友|客户|他们|她们|他|她"
)
_ZH_NAME = re.compile(rf"[小老][{_SURNAMES}]|[{_SURNAMES}][\u4e00-\u9fff]{{1,2}}")
_QUALIFIER_STOP_WORDS = (
    "i my our we the a an your you user user's users it this that now also so and but new"
    " total overall current still whole entire is was has have had will actually then"
)
_QUALIFIER_STOP_EN = frozenset(_QUALIFIER_STOP_WORDS.split())
_SUBJECT_STOP_ZH = re.compile(
    r"另外|对了|还有|然后|所以|但是|不过|而且|那边|这边|方面|关于|至于|总之|反正|顺便|首先|最后"
    r"|我们|我的|我|用户的?|你的|您的|你|您|的|现在|已经|也|还|都|目前|之前|原来|最近|将|会|要|想"
    r"|打算|准备|大概|总|整体|那|这|就|其实|本来|一直|则|是|在|刚刚?|才|又|再|不|没有?|很|太|非常"
    r"|特别|超|更|最|比较|有点|一点|真的?|挺|(?:上|下|这|本)个?(?:月|周|星期)|今年|去年|明年|前年"
    r"|今天|昨天|前天|前几天|上次|后来|终于|[0-9零一二两三四五六七八九十]+(?:年|月|号|日|天|周)(?:前|后)?"
)
_CLAUSE_SPLIT = re.compile(
    r"([，；;]\s*|,(?!\d)\s*|\s+(?:and|but|while|whereas)\s+|以及|并且|而且|但是?)"
)
_OWN_SUBJECT = re.compile(
    r"(?:我|你|您|他|她|它|用户)|(?i:(?:i|we|he|she|they|it|my|our|his|her|their|the|user)(?![a-z]))"
    r"|[A-Z]"
)
_TERMINAL = re.compile(r"[。.!！?？]+[”’」』）)\]\"']*$")
_SUBJECT_STOP_WORDS = (
    "I My Our We User User's The A An Your You It This That Now Actually Also So And But"
    " Assistant Still Currently"
)
_SUBJECT_STOP_EN = frozenset(_SUBJECT_STOP_WORDS.split())
_CAP_WORD = re.compile(r"(?<![A-Za-z])[A-Z][a-z]+(?![A-Za-z])")
_CLAUSE_CUT = re.compile(r".*[,，;；:：、]")
_HAN_RUN = re.compile(r"[\u4e00-\u9fff]")
_OBJ_STRIP_ZH = re.compile(r"^(?:吃|喝|用|去|看|玩|听)|(?:了|的|啦|呢|吧|啊|哦|呀|了吧)+$")
_OBJ_STOP_EN = re.compile(
    r" (?:now|anymore|any more|too|also|either|so much|a lot|very much|much|and|but|because"
    r"|since|over|than|instead|though|as|for|when|if|at|in|on|with|is|are|was|were)\b.*\Z",
    re.ASCII,
)
_OBJ_LEAD_EN = re.compile(r"(?:to |the |a |an |my |being |having )+")


def _subject(prefix: str, role: str) -> tuple[str, str] | None:
    """Who a statement is about and what qualifies its attribute ("hotel" in "hotel budget"),
    from the text before the attribute keyword; None when it is not about a person we track."""
    prefix = _CLAUSE_CUT.sub("", prefix)
    if role == "assistant" and not _SECOND_PERSON.search(prefix):
        return None  # the assistant talking about the world, not about the user
    if _HAN_RUN.search(prefix):
        persons = _PERSON_ZH.findall(prefix)
        rest = _SUBJECT_STOP_ZH.sub("", _NON_WORD.sub("", prefix))
        if persons:
            return str(persons[-1]), ""
        if _ZH_NAME.fullmatch(rest):
            return rest, ""
        return "user", rest[-4:]
    names = [str(w) for w in _CAP_WORD.findall(prefix) if w not in _SUBJECT_STOP_EN]
    if names:
        return names[-1].casefold(), ""
    words = _lower(prefix).split()
    qualifier = words[-1] if words and words[-1].isalpha() else ""
    return "user", "" if qualifier in _QUALIFIER_STOP_EN else qualifier


def _lower(text: str) -> str:
    """``text`` lowercased, with every character at the same offset."""
    low = text.lower()
    return low if len(low) == len(text) else text.translate(_ASCII_LOWER)


def _word_before(text: str, end: int) -> str:
    words = text[max(0, end - 12) : end].split()
    return words[-1] if words else ""


def _first(*matches: re.Match[str] | None) -> re.Match[str] | None:
    found = [m for m in matches if m is not None]
    return min(found, key=lambda m: m.start()) if found else None


def _clause_slot(clause: str, role: str) -> tuple[tuple[str, ...], str] | None:
    """The slot one clause fills (kind, who, what) and the text before its keyword."""
    low = _lower(clause)
    han = not clause.isascii()
    latin = _LATIN.search(low) is not None
    en_pref = _PREF_EN.search(low) if latin else None
    while en_pref is not None and _word_before(low, en_pref.start()) in _NOT_PREF_BEFORE:
        en_pref = _PREF_EN.search(low, en_pref.end())
    m = _first(_PREF_ZH.search(clause) if han else None, en_pref)
    if m is not None:
        if m.re is _PREF_ZH:
            obj = _NON_WORD.sub("", str(m.group("allergen") or m.group("obj")))
            obj = _OBJ_STRIP_ZH.sub("", _OBJ_STRIP_ZH.sub("", obj)[:6])
        else:
            obj = _OBJ_STOP_EN.sub("", _OBJ_LEAD_EN.sub("", str(m.group("obj")).strip()))
            obj = " ".join(obj.split()[:3])
        prefix = clause[: m.start()]
        who = _subject(prefix, role)
        kind = "allergy" if m.group("allergen") else "pref"
        if obj and who is not None:
            return (kind, who[0], obj), prefix
    m = _first(_ATTR_ZH.search(clause) if han else None, _ATTR_EN.search(low) if latin else None)
    if m is None or not _HAS_WORD.search(clause, m.end()):
        return None
    prefix = clause[: m.start()]
    who = _subject(prefix, role)
    if who is None:
        return None
    return ("attr", who[0], m.lastgroup or "", who[1]), prefix


def _slots(body: str, role: str) -> tuple[list[str], list[tuple[tuple[str, ...], int, str]]]:
    """Clauses of ``body`` (separators at odd indexes) and the slots they fill.

    Each slot comes with the index of its clause and the text before its keyword (the subject,
    used to keep a later clause readable when this one is replaced). Questions fill no slot.
    """
    if _is_question(body) or (role == "assistant" and not _SECOND_PERSON.search(body)):
        return [], []  # the assistant fills a slot only when it speaks about the user
    parts = _CLAUSE_SPLIT.split(body)
    found = []
    for i in range(0, len(parts), 2):
        hit = _clause_slot(parts[i], role)
        if hit is not None:
            found.append((hit[0], i // 2, hit[1]))
    return parts, found


def _without_clauses(parts: list[str], removed: set[int], subjects: dict[int, str]) -> str:
    """The statement with the replaced clauses taken out ("" when nothing is left)."""
    kept = [i for i in range(0, len(parts), 2) if i // 2 not in removed]
    if not kept:
        return ""
    text = parts[kept[0]]
    for i in kept[1:]:
        text += parts[i - 1] + parts[i]
    if 0 in removed and not _OWN_SUBJECT.match(text):
        subject = subjects.get(0, "").strip()
        if subject and len(subject) <= 20:
            text = f"{subject}{' ' if subject[-1:].isascii() else ''}{text}"
        elif _score_all([text], ["summary"])[0].score < _ORPHAN_MIN_SCORE:
            return ""  # a leftover like "不含机票" means nothing without the replaced clause
    last = len(parts) - 1
    if last not in kept:
        end = _TERMINAL.search(parts[last])
        text = text.rstrip(" ,，;；") + (end.group() if end else "")
    return text


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


# ---------------------------------------------------------------------------------------------
# tool calls


_TRIVIAL_RESULTS = frozenset(
    {
        "",
        "ok",
        "okay",
        "success",
        "succeeded",
        "true",
        "false",
        "null",
        "none",
        "done",
        "{}",
        "[]",
        "完成",
        "成功",
        "已完成",
        "好的",
        '""',
    }
)


def _scalar(value: object) -> str:
    if isinstance(value, str):
        return _trim(_SPACES.sub(" ", value).strip(), _MAX_ARG_CHARS)
    if value is None or isinstance(value, (bool, int, float)):
        return json.dumps(value)
    return _trim(json.dumps(value, ensure_ascii=False, sort_keys=True), _MAX_ARG_CHARS)


def _render_args(args: object) -> str:
    """Tool-call arguments (a JSON string or an object) as ``key=value, ...``."""
    if isinstance(args, str):
        raw = args
        try:
            args = json.loads(raw) if raw.strip() else {}
        except ValueError:
            return _trim(" ".join(raw.split()), _MAX_ARG_CHARS * 2)
    if isinstance(args, Mapping):
        pairs = [f"{k}={_scalar(v)}" for k, v in list(args.items())[:_MAX_ARGS]]
        if len(args) > _MAX_ARGS:
            pairs.append("…")
        return _trim(", ".join(pairs), _MAX_ARGS_CHARS)
    return _scalar(args)


def _flatten(value: object, depth: int = 0) -> str:
    """Compact text of a JSON value: ``k=v`` pairs, lists as ``a; b; c (+n)``."""
    if isinstance(value, Mapping):
        pairs = []
        for k, v in list(value.items())[:_MAX_RESULT_KEYS]:
            inner = _flatten(v, depth + 1) if depth < 3 else _scalar(v)
            if inner:
                pairs.append(f"{k}=[{inner}]" if isinstance(v, list) else f"{k}={inner}")
        return ", ".join(pairs)
    if isinstance(value, list):
        parts = [p for p in (_flatten(v, depth + 1) for v in value[:3]) if p]
        more = f" (+{len(value) - 3})" if len(value) > 3 else ""
        return " | ".join(parts) + more
    if value is None or value == "":
        return ""
    return _scalar(value)


def _render_result(result: str, limit: int) -> str:
    text = result.strip()
    if text[:1] in "{[":
        try:
            parsed = json.loads(text)
        except ValueError:
            pass
        else:
            text = _flatten(parsed)
    text = _SPACES.sub(" ", text).strip()
    if text.casefold() in _TRIVIAL_RESULTS:
        return ""
    return _trim(text, limit)


@dataclass(slots=True)
class _ToolLine:
    name: str
    args: str
    result: str | None = None


def _result_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, (Mapping, list)) and not (
        isinstance(content, list) and all(isinstance(p, Mapping) and "type" in p for p in content)
    ):
        return json.dumps(content, ensure_ascii=False, sort_keys=True)
    return content_text(content)


# ---------------------------------------------------------------------------------------------
# items


class _Shape(NamedTuple):
    """What an item's text alone decides: its clauses, the slots they fill, its key."""

    parts: list[str]
    slots: list[tuple[tuple[str, ...], int, str]]
    key: str


@dataclass(slots=True)
class _Item:
    """One statement of the summary being built."""

    tag: str
    """Who said it, as shown (``"User: "``), or ``""``."""
    role: str
    """``user``, ``assistant``, ``tool``, ``summary`` (from the previous summary), ..."""
    body: str
    section: int
    score: float
    order: int
    """Position in the conversation: previous-summary items are negative, newer is larger."""
    key: str
    """Normalised text, for duplicates."""
    parts: list[str] = field(default_factory=list)
    """Clauses, with separators at odd indexes (only for statements that fill slots)."""
    slots: list[tuple[tuple[str, ...], int, str]] = field(default_factory=list)
    """(slot, clause index, subject text) for each slot a clause fills."""
    removed: set[int] = field(default_factory=set)
    """Clauses replaced by newer statements."""
    cost: int = 0
    dropped: bool = False

    @property
    def text(self) -> str:
        return self.tag + self.body

    @classmethod
    def make(
        cls,
        tag: str,
        body: str,
        section: int,
        score: float,
        order: int,
        role: str,
        slot: bool,
        cache: dict[tuple[str, str, bool], _Shape] | None = None,
    ) -> _Item:
        """The item for ``body``; ``cache`` keeps the clause and key work of one fold, so a
        statement said again costs a lookup (the parts are only read, never changed)."""
        shape = cache.get((body, role, slot)) if cache is not None else None
        if shape is None:
            parts, slots = _slots(body, role) if slot else ([], [])
            shape = _Shape(parts, slots, _dedup_key(body))
            if cache is not None:
                cache[body, role, slot] = shape
        return cls(tag, role, body, section, score, order, shape.key, shape.parts, shape.slots)


_HEADING = re.compile(
    r"\s*(?:#{1,6}\s*)?\**\s*(?P<title>facts|preferences|decisions|open\s+tasks|事实|偏好|决定|待办)"
    r"\s*\**\s*(?:[:：]\s*\**\s*(?P<rest>.*)|\**\s*)",
    re.I,
)
_HEADING_SECTION = {
    "facts": _FACTS,
    "preferences": _PREFS,
    "decisions": _DECISIONS,
    "open tasks": _TASKS,
    "事实": _FACTS,
    "偏好": _PREFS,
    "决定": _DECISIONS,
    "待办": _TASKS,
}
_BULLET = re.compile(r"^\s*(?:[-*•·]|\d{1,3}[.)、])\s*")
_SUMMARY_PREFIX = re.compile(
    r"^\s*(?:历史摘要|(?i:summary(?:\s+of\s+(?:the\s+)?earlier\s+conversation)?))\s*[:：]\s*"
)


def _previous_items(summary: str) -> list[tuple[str, int | None]]:
    """(text, section or None to classify) for each statement of the previous summary."""
    out: list[tuple[str, int | None]] = []
    summary = _SUMMARY_PREFIX.sub("", summary)
    section: int | None = None
    for line in summary.splitlines():
        heading = _HEADING.fullmatch(line)
        if heading:
            section = _HEADING_SECTION[_SPACES.sub(" ", heading.group("title").casefold())]
            line = heading.group("rest") or ""  # "Facts: the user lives in Oslo." on one line
        if line.strip() in _NOTES:
            continue  # our own "nothing to keep" note is not a fact to carry forward
        if section is not None and line.strip():
            text = _SPACES.sub(" ", _BULLET.sub("", line)).strip()
            if _HAS_WORD.search(text):
                out.append((_trim(text, _MAX_ITEM_CHARS * 2), section))
        elif line.strip():
            out.extend((s, None) for s in split_sentences(line))
    return out


def _is_tool_line(body: str) -> bool:
    return body.startswith(("Tool ", "工具 ", "Tool result", "工具结果"))


def _previous_role(tag: str, body: str) -> str:
    if tag.startswith(("Assistant", "助手")):
        return "assistant"
    return "tool" if _is_tool_line(body) else "user"


class ExtractiveSummarizer(BaseSummarizer):
    """The embedded summarizer: picks the informative sentences, needs no key and no network.

    Deterministic: the same request always gives the same summary. Chinese and English.

    Args:
        count: Counts a text's tokens for the cap; pass the fold's ``counter.count`` so the
            cap holds exactly. Defaults to chatfold's default counter.
        min_score: New sentences scoring below this are dropped as small talk.
        tool_result_chars: A tool result is trimmed to about this many characters.

    Example:
        >>> from chatfold.summarizers.base import SummaryRequest
        >>> s = ExtractiveSummarizer()
        >>> req = SummaryRequest("事实：\\n- 用户：我住在北京。",
        ...     [{"role": "user", "content": "你好！我上个月搬到上海了。"}], "zh", max_tokens=80)
        >>> print(s.summarize(req))
        事实：
        - 用户：我上个月搬到上海了。
    """

    def __init__(
        self,
        *,
        count: Callable[[str], int] | None = None,
        min_score: float = DEFAULT_MIN_SCORE,
        tool_result_chars: int = DEFAULT_TOOL_RESULT_CHARS,
    ) -> None:
        self._count = count if count is not None else default_counter().count
        self._explicit_count = count is not None
        self.min_score = min_score
        self.tool_result_chars = tool_result_chars

    def summarize(self, request: SummaryRequest) -> str:
        """Return the new summary for ``request``: previous summary merged with new messages.

        Args:
            request: Previous summary, newly evicted messages, language, cap and style.

        Returns:
            The summary text (sections, or one paragraph for ``style="paragraph"``), within
            ``request.max_tokens`` (``target_tokens`` on a re-ask) as counted by ``count``.
        """
        lang = request.language if request.language in SECTION_TITLES else "en"
        items = self._collect(request, lang)
        kept = _merge(items)
        budget = request.max_tokens
        if request.attempt >= 2 and request.target_tokens:
            budget = min(budget, request.target_tokens)
        # The fold's own counter, when it sends one, makes the cap exact.
        count = request.count if request.count is not None and not self._explicit_count \
            else self._count
        return self._render_capped(kept, lang, request.style, max(budget, 0), count)

    # asummarize is BaseSummarizer's: summarize in a worker thread, so a large fold never
    # holds up the event loop.

    # -- collecting -----------------------------------------------------------------------

    def _collect(self, request: SummaryRequest, lang: str) -> list[_Item]:
        # (tag shown, text, role, section from the previous summary's headings or None)
        rows: list[tuple[str, str, str, int | None]] = []
        # A stray summary message among the evicted ones is merged like the previous summary,
        # never summarized as a system note (the seed silently dropped all but the last).
        summaries = [
            content_text(m.get("content")) for m in request.messages if m.get("is_summary")
        ]
        summaries.append(request.previous_summary or "")
        previous = [item for summary in summaries for item in _previous_items(summary)]
        for text, section in previous:
            tag_match = _ROLE_TAG.match(text)
            tag = tag_match.group() if tag_match else ""
            rows.append((tag, text[len(tag) :], "summary", section))
        n_previous = len(rows)
        tags = {role: f"{tag}{_COLON[lang]}" for role, tag in _ROLE_TAGS[lang].items()}
        sentences: dict[str, list[str]] = {}  # a message said again is split once per fold
        for role, text in self._pieces(request.messages, lang):
            if role == "tool":
                rows.append(("", text, role, None))
            else:
                tag = tags.get(role, "")
                split = sentences.get(text)
                if split is None:
                    split = sentences[text] = [_strip_filler(s) for s in split_sentences(text)]
                rows.extend((tag, s, role, None) for s in split)
        # A carried-forward statement is scored as what it was: the user's words, the
        # assistant's, a tool line; an untagged one (an LLM's summary) as a fact about the user.
        scores = _score_all(
            [r[1] for r in rows],
            [_previous_role(r[0], r[1]) if r[2] == "summary" else r[2] for r in rows],
        )
        items: list[_Item] = []
        shapes: dict[tuple[str, str, bool], _Shape] = {}
        for i, ((tag, body, role, section), scored) in enumerate(zip(rows, scores, strict=True)):
            order = i - n_previous  # previous-summary items come first, with negative orders
            score = scored.score
            sec = scored.section if section is None else section
            if role == "tool":
                sec = _FACTS  # a call and what it returned: a fact, whatever its words
            if role == "summary":
                # Kept by an earlier fold: never treated as small talk, and only facts age.
                score = max(score, _PREVIOUS_FLOOR)
                if sec not in (_PREFS, _DECISIONS) and (not scored.durable or _is_tool_line(body)):
                    score *= _AGE_DECAY
            elif score < self.min_score and role != "tool":
                continue  # small talk; every tool call stays a candidate, however plain
            items.append(_Item.make(tag, body, sec, score, order, role, scored.hints_slot, shapes))
        return items

    def _pieces(
        self, messages: Sequence[Mapping[str, Any]], lang: str
    ) -> Iterable[tuple[str, str]]:
        """(role, text) in conversation order; each tool call is one ("tool", line) piece."""
        pieces: list[tuple[str, str | _ToolLine]] = []
        calls: dict[str, _ToolLine] = {}
        # A long history repeats its tool calls and results: each distinct JSON text is parsed
        # and rendered once per fold.
        results: dict[str, str] = {}
        arg_texts: dict[str, str] = {}

        def render_args(args: object) -> str:
            if not isinstance(args, str):
                return _render_args(args)
            text = arg_texts.get(args)
            if text is None:
                text = arg_texts[args] = _render_args(args)
            return text

        for message in messages:
            if message.get("is_summary"):
                continue  # merged as a previous summary by _collect
            role = str(message.get("role") or "")
            content = message.get("content")
            if (
                type(content) is str
                and role not in ("tool", "function")
                and not message.get("tool_calls")
                and not message.get("function_call")
            ):
                if content:
                    pieces.append((role, content))  # the common case: plain text only
                continue
            if role in ("tool", "function"):
                call_id = str(message.get("tool_call_id") or "")
                self._attach(
                    pieces, calls, results, call_id, _result_text(content), message.get("name")
                )
                continue
            if isinstance(content, list):
                plain = [p for p in content if not _is_tool_block(p)]
                text = content_text(plain)
            else:
                text = content_text(content)
            if text:
                pieces.append((role, text))
            if isinstance(content, list):
                for part in content:
                    if not isinstance(part, Mapping):
                        continue
                    if part.get("type") == "tool_use":
                        line = _ToolLine(str(part.get("name")), render_args(part.get("input")))
                        calls[str(part.get("id"))] = line
                        pieces.append(("tool", line))
                    elif part.get("type") == "tool_result":
                        self._attach(
                            pieces,
                            calls,
                            results,
                            str(part.get("tool_use_id")),
                            _result_text(part.get("content")),
                            None,
                        )
            for call in message.get("tool_calls") or ():
                fn = call.get("function") if isinstance(call, Mapping) else None
                if not isinstance(fn, Mapping):
                    continue
                line = _ToolLine(str(fn.get("name")), render_args(fn.get("arguments")))
                calls[str(call.get("id"))] = line
                pieces.append(("tool", line))
            fc = message.get("function_call")
            if isinstance(fc, Mapping):
                line = _ToolLine(str(fc.get("name")), render_args(fc.get("arguments")))
                calls[f"function:{fc.get('name')}"] = line
                pieces.append(("tool", line))
        for role, piece in pieces:
            if isinstance(piece, str):
                yield role, piece
            else:
                yield "tool", self._tool_text(piece, lang)

    def _attach(
        self,
        pieces: list[tuple[str, str | _ToolLine]],
        calls: dict[str, _ToolLine],
        results: dict[str, str],
        call_id: str,
        result: str,
        name: object,
    ) -> None:
        line = calls.get(call_id) or (calls.get(f"function:{name}") if name else None)
        rendered = results.get(result)
        if rendered is None:
            rendered = results[result] = _render_result(result, self.tool_result_chars)
        if line is not None:
            line.result = rendered if line.result is None else f"{line.result} | {rendered}"
        elif rendered:
            orphan = _ToolLine(str(name) if name else "", "", rendered)
            pieces.append(("tool", orphan))

    @staticmethod
    def _tool_text(line: _ToolLine, lang: str) -> str:
        if not line.name:
            return f"{_TOOL_RESULT_WORD[lang]}{_COLON[lang]}{line.result}"
        text = f"{_TOOL_WORD[lang]} {line.name}({line.args})"
        if line.result:
            text += f" → {line.result}"
        return text

    # -- rendering under the cap --------------------------------------------------------------

    def _render_capped(self, items: list[_Item], lang: str, style: str, budget: int,
                       count: Callable[[str], int]) -> str:
        paragraph = style == "paragraph"
        if not items:
            return _fit(_NOTHING_TO_KEEP[lang], budget, count)
        _discount_repeats(items)
        ranked = sorted(items, key=lambda it: (-it.score, -it.order))
        titles = SECTION_TITLES[lang]
        header_cost = [count(f"{t}{_COLON[lang].strip()}\n") + 1 for t in titles]
        chosen: list[_Item] = []
        opened: set[int] = set()
        covered: set[str] = set()
        deferred: list[_Item] = []
        used = 0
        for pass_items in (ranked, deferred):
            misses = 0
            for it in pass_items:
                ids = {t.lstrip("0") for t in _ID_TOKEN.findall(it.text) if len(t) >= 3}
                if pass_items is ranked and ids and ids <= covered:
                    deferred.append(it)  # says nothing a better item has not said already
                    continue
                if paragraph:
                    it.cost = count(_as_sentence(it.text, lang))
                    extra = it.cost
                else:
                    it.cost = count(f"- {it.text}\n")
                    extra = it.cost + (0 if it.section in opened else header_cost[it.section])
                if used + extra <= budget:
                    used += extra
                    chosen.append(it)
                    opened.add(it.section)
                    covered |= ids
                    misses = 0
                else:
                    misses += 1
                    if misses > _MAX_MISSES or budget - used < 3:
                        break  # full: the rest would only be counted for nothing
        chosen.sort(key=lambda it: (-it.score, -it.order))
        text = _render(chosen, lang, paragraph)
        # The counter need not be additive: drop the weakest until the whole text fits.
        while chosen and count(text) > budget:
            chosen.pop()
            text = _render(chosen, lang, paragraph)
        if chosen:
            return text
        best = ranked[0].text
        return _fit(best if paragraph else _render([ranked[0]], lang, False), budget, count)


def _discount_repeats(items: list[_Item]) -> None:
    """Lower the score of statements that repeat a newer one with other numbers.

    "Go with version 2.31" then "go with version 2.37": the newest keeps its score and each
    older variant counts less, so a repeated template cannot fill the whole summary. Nothing is
    dropped here; variants only lose when room is short.
    """
    seen: dict[str, int] = {}
    for it in sorted(items, key=lambda i: -i.order):
        skeleton = _DIGITS.sub("", it.key)
        k = seen.get(skeleton, 0)
        seen[skeleton] = k + 1
        it.score *= _REPEAT_DISCOUNT**k


def _render(items: list[_Item], lang: str, paragraph: bool) -> str:
    ordered = sorted(items, key=lambda it: (it.section, -it.score, it.order))
    if paragraph:
        sep = "" if lang == "zh" else " "
        return sep.join(_as_sentence(it.text, lang) for it in ordered)
    titles = SECTION_TITLES[lang]
    colon = _COLON[lang].strip()
    blocks: list[str] = []
    current = -1
    lines: list[str] = []
    for it in ordered:
        if it.section != current:
            if lines:
                blocks.append("\n".join(lines))
            current = it.section
            lines = [f"{titles[current]}{colon}"]
        lines.append(f"- {it.text}")
    if lines:
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _as_sentence(text: str, lang: str) -> str:
    if text[-1:] in '.!?;。！？；…)）"”':
        return text
    return text + _FULL_STOP[lang]


def _fit(text: str, budget: int, count: Callable[[str], int]) -> str:
    """``text``, cut (with an ellipsis) to the longest prefix within ``budget`` tokens."""
    if count(text) <= budget:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(text[:mid].rstrip() + "…") <= budget:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + "…" if lo else ""


def _merge(items: list[_Item]) -> list[_Item]:
    """Drop duplicates and superseded statements; items come oldest first."""
    by_key: dict[str, _Item] = {}
    by_slot: dict[tuple[str, ...], tuple[_Item, int]] = {}
    buckets: dict[str, list[_Item]] = {}
    for it in items:  # collected in conversation order, oldest first
        if not it.key:
            it.dropped = True
            continue
        old = by_key.get(it.key)
        if old is not None and not old.dropped:
            # Same statement again: keep the newest, with the best score and a known section.
            it.score = max(it.score, old.score)
            if it.section == _FACTS:
                it.section = old.section
            old.dropped = True
        by_key[it.key] = it
        for bucket_key in (it.key[:8], it.key[-8:]):
            bucket = buckets.setdefault(bucket_key, [])
            for other in bucket[-_NEAR_DUP_BUCKET:]:
                if other.dropped or other is it:
                    continue
                short, long_ = (it, other) if len(it.key) < len(other.key) else (other, it)
                # Lengths first: most pairs differ too much for the substring test to matter.
                if len(short.key) >= 0.6 * len(long_.key) and short.key in long_.key:
                    short.dropped = True
                    long_.score = max(long_.score, short.score)
            bucket.append(it)
        if it.dropped:
            continue
        for slot, clause, _ in it.slots:
            held = by_slot.get(slot)
            if held is None or held[0].dropped or held == (it, clause):
                by_slot[slot] = (it, clause)
                continue
            older = held[0]
            if it.role == "assistant" and older.role == "user" and older.order >= 0:
                # The assistant repeating what the user just said: keep the user's words.
                it.removed.add(clause)
                continue
            older.removed.add(held[1])  # a newer statement fills the same slot
            it.score = max(it.score, older.score)  # and is as important as the one it replaces
            by_slot[slot] = (it, clause)
    kept = []
    for it in items:
        if it.removed and not it.dropped:
            subjects = {clause: subject for _, clause, subject in it.slots}
            it.body = _without_clauses(it.parts, it.removed, subjects)
            it.dropped = not it.body
        if not it.dropped:
            kept.append(it)
    return kept


def _is_tool_block(part: object) -> bool:
    return isinstance(part, Mapping) and part.get("type") in ("tool_use", "tool_result")
