"""Changed values: a newer statement that says something changed replaces the older one it
changes, whatever the attribute is called.

Slots (``slots.py``) know a fixed set of attributes ("I live in", "my X is", "预算"). People
change other things: "The meeting moved to Wednesday at 10am" changes "The meeting is on
Tuesday at 3pm"; "The landlord raised our rent to $1,950" changes "Our rent is $1,800 a
month"; "航班改成CA5678了" changes "我的航班是CA1234". The rule, for statements by the same
speaker about the same person (not "my brother's flight", "我老婆…"):

* the newer one says it changes: a word of change ("moved", "is now", "raised … to", "extended
  to", "改到", "换成", "涨到"; not "actually", which as often tells of something else), or
  only that its value is the current one ("now", "down to", "my new number is", "现在",
  "新号码是", "瘦到78公斤");
* both speak of the same thing: at least half of the newer one's content words (once values,
  words of change and of time are taken out) are the older one's, all of them after a word
  that only says "current" ("Now the meeting is in room 310" does not change "Room 204 is my
  office"); or the numbers measure the same thing ("78 kg" / "82 kg", "4800元" / "4500元")
  and the newer one names nothing the older does not. An email address or a phone number
  counts as a word, and a name as the same word whether it opens a sentence or not;
* the newer one is short (a long statement that mentions a change tells a story);
* the values differ: the older holds one the newer does not, and the newer brings a new one
  (numbers, times, dates, names, codes, addresses).

The older statement loses the clauses that speak of that thing (and value fragments like "at
3pm"); when nothing is left it is dropped.

A Chinese amount raised or cut to a number without its unit ("说续签的话涨到七千三") names no
thing at all: it replaces the latest number the speaker gave without a unit (or in money) when
that is the one number within a factor of two of it ("房租每个月6800"), and nothing otherwise.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache, partial

from .dates import _MONTHS
from .items import _USER_TAGS, _is_tool_line, _Item
from .lexicon import (
    _ASKED,
    _COLON,
    _DECISIONS,
    _DONE_MARK,
    _PREFS,
    _ROLE_TAGS,
    _SURNAMES,
    _TASKS,
    NEW_KEY_WORDS,
    OLD_KEY_WORDS,
    TITLES,
    ZH_NUMERALS,
    ZH_TITLES,
    is_latin,
)
from .scoring import _VALUE_WEIGHT, USER_FACTOR, _is_question, _is_standing_ask
from .slots import _CLAUSE_SPLIT, _without_clauses
from .threads import _stem, content_tokens, user_done

_ZH_CHANGED = (
    "改成|改为|改到|改在|改用|换用|换成|换到|换号|变成|变为|搬到|搬去|跳槽|推迟|提前到|延期|延到|延长|不再"
    "|宽限到|延后到|推到|挪到|砍到|压到|改(?=\\d)|[改换调]回(?:原来的|之前的|到)?|恢复(?:成|到)"
    # "公司改弹性了", "改线上了" (not "改不了")
    "|改(?![不没好完过])[\u4e00-\u9fff]{1,3}?了"
    "|涨薪|加薪|降薪|涨工资|涨房租|转网到|转网了"
    # "能报80% 比之前说的高不少": a value said against what was said before
    "|比(?:之前|原来|上次|以前|刚才)(?:说的|报的|讲的|定的)?(?:高|低|多|少|贵|便宜|快|慢|长|短|早|晚)"
    # "护工费涨了 一天320元" (with a value said after it: "又涨价了好烦" changes nothing)
    "|(?:[涨降](?:价)?了|提价|降价|上涨|下跌)(?=[^。！？]*?[\\d零一二两三四五六七八九十])"
    "|更新|调整为|调到|增加到|减少到|降到|涨到|升到|换了新|换了个|加到|减到|调整到"
    # "周报改发到「运营周报」群", "push-svc先扩到8个副本", "缩容到2台", "下调至3.1%", "延至周五"
    "|改[发寄送交转投挂放存]到|(?:扩|缩)容?(?:到|成)|(?:调|改|增|减|降|涨|升|延|扩|缩|提高|降低|增加|减少|推迟|延长|扩容|缩容)至"
    # "上调至6%", "最后5300成交"
    "|(?<=\\d)成交|提高到|降低到|调高到|调低到|[上下]调[到至]"
    # "车票改签了", "堆直接给到 3584m", "预算现在只剩 19800 了"
    f"|改签|给到(?=\\s*[\\d{ZH_NUMERALS}])|只剩下?(?=\\s*[\\d{ZH_NUMERALS}])"
    # "剂量调成每次6毫升", "月薪谈到了 21K", "最后定的是19桌"
    f"|调成|调为|涨成|降成|转学|谈(?:到|成|下来)了?(?=\\s*[\\d{ZH_NUMERALS}])|最[后终](?:定的是|定了|是)"
    # "谈下来了！续租每月6500": settled, then what it was settled at
    f"|谈(?:下来|妥)了?[！!，,\\s]*(?=[^。？?！!]{{0,8}}?\\d)"
    # "材料涨价了，得三万二", "会费上调了，每月60": a price moved, the new one said after it
    f"|(?:涨价|降价|提价|上调|下调|调价|打了?个?折)了?(?=[^。！？]{{0,12}}?[\\d{ZH_NUMERALS}])"
    # "年会日子改了哈，1月25号": it changed, the value after
    f"|(?<=[\u4e00-\u9fff])改了(?=[哈啊呀啦]?[，,\\s])"
)
# A correction: "更正一下", "我说错了", "打错了", "应该是…".
_ZH_CORRECTED = "更正一下|更正|纠正|说错了|说错|打错了|打错|写错了|写错|记错了|记错|应该是"
_CHANGE = re.compile(
    r"(?i:\b(?:no longer|any ?more|instead|change[ds]?|changing|moved"
    r"|switched|updated|turned|became"
    r"|renamed?|renaming|ported"
    # "I decided to raise it by ten bucks, so $95 an hour"
    r"|(?:raise|raising|increase|increasing|bump|bumping|lower|lowering|cut|cutting|drop"
    r"|dropping) (?:it|them|that|this|(?:the|my|our) [\w' -]{1,20}?) by"
    r"|(?:is|are|was|were|'re|'s|'m) now|now (?:is|are)|from now on|postponed|rescheduled"
    r"|delayed|renewed|re-?book(?:ed)?|put (?:me|him|her|us|them) on|revised|negotiated"
    r"|re-?issued|(?:is|are|was|were|'s|been|now) confirmed (?:for|at|as)(?= [$€£¥]?\d)"
    # "The cleaner raised her rate because of fuel costs, it's $135 a visit"
    r"|(?:raised|lowered|increased|cut|dropped|hiked|upped) (?:her|his|their|its|my|our|the)"
    r"(?: [\w-]+)? (?:rates?|prices?|fees?|rent|dues|pay|salary|quote)"
    r"|upgraded|downgraded|bump(?:ing|s)? (?:[\w']+ ){0,4}?(?:up |down )?to"
    # A correction: "I meant…", "Correction: …", "not Saturday but Sunday", "should be…".
    r"|i meant|correction|corrected|typo|mistyped|misspoke|should have said|my bad|wrong one"
    # Taken back for a new value: "Scratch that, …", "Actually make that 15 people".
    r"|scratch that|never mind"
    # Put right by what it should be: "ugh, mixed up my numbers… it should be 9 cases".
    r"|(?:it|that|this) should (?:be|have been|say|read)(?= [$€£¥]?\d)"
    # "release slips to the 22nd", "timeout → 45s", "pool size -> 16"
    r"|slip(?:s|ped|ping)? to|slid to"
    r"|(?:^|(?<=[,;] ))[a-z][\w .-]{0,30}? (?:→|->|=>) ?(?=[$€£¥]?\d)"
    # Taken back to what it was: "nvm, back to the original 3pm", "we reverted to 2.7"
    r"|(?:(?:go|going|went|switch(?:ed|ing)?|change[ds]?|move[ds]?|it's|its|is) )?back to"
    r"(?= (?:the )?(?:original|old|usual|first|[$€£¥]?\d))|revert(?:ed|ing)? to"
    # "The refund is really $1,067", "the fee is actually €40": the value put right.
    r"|(?:is|are|was|'s) (?:really|actually)(?= [$€£¥]?\d)"
    r"|make (?:it|that|(?:the|my|our) [\w' -]{1,30}?)(?= [$€£¥]?\d| [a-z]+ \d)"
    # A pay change names no attribute: "Got a raise, I'm at $105k now".
    r"|(?:got|getting|had) a (?:raise|pay rise|pay raise|pay cut)"
    r"|not [\w']+(?: [\w']+)? but"
    r"|extended (?:to|until|through)|pushed back"
    # "pushed mom's physio back a week, to May 10", "moved it up two days to the 8th"
    r"|(?:pushed|moved|bumped) (?:[\w']+ ){0,3}?(?:back |out |up |forward )?"
    r"(?:(?:a|an|one|two|three|\d+) (?:day|week|month|hour|minute)s?,? )?to"
    r"|(?:is|are|'s|got|been) (?:moving|moved|being moved) to"
    r"|bumped (?:up |down )?to|(?:is|are|'s|went) up to(?= [$€£¥]?\d)"
    # "the renewal goes to twenty-six hundred", "premium jumped to $212": a value reached
    r"|(?:goes|going|went|jump(?:s|ed|ing)?|climb(?:s|ed|ing)?|r[io]se|rises|rising) to"
    r"(?= [$€£¥]?\d| (?:(?:twen|thir|for|fif|six|seven|eigh|nine)ty|[a-z]+ (?:hundred|thousand)))"
    # "…the monthly payout is €992 because the required amount went up"
    r"|(?:went|gone|goes) (?:up|down)(?! to)"
    # "we got bumped, it's 5:45 now": moved by someone else
    r"|(?:got|were|was|been) bumped"
    r"|(?:raised|lowered|increased|reduced|cut|dropped|went up|went down|grew|update|change|move"
    r"|bumped|upsized|downsized|upgraded|downgraded"
    r"|switch|set|stretch|stretched|boost|boosted|upped|go up|go down|goes up|goes down"
    r"|going up|going down"
    r"|raising|lowering|increasing|reducing|cutting|dropping|extending|upping|boosting"
    r"|changing|switching|upgrading|downgrading|moving|pushing"
    # asked for, as agents are: "bump the pydantic pin to 2.7.4", "raise the limit to 2Gi"
    r"|bump|raise|lower|increase|reduce|decrease|extend|shorten|upgrade|downgrade|resize|push"
    r"|shift|moves|shifts|reschedule|postpone|delay"
    r"|scale)(?: [\w'-]+){0,4}? to"
    r"|since (?:we|i) (?:moved|switched|changed)"
    # What someone who decides it said to do now: "my PI said to spin at 4,200 rpm".
    r"|(?:said|says|told (?:me|us)|advised(?: me| us)?|wants (?:me|us)) to(?: [\w']+){1,3}?"
    r"(?= [$€£¥]?\d)"
    # a value as it turned out, or as agreed: "ended up at 176.8", "turns out I'm on the Flex
    # 40 plan", "we agreed on 150s"
    r"|ended up (?:at|being|with)|came (?:in|out) at|came back (?:with|at)|turns out|turned out"
    r"|agreed on"
    r"|settl(?:ed|ing|e) on"
    # the count as it stands at the end: "final headcount from the park's system is 19 kids"
    r"|final(?: [\w'-]+){1,6}? (?:is|was|came to)(?= [$€£¥]?\d)"
    r"|final(?: (?!(?:is|are|was|were|on|at)\b)[\w'-]+){1,6}?(?=: [$€£¥]?\d)"
    r")\b)"
    # "以后都寄到张江碧波路690号", "公司搬了"
    rf"|{_ZH_CHANGED}|以后(?:请|就|都)?(?:用|联系|找|打|寄|送|发到|去|在)|现在是|搬(?:家|走)?了"
    # "我把定投提到每月2300元" (not "医生提到3个…": 提到 is as often "mentioned").
    rf"|把[^，。！？\d]{{1,8}}?提到(?=每?[天周月年]?\s*[\d{ZH_NUMERALS}])"
    # "搬家以后通勤只要25分钟了": what changed it, then the new value; "升四年级".
    rf"|[\u4e00-\u9fff](?:以后|之后)[，,]?(?=[\u4e00-\u9fff])|升(?=[\d{ZH_NUMERALS}])"
    # From a time on, a value: "王老板说以后最少起订400斤", "房东说下季度起每月九千二"; moved by a
    # span: "下午班提前半小时，两点开始".
    rf"|(?:以后|今后|往后|从此|(?:下|明|今|这|本)个?(?:月|季度|年|周|星期|礼拜|学期)(?:开始|起))"
    rf"[^，。！？,.!?]{{0,8}}?(?=[\d{ZH_NUMERALS}])"
    rf"|(?:提前|推迟|推后|延后|晚|早)了?(?:半|[\d{ZH_NUMERALS}]+个?半?)(?:小时|分钟|天|周|个月)"
    rf"|{_ZH_CORRECTED}|不是[^，。！？,.!?]{{1,8}}[，,]\s*(?:而)?(?:是|改|换)|算了[，,]?\s*(?:还是|改|换)"
)
# Words that say a value is the current one without saying it changed: "I'm 78 kg now", "my new
# number is…", "我现在每天跑10公里", "新号码是…", "瘦到78公斤". As often they tell of something
# else ("Now the meeting is in room 310"), so they replace only a statement of the very same
# thing: one whose topic holds every word of theirs.
_WEAK_CHANGE = re.compile(
    r"(?i:\b(?:now|these days|lately|nowadays|currently|down to(?= [$€£¥]?\d)"
    # A value reached ("Crossed $6,020 today"), a new one set ("set a new password, cedar-…").
    r"|(?:crossed|hit|reached|passed|topped)(?= [$€£¥]?\d)"
    # Where a count stands: "did a couple of splits this week so I'm at 8 hives".
    r"|(?:i'm|i am|we're|we are) (?:now )?(?:up |down )?at(?= [$€£¥]?\d)"
    # Today's reading: "scale said 180.1 today", "今天69.8", "今天称出来67.5", "今天测了7.2".
    r"|(?<=\d) today\b|\btoday(?:'s)? (?:reading|weigh-in|weight|temp(?:erature)?)\b"
    r"|new [\w' -]{1,25}?[,:]? (?=[$€£¥]?[\w-]*\d)"
    r"|new(?: [\w']+){1,2}? (?:is|are)|(?:just )?started)\b|\bnew(?: [\w']+){1,2}?:)"
    # (not what was done today: "今天跑了8公里", "今天卖了45单")
    r"|现在|最近|如今|目前|这阵子|新[\u4e00-\u9fff]{1,4}?[是为]"
    r"|今天(?:[^，。！？\d了]{0,4}?|[^，。！？\d]{0,3}?[称测量]了?(?:一下)?)(?=\d)"
    # A count settled: "定下来是22桌", "最终确定为30人", "敲定了".
    rf"|定下来(?:是|了)|定下来(?=\s*[\d{ZH_NUMERALS}])|(?:最终|最后)?确定(?:是|为|了)|敲定"
)
# "现在有三只猫了", "最近能睡8个小时了": a count followed by 了 is a new state, and with a word of
# "current" it says the value changed.
_ZH_NEW_STATE = re.compile(rf"[\d{ZH_NUMERALS}]+[个]?[\u4e00-\u9fff]{{0,3}}了")
# "瘦到78公斤", "跑到10公里": a verb reaching a new value; not a range's end ("从5点到7点").
_ZH_TO_VALUE = re.compile(rf"[\u4e00-\u9fff]到了?(?=\d|[{ZH_NUMERALS}])")
# Verbs that reach a value with 到: "瘦到", "涨到", "攒到", "跑到".
_REACHING_ZH = ("瘦胖涨升降减加跌掉增长提调推挪延改换砍压抬攒存省赚挣筹凑借还交付充"
                "花跑走骑游爬睡练读学等排拖谈卖买订约定拿收送放开用做")
# The Chinese words of change, cut before a topic is taken: no character pair should span them
# ("航班改成" is "航班"). English ones leave as tokens (_CUE_TOKENS), never with the words they
# frame: "raised our rent to" still speaks of the rent, "new manager is" of the manager.
_ZH_CUE = re.compile(
    rf"{_ZH_CHANGED}|只剩下?|给到|以后(?:请|就|都)?|今后|往后|从此"
    r"|从?(?:下|明|今|这|本)个?(?:月|季度|年|周|星期|礼拜|学期)(?:开始|起)"
    rf"|现在|新(?=[\u4e00-\u9fff])|{_ZH_CORRECTED}"
    r"|不是|而是|(?:最后|最终)?定下来(?:是|了)?|最后|最终"
    r"|算了|(?:今天|昨天|今早|今晚)?(?:早上|上午|中午|下午|晚上)|今天|昨天|今早|今晚"
    # _ZH_TO_VALUE, once values are blanked: the verb goes with it ("瘦到"), a noun stays
    # ("存款到3.6万了" still speaks of 存款).
    rf"|[{_REACHING_ZH}]?到了?(?=[\s\d{ZH_NUMERALS}])"
)
# When something happened: what is told with it is an event ("I ran 5 miles today"), not a
# value that holds now.
_WHEN_IT_HAPPENED = re.compile(
    r"(?i)\b(?:today|yesterday|tonight|this (?:morning|afternoon|evening)|last (?:night|week"
    r"|month|year|time)|ago|just now)\b")
_WHEN_IT_HAPPENED_ZH = re.compile(
    r"今天|昨天|前天|今早|今晚|昨晚|刚才|刚刚|上周|上礼拜|上星期|上个?月|去年|前几天|那天|这次|上次"
    r"|[了过](?=[\d一二两三四五六七八九十几半])")
_RESTATED_CHARS = 90
"""A number said anew with no word of change is a short statement ("rehearsal dinner is 6:30 bc
the restaurant needs the room"); a longer one tells more than what holds now."""
_RESTATED_ZH_CHARS = 40  # (the same in Chinese, which says as much in fewer characters)
# (not the comma of a number: "¥3,500，九月一号开始" gives 3,500, not 3)
_ZH_CLAUSE_BREAK = re.compile(r"(?:[，。；;！!～~\s]|,(?!\d{3}))+")
_MAX_TOPIC = 8
"""A statement of change names the thing it changes; one with more content words than this
tells a story ("the room was 902, dirty, noisy…") and changes nothing."""
_ZH_MEASURES = "只条张本辆套件盆台部双杯次斤片粒颗勺袋瓶盒节"  # a Chinese count ("两只", "一片")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PHONE = re.compile(r"(?<![A-Za-z0-9])\+?\d[\d\s()-]{6,}\d")
# A Chinese street address, the thing it is like an email: "朝阳区建国路88号", "中关村大街1号3号楼".
_ZH_ADDRESS = re.compile(
    r"(?:[\u4e00-\u9fff]{2,4}?[省市区县])*[\u4e00-\u9fff]{1,6}?(?:大街|大道|路|街|巷|弄|胡同)"
    rf"[\d{ZH_NUMERALS}]+号(?:[\d{ZH_NUMERALS}]+号?[楼栋室]|[\d{ZH_NUMERALS}]+单元)*"
)
# "77 Tessaly Road Apt 2", "1180 Birchwood Ave, Unit 5": a street address, one value.
_EN_ADDRESS = re.compile(
    r"\b\d{1,6}[A-Za-z]? (?:[A-Z][a-z]+ ){1,3}(?:Road|Rd|Street|St|Avenue|Ave|Boulevard|Blvd|Lane"
    r"|Ln|Drive|Dr|Way|Court|Ct|Place|Pl|Terrace|Close|Crescent|Parkway|Pkwy|Highway|Hwy)\b\.?"
    r"(?:,? (?:Apt|Apartment|Unit|Suite|Ste|Flat|#) ?[\w-]+)?")
# An English date is one value: "March 18" → "March 21", "the 21st", "May 12th".
_EN_DATE = re.compile(
    # ("May" only with its capital: "I may 3 times" is no date.)
    r"\b(?:[Jj]an|[Ff]eb|[Mm]ar|[Aa]pr|May|[Jj]un|[Jj]ul|[Aa]ug|[Ss]ep|[Oo]ct|[Nn]ov|[Dd]ec)"
    r"[a-z]*\.?"
    r" \d{1,2}(?:st|nd|rd|th)?\b(?![:\d])|\b\d{1,2}(?:st|nd|rd|th)\b")
# Where a service lives: "db-prod-07.internal", "stg.bluefin.io", "10.0.3.17:5432".
_HOST = re.compile(
    r"\b[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:internal|local|lan|corp|svc|io|dev|net|com|org"
    r"|cloud|app|sh|cn|co|ai|me)(?::\d{2,5})?\b(?![.-]\w)|\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{2,5})?\b")
_KINDS = ("<email>", "<phone>", "<address>", "<host>")
_KINDS_SET = frozenset((*_KINDS, "<pay>"))
# What one earns, however it is called: "Got a raise, I'm at $105k now" changes "My salary is
# $95k", not the latest amount said of anything ("The hotel is $180 a night").
_PAY = re.compile(
    r"(?i:\b(?:salary|salaries|paycheck|income|wages?|(?:a |pay )?raise|pay rise|pay cut"
    r"|(?:my|our) pay)\b)|工资|月薪|年薪|薪水|薪资|收入|涨薪|加薪|降薪"
)
_MONEY_UNITS = frozenset(("$", "€", "£", "¥", "元", "块", "k"))
_NUMBERED = "楼线床房门口位车厅院栋场馆桌台柜窗座机站室间箱仓包厢道球"
# Parts of the day a Chinese day or hour is said with ("周二下午", "上午十点").
_PARTS_OF_DAY = "上午|下午|晚上|早上|中午|傍晚"
# A day of the week, or a run of them ("每周一三五", "周二、四"), with its part of the day.
_ZH_WEEKDAYS = (r"(?:周|星期|礼拜)[一二三四五六日天]"
                r"(?:[、和,，]?[一二三四五六日](?![十点号个岁百千万]))*"
                rf"(?:{_PARTS_OF_DAY})?")
_VALUE = re.compile(
    # A Chinese date is one value: "3月3号" → "3月10号" replaces the date, not the month's "3".
    # ("4月24" without its 号 too, unless a unit follows: "3月12个", "4月25岁".)
    r"(?:\d{1,4}年)?\d{1,2}月\d{1,2}(?:[日号]|(?![\d.万千百元块个份人件张岁天次号日]))"
    r"|\d{1,4}年\d{1,2}月"
    # a Chinese time, with its part of the day: "下午 3 点半" ("上午10点" is no "下午10点")
    rf"|(?:(?:{_PARTS_OF_DAY}|凌晨)\s?)?\d{{1,2}}\s?点(?:半|钟|\d{{1,2}}分?)?"
    # A day of the month: "改25号了" (not a numbered thing: "12号场", "3号楼", "5号线").
    rf"|\d{{1,2}}[号日](?![{_NUMBERED}])"
    r"|(?<![A-Za-z\d])\d+[A-Za-z]+\d[A-Za-z\d-]*"  # codes opening with a digit: 1Z999AA1012
    r"|(?<![A-Za-z\d.,])\d{1,3}[A-HJ-Z](?![A-Za-z\d])"  # a seat, a unit, a gate: 31C, 7B, 12F
    r"|(?<![\w-])[a-z]+(?:-[a-z]+)+-\d+(?![\w-])"  # a passphrase, a handle: maple-otter-42
    r"|\d(?:[\d,.:/-]*\d)?(?:\s?(?:am|pm))?"  # numbers, times, dates (not the "." after)
    r"|(?<![A-Za-z])[A-Z][A-Za-z]*\d[A-Za-z\d-]*"  # codes: BA117, CA1234
    r"|(?<![A-Za-z])[A-Z]{2}\s\d{2,4}(?!\d|[,.:]\d)"  # a flight written apart: UA 1187, DL 2046
    # a capitalised word inside a sentence, a name after a title too ("Dr. Abernathy")
    r"|(?:(?<=[^\s.!?。！？])|" + "|".join(rf"(?<=\b{t}\.)" for t in TITLES) + ")"
    r"\s+(?P<cap>[A-Z][a-z]+[A-Za-z]*)"
    r"|(?<![A-Za-z])[A-Z][a-z]+(?= & [A-Z])"  # a firm's name, first word too: "Okafor & Sons"
    # A Latin name inside Chinese text: "数据库换成MySQL", "改用Vue吧".
    r"|(?<=[\u4e00-\u9fff])(?P<latin>[A-Za-z][A-Za-z+#]*[A-Za-z+#])(?![A-Za-z0-9])"
    rf"|[{_SURNAMES}](?:先生|女士|小姐|老师|经理|总监|主管|主任|老板|医生|教授|律师|总|工|姐|哥)"
    rf"|{_ZH_WEEKDAYS}"
    rf"|[{ZH_NUMERALS}]+(?=[点号日月年岁个位人份天{_ZH_MEASURES}]|$)",
)
_CAP_NOT_VALUE = frozenset({"I", "I'm", "I'll", "I've", "I'd"})
_HANDLE = re.compile(
    r"(?<![\w@.])@(?P<at>[A-Za-z0-9_][\w.-]*[A-Za-z0-9_])"
    r"|\b[Rr]enamed\b(?: [\w-]+){0,4}? to @?(?P<to>[A-Za-z0-9_][\w.-]*[A-Za-z0-9_])")
_CUE_TOKENS = content_tokens(
    "no longer anymore instead change changed changes moved switched updated turned became now "
    "postponed rescheduled delayed pushed bumped raised lowered increased reduced dropped grew "
    "stretch stretched boost boosted upped pushing back forward safe were want wants wanted "
    "settled settle "
    "extended extend renewed down just yesterday today tonight recently last week good news "
    "these days lately nowadays currently started start since "
    "morning afternoon evening night week month year scratch never mind make raise rise got "
    "guess longer anymore went actually meant mean correction corrected typo mistyped misspoke "
    "oops sorry should 抱歉 不好意思 对不起 "
    # who said it is told apart (reporters); that it was said names nothing ("now he says
    # fifteen hundred" is no rent "Mr. Okafor says" goes to $3,400)
    "says said saying "
    # a number spelled out is a value, not what it is of ("eighteen thousand nine hundred")
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety "
    "hundred thousand million half dozen "
    # what names any value names no thing ("the higher number is too ambitious" is no refund
    # "ran my numbers" gave)
    "number numbers figure figures amount "
    "改成 改为 改到 改在 换成 换到 换了 换号 变成 变为 搬到 搬去 跳槽 推迟 提前 延期 延到 延长 "
    "以后 之后 不再 更新 调整 调到 增加 减少 降到 涨到 升到 现在 已经 昨天 今天 上周 最近 刚刚 "
    "原来 如今 目前 今年 最后 最终 后来 结果 goes going ended final crossed reached topped"
    " upgraded upgrade downgraded weekend bumping revised negotiated original originally"
    " reverted revert"
)


_ZH_DIGIT = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
             "八": 8, "九": 9}
_ZH_SCALE = {"十": 10, "百": 100, "千": 1000}
# A Chinese number with a place ("九万", "七千三", "两百二十", "十二"), from a digit or 十 ("千万
# 别", "万一", "百分之" are words, "十分" one character).
_ZH_AMOUNT = re.compile("(?:[一二两三四五六七八九十])[零一二两三四五六七八九十百千万]+")


def _below_wan(run: str) -> int | None:
    """"七千三" → 7300, "两百二" → 220, "十二" → 12, "一千零五" → 1005; None when it is no
    number (or a guess between two: "七八百")."""
    total, digit, last, zero = 0, None, 10000, False
    for ch in run:
        if ch in _ZH_DIGIT:
            if digit:
                return None  # two digits in a row guess a range: "七八百", "三四十"
            digit = _ZH_DIGIT[ch]
            zero = zero or digit == 0
        elif ch in _ZH_SCALE:
            scale = _ZH_SCALE[ch]
            if scale >= last:
                return None
            total += (1 if digit is None else digit) * scale
            digit, last = None, scale
        else:
            return None
    if digit is not None:
        # "七千三": the next place down; after a 零, the ones ("一千零五")
        total += digit * (last // 10 if last <= 1000 and not zero else 1)
    return total


# An hour on the clock: "下午两点半", "提前到上午十点", "两点四十", "十二点" (not "晚一点的", "有两
# 点要注意": a time of day before it, or what follows an hour after it).
_ZH_CLOCK = (
    rf"(?:(?<={_PARTS_OF_DAY}|凌晨)|(?<=号))(?:十[一二]?|[一二两三四五六七八九十])(?=点)"
    r"|(?:十[一二]?|[一二两三四五六七八九十])(?=点(?:半|钟|一刻|三刻|[\d零一二三四五六七八九十]|前|后"
    r"|左右|开始|出发|见|集合|到))")
# (and "9万5", "7千3" typed in digits: 95,000 and 7,300, one number, not 9 and 5)
_ZH_RUN = re.compile(rf"(?P<clock>{_ZH_CLOCK})|{_ZH_AMOUNT.pattern}"
                     r"|(?<![\d.])(?P<mixed>\d{1,4}[万千]\d)(?![\d.万千百])")


def _run_digits(m: re.Match[str]) -> str:
    """A Chinese number or hour ``m`` of :data:`_ZH_RUN` in digits, as it was when none."""
    run = m.group()
    if m.group("clock"):
        return str(_below_wan(run))
    if m.group("mixed"):
        head, tail = run[:-2], run[-1]
        return f"{head}.{tail}万" if run[-2] == "万" else str(int(head) * 1000 + int(tail) * 100)
    if not any(ch in run for ch in "十百千万"):
        return run
    head, wan, tail = run.partition("万")
    high = _below_wan(head)
    if high is None:
        return run
    if not wan:
        return str(high)
    if not tail:
        return f"{high}万"
    if len(tail) == 1 and tail in _ZH_DIGIT:
        return f"{high}.{_ZH_DIGIT[tail]}万"
    low = _below_wan(tail)
    return run if low is None else str(high * 10000 + low)


def _arabic(text: str) -> str:
    """``text`` with its Chinese numbers in digits, 万 kept as the unit it is: "砍到九万" →
    "砍到9万", "九万五" → "9.5万", "涨到七千三" → "涨到7300", "两百二十套" → "220套",
    "下午两点半" → "下午2点半"."""
    text = _ZH_RUN.sub(_run_digits, text)
    # "1片半", "两个半小时" are one and a half: one value ("1.5片"), not 1 and a half said after.
    return _AND_A_HALF.sub(r"\1.5\2", text) if "半" in text else text


_AND_A_HALF = re.compile(r"(\d+)(个?[片粒颗袋支瓶盒杯勺次])半")
_THOUSANDS_K = re.compile(r"(?<![\w.,])(\d{1,3}(?:\.\d{1,2})?)(?:[kK]|\s?grand)\b")


_EN_UNITS_TEXT = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
                  "fourteen fifteen sixteen seventeen eighteen nineteen")
_EN_UNITS = {w: i for i, w in enumerate(_EN_UNITS_TEXT.split())}
_EN_TENS_TEXT = "twenty thirty forty fifty sixty seventy eighty ninety"
_EN_TENS = {w: 10 * i for i, w in enumerate(_EN_TENS_TEXT.split(), start=2)}
_EN_N = (r"(?:(?:" + "|".join(_EN_TENS) + r")(?:[- ](?:one|two|three|four|five|six|seven|eight"
         r"|nine))?|" + "|".join(sorted(_EN_UNITS, key=len, reverse=True)) + ")")
_EN_G = rf"{_EN_N}(?: hundred(?:(?: and)? {_EN_N})?)?"  # "two hundred and fifty"
_EN_SPELLED = re.compile(rf"(?i)\b{_EN_G}(?: thousand(?:(?: and)? {_EN_G})?)?\b")


def _spelled(m: re.Match[str]) -> str:
    """"seventy-five" → "75", "eighteen thousand nine hundred" → "18,900"; a lone small word
    ("one of them", "five") or what is no number ("hundred") stays as written."""
    words = re.findall(r"[a-z]+", m.group().lower())
    if not any(w in _EN_TENS or w in ("hundred", "thousand") or _EN_UNITS.get(w, 0) > 10
               for w in words) or words[0] in ("hundred", "thousand", "and"):
        return m.group()
    total = part = 0
    for w in words:
        if w in _EN_UNITS:
            part += _EN_UNITS[w]
        elif w in _EN_TENS:
            part += _EN_TENS[w]
        elif w == "hundred":
            part = max(part, 1) * 100
        elif w == "thousand":
            total, part = total + max(part, 1) * 1000, 0
    return f"{total + part:,}"


def _in_digits(text: str) -> str:
    """An English ``text`` with its numbers spelled out in words written in digits."""
    return _EN_SPELLED.sub(_spelled, text) if _EN_WORDISH.search(text) else text


# (a word only a number spelled out has: most texts have none, and are left as they are)
_EN_WORDISH = re.compile(r"(?i)(?:eleven|twelve|(?:thir|four|fif|six|seven|eigh|nine)teen"
                         r"|(?:twen|thir|for|fif|six|seven|eigh|nine)ty|hundred|thousand)\b")


_ZH_QUOTED = re.compile(r"[「“《]([^」”》\n]{1,20})[」”》]")


def _values(text: str) -> tuple[frozenset[str], str]:
    """The values a statement gives (normalised), and its text with them blanked out."""
    text = _arabic(text) if not is_latin(text) else _in_digits(text)
    found: set[str] = set()
    for m in _EMAIL.finditer(text):
        found.add(m.group().lower())
    text = _EMAIL.sub(" <email> ", text)
    if "." in text:
        for m in _HOST.finditer(text):
            found.add(m.group().lower())
        text = _HOST.sub(" <host> ", text)
    if any(ch.isdigit() for ch in text):
        for m in _EN_DATE.finditer(text):
            found.add(" ".join(m.group().lower().replace(".", "").split()))
        text = _EN_DATE.sub(" ", text)
    for m in _PHONE.finditer(text):
        found.add(re.sub(r"\D", "", m.group()))
    text = _PHONE.sub(" <phone> ", text)
    if not is_latin(text):
        for m in _ZH_ADDRESS.finditer(text):
            found.add(m.group())
        text = _ZH_ADDRESS.sub(" <address> ", text)
        if "「" in text or "“" in text or "《" in text:
            # A name given in quotes is a value: "webhook改推到新建的「P0告警群」".
            for m in _ZH_QUOTED.finditer(text):
                found.add(m.group(1).lower())
            text = _ZH_QUOTED.sub(" ", text)
    elif any(ch.isdigit() for ch in text):
        for m in _EN_ADDRESS.finditer(text):
            found.add(m.group().lower())
        text = _EN_ADDRESS.sub(" <address> ", text)
    if "@" in text or "enamed" in text:
        # An account's name, in whatever case: "My GitHub handle is @quietfern", "Renamed my
        # account to fernwright".
        for m in _HANDLE.finditer(text):
            found.add((m.group("at") or m.group("to")).lower())
        text = _HANDLE.sub(lambda m: m.group()[: m.start("to") - m.start()] + " "
                           if m.group("to") else " ", text)
    if ("k" in text or "K" in text or "grand" in text) and _DIGITS.search(text):
        # "104k" and "104 grand" are 104,000, as "$96,000" said in full.
        for m in _THOUSANDS_K.finditer(text):
            found.add(f"{round(float(m.group(1)) * 1000):,}")
        text = _THOUSANDS_K.sub(" ", text)
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
    """What a text speaks of, its values and words of change left out; an email address, a
    phone number or a street address counts as the thing it is."""
    kinds = {kind for kind in _KINDS if kind in text}
    if _PAY.search(text):
        kinds.add("<pay>")
        text = _PAY.sub(" ", text)
    text = _ZH_CUE.sub(" ", text) if not is_latin(text) else _aliased(text)
    return (content_tokens(text) - _CUE_TOKENS) | kinds


# One thing by its other everyday names: "raising the cap to $22,500" is the budget; "final
# headcount is 134", the guests; "I now report to Tomasz", the manager; "my primary care doc",
# the doctor.
def _aliased(text: str) -> str:
    return _ALIASES.sub(lambda m: m.lastgroup or "", text)


# (One scan for all of them: every statement compared is read through it.)
_ALIASES = re.compile(r"(?i)\b(?:" + "|".join(f"(?P<{word}>{said})" for word, said in (
    ("budget", r"budget|(?:the|our|my|spending|price) cap|spending limit"),
    ("guest", r"guests?|head ?count|attendees?|guest count|guest list"),
    ("manager", r"manager|boss|supervisor|report(?:s|ing)? (?:directly )?to"),
    ("doctor", r"doctor|doc|gp|physician|primary care|pcp"),
    ("depart", r"depart(?:s|ing|ure)?|leav(?:e|es|ing)|takes? off|taking off"),
    # what an account goes by: "My GitHub handle is @quietfern" / "Renamed my account to …"
    ("handle", r"handle|username|user ?name|screen ?name|renamed (?:my|our) account"),
)) + r")\b")


# Literal pieces every match of _CHANGE or _ENDED holds: a substring test in C rules most
# statements out before the regex engine tries them at every position.
_CHANGE_KEYS = (
    "meant", "correct", "typo", "mistyped", "misspoke", "said", " but", "更正", "纠正", "说错",
    "my bad", "wrong one", "really", "actually",
    "打错", "写错", "记错", "应该", "不是", "scratch", "never mind", "make", "算了", "raise",
    "rise", "薪", "工资", "房租",
    "longer", "more", "instead", "chang", "mov", "switch", "updat", "turn", "becam", "now",
    "renam", "ported",
    "postpon", "reschedul", "delay", "push", "bump", "rais", "lower", "increas", "reduc",
    "drop", "went", "grew", "renew", "extend", "down", "cut", "new", "set", "days", "lately",
    "stretch", "boost", "upped", "go up", "goes", "going", "jump", "climb", "rose", "ended up",
    "came", "agreed", "back to", "revert", "slip", "slid", "→", "->", "=>",
    "settled", "settling", "final", "reissu", "re-issu", "hike", "confirmed", "谈", "最后", "最终",
    "nowadays", "currently", "start", "since", " up to", "book", "put ", "scale", "resize",
    "cross", "hit ", "reach", "passed", "topped", "revis", "negotiat", "upgrad", "downgrad",
    "比之前", "比原来", "比上次", "比以前", "比刚才",
    "给到", "只剩", "should", "m at ", "re at ", "gone up", "gone down",
    "改", "换", "变", "搬", "跳槽", "推迟", "提前", "延", "不再", "以后", "之后", "升",
    "更新", "调", "增加", "减少", "现在", "新", "到", "开始", "起", "晚", "早", "最近", "如今",
    "目前", "这阵子", "了",
)
_ENDED_KEYS = (
    "sold", "quit", "resign", "longer", "gave up", "broke up", "divorc", "moved out", "more",
    "cancel",
    "turns out", "turned out", "after all",
    "不再", "卖了", "辞职", "离职", "戒了", "分手", "了", "退休", "毕业", "搬",
)


def _has(text: str, keys: tuple[str, ...]) -> bool:
    low = text.lower()
    return any(k in low for k in keys)


_UNIT = re.compile(
    r"(?P<cur>[$€£¥])\s?\d"
    r"|\d(?:[\d,.]*\d)?\s?(?:(?P<en>[A-Za-z]{1,8})(?![A-Za-z])|个?(?P<zh>[公千毫厘]?[\u4e00-\u9fff])"
    r"|(?P<deg>℃|°C|°F|℉|%))"
    rf"|[{ZH_NUMERALS}]+(?P<zhm>[{_ZH_MEASURES}])"  # "三只猫": a count in Chinese numerals
)


def _units(text: str) -> frozenset[str]:
    """What a statement's numbers measure: a currency sign, or the word or character after the
    number ("$", "kg", "mile", "元", "公斤", "岁")."""
    out = set()
    if not is_latin(text):
        text = _arabic(text)
    for m in _UNIT.finditer(text):
        unit = m.group("cur") or m.group("zh") or m.group("zhm") or m.group("deg") \
            or _stem((m.group("en") or "").lower())
        if unit and unit not in _NOT_UNIT:
            out.add(_SAME_UNIT.get(unit, unit))
    return frozenset(out)


# Units written several ways: "38k" and "31 grand" count the same thing.
_SAME_UNIT = {"grand": "k", "thousand": "k", "buck": "$", "dollar": "$", "usd": "$",
              "hrs": "hour", "hr": "hour", "mo": "month", "mins": "minut", "min": "minut"}


_NOT_UNIT_TEXT = (
    "a an and or of the to in at on for per more other last next this is are was were now then "
    "instead total today tonight tomorrow yesterday so but with by from all as"
    # (a Chinese particle or adverb after a number measures nothing: "现在1893了", "快四千了")
    " 了 的 吧 啊 呢 啦 呀 哦 多 左 就 才 都 也 还 又 和 或 到"
    # (nor the start of a span it is per: "1450一个月", "660一天")
    " 一 每 半"
)
_NOT_UNIT = frozenset(_NOT_UNIT_TEXT.split())


def _says_change(text: str) -> int:
    """2 when ``text`` says something changed, 1 when it only says what is current, else 0."""
    if _CHANGE.search(text):
        return 2
    if _WEAK_CHANGE.search(text):
        return 2 if not is_latin(text) and _ZH_NEW_STATE.search(text) else 1
    if not is_latin(text) and (m := _ZH_NEW_STATE.search(text)) is not None \
            and not _units(m.group()) & _NOT_THING:
        return 1  # "今天早上称了一下，78公斤了！": a count of a thing reached is what holds now
    m = _ZH_TO_VALUE.search(text)
    return 1 if m is not None and "从" not in text[: m.start()] else 0


# Whose fact it is: "My brother's flight now lands at 9pm" does not change "My flight lands at
# 6pm", nor "我老婆现在每天跑3公里" "我每天跑5公里". Found by word, not by a regex run at every
# character: this is computed for every statement a change is compared with.
_PERSON_TEXT = (
    "mother father mom mum dad son daughter kid child parent grandmother grandfather grandma "
    "grandpa sister brother sibling wife husband partner boyfriend girlfriend fiance fiancee "
    "friend boss manager colleague coworker roommate neighbor neighbour teacher doctor aunt "
    "uncle cousin nephew niece"
)
_PERSON_WORDS = frozenset(_PERSON_TEXT.split())
_PERSON_ZH = re.compile(
    r"老婆|老公|妻子|丈夫|太太|先生|爸爸|妈妈|父亲|母亲|爸|妈|哥哥|姐姐|弟弟|妹妹|儿子|女儿"
    r"|孩子|同事|老板|领导|经理|朋友|室友|邻居|男朋友|女朋友|爷爷|奶奶|外公|外婆|老师|医生"
)
_POSSESSIVE_NAME = re.compile(r"\b([A-Z][a-z]+)'s\b")
_NOT_POSSESSIVE_TEXT = "let that it he she what there here who where how"
_NOT_POSSESSIVE = frozenset(_NOT_POSSESSIVE_TEXT.split())


def _persons(body: str, words: frozenset[str]) -> frozenset[str]:
    """The people a statement is about besides the speaker: kin and roles ("my brother's",
    "我老婆"), and names with a possessive ("Tom's phone")."""
    found = {w if w in _PERSON_WORDS else w[:-1] for w in words
             if w in _PERSON_WORDS or (w[-1:] == "s" and w[:-1] in _PERSON_WORDS)}
    if "children" in words:
        found.add("child")
    if found and ("&" in body or "Brothers" in body or "Partners" in body):
        # A firm's name is no one's kin: "Okafor & Sons", "Kessler Brothers Moving".
        found -= {m.group(1).lower() for m in _FIRM.finditer(body)}
    if found & _DECIDERS and is_latin(body):
        # Who decides it for the speaker is not whose it is: "Saw my doctor today, she wants to
        # go up to 100 mg" changes the speaker's dose ("my doctor's office" is the doctor's).
        found -= {w for w in found & _DECIDERS
                  if re.search(rf"\b{w}s?['’]s?\b", body, re.I) is None}
    if found and is_latin(body):
        # People counted or pointed at ("three more kids joined", "ask the other parents for
        # sizes") are whom it is done with, not whose it is: "my son's", "Kim's kids", a bare
        # "mom" are.
        low = body.lower()
        found = {w for w in found if not all(
            _counted(m) and low[m.end():m.end() + 1] not in ("'", "’")
            for m in _person_at(w).finditer(low))}
    if "'s" in body:
        found.update(n.lower() for n in _POSSESSIVE_NAME.findall(body)
                     if n.lower() not in _NOT_POSSESSIVE)
    if not is_latin(body):
        found.update(_PERSON_ZH.findall(body))
    return frozenset(found)


_DECIDERS = frozenset(("doctor", "boss", "manager", "teacher", "coach"))
_FIRM = re.compile(r"[A-Z][\w'.-]* (?:& |and )?(Son|Daughter|Brother|Partner)s?\b")
_COUNTED_PERSON_TEXT = (
    "the a an other more some any all few many several both two three four five six seven eight"
    " nine ten"
)
_COUNTED_PERSON = frozenset(_COUNTED_PERSON_TEXT.split())
_HOLDER_TEXT = "my our your his her their"
_HOLDER = frozenset(_HOLDER_TEXT.split())


@lru_cache(maxsize=64)
def _person_at(word: str) -> re.Pattern[str]:
    """Each place ``word`` (or its plural) is said, with the two words before it."""
    return re.compile(rf"(?:\b([\w']+)\s+)?(?:\b([\w']+)\s+)?\b{word}(?:s|ren)?\b")


def _counted(m: re.Match[str]) -> bool:
    """Whether the person word ``m`` ends on is counted or pointed at ("the other parents"),
    not held ("my two kids", "Kim's kids")."""
    before = [w for w in m.groups() if w]
    if any(w in _HOLDER or w.endswith(("'s", "’s")) for w in before):
        return False
    return any(w in _COUNTED_PERSON or w.isdigit() for w in before)


def _whose(body: str) -> frozenset[str]:
    """Whom a statement speaks of (the speaker when empty): :class:`_Shape`'s ``persons``."""
    return _persons(body, frozenset(_WORD.findall(body.lower())))


_REPORTERS_EN = (
    _PERSON_TEXT + " landlord landlady owner agent realtor dentist vet clinic hospital office"
    " school airline bank company hr team insurer insurance pharmacy pharmacist nurse coach"
    " contractor plumber mechanic dealer dealership recruiter"
)
_REPORTED_KEYS = re.compile(r"(?i)\b(?:says|said|told|emailed|texted|called|mentioned|confirmed"
                            r"|informed|let (?:me|us) know)\b|'s [a-z]+ing\b")
_REPORTED = re.compile(
    r"(?i:\b(?:(?:my|the|our|his|her|their)\s+)?(?:" + "|".join(sorted(
        set(_REPORTERS_EN.split()), key=len, reverse=True)) + r")(?:s?\s+(?:just\s+)?"
    r"(?:says|said|told (?:me|us)|emailed|texted|called|mentioned|confirmed|informed (?:me|us)"
    r"|let (?:me|us) know)\b(?:\s+that)?"
    # what they are doing to it: "Landlord's bumping it to $1,975"
    r"|'s(?= (?:raising|bumping|moving|changing|pushing|cutting|lowering|dropping)\b)))"
    r"|(?:我(?:家)?)?(?:" + _PERSON_ZH.pattern + r"|房东|物业|中介|公司|学校|医院|客服|HR|人事"
    r"|单位|银行|航空公司|4S店|诊所|门诊|前台|驾校|快递|物流|产品|运维|测试|甲方|客户|供应商|厂家"
    r"|班主任|教练|群里)(?:那边)?(?:刚)?(?:在(?:群|微信|钉钉|飞书)(?:里|上)?)?"
    # (or says what to do: "医生让我爸降压药改成每天两片了", "HR要求…")
    # ("老板拍板了 Q3 目标改成 1.45亿": who decides it says it)
    r"(?:打电话(?:来)?说|发(?:消息|短信|邮件)说|说|通知(?:我|说)?|告诉我|让|叫|建议|要求"
    r"|拍板(?:了)?|决定(?:了)?)"
    r"(?!明(?![年天早晚])|服|法)"
)


_REPORTED_ZH_KEYS = ("说", "通知", "告诉", "让", "叫", "建议", "要求", "拍板", "决定")
_AT_PLACE = re.compile(r"\b(?:at|in) (?:the )?((?:[A-Z][\w'&.-]*)(?: [A-Z][\w'&.-]*)*)")


class _Shape:
    """What supersession compares of a statement: its values, the names among them, its topic
    and the units of its numbers."""

    __slots__ = ("names", "of", "own", "persons", "places", "pronoun", "reporters", "told_by",
                 "topic", "units", "values", "words")

    def __init__(self, body: str) -> None:
        # Who reports a change is not whose it is: "Landlord says starting March it goes up to
        # $1,975", "老板说提前到5月15日" change the user's rent and deadline.
        self.reporters: frozenset[str] = frozenset()
        self.told_by: frozenset[str] = frozenset()  # the words of who reported it
        if any(k in body for k in _REPORTED_ZH_KEYS) if not is_latin(body) \
                else _REPORTED_KEYS.search(body) is not None:
            said_by = " ".join(m.group() for m in _REPORTED.finditer(body))
            if said_by:
                self.reporters = _whose(said_by)
                self.told_by = _topic(said_by)
                body = _REPORTED.sub(" ", body)
        self.values, rest = _values(body)
        self.names = frozenset(v for v in self.values if v[:1].isalpha())
        # The names of where it is: "at Rosewood Library", "at the Alder Street hall".
        self.places = frozenset(w for m in _AT_PLACE.finditer(body)
                                for w in m.group(1).lower().split()) & self.values \
            if (" at " in body or " in " in body) and is_latin(body) else frozenset()
        self.topic = _topic(rest)
        self.units = _units(body) if _DIGITS.search(body) or not is_latin(body) else frozenset()
        # Every Latin word, short ones too: a name opening a sentence is no value ("Mia …").
        self.words = frozenset(_WORD.findall(body.lower()))
        self.persons = _persons(body, self.words) if not is_latin(body) \
            else _persons(aliased := _aliased(body), frozenset(_WORD.findall(aliased.lower())))
        self.own = "我" in body or bool(self.words & _FIRST_PERSON)  # the speaker's, said so
        # Someone named by a pronoun: "她生日不是5月3号" may be "我老婆" of before.
        self.pronoun = _THIRD_PERSON.search(body) is not None
        # What it is "for" or "of": "the budget for food" is not "the budget for the hotel".
        self.of = frozenset(_OF.findall(body.lower())) - _CUE_TOKENS if " f" in body or \
            " o" in body else frozenset()


_DIGITS = re.compile(r"\d")
_FIRST_PERSON = frozenset(("i", "my", "me", "mine", "we", "our", "us"))
_THIRD_PERSON = re.compile(r"(?i:\b(?:he|she|his|her|him|they|their)\b)|[他她]")
_ID_NUMBER = re.compile(r"(?!(?:19|20)\d\d$)\d{3,}|[a-z]+\d[\w-]*")
_WORD = re.compile(r"[a-z]+")
_OF = re.compile(r"\b(?:for|of) (?:the |my |our |your |a |an )?"
                 r"(?!(?:the|my|our|your|an)\b)([a-z]{3,})\b")


def _same_thing(new: _Shape, old: _Shape, strict: bool, *, of_anyone: bool = False) -> bool:
    """Whether a statement of change speaks of what ``old`` said, about the same person.

    It does when most of its topic words are the older one's (all of them when ``strict``; a
    name counts whether it is a value in one and a topic word in the other: "Mia just turned 7"
    / "My daughter Mia is 6"), or when its numbers measure the same thing ("4800元" / "4500元",
    "78 kg" / "82 kg") and it names nothing the older one does not, or when both are a bare
    number ("I turned 35" / "I'm 34"). A clause of change that names no one (``of_anyone``:
    "…，给改到11月20号了") changes what was said of anyone ("我爸约的是11月13号去复查").
    """
    if not new.units and len(new.values) == 1 and len(new.topic) <= 3 \
            and next(iter(new.values))[:1].isdigit() and _close(new.values, old.values) \
            and len([u for u in old.units - _NOT_THING
                     if u.isalpha() and len(u) > 3 and _in(u, new.topic)]) == 1:
        # "guest list update, we're at 134 now" counts what "…we're thinking 120 guests, my mom
        # keeps adding cousins…" counted: the thing counted named, a number near the old one.
        return True
    named = (new.words & old.names) - new.values
    # (Whoever reported either is left out: "医生开了…每次4毫升" / "医生说…调成每次6毫升".)
    told = new.reporters | old.reporters
    # A thing named again by two words without whose it is ("Soccer practice is Thursdays at 5
    # now" / "My daughter's soccer practice is Tuesdays at 5") is the one said before.
    renamed = not new.persons and not new.own and not new.pronoun \
        and sum(1 for w in new.topic if _in(w, old.topic)) >= 2
    # People counted are not whose it is ("it's 17 kids now" / "Maya's party, 14 kids"); a
    # count naming no one else is of the one counted before.
    whose, was_whose = new.persons - told - new.units, old.persons - told - old.units
    # (A word the older statement names as a thing is no one's name: "Contractor's revised
    # quote" / "Our contractor quoted $18,400".)
    whose -= {w for w in whose - was_whose if _in(w, old.topic)}
    # So is a change naming no one of a thing said before by all it names ("奥数以后都挪到
    # 周日下午上" / "我家老大的奥数课在周六上午").
    unowned = not whose and not new.own and (
        bool(new.units & old.units - _NOT_THING)
        or (bool(new.topic) and all(_in(w, old.topic) for w in new.topic)))
    if whose != was_whose and not named and not renamed \
            and not (of_anyone and not new.persons) and not unowned \
            and not (new.pronoun and not new.persons and old.persons):
        return False  # someone else's: "my brother's flight", "我老婆"
    if new.of and old.of and not new.of & old.of:
        return False  # "the budget for food" / "my budget for the hotel": another thing
    topic = new.topic | named
    # (who told of the old value speaks of the thing too: "Landlord told us rent goes up to
    # $1,875" / "…the landlord settled at $1,790 instead")
    pool = old.topic | old.names | old.told_by
    # A number both name the thing by ("the 529 contribution" / "the kids' 529"): a word in
    # common. (Not a year, which many statements share, nor a small count.)
    ids = {v for v in new.values & old.values if _ID_NUMBER.fullmatch(v)}
    # (a code said with and without its letters: "AA 2291" / "2291")
    ids |= {v for v in new.values for w in old.values if v != w and _ID_NUMBER.fullmatch(w)
            and (v.endswith(" " + w) or w.endswith(" " + v))}
    ids |= {v for v in new.values & old.values if _SPACED_CODE.fullmatch(v)}  # "ua 1482"
    if ids and _timed(new.values) and _timed(old.values) and not _timed(new.values) & old.values:
        return True  # "they moved UA 1482 to 9:15" / "UA 1482 … departs at 6:40 AM"
    shared = sum(1 for w in topic if _in(w, pool)) + len(new.names & old.topic) + len(ids)
    units = new.units & old.units
    # A new email address, phone number or street address of the same person replaces the old;
    # a new host, of the same service ("prod db is pg-hydra-2.internal now" / "the prod
    # postgres lives on db-prod-07.internal"): one more word in common.
    kinds = new.topic & old.topic & _KINDS_SET
    same_kind = bool(kinds - {"<host>"}) or ("<host>" in kinds and shared >= 2)
    if strict:
        if topic and shared >= len(topic):
            return True
        what = topic - _WHEN_VERBS  # ("now begins" / "start is" say when, not of what)
        if what and what != topic and all(_in(w, pool) for w in what) \
                and _when(new.values) and _when(old.values):
            return True  # "the lease now begins March 3" / "lease start is Feb 24"
        if same_kind or (not topic and ((units and (not units <= _MONEY_UNITS or _close(
                new.values, old.values))) or _same_ip(new.values, old.values))):
            return True  # (a bare new address: "新的是10.0.8.42" / "数据库在10.0.3.17上")
        if shared and len(topic) <= 3 and _same_reading(new.values, old.values):
            return True  # "today's reading was 129/84" / "readings … averaging about 138/91"
        # A word in common and the same thing counted ("2只猫" / "3只猫", "3楼" / "12楼"), not
        # a time or an amount, which many things have ("水电费每月300元" is no rent); or nothing
        # new but when it happens ("the party now starts at 7pm" / "the party is at 6pm").
        return shared > 0 and bool(units) and (
            bool(units - _NOT_THING) or all(_in(w, pool) or w in _WHEN_VERBS for w in topic))
    if same_kind or (topic and 2 * shared >= len(topic)):
        return True
    if shared >= 2 and _one_near_number(new.values, old.values):
        return True  # "托管班又涨价了，现在一个月4500了" / "托管班一个月3800": one amount
    if shared >= 2 and new.places and old.places and not new.places & old.places \
            and new.values <= new.places | old.values:
        # "…chess club is meeting at the Alder Street community hall from now on" / "our chess
        # club's monthly blitz night at Rosewood Library": a place for another, of a thing
        # named by two words in common.
        return True
    if shared >= 2 and _one_day_replaced(new.values, old.values):
        # "…switched my food bank shift, I'm now going weekly, on Fridays" / "I volunteer at
        # the Harbor Street food bank every other Tuesday": a day for another, of a thing
        # named by two words in common.
        return True
    new_day, old_day = _when(new.values), _when(old.values)
    if new_day and old_day and new_day != old_day and new.values & old.values - old_day \
            and (not _hans(new.topic).isdisjoint(_hans(old.topic))
                 or not _hans(new.topic | old.topic)):
        # "周一下午两点和王总开会" / "王总说会议改到周二下午四点": a new day for what is done
        # with the same one. "开会" and "会议" share no word, but a character; "王总的航班改到
        # 周二" shares none. In English the other value shared is enough: "Moved it to March 21
        # at 10:00 am in Juniper" / "Added: review with Dana, March 18, 3:00 pm, Juniper".
        return True
    if not topic and not old.topic and len(new.values) == len(old.values) == 1:
        return True  # "I turned 35" / "I'm 34": a bare number said to change
    if of_anyone and not topic and new.values and _timed(new.values) == new.values \
            and _timed(old.values):
        return True  # "they changed it to 4:05": a time moved, naming nothing, is the latest one
    if _same_code(new.values, old.values):
        return True  # "现在是 G1398" / "高铁是 G1372", "DL 2046" / "UA 1187": one code for another
    if len(topic) <= 3 and _same_reading(new.values, old.values):
        return True  # "今天69.8" / "今天早上称了一下71.6公斤": one reading for another
    # (Naming nothing, an amount of money changes only one near it: "Crossed $6,020 today" is
    # the fund's 5,150 grown, not the $1,975 rent said last.)
    return bool(units) and (shared > 0 or (not topic and (
        not units <= _MONEY_UNITS or _close(new.values, old.values))))


_SPACED_CODE = re.compile(r"[a-z]{2} \d{2,5}")


def _is_code(value: str) -> bool:
    """Whether a value names one object by a code of letters and digits ("ua 1482", "w-58213")."""
    return _SPACED_CODE.fullmatch(value) is not None or (
        _ID_NUMBER.fullmatch(value) is not None and not value.isdigit())


_READING = re.compile(r"\d{1,3}\.\d")


def _same_reading(new: frozenset[str], old: frozenset[str]) -> bool:
    """Whether each gives one reading with one decimal (a weight, a temperature) and the two
    are within a sixth of each other: "scale said 180.1" after "weighed in at 183.4 lb"."""
    a = [v for v in new if _READING.fullmatch(v)]
    b = [v for v in old if _READING.fullmatch(v)]
    if not a and not b:
        # A blood pressure: "today's reading was 129/84" after "averaging about 138/91".
        a = [v for v in new if _PRESSURE.fullmatch(v)]
        b = [v for v in old if _PRESSURE.fullmatch(v)]
        return len(a) == len(b) == 1 and a != b
    return len(a) == len(b) == 1 and a != b \
        and max(float(a[0]), float(b[0])) <= 1.17 * min(float(a[0]), float(b[0]))


_PRESSURE = re.compile(r"(?:[89]\d|1\d\d|2[0-4]\d)/(?:[4-9]\d|1[0-4]\d)")


def _numbers(values: frozenset[str]) -> list[str]:
    """The amounts among ``values`` (not a date, a time or a word)."""
    return [v for v in values if _value_kind(v) == "number"]


def _close(new: frozenset[str], old: frozenset[str]) -> bool:
    """Whether an amount of ``new`` is within a third of one of ``old`` (a balance that grew
    from 5,150 to 6,020; not the 9,000 it is saved toward)."""
    a = [float(m.group().replace(",", "")) for v in _numbers(new)
         if (m := _AMOUNT.search(v)) is not None]
    b = [float(m.group().replace(",", "")) for v in _numbers(old)
         if (m := _AMOUNT.search(v)) is not None]
    return any(min(x, y) > 0 and max(x, y) <= 1.3 * min(x, y) for x in a for y in b)


def _one_near_number(new: frozenset[str], old: frozenset[str]) -> bool:
    """Whether each gives one amount (not a date or a time) and the two are near."""
    a, b = _numbers(new), _numbers(old)
    return len(a) == len(b) == 1 and a[0] != b[0] and _near_amount(a[0], b[0])


def _distinct(values: frozenset[str] | set[str]) -> bool:
    """Whether each value is an amount of four digits or more that is not a year ("5,150")."""
    return bool(values) and all(
        v[:1].isdigit() and sum(ch.isdigit() for ch in v) >= 4 and not _YEAR.fullmatch(v)
        for v in values)


_YEAR = re.compile(r"(?:19|20)\d\d")


def _marked(value: str) -> bool:
    """Whether ``value`` is too particular to be said twice by chance: three digits or more, a
    time, a date, an amount with its unit ("114", "4:35", "March 21", "$80"; not "2")."""
    return sum(ch.isdigit() for ch in value) >= 3 or not value.isdigit()


def _one_day_replaced(new: frozenset[str], old: frozenset[str]) -> bool:
    """Whether what ``new`` gives and ``old`` does not is one day of the week, and ``old`` gives
    another. (Names are too many to tell one for another; amounts: :func:`_one_near_number`.)"""
    fresh = list(new - old)
    return len(fresh) == 1 and _value_kind(fresh[0]) == "day" \
        and any(_value_kind(v) == "day" for v in old - new)


def _with_topic(shape: _Shape, topic: frozenset[str]) -> _Shape:
    """``shape`` speaking of ``topic``: a clause's values, what its sentence names."""
    out = _Shape("")
    for name in _Shape.__slots__:
        setattr(out, name, getattr(shape, name))
    out.topic = topic
    return out


# A code of letters then digits: a train, a flight, a booking ("G1372", "UA 1187", "MU5137").
_CODE = re.compile(r"[a-z]{1,3} ?\d{3,5}")


_IPV4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?")


def _same_ip(new: frozenset[str], old: frozenset[str]) -> bool:
    """Whether each gives one IPv4 address, and not the same one."""
    a, b = ([v for v in values if _IPV4.fullmatch(v)] for values in (new, old))
    return len(a) == len(b) == 1 and a != b


def _same_code(new: frozenset[str], old: frozenset[str]) -> bool:
    """Whether each statement gives one code and both codes have the same shape (as many
    letters, as many digits): a statement of change giving one says it replaces the other."""
    codes = [[v for v in values if _CODE.fullmatch(v)] for values in (new, old)]
    if len(codes[0]) != 1 or len(codes[1]) != 1 or codes[0] == codes[1]:
        return False
    return _code_shape(codes[0][0]) == _code_shape(codes[1][0])


def _code_shape(code: str) -> str:
    """A code's letters as "a" and digits as "9": "G8505" and "G8633" have one shape."""
    return re.sub("[a-z]", "a", re.sub(r"\d", "9", code))


_DAY = re.compile(
    r"(?:周|星期|礼拜)[一二三四五六日天](?:上午|下午|晚上|早上|中午|傍晚)?|(?:\d{1,2}月)?\d{1,2}[日号]"
    r"|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?"
    r"|\d{1,2}(?:st|nd|rd|th)"
    r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday")


_HAN = re.compile(r"[\u4e00-\u9fff]")


def _hans(topic: frozenset[str]) -> set[str]:
    return set(_HAN.findall("".join(topic)))


def _timed(values: frozenset[str]) -> frozenset[str]:
    """The days and times among ``values``."""
    return frozenset(v for v in values if _value_kind(v) in ("date", "time")) | _when(values)


def _when(values: frozenset[str]) -> frozenset[str]:
    """The days among ``values``: "周二", "3月10号", "tuesday"."""
    return frozenset(v for v in values if _DAY.fullmatch(v))


# Units that measure no thing of their own: times and amounts.
_NOT_THING_TEXT = (
    "$ € £ ¥ 元 块 点 号 日 月 年 分 秒 时 小 天 周 岁 pm am minut minute hour day week month year "
    "dollar buck usd rmb yuan euro"
)
_NOT_THING = frozenset(_NOT_THING_TEXT.split())
_WHEN_VERBS = content_tokens(
    "start starts begin begins end ends finish finishes open opens close closes land lands "
    "leave leaves depart departs arrive arrives due 开始 结束 出发 到达 起飞 开门 关门"
)


def _in(word: str, pool: frozenset[str]) -> bool:
    """``word`` or a word sharing its first five letters is in ``pool`` ("expiry"/"expires")."""
    if word in pool:
        return True
    if len(word) < 5 or not is_latin(word):
        # A short stem and its -ing, -s, -er form: "read" / "reading", "spin" / "spinning".
        return len(word) == 4 and is_latin(word) and any(
            w.startswith(word) and (w[4:] in _SUFFIXES
                                    or (w[4:5] == word[3] and w[5:] in _SUFFIXES))
            for w in pool)
    head = word[:5]
    return any(w.startswith(head) for w in pool)


_SUFFIXES = frozenset(("s", "es", "ed", "er", "ers", "ing", "ings"))


_ASSISTANT_TAGS = ("Assistant", "助手")
# The old value named only to be dropped: "not Saturday but…", "forget the $450 thing",
# "instead of the 15th", "不是周六，…".
_NEGATED = re.compile(
    r"(?i:\bnot [\w']+(?: [\w']+)?,? but\b"
    r"|\b(?:forget|scratch|drop|ignore) (?:about )?(?:the |that )?[$€£¥]?\d[\w,.:]*"
    r"(?: (?:thing|one|number|figure|budget|plan))?"
    r"|\b(?:instead of|rather than) (?:the |that )?[$€£¥]?\d[\w,.:]*"
    # "…aren't Wednesdays anymore, the pool moved them to Fridays", "not 3.14 any more"
    r"|\b(?:not|isn't|aren't|no longer)(?: on| at| in)?(?: the| a| an)? [\w'.:$€£¥-]+"
    r"(?= any ?more\b))"
    r"|不是[^，。！？,.!?]{1,8}[，,]")


# An ask the assistant took on is the user's words under its own tag ("User asked: need to
# Venmo Jess $60"): the user changes it as they change what they said.
_ASKED_TAGS = {f"{_ROLE_TAGS[lang]['user']}{_ASKED[lang]}{_COLON[lang]}":
               f"{_ROLE_TAGS[lang]['user']}{_COLON[lang]}" for lang in _ASKED}
_ASKED_OPENINGS = tuple(_ASKED_TAGS)


def _speaker_tag(it: _Item) -> str:
    """``it``'s speaker tag, the user's for an ask the assistant took on."""
    if it.tag or not it.body.startswith(_ASKED_OPENINGS):
        return it.tag
    return next(user for asked, user in _ASKED_TAGS.items() if it.body.startswith(asked))


# A value said not to be, right after the one that is: "due May 12 not April 30", "5pm, not 4pm".
_NOT_VALUE = re.compile(
    r"(?i:(?:(?<=\d)|(?<=\d[ap]m)|(?<=\d(?:st|nd|rd|th)))\s*,?\s*not (?:on |at )?"
    r"(?:[a-z]{3,9}\.? \d{1,2}(?:st|nd|rd|th)?\b|[$€£¥]?\d[\d,.:/]*(?:\s?(?:am|pm)\b)?))")


def _assistants(it: _Item) -> bool:
    """The assistant's words, said in this fold or carried ("Assistant: …")."""
    return it.role == "assistant" or (it.role in ("summary", "history")
                                      and it.tag.startswith(_ASSISTANT_TAGS))


def supersede_changes(
    items: list[_Item], settled_in: frozenset[int] = frozenset(),
    shaped: dict[str, _Shape] | None = None, replies: Mapping[int, str] | None = None,
) -> list[_Item]:
    """Apply each statement of change to the latest older statement it changes (items oldest
    first); return the items, the emptied ones left out. ``settled_in``: the messages (by index)
    that say a value was settled (:func:`says_settled`); ``shaped``: shapes by statement, to
    share with the passes after this one; ``replies``: the assistant's messages by index, the
    words it answered each statement with."""
    replies = replies or {}
    shapes: list[_Shape | None] = [None] * len(items)
    by_body = shaped if shaped is not None else {}

    def shape(k: int) -> _Shape:
        got = shapes[k]
        if got is None:
            body = items[k].body
            got = by_body.get(body)
            if got is None:
                got = by_body[body] = _Shape(body)
            shapes[k] = got
        return got

    emptied: set[int] = set()
    # (each user's change that replaced values: where, the values replaced, the new ones)
    changed_by_user: list[tuple[int, frozenset[str], frozenset[str]]] = []
    lowered: list[str] = []  # (each body in lower case, made when first needed)
    for n, it in enumerate(items):
        settled = it.msg in settled_in and not _assistants(it)
        if it.replaces:
            continue
        # A sentence saying it is done tells the doing, no value: "finally got the driver's
        # license renewed!! 2 hrs at the elm st office but done." (neither after a lead-in
        # nor said anew).
        done = user_done(it.body)
        lead = None if done else _lead_in(items, n, shape)
        # A number said anew of the very same thing, no word of change: "rehearsal dinner is
        # 6:30" after "The rehearsal dinner is at Luca's on Friday at 7" (as a statement that
        # only says what holds now: all it names, the older one named).
        # (In Chinese, shorter, and naming at least two character pairs of the older one:
        # "我妈降压药每天早上吃一片半" after "我妈的降压药每天早上吃一片，饭后吃"; not what was
        # done, "今天跑了8公里".)
        ascii_ = is_latin(it.body)
        # (the user's own statements, not their asks or the options put to them)
        restated = it.msg >= 0 and it.tag in _USER_TAGS and not _is_tool_line(it.body) \
            and not _is_question(it.body) and not done and (
                len(it.body) <= _RESTATED_CHARS and _DIGITS.search(it.body) is not None
                and not _WHEN_IT_HAPPENED.search(it.body)
                if ascii_ else
                len(it.body) <= _RESTATED_ZH_CHARS and not _WHEN_IT_HAPPENED_ZH.search(it.body))
        if not (settled or lead or restated or _has(it.body, _CHANGE_KEYS)):
            continue
        # The assistant changes only what it said itself ("Booked: dentist on Thursday" →
        # "Changed: dentist on Tuesday"); the user's words are the user's to change.
        theirs = _assistants(it)
        says = 2 if lead else _says_change(it.body)
        # (said anew, no word of change: only of what an older statement named all of; "$298"
        # alone names no thing)
        anew = restated and not says and not settled
        said_anew: _Shape | None = None
        if anew:
            # Each word, as written, in an older statement first (most have none): every word
            # of the topic is one of these.
            if not lowered:
                lowered.extend(x.body.lower() for x in items)
            if ascii_:
                words = [w[:5] for w in content_tokens(it.body) - _CUE_TOKENS
                         if not any(ch.isdigit() for ch in w)]
            else:
                # (of the one clause that gives the value: "物业费一个月420" of "物业费一个月420
                # 真离谱")
                valued = [c for c in _ZH_CLAUSE_BREAK.split(it.body)
                          if _DIGITS.search(_arabic(c))]
                said_anew = _Shape(valued[0]) if len(valued) == 1 else None
                words = sorted(said_anew.topic) \
                    if said_anew is not None and len(said_anew.topic) >= 2 else []
            if not words or not any(all(w in lowered[k] for w in words) for k in range(n)) \
                    or not shape(n).topic:
                continue
        says = says or int(restated)
        if not (says or settled) or (_is_question(it.body) and not _ASKS_TO_DO.match(it.body)
                                     and _change_clause_en(it.body) is None
                                     and (ascii_ or _change_clause(it.body) is None)):
            # "Can you change the booking to 6 people?" asks for the change: it stays. ("…turns
            # out I'm on the Flex 40 plan, so maybe it includes Canada?" says it, then asks.)
            continue
        # "Not Saturday but Sunday", "不是周六，是周日", "now due May 12 not April 30": the value
        # said not to be is the old one.
        plain = _NOT_VALUE.sub(" ", _NEGATED.sub(" ", it.body))
        new = _Shape(plain) if plain != it.body else shape(n)
        if anew and not ascii_ and said_anew is not None:
            new = said_anew
        # (what it says is no longer so names the old value: "not 3:30 anymore, …4:15")
        denied = shape(n).values - new.values
        if not theirs and not new.values and _FAVOURITE.search(it.body) \
                and not _FAVOURITE_OF.search(it.body):
            # "我现在最喜欢绿色了" names no attribute: it replaces the speaker's one favourite
            # said before ("我最喜欢的颜色是蓝色"), and nothing when they named several.
            _replace_the_only(items, n, emptied, _FAVOURITE, new.persons, shape)
            continue
        whole: _Shape | None = None
        clause: str | None = None  # the one clause that says the change, if it has values
        if new.values and ascii_:
            # "from the April lease the rent goes up to €965, which is annoying but…", "the PT
            # clinic called, they changed it to 4:05": the clause that changes, of what the
            # whole sentence names.
            clause = _change_clause_en(it.body)
            if clause is not None and (len(new.topic) > _MAX_TOPIC
                                       or not (bare := _Shape(clause)).topic):
                whole, new = new, _Shape(clause)
        elif new.values:
            # Chinese runs many character pairs into one sentence: "仓库刚通知，从下周一起截单
            # 提前了，改成下午 3 点半，…" changes by its clause of change, about what the
            # whole sentence names ("截单"); so does one whose clause of change names nothing
            # but its value ("跟家里商量了一晚上，最后砍到十五万").
            clause = _change_clause(it.body)
            if clause is not None and len(new.topic) > _MAX_TOPIC:
                whole, new = new, _Shape(clause)
            elif clause is not None and not (bare := _Shape(clause)).topic:
                whole, new = new, bare
        if whole is not None and new.topic:
            # Whose it is, the sentence says: "医生说孩子体重长了，剂量调成每次6毫升". (A clause
            # naming nothing, "给改到11月20号了", changes what was said of anyone.)
            new.persons = whole.persons
        if not theirs and not ascii_ and (
                (verb := _NOW_USING_ZH.search(it.body)) is not None
                or _SWITCH.search(it.body)) and _replace_the_only(
                items, n, emptied, _HABIT_OF[verb.group("v")] if verb else _HABIT,
                new.persons, shape, with_values=True,
                sharing=None if verb else new.topic):
            # "车已经换了，现在开比亚迪海豹" replaces "我开的是卡罗拉双擎"; "携号转网到联通了，
            # 办了个39元的套餐" the one use that shares a word with it ("58元套餐").
            continue
        if not new.values or len(new.topic) > _MAX_TOPIC:
            continue  # a long statement that mentions a change is a story, not an update
        # Asked of each older statement below, made once: the clause of change naming nothing,
        # of what its sentence names; the clause that changes, on its own.
        named_by_whole = _with_topic(new, whole.topic) \
            if whole is not None and not new.topic else None
        clause_said = _Shape(clause) if clause is not None else None
        amount: frozenset[str] = frozenset()
        rewritten: tuple[str, str] | None = None
        # "…说续签的话涨到七千三": a rise to a bare number changes the latest number of its size
        # the speaker gave without a unit ("房租每个月6800").
        raised_to = _bare_rise(it.body) if not ascii_ else ""
        tag = _speaker_tag(it)  # (an ask the assistant took on is the user's: "用户要求：…")

        # Besides the change itself: "Node 18 快 EOL 了，统一升到 20.11.1 吧，.nvmrc、engines…",
        # a clause of change naming nothing, of what its sentence names; "bump the pydantic pin
        # to 2.7.4 and rerun the schema tests", the clause that changes, not what else is asked.
        also = tuple(x for x in (named_by_whole, clause_said) if x is not None)
        priced_it = whole is not None and not new.topic and bool(new.units) \
            and new.units <= _MONEY_UNITS and clause is not None \
            and _IT_TO.search(clause) is not None
        if lead:
            # "…sent a revised quote, he'd left out the membrane. New total is $3,640.": the
            # sentence before, saying the change with no value, names what changed.
            also += (_with_topic(new, new.topic | lead.topic),)
        anyone = whole is not None and not new.topic
        order: Sequence[int] = range(n - 1, -1, -1)
        if not new.topic and it.msg >= 0:
            # A change naming nothing is of what the reply to it speaks of, when that is one
            # of the statements it could change ("…so we're settling on $2,850." "$2,850
            # sounds realistic, it still covers the books": the goal "for new library books",
            # not the dealer's offer said since).
            reply = frozenset().union(*(shape(j).topic for j in range(n + 1, len(items))
                                        if items[j].msg == it.msg + 1 and _assistants(items[j])))
            spoken_of = {k for k in order if any(_in(w, shape(k).topic) for w in reply)}
            if spoken_of:  # (first, latest first; the rest after them, as before)
                order = sorted(order, key=lambda k: (k not in spoken_of, -k))
        for k in order:
            old = items[k]
            # (The answer of a question joined to it, "what time is standup? → … at 9:30", is
            # the assistant's words: the assistant's "standup is now 10:15" changes it.)
            answered = theirs and not _assistants(old) and "→" in old.body \
                and not _is_tool_line(old.body)
            if id(old) in emptied or (not answered and (_speaker_tag(old) != tag
                                                        or _assistants(old) != theirs)) \
                    or (lead is not None and old.msg == it.msg) \
                    or _changes_fields(it.body, old.body):
                continue  # (tool lines about one object change by field: supersede_tool_state)
            if anew and not (all(w[:5] in lowered[k] for w in new.topic)
                             and all(_in(w, shape(k).topic) for w in new.topic)):
                continue
            was = shape(k)
            if anew and not ascii_ and not (new.units & was.units
                                            or (_when(new.values) and _when(was.values))
                                            or _one_near_number(new.values, was.values)):
                continue  # (in Chinese, a value of the same measure, or one near amount)
            if anyone and "→" in old.body and not (whole or new).values & was.values \
                    and not _THAT_ONE.search(it.body):
                # A change naming nothing is of what the user said, not of what a look-up told
                # them ("we got bumped, it's 5:45 now" is no crew's arrival time), unless it
                # names the same object ("they moved UA 1482 to 9:15") or points at the one
                # looked up ("那趟车我改签了，现在是17:05的").
                continue
            if it.replaces and not (((new.units & was.units and _close(new.values, was.values))
                                     or _same_reading(new.values, was.values))
                                    and _speaks_of(was, new, True, anyone, also)):
                continue  # (another carried statement: only one plainly of the same measure)
            tool_line = _is_tool_line(old.body)
            bare_old = _bare_amount(old.body, raised_to) if raised_to else ""
            said = whole or new
            if 0 <= old.msg < it.msg <= old.msg + _NEAR \
                    and (_BACK_REFERENCE.match(it.body)
                         or (settled and _settler(it.body, said) <= was.persons)) \
                    and (rewritten := _put_value(
                    old, was.values - said.values, said.values - was.values, it.body,
                    (was.units, said.units))):
                # The user's next turn after the reply changes what they just said, speaking of
                # it by a pronoun: "his flight lands 4:15" … "now he lands at 6:50 instead";
                # "要给小林转露营的钱，每人260" … "她刚说…变成每人310了"; or saying it was
                # settled: "wants 4,200/mo" … "NEGOTIATED!!! 3,950 a month", "offering $17.50/hr"
                # … "we landed on 18.25". ("The party now starts at 7pm" names another thing;
                # "Now I live in Chicago", another person.) What was said of the old value in
                # between is put right below, as for every value rewritten.
                pass
            elif not says:
                continue  # settled, but not what the user just said: nothing else to change
            elif (named := _named_when(said.values | denied, was.values, denied)) is not None \
                    and (rewritten := _put_value(old, named[0],
                                                  named[1] - denied - (said.values - new.values),
                                                  it.body, named=True)):
                # "…can't make the 14th so we moved it to March 22" names the day it moves
                # ("the surprise party for Dev on March 14"): the same thing, whatever else
                # either statement says of it. (The whole sentence names it, the clause of
                # change gives the new value: "…说30号排不开，改到下礼拜三了".)
                pass
            elif not theirs and ascii_ and (
                    named := _renamed(it.body, old.body, new.values, was.values)) is not None \
                    and (rewritten := _put_value(old, *named, it.body)):
                # "it's Project Cormorant now" after "…Project Halibut internally": one name
                # for another after the same head name, whatever else either says.
                pass
            elif priced_it and new.units & was.units and _close(new.values, was.values) and (
                    rewritten := _put_value(old, was.values - new.values,
                                            new.values - was.values, it.body,
                                            (was.units, new.units))):
                # "No bites in two weeks so I dropped it to $395": a price put on "it", naming
                # nothing else, is the latest near price the speaker gave ("listed it at $450").
                pass
            elif bare_old and not answered:
                # The rest of the statements need not speak of the same thing: the change
                # named none, and the old number is the only one of its size.
                parts = _CLAUSE_SPLIT.split(old.body)
                _drop_clauses(old, parts, {i // 2 for i in range(0, len(parts), 2)
                                           if bare_old in _arabic(parts[i])})
            elif whole is not None and not any(_in(w, was.topic) for w in whole.topic) \
                    and not _same_code(new.values, was.values) \
                    and not any(map(_is_code, new.values & was.values)) \
                    and not _same_reading(new.values, was.values) and not (
                    # "…那天被订了，改到10月6号了，…": a day moved, naming nothing else, moves
                    # the latest day the speaker gave ("婚礼定在10月3号"), in its own fold (a
                    # later one may hold only another thing's day: "Pinterest boards at 6am").
                    not new.topic and new.values and _timed(new.values) == new.values
                    and _timed(was.values) and it.msg >= 0) and not (
                    # "…，最后砍到九万，…": an amount cut or raised, naming nothing else, changes
                    # the latest amount in the same unit ("装修预算我们定的是12万").
                    amount := (new.units & was.units - _NOT_THING if not new.topic
                               else frozenset())) and not (
                    # "…too ambitious, so we're settling on $2,850": so does a price, when
                    # near the old one ("bumped the goal up to $3,200").
                    not new.topic and new.units & was.units & _MONEY_UNITS
                    and _close(new.values, was.values)):
                continue
            elif not was.values - new.values or not new.values - was.values \
                    or not _speaks_of(was, new, says == 1, anyone, also) \
                    or _shares(was.values - new.values, old.body) \
                    != _shares(new.values - was.values, it.body):
                continue  # no value replaced, or not the same thing (a share, a count)
            elif rewritten := _put_value(old, was.values - new.values,
                                         new.values - was.values, it.body):
                # One value for one of its kind: the old statement says the new value in its
                # own words ("周五团建要订40份盒饭，找楼下那家老乡鸡" + "改成55份" → "…55份盒
                # 饭…").
                pass
            elif answered:
                continue  # (an answer is put right in its own words, or not at all)
            elif lead is not None and not {_value_kind(v) for v in was.values - new.values} \
                    & {_value_kind(v) for v in new.values}:
                break  # (named by the sentence before, yet no value of the kind it gives)
            elif not {_family(v) for v in was.values - new.values} \
                    & {_family(v) for v in new.values}:
                # "…surgeon's office called, they had to push mom to June 3" takes no "$450 a
                # month for mom" out of what Dan gives: a date is no new amount (a day, a date
                # and an hour may replace each other).
                continue
            elif old.section == _TASKS:
                # What was to be done is still to be done, whatever changed of it; the change
                # is of what was said before it ("航班调整，变成7月1号了，我还得跟房东说…").
                continue
            elif whole is not None and amount:
                _take_out_amount(old, amount)
            else:
                _take_out(old, new.topic, was.values - new.values)
            # An older statement that an earlier change was written into ("…Lantus, 22 units
            # at bedtime", from 18 when the endo raised it) holds the value replaced now too.
            # (Only the value rewritten, when one was: "…$425 a month into … Ally …, it's at
            # about 6k" → "$610 a month" replaces no "$6,000 deductible".)
            replaced = frozenset(rewritten[:1]) if rewritten else was.values - said.values
            # So does an earlier change carried beside it ("fund's at 5,150 now", then "Crossed
            # $6,020 today"): an amount as distinct as "5,150" is the same one wherever said.
            if replaced and not theirs and not any(
                    _assistants(x) and x.msg > it.msg and _says_change(x.body)
                    for x in items[n + 1:]):
                # (unless the assistant says the change itself, putting its own words right)
                changed_by_user.append((n, replaced, said.values - was.values))
            for echo in items[:n] if replaced else ():
                if echo is old or id(echo) in emptied or _speaker_tag(echo) != tag:
                    continue
                held = (echo_shape := _Shape(echo.body)).values & replaced
                if held == replaced and len(held) == 1 and _marked(gone := next(iter(held))) \
                        and _says_change(echo.body) and not any(
                        _value_kind(v) == _value_kind(gone) for v in echo_shape.values - held) \
                        and not _assistants(echo) and echo.section != _TASKS:
                    # The earlier change itself ("two more cousins, so we're at 114 now", then
                    # "Final headcount is 103"): its one value is replaced, so is it.
                    emptied.add(id(echo))
                    continue
                if echo.order > old.order and not _distinct(replaced):
                    continue
                if held and (_speaks_of(echo_shape, new, says == 1, anyone, also)
                             or (_distinct(held) and echo.msg < 0)) \
                        and (carried := _pair(held, said.values - echo_shape.values, True)):
                    _rewrite(echo, carried, it.body, True)
            if not old.body or (tool_line and not _is_tool_line(old.body)):
                emptied.add(id(old))  # (a tool line's tail is no statement: "exit 0)")
            # A value the user took the trouble to revise is asked for again: it is worth what
            # stating it was worth once more.
            # (A value only said anew is worth what each statement was: "Show me hotels in
            # Porto for May 12" after "…in Lisbon for March 10" is no revision to weigh.)
            it.score = it.score if anew else max(it.score, old.score) + (
                0.0 if theirs or it.replaces else _REVISED_WEIGHT)
            if rewritten:
                # It now says all the change said of it: it ranks first, the change after it
                # (kept when there is room, as a repeat of its value otherwise).
                old.score = old.score if anew else it.score + _REWRITTEN_EDGE
                if it.section == _DECISIONS and old.section != _DECISIONS:
                    # Unless the change is a decision the older statement was not: "…said to
                    # spin at 4,200 rpm. I'll go with that." is carried as a decision, worth
                    # more in the folds to come than "I'm spinning the lysate at 4,200 rpm".
                    old.score = it.score - _REWRITTEN_EDGE
                    old.yields = True
                # What was said of the old value in between says the new one too: the
                # assistant's echo ("Noted: $60 to Jess for the cabin.") and what the user
                # agreed to ("set reminders a week before April 30", due May 12 now).
                # So does a look-up's result about the object the change names by its code
                # ("get_booking(…) → flight=UA 1482, departs=6:40 AM" after "they moved UA
                # 1482 to 9:15").
                codes = [v for v in said.values if _is_code(v)]
                measure = _measure(old.body, rewritten[1])
                for echo in items[:n]:
                    # (one carried in the summary has no place in time: its value is enough)
                    if echo is not old and (old.msg <= echo.msg <= it.msg or echo.msg < 0) and (
                            _assistants(echo) or echo.section in (_DECISIONS, _TASKS)
                            or (codes and _is_tool_line(echo.body)
                                and any(c in echo.body.lower() for c in codes))) \
                            and _measure(echo.body, rewritten[0]) in ("", measure):
                        # (of the same thing: "20桌" moved to 22 is no "大概20分钟")
                        _rewrite(echo, rewritten, it.body, False)
            elif (echoed := _pair(
                    stale := frozenset(v for v in replaced if not _lone_numeral(v)),
                    frozenset(v for v in said.values - was.values
                              if any(_value_kind(v) == _value_kind(w) for w in stale)),
                    False)) is not None:
                # Taken out of the older statement, not rewritten: what the assistant said of
                # the old value in between says the new one ("六千八在你们那条街算中等" after
                # "店里房租现在一个月六千八，水电另算…"). (Carried in the summary, with no
                # place in time: a value as distinct as "6800".)
                for echo in items[:n]:
                    if _assistants(echo) and (old.msg <= echo.msg <= it.msg if old.msg >= 0
                                              else echo.msg < 0 and _distinct({echoed[0]})):
                        _rewrite(echo, echoed, it.body, False)
            it.replaces = True
            if old.msg >= 0:
                break
            # Statements carried in a summary need not be in the order they were said (one
            # written by an LLM or an earlier release): the change may be of another one too
            # ("存款到3.6万了" after "攒了2.3万", both folds ago).
        else:
            if theirs or not says or it.replaces:
                continue
            if says and it.section != _TASKS \
                    and (near := _only_near_amount(items, n, emptied, new, shape)) is not None:
                # "my landlord says rent goes up to €685 from May" after "I pay €640 warm,
                # that includes heating…": naming it otherwise, an amount raised or cut, or
                # said to be what holds now ("现在房租是£1,020"), is the one the speaker gave
                # in its currency near it, when there is only one.
                it.replaces = True
                changed_by_user.append((n, frozenset((near,)), frozenset(
                    v for v in new.values if _value_kind(v) == "number")))
                continue
            if says == 2 and _SWITCH.search(it.body) and not new.topic - {
                    w.lower() for w in _CAPITALISED.findall(it.body)} and _replace_the_only(
                    items, n, emptied, _HABIT, new.persons, shape, with_values=True):
                # "I switched to a Pixel 8" names nothing but what it switched to: it replaces
                # what the speaker said they use, when only one such statement is left.
                continue
            # "…private event earlier, so load-in is 4:15 now" names its thing otherwise than
            # "load in 5:30, doors 7" did: it changes the value said under the same label.
            # (In Chinese only after a plain word of change: a label there is a pair of
            # characters, and weaker words paired what a person would not; measured.)
            if not theirs and not anew and it.section != _TASKS \
                    and (says == 2 or ascii_) \
                    and (found := _changed_by_label(items, n, emptied, new, shape,
                                                    replies)) is not None:
                changed_by_user.append(found)
                continue
            if not new.topic and _DECIDED_AGAIN.search(it.body):
                # "Actually, let's use MySQL instead", "还是改用Vue吧": a decision taken back
                # names nothing but its new value; it replaces the speaker's one decision.
                _replace_the_only(items, n, emptied, _ANYTHING, new.persons, shape,
                                  with_values=True, section=_DECISIONS)
                continue
            if says == 2 and new.values and ascii_:
                # A value said plainly to have changed, of nothing still held ("the choir moved
                # rehearsals to Thursdays at 7:30 now", the old day folded away or said in words
                # no rule pairs): what holds now, worth a revision's weight twice over, as the
                # older statement's worth is not there to take. (Measured on the held-out probes:
                # the new value was most often what a fold let go, the old one kept. Not in
                # Chinese, where "降价了", "涨到…" run through every review: old facts went.)
                it.score += 2 * _REVISED_WEIGHT
    # What the assistant said of a value the user since changed ("$1,850 is on the lower end
    # for Somerville", "Noted, Oct 28 at 9am") speaks of what no longer holds, in its own words
    # or with the new value written in: it goes. (Not what a named participant said: a
    # friend's words are theirs, not the assistant's echo.)
    echoes = {k: _Shape(it.body).values for k, it in enumerate(items) if changed_by_user
              and _assistants(it) and it.tag.startswith(_ASSISTANT_TAGS)
              and it.section != _TASKS and not _is_tool_line(it.body)}
    for n, replaced, fresh in changed_by_user:
        for k, values in echoes.items():
            if k < n and id(items[k]) not in emptied \
                    and (held := values & (replaced | fresh)) and all(map(_marked, held)):
                emptied.add(id(items[k]))
    return [it for it in items if id(it) not in emptied] if emptied else items


def _changed_by_label(items: list[_Item], n: int, emptied: set[int], new: _Shape,
                      shape: Callable[[int], _Shape], replies: Mapping[int, str]
                      ) -> tuple[int, frozenset[str], frozenset[str]] | None:
    """Write the one new value of the change ``items[n]`` into the latest older statement of
    the speaker that gives a value of its kind under the same label, the words right beside
    it ("load in 5:30" … "load-in is 4:15 now"; "bus 27" … "she's on 112 now" "Okay, bus 112
    from the same stop"), the reply to either counting as its words; return what changed, as
    ``changed_by_user`` holds it, or None when no statement, or more than one value, pairs."""
    it = items[n]
    if "→" in it.body:
        return None  # (a question and its answer: the answer's words are the assistant's)
    answer = replies.get(it.msg + 1, "") if it.msg >= 0 else ""
    # (Not a name of several words, one value only as a whole: "Tomasz Wierzbicki"; nor a
    # lone Chinese numeral, a count or a word's part: "玩了一天".)
    runs = " ".join(m.group().lower() for m in _CAPITALISED_RUN.finditer(it.body))
    fresh = [(v, labels) for v in new.values - _years(new.values)
             if not _lone_numeral(v)
             and not (_value_kind(v) == "word" and re.search(rf"\b{re.escape(v)}\b", runs))
             and (labels := _labels(v, (it.body, answer)))]
    # What the change itself names (its clause of change, else all it says) the older statement
    # names too, or is the label: "Now the meeting is in room 310" is no change of "Room 204 is
    # my office"; "…she's on 112 now" names nothing.
    # (Chinese names its thing in many character pairs, most of them not the older one's.)
    latin = is_latin(it.body)
    clause = _change_clause_en(it.body) if latin else None
    named = (new.topic if clause is None else _Shape(clause).topic) if latin else frozenset()
    tag = _speaker_tag(it)
    kinds = {_value_kind(value) for value, _ in fresh}
    for k in range(n - 1, -1, -1) if fresh else ():
        old = items[k]
        if id(old) in emptied or _speaker_tag(old) != tag or _assistants(old) \
                or old.section == _TASKS or _is_tool_line(old.body):
            continue
        was, said = shape(k), (old.body, replies.get(old.msg + 1, "") if old.msg >= 0 else "")
        if (was.persons and new.persons and not was.persons & new.persons) \
                or (was.persons and not new.persons and new.own and not new.pronoun) \
                or (new.persons and not was.persons and was.own):
            continue  # (whose it is: "My sister lives in Boston" … "Now I live in Chicago")
        # (each older value's label read once, of the kinds the change gives)
        beside = {v: _labels(v, said) for v in was.values - new.values if _value_kind(v) in kinds}
        pairs = [(v, value) for value, labels in fresh if value not in was.values
                 and 3 * sum(not any(p in labels or _in(p, was.topic) for p in w.split("-") if p)
                             for w in named) <= len(named)
                 for v, its in beside.items() if _value_kind(v) == _value_kind(value)
                 and its & labels]
        if not pairs:
            continue
        if len(pairs) > 1:
            # (of two numbers under one label, the one near the old: "砍了5000 卖家答应9.3万")
            pairs = [p for p in pairs if _value_kind(p[0]) != "number" or _near_amount(*p)]
        # (Units, when both give one, must agree: "30 mins" is no "45 kg".)
        if len(pairs) != 1 or (was.units and new.units and not was.units & new.units) \
                or _put_value(old, frozenset(pairs[0][:1]), frozenset(pairs[0][1:]),
                              it.body, (was.units, new.units)) is None:
            return None
        # (Each keeps its own score: a change found by its label is no revision asked for
        # again, and weighing it up cost other kinds their room; measured.)
        it.replaces = True
        return n, frozenset(pairs[0][:1]), frozenset(pairs[0][1:])
    return None


def _years(values: frozenset[str]) -> frozenset[str]:
    """The years among ``values`` ("2025"): a when, no label's value."""
    return frozenset(v for v in values if _YEAR.fullmatch(v))


def _labels(value: str, texts: Sequence[str]) -> frozenset[str]:
    """The words said right beside ``value`` (two a side, within its clause) wherever one of
    ``texts`` writes it: what the value is of. Words that measure anything ("a month", "per
    hour") are no label."""
    out: set[str] = set()
    for text in texts:
        latin = is_latin(text)
        body = _in_digits(text) if latin else _arabic(text)
        m = _written(value, body)
        if m is None:
            continue
        if latin:
            left = _LABEL_BREAK.split(body[max(0, m.start() - 40):m.start()])[-1]
            right = _LABEL_BREAK.split(body[m.end():m.end() + 40])[0]
            words = _LABEL_WORD.findall(left)[-2:] + _LABEL_WORD.findall(right)[:2]
            out |= content_tokens(" ".join(words).replace("-", " "))
        else:
            left = _ZH_CLAUSE_BREAK.split(body[max(0, m.start() - 6):m.start()])[-1]
            right = _ZH_CLAUSE_BREAK.split(body[m.end():m.end() + 3])[0]
            out |= {w for w in content_tokens(left) | content_tokens(right)
                    if not _NOT_LABEL_ZH.intersection(w)}
    return frozenset(out) - _NOT_LABEL - _CUE_TOKENS


# (Chinese pairs with who or where-to in them, "们去", "我这", no label of a thing.)
_NOT_LABEL_ZH = frozenset("我你他她它们这那去来")
_LABEL_BREAK = re.compile(r"[.!?;:,()\n]\s|[;!?()\n]")
_LABEL_WORD = re.compile(r"[A-Za-z][\w'-]*")
_NOT_LABEL = content_tokens(
    "month monthly week weekly hour hourly minute year yearly time times price cost total "
    "amount number each every about around still just really actually maybe probably think "
    "thing things today tomorrow tonight morning evening night okay sure great "
    "每月 每个月 一个月 个月 每天 一天 每晚 一晚 每周 一周 每年 一年 每次 一次 "
    "小时 分钟 左右 大概 现在 目前 已经 差不多"
)


# A value put right as it is said: "oops no, it's KLM 4892", "wait no sorry, I transposed it,
# it's UA 828", "it's Anneke, not Annika", "啊打错了，是陈皓", "不对，是京N7A391".
_PUT_RIGHT = re.compile(
    r"(?i:\b(?:no wait|wait,? no|oops|whoops|my bad|transposed|typo|mistyped|misspelled"
    r"|autocorrect|i meant|correction|corrected|swapped the digits|should be|it'?s actually"
    r"|actually it'?s|sorry"
    r"|misread|wrong (?:one|line|number|code))\b"
    r"|\bnot [A-Z0-9][\w-]*)"
    r"|说错|打错|写错|记错|记岔|看错|抄错|输错|填错|搞错|弄错|搞反|弄反|说反|写反|记反|看反"
    r"|不对|应该是|更正|纠正"
    # What a value taken back left ("啊不对，打错了，是沪A7K329" keeps "是沪A7K329").
    r"|^是(?=[^，。！？]{2,})"
)


def _only_near_amount(items: list[_Item], n: int, emptied: set[int], new: _Shape,
                      shape: Callable[[int], _Shape]) -> str | None:
    """Take out of the one older statement of the same speaker that gives an amount of money
    near the one ``items[n]`` gives, in its currency, that amount (the change says the new
    one), and return it; None, nothing changed, when there is not exactly one."""
    it = items[n]
    if it.msg < 0:
        # (Carried in the summary, both were kept side by side by the fold that said the
        # later one: a near amount alone, no shared label, was no change of the other then.)
        return None
    fresh = [(v, unit) for v in new.values if _value_kind(v) == "number"
             and (unit := _unit_of(v, it.body)) in _MONEY_UNITS]
    if len(fresh) != 1 or new.persons - new.reporters or new.pronoun:
        return None  # (someone else's: "My sister can stretch her budget to $1,100")
    (amount, unit), tag = fresh[0], _speaker_tag(it)
    found = [(old, v) for k, old in enumerate(items[:n])
             if id(old) not in emptied and _speaker_tag(old) == tag and not _assistants(old)
             and old.section != _TASKS and not _is_tool_line(old.body)
             and _MONEY_SIGN.search(old.body) and not shape(k).persons
             for v in shape(k).values
             if v != amount and _value_kind(v) == "number" and _near_amount(v, amount)
             and _unit_of(v, old.body) == unit]
    if len(found) != 1:
        return None
    old, was = found[0]
    _take_out(old, frozenset(), frozenset((was,)))
    if not old.body:
        emptied.add(id(old))
    it.score = max(it.score, old.score) + _REVISED_WEIGHT
    return was


# (a statement with no amount of money in it is not asked)
_MONEY_SIGN = re.compile(r"[$€£¥元块]|\d[kK]\b")


def _unit_of(value: str, text: str) -> str:
    """The currency or unit a number ``value`` is first written with in ``text``: "$", "块",
    "%"; "" when none."""
    m = re.search(rf"([$€£¥])?\s?(?<![\d.,]){re.escape(value)}(?![\d.,]\d)"
                  r"(\s?[%％]|[a-zA-Z]+\b|[\u4e00-\u9fff])?", text)
    return "" if m is None else (m.group(1) or m.group(2) or "").strip().lower()


def _renamed(said: str, was_said: str, new: frozenset[str], was: frozenset[str]
             ) -> tuple[frozenset[str], frozenset[str]] | None:
    """The old and new names when both statements name a thing by the same head name and a
    different second one ("Project Halibut" / "Project Cormorant"); else None."""
    heads = {m.group(1).lower(): m.group(2).lower() for m in _HEADED.finditer(said)
             if m.group(2).lower() in new}
    for m in _HEADED.finditer(was_said):
        head, name = m.group(1).lower(), m.group(2).lower()
        if m.group(1) in TITLES and not _HOLDER_OF_ROLE.search(was_said, 0, m.start()):
            # A title names a person, renamed only as the holder of a role ("my son's dentist
            # is Dr. Okafor", "My GP, Dr. Lindqvist"): "a session with Dr. Okafor" is not
            # "Dr. Abernathy" because a primary care doc is.
            continue
        if head in heads and heads[head] != name and name in was and head in new & was:
            return frozenset((name,)), frozenset((heads[head],))
    return None


_HEADED = re.compile(r"\b([A-Z][a-z]+)\.? ([A-Z][a-z]{2,})\b")
_HOLDER_OF_ROLE = re.compile(r"(?:\b(?:is|was|are)|,)\s+$")


_THAT_ONE = re.compile(r"(?i:\bthat (?:flight|train|booking|reservation|appointment|one)\b)"
                       r"|那(?:趟|班|个|家|辆|间|次)")


# A change of what was just spoken of: "dropped it to $395", "bumped them up to $12".
_IT_TO = re.compile(r"(?i)\b(?:it|that|them)\s+(?:(?:down|up|back)\s+)?(?:to|at)\b")


def _lead_in(items: list[_Item], n: int, shape: Callable[[int], _Shape]) -> _Shape | None:
    """The sentence just before ``items[n]`` in its message, by the same speaker, when it says
    a change and gives no value of its own ("They sent a revised quote." before "New total is
    $3,640."); else None."""
    it = items[n]
    if it.msg < 0 or n == 0:
        return None
    k = n - 1
    lead = items[k]
    if lead.msg != it.msg or lead.order != it.order - 1 or _speaker_tag(lead) != \
            _speaker_tag(it) or not _has(lead.body, _CHANGE_KEYS) or _is_question(lead.body):
        return None
    was = shape(k)
    # (A name is no value it changes to: "…he'd left out the Schluter membrane.")
    return was if was.topic and not _DIGITS.search(" ".join(was.values)) \
        and _CHANGE.search(lead.body) else None


def _speaks_of(was: _Shape, new: _Shape, strict: bool, of_anyone: bool,
               also: tuple[_Shape, ...]) -> bool:
    """Whether a change (``new``, or a shape of it in ``also``) speaks of what ``was`` said."""
    return _same_thing(new, was, strict, of_anyone=of_anyone) \
        or any(_same_thing(x, was, strict, of_anyone=of_anyone) for x in also)


def _near_miss(old: str, new: str) -> bool:
    """True when ``new`` is ``old`` with a slip put right: the same characters in another order
    ("4829" / "4892", "UA882" / "UA828"), or one or two letters changed in a longer word
    ("annika" / "anneke"); both of one kind (digits, letters). A month or weekday is no slip
    of a name, nor a name of it ("March" / "Marsh")."""
    if old == new or min(len(old), len(new)) < 3 or old.isdigit() != new.isdigit():
        return False
    if _calendar_word(old) != _calendar_word(new):
        return False
    if "." in old and "." in new and not old[:1].isdigit():
        # Another host of the same domain: "test.yunqiao.cn" put right as "qa.yunqiao.cn".
        return old.split(".", 1)[1] == new.split(".", 1)[1] and "." in old.split(".", 1)[1]
    if len(old) == len(new) and sorted(old) == sorted(new):
        return True
    if old[:-1] == new[:-1] and old[:-1].isdigit() and old[-1:].isalpha() and new[-1:].isalpha():
        return True  # another letter of the same row or floor: seat "31C" put right as "31A"
    if abs(len(old) - len(new)) > 1 or min(len(old), len(new)) < 5:
        return False
    # Edit distance at most 2 (rows of the usual table; the words are short).
    prev = list(range(len(new) + 1))
    for i, a in enumerate(old, 1):
        row = [i]
        for j, b in enumerate(new, 1):
            row.append(min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a != b)))
        prev = row
    return prev[-1] <= 2


def _calendar_word(value: str) -> bool:
    return value.lower() in _MONTHS or _WEEKDAY_VALUE.fullmatch(value.lower()) is not None


def correct_slips(items: list[_Item]) -> None:
    """Put right, in the older statements (items oldest first), each value the user corrects
    ("oops no, it's KLM 4892", "啊打错了，是陈皓"): the value said wrong, a near miss of the
    new one, becomes the new one wherever it was said ("my plate is KLM 4829", the assistant's
    "Got it, KLM 4829."). A correction need not name what it corrects: the slip is found by
    its shape."""
    seen: dict[int, tuple[str, frozenset[str]]] = {}
    for n, it in enumerate(items):
        if _assistants(it) or not (_PUT_RIGHT.search(it.body) or _put_right_before(items, n)):
            continue
        body = _NEGATED_VALUE.sub(" ", it.body)
        fixed = {v.rstrip(".,:/-"): v.rstrip(".,:/-") for v in sorted(_values(body)[0])}
        for v in list(fixed):
            found = re.search(re.escape(v), body, re.IGNORECASE)
            if found is not None:
                fixed[v] = found.group()
        # A value said before the correction names a known thing ("slight correction on Marsh
        # Lane: … Marta's asked for another set"): it puts no near miss of it right, unless the
        # correction says which value is wrong ("不是8.6 是6.8万").
        known = [] if body != it.body else [
            v for v in fixed if any(_token_in(v, old.body) for old in items[:n])]
        names = _ZH_FIXED.findall(body) if not is_latin(body) else []
        if not fixed and not names:
            continue
        # "no its 10x12 remember, not 8x10": the value denied is the slip, whatever its shape,
        # when one value of its kind is said for it.
        denied: dict[str, str] = {}
        if is_latin(it.body) and not _CHANGE.search(it.body):  # (a change is no slip)
            for m in _NEGATED_VALUE.finditer(it.body):
                for d in _values(m.group()[4:])[0]:
                    d = d.rstrip(".,:/-")
                    meant = [f for f in fixed if _value_kind(f) == _value_kind(d) != "word"]
                    if _marked(d) and len(meant) == 1 and not _near_miss(d, meant[0]):
                        denied[d] = fixed[meant[0]]
        for k, old in enumerate(items[:n]):
            said = seen.get(k)
            if said is None or said[0] != old.body:  # each body's values are read once
                said = seen[k] = (old.body, _values(old.body)[0])
            for v in sorted(said[1]):
                v = v.rstrip(".,:/-")
                near = [f for f in fixed if _near_miss(v, f) and f not in known]
                # Near two values said right, or beside the one said right ("Marsh Lane on 9
                # March"), a value is another thing, not a slip.
                if len(near) == 1 and not _token_in(fixed[near[0]], old.body):
                    old.body = _put_token(old.body, v, fixed[near[0]])
            for d, right in denied.items():
                if d in said[1]:
                    old.body = _put_token(old.body, d, right)
            for name in names:
                slip = re.compile(re.escape(name[0]) + "[\u4e00-\u9fff]" * (len(name) - 1))
                old.body = slip.sub(partial(_put_right, name), old.body)


def _put_right_before(items: list[_Item], n: int) -> bool:
    """Whether the sentence before ``items[n]``, in the same message, says a slip is put right
    and gives no number of its own: "small correction, the date I gave you was a typo, I
    swapped the digits." before "it's Oct 21."."""
    it = items[n]
    if it.msg < 0 or n == 0:
        return False
    prev = items[n - 1]
    return prev.msg == it.msg and prev.order == it.order - 1 and not _assistants(prev) \
        and _PUT_RIGHT.search(prev.body) is not None and not _DIGITS.search(prev.body)


def _token(value: str) -> str:
    return rf"(?<![A-Za-z0-9]){re.escape(value)}(?![A-Za-z0-9])"


def _token_in(value: str, body: str) -> bool:
    """Whether ``value`` stands in ``body`` as a whole token."""
    return re.search(_token(value), body, re.IGNORECASE) is not None


def _put_token(body: str, slip: str, meant: str) -> str:
    """``body`` with ``slip``, wherever it stands as a whole token, written as ``meant``."""
    return re.sub(_token(slip), meant.replace("\\", "\\\\"), body, flags=re.IGNORECASE)


def _put_right(meant: str, m: re.Match[str]) -> str:
    return meant if _one_off(m.group(), meant) else m.group()


def _one_off(said: str, meant: str) -> bool:
    """A Chinese name with one character other than meant ("陈浩" / "陈皓"), surname kept."""
    return len(said) == len(meant) and said[0] == meant[0] and sum(
        a != b for a, b in zip(said, meant, strict=True)) == 1


# "是陈皓", "叫林悦": the name put right; a run of two or three Chinese characters of a surname.
_ZH_FIXED = re.compile(rf"(?:是|叫|为)\s*([{_SURNAMES}][\u4e00-\u9fff]{{1,2}})(?=[，,。！？\s]|$)")


# "it's Anneke, not Annika": the value said not to be is not the new one.
_NEGATED_VALUE = re.compile(r"(?i:\bnot [A-Z0-9][\w-]*(?:[:.,/]\d[\w-]*)*"
                            r"(?:(?<=[A-Za-z]) \d[\w-]*(?:[:.,/]\d[\w-]*)*)?)"
                            r"|不是(?:[^，。！？,.!?\s]|\.(?=\d)){1,8}")


def _change_clause(body: str) -> str | None:
    """The one clause of ``body`` that says a change and gives a value, else None."""
    split = _ZH_CLAUSE_MARK.split if _is_tool_line(body) else _ZH_CLAUSE.split
    def valued(c: str) -> bool:  # "推迟到下周一上午十点", "改发到「运营周报」群"
        return bool(_DIGITS.search(c) or _DIGITS.search(_arabic(c)) or _ZH_QUOTED.search(c)
                    or _when(_values(c)[0]))

    clauses = split(body)
    found = _the_one_clause(clauses, valued)
    if found is None:
        # "…人难找，护工费涨了，一天320元，唉": the change said, then its one value.
        given = [k for k, c in enumerate(clauses) if valued(c)]
        if len(given) == 1 and given[0] > 0 and _CHANGE.search(
                joined := f"{clauses[given[0] - 1]}，{clauses[given[0]]}"):
            found = joined
    return found


def _the_one_clause(clauses: list[str], valued: Callable[[str], bool]) -> str | None:
    """The one of ``clauses`` that says a change and gives a value (``valued``); else, when
    none says a change, the one that says what holds now ("现在一个月4500了", "定下来是22桌",
    "set a new password: cedar-heron-77"); None when there are several."""
    for cue in (_CHANGE, _WEAK_CHANGE):
        found = [c for c in clauses if cue.search(c) and valued(c)]
        if found:
            return found[0] if len(found) == 1 else None
    return None



_ZH_CLAUSE_MARK = re.compile(r"[，；;。！？!?]|,(?!\d{3})")
# (A space between Chinese and a Latin word breaks a clause as typed on a phone: "…没人看
# webhook改推到新建的「P0告警群」"; not one before a number, "调到 1500 QPS", nor in a tool's line.)
_ZH_CLAUSE = re.compile(rf"{_ZH_CLAUSE_MARK.pattern}|(?<=[\u4e00-\u9fff])\s+(?=[A-Za-z])"
                        r"|(?<=[A-Za-z])\s+(?=[\u4e00-\u9fff])")
_EN_CLAUSE = re.compile(r"[;!?]|,(?!\d{3})|\.(?:\s|$)|:\s"
                        r"|\s(?:and|but|so|then|because|since|although|though|while)\s")


def _change_clause_en(body: str) -> str | None:
    """The one clause of an English ``body`` that says a change and gives a value (a number, a
    name: "so my manager is now Oluwaseun Baptiste"), when the sentence has more than one
    clause, else None."""
    if not is_latin(body):
        return None
    clauses: list[str] = []
    for c in _EN_CLAUSE.split(body):
        if c and c.strip():
            if clauses and " " not in c.strip(" .!") and _values(c)[0]:
                clauses[-1] += " " + c  # a value alone goes with what it is the value of:
                continue                # "I set a new password: cedar-heron-77"
            clauses.append(c)
    def valued(c: str) -> bool:
        return bool(_DIGITS.search(c) or _values(c)[0])

    found = _the_one_clause(clauses, valued)
    if found is None:
        # "the committee meeting got moved so she needs it by March 18 after all": the change
        # said without a value, then the value of what it changed, by a pronoun.
        given = [k for k, c in enumerate(clauses) if valued(c)]
        if len(given) == 1 and given[0] > 0 and _POINTED.search(clauses[given[0]]) \
                and _CHANGE.search(clauses[given[0] - 1]):
            found = clauses[given[0]]
    return found if len(clauses) > 1 else None


_POINTED = re.compile(r"(?i)\b(?:it|that|them)\b")


# An amount raised or cut to a number said without its unit: "涨到七千三", "降到5200".
_RISE_OR_CUT = re.compile(
    r"(?:涨到|升到|加到|降到|减到|砍到|压到|调到|调整到|(?<=最后)|(?<=最终))(\d{3,}(?:\.\d+)?)"
    r"(?![\d.:/%-])")
_BARE_NUMBER = re.compile(r"(?<![\d.:/-])\d{3,}(?:\.\d+)?(?![\d.:/%-])")
# (not money, nor a rate: "90平", not "6800元", "5600一个月")
_MEASURED = re.compile(r"\s?(?:[A-Za-z]|(?![元块]|一个?月|每)[\u4e00-\u9fff])")


_PARTICLES = frozenset("了啦吧呢啊的嘛")


def _bare_rise(body: str) -> str:
    """The number a Chinese statement raises or cuts an amount to without naming its unit
    ("涨到七千三" → "7300"), else ""."""
    text = _arabic(body)
    # (A particle after it is no unit: "涨到4200了".)
    # (Nor is a deal struck: "最后5300成交".)
    found = [m for m in _RISE_OR_CUT.finditer(text)
             if _UNIT.match(text, m.start(1)) is None or text[m.end(1):m.end(1) + 1] in _PARTICLES
             or text.startswith("成交", m.end(1))]
    return found[0].group(1) if len(found) == 1 else ""


def _bare_amount(old: str, to: str) -> str:
    """The one number of ``old`` said without a unit (or in money: "6800元") and within a
    factor of two of ``to`` (the amount it was raised or cut to), else ""."""
    if not to:
        return ""
    found = set()
    for part in _CLAUSE_SPLIT.split(_arabic(old))[::2]:
        for m in _BARE_NUMBER.finditer(part):
            if _MEASURED.match(part, m.end()) is not None:
                continue  # "90平", "35公斤": a number with its unit measures something named
            said = float(m.group())  # "000" is a number too, and nothing is twice it
            if m.group() != to and said > 0 and 0.5 <= float(to) / said <= 2:
                found.add(m.group())
    return found.pop() if len(found) == 1 else ""


def _replace_the_only(items: list[_Item], n: int, emptied: set[int], kind: re.Pattern[str],
                      persons: frozenset[str], shape: Callable[[int], _Shape], *,
                      with_values: bool = False, section: int | None = None,
                      sharing: frozenset[str] | None = None) -> bool:
    """Let ``items[n]`` replace the one earlier statement of ``kind`` by its speaker, about
    the same people (and holding a value, ``with_values``); when several are of that kind,
    which one it changes is not said, and none is replaced."""
    it = items[n]
    found = [k for k in range(n) if id(items[k]) not in emptied and items[k].tag == it.tag
             and items[k].role != "assistant" and kind.search(items[k].body) is not None
             and (not with_values or bool(shape(k).values)) and shape(k).persons == persons
             and (section is None or items[k].section == section)
             and (sharing is None or bool(shape(k).topic & sharing))]
    if len(found) != 1:
        return False
    emptied.add(id(items[found[0]]))
    it.score = max(it.score, items[found[0]].score)
    it.replaces = True
    return True


_ANYTHING = re.compile("")
_DECIDED_AGAIN = re.compile(r"(?i:\b(?:let's|let us|go with|going with|instead)\b)|改用|换用|还是")
_ASKS_TO_DO = re.compile(r"(?i:(?:can|could|would|will) you|please)|帮我|麻烦|请")
_FAVOURITE = re.compile(r"(?i:\bfavou?rite\b|\blike (?:\w+ ){1,3}(?:the )?best\b)|最喜欢|最爱")
# A favourite that names what it is a favourite of: "my favourite colour is", "最喜欢的颜色是".
_FAVOURITE_OF = re.compile(
    r"(?i:\bfavou?rite \w+(?: \w+)? (?:is|are)\b)|最(?:喜欢|爱)的[\u4e00-\u9fff]{1,5}?是")
_CAPITALISED = re.compile(r"[A-Z][A-Za-z]+")  # a brand, a model: "换成Pixel 8" names "Pixel"
_SWITCH = re.compile(r"(?i:\bswitch(?:ed)? (?:over )?to\b|\bchanged to\b)|换成|换了|改用|换到"
                     r"|转网到|转到")
# Using something else now, said by its verb: "现在开比亚迪海豹", "现在用的是华为".
_NOW_USING_ZH = re.compile(r"(?:现在|如今|目前)(?:改|换)?(?:成)?(?:在)?(?P<v>开|用)(?:的是)?")
_HABIT_OF = {"开": re.compile(r"我(?:们)?(?:现在)?开"),
             "用": re.compile(r"我(?:们)?(?:现在)?(?:在)?用")}
# What someone uses or has, which a bare switch replaces: "I use an iPhone 12", "我开的是思域".
_HABIT = re.compile(r"(?i:\b(?:i|we) (?:use|drive|own|have|run|'m on|am on)\b)"
                    r"|我(?:们)?(?:现在)?(?:用的是|用|开的是|开|在用)")


# A state that ended: "I sold the Corolla", "I quit my job at Google", "不喝咖啡了".
_ENDED = re.compile(
    # A state the speaker was in: "I'm not vegetarian anymore", "I'm no longer a member".
    r"(?i:\b(?:i'm|i am|we're|we are) (?:no longer (?:a |an )?(?P<state>[a-z-]{4,})"
    r"|not (?:a |an )?(?P<was>[a-z-]{4,}) any ?more))"
    # A state found never to have held: "Turns out I'm not allergic to peanuts after all" ends
    # "I'm allergic to peanuts", and nothing else the speaker is allergic to.
    r"|(?i:\b(?:turns out|turned out),? (?:i'm|i am|we're|we are) not (?!sure)(?P<pred>[a-z-]{4,}"
    r"(?: (?:to|of|with|about|for|in) [a-z-]{3,})?)"
    r"|\b(?:i'm|i am|we're|we are) not (?!sure)(?P<pred2>[a-z-]{4,}(?: (?:to|of|with|about|for|in)"
    r" [a-z-]{3,})?) after all)"
    r"|(?i:\b(?:sold|quit|resigned from|no longer|gave up|broke up with|divorced|moved out of"
    r"|cancell?ed (?:my |the |our )?(?=[A-Z])"
    r"|(?:don't|do not|doesn't|does not) \w+(?: \w+)? any ?more)\b)"
    # Where the speaker left: "我已经从阿里巴巴离职了".
    r"|从(?P<org>[\u4e00-\u9fffA-Za-z0-9]{2,10}?)(?:离职|辞职|退休|毕业|搬走|搬出来)"
    # A thing of the speaker's sold, someone gone: "朗逸卖了，换了辆比亚迪汉", "老王调走了".
    r"|(?P<sold>[\u4e00-\u9fffA-Za-z0-9]{2,8}?)(?:卖了|卖掉了|出掉了)"
    r"|(?<![\u4e00-\u9fff])(?!我)(?P<gone>[\u4e00-\u9fff]{2,3}?)(?:调走了|离职了|辞职了|退休了)"
    r"|不再|卖了|辞职|离职|戒了|分手|不(?P<verb>[喝吃玩用住养开去做])(?P<obj>[\u4e00-\u9fff]{1,4}?)了"
)


def _any_of(named: frozenset[str]) -> re.Pattern[str]:
    """Any of ``named``, a Latin one as a whole word ("member" is not in "remember")."""
    alts = (rf"(?<![a-z]){re.escape(w)}(?![a-z])" if is_latin(w) else re.escape(w)
            for w in sorted(named))
    return re.compile("|".join(alts), re.I)


# What comes before the thing sold: "我把那台朗逸卖了" sold "朗逸".
_SOLD_LEAD = re.compile(r"^.*(?:把|那台|那辆|这台|这辆|那部|我的|之前的|原来的)")


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
        left = (ended.group("state") or ended.group("was") or ended.group("org")
                or ended.group("pred") or ended.group("pred2") or ended.group("gone")
                or _SOLD_LEAD.sub("", ended.group("sold") or ""))
        if ended.group("obj"):
            what = content_tokens(ended.group("verb") + ended.group("obj")) | {ended.group("obj")}
            named = frozenset(w for w in what if len(w) >= 2)
        elif left:
            named = frozenset({left.lower()})
        else:
            named = frozenset(v for v in _values(it.body)[0] if not v[:1].isdigit())
        if not named:
            continue
        names = _any_of(named)
        whose = _whose(it.body)
        for old in items[:n]:
            if id(old) in emptied or old.tag != it.tag or old.role == "assistant":
                continue
            if not names.search(old.body) or _whose(old.body) != whose:
                continue  # not said, or said of someone else ("my sister is vegetarian")
            parts = _CLAUSE_SPLIT.split(old.body)
            removed = {i // 2 for i in range(0, len(parts), 2) if names.search(parts[i])}
            old.body = "" if len(removed) == (len(parts) + 1) // 2 \
                else _without_clauses(parts, removed, {})
            if not content_tokens(old.body):
                old.body = ""  # ("…一辆大众朗逸，白色的" without the car: nothing left to say)
                emptied.add(id(old))
    return [it for it in items if id(it) not in emptied] if emptied else items


# What frames an instruction, not what it is about ("always", "以后", "请").
_FRAME = content_tokens(
    "always never whenever possible from now on going forward future please actually instead "
    "rather anymore longer change switch 以后 今后 每次 一律 还是 还用 请 不要再 别再 改 换")
# An instruction that says it takes an earlier one back. "From now on" opens most first
# instructions too, so it is no sign of change here.
_TAKES_BACK = re.compile(
    r"(?i:\b(?:actually|instead|anymore|any more|no longer|change|switch)\b)"
    r"|还是|改|换|不要再|别再|不用再")


def replace_instructions(items: list[_Item]) -> list[_Item]:
    """Let a later instruction of the user that takes an earlier one back ("Actually, answer in
    imperial units", "以后还是用英文回复我吧") replace the latest earlier instruction on the same
    thing: they share two fifths of the shorter one's words (the framing words left out; a
    Chinese value adds several character pairs), and each says something the other does not.
    Instructions hold no values the way "my budget is $500" does, so ``supersede_changes``
    cannot see that "metric" became "imperial"."""
    emptied: set[int] = set()
    for n, it in enumerate(items):
        if it.section != _PREFS or _assistants(it) or not _TAKES_BACK.search(it.body) \
                or not _is_standing_ask(it.body):
            continue
        new = _topic(it.body) - _FRAME
        for old in reversed(items[:n]):
            if id(old) in emptied or old.tag != it.tag or old.section != _PREFS \
                    or _assistants(old) or not _is_standing_ask(old.body):
                continue
            was = _topic(old.body) - _FRAME
            shared = len(new & was)
            if shared and 5 * shared >= 2 * min(len(new), len(was)) and new - was and was - new:
                emptied.add(id(old))
                it.score = max(it.score, old.score)
                it.replaces = True
                break
    return [it for it in items if id(it) not in emptied] if emptied else items


# The user's turn that says how an open value was settled, without a word of change:
# "NEGOTIATED!!! 3,950 a month", "we landed on 18.25", "we're capping it at 31 grand", "all
# conferences got pushed back a week, so it's Oct 16", "ugh I misread the email. it's 91.50";
# "最后谈下来…", "定了…", "update: …". It changes only what the user said just before (see
# _NEAR).
_SETTLED = re.compile(
    r"(?i:\b(?:negotiated|landed on|settled on|agreed on|we agreed|locked in|finali[sz]ed"
    r"|capp(?:ing|ed) (?:[\w']+ ){0,4}?at|ended up (?:at|with|paying|getting|going with)"
    r"|came (?:out |in )?to|talked (?:[\w']+ ){0,3}?down to|knocked (?:[\w']+ ){0,2}?(?:off|down)"
    r"|pushed (?:it |them |everything )?back|moved (?:it |them )?up|(?:have|has) until"
    r"|misread|misremembered|the real (?:number|price|date|time) is"
    r"|final (?:[\w']+ ){0,2}?(?:is|was|came to))\b)"
    # A turn that opens as an update: "update from their office manager: … plan for 40".
    r"|(?i:^(?:quick |small |one more |an? )?(?:update|change of plans?)(?: from [^:：\n]{1,40})?"
    r"\s*[:：—-])"
    r"|最后|最终|敲定|谈妥|谈下来|谈到|定下来|定了|说好了|讲好了|看错了|记岔了"
    # A later deadline allowed: "张老师说可以晚点，6月19号前交就行".
    r"|可以晚点|可以晚几天|宽限|(?:前|之前)(?:交|给|弄完|做完|到)?就(?:行|可以)"
)
_SETTLED_KEYS = (
    "negotiat", "landed", "settled", "agreed", "locked", "finali", "capp", "ended up", "came",
    "down to", "knocked", "pushed", "moved", "until", "misre", "real", "final", "update",
    "change of plan",
    "最后", "最终", "敲定", "谈", "定", "说好", "讲好", "看错", "记岔", "晚", "宽限", "就",
)


def _settler(body: str, said: _Shape) -> frozenset[str]:
    """Whose value a settled statement gives: the persons its value's clause names ("my parents
    and I talked it through, we're capping it at 44 grand" gives the speaker's)."""
    parts = _CLAUSE_SPLIT.split(body)[::2]
    holding = [p for p in parts
               if any(_written(v, p if is_latin(p) else _arabic(p)) or _written_short(v, p)
                      for v in said.values)]
    return _whose(" ".join(holding)) if holding else said.persons


def says_settled(text: str) -> bool:
    """Whether a user message says a value was settled or misread; every statement of it may
    give the settled value ("NEGOTIATED!!! 3,950 a month", "ugh wait I misread the email. it's
    91.50 per case")."""
    # (keys first, by substring: one regex of them all was most of the cost)
    return _has(text, _SETTLED_KEYS) and _SETTLED.search(text) is not None


_REWRITTEN_EDGE = 0.01
# A revised value is worth what stating a value is worth to the user, once more.
_REVISED_WEIGHT = _VALUE_WEIGHT * USER_FACTOR
_NEAR = 3  # messages: a statement, the reply to it, the user's next turn or two
_BACK_REFERENCE = re.compile(
    r"(?i:(?:[\w']+[,!]?\s+){0,3}?(?:he|she|it|they|his|her|its|their|it's|they're|that's"
    # "actually make that 75": the number just said, changed.
    r"|make (?:it|that))\b)"
    r"|[^，。！？]{0,6}?(?:他|她|它|那班|那个|那家)")


_OWN_DAY = re.compile(r"\d{1,2}(?:st|nd|rd|th|[日号])")
_LAST_NUMBER = re.compile(r"(\d+)\D*$")


def _day(value: str) -> str:
    m = _LAST_NUMBER.search(value)
    return m.group(1) if m else ""


def _named_when(new: frozenset[str], was: frozenset[str], denied: frozenset[str] = frozenset()
                ) -> tuple[frozenset[str], frozenset[str]] | None:
    """The old dates and times a change names ("can't make the 14th" of "March 14", "not 3:30
    anymore" of "3:30") and the values it gives besides them; None when it names none. Another
    value, a day of the week or a name, said of many things, names one only when ``denied``
    ("isn't Thursday anymore", "the venue's not the Grange anymore")."""
    named: set[str] = set()
    stale: set[str] = set()
    for v in new:
        kind = _value_kind(v)
        if kind not in ("date", "time") and v not in denied:
            continue
        for o in was:
            same_day = _OWN_DAY.fullmatch(v) is not None and _value_kind(o) == "date" \
                and _day(o) == _day(v)
            if o == v or same_day:
                named.add(v)
                stale.add(o)
    fresh = new - named - was
    return (frozenset(stale), fresh) if stale and fresh else None


def _put_value(old: _Item, stale: frozenset[str], fresh: frozenset[str], said: str,
               units: tuple[frozenset[str], frozenset[str]] | None = None,
               named: bool = False) -> tuple[str, str] | None:
    """Write into ``old`` the one value ``said`` gives instead of its one ``stale`` value of the
    same kind, as each is written; return the two. None, ``old`` unchanged, when they do not
    pair so, or when ``units`` (old and new, where nothing else said they speak of the same
    thing) show both count things and not the same things ("4 apples", "6 bananas"). A
    day of the week pairs with a date only when the change ``named`` that date ("30号排不开，
    改到下礼拜三了")."""
    if len(stale) > 1 and len(fresh) == 1:
        # "My GitHub handle is @quietfern" → "Renamed my account to fernwright": the handle.
        handles = [v for v in stale if f"@{v}" in old.body.lower()]
        if len(handles) == 1:
            stale = frozenset(handles)
    if len(fresh) > 1 and is_latin(said):
        # A name of several words is one value: "it's Holloway Barn" for "the Grange".
        for m in _CAPITALISED_RUN.finditer(said):
            if frozenset(m.group().lower().split()) == fresh:
                fresh = frozenset((m.group().lower(),))
                break
    pair = _pair(stale, fresh, near_only=units is not None, any_day=named)
    if pair is None or _percent(pair[0], old.body) != _percent(pair[1], said):
        return None  # (a share is no count: "a 20% service fee" / "Final headcount is 134")
    if (_currency(pair[0], old.body) and _counts(said, pair[1])) \
            or (_currency(pair[1], said) and _counts(old.body, pair[0])):
        return None  # (a price is no count: "31 members so far" / "we went to $7.50")
    if _value_kind(pair[1]) == "number" and units is not None and not units[0] & units[1] \
            and (all(units) or _far_amount(*pair)):
        # (The next turn's "ended up at 176.8" is no revision of "he is 8 years old".)
        return None
    return pair if _rewrite(old, pair, said, units is not None and bool(units[0] & units[1])) \
        else None


def _shares(values: frozenset[str], text: str) -> bool:
    """Whether every number among ``values`` is written as a percentage in ``text`` (and
    there is one)."""
    numbers = [v for v in values if v[:1].isdigit()]
    return bool(numbers) and all(_percent(v, text) for v in numbers)


def _percent(value: str, text: str) -> bool:
    """Whether ``value`` is written as a percentage in ``text``."""
    return value.endswith("%") or re.search(
        rf"(?<![\d.,]){re.escape(value)}\s?[%％]", text) is not None


_CAPITALISED_RUN = re.compile(r"\b[A-Z][\w'&-]*(?: [A-Z][\w'&-]*)+")


def _rewrite(old: _Item, pair: tuple[str, str], said: str, unit: bool) -> bool:
    """Write ``pair``'s new value, as ``said`` writes it, for its old value in ``old``."""
    # Values are normalised with Chinese numerals as digits ("两万三" → "23000"), so a Chinese
    # statement is searched in that form, and rewritten as written: "房租每月八千五，押一付三"
    # with "九千二" is "房租每月九千二，押一付三".
    body, back = (old.body, None) if is_latin(old.body) else _arabic_mapped(old.body)
    # "38k" … "capping it at 31 grand": the number is rewritten before its unit, when both
    # statements measure in the same unit.
    was = _written(pair[0], body, unit) or _written_short(pair[0], body)
    # (and a number said in words in digits: "make that seventy-five" writes "75")
    text, said_back = (_in_digits(said), None) if is_latin(said) else _arabic_mapped(said)
    now = _written(pair[1], text)
    new = None if now is None else now.group() if said_back is None \
        else said[said_back(now.start(), False):said_back(now.end(), True)]
    if now is None and (short := _written_short(pair[1], said)) is not None:
        # An amount said short is written as the older one was: "104k" for "$96,000" is
        # "$104,000"; "44 grand" for "48k", "44 grand".
        new = short.group() if was is not None and not was.group()[-1:].isdigit() else pair[1]
    if was is None or new is None:
        return False
    if (part := _PART_OF_DAY.search(pair[0])) and not _PART_OF_DAY.search(pair[1]) \
            and _value_kind(pair[0]) == "day":
        new += part.group()  # "周二下午三点" moved to "周四" is "周四下午三点"
    if back is None:
        old.body = body[:was.start()] + new + body[was.end():]
    else:
        start, end = back(was.start(), False), back(was.end(), True)
        if "万" in old.body[start:end] and "万" not in new and now is not None \
                and (said[said_back(now.end(), True):] if said_back else text[now.end():]
                     ).startswith("万"):
            new += "万"  # "9万5" (a run, 万 in it) for "11万": "11万", not "11"
        old.body = old.body[:start] + new + old.body[end:]
    return True


_PART_OF_DAY = re.compile(f"(?:{_PARTS_OF_DAY})$")


def _arabic_mapped(text: str) -> tuple[str, Callable[[int, bool], int] | None]:
    """``_arabic(text)`` and a map from its offsets back to ``text``'s (a number's run as a
    whole: an end inside "九千二" is its end), None when they cannot be mapped."""
    runs: list[tuple[int, int, int, int]] = []  # (text start, end, arabic start, end)
    out: list[str] = []
    last = size = 0
    for m in _ZH_RUN.finditer(text):
        digits = _run_digits(m)
        if digits == m.group():
            continue  # (no number: "周六两个人" is the weekday and a count, each as written)
        out.append(text[last:m.start()])
        size += m.start() - last
        runs.append((m.start(), m.end(), size, size + len(digits)))
        out.append(digits)
        size += len(digits)
        last = m.end()
    out.append(text[last:])
    arabic = "".join(out)
    if "半" in arabic and _AND_A_HALF.search(arabic):
        return _AND_A_HALF.sub(r"\1.5\2", arabic), None  # ("1片半" is "1.5片": no run for it)

    def back(at: int, end: bool) -> int:
        shift = 0
        for start, stop, a_start, a_stop in runs:
            if at < a_start or (end and at == a_start):
                break
            if at < a_stop or (not end and at == a_stop and a_start == a_stop):
                return stop if end else start
            shift = stop - a_stop
        return at + shift

    return arabic, back


def _lone_numeral(value: str) -> bool:
    return len(value) == 1 and value in ZH_NUMERALS


def _other_code(old: str, new: str) -> bool:
    """Whether both are codes of letters and digits of clearly other lengths: an order number
    ("JD7730415962") is no model ("KJ550")."""
    return _is_code(old) and _is_code(new) and abs(len(old) - len(new)) > 3


def _pair(stale: frozenset[str], fresh: frozenset[str],
          near_only: bool, any_day: bool = False) -> tuple[str, str] | None:
    """The old value and the new one that replaces it: the one new value and the one old value
    of its kind, or the one of them near it ("$17.50/hr, 30 hrs a week" … "we landed on
    18.25"). With ``near_only`` (the next turn, which need not name its thing), several new
    values may be said, when exactly one pair of numbers is near ("…谈下来4900，押一付三")."""
    if len(fresh) == 1:
        new = next(iter(fresh))
        kind = _value_kind(new)
        # (A lone Chinese numeral is a count, or a word's part: "一般" is no "G8633". With
        # ``any_day``, a day of the week is a date.)
        when = {"day": "date"} if any_day else {}
        # (An address or a version, "10.40.2.18", is no amount: "under $200" is not its new
        # value.)
        olds = [v for v in stale if when.get(k := _value_kind(v), k) == when.get(kind, kind)
                and _lone_numeral(v) == _lone_numeral(new) and not _other_code(v, new)
                and (_DOTTED.fullmatch(v) is None) == (_DOTTED.fullmatch(new) is None)]
        if len(olds) > 1 and kind == "number":
            olds = [v for v in olds if _near_amount(v, new)]
            if len(olds) > 1 and _READING.fullmatch(new):
                # "71.6公斤，身高172，目标先减到68" … "今天69.8": the reading, not the goal
                olds = [v for v in olds if _READING.fullmatch(v)]
        return (olds[0], new) if len(olds) == 1 else None
    if len(stale) == 1 and _value_kind(old := next(iter(stale))) in ("date", "day", "time"):
        # "…改到7月1号了" → "又改了 7月3号晚上十一点多的": the one new value of the old one's
        # kind.
        news = [v for v in fresh if _value_kind(v) == _value_kind(old)]
        if len(news) == 1:
            return old, news[0]
    if not near_only:
        return None
    pairs = [(a, b) for b in fresh for a in stale if _value_kind(a) == _value_kind(b) == "number"
             and _near_amount(a, b)]
    return pairs[0] if len(pairs) == 1 else None


_AMOUNT = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _two_amounts(old: str, new: str) -> tuple[float, float] | None:
    """The smaller and the larger of two values' first numbers, None when one has none."""
    a, b = _AMOUNT.search(old), _AMOUNT.search(new)
    if a is None or b is None:
        return None
    x, y = float(a.group().replace(",", "")), float(b.group().replace(",", ""))
    return min(x, y), max(x, y)


def _near_amount(old: str, new: str) -> bool:
    """Whether two numbers are within half of each other (4,200 and 3,950; not 30 and 18.25)."""
    pair = _two_amounts(old, new)
    return pair is not None and pair[0] > 0 and pair[1] <= 1.5 * pair[0]


def _far_amount(old: str, new: str) -> bool:
    """Whether two numbers are more than three times apart (8 and 176.8)."""
    pair = _two_amounts(old, new)
    return pair is not None and (pair[0] <= 0 or pair[1] > 3 * pair[0])


def _family(value: str) -> str:
    """``_value_kind``, with a date, a day and a time as one: when."""
    kind = _value_kind(value)
    return "when" if kind in ("date", "day", "time") else kind


def _value_kind(value: str) -> str:
    """date, day, time, number or word: what a normalised value is, to pair an old one with a
    new ("Fridays" is no new name for "Dave")."""
    if _DAY_VALUE.search(value) or (value in _MONTHS and len(value) > 3):
        return "date"  # (a month alone is no name: "26 September" is not "Sylvanian Families")
    if _WEEKDAY_VALUE.fullmatch(value):
        return "day"
    if _CLOCK.search(value) or "点" in value or _AM_PM.search(value):
        return "time"  # (not a ratio, "16:9的物理分辨率", nor a name, "Sam")
    if "@" in value[1:]:
        return "email"  # ("Set her email to m.dupont@proton.me" renames no "Dave")
    if value.isdigit() and len(value) >= 7:
        return "id"  # a phone or an account number, no amount: "新号139 5802 7713" is no rent
    if value[:1].isalpha() and _DIGITS.search(value):
        return "code"  # ("CHA2DS2-VASc" is no new name for "Toby")
    return "number" if value[:1].isdigit() or value[:1] in _CURRENCY_SIGNS else "word"


_DOTTED = re.compile(r"\d+(?:\.\d+){2,}")
_CLOCK = re.compile(r"\d:[0-5]\d")
_AM_PM = re.compile(r"\d\s?[ap]m$")
_DAY_VALUE = re.compile(r"^[a-z]{3,9}\.? \d|\d(?:st|nd|rd|th)$|月|\d[日号]$")
_WEEKDAY_VALUE = re.compile(
    r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?s?"
    rf"|{_ZH_WEEKDAYS}")


def _written(value: str, text: str, unit: bool = False) -> re.Match[str] | None:
    """Where a normalised value is written in ``text``, not inside a longer word or number (a
    rate's slash is not its value's: "4,200/" is written in "4,200/mo"); with ``unit``, a number
    may run into its unit ("38" in "38k")."""
    value = value.rstrip("/,")
    after = r"(?![0-9]|[.:,]\d)" if unit and value[-1:].isdigit() \
        else "" if not is_latin(value[-1:]) else r"(?![0-9A-Za-z]|[.:,]\d)"  # ("周二下午3点")
    # (nor a part of a longer number: "20" is not in "7:20", "7" not in "Redis 7.0")
    return re.search(rf"(?<![0-9A-Za-z])(?<!\d[.:,]){re.escape(value)}{after}", text, re.I)


# What a number counts, written right after it: "20桌", "126 guests", "6:40 AM".
_MEASURE_AFTER = re.compile(r"\s?([\u4e00-\u9fff]|[A-Za-z]{2,})")


def _measure(body: str, value: str) -> str:
    """What ``value``, a number, measures where ``body`` writes it (a Chinese measure word, an
    English word's first three letters); "" when nothing follows it, or it is no number."""
    if not value[:1].isdigit() or (at := _written(value, body)) is None:
        return ""
    after = _MEASURE_AFTER.match(body, at.end())
    if after is None or (is_latin(word := after.group(1)) and not content_tokens(word)):
        return ""  # ("$45 to Omar", "$52 for the tickets": no word of what is counted)
    return word[:3].lower()


def _currency(value: str, text: str) -> bool:
    """Whether ``text`` writes ``value`` as an amount of money ("$7.50", "€13.25")."""
    at = _written(value, text)
    return at is not None and text[max(at.start() - 1, 0):at.start()] in _CURRENCY_SIGNS


_CURRENCY_SIGNS = frozenset("$€£¥")


def _counts(text: str, value: str) -> bool:
    """Whether English ``text`` says what ``value`` counts ("31 members", "9 cases"); a Chinese
    word after a number is as often "per" as a count ("¥5,100一个月")."""
    word = _measure(text, value)
    return bool(word) and is_latin(word)


def _written_short(value: str, text: str) -> re.Match[str] | None:
    """Where an amount in thousands ("48,000") is written short in ``text`` ("48k")."""
    if not value.endswith(",000") or not is_latin(text):
        return None
    short = f"{int(value.replace(',', '')) / 1000:g}"
    return re.search(rf"(?<![\w.,]){re.escape(short)}(?:[kK]|\s?grand)\b", text)


def _take_out_amount(old: _Item, units: frozenset[str]) -> None:
    """Remove from ``old`` the clauses that give an amount in ``units`` ("300套杯碟")."""
    parts = _CLAUSE_SPLIT.split(old.body)
    removed = {i // 2 for i in range(0, len(parts), 2) if _units(parts[i]) & units}
    _drop_clauses(old, parts, removed)


_SENTENCE_GAP = re.compile(r"(?<=[.!?])\s+(?=[A-Z])|(?<=[。！？])")


def _take_out(old: _Item, topic: frozenset[str], stale: frozenset[str]) -> None:
    """Remove from ``old`` the clauses that speak of ``topic``, and the fragments that only
    hold a ``stale`` value ("at 3pm"); of a statement of several sentences, only from those
    holding a stale value ("The application asks for salary expectations. I put $92,000."
    keeps what it was for)."""
    said = [s for s in _SENTENCE_GAP.split(old.body) if s.strip()]
    # (by its amounts, dates, times: the names it gives may be what it was for, "Corvane")
    marked = frozenset(v for v in stale if _value_kind(v) != "word") or stale
    holding = [bool(_values(s)[0] & marked) for s in said]
    if len(said) > 1 and any(holding) and not all(holding):
        kept = [_clauses_out(s, topic, stale) if h else s
                for s, h in zip(said, holding, strict=True)]
        old.body = "".join(f"{s} " if is_latin(s) else s for s in kept if s).strip()
    else:
        old.body = _clauses_out(old.body, topic, stale)


def _clauses_out(body: str, topic: frozenset[str], stale: frozenset[str]) -> str:
    parts = _CLAUSE_SPLIT.split(body)
    removed = set()
    stale_words = {w for v in stale for w in v.split()}
    for i in range(0, len(parts), 2):
        values, rest = _values(parts[i])
        # (A clause alone may read "Gareth" opening it as a word, its sentence as a value.)
        own = _topic(rest) - stale_words
        # (or of a name that says it: "Summit Roofing" speaks of the roof)
        named = {w for v in values & stale for w in v.split()}
        if own & topic or (not own and (values & stale or any(
                w in stale_words for v in values for w in v.split()))) \
                or (named and any(_in(t, frozenset(named)) for t in topic)):
            removed.add(i // 2)
    if not removed:  # the thing was named across clauses: take out the stale values' clauses
        removed = {i // 2 for i in range(0, len(parts), 2) if _values(parts[i])[0] & stale}
    return _clauses_left(parts, removed)


def _clauses_left(parts: list[str], removed: set[int]) -> str:
    """The statement split into ``parts`` (clauses and their separators) without the clauses
    numbered in ``removed``; "" when none is left."""
    if len(removed) == (len(parts) + 1) // 2:
        return ""
    return _without_clauses(parts, removed, {}) if removed else "".join(parts)


def _drop_clauses(old: _Item, parts: list[str], removed: set[int]) -> None:
    """``old`` without the clauses numbered in ``removed``; emptied when none is left."""
    if removed:
        old.body = _clauses_left(parts, removed)


# ---------------------------------------------------------------------------------------------
# tool state: a newer call or result about the same object says its current fields

# Where a ``key=value`` of a tool line starts: after "(", ", " or "→ " (values may hold commas:
# "ship_to=42 Larkspur Lane, Apt 5B, Columbus"; only ", key=" starts a new one).
_TOOL_KEY = re.compile(r"(?:(?<=\()|(?<=, )|(?<=→ ))([A-Za-z_][\w.-]{0,40})=")
_TOOL_VALUE_END = re.compile(r"…?\) → |…?\)$| → ")
_ID_KEY = re.compile(r"(?i)(?:^|[_.-])(?:id|ids|uuid|ref|no|number|num|code|sku|path|file"
                     r"|filename|url|host|hostname|key|deployment|service|repo|repository"
                     r"|branch|table|bucket|cluster|instance|container|app)$")
_ID_VALUE = re.compile(r"(?=[^ ]*\d)(?=[^ ]*[A-Za-z])[\w./:#@+-]{3,}")
_DATETIME = re.compile(r"\d{4}-\d\d-\d\d|\d\d?:\d\d")


@lru_cache(maxsize=4096)  # (a long history repeats its tool lines; each pair is compared)
def _tool_pairs(body: str) -> tuple[tuple[str, str, int, int], ...]:
    """The ``key=value`` pairs of a tool line: (key, value, start of the key, end of value)."""
    starts = list(_TOOL_KEY.finditer(body))
    out = []
    for i, m in enumerate(starts):
        stop = starts[i + 1].start() if i + 1 < len(starts) else len(body)
        end = _TOOL_VALUE_END.search(body, m.end(), stop)
        value_end = end.start() if end is not None else stop
        if value_end == stop and body[value_end - 2:value_end] == ", ":
            value_end -= 2
        out.append((m.group(1), body[m.end():value_end].strip().rstrip("…"), m.start(),
                    value_end))
    return tuple(out)


@lru_cache(maxsize=4096)
def _object_ids(body: str) -> frozenset[tuple[str, str]]:
    return frozenset((k, v) for k, v, _, _ in _tool_pairs(body) if _identifies(k, v))


def _same_object(new: str, old: str) -> bool:
    """Whether two tool lines name one object (a pair that names it in common, none that names
    another)."""
    if not (_is_tool_line(new) and _is_tool_line(old)):
        return False
    ids, old_ids = _object_ids(new), _object_ids(old)
    keys = {k for k, _ in ids}
    return bool(ids & old_ids) and all(k not in keys or (k, v) in ids for k, v in old_ids)


def _changes_fields(new: str, old: str) -> bool:
    """Whether a tool line gives another value to a field of an older one about the same
    object: then the fields say what changed, and nothing else of the older line goes."""
    link = None
    if not _same_object(new, old):
        if not (_is_tool_line(old) and _CHANGING_TOOL.match(new)):
            return False
        link = _named_in_text(_tool_pairs(new), old)
        if not link:
            return False
    fields = _fields(_tool_pairs(new))
    return any(k != link and _stale(k, v, fields) for k, v, _, _ in _tool_pairs(old))


_GENERIC_KEY_WORDS = frozenset({"", "new", "old", "the", "updated", "current", "to", "id"})


def _key_words(key: str) -> frozenset[str]:
    return frozenset(re.split(r"[_.\-]+", key.lower())) - _GENERIC_KEY_WORDS


_Fields = dict[frozenset[str], set[str]]


def _fields(pairs: tuple[tuple[str, str, int, int], ...]) -> _Fields:
    """A tool line's values by the words of their keys ("new_time" gives "time")."""
    out: _Fields = {}
    for k, v, _, _ in pairs:
        out.setdefault(_key_words(k) or frozenset({k.lower()}), set()).add(v)
    return out


def _given(key: str, fields: _Fields) -> list[set[str]]:
    """The values a newer line gives the field ``key``, or one its key names or is named by
    ("time" and "new_time", "start" and "start_date"; not "cpu_limit" and "memory_limit")."""
    words = _key_words(key) or frozenset({key.lower()})
    return [values for named, values in fields.items() if named <= words or words <= named]


def _stale(key: str, value: str, fields: _Fields) -> bool:
    """Whether a newer line gives the field ``key`` another value than ``value``."""
    given = _given(key, fields)
    return bool(given) and all(value not in g for g in given)


def _identifies(key: str, value: str) -> bool:
    """Whether a pair names the object a tool works on ("event_id=evt_8812", "order_id=…",
    "path=requirements.txt"); not a date or time, which many objects share."""
    if not value or _DATETIME.match(value):
        return False
    # (A measure is no name: "memory_limit=2Gi" then "=3Gi" is one service's limit changed.)
    return _ID_KEY.search(key) is not None or (_ID_VALUE.fullmatch(value) is not None
                                               and _MEASURE.fullmatch(value) is None)


_MEASURE = re.compile(r"\d+(?:\.\d+)?\s?[A-Za-z]{1,3}")


def supersede_tool_state(items: list[_Item]) -> list[_Item]:
    """A newer tool line about the same object (a pair that names it in common, none that names
    another) makes an older one lose the fields it now gives another value: "Tool
    update_event(event_id=evt_8812, start=11:15…) → …" takes "start=15:30" out of "Tool
    create_event(…) → event_id=evt_8812, start=15:30…". Fields the newer line does not give
    stay (the title, the items of an order).

    A change made by a later call to an object the older line's result names in its text
    ("modify_order(order_id=W-58213, color=Charcoal)" after "place_order(color=Forest Green) →
    Order #W-58213 confirmed: …, Forest Green") is one too; the old value is then written over
    wherever the older lines still give it (see :func:`_write_over`). A read of a file or
    setting the agent later wrote ("read_file(path=.nvmrc) → 18.17.1", then
    "write_file(path=.nvmrc, …)") says what no longer holds, and goes."""
    lines = [(it, _tool_pairs(it.body))
             for it in sorted(items, key=lambda it: it.order) if _is_tool_line(it.body)]
    stale_reads: set[int] = set()
    # The same look-up made again ("inventory_lookup(sku=CND-CEDAR-SMOKE) → 48 in stock", later
    # "… → 7 in stock"): the newer result is what holds; an action done twice is not a look-up.
    latest: dict[str, _Item] = {}
    for it, _ in reversed(lines):
        call = it.body.partition(" → ")[0]
        if not call.endswith(")") or _CHANGING_TOOL.match(call) or _ACTING_TOOL.match(call):
            continue
        if call in latest and latest[call].order > it.order and latest[call].body != it.body:
            stale_reads.add(id(it))
            latest[call].score = max(latest[call].score, it.score)
            _looked_up_again(items, it, latest[call])
        else:
            latest.setdefault(call, it)
    # The same setting set again ("config_set(cluster=cart-redis, key=maxmemory, value=8gb)",
    # later "…value=6gb"; "deploy(service=api-gateway, env=prod, version=v3.8.2)", later
    # "…version=v3.8.0"): the call names the same thing by all but the one value it sets, and
    # the newer one holds.
    set_last: dict[tuple[str, frozenset[tuple[str, str]]], _Item] = {}
    for it, _ in reversed(lines):
        call = it.body.partition(" → ")[0]
        if not call.endswith(")") or not _SETTING_TOOL.match(call):
            continue
        name, args = call.partition("(")[0], _tool_pairs(call)
        # (each key once, in the order written: the first newer call found is the same in
        # every process, whatever the hash seed)
        each = [(f"{name}|{k}", frozenset((a, v) for a, v, _, _ in args if a != k))
                for k in dict.fromkeys(k for k, _, _, _ in args)]
        newer = next((set_last[x] for x in each if x in set_last), None)
        if newer is not None and newer.order > it.order and newer.body != it.body:
            stale_reads.add(id(it))
            newer.score = max(newer.score, it.score)
            continue
        for x in each:
            set_last.setdefault(x, it)
    if stale_reads:
        lines = [(it, pairs) for it, pairs in lines if id(it) not in stale_reads]
    for n in range(len(lines) - 1, 0, -1):
        newer, new_pairs = lines[n]
        if not _object_ids(newer.body):
            continue
        fields = _fields(new_pairs)
        changing = _CHANGING_TOOL.match(newer.body) is not None
        for m, (older, old_pairs) in enumerate(lines[:n]):
            if older.order >= newer.order:
                continue
            link = None if _same_object(newer.body, older.body) \
                else _named_in_text(new_pairs, older.body) if changing else ""
            if link == "":
                continue  # another object: "order_id=A1" / "order_id=A2", one user_id in both
            if link is None and changing and _READING_TOOL.match(older.body) \
                    and not _CHANGING_TOOL.match(older.body):
                stale_reads.add(id(older))
                continue
            old_ids = _object_ids(older.body) if link is None else set()
            stale = [(k, v, a, b) for k, v, a, b in old_pairs
                     if k != link and (k, v) not in old_ids and _stale(k, v, fields)]
            if stale:
                older.body = _without_spans(older.body, [(a, b) for _, _, a, b in stale])
                # It says now what the older one said: worth as much.
                newer.score = max(newer.score, older.score)
                lines[m] = (older, _tool_pairs(older.body))
                if link is not None:
                    _write_over(items, older, newer, stale, fields, link)
                _count_over(items, newer, stale, fields)
    return [it for it in items if id(it) not in stale_reads]


def _count_over(items: list[_Item], newer: _Item, stale: list[tuple[str, str, int, int]],
                fields: _Fields) -> None:
    """Put a count a later call changed into the statements that give the old count of what
    its key names: "update_booking(booking_ref=PB-2308, covers=31)" after "covers=28" makes
    "mrs o says 28 covers" say 31 covers. (A bare number is in too many statements to be
    written over anywhere else; said with the key's own word after it, it is this count.)"""
    for k, old_value, _, _ in stale:
        given = _given(k, fields)
        news = set().union(*given) if given else set()
        if len(news) != 1 or not old_value.isdigit() or not (new_value := next(iter(news))
                                                             ).isdigit():
            continue
        nouns = "|".join(re.escape(w[:4]) for w in _key_words(k) if len(w) >= 4 and w.isalpha())
        if not nouns:
            continue
        counted = re.compile(rf"(?<![\d.,:£$€¥#-]){old_value}(?= ?(?:{nouns})[a-z]*\b)", re.I)
        for it in items:
            if it.order < newer.order and not _is_tool_line(it.body) and it.section != _TASKS:
                it.body = counted.sub(new_value, it.body)


# A tool that changes what it is given ("modify_order", "update_yaml", "change_ticket",
# "write_file", "set_xml_value"); one that only reads ("read_file", "get_order", "cat").
# (A verb is a word of the name: "tax_settlement_estimate" sets nothing, "setPrice" does.)
# Verbs of a call that gives a thing a value (both kinds below).
_SETS_VALUE = "set|update|change|patch|scale|resize"
_CHANGING_TOOL = re.compile(
    rf"(?:Tool |工具 )(?:[\w.-]*?[_.-])?(?i:{_SETS_VALUE}|modify|edit|swap|reschedule"
    r"|rebook|amend|write|put|save|replace)(?![a-z])")
# One that acts each time it is called ("send_email", "create_ticket", "place_order").
_ACTING_TOOL = re.compile(
    r"(?:Tool |工具 )(?:[\w.-]*?[_.-])?(?i:create|add|send|post|book|place|submit|insert|make"
    r"|order|pay|transfer|schedule|delete|remove|cancel|run|exec|deploy|upload|charge|refund"
    r"|notify)(?![a-z])")
# One that sets a thing to a value, each call replacing the last ("config_set", "deploy").
_SETTING_TOOL = re.compile(
    rf"(?:Tool |工具 )(?:[\w.-]*?[_.-])?(?i:{_SETS_VALUE}|deploy|rollback|roll_back|release"
    r"|upgrade|downgrade|pin)(?![a-z])")
_READING_TOOL = re.compile(
    r"(?:Tool |工具 )(?i:read|get|cat|show|view|fetch|load|open|describe|inspect|check|query)"
    r"(?![a-z])")


def _looked_up_again(items: list[_Item], older: _Item, newer: _Item) -> None:
    """When a look-up made again gives one number for another ("48 in stock" → "7 in stock",
    "应退税额 1236元" → "2180元"), what was said of the old one ("You have 48 of the Cedar &
    Smoke candles", "预估可以退1236元") says the new one: lines with a word of the old result."""
    was, now = older.body.partition(" → ")[2], newer.body.partition(" → ")[2]
    stale = set(_AMOUNT.findall(was)) - set(_AMOUNT.findall(now))
    fresh = set(_AMOUNT.findall(now)) - set(_AMOUNT.findall(was))
    if len(stale) == 1 and len(fresh) == 1:
        pairs = [(stale.pop(), fresh.pop())]
    else:
        # The same result with several numbers changed ("首重(1kg): 3.2元 续重: 1.5元/kg" →
        # "首重(1kg): 2.85元 续重: 1.2元/kg"; "on_hand: 212 reserved: 9" → "on_hand: 163
        # reserved: 11 … adjustment: -49"): each number for the one in its place, or under
        # the same label, when it is the only one of its kind.
        if _AMOUNT.sub("#", was) == _AMOUNT.sub("#", now):
            olds, news = _AMOUNT.findall(was), _AMOUNT.findall(now)
            pairs = [(o, n) for o, n in zip(olds, news, strict=True)
                     if o != n and olds.count(o) == 1 and o not in news]
        else:
            by_label, now_by_label = _labelled(was), _labelled(now)
            pairs = [(o, now_by_label[label]) for label, o in by_label.items()
                     if now_by_label.get(label, o) != o
                     and list(by_label.values()).count(o) == 1
                     and o not in now_by_label.values()]
    words = content_tokens(was)
    for it in items:
        if it is not older and it is not newer and it.order < newer.order \
                and not _is_tool_line(it.body) and content_tokens(it.body) & words:
            for pair in pairs:
                _rewrite(it, pair, now, False)


def _labelled(result: str) -> dict[str, str]:
    """Each number of a tool's ``result`` by the words just before it (its label: "on_hand",
    "首重(1kg)"), for labels said once and numbers of two digits or more."""
    found: dict[str, str] = {}
    seen: set[str] = set()
    end = 0
    for m in _AMOUNT.finditer(result):
        label = _LABEL_TAIL.sub("", result[end:m.start()])[-24:].strip().lower()
        end = m.end()
        if label in seen:
            found.pop(label, None)
        elif label and len(m.group().replace(",", "").replace(".", "")) >= 2:
            found[label] = m.group()
        seen.add(label)
    return found


_LABEL_TAIL = re.compile(r"[\s:=：|$€£¥-]+$")
_CAPS_CODE = re.compile(r"(?=[^ ]*\d)(?=[^ ]*[A-Z])[A-Z0-9][\w#-]{3,}")


def _named_in_text(new_pairs: tuple[tuple[str, str, int, int], ...], old: str) -> str:
    """The key of the newer line's pair that names its object ("order_id=W-58213") when the
    older line gives that value in its own text ("Order #W-58213 confirmed", "订单号E29318475")
    and no other value under that key; "" when none does."""
    for k, v, _, _ in new_pairs:
        # (Under any key, a code of capitals and digits names it: "reservation=TRK-55102".)
        if (_ID_KEY.search(k) is None and _CAPS_CODE.fullmatch(v) is None) \
                or k.lower().startswith("new") or len(v) < 4:
            continue
        if re.search(r"(?<![A-Za-z0-9])" + re.escape(v) + r"(?![A-Za-z0-9])", old) is None:
            continue
        if all(ok != k or ov == v for ok, ov, _, _ in _tool_pairs(old)):
            return k
    return ""


def _write_over(items: list[_Item], older: _Item, newer: _Item,
                stale: list[tuple[str, str, int, int]], fields: _Fields,
                link: str) -> None:
    """Put each value a later call changed into the older lines that still give the old one:
    the older call's own result, lines that name the object, and, for a code of letters and
    digits ("KJ400", "G7125"), any older line of the user or the assistant."""
    code = next((v for k, v, _, _ in _tool_pairs(newer.body) if k == link), "")
    for k, old_value, _, _ in stale:
        given = _given(k, fields)
        news = set().union(*given) if given else set()
        if len(news) != 1 or len(old_value) < 3 or old_value.isdigit():
            continue
        new_value = next(iter(news))
        coded = _ID_VALUE.fullmatch(old_value) is not None
        word = re.compile(r"(?<![A-Za-z0-9])" + re.escape(old_value) + r"(?![A-Za-z0-9])")
        for it in items:
            if it.order > newer.order or it is newer:
                continue
            if it is older or (not _is_tool_line(it.body)
                               and (coded or (code and code in it.body))):
                it.body = word.sub(new_value, it.body)


def _without_spans(body: str, spans: list[tuple[int, int]]) -> str:
    """``body`` without each ``key=value`` span and the ", " that joined it."""
    for a, b in sorted(spans, reverse=True):
        if body[max(0, a - 2):a] == ", ":
            a -= 2
        elif body[b:b + 2] == ", ":
            b += 2
        body = body[:a] + body[b:]
    return body.replace("() →", "(…) →").rstrip(" →")


# A tool's report that it changed something: "Reservation OB-3390 updated: …", "改签成功：…".
_UPDATED = re.compile(r"(?i:\b(?:updated|changed|rescheduled|moved|modified|rebooked)\b)"
                      r"|已更新|已修改|已改|改签成功|修改成功|更新成功|已调整")
_OBJECT_CODE = re.compile(r"(?<![\w-])(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[A-Za-z0-9][\w-]{3,}")


def tool_updates(items: list[_Item]) -> None:
    """A tool's report that it changed an object ("Tool modify_reservation(ref=OB-3390, …) →
    Reservation OB-3390 updated: Sat, party of 4, 8:30 PM.") puts its new time into the older
    statements that name the same object by its code ("You're booked at Osteria Brava on
    Saturday at 7:15 for four, ref OB-3390."), when each gives one time of its own."""
    for it in items:
        if not _is_tool_line(it.body) or " → " not in it.body:
            continue
        result = it.body.split(" → ", 1)[1]
        if not _UPDATED.search(result):
            continue
        codes = {c.lower() for c in _OBJECT_CODE.findall(result)}
        new = _CLOCK.findall(result)
        if not codes or len(new) != 1:
            continue
        for old in items:
            if old is it or old.order > it.order or not any(c in old.body.lower() for c in codes):
                continue
            # (an older call's own arguments stay as it was made: its result is what held)
            head, arrow, text = old.body.rpartition(" → ") if _is_tool_line(old.body) \
                else ("", "", old.body)
            stale = _CLOCK.findall(text)
            if len(stale) == 1 and stale[0] != new[0]:
                # ("8:30 PM." ends a sentence of the report, not of the older line)
                now = new[0] if stale[0].endswith(".") else new[0].rstrip(".")
                old.body = head + arrow + text.replace(stale[0], now, 1)


_CLOCK = re.compile(r"(?<![\d:])\d{1,2}:\d{2}(?:\s?[AaPp]\.?[Mm]\.?)?(?![\d:])")


def tool_pairs(content: str) -> list[tuple[str, str]]:
    """The old and new values a tool's JSON result gives under paired keys: ("09:12", "13:39")
    from ``"original_departure": "09:12", "new_departure": "13:39"``; old_/previous_/was_ and
    new_/updated_/current_ keys alike, one level of nesting."""
    found: list[tuple[str, str]] = []
    if "->" in content or "→" in content or "=>" in content or " from " in content:
        # Said in text: "updated timeout_ms: 30000 -> 45000", "assignee changed from Dana to
        # Marcus" (not a range, "9-5", nor a path: both sides a value of one kind).
        for m in _TEXT_PAIR.finditer(content):
            old, new = m.group("old") or m.group("old2"), m.group("new") or m.group("new2")
            # (a word like "open" → "closed" is in too many statements to be found as itself)
            if old != new and _value_kind(old.lower()) == _value_kind(new.lower()) \
                    and (any(ch.isdigit() for ch in old) or old[:1].isupper()):
                found.append((old, new))
    if "{" not in content or not _PAIRED_KEY.search(content):
        return found
    try:
        data = json.loads(content)
    except ValueError:
        return found
    for obj in [data, *(v for v in data.values() if isinstance(v, dict))] \
            if isinstance(data, dict) else ():
        olds: dict[str, str] = {}
        news: dict[str, str] = {}
        for key, value in obj.items():
            if not isinstance(value, (str, int, float)) or isinstance(value, bool):
                continue
            keyed = _OLD_KEY.match(str(key)) or _NEW_KEY.match(str(key))
            if keyed is not None:
                (olds if keyed.re is _OLD_KEY else news)[keyed.group(1).lower()] = \
                    str(value).strip()
        found += [(olds[k], news[k]) for k in olds.keys() & news.keys()
                  if olds[k] and news[k] and olds[k] != news[k]]
    return found


_TEXT_VALUE = r"[$€£¥]?\w[\w.:@/-]*\w%?"
_TEXT_PAIR = re.compile(
    rf"(?<![\w.-])(?P<old>{_TEXT_VALUE}) ?(?:->|→|=>) ?(?P<new>{_TEXT_VALUE})(?![\w.-])"
    rf"|\bchanged from (?P<old2>{_TEXT_VALUE}) to (?P<new2>{_TEXT_VALUE})(?![\w.-])")
_OLD_KEY = re.compile(rf"(?i)(?:{OLD_KEY_WORDS}|was)[_ -]?(\w+)$")
_NEW_KEY = re.compile(rf"(?i)(?:{NEW_KEY_WORDS}|now)[_ -]?(\w+)$")
_PAIRED_KEY = re.compile(rf"(?i)\"(?:{OLD_KEY_WORDS}|was)[_ -]?\w+\"")


def supersede_tool_pairs(items: list[_Item], pairs: dict[int, list[tuple[str, str]]]) -> None:
    """Write each new value a tool reported beside its old one (:func:`tool_pairs`) over the old
    value in what was said before it: "we're taking the 9:12 Alfa Pendular" after
    ``original_departure=09:12, new_departure=13:39`` says 13:39. A time is found however its
    hour is written ("09:12" / "9:12")."""
    for msg, found in sorted(pairs.items()):
        for stale, fresh in found:
            clock = _BARE_CLOCK.fullmatch(stale)
            said = re.compile(rf"(?<![\d:]){int(clock.group(1))}:{clock.group(2)}(?![\d])"
                              if clock else rf"(?<![\w-]){re.escape(stale)}(?![\w-])", re.I)
            if clock is None and len(stale) < 3:
                continue  # ("2" → "3": too short to find as itself)
            now = fresh[1:] if clock and _BARE_CLOCK.fullmatch(fresh) and fresh[0] == "0" \
                else fresh
            for old in items:
                if old.msg >= msg:  # (one carried, -1, is older)
                    continue
                if old.role != "tool" and not _is_tool_line(old.body):
                    old.body = said.sub(now, old.body)
                elif " → " in old.body:
                    # An older look-up's result too ("read_config → timeout_ms: 30000"), not
                    # the arguments it was called with.
                    call, result = old.body.split(" → ", 1)
                    if fresh not in result:  # (not the report itself: "30000 -> 45000")
                        old.body = f"{call} → {said.sub(now, result)}"


_BARE_CLOCK = re.compile(r"0?(\d{1,2}):(\d{2})")


# A Chinese thing moved to another named place or maker, no number in it: "团建地点改成苏州了",
# "周六聚餐改在外婆家了", "今年车险换到了太平洋", "训练挪到七中体育馆".
_ZH_MOVED_TO = re.compile(
    r"(?P<slot>[\u4e00-\u9fff]{2,6}?)(?:改成|改为|改在|改到|换成|换到了?|转到了?|[挪搬移]到了?)"
    r"(?P<new>[\u4e00-\u9fffA-Za-z]{2,8}?)(?=了|吧|啦|[，。！？,.!?；;]|$)")
# Where an older statement said it was: "团建地点定在杭州", "聚餐定在海底捞", "车险在平安".
_ZH_WAS_AT = (r"(?:定在|订在|放在|选在|约在|是在|定了|定的是|选了|请了|找了|是|在)"
              r"(?P<old>[\u4e00-\u9fffA-Za-z]{2,8}?)(?=[，。！？,.!?；;、]|$)")


# A place said to hold from now on, what moved perhaps unnamed: "训练场地换了，以后去西区体育馆",
# "以后改去三楼会议室开", "下学期起在南校区上课". The older statement's place ends the same way
# a place does (球场, 体育馆, 会议室, 校区).
_ZH_PLACE = r"[\u4e00-\u9fffA-Za-z0-9]{1,10}(?:场|馆|中心|楼|室|院|店|园|校区|厅|所|站|社区|广场)"
_ZH_FROM_NOW_AT = re.compile(
    r"(?:以后|今后|往后|从今天起|从下周起|下学期起|从下个月起|之后)(?:都|就)?(?:改)?(?:去|在|到)"
    rf"(?P<new>{_ZH_PLACE})")
_ZH_PLACE_WAS = re.compile(rf"(?:在|去|到)(?P<old>{_ZH_PLACE})(?=[，。！？,.!?；;、上开见集]|$)")


def _zh_place_now(items: list[_Item], n: int, m: re.Match[str]) -> None:
    """Write the place ``m`` says holds from now on into the latest older statement of the same
    speaker that gives a place for something the newer one speaks of too."""
    it, new = items[n], m.group("new")
    about = _topic(it.body.replace(new, " "))
    for old in reversed(items[:n]):
        if _speaker_tag(old) != _speaker_tag(it) or _assistants(old):
            continue
        found = _ZH_PLACE_WAS.search(old.body)
        if found is None or found.group("old") == new:
            continue
        if about & _topic(old.body.replace(found.group("old"), " ")):
            old.body = old.body[:found.start("old")] + new + old.body[found.end("old"):]
            return


def zh_moves(items: list[_Item]) -> None:
    """Write a Chinese change to another place or maker, a name ("团建地点改成苏州了"), into
    the latest older statement of the speaker that says where that thing was ("团建地点定在杭州"):
    the same two characters of what moved come right before its old value."""
    for n, it in enumerate(items):
        if is_latin(it.body) or _assistants(it):
            continue
        m = _ZH_MOVED_TO.search(it.body)
        if m is None:
            if (now := _ZH_FROM_NOW_AT.search(it.body)) is not None:
                _zh_place_now(items, n, now)
            continue
        key, new = m.group("slot")[-2:], m.group("new")
        was_at = re.compile(re.escape(key) + r"[\u4e00-\u9fff]{0,3}?" + _ZH_WAS_AT)
        for old in reversed(items[:n]):
            if _speaker_tag(old) != _speaker_tag(it) or _assistants(old):
                continue
            found = was_at.search(old.body)
            if found is not None and found.group("old") != new:
                old.body = old.body[:found.start("old")] + new + old.body[found.end("old"):]
                break


# Someone leaving what they did for the user, and someone else doing it now: "Halvorsen went on
# leave, so a Priya Dasgupta is handling my file now", "王姐调去街道了，现在志愿者这块是刘老师在管",
# "老周那边临时接了个大活来不了，装修公司给换了小吴师傅".
_NAME_EN = r"[A-Z][a-z][\w'-]*(?: [A-Z][a-z][\w'-]*)?"
_LEFT_EN = re.compile(
    rf"(?P<old>{_NAME_EN}) (?:has |had |just )?(?:went on (?:\w+ )?leave|went on (?:vacation"
    r"|holiday)|is on (?:\w+ )?leave|left(?! (?:a|an|the|me|us|it|for)\b)|quit|retired|resigned"
    r"|moved on|stepped down|is out|got reassigned|was reassigned|got promoted|is leaving"
    r"|can't make it|couldn't make it|dropped out|never showed(?: up)?|stopped answering"
    # "Marco's booked solid through August, so we're going with Dale Pruitt instead"
    r"|(?:is )?(?:fully )?booked(?: up| solid)|(?:is|'s) (?:not|no longer) available"
    r"|isn't available|backed out|bailed)\b")
_TAKES_OVER_EN = re.compile(
    rf"(?:(?:replaced by|taken over by|handed (?:it |me |us |the \w+ )?(?:off |over )?to"
    r"|(?:going|go|went|gone) with|hired|switch(?:ing|ed)? to|booked"
    # "Joyce is leaving, the agency is sending Priscilla instead"
    r"|sending|sent|assigning|assigned|bringing in|brought in"
    rf"|reassigned (?:it |me |us |the \w+ )?to|transferred (?:it |me |us )?to) (?P<a>{_NAME_EN})"
    rf"|(?P<b>{_NAME_EN}) (?:is |will be |'s )?(?:now )?(?:handling|taking over|took over"
    r"|covering|in charge|running|managing|leading|looking after|doing|teaching|coaching"
    r"|can do|will do)\b)")
# Characters that open no one's name ("是刘老师" is "刘老师").
_FUNCTION_ZH = "是的了在给由换和跟找让把被向对说叫请这那个们也都就还现"
_ZH_HOLDER = (rf"(?:[老小][\u4e00-\u9fff](?:{ZH_TITLES})?"
              rf"|(?![{_FUNCTION_ZH}])[\u4e00-\u9fff]{{1,2}}?(?:{ZH_TITLES}|阿姨|姐|哥|总))")
_ZH_ROLES = rf"{ZH_TITLES}|阿姨|保姆|班主任"
# (or by the role alone: "原来那个教练离职了", "之前那位阿姨家里有事回老家了")
_LEFT_ZH = re.compile(
    rf"(?:(?P<old>{_ZH_HOLDER})|(?:原来|之前|以前)(?:的|那个|那位)?(?P<role>{_ZH_ROLES}))"
    r"(?:那边|他|她)?[^，。！？；]{0,12}?(?:调(?:去|走|到|岗)|离职|退休|走了|不干了|请(?:病|产)?假"
    r"|休(?:产|病|婚)?假|辞职|跳槽|来不了|去不了|不负责|不带了|回老家|住院了)")
_TAKES_OVER_ZH = re.compile(
    rf"(?:换了|换成|改成|现在是|接手的是|由|变成)(?:了)?(?P<a>{_ZH_HOLDER})"
    rf"|(?P<b>{_ZH_HOLDER})(?:在管|来管|负责|接手|接替|顶上|来带|在带|带|来?主持|跟进|对接|代课)"
    rf"|(?:介绍了|来了|换了|派了)一?位(?P<c>{_ZH_HOLDER})"
    r"|现在[^，。！？]{1,8}的是(?P<d>[\u4e00-\u9fff]{2,3})(?=[，。！？,]|$)")
_ZH_TITLE = re.compile(rf"(?:{ZH_TITLES})$")
# (or whom someone found: "换成她朋友介绍的韩师傅了")
_SWAPPED_IN_ZH = re.compile(
    rf"(?:换成?了?|改由|改成|改找)(?:[^，。！？的]{{1,8}}的)?(?:个|位|一位)?(?P<new>{_ZH_HOLDER})"
    r"(?:来)?(?:带|教|管|负责|上课|接手|主刀|看|了|(?=[，。！？,]|$))")
_NOT_HOLDERS = frozenset(("老家", "小区", "老板", "老公", "老婆", "老人", "小时", "小孩", "老是",
                          "小心", "老实", "老大", "老二", "小姐", "老师", "小学", "老总", "小组"))
_CLAUSE_END = re.compile(r"[,;，；。]")
_SURNAME = (r"(?!(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day|January|February|March|April|May"
            r"|June|July|August|September|October|November|December)[A-Z][a-z][\w'-]*")
_THEN = re.compile(
    r"^(?:,|，|;|；)?\s*(?:so |and |but |now |then )?(?:a |an )?|^[，,]?(?:所以|然后)?")


def _core(name: str) -> str:
    """A Chinese holder by what names them ("老周师傅" → "老周"; "刘老师" stays)."""
    bare = _ZH_TITLE.sub("", name)
    return bare if len(bare) == 2 and bare[0] in "老小" else name


def _holder_of(items: list[_Item], role: str) -> str:
    """The latest holder of a Chinese role an older statement names ("王教练" for "教练")."""
    said = re.compile(rf"(?![{_FUNCTION_ZH}位])[\u4e00-\u9fff](?:{role})")
    for it in reversed(items):
        if it.role != "tool" and (m := said.search(it.body)) is not None:
            return m.group()
    return ""


def reported_values(items: list[_Item]) -> None:
    """A change the user says without its new value ("我刚在12306上改签了，你帮我看下现在订单是
    哪趟", "pull up the Hartwell contract, I think something changed") and the reply gives
    ("改签成功了，现在是G8633", "your Hartwell rate is now $74.50 an hour"): a code replaces the
    user's older one of the same shape ("我买的G8505"), a price the user's one near price
    ("Hartwell Bakery pays me $68 an hour"), in a statement that speaks of what the reply or
    the ask speaks of. (The reply's own change otherwise changes only what the assistant said.)"""
    for n, it in enumerate(items):
        if not _assistants(it) or it.msg < 0 or not _DIGITS.search(it.body) \
                or not _has(it.body, _CHANGE_KEYS) or not _says_change(it.body):
            continue
        codes = [v for v in _values(it.body)[0] if _CODE.fullmatch(v)]
        prices = set(_prices(it.body))
        if len(codes) == 1:
            fresh, shape = codes[0], _code_shape(codes[0])
        elif not codes and len(prices) == 1:
            fresh, shape = prices.pop(), ""
        else:
            continue
        asked = [u for u in items[:n] if not _assistants(u) and 0 <= u.msg < it.msg <= u.msg
                 + _NEAR and _CHANGE.search(u.body) and not (
                     any(_CODE.fullmatch(v) for v in _values(u.body)[0]) if shape
                     else _prices(u.body))]
        if not asked:
            continue
        tag, since = _speaker_tag(asked[-1]), asked[-1].msg
        # (what either says of it: "成都", "重庆" of the train, not a review's "X3200")
        about = _topic(it.body) | _topic(asked[-1].body)
        for old in reversed(items[:n]):
            if _assistants(old) or _speaker_tag(old) != tag or old.msg >= since \
                    or old.body.endswith(tuple(_DONE_MARK.values())):
                # (a carried one, msg -1, is older than any; a request done was asked with the
                # value of its day: the reply carries the new one)
                continue
            olds = [v for v in _values(old.body)[0]
                    if v != fresh and _CODE.fullmatch(v) and _code_shape(v) == shape] if shape \
                else [v for v in set(_prices(old.body)) if v != fresh and _near_amount(v, fresh)]
            if len(olds) == 1 and _topic(old.body) & about \
                    and _rewrite(old, (olds[0], fresh), it.body, not shape):
                # (a value the user had to have looked up again: worth what a revision is)
                old.score = max(old.score, it.score) + _REVISED_WEIGHT
                break


def _prices(text: str) -> list[str]:
    """The amounts of money ``text`` writes with their currency ("$74.50", "4870元")."""
    return [m.group(1) or m.group(2) for m in _PRICE.finditer(text)]


_PRICE = re.compile(r"[$€£¥]\s?(\d[\d,]*(?:\.\d+)?)|(\d[\d,]*(?:\.\d+)?)\s?(?:元|块)")


def hand_overs(items: list[_Item]) -> None:
    """Write who does a thing now over who did it, when the user says the one left and the other
    took it over: "…assigned to an adjuster called Tom Halvorsen" becomes "…called Priya
    Dasgupta" after "Halvorsen went on leave, so a Priya Dasgupta is handling my file now", and
    the clause saying who left goes. Only someone an older statement names is replaced."""
    for n, it in enumerate(items):
        if _assistants(it) or it.role == "tool":
            continue
        ascii_ = is_latin(it.body)
        left = (_LEFT_EN if ascii_ else _LEFT_ZH).search(it.body)
        swapped = _SWAPPED_IN_ZH.search(it.body) if left is None and not ascii_ else None
        taker = None
        if swapped is not None:
            # "下学期换喻老师带这个班了": who does it now, said without who left; the one
            # before is the latest of that title ("钟老师").
            new = swapped.group("new")
            title = _ZH_TITLE.search(new)
            old = _holder_of(items[:n], re.escape(title.group())) if title is not None else ""
        elif left is not None:
            taker = (_TAKES_OVER_EN if ascii_ else _TAKES_OVER_ZH).search(it.body, left.end())
            if taker is None:
                continue
            new = taker.group("a") or taker.group("b") or (
                "" if ascii_ else taker.group("c") or taker.group("d"))
            old = left.group("old") or _holder_of(items[:n], left.group("role"))
            old = old.removesuffix("'s")  # ("Marco's booked solid")
        else:
            continue
        if not old:
            continue
        if not ascii_:
            old, new = _core(old), _core(new)
            if old in _NOT_HOLDERS or new in _NOT_HOLDERS:
                continue
        if old == new or old in new or new in old or old.split()[-1] in new.split():
            continue
        # (named in full before: "Marco Ferrante is doing the electrical" … "Marco's booked")
        said = re.compile(
            rf"(?:[A-Z][a-z][\w'-]* )?{re.escape(old.split()[-1])}\b(?: {_SURNAME}\b)?"
            if ascii_ else re.escape(old))
        older = [o for o in items[:n] if o.role != "tool" and said.search(o.body)]
        if not older:
            continue  # nobody said before that they did it: nothing to replace
        for o in older:
            o.body = said.sub(new, o.body)
        if left is None or taker is None:
            continue
        # The clause that says who left goes, with the word that led to the next one.
        end = len(it.body)
        stop = _CLAUSE_END.search(it.body, left.end())
        if stop is not None and stop.start() < taker.start():
            end = stop.start()
        rest = it.body[end:]
        rest = _THEN.sub("", rest, count=1) if rest else rest
        kept = (it.body[:left.start()] + rest).strip(" ,;，；")
        if new in kept:
            it.body = kept[:1].upper() + kept[1:] if ascii_ else kept
