"""A choice left open, then made in a later fold by pointing ("就它了", "the one that folds
tiny") and named by the assistant's answer ("那就联通500M"): the user's decision, the choice
closed. Example tests of the extractive summarizer (one fold per turn)."""

from __future__ import annotations

import pytest
from _folds import assistant, folds, user


@pytest.mark.parametrize(("lang", "ask", "listing", "pick", "named", "chosen", "other"), [
    ("zh", "家里想换个宽带 有啥选择",
     "常见三种：1. 电信300M，一年960元；2. 联通500M，一年1080元，送一张副卡；"
     "3. 移动1000M，一年1200元。",
     "问了邻居 都说第二家稳 就它了", "那就联通500M，装的时候让师傅把光猫放客厅。",
     "用户选择：联通500M", "电信300M"),
    ("en", "need a new stroller, what are my options",
     "Three good ones: 1. UPPAbaby Vista, $999, roomy; 2. Babyzen Yoyo, $499, folds tiny for "
     "travel; 3. Graco Modes, $249, budget pick.",
     "we fly a lot so the one that folds tiny",
     "Then the Babyzen Yoyo it is. Check the airline's gate-check rules.",
     "User chose: Babyzen Yoyo", "UPPAbaby"),
])
def test_a_carried_choice_named_by_the_assistants_answer_is_the_users_decision(
        lang: str, ask: str, listing: str, pick: str, named: str, chosen: str,
        other: str) -> None:
    first = folds(lang, [user(ask), assistant(listing)])
    assert other in first  # the options are kept open to choose from
    out = folds(lang, [user(ask), assistant(listing)], [user(pick), assistant(named)])
    assert chosen in out, out
    assert other not in out, out  # the choice is made: the other options go


@pytest.mark.parametrize(("lang", "ask", "listing", "pick", "chosen", "other"), [
    # Two named in the listing's own sentence; the one told by what it has.
    ("en", "We're away over the holidays and need a kennel for Rufus. Any you'd suggest?",
     "Two good ones nearby: Paws Inn at $40 a night with a big yard, and Cedar Kennels at $52 "
     "a night with a live webcam. Both want vaccine records.",
     "Let's do the one with the webcam, we'll want to check on him.",
     "User chose: Cedar Kennels", "Paws Inn"),
    # The reasons first, then the one they leave.
    ("en", "Got three quotes for the gutters. Which is the best deal?",
     "From your quotes: 1. Apex Gutters, $1,900; 2. Rainline, $2,300 with a 10-year warranty; "
     "3. Bob's Roofing, $1,500 but cash only.",
     "We never have cash on us, so the one with the warranty.",
     "User chose: Rainline", "Apex"),
    # Pointed at, named by the rest of the reply.
    ("en", "My cat needs her shots, which vets have openings this week?",
     "Two openings: Dr. Moss on Monday at 9:10 AM, or Dr. Reyes on Wednesday at 4:30 PM.",
     "Wednesday afternoon suits my shifts better, book that one.",
     "User chose: Dr. Reyes", "Dr. Moss"),
    # "就第二个吧" on a choice carried from the fold before.
    ("zh", "卫生间想换个花洒，500以内有啥推荐？",
     "可以看三个：1. 九牧，出水稳，做工扎实；2. 恒洁，带数显，恒温；3. 箭牌，便宜，做工一般。",
     "就第二个吧，数显挺方便。", "用户选择：恒洁", "箭牌"),
])
def test_a_pick_told_by_what_the_option_has_or_by_place_is_the_users_decision(
        lang: str, ask: str, listing: str, pick: str, chosen: str, other: str) -> None:
    reply = "OK." if lang == "en" else "好的。"
    out = folds(lang, [user(ask), assistant(listing)], [user(pick), assistant(reply)])
    assert chosen in out, out
    assert other not in out, out


@pytest.mark.parametrize(("lang", "pick", "named", "chosen"), [
    # The listing gone with an earlier fold: the pick points, the answer names it.
    ("en", "Skip the two with the long waits. Book the remaining place for Friday.",
     "Harbor Grill it is. I'll ask for a table by the window.", "User chose: Harbor Grill"),
    ("en", "ok the cheaper of the two, the kid will wreck it anyway",
     "Sounds good, Fjallraven Kanken it is, in the 16L size.", "User chose: Fjallraven Kanken"),
    ("zh", "就最便宜那家吧 反正都差不多", "好，就定顺丰同城，下午两点上门取件。",
     "用户选择：顺丰同城"),
])
def test_a_pick_the_assistant_names_is_the_users_decision_without_its_listing(
        lang: str, pick: str, named: str, chosen: str) -> None:
    out = folds(lang, [user(pick), assistant(named)])
    assert chosen in out, out


def test_a_pick_named_by_a_bare_then_names_an_option_said_before() -> None:
    out = folds("en", [user("Porto or Valencia for the spring marathon? I hear Valencia is "
                            "flatter."), assistant("Both are fast courses with good weather."),
                       user("the flat one, I want a PR"),
                       assistant("Valencia then. Start the 16-week plan in mid-November.")])
    assert "User chose: Valencia" in out, out


@pytest.mark.parametrize(("lang", "said", "answer"), [
    ("en", "look at the puppy my neighbour got", "Look how cute it is!"),
    ("en", "the dentist moved me to the 18th", "The 18th it is, then."),
    ("en", "big exam tomorrow morning", "Good luck then!"),
    ("en", "I'll think about the rental for a while", "Noted. Ask me again whenever."),
    ("zh", "老人那张床还没买，我也搞不懂", "选带护栏和床垫的，摇把平时收起来，别绊倒人。"),
    ("zh", "明天提醒我交电费吧", "好，就明天上午提醒你。"),
    ("zh", "那我先去忙了", "好，那就辛苦你了。"),
])
def test_an_answer_that_names_no_pick_is_no_decision(lang: str, said: str, answer: str) -> None:
    out = folds(lang, [user(said), assistant(answer)])
    assert ("User chose" if lang == "en" else "用户选择") not in out, out


def test_a_users_own_x_it_is_after_the_reasons_picks_an_option_said_before() -> None:
    out = folds("en", [user("which db for the side project: supabase, neon or sqlite?"),
                       assistant("All three work. Supabase and Neon are hosted Postgres; SQLite "
                                 "is a file on the box."),
                       user("supabase and neon feel like overkill tbh, sqlite it is"),
                       assistant("Good call. I'll sketch a Litestream config.")])
    assert "User chose: sqlite" in out, out
    # Not a name nobody offered: "…and honestly, chaos it is" picks nothing.
    out = folds("en", [user("three deadlines this week and the dog is sick, chaos it is"),
                       assistant("That's a lot at once. Want to list what's due first?")])
    assert "User chose" not in out, out


@pytest.mark.parametrize(("lang", "offer", "reply", "picked"), [
    ("en", "Two options: Harbor Inn at $120 a night, or Seaview Lodge at $180 a night.",
     "...the cheaper one I guess, we are on a tight budget this month anyway", "Harbor Inn"),
    ("zh", "两个选择：港湾酒店每晚380元，或者海景民宿每晚560元。",
     "，便宜的那个吧，这个月预算紧张，能省则省吧", "港湾酒店"),
])
def test_a_long_pick_opening_with_punctuation_is_read(lang: str, offer: str, reply: str,
                                                      picked: str) -> None:
    # The first clause was matched at the start of the reply: one opening with "..." or "，"
    # raised AttributeError and the whole fold failed.
    ok = "OK." if lang == "en" else "好的。"
    out = folds(lang, [user("find me a hotel" if lang == "en" else "帮我找个酒店"),
                       assistant(offer), user(reply), assistant(ok)])
    decisions = out.split("Decisions:" if lang == "en" else "决定：")[1]
    assert picked in decisions, out


_OFFSITES = ("Three options: the Old Mill barn at £900 for the day, the Harbour Hotel suite at "
             "£1,400, or Hatton Lodge at £1,100 with rooms.")


@pytest.mark.parametrize("ruled_out", [
    "half the team are vegan and the mill only does bbq, so the Old Mill is out for sure",
    "not the Harbour Hotel for sure, way over budget",
])
def test_an_option_ruled_out_is_no_choice(ruled_out: str) -> None:
    # "for sure" appraises what it follows: "…is out for sure" rules the option out (it was
    # kept as "User chose: the Old Mill barn…", the one option the user would not take).
    out = folds("en", [user("where should the team offsite be, any ideas"), assistant(_OFFSITES)],
                [user(ruled_out), assistant("Understood, that leaves the other two.")])
    assert "User chose" not in out, out
    assert "User to choose from" in out, out  # still open
    out = folds("en", [user("where should the team offsite be, any ideas"), assistant(_OFFSITES)],
                [user("Hatton Lodge for sure, everyone can stay over")])
    assert "User chose: Hatton Lodge" in out, out


def test_a_choice_picked_and_confirmed_in_one_fold_is_one_decision() -> None:
    # The user's pick and the assistant's "就用石墨文档" made two lines of one decision.
    out = folds("zh", [user("团队文档用啥写 语雀 石墨文档 还是腾讯文档"),
                       assistant("三个都行：语雀功能最全，但免费版空间有限；石墨文档 界面干净，"
                                 "多人同时编辑最顺；腾讯文档和微信打通好，但格式导出一般。"),
                       user("大家都嫌乱 石墨文档 干净 就这个"),
                       assistant("好，就用石墨文档。我先把目录结构起一下。")])
    assert out.count("用户选择") == 1, out
    assert "用户选择：石墨文档，界面干净" in out, out  # the line that says more stays
