"""Information score and section of each sentence: one scan per pattern over a fold."""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple

from .lexicon import (
    _ATTR,
    _ATTR_WEIGHT,
    _CAP_MAX,
    _CAP_STOP,
    _CAP_WEIGHT,
    _DECIDE,
    _DECISIONS,
    _EN_NEUTRAL,
    _EN_WORDS,
    _FACT,
    _FACT_WEIGHT,
    _FACTS,
    _FEEL,
    _FILE_EXT,
    _FIRST,
    _FOND,
    _FOND_WEIGHT,
    _ID,
    _INFORMATIVE,
    _INJECT,
    _MONEY,
    _NAME,
    _NAME_VERBS,
    _NOT_NAMES,
    _NUM,
    _PLEASANTRY_MAX_CHARS,
    _PREF,
    _PREFS,
    _SLOT,
    _SURNAMES,
    _TASK,
    _TASKS,
    _WEIGHT_OF,
    _WEIGHTED_BITS,
    _WHEN,
    _ZH_NEUTRAL,
    _ZH_WORDS,
    NAG_ME_KEYS,
    ON_LIST_ASK_EN,
    ON_LIST_HEAD_EN,
    ON_LIST_ZH,
    ZH_CHILD_NAMED,
    ZH_NUMERALS,
    ZH_TITLES,
    _is_pleasantry,
    is_latin,
)
from .sentences import _normalise, _trie_pattern
from .threads import content_tokens

# ---------------------------------------------------------------------------------------------
# scoring
#
# All sentences of a fold are joined into one text and scanned once per pattern; a match counts
# for the sentence it starts in. Cue words are literal tries (the regex engine then only stops
# at characters that can start one); English is matched on a lowercased copy of the same
# length, with the word boundary checked by hand. Per-sentence regex calls would cost more than
# all the scanning together.
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def _lexicon(words: Mapping[int, str], neutral: str, sep: str) -> dict[str, int]:
    lex: dict[str, int] = {w: 0 for w in neutral.split(sep)}
    for bit, group in words.items():
        for w in group.split(sep):
            w = w.strip()
            lex[w] = lex.get(w, 0) | bit
            if "'" in w:
                curly = w.replace("'", "’")
                lex[curly] = lex.get(curly, 0) | bit
    # The scan takes the longest cue at each place, so a cue also carries the bits of the cues
    # inside it ("我住在" those of "我" and "住在"; "my name is" those of "my"); a neutral
    # phrase carries none ("不确定" decides nothing).
    neutral_words = set(neutral.split(sep))
    cues = [w for w in lex if w not in neutral_words]
    inner: dict[str, int] = {}
    for w in cues:
        for v in cues:
            if v != w and v in w and (
                sep == " " or re.search(rf"(?<![a-z']){re.escape(v)}(?![a-z'])", w)
            ):
                inner[w] = inner.get(w, 0) | lex[v]
    for w, bits in inner.items():
        lex[w] |= bits
    return lex


_ZH_LEX = _lexicon(_ZH_WORDS, _ZH_NEUTRAL, " ")
_EN_LEX = _lexicon(_EN_WORDS, _EN_NEUTRAL, "|")
_ZH_RE = re.compile(_trie_pattern(_ZH_LEX))
_EN_RE = re.compile(f"(?:{_trie_pattern(_EN_LEX)})(?![a-z])")


def _before(src: str, m: re.Match[str]) -> str:
    return src[m.start() - 1] if m.start() else " "


def _latin(ch: str) -> bool:
    """True for a letter or digit that continues a Latin word. A Chinese character does not:
    "我的猫叫Luna", "航班号是CA1234" and "预算budget" start a word right after one."""
    return ch.isascii() and ch.isalnum()


def _word_start(src: str, m: re.Match[str]) -> bool:
    return not _latin(_before(src, m))


def _has_letter(src: str, m: re.Match[str]) -> bool:
    return any(ch.isalpha() for ch in m.group())


def _has_digit_at_word_start(src: str, m: re.Match[str]) -> bool:
    return _word_start(src, m) and any(ch.isdigit() for ch in m.group())


def _after_name(src: str, m: re.Match[str]) -> bool:
    ch = _before(src, m)
    return ch.isalnum() or ch in "_-"


def _version(src: str, m: re.Match[str]) -> bool:
    ch = _before(src, m)
    return not (_latin(ch) or ch == ".")


def _cn_number(src: str, m: re.Match[str]) -> bool:
    g = m.group()  # a lone 一 is "a/one" (一个, 一下, 一些), not a number worth keeping
    return not (g[0] == "一" and (len(g) == 1 or g[1] not in "十百千万"))


_Check = Callable[[str, "re.Match[str]"], bool]
_PHONE = re.compile(
    r"(?<![0-9A-Za-z.,])\+?[0-9]{2,4}(?:[ -][0-9]{2,4}){1,3}(?![0-9A-Za-z]|[.,][0-9])"
)


def _seven_digits(src: str, m: re.Match[str]) -> bool:
    return sum(ch.isdigit() for ch in m.group()) >= 7


def _has_letter_or_dots(src: str, m: re.Match[str]) -> bool:
    """A host ("db.internal:5432") or an address ("10.0.3.17"), not a time ("at 10:30")."""
    found = m.group()
    return found.count(".") >= 3 or (any(c.isalpha() for c in found) and (
        "." in found or not found.split(":")[0].isalpha() or "-" in found))


def _has_letter_after_capital(src: str, m: re.Match[str]) -> bool:
    """A product's name with its version ("Django 4.2", "iOS 17.4"), not "about 3.5"."""
    found = m.group()
    return any(c.isupper() for c in found)


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

# (bit, pattern, match the lowercased text, extra check, skip unless one of these characters,
# or one of these substrings, is present)
_CALENDAR_NAMES = ("(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February"
                   "|March|April|May|June|July|August|September|October|November|December)")
_KIN = (
    "wife|husband|partner|fianc[ée]e?|boyfriend|girlfriend|son|daughter|kid|child|mom|mum"
    "|mother|dad|father|brother|sister|grandma|grandmother|grandpa|grandfather|aunt|uncle"
    "|cousin|niece|nephew|friend|boss|manager|supervisor|coworker|co-worker|colleague|roommate"
    "|flatmate|landlord|landlady|neighbou?r|doctor|dentist|therapist|vet|trainer|coach|teacher"
    "|tutor|lawyer|accountant|nanny|cat|dog|puppy|kitten|pet"
)
_KIN_ZH = (
    "老婆|老公|妻子|丈夫|太太|女儿|儿子|孩子|爸爸|妈妈|父亲|母亲|哥哥|姐姐|弟弟|妹妹|爷爷|奶奶|外公|外婆"
    "|男朋友|女朋友|对象|领导|老板|上司|经理|同事|室友|邻居|房东|医生|老师|教练|朋友|闺蜜|猫|狗"
)
# "Maya's new homeroom teacher is Mrs. Okafor", "the main contact is Raj Mehta": a role of
# someone's, just before "is Name".
_ROLE_BEFORE = re.compile(
    r"(?:\b(?:[Mm]y|[Oo]ur|[Hh]is|[Hh]er|[Tt]heir|[Tt]he)|[A-Z][a-z]+'s) (?:new |old |current"
    r" |regular |main |primary |usual |only )?(?:[a-z-]+ )?(?:[a-z]+ist|[a-z]+ian"
    r"|nurse|surgeon|principal|contact|point of contact|rep|representative|owner|lead"
    rf"|{_KIN}) $"
)
# "my new head baker, Priyanka Oduya": the speaker's someone, just before ", Name Surname".
_MINE_BEFORE = re.compile(r"\b(?:[Mm]y|[Oo]ur) (?:new |old )?(?:[a-z-]+ ){0,2}[a-z-]+$")


# Words said twice that are no one's name ("孩子天天哭"), and what a home has ("我家小区").
_NOT_A_NAME_ZH_TEXT = (
    "天天 常常 刚刚 慢慢 好好 偷偷 渐渐 每每 个个 人人 样样 处处 时时 往往 稍稍 悄悄 明明 仅仅 乖乖"
    " 看看 算算 想想 试试 等等 说说 聊聊 走走 逛逛 尝尝 玩玩 听听 问问 哭哭 闹闹"
    " 小区 楼下 附近 孩子 老人 宝宝 房子 冰箱 空调 电脑 网络 猫咪 狗狗 那边 这边 门口 老公 老婆"
    " 儿子 女儿 老大 老二 这边 这里 那里 楼上 隔壁 亲戚 阳台 厨房"
)
_NOT_A_NAME_ZH = frozenset(_NOT_A_NAME_ZH_TEXT.split())


def _a_name_zh(src: str, m: re.Match[str]) -> bool:
    found = m.group()
    return found[-2:] not in _NOT_A_NAME_ZH


# Top-level domains of a host named where a service lives: an internal one is one always, a
# public one when the sentence says so (see _host_like).
_INTERNAL_TLDS = ("internal", "local", "lan", "corp", "intra", "svc")
_PUBLIC_TLDS = ("io", "dev", "net", "com", "org", "cloud", "app", "sh")
_SERVICE_CONTEXT = re.compile(
    r"(?i:\b(?:url|urls|host|hostname|endpoint|server|db|database|api|base|point|points|pointed"
    r"|deploy|deployed|staging|stg|prod|production|qa|test|tests|env|environment|domain|dns|cname"
    r"|proxy|cluster|instance|e2e|redis|postgres|mysql|bucket)\b)"
    r"|域名|地址|环境|服务器|接口|实例|集群|部署|线上|测试")


def _host_like(src: str, m: re.Match[str]) -> bool:
    """An address with a port or an IP, an internal host, or a host of three labels and more
    ("stg.bluefin.io", not "www.example.com" nor "e.g.")."""
    found = m.group()
    if ":" in found or found[:1].isdigit():
        return _has_letter_or_dots(src, m)
    if found.endswith(tuple(f".{tld}" for tld in _INTERNAL_TLDS)):
        return True
    # A public host is a service's only where the sentence says so; reviewers link forums
    # ("bbs.gatewayfans.com") and a linked blog is nothing to keep. (``src`` is every text of
    # the fold joined by newlines: only this one's line counts.)
    start = src.rfind("\n", 0, m.start()) + 1
    end = src.find("\n", m.end())
    return _SERVICE_CONTEXT.search(src, start, len(src) if end < 0 else end) is not None


def _role_before(src: str, m: re.Match[str]) -> bool:
    return _ROLE_BEFORE.search(src, max(0, m.start() - 60), m.start()) is not None


def _mine_before(src: str, m: re.Match[str]) -> bool:
    return _MINE_BEFORE.search(src, max(0, m.start() - 50), m.start()) is not None


_MONTHS_AND_DAYS = (
    "january|february|march|april|may|june|july|august|september|october|november|december"
    "|monday|tuesday|wednesday|thursday|friday|saturday|sunday"
)
_RULE_NO_VERB = re.compile(
    r"(?:^|[,;—–] ?)(?:and |but |so |oh,? )?(?:always|never) (?:a|an|any|the|in|on|at|with|before"
    r"|after|under|over|more|less)\b|^[a-z][\w' -]{1,30}? only(?:,? always)?(?:[,.!;—–]|$)", re.M)


# How the speaker wants to be called: a name after "call me" (not "call me back"), or after
# "叫我" when it ends the ask ("叫我老陈就行"; "叫我去吧" asks something else).
_ZH_CALLED = rf"(?:[小老阿][\u4e00-\u9fff]|[{_SURNAMES}][\u4e00-\u9fff]{{0,2}}|[A-Z][a-z]+)"
_CALL_ME = re.compile(
    r"\b(?:[Cc]all me|[Ii] go by|(?:[Ee]veryone|[Pp]eople|[Ff]riends) calls? me) [A-Z][a-z]"
    rf"|叫我{_ZH_CALLED}(?:就行|就好|就可以|就成|吧|[。！!，,]|$)|别叫我{_ZH_CALLED}"
    r"|叫[小老阿][\u4e00-\u9fff](?:就行|就好|就可以|就成)")
_PATTERNS: list[tuple[int, re.Pattern[str], bool, _Check | None, str | tuple[str, ...]]] = [
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
            # "Rollback id: rb-55821", "model number LMX2-440", "PR 4471": named by its kind.
            r"(?:order|ticket|invoice|booking|reference|ref|case|tracking|confirmation|serial"
            r"|model|part|policy|claim|account|member|transaction|request|build|job|rollback)"
            r"(?: ?(?:no\.?|number|id|#))? ?[:：#]? ?[a-z0-9][a-z0-9-]{3,}"
        ),
        True,
        _has_digit_at_word_start,
        "",
    ),
    # "Rollback id: rb-55821", "promo code SPRING-24": an id named by its kind.
    (_ID, re.compile(
        r"\b[a-z]+ (?:id|code)(?: ?(?:no\.?|number|#))? ?[:：#]? ?[a-z0-9][a-z0-9-]{3,}"),
     True, _has_digit_at_word_start, (" id", " code")),
    (_ID, re.compile(r"v[0-9][0-9]*(?:\.[0-9]+)*(?![a-z0-9])"), True, _version, ""),
    # A named version: "Python 3.11", "Django 4.2", "iOS 17.4".
    (_ID, re.compile(
        r"(?<![A-Za-z0-9.])[A-Za-z][A-Za-z+#]*[A-Za-z+#] ?\d+\.\d+(?:\.\d+)?(?![\d.]*\d)"),
     False, _has_letter_after_capital, "."),
    # What the user now uses, said as a switch: "We switched the CI from Jenkins to GitHub
    # Actions", "数据库换成了PostgreSQL".
    (_FACT | _ATTR, re.compile(
        r"\b(?:[Ii]|[Ww]e) (?:just |recently |finally |have |'ve )?(?:switched|moved|migrated"
        r"|changed|upgraded|downgraded|ported|renamed|transferred)\b(?: [\w-]+){0,4}? to (?:the )?"
        r"[A-Z]|(?:换成|改用|迁移到|迁到|切换到|切到|升级到)了?\s?[A-Z]"), False, None, ""),
    # ("Ported my number over to US Mobile": the subject left out, as people type.)
    (_FACT | _ATTR, re.compile(
        r"(?<![^\n])(?:[Jj]ust |[Ff]inally )?(?:[Ss]witched|[Mm]oved|[Mm]igrated|[Cc]hanged"
        r"|[Uu]pgraded|[Dd]owngraded|[Pp]orted|[Rr]enamed|[Tt]ransferred)\b(?: [\w-]+){0,4}? to "
        r"(?:the )?[A-Z]"), False, None,
     ("witched", "oved", "igrated", "hanged", "pgraded", "owngraded", "orted", "enamed",
      "ransferred")),
    # A handle or a name renamed, in whatever case: "Renamed my account to fernwright".
    (_FACT | _ATTR, re.compile(
        r"(?:\b(?:[Ii]|[Ww]e) (?:just |finally |have |'ve )?|(?<![^\n])(?:[Jj]ust |[Ff]inally )?)"
        r"[Rr]enamed\b(?: [\w-]+){0,4}? to @?[\w.-]*[a-z][\w.-]*"), False, None, ("enamed",)),
    # Where the user lives or works now: "settled into the new place on Larchmont Avenue".
    (_FACT | _ATTR, re.compile(
        r"\b(?:the|our|my) new (?:place|apartment|flat|house|home|address|office|job|school"
        r"|clinic|studio) (?:is )?(?:on|at|in) [A-Z0-9]"), False, None, (" new ",)),
    # A plan switched to another: "Change of plans, we're doing Porto instead".
    (_FACT | _ATTR, re.compile(
        r"\b(?:we're|we are|i'm|i am|we'll|i'll) (?:doing|going with|going to|taking|getting"
        r"|picking|booking|using|flying) (?:the |a )?[A-Z][\w'-]*(?: [\w'-]+){0,3}? instead\b"),
     False, None, (" instead",)),
    # Who does it for the user now: "现在带我的是李佳琪", "现在是欧阳敏医生在看".
    (_FACT | _ATTR, re.compile(
        r"现在[^，。！？]{1,8}的是[\u4e00-\u9fff]{2,4}"
        rf"|现在(?:是|由|换成了?)[\u4e00-\u9fff]{{2,3}}(?:{ZH_TITLES})"),
     False, None, ("现在",)),
    # A value that holds now: "we're at C9 now", "the train's leaving at 6:48 now", "we're a
    # Subaru Outback family now". (Not "Mel, I'm off now": a name after a comma is whom it is
    # said to, and a capital opening the sentence is no value.)
    (_FACT | _ATTR, re.compile(
        r"(?:\d[\d,.:/]*\w*|(?<=[a-z] )(?!I\b|I')[A-Z][\w'-]+)(?: [\w'-]+){0,2} now\b"
        r"(?! (?:that|and then|and again|i|we|you|if|when|what|how|is|it|on)\b)"), False, None,
     (" now",)),
    # What the user's stack or setup is: "We're on Python 3.11", "我们用的是Django 4.2".
    (_FACT | _ATTR, re.compile(
        r"\b(?:[Ww]e're|[Ww]e are|I'm|I am) (?:on|running|using) [A-Z]"
        r"|我(?:们)?(?:现在|目前)?(?:用的是|在用|使用的是|跑在)\s?[A-Za-z]"), False, None, ""),
    (_ID, re.compile(r"#[0-9]{3,}"), False, None, "#"),
    # Where a service lives: "db-staging.internal:5432", "10.0.3.17", "pg-hydra-2.internal",
    # "stg.bluefin.io": as standing as a password said once. (A bare domain is not:
    # reviewers link their blogs.)
    (_ID | _FACT | _ATTR, re.compile(
        r"\b[a-z0-9-]+(?:\.[a-z0-9-]+)*:\d{2,5}\b|\b\d{1,3}(?:\.\d{1,3}){3}\b"),
     True, _host_like, ":."),
    # (Not inside a link: "http://bbs.gatewayfans.com/forum-79-1.html" is a page.)
    (_ID | _FACT | _ATTR, re.compile(
        rf"(?<![/@\w.-])[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:{'|'.join(_INTERNAL_TLDS)})\b"
        rf"|(?<![/@\w.-])[a-z][a-z0-9-]*(?:\.[a-z][a-z0-9-]*)+\.(?:{'|'.join(_PUBLIC_TLDS)})\b"
        r"(?![./-]\w)"),
     True, _host_like, tuple(f".{tld}" for tld in (*_INTERNAL_TLDS, *_PUBLIC_TLDS))),
    # A bare version, three parts: "pinning node to 20.11.1" (not a date: "2023.10.05").
    (_ID, re.compile(r"(?<![\d.])(?:0|[1-9]\d{0,2})\.\d{1,3}\.\d{1,4}(?![\d.]*\d)"), False, None,
     ""),
    # A date of someone's said once: "Priyanka's birthday is March 14th", "我妈生日是3月5号".
    (_FACT | _ATTR, re.compile(
        rf"\b(?:[A-Z][a-z]+|(?:[Mm]y|[Oo]ur) (?:{_KIN}))'s (?:birthday|anniversary|due date)\b"),
     False, None, ("birthday", "anniversary", "due date")),
    (_FACT | _ATTR, re.compile(
        r"(?:生日|纪念日|预产期)(?:是|在|定在)?\s?(?:\d{1,2}月|[一二三四五六七八九十]{1,2}月|\d{1,2}[/.-]\d)"),
     False, None, ("生日", "纪念日", "预产期")),
    # Someone by name, then whose: "Biscotti (my cat) knocked my coffee over".
    # (Or by what they are to the speaker: "Teodora (our rep over there) swears…".)
    (_NAME | _FACT | _ATTR, re.compile(
        rf"\b(?!{_CALENDAR_NAMES}\b)[A-Z][a-z]+ \((?:my|our) [a-z][a-z-]*(?: [a-z-]+){{0,3}}\)"),
     False, None, "("),
    # The speaker's work said in passing: "being a dental hygienist is fine until…", "As a
    # nurse, I…".
    (_FACT | _ATTR, re.compile(
        r"(?:(?<![^\n])|[.,;] )(?:being|as) an? (?:[a-z]+ )?(?:[a-z]+ist|[a-z]+ian|nurse|teacher"
        r"|engineer|developer|designer|doctor|lawyer|accountant|writer|chef|pilot|firefighter"
        r"|paramedic"
        r"|programmer|barista|bartender|carpenter|plumber|electrician|mechanic|realtor|agent)\b"),
     True, None, ("being ", "as a")),
    # A flight said with a space: "UA 2417", "CA 1587".
    (_ID, re.compile(r"(?<![A-Za-z])[A-Z]{2} \d{3,4}\b"), False, None, ""),
    # Whom the speaker reports to: "I report to Tomasz Wierzbicki now".
    (_FACT | _ATTR | _NAME, re.compile(
        r"\b(?:[Ii]|[Ww]e) (?:now )?reports? (?:directly )?to [A-Z]"), False, None, ("report",)),
    # A phone number written in groups: "555-0142", "+44 20 7946 0958", "138-1234-5678".
    (_ID, _PHONE, False, _seven_digits, ""),
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
    (_NAME, re.compile(rf"叫[{_SURNAMES}][\u4e00-\u9fff]"), False, None, "叫"),
    # "王老师", "张先生": a title after a surname names someone; "你是一个坏老师" does not.
    # (A given name may come between: "李淑芬主任"; "周末的老师" names nobody.)
    (_NAME, re.compile(rf"[{_SURNAMES}][^\W\d_a-zA-Z的了是在和有我你他她们]{{0,2}}?"
                       r"(?:先生|女士|小姐|老师|经理|总监|医生|教授|律师|主任|院长|大夫|总)"),
     False, None, ""),
    # Someone by their role to the speaker and their name, as "our accountant Priya" is:
    # "乐乐班主任刘老师", "我们房东王先生", "对接人是张经理".
    (_NAME | _FACT | _ATTR, re.compile(
        rf"(?:班主任|房东|老板|领导|导师|教练|律师|会计|对接人|负责人|主治医生|家庭医生|代理)"
        rf"(?:是|叫)?[{_SURNAMES}](?:老师|先生|女士|小姐|总|经理|医生|大夫|教授|律师|师傅|姐|哥)"),
     False, None, ""),
    (_NAME, re.compile(r"(?:I'm|I am|This is|this is) [A-Z][a-z]"), False, None, ""),
    # Someone by title: "Dr. Okonkwo-Reyes takes points off", "Professor Lindqvist".
    (_NAME, re.compile(
        r"\b(?:Dr|Prof|Professor|Mr|Mrs|Ms|Pastor|Coach|Judge|Officer)\.? [A-Z][a-z]"),
     False, None, ("Dr", "Prof", "Mr", "Ms", "Pastor", "Coach", "Judge", "Officer")),
    # A secret or an account said once: "the wifi password at the cabin is pinecone88".
    (_ID | _FACT | _ATTR, re.compile(
        r"(?:password|passcode|passphrase|pin|wi-?fi|username|user name|login"
        r"|[a-z]+ code)\b[^.!?\n]{0,30}?(?:\bis|:)\s*[^\s.,!?]{3,}"),
     True, None, ("pass", "pin", "wifi", "wi-fi", "user", "login", "code")),
    (_ID | _FACT | _ATTR, re.compile(
        r"(?:密码|账号|用户名|门禁码|门禁密码|取件码|工号|学号|会员号|UID|ID|编号|卡号|车牌号?)"
        r"(?:是|为|：|:)\s*[A-Za-z0-9]"),
     False, None, ("码", "号", "名", "ID", "牌")),
    (_NAME, re.compile(r"\bnamed [A-Z][a-z]"), False, None, ("named ",)),
    # The name of someone just spoken of: "Her name's Rosalind and she's 91".
    (_NAME | _FACT | _ATTR, re.compile(r"\b(?i:his|her|their) name(?:'s| is) [A-Z][a-z]"), False,
     None, (" name",)),
    # How the speaker wants to be called: "Just call me Chen", "I go by Sam", "叫我老陈就行".
    (_NAME | _FACT | _ATTR, _CALL_ME, False, None, ("call", "Call", "go by", "叫")),
    # What a thing is called: "The repo is called billing-core", "我们的项目名叫星火".
    (_NAME | _FACT | _ATTR, re.compile(
        r"\b(?:is|are|'s) (?:called|named) (?!after\b|for\b|by\b|out\b|off\b|in\b|on\b"
        r"|to\b|up\b|that\b|it\b)[\w\"'“]"), True, None, (" called ", " named ")),
    # A budget or a head count said as what it is: "这次旅行总预算是3万元", "人数定为12人".
    (_FACT | _ATTR, re.compile(
        r"(?:预算|人数)(?:[^，。！？\n]{0,4}?定的)?(?:是|为|定为|定在|控制在|大概是|不超过|有)"
        r"[^，。！？\n]{0,3}?[0-9一二两三四五六七八九十百千万]"),
     False, None, ("预算", "人数")),
    (_NAME | _FACT, re.compile(r"(?:名叫|名字叫|叫做|名为|名字是)[A-Za-z0-9\u4e00-\u9fff]"),
     False, None, ("名", "叫做")),
    # A Chinese place by its kind: "静安寺", "南京西路", "如家酒店", "浦东机场", "武汉大学",
    # "搬到了漕河泾开发区".
    (_NAME, re.compile(
        r"(?:在|到|去|住|离|于|从|近|订|回|来|叫)了?[\u4e00-\u9fff]{2,4}?(?:路|街|寺|酒店|宾馆|饭店"
        r"|公园|大学|医院|机场|广场|大厦|火车站|高铁站|餐厅|商场|小区|景区|开发区|新区|园区|科技园"
        r"|写字楼)"), False, None, ""),
    # A street address: "500 Howard Street", "22 Oak St".
    (_NAME | _FACT | _ATTR, re.compile(
        r"\b\d{1,5} [A-Z][a-z]+(?: [A-Z][a-z]+)? (?:Street|St|Avenue|Ave|Road|Rd|Boulevard"
        r"|Blvd|Lane|Ln|Drive|Dr|Way|Place|Pl|Court|Ct|Square|Sq)\b"), False, None, ""),
    # What the speaker does for a living, and where: "I'm a pediatric nurse at Mercy Hospital".
    (_FACT | _ATTR, re.compile(
        r"\b[Ii](?:'m| am) an? (?!(?:bit|little|lot|big|huge|fan|mess|wreck|part|member)\b)"
        r"[a-z-]+(?: [a-z-]+)? (?:at|for|with) (?:the )?[A-Z]"), False, None, ("I'm a", "I am a")),
    # A goal with what it takes: "We're saving for a house, aiming for $60,000", "目标攒够60万".
    (_FACT | _ATTR, re.compile(
        r"\b(?:saving (?:up )?for|aiming (?:for|to)|(?:my|our|the) goal is)\b"), True, None,
     ("saving", "aiming", "goal")),
    (_FACT | _ATTR, re.compile(r"目标是?|攒钱|存钱"), False, None, "目攒存"),
    # What is coming, with when: true until it happens ("My sister Priya is getting married in
    # Goa in December"); and an age just reached ("Leo just turned 7").
    (_FACT | _ATTR, re.compile(
        r"\b(?:is|are|am|'m|'re) (?:getting married|moving|flying|starting|graduating|retiring"
        r"|visiting|coming"
        r"|due|giving birth|having a baby|having surgery)\b[^.!?\n]{0,40}?\b(?:in|on|next|this|by)"
        rf" (?:\d|{_MONTHS_AND_DAYS}|spring|summer|fall|autumn|winter|week|month|year)"),
     True, None, ("getting married", "moving", "flying", "starting", "graduating", "retiring",
                  "due", "giving birth", "having", "visiting", "coming")),
    # What comes back on a schedule, whoever does it: "Our nanny Rosa comes Mondays and
    # Wednesdays", "Mochi needs her pills twice a day".
    (_FACT | _ATTR, re.compile(
        r"\b(?:on )?(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekends)\b"
        r"|\b(?:once|twice|three times|[0-9] times) (?:a|per|every) (?:day|week|month|year)\b"),
     True, None, ("days", "weekends", "once", "twice", "times")),
    # Where someone has moved: "My best friend Jess just moved to Denver", "小静刚搬到成都".
    (_FACT | _ATTR, re.compile(r"\bmoved to [A-Z][a-z]"), False, None, ("moved to",)),
    (_FACT | _ATTR, re.compile(r"搬到了?[\u4e00-\u9fff]{2}"), False, None, "搬"),
    # Who someone in the speaker's life is, by name: "My manager, Dana Whitfield, is strict",
    # "our neighbor Tom", "我女儿叫小雨", "我的领导王建华".
    (_NAME | _FACT | _ATTR, re.compile(
        rf"\b(?:[Mm]y|[Oo]ur) (?:best |older |younger |little |big |new |old )?(?:{_KIN})"
        r"(?:'s name is|,)? [A-Z][a-z]"), False, None, ""),
    (_NAME | _FACT | _ATTR, re.compile(
        rf"我(?:的|们的|家|们家)?(?:{_KIN_ZH})(?:叫|名叫|名字叫)(?![我你他她它])[\u4e00-\u9fff]{{2}}"
        rf"|我的(?:{_KIN_ZH})[{_SURNAMES}][\u4e00-\u9fff]"), False, None, "我"),
    # Who does what for the user: "Maria is the on-call engineer this week", "对接人是王磊".
    (_NAME | _FACT | _ATTR, re.compile(
        r"\b[A-Z][a-z]+ is (?:the|our|my) (?:new )?(?:[a-z-]+ )?(?:engineer|manager|lead|owner"
        r"|contact|admin|designer|developer|reviewer|approver|pm|ceo|cto|founder|boss|landlord"
        r"|doctor|dentist|lawyer|accountant|agent|coach|teacher|tutor|nanny|assistant|roommate"
        r"|on-call)\b"
        r"|(?:负责人|联系人|对接人|值班的?人?|on-call的?人?)(?:是|为)"), False, None, ""),
    # Whose surname it is: "我们房东姓哈", "孩子的老师姓王".
    (_NAME | _FACT | _ATTR, re.compile(
        r"(?:房东|老师|医生|经理|领导|老板|同事|邻居|阿姨|师傅|律师|教练|主任)姓[\u4e00-\u9fff]"),
     False, None, "姓"),
    # What is coming or who comes, with when: "我妹妹12月要在大理办婚礼", "我公婆7月从马尼拉过来".
    (_FACT | _ATTR, re.compile(
        r"(?:\d{1,2}月|下个?月|明年|下周|月底|年底)(?:[^，。！？\n]{0,6}?要(?!不要)[\u4e00-\u9fff]"
        r"|[^，。！？\n]{0,8}?(?:过来|回来|来看|来访|要来|会来))"), False, None, "要来"),
    (_FACT | _ATTR, re.compile(r"\bturned \d{1,3}\b|\b\d{1,3} years old\b"), True, None,
     ("turned", "years old")),
    # The speaker's own measure ("I weigh 82 kg", "I'm 5'10\"", "我现在体重82公斤") and a head
    # count ("We have 12 people coming", "一共来12个人"): values that get updated, kept until then.
    # Said in passing too: "I'm 41, sitting at around 92 kg", "weighed in at 88.5",
    # "：32岁，", "称了一下，58.8".
    (_FACT | _ATTR, re.compile(
        r"\b(?:i|we) (?:weigh|measure|am|'m|stand) (?:about |around |now |currently |only )?"
        r"\d+(?:\.\d+)? ?(?:kg|kgs|kilos?|lbs?|pounds|cm|ft|feet|stone)\b"
        r"|\b\d+ (?:people|guests|adults|kids|children|persons|attendees) (?:are )?(?:coming"
        r"|attending|joining|confirmed|invited|signed up)\b"
        r"|\b\d{2,3}(?:\.\d)? ?(?:kg|kgs|kilos|lbs|pounds)\b|\bi'm \d{2}\b(?! ?(?:%|percent|minutes"
        r"|mins|hours|seconds))|\bweighed in\b[^.!?\n]{0,30}?\d"), True, None,
     (" weigh", " measure", " am ", "'m ", " stand", "people", "guests", "adults", "kids",
      "children", "persons", "attendees", "kg", "kilo", "lb", "pound", "i'm ", "weighed")),
    # (Only the speaker's own age: reviews name the ages of whom a toy is for.)
    (_FACT | _ATTR, re.compile(
        r"(?:体重|身高|血压|血糖|腰围)[^，。！？\n]{0,4}?\d"
        r"|(?:一共|总共|总共有|一共有)(?:来|有|要来|会来)?\d+(?:个|位|名)?(?:人|客人|宾客)?"
        r"|(?:(?<![^\n])|[：:])\s*\d{2}岁[，,]|称了一?下[，,]?\s?\d{2}"),
     False, None, ("体重", "身高", "血压", "血糖", "腰围", "一共", "总共", "岁", "称")),
    (_FACT | _ATTR, re.compile(r"(?:刚满|今年|已经)[\d一二两三四五六七八九十]+岁"), False, None,
     "岁"),
    # A value said to have changed to a new one: "I can stretch the budget to $1,500", "the
    # wedding got pushed to October": the value that now holds. (Chinese reviews say "降到99元"
    # of prices all the time; a Chinese change keeps its worth by what it names.)
    (_FACT | _ATTR, re.compile(
        r"\b(?:raised|lowered|increased|reduced|bumped|pushed|moved|changed|switched|stretch"
        r"|stretched|boost|boosted|upped|postponed|rescheduled|delayed|extended|down|up|back"
        r")\b(?: [\w']+){0,6}?"
        rf" (?:to|until) (?:[$€£¥]?\d|(?:{_MONTHS_AND_DAYS})\b)"
        # "Actually make that 15 people": a value given anew.
        r"|\bmake (?:it|that) [$€£¥]?\d"),
     True, None, (" to ", " until ", "make ")),
    # "No bites in two weeks so I dropped it to $395", "Vet says cut him to 1.25 cups"; "with the
    # coupon it comes to $960"; "my PI said to spin at 4,200 rpm". (Each on its own guard: " to "
    # is in most English texts.)
    (_FACT | _ATTR, re.compile(
        r"\b(?:dropped|cut|slashed|trimmed|bumping|raising|lowering|dropping|cutting)\b"
        r"(?: [\w']+){0,6}? to [$€£¥]?\d"), True, None,
     ("dropped", "cut ", "slashed", "trimmed", "bumping", "raising", "lowering", "dropping",
      "cutting")),
    (_FACT | _ATTR, re.compile(r"\b(?:comes|came) (?:out )?to [$€£¥]\d"), True, None,
     ("comes to", "came to", "came out to")),
    (_FACT | _ATTR, re.compile(
        r"\b(?:said|says|told (?:me|us)) to [a-z]+(?: [\w']+){0,3}? (?:at|to) [$€£¥]?\d"),
     True, None, ("said to", "says to", "told me to", "told us to")),
    # Asked of the agent: "bump the pydantic pin to 2.7.4", "raise the memory limit to 2Gi".
    (_FACT | _ATTR, re.compile(
        r"^(?:(?:ok|okay|so|also|and|then|please),? )?(?:bump|raise|lower|pin|upgrade"
        r"|downgrade|increase|decrease|reduce) (?:the |our |my |it )"
        r"(?:[\w.-]+ ){0,3}?to [$€£¥]?v?\d", re.M), True, None,
     ("bump", "pin ", "upgrade", "downgrade", "raise the", "raise our", "raise my", "raise it",
      "lower the", "increase the", "decrease the", "reduce the")),
    # What is scheduled, with its date: "The deploy freeze starts December 20", "发布冻结期从
    # 12月20号开始".
    (_FACT | _ATTR, re.compile(
        r"\b(?:the|our|my) [a-z]+(?: [a-z]+)? (?:starts|begins|ends|is due|closes|opens"
        rf"|launches|goes live)(?: on)? (?:{_MONTHS_AND_DAYS}) \d"), True, None,
     ("starts", "begins", "ends", "due", "closes", "opens", "launches", "goes live")),
    (_FACT | _ATTR, re.compile(r"\d{1,2}月\d{1,2}[日号](?:开始|截止|结束|上线|发布|生效)"),
     False, None, "月"),
    # What the speaker earns: "My salary is $95k", "Got a raise, I'm at $105k now", "月薪两万".
    (_FACT | _ATTR, re.compile(
        r"\b(?:salary|income|paycheck|raise|pay rise|wages?)\b[^.!?\n]{0,30}?[$€£¥]?\d"),
     True, None, ("salary", "income", "paycheck", "raise", "pay rise", "wage")),
    (_FACT | _ATTR, re.compile(
        rf"(?:工资|月薪|年薪|薪水|收入)[^，。！？\n]{{0,6}}?[\d{ZH_NUMERALS}]"),
     False, None, ("工资", "薪", "收入")),
    # A count or a measure reached ("变成15个人了", "瘦到78公斤", "今天称了一下，78公斤了"): not a
    # price, which Chinese reviews lower and raise all the time.
    (_FACT | _ATTR, re.compile(
        r"(?:变成|改成|改为|改到|涨到|降到|瘦到|胖到|减到|加到|增加到|提高到|升到|长到)\d+(?:\.\d+)?"
        r"(?:个|位|名)?(?:人|公斤|斤|岁|米|厘米|公里|小时|分钟|本|只|套)"
        r"|\d+(?:\.\d+)?(?:公斤|斤|厘米)了"), False, None, "到成为了"),
    # What the speaker's body or faith rules out: "I can't eat shellfish", "we don't drink".
    (_ATTR | _FACT, re.compile(
        r"\b(?:i|we) (?:can't|cannot|can not|don't|do not|never) (?:eat|drink)\b"), True, None,
     (" eat", " drink")),
    # Where the speaker's workplace is: "我们公司搬到了漕河泾", "我单位在陆家嘴".
    (_ATTR | _FACT, re.compile(r"(?:公司|单位|办公室)(?:搬到|搬去|在)"), False, None, "公单办"),
    # A value put right: "correction…: I meant cone 04, not 06", "打错了，是3月18号": the
    # speaker took the trouble, and what they meant is what holds.
    (_FACT | _ATTR, re.compile(
        r"\b(?i:i meant|correction|typo|mistyped|misspoke|i transposed)\b"
        r"[^.!?\n]{0,40}?(?:\d|\b[A-Z][a-z])"), False, None,
     ("meant", "orrection", "typo", "mistyp", "misspo", "transpos")),
    (_FACT | _ATTR, re.compile(
        r"(?:打错|说错|写错|记错|搞错|更正|纠正)[^。！？\n]{0,24}?(?:[\dA-Za-z]|[是为叫][\u4e00-\u9fff])"),
     False, None, ("打错", "说错", "写错", "记错", "搞错", "更正", "纠正")),
    # A time, a day or a place moved to: "航班推迟到16:35起飞了", "周六聚餐改在外婆家了" (not a
    # price: Chinese reviews lower and raise those all the time).
    (_FACT | _ATTR, re.compile(
        r"(?:推迟|延期|延迟|改|提前|挪|延|推)(?:到|在|成)了?\s*(?=\d|周[一二三四五六日天]|星期"
        r"|礼拜|下周|明天|后天|今晚|明晚|[上下]午|晚上|早上)"
        r"|改在[\u4e00-\u9fff]{2,8}?了"), False, None, ("到", "在", "成")),
    # A rule from now on: "团长说从这周起每周两次"; a child's school and year: "我闺女在实验二小
    # 上三年级".
    (_FACT | _ATTR, re.compile(
        r"从(?:这|下|本)?(?:周|个月|月|学期|次)(?:起|开始)"
        r"|我(?:家)?(?:闺女|女儿|儿子|孩子|老大|老二)[^，。！？]{0,4}?在[\u4e00-\u9fff]{2,10}?"
        r"(?:上|读)[一二三四五六初高大]"), False, None, ("从", "在")),
    # What the speaker drives or uses: "我开的是2019款卡罗拉双擎", "我现在用的是小米13".
    (_ATTR | _FACT, re.compile(r"我(?:现在|平时|家)?(?:开|骑)的(?:车)?是"
                               r"|我(?:现在|平时)?用的是(?=[^，。！？]{0,6}[A-Za-z0-9])"),
     False, None, "的"),
    # What has gone on for years ("I've been learning Japanese for 3 years", "学日语已经三年了")
    # and what the speaker keeps and named ("We have a golden retriever named Biscuit"): as
    # standing as "my X is Y".
    (_FACT | _ATTR, re.compile(
        r"\b(?:i|we)(?:'ve| have) been [a-z]+ing\b[^.!?\n]{0,40}?\bfor (?:\d+|a|an|one|two"
        r"|three|four|five|six|seven|eight|nine|ten|several|many|a few|over \w+) (?:years?"
        r"|months?|decades?)\b"), True, None, ("been ",)),
    (_ATTR, re.compile(
        r"\b(?:I|[Ww]e) (?:have|own|adopted) (?:a|an|two|three|four)\b[^.!?\n]{0,30}?"
        r"\b(?:named|called) [A-Z]"), False, None, (" named ", " called ")),
    # A habit, said with how often: "I run 5 km every morning", "我每天早上跑5公里".
    (_FACT | _ATTR, re.compile(
        r"\b(?:i|we) (?!(?:would|could|should|might|may|wish|hope|want|wanted|love|like|need"
        r"|can't|cannot)\b)[^.!?,\n]{0,40}?\b(?:every (?:day|morning|night|evening|week|weekend"
        r"|month)|each (?:day|week|month)|daily|weekly|on (?:mondays|tuesdays|wednesdays"
        r"|thursdays|fridays|saturdays|sundays|weekends))\b"), True, None,
     ("every ", "each ", "daily", "weekly", "days", "ends")),
    (_FACT | _ATTR, re.compile(
        r"我(?:们)?[^，。！？\n]{0,6}?(?:每天|每周|每晚|每个月|每月|平时|通常)"),
     False, None, "每平通"),
    # A pet's or a child's name: "我们家有一只金毛，叫饼干".
    (_NAME | _ATTR, re.compile(
        r"(?:一只|一条|一匹|一个|养了只|养了条|养了一只|养了一条|养的(?:那|这)?[只条])"
        r"[\u4e00-\u9fff]{1,4}[，,]?\s*(?:名字)?叫"
        # What the speaker's place is called: "我们小区叫阳光花园", "我们公司叫云桥科技".
        r"|我们?(?:家)?(?:小区|公司|学校|部门|团队|单位|医院|幼儿园)(?:名字)?叫"
        # "我家狗狗叫旺财", "我们家猫的名字叫团子".
        r"|我们?家(?:的)?(?:猫|狗|狗狗|猫咪|小猫|小狗)(?:的名字)?叫"),
     False, None, "叫"),
    # A condition of the speaker's body or diet: as standing as "my X is Y".
    (_ATTR | _FACT, re.compile(
        r"\b(?:i'm|i am|i've|i have|i've got|i got)\s+(?:been\s+)?(?:a\s+)?(?:lactose|gluten"
        # ("since I'm allergic" names nothing: what to is the fact.)
        r"|celiac|diabetic|diabetes|asthma|asthmatic|epilep|pregnant|allergic(?= to\b)|allergies"
        r"|vegetarian|vegan|pescatarian|colou?r-?blind|deaf|hard of hearing|type [12]"
        # a blood type: "I'm O-negative", "I'm AB+"
        r"|(?:ab|a|b|o)(?:[ -](?:negative|positive|neg|pos)\b|[+-](?![\w-])))"
        # What is refused, then why: "Nothing with cashews please, I'm allergic".
        r"|\b(?:no|nothing with|without|hold the|skip the)\s+[a-z][\w -]{0,30}?(?:,|;|\s[-–—])\s*"
        r"(?:please[,;]?\s*)?(?:i'm|i am)\s+(?:very\s+|super\s+|deathly\s+)?allergic\b"),
     True, None, ("lactose", "gluten", "celiac", "diabet", "asthma", "epilep", "pregnan",
                  "allerg", "vegetarian", "vegan", "pescatarian", "blind", "deaf", "type ",
                  "negative", "positive", " neg", " pos")),
    # (Every branch opens with 我: one literal the scan looks for.)
    (_ATTR | _FACT, re.compile(
        r"我(?:(?:有|是|对)?.{0,4}?(?:不耐受|过敏|糖尿病|哮喘|高血压|怀孕|色盲|素食)"
        r"|(?:是|的血型是)(?:(?:AB|A|B|O|ab|a|b|o)型|(?:RH|Rh|rh)阴性|熊猫血)"
        # Where the speaker is from: "我是湖南人".
        r"|是(?![个一好坏新老大小男女外病穷富懒真])[\u4e00-\u9fff]{2,3}人"
        # A child called by a doubled name, as Chinese parents do: "我女儿朵朵下个月上幼儿园".
        rf"|家?{ZH_CHILD_NAMED})"),
     False, None, ""),
    # Where the speaker is from: "过年回湖南常德老家", "我老家郴州的".
    (_ATTR | _FACT, re.compile(
        r"(?:回|在)[\u4e00-\u9fff]{2,6}老家|我?老家(?:是|在)[\u4e00-\u9fff]{2,4}|我老家"
        r"[\u4e00-\u9fff]{2,4}|家乡(?:是|在)"), False, None, ("老家", "家乡")),
    # Someone else's condition: "Leo is allergic to penicillin", "her sesame allergy is on
    # file", "孩子对芒果过敏": what nobody around them may get wrong. ("Allergies can be tough.")
    (_ATTR | _FACT, re.compile(
        r"\b(?:he's|she's|they're|is|are|has|have|his|her|their|[a-z]+'s)\s+(?:[a-z-]+\s+){0,2}?"
        r"(?:allerg(?:y|ies|ic)|intoleran(?:t|ce)|diabetic|celiac|coeliac|asthma|epilep|pregnant)"),
     True, None, ("allerg", "intoleran", "diabet", "celiac", "coeliac", "asthma", "epilep",
                  "pregnan")),
    (_ATTR | _FACT, re.compile(
        r"对[^，。！？,\s]{1,8}过敏|(?:患有|得了|有)(?:糖尿病|哮喘|高血压|癫痫)"),
     False, None, ("过敏", "糖尿病", "哮喘", "高血压", "癫痫")),
    # An injury or an operation: "I tore the meniscus in my left knee", "肩袖做过一个小手术".
    (_ATTR | _FACT, re.compile(
        r"\b(?:i|i've|i have|he|she|they)\s+(?:\w+\s+)?(?:tore|torn|sprained|broke|broken"
        r"|fractured|dislocated|injured|pulled|strained|had (?:a |an )?(?:\w+ )?(?:surgery"
        r"|operation|replacement))\b"), True, None,
     ("tore", "torn", "sprain", "broke", "fractur", "dislocat", "injur", "pulled", "strained",
      "surgery", "operation", "replacement")),
    (_ATTR | _FACT, re.compile(
        r"(?:做过|做了|动过)[^，。！？]{0,6}手术|骨折|扭伤|拉伤|撕裂|韧带|半月板"),
     False, None, ("手术", "骨折", "扭伤", "拉伤", "撕裂", "韧带", "半月板")),
    # A goal, however it is put: "Main goal is a sub-50 10K by October".
    (_FACT | _ATTR, re.compile(
        r"\b(?:main |big |primary |only |real |the )?(?:goal|target|aim) (?:is|for)\b"),
     True, None, ("goal", "target", "aim")),
    # Someone new, by role and name: "新来的学徒叫邝志豪", "财务部新来了个实习生叫温子谦".
    (_NAME | _FACT | _ATTR, re.compile(
        r"(?:学徒|实习生|同事|助理|员工|老师|医生|师傅|经理|主管|新人|店员|客户|房东|新来的"
        r"[\u4e00-\u9fff]{0,4})(?:叫|名叫|叫做)(?:[\u4e00-\u9fff]{2,3}(?=[，。！？,.\s（(]|$)"
        r"|[A-Z][a-z]+)"),
     False, None, "叫"),
    # Someone of the speaker's by a pet name or a full name: "我儿子乐乐7岁", "女儿朵朵",
    # "给老公陈浩写个生日祝福", "我家豆包最近掉毛" (not "孩子天天哭", "我家小区最近").
    (_NAME | _FACT | _ATTR, re.compile(
        r"(?:儿子|女儿|闺女|孩子|宝宝|老大|老二|小猫|小狗|猫咪|狗狗|我家)([\u4e00-\u9fff])\1"
        rf"|(?:老公|老婆|丈夫|妻子|男朋友|女朋友|对象|儿子|女儿|同事|领导|老板|室友)[{_SURNAMES}]"
        r"[\u4e00-\u9fff]{1,2}(?=[，。！？,.\s的]|$|\d|今年|说|生日|最近)"
        r"|我家[\u4e00-\u9fff]{2}(?=最近|今天|昨天|又|总是|老是|这两天|一直|天天|突然|刚|特别)"),
     False, _a_name_zh, "儿女孩宝老猫狗家公婆夫妻朋对同领室"),
    # An amount in Chinese numerals: "预算再加两千，一共一万二", "房租涨到四千五了".
    (_MONEY | _FACT | _ATTR, re.compile(
        r"(?:预算|一共|总共|总计|合计|房租|月供|工资|月薪|涨到|降到|加到|减到|砍到|压到|控制在)"
        r"[^，。！？]{0,3}?"
        r"[一二两三四五六七八九十]+[万千](?:[一二两三四五六七八九])?"), False, None, "万千"),
    # What the speaker asks to be remembered, said after it: "周五晚上七点半的电影票，帮我记一下".
    (_FACT | _ATTR, re.compile(
        r"[，,]\s*(?:你)?(?:帮我|给我)?(?:记一下|记住|记着|记下来?)(?:哈|啊|吧)?[。！!]?(?=\n|$)"),
     False, None, "记"),
    # An appointment made, the speaker unsaid: "明天下午三点约了牙医", "挂了周三的专家号".
    (_FACT, re.compile(r"(?:约了|预约了|挂了|报了)[\u4e00-\u9fff]{1,6}"), False, None,
     "约挂报"),
    # Whom the speaker reports to: "我现在汇报给陈嘉禾".
    (_FACT | _ATTR | _NAME, re.compile(
        rf"汇报给[{_SURNAMES}][\u4e00-\u9fff]{{1,2}}|(?:直属)?(?:领导|老板|上级|老大)(?:换成|变成|是)了?"
        rf"[{_SURNAMES}]"), False, None, "汇领老上"),
    # A lowercase id with a hyphen and a digit: "r-bp1x9k2", "rb-55821", "redis-sh-03".
    (_ID, re.compile(r"(?<![\w.-])[a-z][a-z0-9]*-[a-z0-9-]*\d[a-z0-9-]*(?![\w.-])"), False, None,
     ""),
    # The speaker's own "X是Y" without "的": "我血型是O型", "我生日是3月5号", "我工号是…"
    # (not "我觉得是", "我就是", "我还是").
    (_FACT | _ATTR, re.compile(
        # (Not what the speaker did: "我住的是2702房", "我订的是行政房" tell of a stay.)
        r"我(?:的)?(?![就也还只不都真又觉想看猜估感以可要会能在说应没很挺太最比特非])(?:(?!的)[\u4e00-\u9fff]){2,4}?"
        r"是(?![不没])"), False, None, "是"),
    # The speaker's thing by a demonstrative or a place: "我们那台电窑是HT-12", "我们店的电窑是…"
    # (not "我们这个就是…").
    (_FACT | _ATTR, re.compile(
        r"我(?:们)?(?:家|店|公司|工作室|单位|学校)?(?:的|(?:那|这)[台个辆只条家位套部])"
        r"(?:(?![就也还只不都真又觉想看猜要会能在说])[\u4e00-\u9fff]){1,6}?是(?![不没])"),
     False, None, "是"),
    # Where the speaker works or studies: "我在字节上班", "我现在在浙大读研".
    (_FACT | _ATTR, re.compile(
        r"我(?:现在|目前|之前)?在[\u4e00-\u9fffA-Za-z]{2,10}?(?:上班|工作|实习|读书|上学|读研|读博"
        r"|念书)"), False, None, "班作习书学研博"),
    # A street address: "博云路2号", "文一西路588号".
    (_ID | _FACT, re.compile(r"[\u4e00-\u9fff]{1,6}(?:路|街|大道|巷|弄)\d{1,5}号"), False, None,
     "路街道巷弄"),
    # The speaker's work: "当麻醉师真的是体力活", "我是一名护士", "我是做前端的".
    (_FACT | _ATTR, re.compile(
        r"(?:(?<![^\n])|[，,。]|我)(?:是|当了?|做|干)(?:一名|一个|个)?[\u4e00-\u9fff]{0,3}?"
        r"(?:师|医生|护士|会计|程序员|销售|警察|司机|公务员|编辑|记者|主播|快递员|外卖员)(?![傅父])"
        r"|我是做[\u4e00-\u9fffA-Za-z]{1,6}的"),
     False, None, "是当做干"),
    # Someone by role, then their name: "my new head baker, Priyanka Oduya, starts on the 14th".
    (_NAME | _FACT | _ATTR, re.compile(r", [A-Z][a-z]+ [A-Z][a-z]+"), False, _mine_before, ""),
    # A dose taken: "Dr. Feldman is keeping him on the amlodipine, 5 mg in the mornings".
    (_ATTR | _FACT, re.compile(
        r"\b\d+(?:\.\d+)? ?(?:mg|mcg|µg|ml|iu)\b|\d+(?:\.\d+)?(?:毫克|毫升)"),
     True, None, ("mg", "mcg", "µg", "ml", "iu", "毫")),
    # Who someone's person is, by name: "Maya's new homeroom teacher is Mrs. Okafor", "the
    # main contact is Raj Mehta", "his cardiologist is Dr. Shah".
    # (Found by its "is Name", then the role before it: a literal start scans fast.)
    (_NAME | _FACT | _ATTR, re.compile(r"is (?:(?:Mr|Mrs|Ms|Miss|Dr|Prof)\.? )?[A-Z][a-z]"),
     False, _role_before, ""),
    # When something lapses or renews: "contract renews Sept 30", "it expires in April".
    (_FACT | _ATTR, re.compile(
        r"\b(?:renews?|expires?|lapses?|runs out|is up)(?: on| in| by)? (?:"
        rf"(?:{_MONTHS_AND_DAYS})\b|(?:jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.? ?\d)"
        r"|(?:到期|续约|续费)(?:日|时间)?(?:是|在)?\s?\d{1,2}月"), True, None,
     ("renew", "expire", "lapse", "runs out", "is up", "到期", "续约", "续费")),
    # What is paid or put aside on a schedule: "$600 a month into the 529", "每个月还 6800".
    (_FACT | _ATTR, re.compile(
        r"[$€£¥] ?\d[\d,]*(?:\.\d+)?k? (?:a|per|each|every) (?:month|week|year|quarter)\b"
        r"|(?:每个?月|每年|月供|年费|月租|房租|月费)(?:要|还|交|付|扣|存|是)?\s?\d"), False, None,
     ("$", "€", "£", "¥", "每", "月供", "年费", "月租", "房租", "月费")),
    # A rule of the speaker's said without a verb: "Aisle seats only, always", "and never a
    # layover under an hour", "靠窗的一律不要".
    (_PREF, _RULE_NO_VERB, True, None, ("only", "always", "never")),
    # What a thing's setting is, with its value: "华东仓的发货截单时间是每天下午 4 点",
    # "房贷的利率是4.1%". (Reviews' prices say "价格": one-off, not a setting.)
    (_FACT | _ATTR, re.compile(
        r"[\u4e00-\u9fff）)]{2,10}的[\u4e00-\u9fff]{0,4}(?:时间|日期|地址|电话|利率|额度|密码|编号|账号"
        r"|期限|上限|下限|标准|规定|门槛|截止|周期|频率)(?:是|为|在|改为|改成)[^，。！？\n]{0,8}?"
        r"[\d一二两三四五六七八九十]"), False, None, "的"),
    # Where the speaker lives, by building and unit: "住枫林苑7栋1402", "3号楼2单元501".
    (_FACT | _ATTR, re.compile(r"\d+(?:栋|幢|号楼|座)\d*(?:单元)?\d{2,4}|\d+单元\d{3,4}"),
     False, None, ("栋", "幢", "号楼", "座", "单元")),
    # Who does what, by role: "司仪请的是单志杰", "现在负责我们楼的是邵一帆".
    (_NAME | _FACT | _ATTR, re.compile(
        r"(?:司仪|主持人|摄影师|化妆师|伴娘|伴郎|管家|辅导员|导师|班主任|教练|律师|会计|中介|房东)"
        r"(?:请的是|找的是|换成了?|是|叫|姓)[^，。！？]{0,6}?[\u4e00-\u9fff]{2,3}"
        r"(?=[，。！？,.\s]|$)"
        r"|负责[^，。！？]{0,6}的是[\u4e00-\u9fff]{2,3}"), False, None,
     ("司仪", "主持人", "摄影师", "化妆师", "伴娘", "伴郎", "管家", "辅导员", "导师", "班主任",
      "教练", "律师", "会计", "中介", "房东", "负责")),
    # What is set for a date: "11月7号考", "期中考试改到11月9号", "the midterm is on March 11".
    (_FACT | _ATTR, re.compile(
        r"(?:考试|面试|答辩|婚礼|婚宴|手术|复查|开学|报到|截止)[^，。！？]{0,8}?\d{1,2}月\d{1,2}[日号]"
        r"|\d{1,2}月\d{1,2}[日号][^，。！？]{0,4}?(?:考|面试|答辩|举行|开学|报到|截止)"),
     False, None, "月"),
    (_FACT | _ATTR, re.compile(
        r"\b(?:midterm|exam|final|interview|surgery|wedding|appointment|deadline|defen[cs]e"
        r"|hearing|closing|move-in|check-in|ceremony|reception)s?\b[^.!?\n]{0,30}?\b(?:on|is|for"
        r"|to) (?:(?:mon|tues|wednes|thurs|fri|satur|sun)day,? )?"
        rf"(?:{_MONTHS_AND_DAYS}|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.? \d"),
     True, None, ("midterm", "exam", "final", "interview", "surgery", "wedding", "appointment",
                  "deadline", "defen", "hearing", "closing", "move-in", "check-in", "ceremony",
                  "reception")),
    # Chinese life facts ("我2012年毕业于武汉大学", "我穿42码的鞋", "学日语已经三年了").
    (_FACT, re.compile(
        r"我(?:们)?(?!觉得|想|希望|感觉|认为|猜)[^，。！？!?\n]{0,8}?(?:毕业于|毕业|出生于|出生在|出生|来自"
        r"|开一辆|开了一辆"
        r"|开的是|养了|结婚|离婚|退休|入职|穿\d+码)"), False, None, "我"),
    (_FACT | _ATTR, re.compile(
        r"(?:学|练|弹|教|做|干|当)[\u4e00-\u9fff]{1,4}(?:已经|有)?[\d一二两三四五六七八九十]+年"),
     False, None, "年"),
    (_ATTR, re.compile(
        r"我(?:们家|家|妈妈?|爸爸?|老婆|老公|女儿|儿子|父母)?(?:住在|来自|毕业于|穿\d+码)"),
     False, None, "我"),
    (_ATTR, re.compile(r"(?:我|我们)的[\u4e00-\u9fff]{1,6}?(?:是|叫|在|为)(?!不是)"), False, None,
     "的"),
    # "I'll keep my old car instead of buying a new one": what the speaker will do, chosen over
    # something else. "I went to the park instead of the gym" tells what happened.
    (_DECIDE, re.compile(
        r"\b(?:i'll|we'll|i will|we will|i'm going to|we're going to|i'm gonna|we're gonna"
        r"|let's|(?:i|we) decided to|(?:i|we)'d rather) [a-z]+(?: [a-z'-]+){0,6}?"
        r" (?:instead(?: of)?|rather than)\b"), True, None, ("instead", "rather than")),
    # "OK, Postgres it is.": a choice said as an idiom (texts are scanned joined by newlines).
    (_DECIDE, re.compile(
        r"^(?:(?:ok(?:ay)?|alright|all right|fine|great|then|so)[, ]+)?"
        r"(?!(?:that|this|it|what|here|there|so|which|who|how|such|is)\b)[a-z0-9$][\w$' .-]{0,30}?"
        r" it is[.!]*$", re.M), True, None, (" it is",)),
]
_TASK_LEAD = re.compile(
    r"(?:(?:你|您)?(?:再|还|也|然后|另外|顺便|那|回头|晚点|有空(?:的时候)?|到时候?|等会儿?)?"
    r"(?:帮我|帮忙|麻烦|记得|别忘|请(?!问)|提醒|务必)"
    # ("And don't forget, you're worth it too!" cheers: something to not forget is named.)
    r"|(?i:(?:(?:and|also|then|now),?\s+)?(?:please|remind(?!ers?\b)"
    r"|don't\s+forget(?=\s+(?:to|about|the|my|our|this|it)\b)"
    r"|make\s+sure|todo|to-do|can\s+you|could\s+you|will\s+you))"
    # Where first, then the ask: "prometheus 那边帮我加个磁盘使用率告警".
    r"|[^，。！？,.!?\n]{1,16}?(?:那边|这边|那块|这块|那里|这里|的话)(?:你)?(?:帮我|帮忙|麻烦你?))"
)
# A reference in a form's shape: letters-digits ("FSE-22817"), digits-letters ("7731-ALB"), or
# nine or more capitals and digits mixed ("1Z9F44A2037"); not a model ("M301") or a date.
_CODE = re.compile(
    r"(?<![\w-])(?:[A-Za-z]{1,5}-\d{3,}|\d{3,}-[A-Za-z]{2,}"
    r"|(?=[A-Z0-9]{9,}\b)[A-Z]*\d[A-Z0-9]*[A-Z][A-Z0-9]*)(?![\w-])")
# A request closing a sentence that said why: "I need to get him into a renewal class before
# that — can you find me options later?", "下周要去上海出差，能帮我订个酒店吗？" (not "can you
# believe it?").
_ASK_AT_END = re.compile(
    r"(?i:(?:[,;:—–]|\s-|\band|\bso)\s*(?:so\s+)?(?:can|could|would|will) you (?:please )?"
    r"(?:find|book|get|look|check|send|remind|set|make|order|call|email|write|draft|schedule"
    r"|help|pull|compare|research|track|sort|figure|put|add|update|reserve|cancel|text)\b"
    r"[^?]*\?\s*$)"
    r"|[，,]\s*(?:你|您)?(?:晚点|回头|有空(?:的时候)?|到时候?|明天|今天|等会儿?|待会儿?)?"
    r"(?:能不能|能|可以|可不可以)?帮我[^？?，,]*(?:[？?]|吗)\s*$"
    # …then when, then the ask: "parser 模块基本没测试，之后帮我补一下单测".
    r"|[，,]\s*(?:之后|以后|回头|有空(?:的时候)?|晚点|明天|下周|到时候?)帮我"
    r"(?:把|加|补|改|查|写|做|订|买|发|弄|建|配|设|约|找|整理|准备)")
# A request said as a bare imperative ("Book a table for 4 at Nobu", "Find me a hotel in
# Lisbon", "查一下明天的航班", "给张经理发个邮件"): an action verb opening the user's sentence.
# Verbs that open small talk as often ("check this out", "take care", "look at this") are not.
_IMPERATIVE = re.compile(
    r"(?:(?:now |also |then |and )?(?:book|reserve|find|search for|look up|send|email|text"
    r"|schedule|reschedule|set up|set a|create|draft|write|order|buy|cancel|remind|add"
    r"|update(?! from\b)|compare|translate|summari[sz]e|arrange|pay|file|submit|prepare|renew"
    r"|call(?! me\b)|list"
    r"|check(?! (?:it|this|that|these|those|out)\b)|get me|make me|show me|give me|tell me"
    r"|put))\b"
    # ... followed by what to act on: "Update: my budget is…", "Put simply, …", "List of…",
    # "update from the school: …",
    # "Order matters" are statements.
    r"(?=\s+[\w$\"'“‘])(?!\s+(?:of|simply|matters?|is|was|are|were|it|that)\b)"
    r"|(?:先|再|然后|你)?(?:查一?下|查查|查个|找一?家|找一?个|找一?下|订一|订个|订张|订[两三四五六七八九十]"
    r"|预订|预约|安排一?下|安排个|发个|发一|写一|写个|搜一?下|买一|买个|提醒我|约一?下|取消"
    r"|给[^，。！？,.!?]{1,6}(?:发|打|寄|订|买)(?![了过])"
    # "把PPT发给马可", "把会议改到周三": what to act on, then the action.
    r"|把[^，。！？,.!?]{1,12}?(?:发给|寄给|转给|交给|送到|改到|改成|删掉|加到|放到|订)"
    # "有空把Jenkins上那些没人用的老job清一下": what to act on, then a verb and "一下".
    r"|把[^，。！？,.!?]{1,24}?[\u4e00-\u9fff](?:一下|掉))",
    re.IGNORECASE,
)
# "I love hiking", "我喜欢爬山": the speaker's own liking of a thing; "their love and support",
# "love it!" are not preferences.
_FOND_PREF = re.compile(
    r"(?i:(?<![a-z])(?:i|we)(?:'m| am| are)?(?: really| also| just| still| totally| so| do| a big)?"
    r" (?:love|like|enjoy|fan of)(?:s|d)? (?!it\b|that\b|this\b|you\b|to hear|hearing))"
    r"|(?:^|(?<=[，,]))(?:我们?)?(?:很|也|真|最|特别|非常|一直|还是|都)*(?:喜欢|习惯|爱上)"
    r"|我(?:们)?(?:很|也|真|最|特别|非常|一直|还是)?(?:喜欢|习惯|爱上)"
)
# A task the speaker must do, said as such: "I need to…", "我得…" (a request to the assistant
# is _TASK_LEAD's). "I'll keep you posted" is a pleasantry, not a task.
# An errand the speaker has not done yet: "(I) still haven't returned…".
_NOT_YET_DONE = (
    r"(?:still )?(?:haven't|have not) (?:yet )?(?:returned|paid|sent|booked|called|emailed"
    r"|filed|submitted|renewed|signed|finished|ordered|replied|scheduled|picked up)\b"
)
_TASK_OWN = re.compile(
    # "I still haven't returned the library book": an errand not done yet.
    rf"(?i:(?:i|we) {_NOT_YET_DONE}"
    # The speaker may go unsaid: "gotta pick up grandma's prescription", "Need to renew it".
    # ("I got to see the Perseids" is a chance had, not a duty: "got to" only as "I've got to").
    # ("Must've been fun", "you must be tired": what must be so, not what must be done.)
    r"|(?:(?:(?:i|we) )?(?:need to|have to|(?<!you )(?<!that )(?<!it )(?<!this )must"
    r"(?!'ve| have (?:been|had|felt|seen)| be (?:so|really|nice|hard|tough|fun|exhausting)\b)"
    r"|should|still have to|still need to)"
    r"|(?:(?:i|we)'ve )?(?:still )?got to)"
    # "I have to go, I'm tired", "gotta run now!": leaving the chat, not an errand; "Have to
    # say, …" is an aside.
    r"(?! (?:go|run|leave|head out|sleep)(?: now)?\s*(?:[,.!;]|$))"
    r"(?! (?:say|admit|agree|ask|wonder|laugh|love|be honest)\b)"
    r"|i'd like you to|(?:remember|don't forget) to"
    # What the speaker needs done for them: "need someone to drive me home".
    r"|(?:(?:i|we) )?(?:still )?need (?:someone|somebody) to"
    # What the team needs done: "we need nightly backups of the grafana-data volume".
    r"|we (?:still |also |really )?need (?!to\b|you\b|it\b|that\b|this\b)[a-z])"
    r"|我(?:们)?(?:需要|得|必须|还得|还要|还没)"
    # A short list of errands: "今天两件事：给网站域名续费，再订一批糕点盒".
    r"|(?:今天|明天|这周末?|周末|下周)?(?:要做|要办|得做|得办|有)?(?:两|三|四|几)件事[：:]"
    # "这周末得给奶奶打个电话": when, then what must be done, the speaker unsaid.
    r"|(?:^|[，,])(?:我们?)?(?:这周末|这周|周末|明天|后天|今天|今晚|下周|周[一二三四五六日天])"
    r"(?:之前|前)?(?:还)?得"
    r"(?=[给去把交还买打约做写办拿取续])"
    # A deadline said of a thing: "季度报告周五前要写完", "车子得在11月底之前去做年检",
    # "OPS-2093那个工单，周五前我得review完", "论文初稿4月10号要交给导师".
    r"|(?:[^。！？\n]{0,30}?[，,]\s*)?[^，。！？\n]{2,12}?(?:之?前我?(?:要|得|必须)|截止)"
    r"|[^，。！？\n]{0,12}?(?:\d{1,2}[号日]|周[一二三四五六日天]|月底|月初|年底)(?:之?前)?"
    r"(?:要|得|必须)(?:交|提交|完成|给|发)"
    r"|[^，。！？\n]{1,8}?(?:得|要|必须)在[^，。！？\n]{1,12}?(?:之前|以前|前)"
    # "…已经超期了，得赶紧还", "喜帖得找地方印，…还没顾上".
    # (Not "主要还是", "只要还能": 要 of a main point or a condition.)
    r"|[^。！？\n]{1,24}?(?<![记懂晓觉主重只想不])(?:(?:得|要)(?:赶紧|尽快|马上|抓紧)?"
    r"(?:还|交|办|续|买|寄|取|拿|找|印|订|退)"
    # "得先带她去医院测一下听力": what must be done first ("要去" is as often a plan).
    r"|得先?(?:带|去|约|打))"
    r"|[^。！？\n]{1,24}?还没(?:顾上|来得及)"
    # "社保转移还没办", "护照续签还没弄": a thing, then not done yet.
    r"|[^。！？\n]{2,24}?还没(?:空|时间)?(?:办|弄|交|做|续|转|签|寄|退|去办|买|写|约|订|修|换|报)"
    r"(?=[了呢完好，。！]|$)"
    # "想开个小红书号…，有空了弄", "…，哪天有空在手机上办了": put off until there is time.
    r"|[^。！？\n]{2,40}?[，,]\s*(?:哪天|等|回头)?有空(?:了|的时候)?(?:再|就)?[^，。！？]{0,8}?"
    r"(?:弄|办|做|搞|整)(?:了|掉|一下)?(?=[吧。！，]|$)"
    # "k8s升级到1.28这事还得排上": a thing, then what it still needs (not "还得是你").
    r"|[^。！？\n]{2,30}?还得(?:排|办|弄|做|交|买|续|约|找|改|修|换)"
    # "年底前整理一份技术债清单": by when, then what to do.
    r"|(?:年底|月底|月初|周[一二三四五六日末]|下周|这周|\d{1,2}[号日])之?前(?:把)?"
    r"(?:整理|写|交|做|弄|办|准备|提交|完成|搞定|订|买|约)"
    # Due: "糯米的猫三联该打了", "护照该续了" (not "应该", "活该").
    r"|[^。！？\n]{1,24}?(?<![应活本])该(?:去|给|把)?(?:拿|取|交|办|续|还|买|约|打|换|缴|付|签)了"
    # "要给小林转露营的钱": an errand for someone, said as what is to be done (not "不要给",
    # "想要给": "要" with money or a thing to send, not "我要去睡了").
    r"|(?:^|[，,])[^，。！？\n]{0,8}?(?<![不没想别])要给[\u4e00-\u9fff]{1,4}?(?:转|寄|付|还|交)"
)
# An errand of the speaker's own said after what led to it: "…the pharmacy needs a new script,
# so I need to call Dr. Okafor's office", "…防水有问题，得找他们家谈谈"; or opening with what must
# be done, the speaker unsaid: "得赶紧把毕业论文的查重做了". (Not "…, so you need to": advice.)
_OWN_MID = re.compile(
    # ("I got to work with a friend on it" is a chance had: "got to" with a speaker only as
    # "I've got to".)
    r"(?i:[,;.—–]\s*(?:(?:so|and|but|then|which means|plus)\s+)?(?:(?:i|we)(?:'ll| will|'ve)?"
    r" (?:really |still |also |just |now )?(?:need to|have to|must|should really|gotta"
    r"|(?<='ve )got to)|(?:still )?(?:need to|have to|gotta"
    # ("gotta" is read as "got to"; not a chance had: "got to see the Perseids".)
    r"|got to(?! (?:see|meet|watch|hear|know|experience|enjoy|spend|try|hang|visit)\b)))"
    r" (?!(?:go|run|leave|head out|sleep|say|admit|agree|ask|wonder|laugh|love|be honest|relax"
    r"|chill|vent|rest)\b)\w)"
    # "发版完了我要把feature/pay-v2分支删掉": what is to go, by any name.
    r"|我(?:们)?(?:要|得)把[^，。！？]{1,30}?(?:删掉|删除|清掉|清理掉?|关掉|下线|迁走|备份|合进|回滚|换掉)"
    # "After the migration finishes tonight I need to drop the old table": when, then the duty.
    r"|(?i:\b(?:tonight|tomorrow|today|later|afterwards|after that|this (?:week|weekend"
    r"|morning|afternoon|evening)|next week) (?:i|we) (?:really |still |also )?(?:need to"
    r"|have to|must|gotta) (?!(?:go|run|leave|head out|sleep|relax|chill|rest)\b)\w)"
    # "…, need someone to drive me home": what the speaker needs done for them.
    r"|(?i:[,;.—–]\s*(?:(?:so|and|but)\s+)?(?:(?:i|we) )?(?:still )?need (?:someone|somebody)"
    r" to \w)"
    # "我车险7月25号到期，到时候要续保", "…，所以还得去趟银行": the speaker's to do, said after.
    r"|[，,。；]\s*(?:(?:到时候|到期后?|回头|之后|然后|所以)(?:还)?(?:要|得(?![到了]))"
    r"|(?:我(?:们)?)?(?:还得|得(?![到了])|必须))"
    # "…is due April 30, I still need the immunization record": what is still missing.
    r"|(?i:(?:^|[,;.—–]\s*(?:(?:so|and|but)\s+)?)(?:i|we) still need (?:the|a|an|my|our)\b)"
    # A deadline of the speaker's: "my thesis draft is due to Prof. Adeyemi Nov 4".
    r"|(?i:\b(?:my|our) (?!baby\b)[\w-]+(?: [\w-]+){0,3} (?:is|are) due\b)"
    # Handed to the speaker: "my boss wants me to redo the deck", "领导…让我周五前把复盘PPT弄出来".
    r"|(?i:\b(?:wants|asked|told|needs) me to (?!(?:go|come|stay|relax|calm down)\b)\w)"
    r"|(?:领导|老板|经理|主管|老师|导师|客户|甲方|妈|爸|父母|老婆|老公|媳妇|女朋友|男朋友"
    r"|奶奶|爷爷|姥姥|外婆|婆婆|岳母)[^。！？]{0,14}?(?:让我|叫我|要我|要求我)(?!别|不要|少)"
    r"|(?:回头|改天|过两天|有空)(?:要|得)把"
    r"|(?:^|[，；。！]\s*(?:(?:所以|然后|哦对|对了|另外)[，,]?)?)(?:我们?)?"
    r"(?:这周末?|周末|明天|今天|今晚|回头|下周|过两天)?(?:还|也)?得(?:赶紧|抽空|尽快|先)?"
    r"(?:去|把|给|找|跟|和|约|交|办|买|续|还|寄|拿|取|打|定|弄|做|联系|带)")
# "remind me why / of …" asks for nothing.
_REMIND_ME = r"remind me\b(?! (?:of|why|what|how|who|where|which)\b)"
_REMINDER = re.compile(
    # (and what the user puts on their list: "On my list for this weekend: regrout the shower")
    rf"(?i:{ON_LIST_HEAD_EN}\s*(?=[a-z]))"
    rf"|(?i:(?:please |can you |could you )?{_REMIND_ME}"
    r"|(?:please |pls )?(?:don't|do not) let me forget\b|make sure i (?:don't forget|remember)\b)"
    r"|(?:你|您)?(?:请|记得|帮我)?提醒我|别让我忘"
    # "你帮我记着，要给我妈买个新的血糖仪": the note asked for first, then what.
    r"|(?:你|您)?先?帮我记(?:着|一下|下)[，,：:]"
    # "待办加一条：周末给多肉换盆"
    rf"|{ON_LIST_ZH}")
# What opens a request said in passing: "Oh and remind me to…", "Unrelated, but can you…",
# "Quick thing — book…", "对了，帮我…".
_LEAD_IN = re.compile(
    r"(?i:(?:(?:oh|ah|ugh|ok(?:ay)?|so|and|also|but|then|now|btw|by the way|unrelated|separately"
    r"|one more thing|quick (?:one|thing|favou?r)|p\.?s\.?|anyway|while i remember|before i forget"
    r"|last thing|side note|at some point|sometime|when you get a chance|eventually"
    # A label before the errand: "personal one: book the vet…", "house stuff: call…"; a hedge.
    r"|(?:[a-z]+ ){0,2}(?:one|thing|stuff|item|errand)s?:|i (?:think|guess|reckon|suppose)"
    # "when you have a sec, write a README section…", "no rush, but…"
    r"|(?:when|whenever|if) you (?:have|get) (?:a (?:sec|second|minute|moment|chance)|time)"
    r"|no rush(?: but)?"
    # A short list asked for: "two things today: renew the domain and order boxes".
    r"|(?:two|three|four|a few|a couple of|couple of) things(?: (?:today|to do|for today"
    r"|this week))?"
    r")[,:;.!]?(?:\s+[—–-])?\s+)+)"
    # "回头帮我写个请假条", "有空的时候帮我查下": when, then the request.
    r"|(?:(?:唉|哎|嗯|对了|另外|还有(?:一?件事|个事)?|顺便说一下|顺便|哦|噢|啊|然后|回头|等会儿?|晚点"
    r"|改天|到时候?"
    r"|有空(?:的时候)?)[，,、]?)+"
)
# A reminder asked for mid-sentence: "her uniform's too small, remind me to buy a new one",
# "…Monday — don't let me forget", "校服又小了，提醒我抽空买套新的".
_REMIND_MID = re.compile(
    r"(?i:(?:[,;:—–.!]\s*|\s(?:and|but|so)\s+)(?:please\s+|pls\s+|just\s+"
    rf"|(?:can|could|would|will) you\s+)?(?:{_REMIND_ME}|keep reminding me\b"
    # "nag me next week", "ping me about it" (not "…, ping me if you're around": what a friend
    # says; "reminding me of home", "bugging me" ask for nothing)
    r"|(?:nag|ping|bug|nudge) me (?:about (?:it|this|that)\b|(?:again|later|tomorrow|tonight"
    r"|next|this|on|in)\b)"
    r"|don't let me forget\b|make sure i (?:don't forget|remember)\b"
    rf"|{ON_LIST_ASK_EN}\b))"
    # "…的初稿我还欠着老板，下周提醒我": when to remind may come first.
    r"|[，；：]\s*(?:你|您)?(?:到时候?|下(?:周|个?月|次)|明天|后天|过两天|月底|周[一二三四五六日末])?"
    r"(?:记得[^，。！？]{0,6}?|麻烦|请|帮我)?提醒我|别让我忘"
    # "打算下个月找时间去，先帮我记上", "…你帮我记着别忘了", "帮我记个 todo": put on the list
    r"|[，；：]\s*(?:你|您)?(?:先|就)?(?:帮我|给我)?(?:记(?:上|着|个\s*(?i:todo|to-do|待办))"
    r"|(?:加|记|放)(?:到|进)待办)"
)
# What is still to be done, in Chinese: "还没签", "还得排上", "要查个眼底", "得找人".
_PENDING_ZH = re.compile(r"还没|还得|(?<![觉记懂晓值舍获])得(?![到了出])"
                         r"[去找把给买交办约签查做写订续带打拿取]|要(?:去|把|给|找|查|买|交|办|约|签|配|做|写|订|续|带|打|拿|取)|需要|必须")
# What a fact to keep holds: a number, a "是", what is to be used from now on, an address.
_NOTED_FACT_ZH = re.compile(r"\d|是|以后|地址|密码|号码|电话|账号")
_REMIND_MID_KEYS = ("remind", "forget", "remember", " list", " to-do", " todo", "提醒", "忘",
                    *NAG_ME_KEYS, "记", "待办")
_ERRAND = re.compile(
    rf"(?i:\b{_NOT_YET_DONE})"
    r"|(?i:\b(?:need to|have to|must|still have to|still need to|got to|gotta) (?:go )?"
    r"(?:pick up|drop off|renew|return|pay|file|submit|book|call|email|buy|get|fix|send|sign"
    r"|cancel|schedule|register|apply|finish|bring|mail|order|replace|repair|clean|write|draft"
    r"|review|update|deploy|migrate|test|document|rotate|merge|prepare|set up|clean up|refactor"
    r"|upgrade|install|configure|fill out|sign up for|drop|delete|remove|back up|restore"
    r"|verify|transfer|archive|patch|reboot|restart|rename|reset|unsubscribe from)\b"
    r"(?! (?:it|that|this|them|some rest|a break|some sleep|out|over|together|back|more"
    r"|something|anything)\b))"
    r"|[得要](?:去|给|把)?[\u4e00-\u9fff]{0,4}?(?:拿|取|交|办|续|还|买|寄|修|缴|付|签|退|约|订|打)"
    # "发版完了我要把feature/pay-v2分支删掉": what is to go, by any name.
    r"|(?:要|得)把[^，。！？]{1,30}?(?:删掉|删除|清掉|清理掉?|关掉|下线|迁走|备份|合进|回滚|换掉)"
    # Due: "糯米的猫三联该打了", "护照该续了", "物业费该交了" (not "应该", "活该").
    r"|(?<![应活本])该(?:去|给|把)?(?:拿|取|交|办|续|还|买|约|打|换|缴|付|签)了"
    # "我得把登录重构在那之前合进去", "得抽空去医院给她开": a duty with its thing or its place.
    r"|(?<![觉记懂晓值变显])得(?:先|赶紧|抽空|尽快)?(?:把|去)[\u4e00-\u9fff]{2}"
    # A thing due by a date: "车子得在11月底之前去做年检".
    r"|(?:得|必须)在[^，。！？\n]{1,12}?(?:之前|以前)"
)
# "Maybe I'll go with you", "如果要选的话": a hedged choice is no decision.
_HEDGE = re.compile(
    r"(?i:\b(?:maybe|might|perhaps|if|whether|could|would|unless|in case|undecided|not sure"
    r"|(?:can't|cannot|can not|couldn't|haven't|hasn't|didn't|not yet|still|yet to) (?:decide"
    r"|decided|choose|chosen|pick|picked|agree|agreed))\b)"
    r"|也许|可能|如果|要是|或许|除非|假如|万一|还没(?:想好|决定|定)|没决定|拿不定|不确定|决定不了"
)
USER_FACTOR = 1.3
_VALUE_WEIGHT = 2.0
"""The user's own words weigh this much more than the same words from anyone else."""
_QUESTION_FACTOR = 0.6
_FEEL_FACTOR = 0.6
_ANCHORS = _ID | _MONEY | _WHEN | _NAME | _NUM
_DIGITS = re.compile(r"\d+")
# Identifiers, amounts and dates: an item whose every such token is already in the summary
# repeats it (the assistant confirming a booking the tool line already shows).
_ID_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@/:-]*[0-9][A-Za-z0-9_.@/:-]*")
_SECOND_PERSON = re.compile(r"你|您|(?i:(?<![A-Za-z])(?:you|your|you're|yours)(?![A-Za-z]))")


class _Scored(NamedTuple):
    score: float
    section: int
    durable: bool
    """Not a one-off event: a preference, a decision, a task, an attribute, a code."""
    hints_slot: bool
    standing: bool = False
    """An attribute of the speaker or theirs, true until said otherwise ("my X is Y", a habit,
    a condition, a pet's name)."""


# A short Chinese line asking with a question word and no closing mark ("什么是HAL9000",
# "是谁写的科学怪人"): chat often leaves the "？" out. "我不知道他是谁。" ends like a statement.
_ZH_ASKS = re.compile(
    r"^(?:请问)?(?:什么|谁|哪|怎么|为什么|为啥)|是谁|是什么|什么是|为什么|多少钱|几点"
)
_ZH_ASK_MAX_CHARS = 20


def _is_question(sentence: str) -> bool:
    tail = sentence.rstrip(" \"'”’」』）)")
    if tail[-1:] in ("?", "？") or tail.rstrip("。.!！~～")[-1:] in ("吗", "呢"):
        # "…the company ID, it's GC-556120 right?", "客户号是KH-88120对吧？": a value said, the
        # question only asks to confirm it.
        return _CONFIRMING.search(tail) is None or _DIGITS.search(tail) is None
    return (
        len(tail) <= _ZH_ASK_MAX_CHARS
        and tail[-1:] not in ("。", ".", "!", "！")
        and _ZH_ASKS.search(tail) is not None
        and "知道" not in tail
    )


_CONFIRMING = re.compile(
    r"(?i:[,\s](?:right|correct|isn't it|is that right|yeah)[?？]+$)"
    r"|(?:对吧|是吧|没错吧|对不对)[?？]*$")


# Statements of fact that open with the speaker: "my sister's name is", "our flight is"; "I
# painted a lake sunrise", "we finally adopted", "I ran a charity race" (regular or common
# irregular past: what the speaker did is an event to keep;
# feelings about a thing, "I loved it", "I agreed", are not). Tried only where the cue trie
# found "i", "we", "my" or "our", not at every position of the text.
_FACT_AT = re.compile(
    r"(?:my|our) [a-z']+(?: (?!(?:and|or|but|so|then|on|in|at|to|it)(?![a-z']))[a-z']+){0,2}"
    r"(?: (?:for|of|at|in|to|with|on) (?:the |my |our |a |an )?"
    r"(?!(?:and|or|but|so|then)(?![a-z']))[a-z']+(?: [a-z']+)?)?"
    r" (?:is|are|was|were|expires?|starts?|ends?|begins?|lands?|leaves?|departs?|arrives?"
    r"|opens?|closes?|costs?|lives?|lived|works?|worked|studies|teaches|uses|use|runs|run"
    r"|owns|own|has(?! been)|have(?! been))(?![a-z])"
    # What the speaker does as a habit: "I take metformin", "I use Linux", "I drive a Subaru".
    r"|(?:i|we) (?:usually |always |still |also |now |only )?(?:take|use|drive|speak)"
    r" (?!(?:it|that|this|them|care|turns|your|my time|a (?:look|break|walk|nap|second|minute"
    r"|moment|chance|step))(?![a-z]))[a-z]"
    # What the speaker has been doing for a while: "I've been learning Japanese for 3 years".
    r"|(?:i|we)(?:'ve| have) been (?!(?:feeling|thinking|wondering|meaning|hoping|wanting"
    r"|waiting|looking|going|trying|getting|doing|having|saying|telling)(?![a-z]))[a-z]{3,}ing"
    r"|(?:i|we) (?:just |finally |recently |also |even |once |already )?"
    r"(?!(?:loved|liked|enjoyed|agreed|wanted|needed|hoped|wished|guessed|figured|wondered"
    r"|noticed|appreciated|imagined|expected|used|tried|seemed|looked|felt|heard|learned"
    r"|realized|realised|missed|mentioned|talked|asked|answered|shared)(?![a-z]))"
    r"(?:[a-z]{3,}ed|went|ran|took|got|made|saw|bought|met|began|left|found|gave|won|lost"
    r"|wrote|sang|taught|built|drove|flew|swam|sent|spent|sold|held|brought|became|ate|grew"
    r"|paid|rode|broke|chose|caught|fed|fought|led|quit|woke)(?![a-z])"
)
_FACT_LEADS = ("i", "we", "my", "our")
# "my X is/lives/works…": an attribute in the present, true until said otherwise (_ATTR).
_ATTR_VERBS = (" is", " are", " lives", " live", " works", " work", " uses", " use", " runs",
               " run", " owns", " own", " has", " have",
               # What is set to happen: "my husband's flight lands at 6:40pm on Friday".
               " lands", " leaves", " departs", " arrives", " starts", " expires")
# "I use Linux", "we speak Spanish at home": a habit, as standing as "my X is Y".
_HABIT = re.compile(
    r"(?:i|we) (?:usually |always |still |also |now |only )?(?:use|drive|speak) ")
# "Our trip was so much fun", "my day is really good": how it is, not what it is.
_HOW_IT_FEELS = (" so ", " really ", " very ", " such ", " too ", " super ", " pretty ", " quite ",
                 " totally ", " absolutely ", " incredibly ", " amazing", " awesome", " great",
                 " cool", " fun", " lovely", " wonderful", " fantastic", " nice",
                 # "Showing off our true selves is the best thing ever": a verdict, no attribute.
                 " the best", " the worst", " the greatest", " key", " vital", " everything",
                 " important", " essential", " crucial")
# "My hard work is paying off", "our team has seen growth", "my game is finally finished":
# what is going on or has happened, not what the thing is.
_HAPPENING = re.compile(
    r" (?:[a-z]{2,}ing\b|(?:finally|already|just) [a-z]{3,}ed\b|(?:been|seen|done|made|had"
    r"|got|gone|grown|become)\b|[a-z]{3,}ed (?:by|up|out|off|in|from|to)\b)"
)
# A plural verb after a singular noun is a noun: "our latest work", "make my plan work",
# "my daily use"; "my parents work nights", "our kids live with us" are statements.
_PLURAL_VERBS = frozenset({"are", "were", "live", "work", "use", "run", "own", "have"})
_COLLECTIVE_TEXT = "people children family folks staff crew team police cattle"
_COLLECTIVE = frozenset(_COLLECTIVE_TEXT.split())


# "…remind us how important our loved ones are.": the verb ends its clause, it says no Y.
_ENDS_CLAUSE = re.compile(r"\s*(?:[.!?,;:…]|$)")


def _noun_read_as_verb(found: str) -> bool:
    words = found.split()
    if len(words) < 3 or words[0] not in ("my", "our") or words[-1] not in _PLURAL_VERBS:
        return False
    noun = words[-2]
    plural = (noun.endswith("s") and not noun.endswith(("ss", "us", "is"))) or noun in _COLLECTIVE
    return not plural


_ATTR_WORDS = frozenset({"i live", "we live", "we're from", "i work", "i'm from", "i am from",
                         "i come from", "my name is",
                         "i grew up", "i was born", "i'm married", "i graduated"})




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
        if not (at and _latin(low[at - 1])):
            word = m.group()
            masks[owner[at]] |= _EN_LEX[word]
            if word.startswith(_FACT_LEADS) and (fact := _FACT_AT.match(low, at)) \
                    and not _noun_read_as_verb(fact.group()) \
                    and not _ENDS_CLAUSE.match(low, fact.end()):
                found = fact.group()
                masks[owner[at]] |= _FACT | (_ATTR if (
                    word.startswith(("my", "our")) and found.endswith(_ATTR_VERBS)
                    and not low.startswith(_HOW_IT_FEELS, fact.end())
                    and _HAPPENING.match(big, fact.end()) is None
                ) or _HABIT.match(found) else 0)
            if word in _ATTR_WORDS:
                masks[owner[at]] |= _ATTR
    ends = [*starts[1:], len(big) + 1]
    for bit, rx, lowered, check, guard in _PATTERNS:
        src = low if lowered else big
        holding = _holding(src, guard, owner, ends) if guard else None
        if holding is not None:
            # Only the few texts with a guard word: a regex pass over a long fold costs
            # milliseconds (an alternation at every position), a search of one text nothing.
            hits: Iterable[re.Match[str]] = (
                m for i in holding for m in rx.finditer(src, starts[i], ends[i] - 1))
        else:
            hits = rx.finditer(src)
        for m in hits:
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
    firsts: list[tuple[int, str]] = []
    for m in _UPPER_RE.finditer(big):
        at = m.start()
        if at and _latin(big[at - 1]):
            continue
        i = owner[at]
        if m.lastgroup == "code":
            if m.end() - at >= 4:
                masks[i] |= _ID
        elif m.group() in _CAP_STOP:
            continue
        elif at != starts[i]:
            caps.setdefault(i, set()).add(m.group())
        elif big.startswith(_NAME_VERBS, m.end()) and m.group() not in _NOT_NAMES:
            caps.setdefault(i, set()).add(m.group())  # "Sarah is a teacher": who, then what
        else:
            firsts.append((i, m.group()))
    # A capital at the start of a sentence is a name when the fold also writes it mid-sentence
    # ("My wife Sarah is a teacher." then "Sarah is now a principal.").
    if firsts and caps:
        named = set().union(*caps.values())
        for i, word in firsts:
            if word in named:
                caps.setdefault(i, set()).add(word)
    return masks, [min(len(caps.get(i, ())), _CAP_MAX) for i in range(len(texts))]


def _holding(src: str, guard: Iterable[str], owner: Sequence[int],
             ends: Sequence[int]) -> list[int] | None:
    """The texts (indexes) of ``src`` that hold a word of ``guard``, in order; None when so
    many do that one pass over all of ``src`` is cheaper than a search of each."""
    found: set[int] = set()
    most = len(ends) // 8 + 1
    for word in guard:
        at = src.find(word)
        while at >= 0:
            text = owner[at]
            found.add(text)
            if len(found) > most:
                return None
            at = src.find(word, ends[text])  # on to the next text
    return sorted(found)


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


_LETTER = re.compile(r"[^\W\d_]")


def _score_one(text: str, role: str, mask: int, n_caps: int) -> _Scored:
    if _LETTER.search(text) is None:
        return _Scored(0.0, _FACTS, False, False)  # "(12)", "3/4", "25": a value of nothing
    if (
        not mask & ((_INFORMATIVE & ~_WHEN) | _FACT)  # "早上好", "good night": greetings
        and len(text) <= _PLEASANTRY_MAX_CHARS
        and _is_pleasantry(_normalise(text))
    ):
        return _Scored(0.0, _FACTS, False, False)
    if mask & _NUM and mask & (_ID | _MONEY | _WHEN):
        mask &= ~_NUM  # the number is already counted as an id, an amount or a date
    # The assistant's "Make sure it's plugged in", "请检查网线" advise; they are no requests.
    lead = _LEAD_IN.match(text)
    at = lead.end() if lead is not None else 0
    reminder = role != "assistant" and (_REMINDER.match(text, at) is not None or (
        any(k in text.lower() for k in _REMIND_MID_KEYS)
        and (mid := _REMIND_MID.search(text)) is not None
        # ("…，你帮我记着" keeps in mind what is still to do, "续租合同还没跟王姐签"; of an address
        # or a number, with nothing to do, it asks that a fact be kept: no task.)
        and ("记着" not in mid.group() or _PENDING_ZH.search(text, 0, mid.start()) is not None
             or _NOTED_FACT_ZH.search(text, 0, mid.start()) is None)))
    request = role != "assistant" and (bool(mask & _TASK and (
        _TASK_LEAD.match(text, at) or _ASK_AT_END.search(text))) or (
        role == "user" and _IMPERATIVE.match(text, at) is not None and not _is_question(text)
    ) or reminder)
    if request:
        mask |= _TASK
    own_task = bool(mask & _TASK and not request and (
        _TASK_OWN.match(text, at) or _OWN_MID.search(text)))
    # A cue word weighs only where it files the sentence: "a reminder of my roots", "I'll do
    # my best" are no tasks, "all the love and support" is no preference.
    weighed = mask if request or own_task else mask & ~_TASK
    score = _WEIGHT_OF[weighed & _WEIGHTED_BITS] + _CAP_WEIGHT * n_caps
    errand = own_task and _ERRAND.search(text) is not None
    if errand and not mask & _FACT:
        # "I still need to pick up my prescription", "我还得去药店拿药": an errand of the
        # speaker's own with its thing named, worth what "I have to call the landlord" is.
        score += _FACT_WEIGHT
    if reminder:
        # "Remind me to book a piano tuner", "Put this on my to-do list: …", "别让我忘了…": the
        # user asked, in so many words, that this be remembered: a fact of theirs to keep.
        score += _FACT_WEIGHT
    # The assistant telling the user what is theirs, with a value ("Your plan renews on May 3",
    # "您的会员等级是金卡"): the user's account, order or booking, as much theirs as "my X is".
    yours = role == "assistant" and bool(mask & _ANCHORS or n_caps) \
        and ("our " in text or "的" in text) and _YOUR_FACT.search(text) is not None
    if yours:
        score += _FACT_WEIGHT + _ATTR_WEIGHT
    elif mask & _FACT and role != "assistant":
        score += _FACT_WEIGHT  # an assistant's "my X is…" speaks of itself, not of the world
        if mask & _ATTR:
            score += _ATTR_WEIGHT
    if role == "user" and not mask & _ATTR and _DIGITS.search(text) and _CODE.search(text):
        # A reference in the shape people copy from a form ("It's FSE-22817", "conf #
        # 7731-ALB", "1Z9F44A2037"): given to be kept, as "my X is Y" is, however it is said.
        score += _FACT_WEIGHT + _ATTR_WEIGHT
    if role == "user" and not mask & _FACT and mask & (_ID | _MONEY | _WHEN | _NUM) \
            and _DIGITS.search(text) and not _is_question(text):
        score += _VALUE_WEIGHT
    fond = bool(mask & _FOND and _FOND_PREF.search(text))
    if fond:
        score += _FOND_WEIGHT
    # UTF-8 length weighs a Chinese character like about three Latin letters, as it should.
    score += min(len(text.encode()) / 80, 0.4) - max(len(text) - 120, 0) / 120
    question = _is_question(text)
    if question:
        score -= 0.6
    if role == "user":
        score = (score + 0.6 + (0.4 if mask & _FIRST else 0.0)) * USER_FACTOR
    elif role == "assistant":
        # Its questions ask, they tell nothing; what it tells of the user's own is theirs.
        score = (score + 0.1) * (0.3 if question else 1.0 if yours else 0.6)
    elif role == "tool":
        score = (score + 0.5) * 0.8  # dense, but the assistant's means, not the user's ends
    else:  # mid-conversation system notes, developer messages, the previous summary
        score += 0.4
    if mask & _INJECT:
        score = min(score, 0.2)  # text addressed to the summarizer is data, and weak data
    if question and not request:
        # "What are you allergic to?": a question states nothing of its own, and its cue
        # words are about the one asked.
        return _Scored(max(score * _QUESTION_FACTOR, 0.0), _FACTS, False, bool(mask & _SLOT))
    if _HYPOTHETICAL.match(text):
        # "If I ever win the lottery I'm opening a surf shop in Lisbon, haha", "要是哪天中了五百万
        # 我就去大理开民宿": a daydream, nothing that holds.
        return _Scored(max(score * _FEEL_FACTOR, 0.0), _FACTS, False, False)
    # (Text addressed to the summarizer is never an instruction worth keeping.)
    # ("到时候提醒我，千万别忘了" asks for a reminder, once: a task, not a standing wish.)
    standing_ask = role == "user" and not mask & _INJECT and not reminder \
        and _is_standing_ask(text)
    # ("Don't let me forget to renew kestrelworks.io" asks for a reminder: a task.)
    if standing_ask or (request and mask & _PREF and _AVOIDS.search(text) and not reminder):
        # "Please don't recommend horror movies", "From now on, answer in metric units",
        # "以后都用中文回复我": asked once, meant for good; how the user wants things done.
        section = _PREFS
    elif request:
        section = _TASKS
    elif mask & _DECIDE and not _HEDGE.search(text):
        section = _DECISIONS
    elif mask & _PREF or fond:
        section = _PREFS
    elif own_task:
        section = _TASKS
    else:
        section = _FACTS
    if section == _PREFS and role == "assistant" and not _SECOND_PERSON.search(text):
        # "我最喜欢的故事是…", "I love jazz" from the assistant: its persona, not the user's taste.
        return _Scored(max(score * _FEEL_FACTOR, 0.0), _FACTS, False, False)
    if section == _FACTS and mask & _FEEL and not n_caps and not mask & (_ANCHORS & ~_WHEN) and (
        not mask & _WHEN or not mask & _FIRST
    ):
        # "Everyone was so happy, it made me feel I belonged": how something felt, with nothing
        # a question could ask for (no name, number, date or id), is chatter however personal.
        # A time keeps it when someone did something: "I went to a support group yesterday
        # and it was so powerful" is an event a temporal question asks about; "The weather
        # was so nice today, it felt amazing" is not.
        return _Scored(max(score * _FEEL_FACTOR, 0.0), section, False, bool(mask & _SLOT))
    if section in (_FACTS, _DECISIONS) and not mask & _ANCHORS and not n_caps and (
        _says_nothing(text)
        or (section == _FACTS and (_vague_promise(text) or _ABOUT_YOU.match(text)))
    ):
        # "We got this!", "那就这样吧": pronouns, light verbs and particles only, a decision
        # that names nothing (an accepted offer is kept with the offer, in threads.py); "I'll
        # definitely check it out", "I'll keep you updated": a promise that names nothing.
        return _Scored(max(score * _FEEL_FACTOR, 0.0), _FACTS, False, False)
    if section == _TASKS and not mask & _ANCHORS and not n_caps and not content_tokens(text):
        # "Tell me all about it!", "Will you give it another go?": asked of a friend, naming
        # nothing to do; a task names its thing.
        return _Scored(max(score * _FEEL_FACTOR, 0.0), _FACTS, False, False)
    durable = section != _FACTS or bool(mask & (_ATTR | _ID)) or yours
    # The assistant's "my X is" speaks of itself; what it tells of the user's own stays true.
    # "Aisle seats only, always": a rule of the speaker's, said without a verb.
    rule = section == _PREFS and _RULE_NO_VERB.search(text.lower()) is not None
    standing = yours if role == "assistant" else bool(mask & _ATTR)
    if role == "user" and (
        # What the user avoids ("I hate cilantro", "Please don't recommend horror movies"): true
        # until said otherwise, and what an assistant must not get wrong. (Every preference at
        # that worth kept friends' favourites and Chinese reviewers' opinions over facts:
        # LoCoMo and the Chinese sessions both fell.)
        standing_ask
        # "they hate snow" is theirs; "Aisle seats only, always" is the speaker's own rule.
        or (section == _PREFS and (rule or request or mask & _FIRST)
            and (rule or _AVOIDS.search(text) or _HABITUAL.search(text))
            and not _HEDGE.search(text))
        # A decision holds until it is taken back, when it names what was chosen ("we're going
        # with Postgres"; "I chose to write about this" names nothing). (Boosting open tasks
        # too kept friends' "we need to…" over facts: drift fell from 0.70 to 0.65 on LoCoMo.)
        or (section == _DECISIONS and (mask & (_ID | _MONEY | _NAME) or n_caps))
        # An errand of the user's own with its thing named ("I still need to pick up my
        # prescription"): open until it is reported done, then closed, not forgotten.
        or (errand and not _HEDGE.search(text))
        # A reminder asked for is for later: "Remind me to renew my car insurance next month".
        or reminder
    ):
        score += _ATTR_WEIGHT  # worth what "my X is Y" is worth
        if standing_ask:
            # Asked once for good: a request and a preference at once, whatever its words.
            score += _WEIGHT_OF[_PREF & ~mask] + _WEIGHT_OF[_TASK & ~weighed]
        standing = True
    return _Scored(max(score, 0.0), section, durable, bool(mask & _SLOT), standing)


_HYPOTHETICAL = re.compile(
    r"(?i:(?:ha(?:ha)*|lol|honestly|man)?[,!]?\s*(?:hypothetically|if i ever"
    r"|if i (?:won|win|had a million)"
    r"|if only i|one day,? if|someday,? if|in another life))\b"
    r"|(?:哈哈+[，,]?)?(?:要是|如果|假如)(?:我|我们)?(?:哪天|有一天|哪一天|中了)"
    r"|(?:问个)?假设(?:的问题|一下)?[啊呀，,]"
)


_AVOIDS = re.compile(
    r"(?i)\b(?:hate|hates|dislike|dislikes|don't like|do not like|can't stand|cannot stand"
    r"|not a fan of|don't recommend|do not recommend|never recommend|can't handle|avoid"
    r"|don't suggest|do not suggest|never suggest|not into|not big on|is a no from me"
    r"|are a no from me|is a no-go|is a hard no)\b"
    r"|受不了|讨厌|不喜欢|不爱吃|不能吃|忌口|别给我(?:选|订|推荐|安排)|吃不下|吃腻|不想再吃|别再")


# "I only fly Delta", "I'm more of a tea person", "I'd rather take the train": the user's
# own way of doing things, as standing as what they avoid; "I love this song" is not.
_HABITUAL = re.compile(
    r"(?i)\b(?:more of an? [\w-]+ person|(?:i|we) (?:only|always|never|usually) (?:fly|drink"
    r"|eat|use|sleep|sit|take|book|order|wear|buy|shop|travel|drive|ride|stay)"
    r"|night owl|early bird|morning person|(?:i|we)(?:'d| would) rather|(?:i|we) prefer)\b"
    r"|我(?:只|从不|一向|向来|总是|宁愿|更喜欢|更爱|习惯)")


# A standing instruction: "From now on, always answer in metric units", "Never book red-eye
# flights for me", "以后都用中文回复我", "每次都要靠过道的座位". The time words alone are
# plans and hopes ("From now on I'm going to paint every day"), so they count only when said to
# someone; "always"/"never" count before a verb of service.
_FOR_GOOD = re.compile(
    r"(?i)\b(?:from now on|from here on|for future reference|whenever possible)"
    r"|(?:^|[,.;] )(?:going forward|in (?:the )?future),")
_FOR_GOOD_ZH = re.compile(
    # ("以后帮我写的文案，别用感叹号": what it is about, then the rule after a comma.)
    r"(?:^|[，,；;])(?:以后|今后|从现在起|从现在开始|往后)[^，。！？,.!?]{0,8}?(?:[，,]\s*)?"
    r"(?:都(?!会)|请|一律|每次|别|不要|只|要|还是|就(?!会))"
    # How the user wants things sent: "消息别一条一条转给我了", "每天晚上给我汇总一次就好".
    r"|(?:别|不要|不用)[^，。！？,.!?]{0,10}?(?:转给我|发给我|推给我|给我发|给我转|打给我"
    r"|给我安排|给我约|给我订|给我推荐|给我写|给我用|给我加)"
    # "注释统一用英文", "文件名一律用小写": a rule for everything of a kind.
    r"|(?:统一|一律)(?:用|使用|按|写成?)"
    r"|(?:每天|每晚|每周|每个?月|每次)[^，。！？,.!?]{0,6}?给我[^，。！？,.!?]{1,10}?(?:就好|就行|就可以)"
    r"|每次都(?:要|用|给|帮)|一律|永远不要|永远别|始终用|绝对不要|千万不要|千万别")
# A prohibition for good is said to whoever acts: "永远不要直接推到main分支".
_NEVER_ZH = re.compile(r"^(?:请)?(?:永远|绝对|千万)(?:不要|别)")
# What one asks an assistant to do, the verbs both patterns below open a clause with.
_SERVICE = (
    "answer|reply|respond|write|use|book|call|format|include|add|recommend|suggest|list|cite"
    "|mention|explain|order|pick|choose|schedule|reserve|translate|cc|copy"
    # What an agent does with the user's code and systems: "Don't ever push directly to main".
    "|push|commit|merge|deploy|delete|drop|run|rebase|modify|edit|touch|install|upgrade"
    "|remove|expose|share|disable|enable|store|log|restart|reboot|shut down|email"
    "|text|message|contact|charge|refund|discount|put|reveal|tell|quiz|switch|draft|sign"
)
_ALWAYS_DO = re.compile(
    r"(?i)(?:^|[,，;:：—–] ?)(?:please )?(?:always|never|only|don't ever|do not ever) "
    rf"(?:{_SERVICE}|give me|show me|send me|address|loop in)\b"
    # What not to offer is meant for good: "so please don't suggest desserts".
    r"|\b(?:please )?(?:don't|do not) (?:ever )?(?:suggest|recommend|offer|propose)\b"
    # "pls stop suggesting spicy stuff", "use metric units with me": how to serve, for good.
    r"|\b(?:please )?stop (?:suggesting|recommending|offering|sending me|giving me|using|adding"
    r"|putting|including|calling me)\b"
    # "rule for scheduling: nothing before 10am, ever", "when you summarize PRs for me keep it
    # to 5 bullets": how to serve, for good.
    r"|\b(?:ground )?rules? (?:for [\w -]{1,25})?:|, ever[.!]*$"
    r"|\bwhen(?:ever)? you (?:summari[sz]e|write|draft|reply|answer|send|schedule|book|suggest"
    r"|recommend|review|plan)\b[^.!?]{0,40}\b(?:keep|use|put|make|always|never|only|don't)\b"
    r"|\buse [\w -]{1,30}? (?:with|for) me\b"
    r"|\bplease,? always\b|\b(?:keep|make) (?:your|the) (?:answers?|repl(?:y|ies)|responses?)\b"
    r"|\bkeep (?:them|it|those|these|emails?|messages?|summaries|answers?|replies) (?:short|brief"
    r"|concise|under)\b"
    r"|\b(?:answer|reply|respond|write|talk|quiz me|speak)(?: to me)? (?:only )?in"
    r" (?-i:[A-Z])[a-z]+\b"
    # "回答请简短一点", "总结请用要点列出来", "用繁体字回复": how the assistant is to answer.
    r"|^(?:以后|今后|往后)?(?:回答|回复|总结|答复|摘要)[^，。！？]{0,3}?(?:请|都|要|的时候|简短|简洁"
    r"|精简|短一?点|详细)"
    r"|用(?:中文|英文|繁体字?|简体字?|要点|表格)(?:回复|回答|写|列)")
_TOLD_TO = re.compile(r"(?i)\b(?:you|your|please|me)\b")
# "Whenever possible, pick hotels with a gym": the time words, and a clause that opens with
# what to do.
_SERVE = re.compile(
    r"(?i)(?:^|[,;.] |\b(?:from now on|from here on|whenever possible|going forward),? )"
    r"(?:(?:actually|ok|okay|also|and|so|then|just)[, ]+)?(?:please )?(?:always |never |only )?"
    rf"(?:{_SERVICE}|send|get|find|search|avoid|skip)\b")
_TOLD_TO_ZH = re.compile(r"[我你您请帮给订发写]|回复|回答|推荐|安排")


# Literal pieces every match of _ALWAYS_DO / _FOR_GOOD_ZH holds: most sentences are ruled out
# by a substring test in C before the regexes try every position.
_ALWAYS_DO_KEYS = ("always", "never", "only", "don't", "do not", "keep", "make", "answer", "reply",
                   "respond", "write", "talk", "quiz", "speak", "stop ", " use ", "rule", ", ever",
                   "when you", "whenever you", "回答", "回复", "总结", "答复", "摘要", "用")
_FOR_GOOD_ZH_KEYS = ("以后", "今后", "从现在", "往后", "每", "一律", "统一", "永远", "始终", "绝对",
                     "千万", "别", "不要", "不用")


# An errand the speaker must do themselves, said as a duty ("I need to renew my passport",
# "得赶紧把毕业论文的查重做了"); not a wish to learn something, which an answer settles ("I need
# to figure out the tax rules", "我得查一下…").
_OWN_DUTY = re.compile(
    r"(?i:(?:i|we) (?:still |really |also )?(?:need to|have to|must|should|'ve got to|gotta"
    r"|got to)|^(?:still )?(?:need to|have to|gotta|got to)\b)"
    r"|^我(?:们)?(?:需要|得|必须|还得)|^(?:还)?得(?!到)")
_LEARN = re.compile(
    r"(?i:\b(?:need to|have to|got to|gotta|must|should) (?:know|find out|figure out"
    r"|understand|learn|decide|ask|check|look up|see)\b)"
    r"|(?:需要|得|必须)(?:知道|了解|搞清楚|弄清楚|查一下|查查|问问|问一下|想想)")


def own_errand(text: str) -> bool:
    """True when ``text`` is an errand of the speaker's own (see _OWN_DUTY): only the speaker's
    report, a tool or a confirmation closes it, not the assistant's advice about it."""
    lead = _LEAD_IN.match(text)
    at = lead.end() if lead is not None else 0
    return (_OWN_DUTY.match(text, at) is not None or _OWN_MID.search(text) is not None) \
        and _LEARN.search(text) is None


def _is_standing_ask(text: str) -> bool:
    if ("call" in text or "叫" in text or "go by" in text) and _CALL_ME.search(text):
        return True  # "Please call me Bob": how to address the speaker, for good
    low = text.lower()
    padded = f" {low}"  # " use " at the start too
    if any(k in padded for k in _ALWAYS_DO_KEYS) and _ALWAYS_DO.search(text):
        return True
    if not is_latin(text) and any(k in text for k in _FOR_GOOD_ZH_KEYS) \
            and _FOR_GOOD_ZH.search(text):
        # "以后都不会再来了" is a reviewer's verdict; an instruction says who or what is wanted.
        return _TOLD_TO_ZH.search(text) is not None or _NEVER_ZH.match(text) is not None
    found = _FOR_GOOD.search(text)
    return found is not None and (
        _TOLD_TO.search(text) is not None or _SERVE.search(text) is not None)


_YOUR_FACT = re.compile(
    r"(?i:\byour (?!(?:question|idea|point|call|choice|welcome|feedback|request|message|turn"
    r"|best|patience|help|concern|understanding)\b)[\w#'-]+(?: [\w#'-]+){0,2}"
    r" (?:is|are|was|were|has|have|expires?|renews?|starts?|ends?|ships?|shipped|arrives?"
    r"|arrived|departs?|lands?|leaves?|costs?|will be|has been|have been)\b)"
    # "您的会员等级是金卡", "您的订单A-7781已发货": an order or a code may sit in the middle.
    r"|(?:您|你)的[\u4e00-\u9fff]{1,8}?(?:[A-Za-z0-9][A-Za-z0-9-]{2,15})?(?:是|为|在|于|将于|已于|已)"
    # Read back to be confirmed: "跟您确认一下，您回程是18号的MU5137，对吗？".
    r"|确认一下[，,：:]?\s*(?:您|你)的?[\u4e00-\u9fff]{1,8}?(?:是|为|在)"
)


# "You're so smart", "你是一个坏老师": the user telling the assistant what it is, with nothing
# a question could ask for, says nothing of the user or the world.
_ABOUT_YOU = re.compile(
    r"(?i:(?:you are|you're|youre|you were|you sound|you seem|you look)(?![a-z]))"
    r"|(?:你|您)(?:是|真|太|好像|看起来|听起来|也太|怎么这么|这么)"
)


_LIGHT_WORDS_TEXT = (
    "i i'm i'll i've i'd me my mine we we're we'll we've us our you you're you'll ya your he "
    "she they them it it's its this that that's these those here there so too also just "
    "really totally very such got get gets getting did do does done doing have has had having "
    "was is are am be been being will can could would should may might must shall yes yeah "
    "yep no not nope true right same go going gone went come came made make keep kept posted "
    "post a an the of to at in on up out back for with and but or all what how wow oh ah aw "
    "haha lol ok okay thanks thank cool nice great good awesome amazing indeed sure exactly "
    "agree agreed one way well know see let let's by anyway actually basically honestly "
    "update correction sorry btw final answer scratch"
)
_LIGHT_WORDS = frozenset(_LIGHT_WORDS_TEXT.split())
_LATIN_WORDS = re.compile(r"[a-z][a-z']*")


_PROMISE_LEAD = re.compile(r"(?i)(?:i'll|i will|i'm gonna|i am gonna|i'm going to|gonna|will)\b")
_VAGUE_WORDS_TEXT = (
    "check keep make give take look think tell know update updated updating posted shout sure "
    "definitely really soon later hopefully maybe whenever things thing stuff list next steps "
    "try trying work working clearer better best"
)
_VAGUE_WORDS = frozenset(_VAGUE_WORDS_TEXT.split())


def _vague_promise(text: str) -> bool:
    """True for "I'll definitely check it out", "I'll keep you updated": a promise whose words
    are all generic verbs and adverbs (at most one word of its own)."""
    if len(text) > 100 or not is_latin(text) or not _PROMISE_LEAD.match(text):
        return False
    own = [w for w in _LATIN_WORDS.findall(text.lower().replace("’", "'"))
           if len(w) >= 4 and w not in _LIGHT_WORDS and w not in _VAGUE_WORDS]
    return len(own) <= 1


_ZH_LIGHT_CHARS = frozenset(
    "我你您他她它们的了是在有也都就还没不好吧呢啊嗯哦呀哈嘛啦么那这个些一下再想看到知道说做去来"
    "会要能可以行对嗯唉哎呃得很挺真太也样么怎吗过着把被给跟和又才呗噢喔额觉"
)
_ZH_PUNCT = frozenset("，。！？、；：…~～,.!? ")


def _says_nothing(text: str) -> bool:
    """True for a sentence made only of pronouns, light verbs, particles and interjections:
    "We got this!", "Same here!", "我也是。", "那就这样吧", "嗯嗯，我知道了"."""
    if is_latin(text):
        if len(text) > 60:
            return False
        words = _LATIN_WORDS.findall(text.lower().replace("’", "'"))
        return bool(words) and all(w in _LIGHT_WORDS or w in _DECIDED_WORDS for w in words)
    if len(text) > 16:
        return False
    chars = [ch for ch in text if ch not in _ZH_PUNCT]
    return bool(chars) and all(ch in _ZH_LIGHT_CHARS or ch in _ZH_DECIDED_CHARS for ch in chars)


# That it is decided, with nothing of what: "ok decided.", "Deal!", "就这么定了" (what was decided
# is kept with the offer it accepts, threads.py).
_DECIDED_WORDS = frozenset(("decided", "decide", "settled", "deal", "agreed", "final", "confirmed"))
_ZH_DECIDED_CHARS = frozenset("决定")


