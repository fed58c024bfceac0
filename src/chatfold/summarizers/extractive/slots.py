"""Slots: which statements a newer one replaces (same subject and attribute)."""

from __future__ import annotations

import re

from .lexicon import _ORPHAN_MIN_SCORE, _SURNAMES, ZH_NUMERALS, is_latin
from .scoring import _ASCII_LOWER, _SECOND_PERSON, _is_question, _says_nothing, _score_all
from .sentences import _HAS_WORD, _NON_WORD

# ---------------------------------------------------------------------------------------------
# slots: which statements a newer one replaces

_ZH_STOP = r"[^，。,.!?！？；;]"
_ATTR_ZH = re.compile(
    rf"(?P<residence>住在(?!{_ZH_STOP}{{0,8}}(?:酒店|宾馆|民宿|旅馆|客栈))|搬到|搬去|搬家到|定居"
    r"|(?<=我)住(?![院宿过了着在])(?=[\u4e00-\u9fff]{2}))"  # "我住回龙观"
    r"|(?P<budget>预算)|(?P<name>我叫|名叫|名字)"
    # (a number, not a call: "打电话说…", "电话来了", "手机坏了" fill no slot)
    r"|(?P<phone>电话号码?|手机号码?|(?:(?<![打回接通挂来去])电话|手机)(?=是|改|换|[:：]?\s*[\d+]))"
    r"|(?P<email>邮箱|电子邮件)"
    r"|(?P<address>地址)|(?P<job>职业|工作是|上班|就职|跳槽到|入职|任职|在职"
    # "我在腾讯做产品经理", "她在医院当护士": a role at a workplace.
    r"|(?:做|当)(?=[\u4e00-\u9fff]{0,4}(?:经理|工程师|设计师|老师|医生|护士|律师|会计|总监|主管"
    r"|程序员|销售|运营|分析师|顾问)))|(?P<age>岁)"
    r"|(?P<deadline>截止|期限)"
    r"|(?P<headcount>人数)|(?P<destination>目的地)|(?P<diet>吃素|素食|饮食)"
)
# English slot patterns run on the lowercased clause; re.ASCII makes \b treat Chinese
# characters as non-letters, so "我live in" still has a word boundary.
_ATTR_EN = re.compile(
    r"\b(?:(?P<residence>live[sd]? in|living in|moved to|move to|moving to|relocated to|based in)"
    r"|(?P<budget>budget)|(?P<name>name is|call me)|(?P<phone>phone(?: number)?|mobile|cell)"
    r"|(?P<email>e-?mail(?: address)?)|(?P<address>address)"
    r"|(?P<job>works? (?:at|for|as)|job is|occupation|(?:started|start|got|took|landed|accepted)"
    r" (?:a |my )?new (?:job|position|role)|joined)"
    r"|(?P<age>years old|my age|aged|turned(?= \d)|i'm(?= \d+\b(?! ?(?:am|pm|%|[a-z]))))"
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
_PERSON_ZH = re.compile(
    r"老婆|老公|妻子|丈夫|太太|女儿|儿子|孩子|妈妈|爸爸|母亲|父亲|父母|爷爷|奶奶|外公|外婆|哥哥"
    r"|姐姐|弟弟|妹妹|同事|老板|上司|领导|朋友|室友|客户|他们|她们|他|她"
)
_ZH_NAME = re.compile(rf"[小老][{_SURNAMES}]|[{_SURNAMES}][\u4e00-\u9fff]{{1,2}}")
_QUALIFIER_STOP_WORDS = (
    "i my our we the a an your you user user's users it this that now also so and but new"
    " total overall current still whole entire is was has have had will actually then just"
    " recently finally already"
)
_QUALIFIER_STOP_EN = frozenset(_QUALIFIER_STOP_WORDS.split())
_SUBJECT_STOP_ZH = re.compile(
    r"另外|对了|还有|然后|所以|但是|不过|而且|那边|这边|方面|关于|至于|总之|反正|顺便|首先|最后"
    r"|我们|我的|我|用户的?|你的|您的|你|您|的|现在|已经|也|还|都|目前|之前|原来|最近|将|会|要|想"
    r"|打算|准备|大概|总|整体|那|这|就|其实|本来|一直|则|是|在|刚刚?|才|又|再|不|没有?|很|太|非常"
    r"|特别|超|更|最|比较|有点|一点|真的?|挺|(?:上|下|这|本)个?(?:月|周|星期)|今年|去年|明年|前年"
    r"|今天|昨天|前天|前几天|上次|后来|终于|[0-9零一二两三四五六七八九十]+(?:年|月|号|日|天|周)(?:前|后)?"
)
_ROLE_EN = re.compile(
    r"\b(?P<who>[A-Z][a-z]+) (?:is|was|became|has become) (?:now |currently |still )?an? "
    r"(?P<what>[a-z]+)"
)
_NOT_A_ROLE_TEXT = (
    "big huge little bit lot fan member part great good bad nice real total new old few "
    "couple very really"
)
_NOT_A_ROLE = frozenset(_NOT_A_ROLE_TEXT.split())
_ONE_PER_PERSON = frozenset({"age", "job", "residence"})
_NUMERAL = re.compile(f"[0-9.{ZH_NUMERALS}]+")
_CLAUSE_SPLIT = re.compile(
    r"([，；;]\s*|,(?!\d)\s*|\s+(?:and|but|while|whereas)\s+|以及|并且|而且|但是?)"
)
_OWN_SUBJECT = re.compile(
    r"(?:我|你|您|他|她|它|用户)|(?i:(?:i|we|he|she|they|it|my|our|his|her|their|the|user)(?![a-z]))"
    r"|[A-Z]"
)
_LEADING_LINK = re.compile(
    r"(?i:(?:and|but|so|also|while|whereas)\s+)|(?:而且|并且|但是?|还有|另外)"
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
    r" (?:now|anymore|any more|too|also|either|so much|a lot|very much|much|better|more|best"
    r"|most|and|but|because"
    r"|since|over|than|instead|though|as|for|when|if|at|in|on|with|is|are|was|were)\b.*\Z",
    re.ASCII,
)
_OBJ_LEAD_EN = re.compile(r"(?:to |the |a |an |my |being |having )+")


_NUMBER_EN = r"\d[\d,]*|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a dozen"
_GEN_EN = re.compile(
    r"\b(?:my|our|(?P<owner>[a-z]+)'s) (?P<attr>[a-z]+(?: [a-z]+)?)"
    r" (?:is|are|was|were|became|has become|changed to|is now|are now)\b",
    re.ASCII,
)
_COUNT_EN = re.compile(
    r"\b(?:i|we) (?:now |still |already |currently |finally )?"
    r"(?:have|own|'ve got|have got|collected|got)(?: now)?"
    rf" (?:{_NUMBER_EN}) (?:(?:new|old|more|different|total) )?(?P<noun>[a-z]{{3,}})",
    re.ASCII,
)
_COUNT_HINT = re.compile(r"\b(?:have|got|collected|own)\b", re.ASCII)
# ("我的健身房现在在武康路": where a thing of the speaker's is, a time word before it.)
_GEN_ZH = re.compile(r"我的(?P<attr>[\u4e00-\u9fff]{1,6}?)(?:现在|目前|已经)?"
                     r"(?:是|叫|为|在|改成了?|换成了?|变成了?|搬到了?)")
_COUNT_ZH = re.compile(
    r"我(?:们)?(?:现在|已经|目前|一共|总共|还)?(?:有|养了|收集了|攒了|存了)了?"
    r"(?:[0-9]+|[一二两三四五六七八九十百]+)"
    r"(?:个|只|条|张|本|辆|套|件|位|名|盆|台|部|份|双|枚|家|间)"
    r"(?P<noun>[^\s和与跟及还也都在是了的，。,.!?！？；;0-9]{1,4})"
)


_ATTR_QUALIFIERS = frozenset({"new", "current", "updated", "latest", "actual", "real", "correct",
                              "old", "previous", "present", "新", "现在", "最新"})
_PHONE_WORDS = frozenset({"number", "cell number", "mobile number", "contact number"})


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
        rest = _NUMERAL.sub("", rest)  # "我今年28岁": the age, not "28"'s
        return "user", rest[-2:]  # "酒店预算", "机票预算": the word right before it
    names = [str(w) for w in _CAP_WORD.findall(prefix) if w not in _SUBJECT_STOP_EN]
    if names:
        return names[-1].casefold(), ""
    words = _lower(prefix).replace("’", "'").split()
    last = words[-1] if words else ""
    if last.endswith("'s") and last[:-2].isalpha() and last[:-2] not in _QUALIFIER_STOP_EN:
        return last[:-2], ""  # "my manager's name is Priya": the manager's, not the user's
    qualifier = last if last.isalpha() else ""
    return "user", "" if qualifier in _QUALIFIER_STOP_EN else qualifier


# What an attribute is for, said after it: "budget for the hotel", "deadline of the project".
_FOR_WHAT = re.compile(r"\s+(?:for|of)\s+(?:the\s+|my\s+|our\s+|this\s+|a\s+|an\s+)?([a-z]{3,})\b")


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
    han = not is_latin(clause)
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
    if m is None:
        return _generic_slot(clause, low, role, han, latin)
    prefix = clause[: m.start()]
    if not _HAS_WORD.search(clause, m.end()) and not (
        m.lastgroup in ("age", "job") and _HAS_WORD.search(prefix)
    ):
        return None  # no value: "my budget?"; an age or a workplace may come first ("34 岁")
    who = _subject(prefix, role)
    if who is None:
        return None
    if not who[1] and not han and (after := _FOR_WHAT.match(low, m.end())) is not None \
            and after.group(1) not in _QUALIFIER_STOP_EN:
        who = (who[0], after.group(1))  # "my budget for the hotel": the hotel's budget
    kind = m.lastgroup or ""
    # A person has one age, one job, one home: what comes before is the value ("在阿里巴巴
    # 上班"), not a qualifier of the attribute as in "酒店预算".
    if kind in _ONE_PER_PERSON:
        if who[1] and not han:
            return None  # "The meeting moved to Wednesday": a thing moved, not a person
        return ("attr", who[0], kind, ""), prefix
    return ("attr", who[0], kind, who[1]), prefix


def _generic_slot(
    clause: str, low: str, role: str, han: bool, latin: bool
) -> tuple[tuple[str, ...], str] | None:
    """Any attribute the speaker states of themselves or someone named: "my X is Y",
    "Anna's X is Y", "我的X是Y" (slot: who + X), and counts of a thing the speaker has:
    "I have 17 postcards", "我有17张明信片" (slot: who + thing). A newer value replaces it."""
    # Substring guards first: most clauses hold none of these, and `in` costs far less.
    role_of = _ROLE_EN.search(clause) if latin and " a" in clause else None
    if role_of is not None and role_of.group("who") not in _SUBJECT_STOP_EN \
            and role_of.group("what") not in _NOT_A_ROLE:
        # "Sarah is now a principal": what a named person is, replaced when it says it changed.
        return ("role", role_of.group("who").casefold()), clause[: role_of.start()]
    m = _first(
        _GEN_ZH.search(clause) if han and "我的" in clause else None,
        _COUNT_ZH.search(clause) if han and "我" in clause else None,
        _GEN_EN.search(low) if latin and ("my " in low or "our " in low or "'s " in low) else None,
        _COUNT_EN.search(low) if latin and _COUNT_HINT.search(low) else None,
    )
    if m is None:
        return None
    groups = m.groupdict()
    if not groups.get("noun") and not _HAS_WORD.search(clause, m.end()):
        return None  # "my plan is…" with no value yet
    prefix = clause[: m.start()]
    if groups.get("owner"):
        who: tuple[str, str] | None = (str(groups["owner"]), "")
    else:
        who = _subject(prefix, role)
    if who is None:
        return None
    if groups.get("noun"):
        noun = str(groups["noun"])
        noun = noun[:-1] if noun.endswith("s") and len(noun) > 3 else noun
        return ("count", who[0], noun), prefix
    attr = " ".join(w for w in str(groups["attr"]).split() if w not in _ATTR_QUALIFIERS)
    named = _ATTR_EN.search(attr) if is_latin(attr) else _ATTR_ZH.search(attr)
    if named is not None or attr in _PHONE_WORDS:
        # "my new number is…", "my current email is…": the attribute a named slot keeps.
        kind = "phone" if named is None else named.lastgroup or ""
        return ("attr", who[0], kind, who[1]), prefix
    return ("attr", who[0], "is:" + (attr or str(groups["attr"]))), prefix


def _slots(
    body: str, role: str, speaker: str = ""
) -> tuple[list[str], list[tuple[tuple[str, ...], int, str]]]:
    """Clauses of ``body`` (separators at odd indexes) and the slots they fill.

    Each slot comes with the index of its clause and the text before its keyword (the subject,
    used to keep a later clause readable when this one is replaced). Questions fill no slot.
    A named ``speaker`` (a participant with a ``name``) speaks of themselves in the first
    person, whatever their role, and their slots are theirs, not the user's.
    """
    if speaker:
        role = "user"
    if _is_question(body) or (role == "assistant" and not _SECOND_PERSON.search(body)):
        return [], []  # the assistant fills a slot only when it speaks about the user
    parts = _CLAUSE_SPLIT.split(body)
    found = []
    me = speaker.casefold()
    for i in range(0, len(parts), 2):
        hit = _clause_slot(parts[i], role)
        if hit is not None:
            slot = hit[0]
            if me and slot[1] == "user":
                slot = (slot[0], me, *slot[2:])
            found.append((slot, i // 2, hit[1]))
            words = slot[2].split() if slot[0] == "pref" else ()
            if slot[0] == "pref" and not is_latin(slot[2]) and "的" in slot[2][:-1]:
                # "靠过道的座位" / "靠窗的座位": the same kind of thing, as "aisle seats".
                found.append((("prefhead", slot[1], slot[2].rsplit("的", 1)[1]), i // 2, hit[1]))
            if len(words) >= 2 and is_latin(words[-1]):
                # "aisle seats" / "window seats": the same kind of thing, which a newer
                # preference replaces when it says it changed ("…now", "actually…").
                head = words[-1][:-1] if words[-1].endswith("s") else words[-1]
                found.append((("prefhead", slot[1], head), i // 2, hit[1]))
    return parts, found


def _without_clauses(parts: list[str], removed: set[int], subjects: dict[int, str]) -> str:
    """The statement with the replaced clauses taken out ("" when nothing is left)."""
    kept = [i for i in range(0, len(parts), 2) if i // 2 not in removed]
    if not kept:
        return ""
    text = parts[kept[0]]
    for i in kept[1:]:
        text += parts[i - 1] + parts[i]
    link = _LEADING_LINK.match(text) if 0 in removed else None
    if link is not None:  # "…, and I live in Austin" without its first clause: "I live in…"
        text = text[link.end():]
        text = text[:1].upper() + text[1:]
    if _says_nothing(text.strip(" ,，;；.。!！")):
        return ""  # "My name is Dana, by the way" without its name: nothing is left to say
    if 0 in removed and not _OWN_SUBJECT.match(text):
        subject = subjects.get(0, "").strip()
        if subject and len(subject) <= 20:
            text = f"{subject}{' ' if is_latin(subject[-1:]) else ''}{text}"
        elif _score_all([text], ["summary"])[0].score < _ORPHAN_MIN_SCORE:
            return ""  # a leftover like "不含机票" means nothing without the replaced clause
    last = len(parts) - 1
    if last not in kept:
        end = _TERMINAL.search(parts[last])
        text = text.rstrip(" ,，;；") + (end.group() if end else "")
    return text


