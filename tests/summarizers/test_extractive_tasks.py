"""Tasks said in passing, as people type them: kept open until done, and closed by the user's
own word for done. Example tests of the extractive summarizer (one fold per turn)."""

from __future__ import annotations

import pytest
from _folds import assistant, folds, user


def section(summary: str, title: str) -> str:
    """The lines under ``title`` ("Open tasks", "待办", …), up to the next blank line."""
    lines = summary.splitlines()
    for i, line in enumerate(lines):
        if line.rstrip("：:") == title:
            out = []
            for rest in lines[i + 1:]:
                if not rest.strip():
                    break
                out.append(rest)
            return "\n".join(out)
    return ""


@pytest.mark.parametrize(("said", "reply", "named"), [
    # a reminder asked for after when, the clauses spaced
    ("Q2 预算表我还欠着财务 下周提醒我", "好，下周提醒你。", "Q2 预算表"),
    # "你帮我记着" of what is still to do
    ("体检报告还没拿给张医生看 你帮我记着", "好的记下了。看报告时重点问一下血脂那几项。",
     "体检报告"),
    # not bought yet, "记一下"
    ("打印机墨盒还没买 记一下", "好的记下了。", "墨盒"),
    # put off until there is time
    ("想给阳台装个升降晾衣架 有空了弄", "可以先量一下阳台顶的宽度。", "晾衣架"),
    ("有空把相册里那些重复的照片清一下 手机快满了", "可以用相册自带的重复项合并。", "重复的照片"),
    # by when, then what
    ("年底前整理一份报销单据 财务催了", "好的，建议按月份分类。", "报销单据"),
    # a thing, then what it still needs
    ("家里路由器换新这事还得排上 老的天天断", "可以考虑支持 Wi-Fi 6 的型号。", "路由器"),
    # the note asked for first, then what
    ("还有一件事你帮我记着，要给我妈买个新的血压计", "好的。", "血压计"),
    # a reminder asked for once is a task, not a standing wish
    ("护照续签要去出入境大厅办 到时候提醒我 千万别忘了", "到时候我提醒你。", "护照续签"),
])
def test_a_chinese_task_said_in_passing_stays_open(said: str, reply: str, named: str) -> None:
    summary = folds("zh", [user(said), assistant(reply)])
    assert named in section(summary, "待办"), summary


def test_a_fact_to_keep_in_mind_is_no_task() -> None:
    # "你帮我记着" of a code asks that a fact be kept, not that anything be done.
    summary = folds("zh", [user("新的门禁密码是4821# 你帮我记着"),
                           assistant("记下了：门禁密码4821#。")])
    assert "4821#" in summary
    assert "4821#" not in section(summary, "待办")


@pytest.mark.parametrize(("said", "reply", "named"), [
    # the thing in the sentence before, the reminder after, with when
    ("the quarterly VAT return is due on the 7th. nag me next week",
     "Sure, I'll remind you next week.", "VAT return"),
    ("I got a letter about jury duty. remind me to reply to it before the deadline",
     "Will do.", "jury duty"),
    ("the accountant wants a log of every client lunch. remind me to start one",
     "Okay.", "client lunch"),
    ("the boiler's been making that noise again, we should get it serviced. can you keep"
     " reminding me, I keep forgetting", "I'll keep it on your radar.", "boiler"),
    # a label before the errand
    ("house stuff: call the roofer about the gutter, it's been leaking", "Noted.", "roofer"),
])
def test_an_english_task_said_in_passing_stays_open(said: str, reply: str, named: str) -> None:
    summary = folds("en", [user(said), assistant(reply)])
    assert named in section(summary, "Open tasks"), summary


def test_nag_me_is_a_reminder_set_by_the_promise() -> None:
    summary = folds("en", [user("the quarterly VAT return is due on the 7th. nag me next week"),
                           assistant("Sure, I'll remind you next week.")])
    assert "(reminder set)" in section(summary, "Open tasks")


@pytest.mark.parametrize(("lang", "asked", "done", "named"), [
    ("zh", "周五前得把义卖海报做完", "海报搞定啦 贴在公告栏了", "海报"),
    ("zh", "得先去社保局办异地备案", "备案搞定了，在APP上弄的", "备案"),
    ("zh", "签证体检我这礼拜得约上", "签证体检做完啦，一个小时就好了", "签证体检"),
    ("en", "I need to order new tyres for the bike", "tyres came today, they fit great", "tyres"),
])
def test_the_users_own_word_for_done_closes_the_task(lang: str, asked: str, done: str,
                                                      named: str) -> None:
    title = "待办" if lang == "zh" else "Open tasks"
    before = folds(lang, [user(asked), assistant("好的。" if lang == "zh" else "Sure.")])
    assert named in section(before, title)
    after = folds(lang, [user(asked), assistant("好的。" if lang == "zh" else "Sure.")],
                  [user(done), assistant("太好了。" if lang == "zh" else "Nice!")])
    assert named not in section(after, title), after
