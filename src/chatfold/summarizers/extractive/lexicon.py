"""Word lists and fixed limits of the extractive summarizer, and the script test."""

from __future__ import annotations

import re

DEFAULT_MIN_SCORE = 1.2
ZH_NUMERALS = "零一二两三四五六七八九十百千万"
# Chinese cities and regions said bare ("上海。", "从成都出发"): names, as "Boston" is in English.
ZH_PLACES = (
    "北京 上海 天津 重庆 广州 深圳 杭州 南京 苏州 成都 武汉 西安 长沙 郑州 青岛 厦门 大连 宁波"
    " 沈阳 哈尔滨 长春 济南 合肥 福州 南昌 昆明 贵阳 南宁 海口 三亚 兰州 西宁 银川 乌鲁木齐 拉萨"
    " 呼和浩特 太原 石家庄 无锡 珠海 东莞 佛山 桂林 丽江 香港 澳门 台北 新加坡 东京 大阪 首尔"
    " 曼谷 伦敦 巴黎 纽约"
)
"""Chinese numeral characters: the update rules read "三晚", "二十份", "两间" as numbers."""
"""A new sentence scoring below this is not kept (small talk, filler, bare questions)."""

DEFAULT_TOOL_RESULT_CHARS = 120
"""A tool result is trimmed to about this many characters in its summary line."""

DEFAULT_INCUMBENT_BONUS = 3.0
"""Added to the score of an item the previous summary kept: a new statement takes its place only
if it scores clearly higher (a plain statement of fact scores about 4-7), so the summary is not
traded for the next fold's chatter. The bonus is at most 1.5 times the item's own score: a weak
item let in while the summary had room to spare does not hold off a fact worth far more. Higher
freezes the summary sooner: the facts it holds stay longer, but fewer later facts get in
(``benchmarks/bench_drift.py`` measures both)."""

_FACTS, _PREFS, _DECISIONS, _TASKS = range(4)

_MAX_ITEM_CHARS = 220
# "Remind me to buy her a new uniform" → "I'll remind you": the reminder is set, the errand is
# still the user's and stays open until they say it is done.
_REMINDER_MARK = {"en": " (reminder set)", "zh": "（已设提醒）"}
_REMINDER_MARKS = tuple(_REMINDER_MARK.values())
_MAX_ARG_CHARS = 40
_MAX_ARGS = 6
_MAX_ARGS_CHARS = 100
_MAX_RESULT_KEYS = 8
_PREVIOUS_FLOOR = 1.5  # a previous item was kept once: it never scores like small talk
_ORPHAN_MIN_SCORE = 1.2  # a clause left alone by a replacement must say something itself
# Over the cap, a clause of a long statement that gives no value and scores under this on its
# own is idle ("吓死我了", "but thankfully", "所以我就是想问"): summarizer._without_idle_clauses.
# Measured over eight orders: read probes 14,912 -> 14,726 wrong checks, held-out 3,466 ->
# 3,453. At 2.0 (tried with English statements trimmed too) the held-out probes lost 21 more
# checks than at 1.5: it cut words that later changes are matched by.
_IDLE_CLAUSE_SCORE = 1.5
_MAX_MISSES = 64  # stop filling the cap after this many candidates in a row did not fit
_REPEAT_DISCOUNT = 0.5  # each older variant of a repeated statement keeps half its score
_CARRY_SHARE = 0.9  # carried-forward items first claim up to this share of the cap
_CARRY_HELD = 0.8  # ...and of what they take: one fold turns over at most the rest
# How a tool's JSON names a value and the one it replaced ("old_price" / "new_price"). The
# change reader also takes "was_" / "now_"; a rendered result drops only these plain pairs.
OLD_KEY_WORDS = "original|old|previous|prev|former"
NEW_KEY_WORDS = "new|updated|current"
_NEAR_DUP_BUCKET = 8  # near-duplicate check looks at this many recent items per bucket
_JACCARD_MIN_TOKENS = 3  # shorter statements are compared by their normalised text only
_JACCARD_DUP = 0.8  # content-word overlap from which a statement repeats a kept one

_COLON = {"en": ": ", "zh": "："}
_ASKED = {"en": " asked", "zh": "要求"}  # "User asked: …": an ask the assistant took on
_TO_CHOOSE = {"en": " to choose from", "zh": "待选"}  # options offered, none picked yet
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
(_ID, _MONEY, _WHEN, _NAME, _NUM, _PREF, _DECIDE, _TASK, _INJECT, _FIRST, _SLOT, _FACT, _FOND,
 _FEEL, _ATTR) = (1 << i for i in range(15))
# _FACT: a statement of fact about the speaker or the world ("my X is Y", "I live in",
# "我叫", "我对…过敏"). _FOND: "love", "like", "enjoy": a preference only when the speaker
# says it of a thing ("I love hiking"), chatter otherwise ("love it!", "I'd love to").
# _ATTR: an attribute of the speaker or theirs, "my X is Y" ("my blood type is O negative",
# "our anniversary is June 14", "我的工号是E20417"): true until said otherwise, so it outweighs
# a one-off event of the same shape ("I went to a support group yesterday"), whose time weighs
# _WHEN's 1.5: a user's own standing facts get into a summary full of narrated events.
_FACT_WEIGHT = 2.0
_ATTR_WEIGHT = 2.5
_FOND_WEIGHT = 0.8
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

_ZH_WORDS: dict[int, str] = {
    _PREF: "爱吃 爱喝 不爱 讨厌 过敏 偏好 偏爱 更爱 最爱 不吃 不喝 吃素 素食 忌口 受不了 倾向"
    " 吃不下 吃腻 不想再吃 别再"
    " 不能吃 不能喝 吃不了 看不了 我只坐 我只喝 我只用 我只吃 我只买 别给我推荐 不要给我推荐"
    " 夜猫子 我一定要"
    " 不耐受 清真",
    _FOND: "喜欢 习惯 爱上",
    _FEEL: "开心 高兴 快乐 幸福 感动 激动 兴奋 难过 伤心 骄傲 自豪 庆幸 感恩 温暖 好玩 有意思"
    " 太棒 真棒 美好 难忘 太好了 好极了 真厉害 太厉害 效率很高 辛苦了 哈哈",
    _DECIDE: "决定 定了 就这样 就这么定 确定 选了 选定 选择 敲定 拍板 最终 就用 就订 就选"
    " 锁定 先锁 固定在 固定用"
    " 定在 最后定 就找他们 就找这家 就找那家 以后就找"
    " 改成 改为 换成 采用 确认 商量好 说好了 约好 定好了 那就 就定 定这家 接受了 最后还是"
    " 还是不要 还是不换 还是不去 还是不买 还是不订 还是不用 定下来 还是用 还是选 还是订 还是接受"
    " 还是去 还是坐 还是住 还是买",
    _TASK: "帮我 帮忙 麻烦 记得 别忘 需要 要求 提醒 待办 任务 截止 尽快 请 务必 跟进 安排"
    " 要交 要提交 要订 要转 要给 要寄 要续 要缴 要付 要还 要取 要买 要预约"
    " 我会 我来 我得 还得 我还没 前要 之前要 前得 得给 得去 得把 得交 得还 得买 得打 得约 得做"
    " 得写 得办 得拿 得取 得续 得在 要在 必须在 别让我忘 得赶紧 得尽快 要赶紧 还没顾上 还没来得及"
    " 得带 还没办 还没弄 还没交 还没续 还没转 还没签 还没寄 还没退 还没买 还没写 还没约 还没空"
    " 有空 年底前 月底前"
    " 得找 让我 叫我 要我 要求我 要把 得抽空 得先 todo"
    " 该打了 该续了 该交了 该换了 该还了 该缴了 该办了 该约了 该买了 该取了 该拿了 该付了 该签了"
    " 件事： 件事:",
    _INJECT: "忽略以上 忽略上面 忽略之前 忽略前面 忽略所有 忽略上述 无视以上 无视上面"
    " 无视之前 无视上述 作为摘要 摘要只写 摘要就写 摘要改写 把摘要写成 系统提示",
    _NAME: "我叫 名叫 叫做 名字是 我姓 " + ZH_PLACES,
    _MONEY: "预算 人均 每晚",
    _WHEN: "今天 明天 后天 昨天 前天 今晚 明晚 下周 本周 这周 上周 下个月 下月 月底 月初"
    " 年底 周末 早上 上午 中午 下午 晚上 凌晨 傍晚 周一 周二 周三 周四 周五 周六 周日"
    " 周天 星期一 星期二 星期三 星期四 星期五 星期六 星期日 星期天 礼拜一 礼拜二 礼拜三"
    " 礼拜四 礼拜五 礼拜六 礼拜天",
    _FIRST: "我 我叫 我会 我来 我姓",
    _FACT: "我叫 我姓 我住在 我住 我家 我搬到 我搬去 我今年 我是 我的 我有 我养了 我在 我老婆"
    " 我老公 我妻子 我丈夫 我女儿 我儿子 我父母 我妈 我爸 我们家 我过敏 过敏 我毕业 我从事"
    " 我们的 我们有 我每天 我平时 我一直 我经常 我通常 我开的 我用的 我换了 我们换了",
    _SLOT: "住在 搬到 搬去 搬家 定居 预算 我叫 名叫 名字 电话 手机 邮箱 电子邮件 地址 职业"
    " 工作是 上班 就职 岁 截止 期限 人数 目的地 饮食 吃素 素食 喜欢 爱吃 爱喝 讨厌 偏好"
    " 偏爱 最爱 受不了 过敏 我的 我有 我养了 养了 我在 现在有 已经有 一共有 总共有 目前有 有了"
    " 不吃素 跳槽 入职",
}
# Matched as a whole so that the cue inside them is not: "不确定" decides nothing, "你确定"
# asks someone else, "也就这样" shrugs; "我在想" is what the speaker is doing, not a fact.
_ZH_NEUTRAL = (
    "不确定 无法确定 不能确定 你确定 您确定 请问 申请 邀请 敬请 一定 也就这样 不过如此"
    " 我在想 我在看 我在等 我在忙 我在说 我在做"
    " 可以选择 可选择 可供选择 选择性 选择余地 选择很多 选择不多"
    " 不要订 不要转 不要给 不要寄 不要续 不要缴 不要付 不要还 不要取 不要买 不要预约 要不要"
    " 想要买 想要订 想要给 想要预约"
)

_EN_WORDS: dict[int, str] = {
    _PREF: "prefer|prefers|preferred|preference|allergic|allergy|allergies|hate|hates"
    "|not into|not big on|is a no from me|are a no from me|is a no-go|is a hard no"
    "|can't eat|cannot eat|can not eat|don't eat|do not eat|can't have|can't drink|don't drink"
    "|don't like|do not like|not a fan of|more of a|i only fly|i only drink|i only eat|i only use"
    "|don't recommend|do not recommend|never recommend|don't suggest|do not suggest|never suggest"
    "|i always sleep|i always sit|i always take"
    "|night owl|early bird|morning person"
    "|dislike|dislikes|favorite|favourite|vegetarian|vegan|can't stand|would rather|i'd rather"
    "|intolerant|intolerance|celiac|gluten-free|dairy-free|kosher|halal|pescatarian",
    _FOND: "like|likes|love|loves|enjoy|enjoys|fan of|passionate about",
    _FEEL: "happy|glad|grateful|thankful|excited|exciting|proud|lucky|blessed|amazing|awesome"
    "|incredible|wonderful|fantastic|special|powerful|rewarding|inspiring|inspired|beautiful"
    "|fun|thrilled|stoked|hopeful|optimistic|overwhelmed|nervous|scared|sad|upset|feel|felt"
    "|feeling|feelings|belonged|meaningful|memorable|unforgettable|heartwarming|uplifting",
    _DECIDE: "decide|decided|decision|go with|going with|went with|settled on|chose|chosen"
    "|pinning|pinned|standardizing on|standardising on|standardized on|standardised on"
    "|choose|confirm|confirmed|opt for|opted for|we'll use|switch to|switched to|switching to"
    "|change to"
    "|changed to|let's not|agreed to|agreed on|we agreed|final decision|voted for|voted to"
    "|let's go with|let's meet at|let's meet on|we'll meet at|we'll meet on|let's do the|let's book"
    "|let's take|i'll take the|we'll take the|accepted the offer|accept the offer|take the offer"
    "|taking the offer|took the offer|take the job|taking the job|took the job|accepted the job"
    "|let's use|let's go for|we'll go for|lock it in|lock that in|locked in|stick with"
    "|sticking with|going to accept|i'll accept|we'll accept",
    _TASK: "todo|to-do|please|remind|reminder|need to|needs to|must|have to|has to|got to"
    "|deadline|due"
    "|still haven't|haven't yet"
    "|i have to|we have to|i still have to"
    "|follow up|follow-up|action item|don't forget|make sure|can you|could you|will you|i'll"
    "|i will|would like|i'd like|wants me to|asked me to|told me to|needs me to|gotta"
    "|should really|need someone to|need somebody to|we need|we still need|we also need",
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
    "|july|august|september|october|november|december|last year|last week|last month|last night"
    "|last weekend|this year|this week|this month|ago",
    _FIRST: "i|i'm|i've|i'd|i'll|my|me|mine|we|our|us|i'd rather|i'd like|my name is",
    _FACT: "my name is|i live|we live|we're from|we moved|i'm from|i am from|i come from|i work"
    "|i'm a|i am a|i'm an|i am an"
    "|i have|i've got|i own|allergic to|i moved|i was born|i grew up|i study|i teach|i married"
    "|i'm married|i got married|years old|my birthday|my wife|my husband|my partner|my kids"
    "|my son|my daughter|my mom|my dad|my mother|my father|my job|my sister|my brother"
    "|my family|my dog|my cat|i graduated|i'm studying|i retired|we have|we've got|we own"
    "|our dog|our cat|our kids|our son|our daughter|blood type|i'm diabetic|i have diabetes"
    "|i'm pregnant|i'm asthmatic|i have asthma",
    _SLOT: "live|lives|lived|living|moved|move|moving|relocated|based in|budget|name is|my name is"
    "|call me|phone|mobile|cell|email|e-mail|address|work|works|job is|occupation|years old"
    "|aged|deadline|ddl|due|headcount|destination|diet|vegetarian|vegan|allergic|prefer|prefers"
    "|preferred|like|likes|love|loves|hate|hates|dislike|dislikes|enjoy|enjoys|can't stand"
    "|favorite|favourite|my|have|turned|new job|new position|new role|joined|is now|became",
}
_EN_NEUTRAL = (
    "looks like|look like|seems like|sounds like|feel like|feels like|something like|be like"
    "|is like|was like|are like|were like|what's it like|i'd love|would love|love to|love that"
    "|love it|love you|love this|love hearing|like that|like it|like this|like you|enjoy it"
    "|enjoy that|enjoy your|enjoyed it|i'd like to|would like to|agreed to disagree"
    "|agree to disagree|we agreed to disagree|we agree to disagree"
    "|keep going with|keeps going with|kept going with|go with the flow|going with the flow"
    "|went with the flow|must've|must have been|you must be|that must be|it must be|this must be"
    "|must be nice"
)


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

_CAP_STOP_WORDS = (
    "I OK The This That These Those It We You He She They My Our Your His Her Their A An And But"
    " So Or If When Then Also Yes No Hi Hello Hey Thanks Thank Sure Please Let Can Could Would"
    " Will What Why How Where Who Which Just Okay User Assistant Tool Great Good Nice Maybe"
    " Ok Is Are Do Does Did Not Here There Now Sorry Oh Well"
    # Days and months are times (_WHEN weighs them), not names.
    " Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April"
    " May June July August September October November December"
)
_CAP_STOP = frozenset(_CAP_STOP_WORDS.split())
# A capital at the start of a sentence is a name when a verb of being follows ("Sarah is a
# teacher") and the word is not one of these.
_NAME_VERBS = (" is ", " was ", " has ", " had ", " works ", " worked ", " lives ", " lived ",
               "'s ", " and I ", " became ")
_NOT_NAMES_TEXT = (
    "Everything Everyone Everybody Nothing Nobody Someone Somebody Something Life Today "
    "Tomorrow Yesterday Tonight Mine Yours One Both All Each Every Some Any Most Many Work "
    "School Home Dinner Lunch Breakfast Weather Traffic Money Time Love Family"
)
_NOT_NAMES = frozenset(_NOT_NAMES_TEXT.split())
# Words that make up small talk: a sentence made of nothing else ("ok thanks", "收到，谢谢",
# "I totally agree", "love it!", "glad to hear that") is dropped. Regex atoms go last.
_PLEASANTRY_WORDS = (
    "thankssomuch yourewelcome goodmorning letmethink soundsgood thanksalot thatsgreat understood"
    " goodnight thatsgood allright thankyou alright awesome goodbye perfect welcome gotit great"
    " hello noted right cool fine good isee lmao nice nope okay sure yeah bye hey lol thx wow"
    " yay yep yes yup no np ok ty agree agreed totally absolutely exactly definitely really so"
    " true love it that this i me too same congrats congratulations amazing makessense indeed"
    " ofcourse glad happy hear to for you wonderful fantastic incredible sounds sound lovely"
    " woohoo niceone letmeknowhowitgoes letmeknowhowitwent keepmeposted keepmeupdated"
    " keepyouposted illkeepyouposted"
    " 我明白了 让我想想 非常感谢 麻烦你了 不客气 不用谢 大家好 太好了 太棒了 好的呢 我想想"
    " 早上好 晚上好 没问题 等一下 谢谢您 辛苦了 了解 你好 再见 可以 哈喽 嘻嘻 多谢 好吧 好嘞"
    " 好滴 好的 好耶 对的 您好 感谢 懂了 拜拜 收到 早安 是的 晚安 稍等 谢啦 同意 确实 没错 对啊"
    " 我也是 我也 真棒 厉害 呀 嗨 好 对 早 是 棒 耶 行 也"
)
_PLEASANTRY_ATOMS = (
    r"thanks?|hmm+|明白了?|谢谢你?|ha+|hi+|kk?|uh+|um+|呵+|哇+|哈+|哦+|啊+|嗯+|嘿+|噢+"
)
_PLEASANTRY_SET = frozenset(_PLEASANTRY_WORDS.split())
_PLEASANTRY_BY_FIRST: dict[str, tuple[int, ...]] = {
    ch: tuple(sorted({len(w) for w in _PLEASANTRY_SET if w[0] == ch}))
    for ch in {w[0] for w in _PLEASANTRY_SET}
}
_PLEASANTRY_ATOM = re.compile(_PLEASANTRY_ATOMS)
_PLEASANTRY_CHARS = frozenset("".join(_PLEASANTRY_SET) + "thanksmuiko呵哇哈哦啊嗯嘿噢明白了谢你")


def _is_pleasantry(norm: str) -> bool:
    """True when ``norm`` (normalised: lowercase, no spaces or punctuation) is made only of
    small-talk words ("itotallyagree": i + totally + agree). A word break, linear in the
    text: a backtracking regex would have to try "i" after "it" fails, and its worst cases
    are exponential."""
    if not _PLEASANTRY_CHARS.issuperset(norm):
        return False
    n = len(norm)
    reach = [False] * (n + 1)
    reach[0] = True
    furthest = 0
    for i in range(n):
        if i > furthest:
            return False  # no small-talk word reaches this far: a gap
        if not reach[i]:
            continue
        for size in _PLEASANTRY_BY_FIRST.get(norm[i], ()):
            if i + size > n:
                break
            if norm[i : i + size] in _PLEASANTRY_SET:
                reach[i + size] = True
                furthest = max(furthest, i + size)
        m = _PLEASANTRY_ATOM.match(norm, i)
        if m and m.end() > i:
            reach[m.end()] = True
            furthest = max(furthest, m.end())
    return reach[n]


_PLEASANTRY_MAX_CHARS = 40
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


# Chat shorthand read as the words it stands for, so the cue patterns (written for "please",
# "I'm", "can you", "have to") read "pls", "im", "can u", "gotta" too. Only spellings that are
# no other English word ("its", "ill", "id", "were", "lets", "well" stay as they are).
CASUAL_SPELLINGS = {
    "u": "you", "pls": "please", "plz": "please", "thx": "thanks",
    "thnx": "thanks", "thanx": "thanks", "btw": "by the way", "gotta": "got to",
    "wanna": "want to", "gonna": "going to", "lemme": "let me", "gimme": "give me",
    "dunno": "don't know", "idk": "I don't know", "cuz": "because", "coz": "because",
    "bc": "because", "tmrw": "tomorrow", "tmr": "tomorrow", "tmrrw": "tomorrow",
    "rn": "right now", "ppl": "people", "abt": "about", "nvm": "never mind",
    "tho": "though", "thru": "through", "bday": "birthday", "appt": "appointment",
    "w": "with", "w/": "with", "w/o": "without",
    "i": "I", "im": "I'm", "ive": "I've", "dont": "don't", "cant": "can't", "wont": "won't",
    "didnt": "didn't", "doesnt": "doesn't", "isnt": "isn't", "wasnt": "wasn't",
    "arent": "aren't", "werent": "weren't", "havent": "haven't", "hasnt": "hasn't",
    "hadnt": "hadn't", "couldnt": "couldn't", "shouldnt": "shouldn't",
    "wouldnt": "wouldn't", "thats": "that's", "whats": "what's", "theres": "there's",
    "youre": "you're", "theyre": "they're", "shes": "she's", "hes": "he's",
}


# Putting a thing on the user's list, asked in passing ("can you keep that on my list?") or as
# a heading ("Add it to my list: …", "On my list for Saturday: …", "待办加一条：…"): regex text,
# shared by the scoring of a request and the threads that keep its errand open.
ON_LIST_ASK_EN = r"(?:keep|put|add) (?:it|that|this) (?:on|to) (?:the|my) (?:list|to-?do(?: list)?)"
ON_LIST_HEAD_EN = (r"(?:(?:(?:add|put)(?: (?:it|this|that))? (?:to|on) |on )(?:my|the|our)"
                   r" (?:to-?do )?list|to-?do|note to self)(?: for [\w' ]{1,24}?)?:")
# Asking to be reminded by another verb ("nag me next week"): the words that let those
# patterns run, shared by the scoring of a request and the joining of a bare reminder.
NAG_ME_KEYS = ("nag me", "ping me", "bug me", "nudge me")
ON_LIST_ZH = r"待办(?:加一?条|里加上?|添一?条)?[：:]|(?:加|记)(?:到|进)待办"
# Titles before a name, whose full stop ends no sentence or option ("Dr. Osei on Wednesday").
TITLES = ("Dr", "Mr", "Mrs", "Ms", "St", "Jr")
# What a Chinese name of someone who does a job for the user ends in ("刘老师", "小吴师傅").
ZH_TITLES = "老师|师傅|医生|大夫|教练|经理|主任|律师"
# A child called by a doubled name, as Chinese parents do ("我女儿朵朵").
ZH_CHILD_NAMED = r"(?:女儿|儿子|闺女|宝宝|孩子|老大|老二|小孩)(?P<twice>[\u4e00-\u9fff])(?P=twice)"

# What a request fulfilled is marked with when it is kept.
_DONE_MARK = {"en": " (done)", "zh": "（已完成）"}

# Chinese, Japanese and Korean script, their punctuation and full-width forms.
_CJK = re.compile(r"[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
                  r"\uf900-\ufaff\uff00-\uffef]")


def is_latin(text: str) -> bool:
    """Whether ``text`` is written without Chinese (or other CJK) script: English with "£",
    "—", "Tomás" in it is still English."""
    return text.isascii() or _CJK.search(text) is None  # (most English is ASCII: no search)
