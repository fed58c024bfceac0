"""Threads across messages: a proposal and its acceptance, a request and its fulfilment.

* **Proposal + acceptance = one decision.** "How about Hotel Lumière?" then "OK, book it":
  the user's short acceptance says nothing alone and the assistant's offer is only an offer;
  together they are a decision, kept as one ``Decisions`` line ("User agreed: How about Hotel
  Lumière?"). An acceptance opens the user's message ("ok", "sure", "yes", "sounds good",
  "好的", "行", "就这个"...), is not a question, is not negated ("ok, but no", "不用"), and
  answers an assistant message that offers something (a proposal cue and a content word).
* **A request is closed when it is fulfilled.** A user request (an ``Open tasks`` line) is
  closed by a later assistant statement or tool result that shares a content word with it
  and either reports it done ("booked", "I've sent", "已订好", "完成") or is a tool result, or
  answers a request for information (a question). A promise ("I'll book it") closes nothing.
  The asked verb reported done ("book…" → "Booked: …", "订…" → "已为您预订…") and two numbers
  repeated ("6个人，晚上18点" → "已订好18点6位") count as words in common.
  A reminder set or promised ("I'll remind you Friday") marks its errand; the errand stays
  open until the user reports it done.
* **A pick among listed options is a choice.** "Found Sun Yoga and Flow Studio. Which one?"
  then "Sun Yoga, please." (or an either-or question and its answer) is one decision; so is a
  pick by place ("the first one", "还是第一个吧"), by description ("so the dim sum place"), by
  "that one" after a sentence that describes it, and the assistant saying what the user's
  reasons leave ("Then the elliptical it is", "那就上客如云"). An either-or question about what
  is ("Is it a yoga studio or a gym?") is answered by a fact, not a pick.
* **An instruction the assistant took on is kept as the user's ask.** "For shift schedules use
  24-hour time please" then "Makes sense. Shift schedules in 24-hour time from now on": the
  assistant's acknowledgement ("Understood", "Got it", "Noted", "Will do", "好的，以后…",
  "收到") followed by its restatement marks the user's words it restates: kept as "User asked:
  …" when the reply or the user's words say it is for every time ("from now on", "any time
  we…", "以后", "统一"...; a weak "sure"/"好的" counts only with them). An errand the
  assistant promises to do ("Sure, I'll look for renewal classes…", "好的，我会…") is kept as
  "User asked: …" too, but as an open task until it is reported done (``commits``).
* **A short answer goes with its question.** "Where will you be flying from?" then "Boston."
  is kept as "Where will you be flying from? → Boston."; with a value about the user's own it
  is worth "my X is Y".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache

from .lexicon import ON_LIST_ASK_EN, ON_LIST_HEAD_EN, ON_LIST_ZH, TITLES, _is_pleasantry, is_latin
from .lexicon import ZH_PLACES as _ZH_PLACES
from .sentences import _normalise, split_sentences

# The user's opening words that accept what was just offered.
_ACCEPT = re.compile(
    r"\s*(?:(?i:ok(?:ay)?|sure|yes|yeah|yep|yup|sounds?\s+(?:good|great|perfect|fine)"
    r"|(?:great|good|nice|brilliant|cool)\s+idea|great|perfect|deal|agreed|i\s+agree"
    r"|let'?s\s+(?:do|go\s+with|book|take)|go\s+(?:ahead|with)"
    r"|book\s+it|do\s+it|that\s+works|works\s+for\s+me|i'?ll\s+take|fine|alright|all\s+right"
    r"|absolutely|definitely|please\s+do)(?![a-z])"
    r"|好的|好啊|好吧|好(?=[，,。.!！\s]|$)|行(?=[，,。.!！\s]|$)|可以(?=[，,。.!！\s]|$)|没问题|同意"
    r"|就这个|就这家|就它|就订|就选|就按|就用|那就|订吧|成交"
    # The yes to a read-back ("…确认一下…对吗？"): "对的", "是的", "没错".
    r"|对的|是的|没错|对(?=[，,。.!！\s]|$)"
    r"|听你的|就这么办|就这样"
    # The yes to "要不要…？", "需要…吗？".
    r"|(?:嗯嗯?[，,]?)?(?:要的|要啊|(?:需)?要(?=[，,。.!！\s]|$)))"
)
_MAX_REST_LATIN = 48
_MAX_REST_HAN = 16
_REFUSE = re.compile(
    r"(?i:\b(?:no|not|don't|do\s+not|never|instead|rather|but)\b)|不|别|算了|换|还是|再看看"
)
# An assistant sentence that offers something to choose or accept.
_PROPOSE = re.compile(
    r"(?i:how\s+about|what\s+about|\bi(?:\s+would|'d)?\s+(?:suggest|recommend|propose)"
    # ("Would you like to share the recipe?", "Do you want to talk about it?" ask the user to
    # tell: nothing offered to decide.)
    r"|shall\s+i|should\s+i|(?:would\s+you\s+like|do\s+you\s+want)(?!\s+to\s+(?:share|tell"
    r"|talk|show|chat|vent|hear\s+(?:more|about)|say\s+more|send\s+me|explain)\b)"
    r"|want\s+me\s+to|you\s+could"
    r"|we\s+could|my\s+(?:pick|suggestion|recommendation)|option|why\s+not|i\s+can\s+(?:book|"
    r"reserve|order|set|schedule)|let\s+me\s+(?:book|reserve|order)|best\s+(?:choice|bet)"
    r"|i(?:\s+would|'d)\s+(?:go\s+with|pick|choose|take)"
    # Read back for the user to confirm: "Just to confirm, your flight is AA 2291 on the 18th?"
    r"|(?:just\s+)?to\s+confirm|can\s+you\s+confirm|confirming)"
    r"|确认一下|核对一下"
    r"|要不要|怎么样|如何|推荐|建议|可以选|可以订|可以约|不如|需要我|要我|方案|备选|选项|帮你订|帮您订"
    r"|给你订"
    r"|(?:^|[，,])那?(?:要|需要)(?:预订|预约|订|买|约|安排|下单)(?:吗|么)"  # "要订吗？"
    r"|(?i:^(?:so,?\s+)?(?:do\s+you\s+)?want\s+(?:a|an)\s+\w)"  # "Want a reminder to…?"
)
_DONE = re.compile(
    r"(?i:\b(?:done|booked|reserved|ordered|sent|scheduled|completed|finished|fixed|created"
    r"|added|updated|cancelled|canceled|paid|confirmed|submitted|set\s+up|here\s+is|here's"
    r"|(?:reminder|alarm|timer|meeting|appointment|call)s?\s+(?:is\s+|are\s+|has\s+been\s+)?set"
    r"|(?:is|are|'s)\s+(?:now\s+)?(?:on|in)\s+(?:your|the)|all\s+set|you're\s+(?:all\s+)?set"
    r"|here\s+are|i've|i\s+have|has\s+been|have\s+been|is\s+now|are\s+now"
    r"|(?:confirmation|booking|reservation|order|reference)\s+(?:number|no|code|id|reference|ref)"
    r")\b)"
    r"|已经?|完成|搞定|好了|订好|办好|发好|改好|弄好|处理好|查到|结果|如下|这是"
)
_PROMISE = re.compile(
    r"(?i:\b(?:i'll|i\s+will|will\s+do|i'm\s+going\s+to|let\s+me|we'll|we\s+will)\b)"
    r"|我会|我来|我去|马上|稍后"
)
# For later, when the user is ready: "Whenever you're ready, we'll write something warm".
_WHEN_READY = re.compile(r"(?i:\b(?:when|whenever)\s+you're\s+ready\b)|等你(?:准备好|有空|方便)")
# A report that gives what a booking or an order made: a reference to quote later.
_CONFIRMATION = re.compile(
    r"(?i:\b(?:confirmation|booking|reservation|order|reference|ticket|tracking)(?:\s+(?:number"
    r"|no\.?|code|id|ref|reference|#))?\s*[:：#]?\s*[A-Z0-9-]*\d[A-Z0-9-]{2,})"
    r"|(?:订单|预订|确认|预约|取票|票)(?:号|码)(?:是|为)?\s*[:：]?\s*(?=[A-Za-z-]*\d)[A-Za-z0-9-]{4,}"
    # What an agent made, by its key: "Created JIRA-2291 for the login bug", "opened PR #418",
    # "已创建工单JIRA-2291".
    r"|(?i:\b(?:created|opened|filed|raised|logged|submitted)\b)[^.!?\n]{0,24}?"
    r"(?:\b[A-Z][A-Z0-9]+-\d+|#\d{2,})"
    r"|(?:创建|提交|新建|开了)(?:了)?(?:工单|PR|issue|任务)?\s*(?:[A-Z][A-Z0-9]+-\d+|#\d{2,})"
    # What a lookup found for the user, by its key: "Found it — order BX-40219", "查到了，是
    # DD20240611087".
    r"|(?i:\bfound (?:it|the|your|her|his|their)\b)[^.!?\n]{0,24}?\b[A-Z]{1,5}-?\d{4,}"
    r"|(?:查到|找到)了?[^。！？\n]{0,10}?[A-Z]{1,5}-?\d{4,}"
)
# "I can't book flights, but here are some options": what was asked was not done.
_REFUSAL = re.compile(
    r"(?i:\b(?:i\s+(?:can't|cannot|can\s+not|am\s+unable\s+to|'m\s+unable\s+to|don't\s+have"
    r"\s+(?:access|the\s+ability))|unable\s+to|not\s+able\s+to|unfortunately|wasn't\s+able"
    r"|couldn't|could\s+not|failed\s+to"
    # What was asked for is not to be had: "Nopa is fully booked on Saturday".
    r"|fully\s+booked|booked\s+up|sold\s+out|no\s+availability|not\s+available|unavailable"
    r"|no\s+(?:tables?|rooms?|seats?|slots?|tickets?)\s+(?:left|available))\b)"
    r"|我?(?:无法|不能|没法|没办法)(?:帮|为|替|直接)?|抱歉|很遗憾|失败"
    r"|订满|约满|已满|满了|售罄|卖完了|没有空位|没位|没有位置|没有房|无房|没票"
)
# Asks for text the reply itself is ("Translate this into Spanish: …" → "Hasta mañana."): the
# very next answer does it, whatever its words.
_TEXT_TASK = re.compile(
    r"(?i:\b(?:translate|rephrase|reword|rewrite|paraphrase|summari[sz]e|proofread|shorten"
    r"|spell[- ]check"
    # What the reply writes or works out in the chat: "can you write a short description?",
    # "帮我算下第一次要付多少钱？", "写段催 review 的话".
    r"|write|draft|compose|calculate|compute|work out)\b)"
    r"|翻译|译成|改写|润色|总结|概括|缩写|改成英文|改成中文|帮我算|算一下|算下|算算|计算一下|写(?:一?[段封份首篇条]|个|一下)|起草|拟(?:一?[份个封])"
)
# A reply that is the text asked for is more than "Of course." or "好的。"; an ask for later ("Can
# you later help me write…", "今天不急，明天给我就行") is not answered by the next message.
_WRITTEN_CHARS = 20
_FOR_LATER = re.compile(r"(?i:\blater\b|\btomorrow\b|when i'm ready)|不急|明天|回头|晚点|改天")
_QUESTIONISH = re.compile(
    r"[?？]|吗|(?i:\b(?:what|which|when|where|who|how|tell\s+me|show\s+me|give\s+me"
    r"|(?<!my\s)(?<!the\s)(?<!our\s)list|find"
    r"|look\s+up|check|search|pull\s+up|any\s+(?:news|word|updates?)|status\s+of)\b)"
    # ("好几天", "十几个", "几十块" say several, asking nothing)
    r"|什么|哪|多少|(?<![好十])几(?![十百千万乎])|查|告诉|怎么|调出|进度|进展|看看|看一下|看下"
    # "报告出来没", "到了没有": asked without a mark.
    r"|[了来到好完]没有?(?![\u4e00-\u9fff])"
)
_LATIN_WORD = re.compile(r"[a-z][a-z0-9'-]{3,}")
_HAN = re.compile(r"[\u4e00-\u9fff]{2,}")
_STOP_TEXT = (
    "about after again also been before being could does doing done from have having here "
    "next last "
    "into just like make more most much need needs only over please same some such than that "
    "their them then there these they this those very want what when where which while will "
    "with would your you're yours remind check find tell book order send show give help "
    "thanks thank sure okay anything something else other another shall should however "
    "i've i'll i'm we've we'll we're you've you'll they're they've it's that's there's here's"
)
_STOP = frozenset(_STOP_TEXT.split())
# Three-letter words are mostly function words ("the", "was", "our"), so content words start at
# four letters; these short ones name the very things people's facts and errands are about.
_SHORT_NOUNS_TEXT = (
    "tax car van bus cab gym vet dog cat pet mom dad son kid job fee app bug key bag art "
    "tea map bed toy ssn vpn api"
)
_SHORT_NOUNS = frozenset(_SHORT_NOUNS_TEXT.split())
_SHORT_WORD = re.compile(r"\b[a-z]{3}\b")
_HAN_CHAR = re.compile(r"[\u4e00-\u9fff]")
# A thing described, then pointed at: "下棋那个", "贵的那家" (not "好吧").
_DESCRIBED_ZH = re.compile(r"[\u4e00-\u9fff](?:的)?(?:那|这)(?:个|家|款|种|个班|间)")
# Chinese pairs that say what any sentence may say ("到时候" and "买的时候" share "时候",
# "又开始滴水" and "开始买的" "开始"): no sign two statements speak of one thing.
_ZH_STOP_PAIRS_TEXT = (
    "时候 开始 什么 觉得 现在 已经 因为 所以 但是 可以 没有 知道 东西 时间 一下 怎么 这样 那样"
    " 还是 就是 不是 如果 虽然 而且 然后 比较 非常 特别 真的 感觉 一直 以后 之后 之前 自己 大家"
    " 问题 这么 那么 好多 很多 一些 有点 好像 应该 可能 一起 一样 其实 不过 结果 毕竟 反正 终于"
    " 只能 只是 差点 一点 还有 有些 几乎 稍微 居然 竟然 简直 本来 原来 当时 后来"
)
_ZH_STOP_PAIRS = frozenset(_ZH_STOP_PAIRS_TEXT.split())
_ZH_STOP_CHARS = frozenset("我你您的了是在和吗呢吧啊一个这那也就都要请帮下")


def is_acceptance(sentence: str) -> bool:
    """True when ``sentence`` (the first of a user message) accepts what was just offered."""
    m = _ACCEPT.match(sentence)
    if not m or sentence.rstrip()[-1:] in ("?", "？"):
        return False
    rest = sentence[m.end() :]
    if rest[:1].isalnum() and is_latin(rest[:1]):
        return False  # "okayish", "yesterday": a longer word, not an acceptance
    if len(rest) > (_MAX_REST_LATIN if is_latin(rest) else _MAX_REST_HAN):
        return False  # a long statement that opens with "ok" is a statement, not a yes
    return _REFUSE.search(rest[:24]) is None


def acceptance_rest(sentence: str) -> str:
    """What an acceptance says beyond accepting ("OK, book it for 3 nights" → "for 3 nights"
    once "OK" and "book it" are taken off)."""
    rest = sentence
    while True:
        m = _ACCEPT.match(rest)
        if not m or not m.group().strip():
            return rest
        rest = rest[m.end() :].lstrip(" ,，.。!！、")


# An offer that points back at what was just said: "Shall I book it?", "要不要帮您预订？".
_POINTS_BACK = re.compile(
    r"(?i:\b(?:it|that|this|one|them|those)\b)|[订买约排](?:吗|呢)?[?？。]*$"
)


# A tentative offer ("Maybe use Redis for the cache?", "或许可以用Redis"): an offer only when it
# names something, a product, a place or a number, as an assistant's offers do; in friends'
# chat "maybe try yoga?" is a passing thought.
_SOFT_PROPOSE = re.compile(
    r"(?i:\b(?:maybe|perhaps)\s+(?:we\s+|you\s+)?(?:use|go\s+with|try|book|take|pick|switch)"
    r"|\bconsider(?:ing)?\b|\bwhat\s+if\s+we\b)|或许可以|可以考虑|要不(?!要)"
)
_NAMES_SOMETHING = re.compile(r"(?<=\S)\s*[A-Z][A-Za-z0-9]|\d|(?<=[\u4e00-\u9fff])[A-Za-z]")


_SECONDARY = re.compile(
    r"(?i:(?:other|alternative|backup)\s+(?:options?|choices?|ideas?)|alternatively|otherwise"
    r"|you\s+could\s+also|or\s+you\s+could)\b|其他(?:选择|方案|选项)|另外也可以|备选")


def proposal(sentences: list[str]) -> str | None:
    """The sentence of an assistant message that offers something (the last one with a
    proposal cue and a content word), or None. An offer that names nothing and points back
    ("Found UA 455 at $279. Shall I book it?") offers the sentence before it."""
    # "I'd go with a pear tart. … Other options would be cardamom knots": the offer is the
    # first; the others are named in passing, and taken only when nothing else is offered.
    secondary = [i for i, s in enumerate(sentences) if _SECONDARY.match(s)]
    order = [i for i in range(len(sentences) - 1, -1, -1) if i not in secondary] + secondary[::-1]
    for i in order:
        s = sentences[i]
        if not _PROPOSE.search(s) and not (_SOFT_PROPOSE.search(s)
                                           and _NAMES_SOMETHING.search(s)):
            continue
        if content_tokens(s):
            return s  # "anything else?" offers nothing to decide
        if i and _POINTS_BACK.search(s) and content_tokens(sentences[i - 1]) \
                and sentences[i - 1].rstrip()[-1:] not in ("?", "？"):
            return sentences[i - 1]
    return None


# The words that call a listing's items options, and pick none of them by themselves.
_LISTING_WORD = re.compile(r"(?i:\boptions?\b)|选项|方案|备选")


def lists_options(offer: str, options: list[str]) -> bool:
    """Whether ``offer`` lays out the listed ``options`` rather than proposing one of them:
    its one word of offering calls them options ("Three options: Verde Cocina, family-style
    Mexican at $58 a head;" then "Olympia…; and Harvest Table Co…."). A yes to it chooses
    none of them; "I'd recommend the first option" still proposes one."""
    return len(options) >= 2 and _LISTING_WORD.search(offer) is not None \
        and _PROPOSE.search(_LISTING_WORD.sub("", offer)) is None


# How an offer is asked, at its start or end: what is left is what was chosen.
_OFFER_HEAD = re.compile(
    r"(?i:(?:so,?\s+|ok(?:ay)?,?\s+)?(?:shall\s+i|should\s+i|do\s+you\s+want\s+me\s+to"
    r"|would\s+you\s+like\s+me\s+to|want\s+me\s+to|i\s+can|let\s+me|how\s+about"
    r"|(?:do\s+you\s+)?want(?=\s+an?\s)"
    r"|what\s+about|why\s+not|\bi(?:\s+would|'d)?\s+(?:suggest|recommend|propose)"
    r"|(?:just\s+)?to\s+confirm,?|confirming,?)\s+)"
    r"|^(?:那)?(?:要不要|需不需要|要不|不如)(?:我)?(?:帮你|帮您|给你|给您)?"
    r"|^(?:跟|和|向)?(?:您|你)?(?:确认|核对)一下[，,：:]?\s*"
    r"|^(?:我)?(?:建议|推荐)(?:你|您)?(?:选择?|用|订|去|买)?"
)
_ZH_ASKED = re.compile(
    r"(?:怎么样|如何|好吗|好不好|可以吗|行吗"
    r"|[，,]\s*(?:要不要|需不需要|需要|要)我?(?:帮你|帮您|给你|给您)?(?:订|预订|预约|安排|买)?吗?)"
    r"[?？。！!]*$"
)
_OFFER_TAIL = re.compile(
    r"(?i:\s+for\s+you|,?\s+(?:then|instead))?\s*[?？.!。！]*$"
    r"|(?:怎么样|如何|好吗|好不好|可以吗|行吗|吗|呢)?[?？.!。！]*$"
    r"|(?i:,?\s+(?:right|correct|is\s+that\s+right))?\s*[?？]$|[，,]?(?:对吗|对吧|是吗)[?？]$"
)


def as_choice(offer: str) -> str:
    """The offer as what was chosen: "Shall I book the Hotel Arts for you?" → "book the Hotel
    Arts"; "要不要帮你订香格里拉酒店？" → "订香格里拉酒店". Unchanged when the cut would leave
    nothing to say."""
    head = _OFFER_HEAD.match(offer)
    if head is None and _ZH_ASKED.search(offer) is None:
        return offer  # "Would you like a window seat?": no wording to take off
    rest = offer[head.end():] if head else offer
    asked = _ZH_ASKED.search(rest)
    tail = asked if asked is not None and asked.start() > 0 else _OFFER_TAIL.search(rest)
    if tail is not None and tail.start() > 0:
        rest = rest[: tail.start()]
    rest = rest.strip(" ,，")
    return rest if content_tokens(rest) else offer


def content_tokens(text: str) -> frozenset[str]:
    """Words that say what a statement is about: Latin words of 4+ letters (stop words out,
    a plural's "s" cut) and Chinese character pairs (without function characters)."""
    low = text.lower()
    out = set()
    for w in _LATIN_WORD.findall(low):
        if w[-2:] == "'s" or w[-1] in "'-":
            w = w.removesuffix("'s").strip("'-")  # "Anna's" is Anna
            if len(w) < 4:
                continue  # a short noun ("mom's") is found with the others below
        if w not in _STOP:
            out.add(_stem(w))
    out.update(_SHORT_NOUNS.intersection(_SHORT_WORD.findall(low)))
    for run in _HAN.findall(text):
        # Pairs of neighbours only: "比这个价钱" holds "价钱", not "比价" across "这个".
        for a, b in zip(run, run[1:], strict=False):
            if a not in _ZH_STOP_CHARS and b not in _ZH_STOP_CHARS \
                    and a + b not in _ZH_STOP_PAIRS:
                out.add(a + b)
    if "把" in text:
        # "把药拿了" is "拿药" done: the verb and its object in the usual order too.
        out.update(m.group(2) + m.group(1)[0] for m in _BA.finditer(text))
    return frozenset(out)


_BA = re.compile(r"把([\u4e00-\u9fff]{1,4}?)([拿取还交买订寄办修付写做发])(?=[了好完])")


class TokenMemo(dict[str, frozenset[str]]):
    """``content_tokens`` of each distinct text, for one fold (a long history repeats itself)."""

    def __missing__(self, text: str) -> frozenset[str]:
        # The summarizer's own label is no word of what was said: two "User asked: …" lines
        # share nothing by it.
        words = self[text] = content_tokens(_OWN_LABEL.sub("", text, count=1))
        return words


_OWN_LABEL = re.compile(r"^(?:User(?: agreed| chose| asked)|用户(?:同意|选择|要求))[:：]")


def _stem(word: str) -> str:
    """A light English stem, enough to match "opening hours" with "open … hour"."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and (len(word) - len(suffix) >= 4
                                      or word[: -len(suffix)] in _SHORT_NOUNS):
            return word[: -len(suffix)]
    return word



# The assistant saying it took something down: "记下了，…", "Noted: …", "Got it, I'll remember".
_NOTED = re.compile(
    r"\s*(?:好的?[，,]?\s*)?(?:记下了|记住了|记好了|已记下|已经记下|已记录)"
    r"|(?i:\s*(?:ok(?:ay)?,?\s*|got it[,.!]?\s*)?(?:noted\b|i'll (?:remember|keep (?:that|it) in"
    r" mind)|i've (?:noted|made a note)|making a note|note(?:d)? (?:that|it) down))")


def fulfils(request: str, request_tokens: frozenset[str], later: str, later_role: str,
            *, adjacent: bool = False, later_tokens: frozenset[str] | None = None,
            sole: bool = False) -> bool:
    """True when ``later`` (an assistant statement, a tool line, or the user saying it is
    done) fulfils ``request``: they share two content words (one when the request has only
    one, or ``later`` is in the very next message), and ``later`` reports it done, is a tool's
    result, or answers a question. A reminder promised is a reminder set (the summarizer
    marks its errand and keeps it open). ``later_tokens``:
    the caller's ``content_tokens(later)``, with what came with it in its message and is no
    sentence (a code block). ``sole``: no other open task shares as much with ``later`` (see
    :func:`names_thing`); then a user's report of it done needs only the one word it names
    the thing by ("我得去续签护照" … "新护照今天寄到了")."""
    if later_role == "assistant":
        if _REFUSAL.search(later) or _NOTED.match(later) or _WHEN_READY.search(later):
            return False  # (noting an errand down does not do it: "记下了，车险7月25号到期")
        promised = _PROMISE.search(later)
        done = _DONE.search(later) if promised is not None else None
        if promised is not None and (done is None or 0 <= done.start() - promised.end() <= 2) \
                and not (_REMIND.search(request) and _REMIND_SET.search(later)):
            return False  # "When you're ready I'll set up a nightly snapshot": still to do
        if adjacent and _TEXT_TASK.search(request) and not _PROMISE.search(later) \
                and not _COMMITS.search(later) and not later.rstrip().endswith(("?", "？")) \
                and len(later) >= _WRITTEN_CHARS and not _FOR_LATER.search(request):
            return True  # a translation is its own answer, whatever its words
    if later_tokens is None:
        later_tokens = content_tokens(later)
    if "called" in later and _NAMED_CALLED.search(later):
        # "This game is called Dungeons": a name given, nobody called ("call the landlord").
        later = _NAMED_CALLED.sub(" ", later)
        later_tokens = later_tokens - _CALL
    common = request_tokens & later_tokens
    # A time in common is no sign of the thing done: "a plumber this week" and "a permit takes
    # 3-4 weeks" (nor, next to it, "book Nopa for Friday" and "the weather for Friday").
    shared = len(common - _TIME_WORDS)
    numbers = shared_numbers(request, later)
    shared += numbers
    if numbers and not common:
        common = frozenset({"<numbers>"})
    # "订好了", "已为您预订" name the asked "订"; "Booked: Dr. Kim…" the asked "book".
    verb = _ZH_DONE_VERB.search(later) if not is_latin(later) else None
    asked = (verb.group("v") or verb.group("w") or verb.group("f") or ""
             if verb is not None else None)
    did = _did_what_was_asked(request, later)
    if did:
        shared -= len(common & _DONE_WORDS)  # the verb counts once, as done: "I called my mom"
    if (asked is not None and asked in request) or did:
        shared += 1
    if later_role == "assistant" and confirms(later):
        shared += 1  # "Booking reference HX-5521", "订单号H123456": something was made
        if not common and (asked or did):
            common = frozenset({"<confirmation>"})  # of the very thing asked: "Book…"
    if adjacent:
        # The very next message: one word of what was asked is enough, a time is not ("book
        # Nopa for Friday" → "the weather for Friday"); "Reminder set." answers "remind me".
        # (A reminder promised only marks its errand: the errand stays open.)
        if not shared and not (later_role == "assistant" and _REMIND.search(request)
                               and _REMIND_SET.search(later)):
            return False
    elif not common or (shared < min(1 if sole and later_role == "user" and _names_more_than_verb(
            request, common) and not common <= _PEOPLE else 2,
                                     len(request_tokens)) and not (
            # "Remind me to call the bank on Monday" → "I'll remind you on Monday at 9am": a
            # reminder promised names when, often nothing else.
            later_role == "assistant" and _REMIND.search(request) and _REMIND_SET.search(later))):
        return False
    if later_role == "tool":
        return True
    if later_role == "user":
        return user_done(later)
    if _REMIND.search(request) and _REMIND_SET.search(later):
        return True  # "remind me on Thursday" → "I'll remind you Thursday at 9"
    if _PROMISE.search(later) and not _DONE.search(later):
        return False
    done = _DONE.search(later)
    if done is not None and _ON_LIST.fullmatch(done.group()) and not _LIST_ASKED.search(request):
        # "Both are on the list": noted, not done, unless a list was what was asked for.
        done = None
    # A request to be noted or reminded ("老爸要查个眼底，帮我记着") is answered by advice about
    # its thing, never fulfilled by it; its "查" asks nothing.
    return done is not None or (bool(_QUESTIONISH.search(request))
                                and not asks_reminder(request)
                                and _NOTE_ASK.search(request) is None)


# What asks, besides a reminder, only that something be remembered: a note.
_NOTE_ASK = re.compile(r"(?i:\b(?:remember|note down|write down) (?:this|that|it)\b)"
                       r"|记着|记一下|记下|记住|记个")


_ON_LIST = re.compile(r"(?i)(?:is|are|'s)\s+(?:now\s+)?(?:on|in)\s+(?:your|the)")
_LIST_ASKED = re.compile(r"(?i:\b(?:list|cart|basket|calendar|agenda|notes?)\b)|清单|购物车|日历")


_NUMBER = re.compile(r"(?<![0-9.])[0-9]+(?:[.:][0-9]+)?(?![0-9])")
_REF = r"(?:reference|ref|number|no|code|id|confirmation|confirmed|is\s+confirmed)"
# An English request's verb and the words that report it done.
_DONE_FORMS = {
    "book": f"booked|booking {_REF}", "order": f"ordered|order {_REF}", "send": "sent",
    "schedule": "scheduled", "reserve": f"reserved|reservation {_REF}", "buy": "bought",
    "pay": "paid", "create": "created",
    "draft": "drafted", "write": "wrote|written", "add": "added", "set": "set",
    "cancel": "cancell?ed|canceled", "email": "emailed", "call": "called", "renew": "renewed",
    "submit": "submitted", "update": "updated", "fix": "fixed", "find": "found",
    "sign": "signed", "return": "returned", "mail": "mailed", "post": "posted",
    "print": "printed", "water": "watered", "clean": "cleaned", "file": "filed",
}
_ASKED_VERB = re.compile(rf"(?i)\b({'|'.join(_DONE_FORMS)})\b")
_DONE_FORM = {verb: re.compile(rf"(?i)\b(?:{forms})\b") for verb, forms in _DONE_FORMS.items()}


# "called" naming something, not a call made: "is called X", "a band called Dawn".
_NAMED_CALLED = re.compile(
    r"(?i:\b(?:is|are|was|were|be|been|being|it's|that's|one|thing|something|place)\s+"
    r"(?:also\s+|now\s+)?called\b)|\bcalled(?=\s+[\"“'A-Z])"
)
_CALL = frozenset({"call"})


# The verb of an errand ("got to pick up grandma's prescription", "need to renew the
# passport"): "picked up new skills" shares it and names nothing of the errand.
_ERRAND_VERB = re.compile(
    r"(?i)\b(?:need|needs|have|has|got|must|remember|forget|going|want|me) to (\w+)")


def _names_more_than_verb(request: str, common: frozenset[str]) -> bool:
    """True when the words ``common`` to a request and a report are more than its verb."""
    verb = _ERRAND_VERB.search(request)
    return verb is None or not common <= content_tokens(verb.group(1))


# Whom an errand is for or with is no sign of it done: "孩子的疫苗本去盖章" and "带着小孩子…
# 才订的" share only "孩子", "pick up the kids" and "the kids got home" only "kid".
_PEOPLE_TEXT = (
    "kid son daughter wife husband mom dad parent friend sister brother family baby boss "
    "孩子 小孩 儿子 女儿 老公 老婆 妈妈 爸爸 老人 父母 朋友 同事 老板 老师 家人 宝宝 闺女"
)
_PEOPLE = frozenset(_PEOPLE_TEXT.split())


def _did_what_was_asked(request: str, later: str) -> bool:
    """True when ``later`` reports done the verb ``request`` asked for ("book…" → "Booked")."""
    return any(_DONE_FORM[v.lower()].search(later) for v in set(_ASKED_VERB.findall(request)))


_DONE_WORDS = content_tokens(" ".join(f.replace("|", " ").replace("?", "")
                                      for f in _DONE_FORMS.values()))


def report_adds(request_tokens: frozenset[str], report_tokens: frozenset[str]) -> frozenset[str]:
    """The words a report of a request says beyond it: not the request's own, nor a time, nor
    the verb saying it is done ("I bought Anna a scarf" adds "scarf")."""
    return report_tokens - request_tokens - _TIME_WORDS - _DONE_WORDS


# A result that names its thing without the thing's word: "一周就出签了" is the visa
# ("签证"), "钱到账了" the money sent or refunded.
_IMPLIED_THING = (
    (re.compile(r"[出下]签(?:了|啦)"), frozenset({"签证"})),
    (re.compile(r"到账(?:了|啦)"), frozenset({"退款", "报销", "转账", "工资", "汇款"})),
)


@lru_cache(maxsize=4096)  # (asked of each later user row once per open request)
def implied_things(report: str) -> frozenset[str]:
    """The words of what ``report`` says came without naming it ("出签了" → 签证)."""
    out: frozenset[str] = frozenset()
    for pattern, words in _IMPLIED_THING:
        if pattern.search(report):
            out |= words
    return out


def names_thing(request_tokens: frozenset[str], report_tokens: frozenset[str]) -> int:
    """How many words a report shares with a task that name the thing itself: not a time, not
    the verb saying it is done (the two a report of anything may share with any task)."""
    return len(request_tokens & report_tokens - _TIME_WORDS - _DONE_WORDS)


# A request that changes something outside the chat: a booking, a message sent, a reminder set.
# Done, it is worth remembering that it was done; a request answered by the reply itself
# ("can you write a closure in Python?", "explain decorators", "翻译一下") is not.
_EFFECT = re.compile(
    r"(?i:\b(?:book|reserve|order|buy|purchase|send|email|e-mail|mail|pay|transfer|cancel"
    r"|schedule|reschedule|remind|set\s+up|set\s+(?:a|an|the|my)|submit|renew|call|update"
    r"|change|add|remove|delete|move|register|sign\s+(?:up|me\s+up)|subscribe|unsubscribe"
    r"|install|deploy|refund|ship|deliver|invite|print|upload|save|archive|create|confirm"
    r"|apply|enroll|rent|hire|replace|fix)\b)"
    r"|订(?!单(?![人间]))|买|购|下单|发给|发送|发个|发一|寄|付款|支付|缴|转账|取消|安排|提醒|预约|约一下|约个|改|更新|删"
    r"|添加|加到|加入|提交|交费|续|办理|报名|注册|打电话|退款|退货|退票|换成|换到|安装|部署|开通|修好"
)


# "Book flights and a hotel for Lisbon": one request, two things to do. Joined by "and", "和",
# "以及", "、"; a companion ("for me and my wife") or a time ("Friday and Saturday") is no thing.
_AND = re.compile(r"(?i:\s+(?:and|as well as|plus)\s+)"
                  r"|(?<=[\u4e00-\u9fff])(?:和|以及|及|还有|、)(?=[\u4e00-\u9fff])")
_COMPANION_TEXT = (
    "me my wife husband partner family kids kid child children friend friends mom dad parents us "
    "together myself 我 老婆 老公 家人 孩子 朋友 父母 我们 自己"
)
_COMPANION = frozenset(_COMPANION_TEXT.split())


def request_parts(request: str, tokens: Callable[[str], frozenset[str]]) -> list[frozenset[str]]:
    """The things a request to act asks done, one word set each, when it names two or more
    ("Book flights and a hotel" → {book, flights}, {hotel}); else []: a report must name each
    before the request is done."""
    if not changes_world(request) or _AND.search(request) is None:
        return []
    # What the asking sentences ask: "Just noticed my passport expires in February and we're
    # going to Mexico in April. I need to renew it ASAP." asks one renewal, not a trip.
    asking = [s for s in _SENTENCE_END.split(request) if changes_world(s)]
    if asking:
        request = " ".join(asking)
    # What is asked, not what is said of it after: "sign her permission slip, it's due Friday
    # and it's buried in her folder" asks one thing.
    request = _CONTEXT_TAIL.split(request, 1)[0]
    parts = [t for piece in _AND.split(request)
             if (t := tokens(piece) - _TIME_WORDS - _COMPANION)]
    return parts if len(parts) >= 2 else []


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")
_CONTEXT_TAIL = re.compile(
    r"(?i:[,;—–]\s*(?:it's|it is|it was|that's|which|because|since|as|so|but|though|she's|he's"
    r"|they're|i think)\b)|[，；](?:因为|不过|但是|它|她|他)"
)


def asks_for_information(request: str) -> bool:
    """True when ``request`` asks for an answer, not for something done ("Can you explain
    decorators?", "What time does the pharmacy open?", "查一下明天的天气"). What is
    asked starts at the asking: "后台有个退款申请，帮我看看是哪单" asks which order, it refunds
    nothing."""
    cue = _ASKED_FROM.search(request)
    if cue is not None and cue.start() > 0:
        request = request[cue.start():]
    return _QUESTIONISH.search(request) is not None and not changes_world(request)


_ASKED_FROM = re.compile(r"[，,;；]\s*(?:帮我|帮忙|麻烦|请|(?i:(?:can|could|would) you|please)\b)")


def changes_world(request: str) -> bool:
    """True when ``request`` asks for something done outside the chat ("Book a table…",
    "帮我订…"), not for an answer ("Explain decorators", "写一首诗", "What time is it in Rome?")."""
    return _EFFECT.search(request) is not None


# A tool that only reads ("search_hotels", "get_weather", "webSearch"): what it returned can be
# fetched again, and is stale once the talk has moved on; a tool that acts ("book_hotel",
# "send_email") changed the world, and what it did is worth remembering.
_LOOKUP_TEXT = (
    "get search find list lookup look query fetch read check view show describe retrieve browse "
    "calculate calc compute convert estimate weather forecast price prices quote status info "
    "details availability available web wiki maps map directions translate"
)
_LOOKUP_WORDS = frozenset(_LOOKUP_TEXT.split())
_TOOL_NAME = re.compile(r"^(?:Tool|工具) ([A-Za-z][A-Za-z0-9_.-]*)\(")
_NAME_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


# What a tool reads of the user's own ("get_user_profile", "get_order_status", "listMyBookings"):
# the user's account, order or booking, as much their fact as "Your plan renews on May 3".
_OWN_TEXT = (
    "user users profile account accounts order orders booking bookings reservation reservations "
    "subscription subscriptions customer member membership my me appointment appointments "
    "ticket tickets invoice invoices bill bills payment payments shipment shipments delivery "
    "cart contact contacts calendar preferences settings"
)
_OWN_WORDS = frozenset(_OWN_TEXT.split())


def looks_up(tool_line: str) -> bool:
    """True for a summary line of a tool that only reads the world: "Tool search_hotels(…) →
    …"; not one that reads the user's own ("Tool get_order_status(…) → …")."""
    m = _TOOL_NAME.match(tool_line)
    if m is None:
        return False
    words = " ".join(_NAME_WORD.findall(m.group(1))).lower().split()
    return (not changes_world(" ".join(words)) and not _LOOKUP_WORDS.isdisjoint(words)
            and _OWN_WORDS.isdisjoint(words))


# The assistant reporting what it did for the user: "Done: I've emailed the itinerary…",
# "已为您预订…", "Reminder set for 9am".
_DID_FOR_USER = re.compile(
    r"(?i:\b(?:booked|reserved|ordered|sent|emailed|scheduled|rescheduled|paid|cancell?ed"
    r"|created|added|updated|renewed|submitted|confirmed|set up|changed|moved|(?:reminder|alarm"
    r"|meeting|appointment)s? (?:is |are |has been )?set)\b)"
    r"|已(?:经)?(?:为您|帮您|给您|帮你|为你)?(?:预订|订|发|预约|安排|取消|改|设置|提交|付|下单|购买|续)"
    r"|(?:订|发|约|办|改|设置|安排)好了"
)


def did_for_user(text: str) -> bool:
    """True when the assistant reports something it did for the user ("Done: I've emailed the
    itinerary…", "已为您预订…"), as against what it relayed or explained."""
    return _DID_FOR_USER.search(text) is not None


_WHICH = re.compile(r"(?i:\bwhich\b)|哪")

# What the assistant asks of the user ("What is your budget for the trip?", "And where will you
# be flying from?", "Do you have a car?", "您的预算是多少？", "几个人去？", "您有车吗？"): a
# question a short reply answers.
_ASKS_OF_YOU = re.compile(
    r"(?i:^(?:(?:and|so|also|then|great|okay|ok|perfect|got it|thanks)[,!.]?\s+)*"
    r"(?:what|what's|where|when|which|who|whose|how (?:many|much|long|old|far|often|soon)"
    r"|(?:do|does|did|are|were|have|will|would|can|could) you|any)"
    r"\b[^?]*\?$)"
    r"|^[^？?]*(?:什么|哪|几|多少|谁|多久|多大|多远|何时|(?:你|您)[^？?]*吗)[^？?]*[？?]$"
)
_LEADING_LINK = re.compile(r"(?i:(?:and|so|also|then)\s+)")
# A reply that is no statement of its own ("Around $2,000.", "Boston.", "Just me and my wife.",
# "上海。", "有，一辆特斯拉。"): no verb (in Chinese, none after "我") that would make it one.
_STATEMENT = re.compile(
    r"^\s*(?:I|I'm|I've|We|We're|He|She|They|It) [a-z]"  # "We reminisced…", "I took it in…"
    r"|(?i:\b(?:is|are|am|was|were|be|been|have|has|had|do|does|did|will|would|can|could"
    r"|should|need|want|like|love|prefer|live|work|go|think|know)\b|'(?:s|m|re|ve|ll|d)\b"
    r"|[?？])"
    r"|我们?(?:现在|已经|也|都|还|一直|平时)?(?:是|有|要|想|会|能|对|喜欢|住|打算|准备|觉得|知道)|吗"
    # A change said is news of its own: "老板拍板了 Q3 GMV 目标改成 1.45亿" after a riddle; so
    # is a deed told and then more said of it ("内分泌科看了空腹记录，晚上打12个单位").
    r"|改成|改到|换成|调成|调到|涨到|降到|延到|推迟到|提前到|拍板|改签"
    r"|[\u4e00-\u9fff]了[^，,。！？]*[，,]\s*\S"
)
# A question about the user's own ("What is your budget?", "Where will you be flying from?",
# "How many people?", "您从哪个城市出发？"), not about their opinion ("What did you think of it?").
_ABOUT_YOU = re.compile(
    r"(?i:\byour\b|\byou(?:'re| are| were| will be| be)? (?:live|living|work|working|fly"
    r"|flying|travel|travell?ing|come|coming|from|have|need|prefer|want|leave|leaving|arrive"
    r"|arriving|stay|staying|use|using|based|born|allergic)\b|^(?:how many|how much|when|where"
    r"|which)\b)"
    r"|您的|你的|(?:您|你)(?:从|在|住|要|想|需要|打算|有|叫|是)|几个人|几位|多少|哪天|什么时候|哪个城市"
)
# A value in the answer: a number, a code, a name it opens with ("Boston", "上海"); not a cheer
# ("Nice one!", "Yay!", "Woohoo!") or a pronoun.
_CHEERS = (
    "(?:Nice|Yay|Yes|Yeah|Yep|Woohoo|Wow|Cool|Great|Awesome|Sure|Thanks|Totally|Definitely"
    "|Absolutely|Haha|Oh|Omg|Lol|Ok|Okay|Of|Not|No|Nope|Maybe|Hmm|Well|Same|Me|Just|Oops|Aw"
    "|We|You|He|She|They|It|My|Our|This|That|There|Here|So|And|But)"
)
_ANSWER_VALUE = re.compile(
    rf"[0-9@]|^\s*(?!{_CHEERS}\b)[A-Z][a-z]+|[A-Z]{{2,}}|{'|'.join(_ZH_PLACES.split())}"
    r"|[一二两三四五六七八九十百千万]+(?:万|千|百|元|块|个|人|位|天|岁|号|点|月|年)"
)


def answers_about_user(joined: str) -> bool:
    """True when a short reply joined with its question (``question → answer``) tells a value
    of the user's own ("Where will you be flying from? → Boston.", "您的预算是多少？→两万元")."""
    question, _, answer = joined.partition("→")
    return bool(answer) and _ABOUT_YOU.search(question) is not None \
        and _ANSWER_VALUE.search(answer) is not None


_UNSURE = re.compile(
    r"(?i:not sure|don't know|dunno|no idea|whatever|anything|nothing|no preference|up to you"
    r"|maybe)|不知道|不确定|随便|都行|无所谓|还没想好|没想好|看情况"
)
_FRAGMENT_WORDS = 8
_FRAGMENT_CHARS = 16


# A reply that opens by calling the other by name or greeting them ("Maria!", "Hey Nate!",
# "Thanks, Mel!"): it answers nothing, what follows it does.
_GREETING_WORDS = r"(?i:hey|hi|hello|hiya|yo|thanks|thank you|aw+|oh|wow|dear)"
_GREETING = re.compile(rf"{_GREETING_WORDS}\b")
_VOCATIVE = re.compile(
    rf"^(?:{_GREETING_WORDS}[,!]?\s+)?[A-Z][a-z]+(?:\s[A-Z][a-z]+)?\s*[!,~]+\s*$")


def question_answered(asked: list[str], reply: str, *, more: bool = False) -> str | None:
    """The assistant's question that ``reply`` answers when the reply is a short fragment
    that means nothing without it ("What is your budget for the trip?" then "Around $2,000."),
    else None. ``more``: the reply's message goes on after it (a name called out first,
    "Maria! I went…", is then a greeting, not an answer)."""
    # The question first: most replies follow no question, and it is the cheapest test.
    question = asked[-1].strip() if asked else ""
    if not question or _ASKS_OF_YOU.search(question) is None:
        return None
    vocative = _VOCATIVE.match(reply.strip())
    if vocative is not None and (more or _GREETING.match(reply.strip())):
        return None
    if _STATEMENT.search(reply) is not None or _UNSURE.search(reply) is not None \
            or _is_pleasantry(_normalise(reply)):
        # "Woohoo!", "Yeah, totally!", "哈哈，好呀": cheers answer nothing worth the room.
        return None
    han = sum(1 for ch in reply if "\u4e00" <= ch <= "\u9fff")
    if (han > _FRAGMENT_CHARS if han else len(reply.split()) > _FRAGMENT_WORDS):
        return None
    link = _LEADING_LINK.match(question)
    if link is not None:
        question = question[link.end() :]
        question = question[:1].upper() + question[1:]
    for asks, answers in _EXPECTED:
        if asks.search(question) and not answers.search(reply):
            return None  # "When are you leaving?" is not answered by "Trying to build a budget."
    return question


# What a question of when or how many expects in a fragment that answers it.
_WHEN_WORDS = (
    r"today|tomorrow|tonight|yesterday|next|last|this|morning|afternoon|evening|night|noon"
    r"|week|weekend|month|year|soon|later|ago|early|late|end|before|after|until|around|by"
    r"|mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|spring"
    r"|summer|fall|autumn|winter|now|never|whenever|once|twice"
)
_COUNT_WORDS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|dozen|hundred|thousand"
    r"|few|couple|several|many|much|lots?|none|no|half|all|single|a|an|me|us|just|alone|solo"
    r"|both|myself|only"
)
_EXPECTED = (
    (re.compile(r"(?i:^(?:so,?\s+)?(?:when|what time)\b)|什么时候|几点|哪天"),
     re.compile(rf"\d|(?i:\b(?:{_WHEN_WORDS})[a-z]*\b)|[今明昨后前上下这本周月年号点天晚早午]")),
    (re.compile(r"(?i:^(?:so,?\s+)?how (?:many|much|old|long|far)\b)|多少|几个|多大|多久|多远"),
     re.compile(rf"\d|(?i:\b(?:{_COUNT_WORDS})\b)|[一二两三四五六七八九十百千万半几]")),
)


# An acknowledgement that takes something on: said only of what the assistant will hold to.
_ACK_STRONG = re.compile(
    r"(?i)^(?:understood|got it|noted|duly noted|will do|roger(?: that)?|copy that"
    r"|(?:i'll|i will) (?:keep (?:that|this|it) in mind|remember (?:that|this))"
    r"|收到|明白|记住了|记下了|记住啦|记下啦)(?![a-z])[\s,.!:;，。！：]*")
# Its everyday twins, which also just agree ("Sure, sounds fun"): only with words for good.
_ACK_WEAK = re.compile(
    r"(?i)^(?:sure(?: thing)?|ok(?:ay)?|of course|absolutely|makes sense|sounds good|perfect"
    r"|好的?|行|没问题|可以|嗯)(?![a-z])[\s,.!:;，。！：]*")
# "每次" is every time, not a dose: "剂量调成每次6毫升".
_EACH_TIME = r"每次(?![\d一二两三四五六七八九十半])"
_FOR_GOOD_REPLY = re.compile(
    r"(?i:\b(?:going forward|from now on|from here on(?: out)?|moving forward|in (?:the )?future"
    r"|every time|each time|on anything|for anything|always|never)\b)"
    r"|以后|之后(?=都|一律|每次|统一|全)|今后|往后|下次|统一|一律|都用|都会|都按|" + _EACH_TIME)


# The user's own words for a rule rather than an errand: "Any time we talk recipes…", "when
# you write emails to my staff…", "3 sentences max unless I ask", "以后回我…", "都用24小时制".
_STANDING_TERMS = re.compile(
    r"(?i:\b(?:any ?time|whenever|every time|each time|when you|anything you|everything you"
    r"|all (?:my|your|the) |always|never|from now on|going forward|in (?:the )?future|unless"
    r"|by default)\b)"
    # ("之后帮我补一下单测" is later, once: not "之后都用中文回复".)
    r"|以后|之后(?=都|一律|每次|统一|全)|今后|往后|统一|一律|都用|都要|都写|所有|凡是|的时候|默认|"
    + _EACH_TIME)


def standing_terms(sentence: str) -> bool:
    """True when ``sentence`` words a rule for every time rather than one errand."""
    return _STANDING_TERMS.search(sentence) is not None


def acknowledged(text: str) -> tuple[str, bool] | None:
    """The assistant's restatement of what it takes on, and whether it says it is for good,
    when its message ``text`` opens with an acknowledgement and restates something: ("All
    recipe quantities in grams going forward", True) for "Understood. All recipe quantities
    in grams going forward."; None for "Sure, sounds fun!" or a bare "Got it."."""
    reply = split_sentences(text)  # (it strips list marks: "- Got it\n- …" acknowledges)
    if not reply:
        return None
    first = reply[0].strip()
    strong = _ACK_STRONG.match(first)
    m = strong or _ACK_WEAK.match(first)
    if m is None:
        return None
    rest = " ".join([first[m.end():], *reply[1:3]]).strip()
    if not rest:
        return None
    for_good = _FOR_GOOD_REPLY.search(rest) is not None
    if strong is None and not for_good:
        return None
    return rest, for_good


# The assistant promising to do something later: "I'll look for renewal classes…", "I'll
# gather three quotes…", "我会在周五前把报价发给你", "回头我帮你找".
_COMMITS = re.compile(
    r"(?i:\b(?:i'll|i will|i'm going to|will do)\b(?! (?:be|have|need)\b))"
    r"|我会|我来|我先|回头我|稍后我|我这就|我去"
    r"|我(?:今天|今晚|明天|明早|后天|下午|晚上|晚点|待会儿?|周[一二三四五六日末]|下周[一二三四五六日]?)"
    r"(?:之?前)?(?:会|就|再)?(?:把|给|帮|发|整理|写|做|查|找|弄|准备)")


def commits(text: str) -> str | None:
    """The opening of the assistant's message ``text`` (its first two sentences) when it
    promises to do something ("Sure, I'll look for food handler renewal classes…"), else
    None."""
    if _COMMITS.search(text) is None:
        return None  # (most replies promise nothing: no need to split them)
    opening = " ".join(split_sentences(text)[:2])
    return opening if _COMMITS.search(opening) else None


def awaits_choice(sentences: list[str]) -> bool:
    """True when an assistant message ends by putting a choice to the user: an offer ("Shall I
    book it?"), an either-or question, or a listing and "which one?"."""
    if not sentences or sentences[-1].rstrip()[-1:] not in ("?", "？"):
        return False
    return (proposal(sentences) is not None or alternatives(sentences[-1]) is not None
            or (len(sentences) >= 2 and _WHICH.search(sentences[-1]) is not None))


def confirms(later: str) -> bool:
    """True when ``later`` gives a reference for something made ("Booking reference
    HX-5521", "订单号H123456"): it may close a request it shares no word with."""
    if _DIGIT.search(later) is None:
        return False  # a reference holds a digit ("HX-5521", "H123456")
    low = later.lower()
    if not any(k in low for k in _CONFIRMATION_KEYS):
        return False
    return _CONFIRMATION.search(later) is not None


_DIGIT = re.compile(r"\d")
# Literal pieces every _CONFIRMATION match holds.
_CONFIRMATION_KEYS = ("confirm", "book", "reserv", "order", "ref", "ticket", "track", "号", "码",
                      "creat", "open", "file", "rais", "logg", "submit", "创建", "提交", "新建",
                      "开了", "found", "查到", "找到")


def shared_numbers(request: str, later: str) -> int:
    """How many numbers ``later`` repeats from ``request``, counted only from two on: the
    numbers asked for and reported ("6个人，晚上18点" → "已订好18点6位") say what was done as
    much as words do; one number in common ("7pm" and "7 degrees") is chance."""
    found = _NUMBER.findall(later)
    if len(found) < 2:
        return 0
    common = set(_NUMBER.findall(request)).intersection(found)
    return len(common) if len(common) >= 2 else 0


_TIME_WORDS_TEXT = (
    "today tomorrow tonight yesterday morning afternoon evening night week weekend month year "
    "monday tuesday wednesday thursday friday saturday sunday january february march april june "
    "july august september october november december spring summer fall autumn winter season "
    "今天 明天 后天 昨天 晚上 上午 下午 早上 中午 周末 周一 周二 周三 周四 周五 "
    "周六 周日 星期 下周 这周 本周 月份 春天 夏天 秋天 冬天 暑假 寒假"
)
_TIME_WORDS = frozenset(_TIME_WORDS_TEXT.split())
_ZH_DONE_VERB = re.compile(
    r"(?P<v>[订买发写办弄做查改约寄交付])(?:好了|完了|完成)|(?P<f>[查找搜])到"
    r"|已经?(?:[为帮给替](?:您|你))?(?:预|提|寄|支|购|下)?(?P<w>[订买发寄交付])"
)
# The verbs of a reminder, the assistant's ("I'll ping you Friday") and asked for ("nag me").
_REMIND_VERBS = "remind|ping|nudge|notify|nag"
_REMIND = re.compile(rf"(?i:\b(?:{_REMIND_VERBS})"
                     rf"|\bon (?:my|the|our) (?:to-?do )?list\b|\b{ON_LIST_ASK_EN})|提醒|待办|记上")


def promises_reminder(text: str) -> bool:
    """True when the assistant's ``text`` promises to remind the user ("I'll flag it Friday
    morning", "我会在那之前提醒你"): what it is about is the user's errand, kept open."""
    return _REMINDS_YOU.search(text) is not None


_REMINDS_YOU = re.compile(r"(?i:\b(?:remind|ping|nudge|text) you\b|\bflag (?:it|this|that)\b)"
                          r"|提醒你|提醒您")


def defers(text: str) -> bool:
    """True when the user's short message ``text`` puts the matter off ("later, gotta run",
    "not now", "晚点说吧我先去接孩子", "今天先算了 明天再说"): what they asked stays to do."""
    return len(text) <= _DEFER_CHARS and _DEFERS.search(text.strip()) is not None


_DEFER_CHARS = 100
# English only at the start ("later, gotta run"; not "see you later"); Chinese "…再说" anywhere.
_DEFERS = re.compile(
    r"(?i:^(?:(?:ok(?:ay)?|hmm+|ah|eh|ugh|sorry|yeah|sure)[,.!]?\s+)*(?:maybe\s+)?"
    r"(?:later\b|not (?:right )?now\b|another time\b|some other time\b|tomorrow\b"
    r"|(?:i'll|let me) get back to you\b|(?:let's|we'll|we can) (?:come back to|revisit)\b))"
    r"|(?:晚点|晚些|回头|改天|以后|下次|明天|待会儿?|等会儿?|等下|稍后|过两天|有空)再?说")


def offers_reminder(offer: str) -> bool:
    """True when what the assistant offered is to remind the user ("a reminder to book the
    retest", "remind you to renew it in May", "到时候提醒你"): taken, the errand stays open."""
    return _REMIND_YOU.search(offer) is not None


_REMIND_YOU = re.compile(r"(?i:\bremind(?:er)?\b)|提醒")


def asks_reminder(request: str) -> bool:
    """True when ``request`` asks to be reminded: set or promised, the reminder is the
    assistant's part; the errand stays the user's until they say it is done."""
    return _REMIND_ME.search(request) is not None


_REMIND_ME = re.compile(rf"(?i:\b(?:{_REMIND_VERBS}|bug) me\b|\bdon't let me forget\b"
                        rf"|\b{ON_LIST_ASK_EN}|\b{ON_LIST_HEAD_EN})"
                        rf"|提醒我|别让我忘|{ON_LIST_ZH}|记上")
# A reminder set or promised, not "it reminds me of home" or "those reminders" in passing.
_REMIND_SET = re.compile(
    r"(?i:\b(?:remind|ping|nudge|notify) you\b|\breminders? (?:is |are |has been |have been )?"
    r"(?:set|scheduled|added|created|on)\b|\bset (?:a |the |your |up a )?reminder)"
    r"|提醒(?:您|你)|(?:设|设置|定)(?:好|了)?(?:一个)?提醒|提醒(?:已|设)"
    # put on the list asked for: "Added to your list.", "加上了。"
    r"|(?i:\badded (?:it |that |this )?to (?:your|the) (?:list|to-?do)|\b(?:it's|is) on your list)"
    r"|加上了|已加上|已添加|加到待办|已加入待办"
)
# The user saying they did it themselves: "the flight is booked, I did it myself", "我自己订好了".
_USER_DONE = re.compile(
    r"(?i:\b(?:i(?:'ve| have)? (?:already |just |finally )?(?:booked|reserved|ordered|sent|paid"
    r"|bought|done|finished|fixed|handled|sorted|submitted|renewed|filed|called|emailed"
    r"|texted|messaged|contacted|mailed|returned|scheduled|cancell?ed|picked up|dropped off)"
    r"|(?:is|are|was|were|got|'s|has been|have been) (?:already |finally |all |now )?(?:booked"
    r"|reserved|ordered|sent|paid|done|sorted|handled|finished|submitted|fixed|filed|renewed"
    r"|completed|delivered|mailed|returned|signed|scheduled|repaired|approved|installed)"
    r"|did it myself|took care of it"
    # What was waited for, through: "the background check cleared this morning", "Apostille
    # came back in the mail today", "the transfer went through".
    r"|\b(?=[cw])(?<!not )(?<!n't )(?:cleared|went through|came through|came back)\b(?! to\b)"
    # Whoever was to do it says so: "Northwind Power confirmed the transfer", "the clinic
    # confirmed my appointment".
    r"|(?<!not )(?<!n't )(?<!never )confirmed (?:the|my|our|it|that)\b"
    # Someone did it: "my brother-in-law fixed it last night".
    r"|(?:fixed|repaired|replaced|unclogged|sorted)\s+(?:it|that|them)\b"
    # Someone else did it, or it came: "The plumber came and fixed the sink", "Got my renewed
    # passport back".
    r"|(?:came|stopped by|showed up)\b[^.!?]{0,30}\band (?:fixed|repaired|replaced|installed"
    r"|delivered|cleaned)|got (?!(?:my |your |the |our )?back\b)"
    r"(?:my |the |our )?[\w' -]{0,24}? back)\b)"
    # Said without "I", as chat does: "Paid the electricity bill this morning.", "Finally
    # finished the quarterly report!"
    # "DONE, paid it this morning", "all done!": the user's own word for it.
    r"|(?i:^(?:all\s+)?done\b\s*[,.!]+)"
    r"|(?i:^(?:(?:just|finally|already|ok|okay|so),?\s+)?(?:paid|booked|sent|finished|submitted"
    r"|ordered|bought|renewed|filed|mailed|returned|cancell?ed|fixed|done with|picked up"
    r"|dropped off|called|got)\b)"
    # "Mom loved the scarf I got her": what was bought is spoken of, as in "给我妈买的围巾";
    # not what one got from someone or wants to get.
    r"|(?i:\bthe [\w'-]+(?: [\w'-]+)? (?:i|we) (?:got|bought|ordered|booked|picked out)"
    r" (?!from\b|to\b)(?:her|him|them|for|my|our|[a-z]+)\b)"
    r"|(?:我)?(?:自己|已经)?(?:订|买|发|办|弄|处理|搞定|做)好了|我(?:已经|自己)?(?:订|买|发|交|付)了"
    # "电费今天早上交了", "季度报告终于写完了！": the thing first, done last.
    r"|(?:[写做办弄改][完好]|交|付|缴|寄|还|拿|取|转|汇)(?:上去|出去|回去|过去|掉|完)?了(?=[，,。！!~～]|$)"
    # "把药拿了", "打了电话，约了周四上午10点": done, the thing first or the time after.
    r"|把[^，。！？]{1,8}?(?:拿|取|还|交|买|订|寄|办|修|付)了|打了电话|打过电话"
    # "体检报告拿到了", "护照领到了": what was to be fetched, fetched.
    r"|(?:拿|取|领)到了"
    r"|约(?:了|好了)[^，。！？]{0,8}?[点号]"
    # "个税申报完了", "水管工把水槽修好了", "新护照寄到了": done, said by its result.
    # ("再大一点就好了", "太好了" wish and cheer: nothing done.)
    r"|(?![就太真最更还挺多])[\u4e00-\u9fff][完好](?:了|啦)|(?:寄|送|收)到了|[出下]签了"
    # "海报搞定了哈哈", "备案搞定啦": the user's own word for done.
    r"|搞定(?:了|啦|咯|喽)?(?=[，,。！!~～哈]|$)"
    # "给我妈买的围巾她很喜欢": what was bought is spoken of, so it was bought; not what one
    # wants, plans or has yet to buy ("想买的", "打算订的", "还没买的").
    r"|(?<![要想得该没备算])(?:买|订)的"
    # "AWS密钥今天上午已经轮换了": any verb, said done.
    r"|已经[\u4e00-\u9fff]{1,3}了(?=[，,。！!~～]|$)"
    # "…已经转过去了", "The invoice went out this morning, so that's off my plate".
    r"|(?:转|打|汇|付|结)(?:过去|清)了"
    # "房租已经转给王阿姨了", "钱打给他了": done, to whom it went.
    r"|(?:转|打|汇|付|交|寄|还|发)给[^，。！？,\s]{1,6}了"
    r"|(?i:\b(?:went out|got sent|off my plate|crossed (?:it |that )?off|ticked (?:it |that )?off"
    r"|squared away)\b)"
    # What was to come, come: "the new passport showed up in the mail today", "my renewed
    # license arrived", "the refund came through".
    r"|(?i:\b(?:new|renewed|replacement|refund|package|parcel|order|delivery)\b[\w' -]{0,24}?"
    r"\b(?:showed up|arrived|came (?:in|through)|came today|got delivered|was delivered)\b)"
    # "costume came today, size 10 fits perfect": what was ordered, come, whatever it is.
    r"|(?i:^(?:the |my |our )?[\w' -]{2,30}? (?:came|arrived|showed up|got delivered)"
    r" (?:today|yesterday|this (?:morning|afternoon)|in the mail)\b)"
    # "Rotated the AWS keys this morning", "I migrated the database": any verb, reported done
    # as chat does, not a feeling ("Excited to…", "I loved it").
    r"|(?i:^(?:(?:just|finally|already|ok|okay|so),?\s+)?(?:i\s+|we\s+)?(?:(?:have|'ve)\s+)?"
    r"(?!(?:excit|bor|confus|stress|worr|interest|relat|tir|scar|amaz|surpris|pleas|disappoint"
    r"|lov|lik|enjoy|hat|want|need|hop|wish|decid|plann|tri|wonder|miss|us|start|talk|ask"
    r"|bless|inspir|motivat|prepar|schedul|determin|obsess|hook|invit|expect|supposed)ed\b)"
    r"[a-z]{3,}ed\s+(?:the|my|our|all|both|that|those|these|it|them|\d+)\b)"
    # After what it was: "W-9 is out already, emailed it from my phone this morning".
    r"|(?i:[,;]\s+(?:(?:just|already|and)\s+)?(?:i\s+)?(?:emailed|mailed|sent|paid|submitted"
    r"|signed|filed|booked|ordered|returned|renewed|scheduled|called|texted|dropped)"
    r"\s+(?:it|them|that)\b)"
    # Said with a verb that does not end in -ed: "took Pepper to Dr. Bhatt at lunch", "sent
    # them over" (not "got it", "made it": heard, and arrived).
    r"|(?i:^(?:(?:update|ok|okay|so|just|finally|already)[:,]?\s+)*(?:i\s+|we\s+)?"
    r"(?:(?:took|sent|brought|gave|put|paid|did|dropped)\s+(?:it|them|that|(?-i:[A-Z])\w+)"
    r"|(?:got|made)\s+(?:them|(?-i:[A-Z])\w+))\b"
    r"(?!\s+(?:back|off)\b)(?!\s+(?:to|for)\s+(?:me|us)\b))"
)
# "Tax form submitted!", "Slides done.", "Library books returned, no late fee!": a short report
# with the verb after the thing.
_DONE_LAST = re.compile(
    r"[\w' -]{2,40}? (?:submitted|sent|paid|booked|done|ordered|finished|fixed|renewed"
    r"|cancell?ed|filed|delivered|handled|sorted|mailed|returned|picked up|signed)"
    # (and where or when: "Oil change done at Jiffy Lube on Kessler.")
    r"(?:[.!]*|(?:,| and| but| at| in| on| with| by| this| today| yesterday| last| earlier)"
    r"[^.!?]*[.!]*)",
    re.I)
# Literal pieces every match holds: most sentences are ruled out by a substring test in C.
_USER_DONE_KEYS = (
    "book", "reserv", "order", "sent", "paid", "bought", "done", "finish", "fixed", "handled",
    "sorted", "myself", "care of", "submitted", "renewed", "cancel", "filed", "delivered",
    "mailed", "returned", "了", "completed", "signed", "scheduled", "repaired", "approved",
    "replaced", "unclogged",
    "installed", " back", "的", "啦", "搞定", "picked up", "dropped off", "called", "got", "电话",
    "ed ",
    "went out", "off my plate", "crossed", "ticked", "squared", "took", "sent", "brought",
    "gave", "put", "made", "did", "dropped", "showed up", "arrived", "came ", "delivered",
    "confirmed",
)


def promises_only(reply: str) -> bool:
    """True when ``reply`` promises ("I'll look for a technician who works on the Rofco B40")
    and reports nothing done: it names what was asked without answering it."""
    return _PROMISE.search(reply) is not None and _DONE.search(reply) is None


# A report that points back at what was just said rather than naming it: "submitted it last
# night!!", "dropped them off", "弄好了，存的3年大额存单".
_REFERS_BACK = re.compile(
    r"(?i:\b(?:it|them|that|those|this)\b)"
    r"|^[嗯哦好的啦，,\s]*(?:都|已经|刚)?(?:弄|搞|办|做|交|处理|整|填|寄|发|约)(?:好|完|定|掉)?了"
    # A Chinese report leaves out what it did, after a time at most: "今天换好了！", "昨天带
    # 糯米去打完了".
    r"|^[嗯哦好的啦，,\s]*(?:今天|昨天|刚才|刚刚|上午|下午|早上|晚上|中午)[，,\s]*(?:都|已经|刚|也)?"
    r"[\u4e00-\u9fff]{0,5}?(?:弄|搞|办|做|交|填|寄|发|约|换|打|修|买|订|续|缴|取|还|退|签|报)"
    r"(?:好|完)了")


def points_back(text: str) -> bool:
    """True when a report of something done refers back to it ("signed it", "弄好了")."""
    return _REFERS_BACK.search(text) is not None


# Not yet done, about to be: "书马上就看完了", "快要弄好了".
_ABOUT_TO = re.compile(r"马上就|快要|就要|(?i:\b(?:almost|nearly|about to)\b)")


def user_done(text: str) -> bool:
    """True when the user says they did it themselves ("the flight is booked, I did it
    myself", "Tax form submitted!", "我自己订好了")."""
    low = text.lower()
    if not any(k in low for k in _USER_DONE_KEYS) or _ABOUT_TO.search(text):
        return False
    return _USER_DONE.search(text) is not None or (
        len(text) <= 60 and _DONE_LAST.fullmatch(text.strip()) is not None)


# The user calling a request off: "cancel the dinner at Nobu", "算了，海底捞不订了".
CANCEL = re.compile(
    r"(?i:\b(?:cancel(?:led|ed|s)?|call(?:ed)?\s+off|never\s*mind|forget\s+(?:about\s+)?(?:it|that"
    r"|the)|no\s+longer\s+need|(?:don't|do\s+not|won't)\s+need|don't\s+(?:book|order|buy|send)"
    r"|not\s+needed|drop\s+(?:it|that|the))\b"
    # Made unneeded: "so no visa needed", "didn't even have to call", "we're skipping the
    # market this season".
    r"|\bno\s+[\w-]+(?:\s+[\w-]+)?\s+(?:needed|required)\b|^no\s+need\b"
    r"|\b(?:didn't|did\s+not|don't|won't)\s+(?:even\s+)?(?:have|need)\s+to\b"
    r"|\b(?:we're|i'm|we\s+are|i\s+am)\s+(?:skipping|not\s+doing|passing\s+on)\b)"
    r"|取消|算了|不用麻烦|不(?:(?:用|要|需要)[订买去发约寄写做办找]?|[订买去发约寄写做办摆报弄搞修换接找])了"
    r"|别订|别买|别发|作罢|不用(?=[\u4e00-\u9fff]{1,3}了)"
)


# Calling off whatever was just asked, naming nothing ("nvm, they called", "算了"); "Cancel my
# gym membership" is a request of its own.
CALL_OFF = re.compile(
    r"(?i:\b(?:never\s*mind|forget (?:it|that|about it)|scratch that|no need)\b)"
    r"|算了|不用了|不要了|不需要了|别弄了|不(?:摆|报|弄|搞|去|买|订|做|办|修|换)了"
    r"|不用(?:再)?[做弄搞找办买订去写交发]了")


def cancels(request: str, request_tokens: frozenset[str], later: str, *, latest: bool,
            next_to: bool, sole: bool) -> bool:
    """True when the user's ``later`` statement calls off the request: a word of cancelling
    and the request named ("Actually, cancel the dinner at Nobu"), or said right after it
    (``next_to``: "nvm, they called"). ``latest``: no other request came between; ``sole``:
    no other open task shares as much with ``later``. An older task is called off only by
    name, more than its verb: "never mind, they called" calls off no "call the bank"."""
    if not CANCEL.search(later) or defers(later):
        return False  # ("今天先算了，明天再说": put off, not called off)
    # The words of calling off are not the thing called off: "never mind" names no "I never
    # watch it".
    common = request_tokens & content_tokens(CANCEL.sub(" ", later))
    if latest:
        return bool(common) or (next_to and CALL_OFF.search(later) is not None)
    return bool(common) and sole and _names_more_than_verb(request, common)


# An either-or question: "Would you like the walnut table or the oak one?", "靠窗还是包间？".
_ALT_HEAD = re.compile(
    r"(?i:(?:so,?\s+|ok(?:ay)?,?\s+)?(?:(?:would|do|will)\s+you\s+(?:like|want|prefer|rather)"
    r"(?:\s+to)?|(?:should|shall)\s+(?:i|we)|(?:which|what)\s+(?:do|would)\s+you\s+prefer[:,]?"
    r"|(?:do\s+you\s+)?prefer|are\s+you\s+(?:going\s+with|thinking)"
    r"|(?:did|do|does|have|has|are|were|was|is|will|can|could)\s+(?:you|it|that|they|we))\s+)"
    r"|^(?:那)?(?:你|您)?(?:是)?(?:想要|想|要|希望|打算|倾向于?|更喜欢|喜欢|选|订)?"
)
_ALT_SPLIT_EN = re.compile(r"(?i)\s*,?\s+or\s+|,\s+(?=[^,]+,?\s+or\s+)")
_ALT_TAIL = re.compile(r"(?i)(?:\s+(?:then|instead|for\s+you))?[\s?？.。!！]*$|呢?[?？。！!]*$")
_ALT_LEAD = re.compile(r"(?i)^(?:the|a|an|to)\s+")
_NEITHER = re.compile(r"(?i:\b(?:neither|none|not|no|don't|nor|both)\b)|都不|都行|都可以|随便|不")
_FIRST_CLAUSE = re.compile(r"[^,，;；.。!！]+")


def _first_clause(text: str) -> str:
    """``text`` up to its first comma or stop: searched, not matched, for a reply may open with
    its punctuation ("...the cheaper one, I guess"); "" when it is all punctuation."""
    first = _FIRST_CLAUSE.search(text)
    return first.group() if first is not None else ""
_MAX_CHOICE_LATIN = 60
_MAX_CHOICE_HAN = 20


def alternatives(sentence: str) -> tuple[str, list[str]] | None:
    """The options of an either-or question, with the question's core (its asking words taken
    off): "Would you like the walnut table or the oak one?" → ("the walnut table or the oak
    one", ["the walnut table", "the oak one"]); None when it offers no choice."""
    if not sentence.rstrip().endswith(("?", "？")):
        return None
    core = sentence[_ALT_HEAD.match(sentence).end():]  # type: ignore[union-attr]
    tail = _ALT_TAIL.search(core)
    if tail is not None:
        core = core[: tail.start()]
    parts = [p.strip(" ,，") for p in
             (core.split("还是") if "还是" in core else _ALT_SPLIT_EN.split(core))]
    if len(parts) < 2 or len(parts) > 4 or not all(parts) or max(map(len, parts)) > 60:
        return None
    if _YES_NO.search(parts[0]):
        return None  # "Do you have any favorite scents or rituals?" asks yes or no
    if _FACT_HEAD.match(sentence):
        return None  # "Is it a martial arts place or a yoga studio?": its answer is a fact
    return core, parts


# An either-or question about what is, not what to do: "Is it a yoga studio or a gym?", "Did
# you fly or drive?". Its answer says a fact; "Do you want…", "Are you going with…" ask a pick.
_FACT_HEAD = re.compile(
    r"(?i)\s*(?:so,?\s+|ok(?:ay)?,?\s+)?(?:did|do|does|have|has|are|were|was|is)\s+"
    r"(?:you|it|that|they|he|she|this|there)\b"
    r"(?!\s+(?:want|wanna|like|prefer|rather|need|mean|going\s+with|thinking|leaning|plan)\b)"
)


_YES_NO = re.compile(r"(?i:\b(?:any|anything|anyone|anybody|anywhere|some|something|someone)\b)"
                     r"|有没有|什么")


def _words(text: str) -> set[str]:
    low = text.lower()
    words = {w for w in re.findall(r"[a-z0-9]+", low) if w not in _ALT_STOP} | set(
        content_tokens(text))
    # "Tuesday it is" picks "Tue 10:40am"; "September" picks "Sept 30".
    words |= {w[:3] for w in words if w in _CALENDAR}
    # Every character pair too: an option is often a day or a number ("周一", "三晚"), whose
    # characters content words leave out.
    for run in _HAN.findall(text):
        words.update(a + b for a, b in zip(run, run[1:], strict=False))
    return words


_CALENDAR_TEXT = (
    "monday tuesday wednesday thursday friday saturday sunday january february march april june "
    "july august september october november december"
)
_CALENDAR = frozenset(_CALENDAR_TEXT.split())
_ALT_STOP_TEXT = (
    "the a an one to of for with on in at it that this i we you"
)
_ALT_STOP = frozenset(_ALT_STOP_TEXT.split())


def chosen_option(reply: str, options: list[str]) -> tuple[str, bool] | None:
    """The option a short reply picks ("The walnut one, definitely." → "the walnut table"),
    and whether the reply says nothing else; None when it picks none, or more than one."""
    if len(reply) > (_MAX_CHOICE_LATIN if is_latin(reply) else _MAX_CHOICE_HAN):
        return None
    if reply.rstrip().endswith(("?", "？")):
        return None
    if _NEITHER.search(reply):
        # "Monday, no Friday deploys", "周一吧，周五不上线": the pick first, then the other
        # option ruled out; "No, neither" and "not Monday" pick nothing.
        first = _FIRST_CLAUSE.match(reply)
        if first is None or first.end() == len(reply) or _NEITHER.search(first.group()):
            return None
        picked = chosen_option(first.group(), options)
        return None if picked is None else (picked[0], False)
    said = _words(reply)
    words = [_words(o) for o in options]
    # Only what sets an option apart counts: "3 nights" picks "3 nights", not "2 nights".
    own = [w - set().union(*(x for j, x in enumerate(words) if j != i))
           for i, w in enumerate(words)]
    hits = [o for o, w in zip(options, own, strict=True)
            if w & said or (not is_latin(o) and o in reply)]
    if len(hits) != 1:
        return None
    option = _ALT_LEAD.sub("", hits[0])
    covered = set().union(*(_words(o) for o in options)) | _CHOICE_WORDS
    return option, said <= covered


_CHOICE_WORDS_TEXT = (
    "definitely please probably guess think let's go with take one yes yeah sure ok okay "
    "would like prefer rather want works work fine good great sounds lock book"
)
_CHOICE_WORDS = frozenset(_CHOICE_WORDS_TEXT.split())


# "Which one?", "要帮你报名哪家？": the assistant asks the user to pick among what it listed.
_PICK_ASKED = re.compile(
    r"(?i:\b(?:which|either|one of (?:them|these|those)|pick|choose|prefer)\b|\bfor one\b)"
    r"|哪|选|还是"
)
_PICK_EDGE_EN = re.compile(
    r"(?i)^(?:(?:ok(?:ay)?|yes|yeah|sure|hmm|um|well|then|let'?s|go|with|i'?ll|take|i|want|"
    r"choose|pick|the|please|book|sign me up for|definitely)[\s,]+)+"
    r"|(?:[\s,]+(?:please|then|one|definitely|thanks|for me|it is|is fine|works))+[\s.!]*$"
    r"|[\s.!]+$"
)
_PICK_EDGE_ZH = re.compile(
    r"^(?:那就|就选|就订|就要|就|选|要|订|那)+|(?:吧|啦|呀|好了|就行|了)*[。！!.]*$"
)
_MAX_PICK_LATIN = 40
_MAX_PICK_HAN = 12


def named_pick(asked: list[str], reply: str) -> tuple[str, str, bool] | None:
    """(the option, the assistant's sentence naming it, True) when the assistant asked the user
    to pick ("Found Sun Yoga (Sat 10am) and Flow Studio (Sun 9am). Which one?") and the short
    reply names one of the things it listed ("Sun Yoga, please.", "阳光瑜伽吧。"), else None."""
    if not asked:
        return None
    last = asked[-1]
    if not ((_PICK_ASKED.search(last) and last.rstrip().endswith(("?", "？")))
            or (_OFFER_TO_ACT.search(last) and _OR_OFFER.search(last))):
        # "Found two venues: Lakeview Lodge ($4,200) or Pine Ridge Retreat ($3,600)." then
        # "Pine Ridge sounds good, let's lock that in.": options listed, one taken.
        return _listed_pick(last, reply) if _OR_OFFER.search(last) else None
    if reply.rstrip().endswith(("?", "？")) or _NEITHER.search(reply):
        return None
    latin = is_latin(reply)
    if len(reply) > (_MAX_PICK_LATIN if latin else _MAX_PICK_HAN):
        return None
    core = (_PICK_EDGE_EN if latin else _PICK_EDGE_ZH).sub("", reply.strip()).strip(" ,，")
    core = _LABEL_REPLY.sub("", core).strip(" ,，.。")
    if len(core) == 1 and core.isalnum():
        # "B.", "B吧": the label of a listed option ("Option B: $800, 1 week", "方案B：800元").
        label = re.compile(
            rf"(?i:\b(?:option|plan|choice)\s*{core}\b)|(?:方案|选项){core}(?![A-Za-z0-9])")
        for sentence in asked:
            for clause in re.split(r"[；;]", sentence):
                if label.search(clause):
                    option = clause.strip(" ?？。.!！")
                    return option, option, True
        return None
    if len(core) < (3 if latin else 2):
        return None
    if latin and not (content_tokens(core) or any(c.isupper() or c.isdigit() for c in core)):
        return None  # "the first", "that one": no name to find in what was listed
    for sentence in asked:
        for clause in _split_outside_brackets(_OPTION_SPLIT, sentence):
            at = clause.lower().find(core.lower()) if latin else clause.find(core)
            if at >= 0 and (not latin or at == 0 or not clause[at - 1].isalnum()):
                # The listed option as the assistant gave it, without what introduced the
                # list: "Found two: Sun Yoga (Sat 10am)" → "Sun Yoga (Sat 10am)".
                option = clause[at:] if _LIST_INTRO.search(clause[:at]) else clause
                option = option.strip(" ?？。.!！")
                return option, option, True
    return None


def _listed_pick(listing: str, reply: str) -> tuple[str, str, bool] | None:
    """(the option, the option, whether the reply said only that) when ``reply`` names one
    option of ``listing`` (a statement of this or that) and says it is taken."""
    if _PICK_SAID.search(reply) is None:
        return None  # "Pine Ridge is in Oregon, right": named, not taken
    options = []
    for clause in _split_outside_brackets(_OPTION_SPLIT, listing):
        intro = _LIST_INTRO.search(clause)
        option = (clause[intro.end():] if intro else clause).strip(" ?？。.!！")
        if option:
            options.append(option)
    if not 2 <= len(options) <= 5:
        return None
    picked = chosen_option(reply, options)
    return None if picked is None else (picked[0], picked[0], picked[1])


# What takes a listed option: "sounds good", "let's lock it in", "就松岭吧", "订这个".
_PICK_SAID = re.compile(
    r"(?i:\b(?:sounds?\s+(?:good|great|perfect|fine)|let'?s|lock|book|go\s+with|take|works"
    r"|choose|pick)\b)|定|就|选|吧|订"
)


# An offer of this or that, asked or not: "I can book the Hilton for $210 or the Hyatt for $245."
_OR_OFFER = re.compile(r"(?i:\bor\b)|或者|或是|还是")
# The assistant offering to do one of them, not suggesting what the user might do ("you could
# try painting or pottery" leaves nothing picked).
_OFFER_TO_ACT = re.compile(
    r"(?i:\b(?:i\s+can|i\s+could|shall\s+i|should\s+i|let\s+me|want\s+me\s+to"
    r"|would\s+you\s+like\s+me\s+to)\b)|帮你|帮您|给你|给您|可以订|可以约|可以预订|我可以"
)
_LABEL_REPLY = re.compile(r"(?i)^(?:option|plan|choice|方案|选项)\s*(?=[A-Za-z0-9]$)")
# Where one listed option ends and the next begins: "A (Sat 10am) and B (Sun 9am)", "A；B".
_OPTION_SPLIT = re.compile(r"[；;。，]|,(?!\d{3})|\s+(?:and|or)\s+|(?<=[）)])\s*(?:和|或|、)")
_OPTION_SPLIT_STRONG = re.compile(r"[；;。]")
_SEMICOLON = re.compile(r"[;；]")
_LIST_INTRO = re.compile(r"[:：](?!\d)|^\s*(?:and|or)\s|^(?:和|或者|或是|或)")


def _split_outside_brackets(rx: re.Pattern[str], text: str) -> list[str]:
    """``text`` split where ``rx`` matches outside brackets: "The Foundry ($4,500, 120 guests)
    or Rosewood Barn ($3,200, 90 guests)" is two options, not four."""
    parts: list[str] = []
    depth, last, at = 0, 0, 0
    for m in rx.finditer(text):
        for ch in text[at:m.start()]:
            if ch in "(（":
                depth += 1
            elif ch in ")）" and depth:
                depth -= 1
        at = m.start()
        if depth == 0:
            parts.append(text[last:m.start()])
            last = m.end()
    parts.append(text[last:])
    return parts



# "Let's do the first one", "He went with the middle one", "option 2", "还是第一个吧", "最后那个":
# a pick by place in what the assistant listed.
_ORDINAL_EN = re.compile(
    r"(?i)\b(?:the\s+)?(?P<w>first|1st|second|2nd|third|3rd|fourth|4th|fifth|5th|last|middle"
    # "first one for sure": with its noun the place is a pick whatever follows.
    r"|former|latter)(?:\s+(?:one|option|choice|pick|place|hotel|flight|plan|slot)\b"
    r"|\b(?=\s*(?:[,.!;)]|please|then|it is|sounds|works|for me|$)))"
    r"|\b(?:option|choice|plan|number|#)\s*(?P<n>[1-5])\b"
    # "B. Switching every day just scrambles my brain": the label of a lettered option.
    r"|^(?:option\s+)?\(?(?P<l>[A-Ea-e])\)?(?=[.,:!)]|\s*$)"
)
# An option named to be ruled out, in the clause before its place: "legal would kill the third
# one", "anything but the second", "除了第一个".
_REJECTS = re.compile(
    r"(?i:\b(?:kill|kills|rule out|ruled out|drop|skip|avoid|hate|against|won't|wouldn't|can't"
    r"|cannot|except|besides|other than|instead of|rather than)\b(?:\s+\w+){0,3}\s*$)"
    r"|(?:除了|不要|不选|排除|不考虑)[^，。！？]{0,4}$")
_ORDINAL_ZH = re.compile(
    r"第(?P<w>[一二三四五12345])(?:个|家|种|套|款|项|班|条|间|位|个方案|个选项)"
    r"|(?P<z>最后|中间)(?:那|这|一)?(?:个|家|种|套|款|项|班|条|间)"
    r"|(?P<h>前者|后者)"
)
_ORDINAL_INDEX = {
    "first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3, "4th": 3,
    "fifth": 4, "5th": 4, "一": 0, "二": 1, "三": 2, "四": 3, "五": 4,
    "1": 0, "2": 1, "3": 2, "4": 3, "5": 4, "former": 0, "前者": 0,
}
# The markers an enumerated listing numbers its options with: "(1)", "1)", "①", "一是", "第一，".
_ENUM_MARK = re.compile(
    r"(?:^|(?<=[\s:：;；，,。]))(?:\(\s*[1-9A-Ea-e]\s*\)|（[1-9A-E]）|[1-9][.)）、](?!\d)"
    r"|[A-E][.)）](?=\s)|[①②③④⑤⑥]"
    r"|[一二三四五六]是|其[一二三四五六][，,：:]|第[一二三四五六][，,：:、]"
    r"|(?i:option\s+[a-e1-6])[:：.)])\s*"
)
_MAX_ORDINAL_LATIN = 80
_MAX_ORDINAL_HAN = 24


def listing_intro(sentence: str) -> bool:
    """True for a sentence that only introduces a listing: "给你三个选择：1.", "Options:"."""
    return _INTRO_THEN_MARK.search(sentence) is not None or sentence.rstrip().endswith((":", "："))


def _series(asked: list[str], least: int) -> list[str]:
    """The items of a series after a listing's introduction, in the last or the first sentence
    of ``asked``:
    "Shortlist: Zenbook 14 ($799), ThinkPad X1 ($1,349), MacBook Air ($1,099).", "可以看看：
    小米14、vivo X100、iPhone 15，拍照都不错", "可以考虑霞浦（…）、婺源（…）"; at least ``least``
    of them (two when the series is said with 、)."""
    for sentence in dict.fromkeys(asked[-1:] + asked[:1]):
        intro = _LIST_INTRO.search(sentence) or _SUGGEST_ZH.search(sentence)
        if intro is None or _SEMICOLON.search(sentence, intro.end()):
            continue  # (options ending at ";" run on: "A few options: Casa dos Azulejos,
            # a guesthouse by the station, about €140; Ribeira Loft, …; and …")
        # (The series ends with its sentence: "…or the ThinkPad at $1,280. The Air has the
        # best battery, the XPS is the cheapest…" says more of the options, none new.)
        rest = _first_of(sentence[intro.end():])
        han = "、" in rest
        items = _SERIES_SPLIT.split(rest) if han else _SERIES_SPLIT_EN.split(rest)
        items[-1] = _SERIES_END.split(items[-1], maxsplit=1)[0]
        series = [_LEAD_OR.sub("", o).strip(" ;；，,。.?？!！") for o in items]
        series = [o for o in series if o]
        if len(series) >= (2 if han else least):
            return series
    return []


_INNER_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])|(?<=[。！？])(?=.)")
_TITLE = re.compile(r"\b(?:" + "|".join(TITLES) + r")\.$")


def _first_of(text: str) -> str:
    """``text`` up to the end of its first sentence, not of a title inside it ("Dr. Osei on
    Wednesday")."""
    for m in _INNER_END.finditer(text):
        if not _TITLE.search(text, max(0, m.start() - 4), m.start()):
            return text[:m.start()]
    return text
# A sentence that opens on the speaker's own condition says what they do, it lists no choice:
# "If I'm having trouble coming up with ideas, I usually…".
_CONDITION = re.compile(r"(?i:\s*(?:if|when|whenever|because|since)\s+(?:i|i'm|i've|we)\b)"
                        r"|\s*(?:如果|要是|假如)我")


def listed_options(asked: list[str]) -> list[str]:
    """The options of the assistant's last message, in the order it gave them: its enumerated
    items ("(1) Casa do Alfama…; (2) Baixa Tower…"), else its sentences after a listing's
    introduction ("A few ideas: Osteria Lupa…; Golden Lotus…; or we could…"), else the
    clauses of its last sentence ("Tue 10:40am, Thu 3:15pm, or Sat 9:00am")."""
    text = " ".join(asked)
    marks = list(_ENUM_MARK.finditer(text))
    if len(marks) >= 2:
        return [_LAST_OR.sub("", text[m.end(): nxt.start() if nxt else len(text)]
                             .strip(" ;；，,。.")) for m, nxt in zip(marks, [*marks[1:], None],
                                                                      strict=True)]
    # The introduction holding the series itself ("Shortlist: A ($799), B, C. All fine.")
    # rather than heading the sentences after it ("Two good fits:\n- A: …\n- B: …").
    series = _series(asked[:1], 3)
    if series:
        return series
    if len(asked) >= 2 and (_LIST_INTRO.search(asked[0]) or _INTRO_THEN_MARK.search(asked[0])):
        intro = _LIST_INTRO.search(asked[0]) or _INTRO_THEN_MARK.search(asked[0])
        first = asked[0][intro.end():]  # type: ignore[union-attr]
        if len(two := _TWO_NAMED.split(first.strip(" .。"))) == 2:
            # "Two places near you: Happy Tails at $48 a night, and Barkwood Lodge at $55 with
            # a webcam. Both need…": the two are in the introduction's own sentence.
            return two
        options = [first, *asked[1:]]
        options = [_LEAD_OR.sub("", o).strip(" ;；，,。.?？") for o in options]
        return [o for o in options if o]
    series = _series(asked, 2)
    if series:
        return series
    # The clauses of the last sentence that offers with an "or"; not one that opens on a
    # condition ("If I'm having trouble coming up with ideas, I usually immerse myself in
    # something I love, like concerts or my favorite albums." says what one does).
    offering = [s for s in _INNER_END.split(asked[-1]) if _OR_OFFER.search(s)] if asked else []
    if offering and not _CONDITION.match(offering[-1]):
        options = []
        # (Options ending at ";" hold their own commas: "有两个方案：科技馆，门票60元一位；或者
        # 植物园，门票30元" is two.)
        split = _OPTION_SPLIT_STRONG if _SEMICOLON.search(offering[-1]) else _OPTION_SPLIT
        for clause in _split_outside_brackets(split, offering[-1]):
            intro = _LIST_INTRO.search(clause)
            option = (clause[intro.end():] if intro else clause).strip(" ?？。.!！")
            if option:
                options.append(option)
        return options
    return []


# Two named options in one sentence: "Happy Tails at $48 a night, and Barkwood Lodge at $55".
_TWO_NAMED = re.compile(r",\s+(?:and|or)\s+(?=[A-Z])")
# A listing's introduction ending in its first mark, split from the items by the sentence
# splitter: "给你三个选择：1.".
_INTRO_THEN_MARK = re.compile(r"[:：]\s*(?:[1-9][.)）、]|\(1\)|（1）)\s*$")
_SUGGEST_ZH = re.compile(
    r"(?:可以考虑|可以看看|可以试试|推荐你?|比如|建议你?(?:去|选|看|试试)?)(?=[^，。]{1,20}、)")
# A series: "A、B、C" (its parentheses kept whole), "A, B, and C" (not "$1,349").
_SERIES_SPLIT = re.compile(r"、(?![^（(]*[）)])")
# (Not before a relative clause: "or Homebase, which has a free tier" is one item.)
_SERIES_SPLIT_EN = re.compile(
    r",(?!\d{3})(?![^(]*\))(?!\s*(?:which|who|whose|where)\b)\s*(?:(?:and|or)\s+)?")
# (Not inside brackets: "or soapstone (softer, heat-proof)" ends after its bracket.)
_SERIES_END = re.compile(
    r"(?:[，。；;!！?？]|,(?!\d{3})(?!\s*(?:which|who|whose|where)\b)"
    r"|" + "".join(rf"(?<!\b{t})" for t in TITLES) + r"\.(?:\s|$))(?![^(（]*[)）])")
_LAST_OR = re.compile(r"(?i)[,，]?\s+(?:or|and)$|[，,]?(?:或者|或|还是)$")
_LEAD_OR = re.compile(r"(?i)^\s*(?:or|and|或者|或是|还有)\s*")


def ordinal_pick(asked: list[str], options: list[str], reply: str
                 ) -> tuple[str, str, bool] | None:
    """(the option, the option, whether the reply said only that) when a short ``reply``
    picks one of ``options`` (:func:`listed_options` of the assistant's ``asked``) by its
    place ("Let's do the first one", "He went with the middle one", "还是第一个吧"), else
    None."""
    latin = is_latin(reply)
    if len(reply) > (_MAX_ORDINAL_LATIN if latin else _MAX_ORDINAL_HAN):
        return None
    if reply.rstrip().endswith(("?", "？")):
        return None
    # The last place named that is not ruled out: "除了第一个都行，就第三个吧".
    m = None
    for found in (_ORDINAL_EN if latin else _ORDINAL_ZH).finditer(reply):
        before = reply[: found.start()]
        if not _REJECTS.search(before):
            m = found
    clause = max(reply.rfind(ch, 0, m.start()) for ch in "，,。；;") + 1 if m else 0
    if m is None or _NEITHER.search(reply[clause: m.start()]):
        return None  # "not the first one", "legal would kill the third one"
    if not 2 <= len(options) <= 6:
        return None
    letter = m.group("l") if latin else None
    if letter and not re.search(rf"\(\s*{letter}\s*\)|(?<![A-Za-z]){letter.upper()}[.)）]\s",
                                " ".join(asked)):
        return None  # "A." with no lettered listing to pick from
    word = (m.group("w") or m.group("n") or "") if latin else (
        m.group("w") or m.group("z") or m.group("h") or "")
    word = word.lower()
    if word in ("last", "latter", "最后", "后者"):
        index = len(options) - 1
    elif word in ("middle", "中间"):
        if len(options) % 2 == 0:
            return None  # no middle one of two or four
        index = len(options) // 2
    elif letter:
        index = ord(letter.lower()) - ord("a")
    else:
        index = _ORDINAL_INDEX.get(word, -1)
    if not 0 <= index < len(options):
        return None
    option = options[index]
    return _as_pick(option, reply)


_ARTICLE = re.compile(r"^(?:the|a|an)\s+")


def described_pick(options: list[str], reply: str) -> tuple[str, str, bool] | None:
    """(the option, the option, whether the reply said only that) when a short ``reply``
    takes the one of ``options`` that its words name ("so the dim sum place", "Tuesday it
    is"), else None."""
    # A reply that is an option's name and nothing else: "soapstone.", "Patel & Voss.".
    bare = reply.strip().rstrip(".!。！").strip().casefold()
    if len(bare) >= 3 and 2 <= len(options) <= 6:
        # ("United." names "the United one leaves at 7:05am": an article is no name.)
        named = [o for o in options if (n := _ARTICLE.sub("", o.casefold())).startswith(bare)
                 and not n[len(bare):len(bare) + 1].isalnum()]
        if len(named) == 1:
            return named[0], named[0], True
    latin = is_latin(reply)
    if latin and (last := _LAST_IT_IS.search(reply)) is not None:
        # "supabase and neon feel like overkill tbh, sqlite it is": what it is comes last,
        # after what was ruled out.
        reply = last.group(1)
    if latin and _DESC_CUE.search(reply) is None:
        # "We can only move on a Saturday, so the one with insurance and weekends": the reasons
        # first, then the one they leave.
        parts = [x for c in _FIRST_CLAUSE.findall(reply) for x in _CLAUSE_LINK.split(c)]
        if len(pointed := [x for x in parts[1:] if _THE_ONE_WITH.search(x)]) == 1:
            reply = pointed[0].strip()
    if latin and (option := _pointed_and_named(options, reply)) is not None:
        return _as_pick(option, reply)
    if len(reply) > (_MAX_PICK_LATIN if latin else _MAX_PICK_HAN):
        clauses = _FIRST_CLAUSE.findall(reply)
        # The clause that picks, wherever it is: "他坐不住，我想让他静下心来，就下棋那个吧".
        cued = [c for c in clauses if _DESC_CUE.search(c.strip())] if not latin else []
        reply = (cued[-1] if len(cued) == 1 else clauses[0]).strip()
        if latin:  # "let's start with the free one and see if the crew uses it"
            head, *rest = _CLAUSE_LINK.split(reply, maxsplit=1)
            if rest and _UNDECIDED.search(rest[0]):
                return None  # "the quartz and the butcher block both look nice"
            reply = head
    if len(reply) > (_MAX_PICK_LATIN if latin else _MAX_PICK_HAN) or _DESC_CUE.search(
            reply) is None or reply.rstrip().endswith(("?", "？")):
        return None
    # "so the dim sum place" names "dim" and "sum" of one option, "place" of another.
    option = _named_most(options, reply, chars=True) if 2 <= len(options) <= 6 else None
    return None if option is None else _as_pick(option, reply)


# The user asking which of what they listed: "…选哪个", "which one should I take?".
_ASKS_WHICH = re.compile(
    r"(?i:\bwhich (?:one|of (?:them|the two|these))\b|\bwhich (?:should|would|do) (?:i|we|you)\b)"
    r"|选哪(?:个|家|款)|哪(?:个|家|款)好|怎么选")
# Each option as the user lists it: "一个是乐刻…，一个是威尔士…", "one is Acme at $40/mo, the
# other is Beta at $55".
_OWN_OPTION = re.compile(
    r"(?:另)?一(?:个|家|款|种|位|套|辆|台|间|所)(?:是)?(?=[\u4e00-\u9fffA-Za-z])"
    r"|(?i:\b(?:one is|the other(?: one)? is|another is)\s+)")


# The user weighing options of their own: "I'm torn between the trampoline park, a pottery
# painting party at Glaze Craze, or just a movie at home", "纠结是去三亚还是去西双版纳".
_TORN = re.compile(
    r"(?i:\b(?:torn|deciding|choosing|debating|undecided|stuck) between\s+([^.?!]+))"
    r"|(?:纠结|犹豫|拿不定主意)(?:是|要)?(?:选)?([^。？！]+?还是[^。？！]+)")


def weighed_options(text: str) -> list[str]:
    """The options the user says they are weighing ("torn between A, B, or C"), each whole;
    [] when not two to six."""
    if "between" not in text and "纠结" not in text and "犹豫" not in text \
            and "拿不定" not in text:
        return []  # (most messages weigh nothing: a substring test in C first)
    m = _TORN.search(text)
    if m is None:
        return []
    if m.group(1) is not None:
        items = _SERIES_SPLIT_EN.split(m.group(1))
        if len(items) == 1:
            items = re.split(r"\s+(?:and|or)\s+", m.group(1))
    else:
        items = re.split(r"还是", m.group(2))
    options = [_LEAD_OR.sub("", o).strip(" ,，;；") for o in items]
    options = [o for o in options if o]
    return options if 2 <= len(options) <= 6 else []


def own_options(text: str) -> list[str]:
    """The options the user listed in ``text`` ("一个是乐刻，月卡199 一个是威尔士，年卡要4800 选
    哪个" gives "乐刻，月卡199" and "威尔士，年卡要4800"), without the question; [] when not
    two to six."""
    parts = _OWN_OPTION.split(text)[1:]
    options = [_ASKS_WHICH.split(o)[0].strip(" ，,。.;；?？") for o in parts]
    options = [o for o in options if o]
    return options if 2 <= len(options) <= 6 else []


# "cheaper one def.", "the cheapest", "便宜的那个", "贵点的那个吧": a pick by price.
_CHEAPER = re.compile(r"(?i:\b(?:the\s+)?(?:cheaper|cheapest|less expensive|least expensive)\b)"
                      r"|便宜(?:点|一点|些)?的|最便宜")
_DEARER = re.compile(r"(?i:\b(?:the\s+)?(?:pricier|priciest|more expensive|most expensive)\b)"
                     r"|贵(?:点|一点|些)?的|最贵")
_BARE_PRICE = re.compile(
    r"(?<![\d.:/,])(?:\d{1,3}(?:,\d{3})+|\d{2,}|\d(?:\.\d+)?(?=\s?(?:万|[kK]\b)))(?:\.\d+)?"
    r"(?!\.?\d)(?![:/%])(?:\s?(?:万|[kK]\b))?")
_PRICE = re.compile(r"[$¥￥€£]\s?(\d[\d,]*(?:\.\d+)?)(?:\s?[kK]\b)?"
                    r"|(\d+(?:\.\d+)?)\s?万?(?:元|块|刀|一晚|每晚)"
                    r"|(?:一晚|每晚)(\d+(?:\.\d+)?)")
_THOUSANDS = re.compile(r"(\d)\s?([kK]|万)")


def _amount(said: str, digits: str) -> float:
    """The amount ``said`` (a price as matched) is: "9.5k" is 9,500, "1.2万" 12,000."""
    value = float(digits.replace(",", ""))
    unit = _THOUSANDS.search(said)
    return value * (10000 if unit.group(2) == "万" else 1000) if unit is not None else value


def priced_pick(options: list[str], reply: str, *, bare: bool = False
                ) -> tuple[str, str, bool] | None:
    """(the option, the option, whether the reply said only that) when a short ``reply``
    takes the cheapest or the dearest of ``options``, each priced once, else None. ``bare``:
    the user listed the options, so a number without its currency is their price."""
    latin = is_latin(reply)
    if len(reply) > (_MAX_PICK_LATIN if latin else _MAX_PICK_HAN):
        reply = _first_clause(reply)
    cheap = _CHEAPER.search(reply) is not None
    if not (cheap or _DEARER.search(reply)) or not 2 <= len(options) <= 6 \
            or reply.rstrip().endswith(("?", "？")) or _NEITHER.search(reply):
        return None
    prices = []
    for option in options:
        found = [_amount(m.group(), next(g for g in m.groups() if g))
                 for m in _PRICE.finditer(option)]
        if not found and bare:
            # A price said bare, as people list their own: "月卡199", "Acme at 40 a month".
            found = [_amount(m.group(), m.group().rstrip("万kK "))
                     for m in _BARE_PRICE.finditer(option)]
        if len(found) != 1:
            return None
        prices.append(found[0])
    best = min(prices) if cheap else max(prices)
    if prices.count(best) > 1:
        return None
    return _as_pick(options[prices.index(best)], reply)


def labelled_pick(options: list[str], reply: str) -> tuple[str, str, bool] | None:
    """(the option, the option, whether the reply said only that) when a short ``reply``
    names the label of one of ``options``, each labelled once ("套餐A 1280元…", "套餐B 2380元…"
    then "B吧"; "Plan 2: …" then "plan 2 please"), else None."""
    latin = is_latin(reply)
    if len(reply) > (_MAX_PICK_LATIN if latin else _MAX_PICK_HAN):
        reply = _first_clause(reply)
    if not 2 <= len(options) <= 6 or reply.rstrip().endswith(("?", "？")) \
            or _NEITHER.search(reply) or _REJECTS.search(reply):
        return None
    labels = []
    for option in options:
        found = [_group(m) for m in _OPTION_LABEL.finditer(option)]
        if len(found) != 1:
            return None
        labels.append(found[0])
    if len(set(labels)) != len(labels):
        return None
    named = {_group(m) for m in _REPLY_LABEL.finditer(reply)} & set(labels)
    if len(named) != 1:
        return None
    return _as_pick(options[labels.index(named.pop())], reply)


def _group(m: re.Match[str]) -> str:
    return next(g for g in m.groups() if g).upper()


# An option's label: "套餐A", "Option B", "Plan 2", "Tier 3" (the label, once).
_OPTION_LABEL = re.compile(
    r"(?i:\b(?:option|plan|package|tier|choice)\s+([A-Z0-9])\b)"
    r"|(?:套餐|方案|选项|路线|款式)\s?([A-Za-z0-9])(?![A-Za-z0-9])")
# The label said alone in a reply: "B吧", "选B", "plan 2 please" (not "B超", "2 nights").
_REPLY_LABEL = re.compile(
    r"(?i:\b(?:option|plan|package|tier|choice)\s+([A-Z0-9])\b)"
    r"|(?:套餐|方案|选项|路线|款式|选|要|就)?\s?(?<![A-Za-z0-9])([A-Za-z])(?![A-Za-z0-9])"
    r"(?=\s*(?:吧|了|就|好|行|$|[，,。.!！]))")
_LAST_IT_IS = re.compile(r"(?i)(?:^|[,;]|\bso\b)\s*(?![^,;]*\b(?:what|which|how|whatever|where|who"
                         r"|why|when|not|isn't)\b)((?:then\s+)?[^,;]+?\bit is)[.!]*$")
_CLAUSE_LINK = re.compile(r"\s+(?:and|but|so|because|since|then)\s+")
_UNDECIDED = re.compile(r"(?i:\b(?:both|either|neither|or|can'?t decide|not sure|undecided)\b)")


def _pointed_and_named(options: list[str], text: str) -> str | None:
    """The one of ``options`` that ``text`` points at and its other words name ("Thursday
    morning works better with my schedule, book that one"), else None; not by the pointing
    ("go" in "Let's go with that one" names no "pay as you go" plan), nor when it denies."""
    if not 2 <= len(options) <= 6 or not _pointing(text):
        return None
    return _named_most(options, _THAT_ONE.sub(" ", text))


def _pointing(text: str) -> bool:
    """Whether ``text`` points at one option ("book that one") and denies nothing."""
    return _THAT_ONE.search(text) is not None and _DENIES.search(text) is None


# A pick pointed at, named by the rest of what is said: "Thursday suits me, book that one".
_THAT_ONE = re.compile(r"(?i:\b(?:book|take|grab|reserve|go with|let'?s do) (?:that|this) one\b"
                       r"|\b(?:that|this) one (?:works|please|sounds good|it is)\b)")
_DENIES = re.compile(r"(?i:\b(?:not|no|never|neither|nor|other|cannot)\b|n't\b)")
# An option told by what it has: "the one with the webcam", "the place that does delivery";
# anywhere in a sentence, or opening it.
_TOLD = r"the (?:one|place|option|plan|hotel|flight) (?:with|that|where|which)\s"
_TOLD_BY = re.compile(rf"(?i:\b{_TOLD})")
_THE_ONE_WITH = re.compile(
    rf"(?i:^\s*(?:(?:ok(?:ay)?|so|then|and)[,\s]+)*(?:let'?s do |go with |take |book )?{_TOLD})")
# What takes an option described: "so the dim sum place", "Tuesday it is", "就那家吧", and an
# option's own word said alone ("the tile. dog + 2 kids…": the sentence is nothing else).
_DESC_CUE = re.compile(
    rf"{_THE_ONE_WITH.pattern}"
    r"|(?i:^(?:ok(?:ay)?,?\s+|then\s+|and\s+|so,?\s+)?the\s+[\w\s'-]{1,30}?\b(?:one|place|option"
    r"|slot|hotel|flight|plan|room|time)(?:,?\s+(?:please|then|for me|thanks|thank you))?[.!]*$"
    r"|^(?:ok(?:ay)?,?\s+|then\s+|so,?\s+)?the\s+[\w'-]+(?:\s+[\w'-]+)?[.!]*$"
    r"|\bit is[.!]*$|\b(?:let'?s|go with"
    r"|take|book|pick|choose|went with|sounds good|works for)\b)|就|选|订|吧(?:$|[，,。！!])"
)


def _as_pick(option: str, reply: str) -> tuple[str, str, bool]:
    option = _short_option(option)
    said = _words(reply) - _ORDINAL_WORDS
    return option, option, said <= _CHOICE_WORDS | _ORDINAL_WORDS


_MAX_ITEM_CHARS_OPTION = 120
_ORDINAL_WORDS_TEXT = (
    "the first 1st second 2nd third 3rd fourth 4th fifth last middle former latter one option "
    "choice pick place do let's lets let go with he she they went chose picked wants want i "
    "we'll so"
    "it is please then"
)
_ORDINAL_WORDS = frozenset(_ORDINAL_WORDS_TEXT.split())


# The assistant saying what the user's reasons leave: "Then the elliptical it is", "Then the
# canary at 10% is the one", "那就上客如云", "那就用DNSPod免费版".
_CONCLUDES = re.compile(
    r"(?i:^(?:ok(?:ay)?|great|perfect|got it|makes sense|fair enough)?[,.!]?\s*(?:then|so)\b"
    r"|\bit is\b|\bis the (?:one|pick)\b|\b(?:go|going|we'll go|let's go) with\b)"
    r"|^(?:好的?[，,]?)?(?:那就|那我们就|就用|就选|就上|那用|那选)"
)


def concluded_pick(options: list[str], sentence: str) -> str | None:
    """The one of ``options`` that the assistant's ``sentence`` concludes the user wants
    after they answered the listing without naming one, else None."""
    if _CONCLUDES.search(sentence) is None or sentence.rstrip().endswith(("?", "？")):
        return None
    return _option_named(options, sentence)


# The assistant naming what the user picked without naming it ("the cheapest one then",
# "中间那个吧"): "Zettle it is.", "Barmer then.", "好，就定创蓝。", when the listing it was
# picked from is no longer at hand (a fold ago, or prose in the user's own question).
_CONFIRMED_EN = re.compile(
    r"^(?:(?:ok(?:ay)?|great|perfect|good (?:call|choice|pick)|sounds good|makes sense|love it"
    r"|fair enough|agreed|nice|alright|all right|got it)[,:.!]?\s+)?(?:then\s+)?"
    r"(?P<x>(?:[^,;:!?.]|\.(?=\S)){2,60}?)\s+(?P<how>it is|then)(?=\s*[.,!:;—-]|\s*$)",
    re.IGNORECASE)
_CONFIRMED_ZH = re.compile(
    r"^(?P<ok>好的?|行|可以|没问题)?[，,！!。\s]*(?P<how>那就|那我们就|就|选|定|订)"
    r"(?:定|选|订|用|上|买|走|是|约)?(?P<x>[^，,。！!；;：:？?、\s][^，,。！!；;：:？?、]{1,15})")
_NOT_CONFIRMED_TEXT = (
    "yes no yeah yep nope sure indeed so that this it there here well right ok okay and but "
    "now what how which true fine good bye see talk have enjoy done then a an")
_NOT_CONFIRMED = frozenset(_NOT_CONFIRMED_TEXT.split())
_NOT_NAMED = frozenset(
    ["how", "what", "why", "where", "when", "who", "so", "too", "very", "if", "as", "because"])
_PICKS_ZH = re.compile(
    r"第[一二三四五六1-6][个家款种]|[这那哪][个家款种](?!月)|最(?:便宜|贵|近|远|快|好|大|小)|中间|选"
    r"|定了|就它")
# An amount, a time or a day of the month confirmed ("19 kids it is", "the 18th then",
# "那就周三五点一刻") is a value that may change again: the update passes read it.
_A_VALUE = re.compile(r"(?i:the\s+)?[\d$€£¥]")
_A_VALUE_ZH = re.compile(
    r"[\d¥]|周[一二三四五六日天]|星期|礼拜|[一二三四五六七八九十两]+[点号月天块元]|[上下中]午|晚上|早上")
_NOT_CONFIRMED_ZH = re.compile(
    r"^(?:这|那|先|按|照|好|行|可以|是说|明天|今天|马上|现在|等|帮|给|提醒|发|写|去|来|不|没|也|还|都|会"
    r"|能|要|我|你|他|她|它|咱|太|辛苦|祝|谢|麻烦|别|不用|没事|放心|早点|慢慢|试试|看看|算了|随便|加油)")


_CLAUSE_SPLIT_EN = re.compile(r"[,;]\s+|\s+[—–-]\s+")


def confirmed_choice(sentence: str, lang: str, seen: Iterable[str], picked: str,
                     reply: str = "", *, named: bool = False) -> str | None:
    """What the assistant's ``sentence`` (of its ``reply``) says the user just chose ("Zettle
    it is.", "好，就定创蓝。"), else None. ``seen`` is what was said before: a name said there
    (an option) is what a bare "X then." must name to be a choice, and a Chinese "就X" too
    unless the user's message it answers, ``picked``, picks by place or kind ("第二个吧",
    "最便宜那家"). ``named``: an English "X it is" must name one too (the user's own words)."""
    s = sentence.strip()
    if s.endswith(("?", "？")):
        return None
    if lang == "zh":
        if not any(c in s[:12] for c in "就选定订"):
            return None  # (most sentences: no pattern need run)
        m = _CONFIRMED_ZH.match(s)
        if m is None or s.startswith("就是"):  # ("就是…": "that is")
            return None
        x = m.group("x").rstrip("吧了啦呀哈的")
        if len(x) < 2 or _NOT_CONFIRMED_ZH.match(x) or _A_VALUE_ZH.match(x):
            return None
        known = any(x[:2] in t for t in seen)
        # Unless it names an option said before: a pick by place or kind it answers, and an
        # "好，" or "那就" that makes it an answer (not advice: "选带护栏的，摇把收起来").
        said = _CONFIRMED_ZH.match(reply.strip()) or m  # (its "好，" may be cut from it)
        answers = bool(said.group("ok")) or said.group("how").startswith("那")
        if not known and (_PICKS_ZH.search(picked) is None or not answers):
            return None
        return x
    low = s.lower()
    if "it is" not in low and "then" not in low:
        return None
    # (The user's own comes after their reasons: "…feel like overkill tbh, sqlite it is".)
    clauses = [c for c in _CLAUSE_SPLIT_EN.split(s) if c] if named else [s]
    m = _CONFIRMED_EN.match(clauses[-1]) if clauses else None
    if m is None:
        return None
    x = m.group("x").strip(" —–-")
    words = x.split()
    if not 1 <= len(words) <= 6 or words[0].lower().strip("'") in _NOT_CONFIRMED \
            or _NOT_NAMED.intersection(w.lower() for w in words) or _A_VALUE.match(x):
        return None  # ("Look how cute it is.")
    if (named or m.group("how").lower() == "then") \
            and not any(x.lower() in t.lower() for t in seen):
        return None
    return x


def _option_named(options: list[str], text: str) -> str | None:
    """The one of ``options`` that ``text`` names most of, shortened, else None."""
    if not 2 <= len(options) <= 6:
        return None
    option = _named_most(options, text)
    return None if option is None else _short_option(option)


def _named_most(options: list[str], text: str, *, chars: bool = False) -> str | None:
    """The option most of whose own words ``text`` says, None on a tie or none. ``chars``: when
    no word tells, a Chinese character of one option's own ("就下棋那个吧": "弈林围棋")."""
    said = _words(text)
    words = [_words(o) for o in options]
    if chars and not any(said & w for w in words) and _DESCRIBED_ZH.search(text):
        said = set(_HAN_CHAR.findall(text)) - _ZH_STOP_CHARS
        words = [set(_HAN_CHAR.findall(o)) for o in options]
    hits = [len(said & (w - set().union(*(x for j, x in enumerate(words) if j != i))))
            for i, w in enumerate(words)]
    best = max(hits)
    if not best or hits.count(best) > 1:
        return None
    return options[hits.index(best)]


def _short_option(option: str) -> str:
    if len(option) <= _MAX_ITEM_CHARS_OPTION:
        return option
    return option[:_MAX_ITEM_CHARS_OPTION].rstrip() + "…"


# "I'll go with that one", "就这个吧": a pick whose option the sentence before describes
# ("a drop-off every morning matters more to me than a euro a kilo").
_ANAPHORIC_PICK = re.compile(
    r"(?i:\b(?:go with|take|pick|choose|book|do|want)\s+(?:that|this)(?:\s+one)?\b"
    r"|^(?:then\s+)?(?:that|this) one(?:\s+(?:it is|then|please))?[.!]*$)"
    r"|就(?:这个|那个|它|这家|那家)(?:吧|了)|就选(?:这个|那个)"
)


def anaphoric_pick(options: list[str], before: str, sentence: str) -> str | None:
    """The one of ``options`` that ``before`` describes, when ``sentence`` takes "that one";
    else None."""
    if _ANAPHORIC_PICK.search(sentence) is None or _NEITHER.search(sentence):
        return None
    return _option_named(options, before)


# ---------------------------------------------------------------------------------------------
# a choice left open: options the user asked for and has not picked from yet

# The user asking for options to choose from: "ideas?", "What would you pick?", "any
# recommendations", "推荐一下", "哪家好", "有什么建议".
_ASKS_OPTIONS = re.compile(
    r"(?i:\b(?:ideas|suggestions?|(?:you(?:'d| would)?|can you|could you) suggest"
    r"|recommend(?:ations?)?|options|alternatives|which (?:one|is better|is the (?:best|better"
    r"|cheapest))|know any|(?:what|which|any) (?:\w+ ){0,2}(?:openings|slots|times|dates)"
    r"|what (?:would|should|do) (?:you|i) (?:pick|choose|get|recommend|suggest)"
    r"|any (?:good )?(?:places|spots|ones|picks)|shortlist|find me|look(?:ing)? for"
    r"|search for)\b)"
    r"|推荐|哪(?:个|家|款|种|班|所|位|些)|选哪|(?:比较|对比)一?下|给我几个|怎么选"
    r"|有(?:什么|啥)(?:好的?)?(?:建议|选择|地方|方案|类型|种类|牌子|款式)"
    r"|帮我(?:找|搜|看看)|找(?:一)?下|搜(?:一)?下"  # (not 帮我查: a look-up, "查下报错数")
)
# An appraisal ("definitely", "for sure") of an option ruled out: "…is out for sure", "not
# the hostel for sure", "the Airbnb is definitely out" (not "Hatton for sure, not the mill").
_RULED_OUT_BEFORE = re.compile(
    r"(?i)(?:\b(?:is|are|was)|'s|'re)\s+(?:out|off|a no|not happening)\W*$|\b(?:not|no)\W*$"
    r"|^\W*(?:not|never)\s+(?:the|that|this|a|an)\b")
_RULED_OUT_AFTER = re.compile(r"(?i)\s+(?:out|off|not)\b")
# A later message that says it chose: "team voted for the Middle Eastern place", "Going with
# the one I can fix myself", "We booked the second one", "最后定了第二家", "就订亚朵吧".
_CHOSE_LATER = re.compile(
    r"(?i:\b(?:go(?:ing)? with|went with|voted for|vote went to|chose|picked|decided on"
    r"|settled on|let'?s (?:do|go with|book|get)|(?:i|we)'?(?:ll| will) (?:take|get|go with|do)"
    r"|booked|ordered|bought|signed up for|went for|going for"
    # an option said to be right: "The second one sounds perfect", "the webcam one works best",
    # "Thursday morning works better", "Hague, definitely"
    r"|sounds (?:perfect|great|good|best|ideal)|works (?:best|better)|is (?:perfect|the one)"
    r"|definitely|for sure"
    # "Decided, we're doing the pottery painting", "Go cheapest."
    r"|decided(?=[,:])|(?:we're|we are|i'm|i am) doing|go(?= (?:for )?(?:the )?(?:cheap|pric"
    r"|expensive|first|second|third|last|middle)))\b)"
    r"|选了|选定|决定|定了|就(?:订|买|要|去|选|用|报|上)|订了|买了|报了|投票|还是(?:选|订|买|用)?(?=[^，。！？]{0,12}吧)"
    # "选第二个吧", "就离地铁近的那家吧"
    r"|选(?=第|这|那|最)|就(?=[^，。！？]{1,12}?那(?:家|个|款|种|套|趟|班|所)吧)"
    # "就第二个吧", "就东鹏吧", "选东鹏吧": what it names must be one of the options.
    r"|(?:就|选)(?=[^，。！？吧]{1,12}吧)"

)
# Still choosing: "haven't decided", "都行", "还没想好".
_UNDECIDED_LATER = re.compile(
    r"(?i:\b(?:neither|none of|both|(?:haven't|not) (?:yet )?decided|not sure|still deciding"
    r"|can't decide)\b)|都不|都行|都可以|随便|还没(?:定|决定|想好)|拿不定")


def offered_options(text: str, sentences: list[str]) -> list[str]:
    """The options an assistant message lists, each whole (a long sentence is trimmed when it
    is split: "…or Dramatiq (lighter than Celery, good retry middleware, works with…"), each
    ending where its first sentence does ("…good Linux support.\nAll three fit")."""
    for found in (listed_options([text]), listed_options(sentences)):
        options = [o for o in (_first_sentence(o) for o in found) if o]
        if 2 <= len(options) <= 6:
            return options
    return []


def _first_sentence(option: str) -> str:
    """``option`` up to the end of its first sentence outside brackets."""
    depth = 0
    for i, ch in enumerate(option):
        if ch in "(（":
            depth += 1
        elif ch in ")）":
            depth = max(0, depth - 1)
        elif depth == 0 and (ch in "\n。！？"
                             or (ch in ".!?" and option[i + 1:i + 2] in (" ", "")
                                 and not _TITLE.search(option, max(0, i - 4), i + 1))):
            return option[:i].strip(" ;；，,.")
    return option.strip(" ;；，,.。")


# The assistant saying it lists options: "Three reasonable choices: …", "A few ideas: …",
# "I'd suggest one of these", "给你推荐三家", "有三个方案".
_OFFERS_OPTIONS = re.compile(
    r"(?i:\b(?:options?|choices|picks|ideas|alternatives|contenders|shortlist|recommend\w*"
    r"|suggest\w*|favou?rites|(?:two|three|four|a few) (?:good |great |solid )?(?:ones|kinds"
    r"|types))\b)|推荐|选择|可选|方案|可以考虑|备选|(?:常见的)?有(?:两|三|四|几)(?:种|类|个|家|款)"
    r"|(?:常见的?|一般|主要)(?:两|三|四|几)(?:种|类|个|家|款)")


def offers_options(text: str) -> bool:
    """Whether the assistant's message says it lists options to choose from."""
    return _OFFERS_OPTIONS.search(text) is not None


# Looking up one's own ("帮我查一下这周的日程", "check my calendar"): a listing of what is, no
# options to choose from.
_OWN_LOOKUP = re.compile(r"(?i:\b(?:my|our) (?:calendar|schedule|orders?|bookings?|agenda)\b)"
                         r"|日程|日历|行程|订单|安排")


def asks_for_options(text: str) -> bool:
    """Whether the user's message asks for options to choose from."""
    return _ASKS_OPTIONS.search(text) is not None and _OWN_LOOKUP.search(text) is None


_BEFORE_ORDINAL = frozenset(("the", "maybe", "probably", "just", "definitely", "with", "for"))


def later_pick(options: list[str], sentence: str) -> str | None:
    """The one of ``options`` (a choice left open folds ago) that a later ``sentence`` of the
    user says was chosen, by place or by what it names; None when it says no choice or names
    none or more than one."""
    if 2 <= len(options) <= 6 and is_latin(sentence) \
            and (last := _LAST_IT_IS.search(sentence)) is not None:
        # "supabase and neon feel like overkill tbh, sqlite it is"
        option = _named_most(options, last.group(1))
        return None if option is None else _short_option(option)
    if 2 <= len(options) <= 6 and is_latin(sentence) and not sentence.rstrip().endswith("?"):
        told = _TOLD_BY.search(sentence)
        if told is not None and not _DENIES.search(sentence, told.start()):
            # "We never have cash on us, so the one with the warranty": by what it has.
            option = _named_most(options, sentence[told.start():])
            return None if option is None else _short_option(option)
        if _pointing(sentence):
            option = _pointed_and_named(options, sentence)
            return None if option is None else _short_option(option)
    cue = _CHOSE_LATER.search(sentence)
    if not 2 <= len(options) <= 6 or sentence.rstrip().endswith(("?", "？")) \
            or cue is None or _UNDECIDED_LATER.search(sentence):
        return None
    # What was chosen is said after saying so: "Celery feels like overkill, so going with the
    # lighter one" rules one option out before it picks another.
    # (An option said to be right comes before it: "The second one sounds perfect".)
    appraised = cue.group().lower().startswith(("sounds", "works", "is ", "definitely",
                                                "for sure"))
    if appraised and (_RULED_OUT_BEFORE.search(sentence, 0, cue.start()) or (
            cue.group().lower().startswith("definitely")
            and _RULED_OUT_AFTER.match(sentence, cue.end()))):
        return None  # ruled out: "so the spare room is out for sure"
    sentence = sentence[:cue.start()] if appraised else sentence[cue.start():]
    ordinal = (_ORDINAL_EN if is_latin(sentence) else _ORDINAL_ZH).search(sentence)
    between = "" if appraised or ordinal is None or not is_latin(sentence) else \
        sentence[cue.end() - cue.start():ordinal.start()]
    if ordinal is not None and not set(between.lower().split()) - _BEFORE_ORDINAL:
        # (right after saying so: "we'll take the bus there first" is no pick of the first)
        picked = ordinal_pick([], options, sentence[ordinal.start():][:_MAX_ORDINAL_LATIN])
        if picked is not None:
            return picked[0]
    # "I'll go with the cheapest of the three": by the prices the options give.
    priced = priced_pick(options, sentence[:_MAX_PICK_LATIN if is_latin(sentence) else
                                           _MAX_PICK_HAN])
    if priced is not None:
        return _short_option(priced[0])
    # (by what it names after saying so: "go" in "Let's go with that one" names no "pay as you
    # go" plan)
    option = _named_most(options, sentence if appraised else sentence[cue.end() - cue.start():],
                         chars=True)
    return None if option is None else _short_option(option)
