"""What the extractive summarizer remembers across folds: facts over chatter, accepted proposals,
closed tasks, superseded values, near duplicates, dates, and carry-forward under the cap."""

from __future__ import annotations

import re
from typing import Any

import pytest
from _folds import tool_turn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chatfold import InvalidArgumentError, SummaryRequest
from chatfold.summarizers.extractive import ExtractiveSummarizer
from chatfold.summarizers.extractive.changes import _arabic
from chatfold.summarizers.extractive.items import _previous_items
from chatfold.summarizers.extractive.threads import (
    answers_about_user,
    asks_for_information,
    changes_world,
    looks_up,
    user_done,
)

_HAN = re.compile(r"[\u3400-\u9fff]")


def count(text: str) -> int:
    """Deterministic test counter: one token per Chinese character, one per 4 other chars."""
    han = len(_HAN.findall(text))
    return han + (len(text) - han + 3) // 4


def ask(messages: list[dict[str, Any]], *, previous: str = "", language: str = "en",
        max_tokens: int = 400) -> str:
    request = SummaryRequest(previous, messages, language, max_tokens)  # type: ignore[arg-type]
    return ExtractiveSummarizer(count=count).summarize(request)


def user(text: str, **extra: Any) -> dict[str, Any]:
    return {"role": "user", "content": text, **extra}


def assistant(text: str, **extra: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": text, **extra}


# What opens a line that is not the user's own statement (theirs go untagged).
_NOT_THE_USERS = ("Assistant: ", "Tool ", "User chose", "User asked", "User agreed",
                  "User to choose", "助手：", "工具 ", "用户选择", "用户要求", "用户同意",
                  "用户待选")


def user_lines(summary: str) -> list[str]:
    """The user's own statements of ``summary``: its untagged item lines."""
    return [line[2:] for line in summary.splitlines()
            if line.startswith("- ") and not line[2:].startswith(_NOT_THE_USERS)]


def section(summary: str, title: str) -> list[str]:
    """The item lines under ``title`` (without their ``- ``)."""
    lines: list[str] = []
    inside = False
    for line in summary.splitlines():
        if line.rstrip(":：") == title:
            inside = True
        elif line.startswith("- ") and inside:
            lines.append(line[2:])
        elif line.strip():
            inside = False
    return lines


# ---------------------------------------------------------------------------------------------
# facts over chatter, and cue words that do not misfile


def test_statements_of_fact_outrank_chatter_en() -> None:
    chatter = [user("Haha that party was so much fun, we laughed the whole night long!"),
               user("Oh wow, that sounds like a really lovely and relaxing weekend for you!")]
    facts = [user("My sister's name is Ana."), user("I'm allergic to shellfish.")]
    out = ask([*chatter, *facts, *chatter], max_tokens=30)
    assert "Ana" in out and "shellfish" in out
    assert "party" not in out


def test_statements_of_fact_outrank_chatter_zh() -> None:
    chatter = [user("哈哈哈那天的聚会真的太好玩了，大家笑了一整晚。"),
               user("哇，听起来真是一个很放松的周末呀。")]
    facts = [user("我叫王芳。"), user("我对花生过敏。"), user("我住在成都。")]
    out = ask([*chatter, *facts], language="zh", max_tokens=40)
    assert "王芳" in out and "花生" in out and "成都" in out
    assert "聚会" not in out


def test_a_cue_word_weighs_only_where_it_files_the_sentence_en() -> None:
    # "a reminder of", "remind us", "I'll do my best" are no tasks, "all the love" is no
    # preference: none of them may outrank a dated value or a habit of the user's.
    chatter = [user("It's like a reminder of my roots and all the love and support I get."),
               user("Life's unpredictable, but moments like these remind us what matters."),
               user("I'll do my best to make sure everyone feels welcome and loved.")]
    facts = [user("My budget for the kitchen renovation is $18,000."),
             user("My passport expires in March 2027."),
             user("I take metformin every morning.")]
    out = ask([*chatter, *facts, *chatter], max_tokens=45)
    assert "18,000" in out and "2027" in out and "metformin" in out
    assert "reminder" not in out and "remind us" not in out and section(out, "Open tasks") == []


def test_habits_names_and_our_facts_outrank_chatter_zh() -> None:
    chatter = [user("你是一个坏老师"), user("哈哈哈那天的聚会真的太好玩了，大家笑了一整晚。"),
               user("You are such a great listener.")]
    facts = [user("我的领导叫李娜。"), user("我每天早上吃二甲双胍。"),
             user("我们的结婚纪念日是6月14日。")]
    out = ask([*chatter, *facts, *chatter], language="zh", max_tokens=55)
    assert "李娜" in out and "二甲双胍" in out and "6月14日" in out
    assert "listener" not in out and "聚会" not in out
    # Telling the assistant what it is says nothing of the user or the world.
    assert ask([user("You are such a great listener.")]) == \
        "The earlier messages were small talk with nothing to keep."
    assert "聪明" not in ask([user("你真是太聪明了。")], language="zh")


def test_love_and_agree_are_not_preferences_or_decisions() -> None:
    out = ask([user("I love it!"), user("I totally agree."), user("I'd love to see it sometime."),
               user("I love hiking in the Alps.")])
    assert section(out, "Decisions") == []
    assert section(out, "Preferences") == ["I love hiking in the Alps."]
    zh = ask([user("同意！"), user("我喜欢爬山。")], language="zh")
    assert section(zh, "决定") == [] and section(zh, "偏好") == ["我喜欢爬山。"]


# ---------------------------------------------------------------------------------------------
# a proposal and its acceptance: one decision


def test_accepted_proposal_is_one_decision_en() -> None:
    out = ask([user("Find me a hotel in Lisbon for May 3-6."),
               assistant("I found two. How about Hotel Lumière at €140 per night, near the river?"),
               user("OK, book it.")])
    decisions = section(out, "Decisions")
    assert len(decisions) == 1
    assert "agreed" in decisions[0] and "Hotel Lumière" in decisions[0]
    assert "OK, book it" not in out


def test_accepted_proposal_is_one_decision_zh() -> None:
    out = ask([user("帮我在杭州找个酒店。"),
               assistant("西湖边的湖畔酒店每晚680元，要不要订湖畔酒店？"),
               user("好的，就订这家。")], language="zh")
    decisions = section(out, "决定")
    assert len(decisions) == 1 and "同意" in decisions[0] and "湖畔酒店" in decisions[0]


@pytest.mark.parametrize("lang, asked, said", [
    ("en", "Great! What is your budget for the trip?", "Around $2,000."),
    ("en", "And where will you be flying from?", "Boston."),
    ("en", "How many people are travelling?", "Just me and my wife."),
    ("en", "Do you have any allergies?", "Peanuts and shellfish."),
    ("zh", "好的！您的预算是多少？", "大概两万元。"),
    ("zh", "从哪个城市出发？", "上海。"),
    ("zh", "您有车吗？", "有，一辆特斯拉。"),
])
def test_a_short_answer_keeps_the_question_it_answers(lang: str, asked: str, said: str) -> None:
    # "Boston." alone says nothing of what it answers; with its question it is the user's.
    out = ask([user("I want to plan a trip." if lang == "en" else "帮我规划一下旅行。"),
               assistant(asked), user(said)], language=lang)
    question = asked.split("! ")[-1].split("！")[-1].removeprefix("And ")
    question = question[:1].upper() + question[1:]
    arrow = " → " if lang == "en" else "→"
    assert f"{question}{arrow}{said}" in out


@pytest.mark.parametrize(("joined", "theirs"), [
    ("Where will you be flying from? → Boston.", True),
    ("What is your budget for the trip? → Around $2,000.", True),
    ("您从哪个城市出发？→上海。", True),
    ("您的预算是多少？→大概两万元。", True),
    ("你觉得那部电影怎么样？→还行吧。", False),
    ("Any new game designs on your mind? → Wow, sounds cool John!", False),
    ("Do you have any goals? → Nice one!", False),
    ("What did you think of the movie? → Loved it.", False),
])
def test_an_answer_about_the_user_with_a_value_is_worth_a_fact(joined: str, theirs: bool) -> None:
    assert answers_about_user(joined) is theirs


@pytest.mark.parametrize("lang, asked, said", [
    # A statement of its own needs no question.
    ("en", "Any dietary restrictions I should know about?", "My wife is vegetarian."),
    ("zh", "您对什么过敏吗？", "我对花生过敏。"),
    # Nothing to keep, with or without the question.
    ("en", "What would you like to do today?", "Not sure yet."),
    ("zh", "想吃点什么？", "随便吧。"),
    # Cheers answer nothing worth the question's room.
    ("en", "Have you tried the new pottery studio?", "Yeah, totally!"),
    ("zh", "你去过那家新开的陶艺馆吗？", "哈哈，好呀！"),
    # A question back is no answer; the assistant's statement asks nothing.
    ("en", "What is your budget?", "What do hotels cost there?"),
    ("en", "The museum opens at 9am.", "Great."),
    # LoCoMo's friends open a reply by calling each other by name: a greeting, not the answer.
    ("en", "How often do you get to go hiking?",
     "Maria! I went hiking with my workmates last week."),
    ("en", "How often do you get to go hiking?", "Hey Nate! Yes, the kids loved it."),
])
def test_a_reply_that_stands_alone_or_answers_nothing_is_not_joined(
    lang: str, asked: str, said: str
) -> None:
    out = ask([assistant(asked), user(said)], language=lang)
    assert "→" not in out


def test_a_joined_answer_is_replaced_by_a_new_value() -> None:
    out = ask([assistant("What is your budget for the trip?"), user("Around $2,000."),
               user("Actually, my budget for the trip is now $2,500.")])
    assert "$2,500" in out and "$2,000" not in out
    out = ask([assistant("您的预算是多少？"), user("大概两万元。"), user("预算改成三万了。")],
              language="zh")
    assert "三万" in out and "两万" not in out


def test_a_refusal_is_no_decision() -> None:
    out = ask([assistant("How about Hotel Lumière at €140 per night?"),
               user("No, not that one, too far from the station.")])
    assert section(out, "Decisions") == []


# ---------------------------------------------------------------------------------------------
# tasks close when fulfilled


def test_answered_request_leaves_open_tasks_en() -> None:
    out = ask([user("Can you find the opening hours of the Louvre?"),
               assistant("The Louvre is open 9am to 6pm and closed on Tuesdays."),
               user("Please remind me to renew my passport before April 1.")])
    tasks = section(out, "Open tasks")
    assert tasks == ["Please remind me to renew my passport before April 1."]
    assert "9am to 6pm" in out  # what was done is kept as a fact


def test_request_fulfilled_by_a_tool_result_is_closed_zh() -> None:
    call = {"id": "c1", "type": "function",
            "function": {"name": "weather", "arguments": '{"city": "北京", "day": "明天"}'}}
    out = ask([user("帮我查一下明天北京的天气。"),
               {"role": "assistant", "content": "", "tool_calls": [call]},
               {"role": "tool", "tool_call_id": "c1", "content": "北京 明天 晴 3-12°C"},
               assistant("北京明天晴，3到12度。")], language="zh")
    assert section(out, "待办") == []
    assert "晴" in out


def test_a_promise_does_not_close_a_task() -> None:
    out = ask([user("Please book a table at Nopa for Friday."),
               assistant("Sure, I'll book Nopa for Friday.")])
    assert any("Nopa" in t for t in section(out, "Open tasks"))


def test_a_carried_open_task_is_closed_by_a_later_fold() -> None:
    previous = "Open tasks:\n- Please book a table at Nopa for Friday."
    out = ask([assistant("Done: the table at Nopa is booked for Friday at 7pm.")],
              previous=previous)
    assert section(out, "Open tasks") == []
    assert "7pm" in out


def test_a_done_request_keeps_what_the_user_asked_for_zh() -> None:
    # The report ("已为您预订如家") leaves out the user's area, budget and dates: the request
    # stays, marked done, instead of vanishing with them.
    out = ask([user("帮我订一家浦东新区的酒店，预算每晚860元以内，2月5日入住，住2晚。"),
               assistant("为您找到两家：如家每晚800元；汉庭每晚850元。您选哪家？"),
               user("就如家吧。"),
               assistant("已为您预订如家，订单号H123456，入住时请出示身份证。")], language="zh")
    assert section(out, "待办") == []
    done = [line for line in section(out, "事实") if line.endswith("（已完成）")]
    assert len(done) == 1 and "浦东新区" in done[0] and "860" in done[0]
    assert "H123456" in out


def test_a_report_that_says_what_was_done_replaces_the_request_en() -> None:
    out = ask([user("Please book a table for 4 at Nobu on Friday at 7pm."),
               assistant("Done: booked a table for 4 at Nobu on Friday at 7pm, "
                         "confirmation NB-2231.")])
    assert section(out, "Open tasks") == []
    assert "(done)" not in out  # the report says it all: no second line for the request
    assert "NB-2231" in out


def test_a_cancelled_request_is_not_kept_as_done() -> None:
    out = ask([user("Please book the dinner at Nobu for Friday."),
               assistant("Noted."),
               user("Actually, cancel the dinner at Nobu.")])
    assert "(done)" not in out and section(out, "Open tasks") == []


def test_a_bare_report_is_said_by_the_done_mark() -> None:
    # "Reminder set." and "Here's a queue:" add nothing to the request they close: one line,
    # marked done. A report with something of its own (an order number) stays beside it.
    out = ask([user("Please remind me to call Bob at 5pm."), assistant("Reminder set."),
               user("Can you write a queue in Python?"), assistant("Here's a queue:")])
    assert section(out, "Open tasks") == [
        "Please remind me to call Bob at 5pm. (reminder set)"]
    assert section(out, "Facts") == ["Can you write a queue in Python? (done)"]
    zh = ask([user("帮我订周六晚上8点6个人的位子，在海底捞。"),
              assistant("已订好周六晚上8点海底捞6位，订单号HD5521。")], language="zh")
    assert section(zh, "待办") == [] and "HD5521" in zh


@pytest.mark.parametrize(("request_text", "effect"), [
    ("Book a table for 4 at Nobu on Friday.", True),
    ("Please email the itinerary to Priya.", True),
    ("Remind me to renew my passport.", True),
    ("Can you cancel my gym membership?", True),
    ("帮我订一家浦东的酒店。", True),
    ("给张经理发个邮件。", True),
    ("提醒我周五交房租。", True),
    ("Can you write a closure in JavaScript?", False),
    ("Explain Python decorators.", False),
    ("Translate this text into Spanish.", False),
    ("What time does the pharmacy open?", False),
    ("帮我写一首关于秋天的诗。", False),
    ("解释一下什么是闭包。", False),
])
def test_a_request_changes_the_world_or_asks_for_an_answer(request_text: str,
                                                          effect: bool) -> None:
    assert changes_world(request_text) is effect


def test_a_code_told_before_an_answered_ask_stays_the_users_fact() -> None:
    # The draft repeats the plate, but in the assistant's words, which later folds let go
    # first; the user told it of their own.
    for said, reply, code in [
        ("It's a 2021 Subaru Outback, plate 8MZT442, can you write the permit request as a "
         "short email?", "Here you go: 'Hello, please issue a resident permit for my 2021 "
         "Subaru Outback, plate 8MZT442. Thanks!'", "8MZT442"),
        ("It's a 2019 Mazda CX-5, plate 7KXR219, can you format it as a short email?",
         "Here you go: 'Hi, please register my vehicle for visitor parking: 2019 Mazda CX-5, "
         "license plate 7KXR219. Thanks!'", "7KXR219"),
    ]:
        out = ask([user(said), assistant(reply)])
        assert any(code in line for line in user_lines(out)), out
    # An answered ask with no code of the user's own is history, as before.
    out = ask([user("We land around nine, can you suggest a dinner spot near the hotel?"),
               assistant("Try Tasca do Chico, a ten-minute walk, open until midnight.")])
    assert "- We land around nine." not in out, out


def test_an_answered_question_yields_to_facts_a_done_booking_does_not() -> None:
    # Twenty questions the replies answered fill the summary; the facts said after them
    # still get in: "can you write a trie in Python? (done)" is what was discussed, not memory.
    asked = "".join(f"- can you write a {w} in Python? (done)\n" for w in (
        "trie", "stack", "queue", "heap", "graph", "closure", "generator", "decorator",
        "context manager", "linked list"))
    out = f"Facts:\n{asked}- Book a table at Nobu for Friday. (done)"
    cap = count(out)
    for fact in ("The wifi password at the cabin is pinecone88.", "My manager is Ruth Okafor.",
                 "My blood type is O negative."):  # one fact per fold, the cap full each time
        request = SummaryRequest(out, [user(fact)], "en", cap)  # type: ignore[arg-type]
        out = ExtractiveSummarizer(count=count).summarize(request)
    assert "pinecone88" in out and "Ruth Okafor" in out and "O negative" in out
    assert "Nobu" in out  # a booking made is worth remembering as done


@pytest.mark.parametrize(("fact", "key"), [
    ("The repo is called billing-core.", "billing-core"),
    ("Our team uses tabs and a line length of 100.", "line length"),
    ("Our API rate limit is 600 requests per minute.", "600 requests"),
    ("我们的项目名叫星火。", "星火"),
])
def test_what_a_thing_is_called_and_what_a_team_uses_outrank_an_outing(fact: str,
                                                                        key: str) -> None:
    out = ask([user(fact), user("We watched a movie with Tom at the cinema yesterday.")],
              max_tokens=20)
    assert key in out and "cinema" not in out


def test_it_was_called_off_names_nothing() -> None:
    out = ask([user("It was called off, whatever."),
               user("We watched a movie with Tom at the cinema yesterday.")], max_tokens=20)
    assert "cinema" in out and "called off" not in out


@pytest.mark.parametrize(("line", "lookup"), [
    ("Tool search_hotels(city=Rome) → hotels=[…]", True),
    ("Tool get_weather(city=Rome) → high=21", True),
    ("Tool webSearch(q=visa rules) → …", True),
    ("工具 search_flights(to=Rome) → …", True),
    ("Tool book_hotel(name=Hotel Sol) → confirmation=HS-1", False),
    ("Tool sendEmail(to=bob@example.com) → ok", False),
    ("Tool run_sql(q=…) → 3 rows", False),  # may have changed something: not a lookup
    ("Tool result: 42", False),
    # What it reads is the user's own: their account, order, booking.
    ("Tool get_user_profile() → plan=Pro, renews=2025-05-03", False),
    ("Tool get_order_status(order_id=A-7731) → status=shipped", False),
    ("Tool listMyBookings() → …", False),
])
def test_a_tool_that_only_reads_is_a_lookup(line: str, lookup: bool) -> None:
    assert looks_up(line) is lookup


def _fold_each(first: str, news: list[list[dict[str, Any]]], cap: int) -> str:
    out = first
    for new in news:  # one fold each, the cap full every time
        out = ExtractiveSummarizer(count=count).summarize(
            SummaryRequest(out, new, "en", cap))  # type: ignore[arg-type]
    return out


def test_stale_lookups_and_answered_questions_yield_to_facts_a_booking_stays() -> None:
    lookups = "".join(
        f"- Tool search_hotels(city={c}, date=2026-05-{d}) → hotels=[name=Hotel Sol {d}, "
        f"eur=1{d}, rating=4.{d % 10}]\n" for c, d in (("Rome", 11), ("Milan", 12),
                                                      ("Paris", 13), ("Vienna", 14)))
    asked = "- Any flights from Hamburg to Rome on 2026-05-26?\n"
    booked = "- Tool book_hotel(name=Hotel Sol 11) → confirmation=HS-5521\n"
    first = f"Facts:\n{lookups}{asked}{booked}"
    facts = ["My wife's name is Sara.", "We have two kids, aged 6 and 9.",
             "My frequent flyer number is LH-88213.", "Our budget is 4,000 euros."]
    out = _fold_each(first, [[user(f)] for f in facts], count(first))
    assert all(key in out for key in ("Sara", "aged 6 and 9", "LH-88213", "4,000")), out
    assert "HS-5521" in out  # what a tool did is memory, not a lookup


def test_the_assistants_relays_yield_to_facts_its_reports_stay() -> None:
    relays = "".join(f"- Assistant: In {c} on 2026-05-{d}: high {d}°C, {d * 3}% chance of rain.\n"
                     for c, d in (("Rome", 11), ("Milan", 12), ("Paris", 13), ("Vienna", 14),
                                  ("Lisbon", 15), ("Porto", 16)))
    first = (f"Facts:\n{relays}- Assistant: Done: I've emailed the itinerary to "
             "priya@example.com.\n- Assistant: Your plan renews on May 3.")
    facts = ["My wife's name is Sara.", "We have two kids, aged 6 and 9.",
             "My frequent flyer number is LH-88213."]
    out = _fold_each(first, [[user(f)] for f in facts], count(first))
    assert all(key in out for key in ("Sara", "aged 6 and 9", "LH-88213")), out
    assert "priya@example.com" in out and "May 3" in out


def test_show_me_is_a_request_and_closes_when_answered() -> None:
    out = ask([user("Show me hotels in Prague for May 3."),
               assistant("Options in Prague for May 3: Hotel Sol €120; Hotel Luna €140.")])
    # The listing says what was asked: the request is done and need not stay; what is left is
    # the choice between what it found.
    assert "Show me" not in out
    assert section(out, "Open tasks") == ["User to choose from: Hotel Sol €120 | Hotel Luna €140"]


def test_a_chinese_budget_is_a_standing_fact() -> None:
    out = ask([user("这次旅行总预算是3万元。"), user("上周六我和王芳去了静安寺。")],
              language="zh", max_tokens=20)
    assert "3万元" in out and "静安寺" not in out


def test_the_assistants_my_name_is_never_the_users_name() -> None:
    # Both carried: the assistant's line (code it explained) names itself, not the user.
    previous = ("Facts:\n- My name is Priya Raman and I live in Leeds.\n"
                "- Assistant: c.method.whoami = 'my name is method' # can't set on the method")
    out = ExtractiveSummarizer(count=count).summarize(
        SummaryRequest(previous, [user("ok thanks")], "en", 200))  # type: ignore[arg-type]
    assert "My name is Priya Raman" in out


@pytest.mark.parametrize("cap", [20, 30, 40])
def test_a_confirmation_outweighs_the_assistants_explanations(cap: int) -> None:
    # "Done! Booking reference HX-5521." is what was made for the user: memory, however plain
    # its words; the assistant's reference text (names, versions, numbers) is not.
    out = ask([user("Hi"), assistant("Done! Booking reference HX-5521."),
               assistant("Changed in version 3.7: Dictionary order is insertion order."),
               assistant("The Ellipsis Object is used by extended slicing in NumPy 1.2 arrays."),
               assistant("PEP 3115 describes Metaclasses in Python 3000."),
               assistant("Unicode 14.0.0 can be found at unicode.org.")], max_tokens=cap)
    assert "HX-5521" in out


@pytest.mark.parametrize(("told", "key", "lang"), [
    ("Your subscription is the Premium plan and renews on May 3.", "May 3", "en"),
    ("Your order #44821 shipped today via UPS.", "44821", "en"),
    ("您的会员等级是金卡，积分12800分。", "金卡", "zh"),
])
def test_what_the_assistant_tells_of_the_users_own_is_theirs(told: str, key: str,
                                                              lang: str) -> None:
    # A support chat: the account's facts come from the assistant (its tools), not the user.
    chatter = (["Python 3.12 was released in October 2023 with faster CPython.",
                "The Ellipsis Object is used by extended slicing in NumPy 1.2."] if lang == "en"
               else ["Python 3.12于2023年10月发布，速度更快了。",
                     "NumPy 1.2的扩展切片会用到Ellipsis对象。"])
    out = ask([user("hi" if lang == "en" else "你好"), assistant(told),
               *(assistant(c) for c in chatter)], language=lang, max_tokens=22)
    assert key in out
    assert "Your question" not in ask([user("How do refunds work?"),
                                       assistant("Your question is a good one, Maria.")])


@pytest.mark.parametrize(("lang", "before", "after", "gone", "kept"), [
    ("en", [user("Please book the dentist for Thursday."),
            assistant("Booked: dentist on Thursday at 10am.")],
     [user("No, I said Tuesday, not Thursday!"),
      assistant("Sorry! Changed: dentist on Tuesday at 10am.")], "Thursday at 10am", "Tuesday"),
    ("zh", [user("帮我订周四的牙医。"), assistant("已为您预约周四上午10点的牙医。")],
     [user("不对，我说的是周二，不是周四！"), assistant("抱歉，已改为周二上午10点。")],
     "周四上午10点", "周二"),
])
def test_the_assistant_changes_what_it_said_itself(lang: str, before: list[dict[str, Any]],
                                                  after: list[dict[str, Any]], gone: str,
                                                  kept: str) -> None:
    first = ExtractiveSummarizer(count=count).summarize(
        SummaryRequest("", before, lang, 200))  # type: ignore[arg-type]
    out = ExtractiveSummarizer(count=count).summarize(
        SummaryRequest(first, after, lang, 200))  # type: ignore[arg-type]
    assert gone not in out and kept in out


@pytest.mark.parametrize(("lang", "said", "ended", "gone", "kept"), [
    ("en", "I'm vegetarian and I live in Leeds.", "I'm not vegetarian anymore, I eat fish now.",
     "I'm vegetarian", "Leeds"),
    ("en", "I'm a member of the chess club. Remember that my gate code is 4512.",
     "I'm no longer a member, too busy.", "chess club", "4512"),
    ("zh", "我2015年毕业于武汉大学，在腾讯工作。", "我从腾讯离职了。", "在腾讯工作", "武汉大学"),
    ("zh", "我在阿里巴巴做数据分析。", "我已经从阿里巴巴离职了，现在在字节跳动。", "做数据分析",
     "字节跳动"),
    # "不吃素" holds "吃素": the negation must not hide the diet it changes.
    ("zh", "我是素食者，住在成都。", "我现在不吃素了，开始吃鱼。", "素食者", "吃鱼"),
])
def test_a_state_the_user_left_is_taken_out(lang: str, said: str, ended: str, gone: str,
                                            kept: str) -> None:
    out = ask([user(said), user(ended)], language=lang)
    assert gone not in out and kept in out


@pytest.mark.parametrize(("lang", "decided", "again", "gone", "kept"), [
    ("en", "Let's go with Postgres for the database.", "Actually, let's use MySQL instead.",
     "Postgres", "MySQL"),
    ("en", "We decided to launch on May 1.", "We pushed the launch to May 15.", "May 1.",
     "May 15"),
    ("zh", "我们决定用React做前端。", "还是改用Vue吧。", "React", "Vue"),
    ("zh", "数据库就用Postgres。", "数据库换成MySQL。", "Postgres", "MySQL"),
])
def test_a_decision_taken_back_replaces_it(lang: str, decided: str, again: str, gone: str,
                                           kept: str) -> None:
    first = ExtractiveSummarizer(count=count).summarize(
        SummaryRequest("", [user(decided)], lang, 200))  # type: ignore[arg-type]
    out = ExtractiveSummarizer(count=count).summarize(
        SummaryRequest(first, [user(again)], lang, 200))  # type: ignore[arg-type]
    assert gone not in out and kept in out


def test_a_bare_instead_replaces_nothing_when_two_decisions_could_be_meant() -> None:
    out = ask([user("Let's go with Postgres for the database."),
               user("We'll go with Vue for the frontend."),
               user("Actually, let's use MySQL instead.")])
    assert "Postgres" in out and "Vue" in out and "MySQL" in out


@pytest.mark.parametrize(("lang", "request_text", "later", "still_open"), [
    ("en", "I need to pay the electricity bill by Friday.",
     user("Paid the electricity bill this morning."), False),
    ("en", "I still have to finish the quarterly report.",
     user("Finally finished the quarterly report!"), False),
    ("en", "Book a table at Nopa for Saturday.",
     assistant("Nopa is fully booked on Saturday. Want me to try Sunday?"), True),
    ("en", "Please renew my gym membership.",
     assistant("I wasn't able to renew it: the card on file expired."), True),
    ("zh", "我得在周五前交电费。", user("电费今天早上交了。"), False),
    ("zh", "我还得写完季度报告。", user("季度报告终于写完了！"), False),
    ("zh", "帮我订周六晚上的海底捞。", assistant("周六晚上海底捞已经订满了，要不要试试周日？"),
     True),
    ("zh", "把PPT发给马可。", assistant("好的，我马上把PPT发给马可。"), True),
])
def test_done_said_without_i_closes_a_task_fully_booked_does_not(
        lang: str, request_text: str, later: dict[str, Any], still_open: bool) -> None:
    out = ask([user(request_text), later], language=lang)
    tasks = section(out, "Open tasks" if lang == "en" else "待办")
    assert any(request_text[:6] in t for t in tasks) is still_open, out


@pytest.mark.parametrize(("lang", "asked", "reply", "decided"), [
    ("en", "Shall I book the Hotel Arts in Barcelona for you?", "Yes, let's go with that.",
     "User agreed: book the Hotel Arts in Barcelona"),
    ("en", "Would you like the walnut table or the oak one?", "The walnut one, definitely.",
     "User chose: walnut table"),
    ("en", "Found two: the Hoxton at £180 and the Ace at £195. Which one?", "The Hoxton, please.",
     "User chose: Hoxton at £180"),
    ("zh", "要不要帮你订西湖边的香格里拉酒店？", "好的，就订这家。",
     "用户同意：订西湖边的香格里拉酒店"),
    ("zh", "你想要靠窗的位置还是包间？", "包间吧。", "用户选择：包间"),
])
def test_an_offer_the_fold_ended_on_is_decided_by_the_next_folds_first_reply(
        lang: str, asked: str, reply: str, decided: str) -> None:
    # The fold boundary fell between the offer and the answer: the offer waits under Open
    # tasks for one fold, and the answer that opens the next fold makes the decision.
    s = ExtractiveSummarizer(count=count)
    opening = [user("hi" if lang == "en" else "你好"), assistant(asked)]
    first = s.summarize(SummaryRequest("", opening, lang, 200))  # type: ignore[arg-type]
    assert asked[:10] in "".join(section(first, "Open tasks" if lang == "en" else "待办"))
    out = s.summarize(SummaryRequest(first, [user(reply)], lang, 200))  # type: ignore[arg-type]
    assert decided in out and asked[:10] not in "".join(
        section(out, "Open tasks" if lang == "en" else "待办")), out


def test_a_waiting_offer_not_answered_first_leaves_and_decides_nothing() -> None:
    s = ExtractiveSummarizer(count=count)
    first = s.summarize(SummaryRequest(
        "", [user("hi"), assistant("Shall I book the Hotel Arts in Barcelona for you?")], "en",
        200))  # type: ignore[arg-type]
    out = s.summarize(SummaryRequest(
        first, [assistant("Also, the museum is closed on Mondays."), user("Yes, sure.")], "en",
        200))  # type: ignore[arg-type]
    assert "agreed" not in out and "Shall I book" not in out


def test_a_question_is_answered_by_its_whole_reply_and_across_a_fold() -> None:
    # The topic word comes late in a long answer; and the fold can fall between the question
    # and its answer, which then opens the next fold.
    answer = " ".join(f"Sentence {i} is about something else entirely." for i in range(20))
    answer += " In short, decorators are syntax sugar for wrapping a function."
    out = ask([user("Can you explain decorators?"), assistant(answer), user("ok")],
              max_tokens=600)
    assert section(out, "Open tasks") == []
    s = ExtractiveSummarizer(count=count)
    first = s.summarize(SummaryRequest(
        "", [user("Can you explain decorators?")], "en", 200))  # type: ignore[arg-type]
    assert section(first, "Open tasks") == ["Can you explain decorators?"]
    out = s.summarize(SummaryRequest(
        first, [assistant(answer), user("Thanks! Book a table at Nopa for Friday.")], "en",
        600))  # type: ignore[arg-type]
    assert section(out, "Open tasks") == ["Book a table at Nopa for Friday."]


@pytest.mark.parametrize(("lang", "request_text", "reports", "done"), [
    ("en", "Please book flights and a hotel for Lisbon, May 3-7.",
     ["Flights booked: TP123 on May 3, return TP456 on May 7."], False),
    ("en", "Please book flights and a hotel for Lisbon, May 3-7.",
     ["Flights booked: TP123 on May 3.", "Hotel booked: Hotel Sol, confirmation HS-77."], True),
    ("en", "Book a table for me and my wife at Nopa on Friday.",
     ["Booked: Nopa, Friday 8pm, table for 2."], True),
    ("zh", "帮我订去里斯本的机票和酒店，5月3日到7日。",
     ["机票已订好：5月3日TP123，5月7日返程TP456。"], False),
    ("zh", "帮我订去里斯本的机票和酒店，5月3日到7日。",
     ["机票已订好：5月3日TP123。", "酒店已订好：阳光酒店，订单号HS77。"], True),
])
def test_a_request_for_two_things_is_done_when_both_are_reported(
        lang: str, request_text: str, reports: list[str], done: bool) -> None:
    out = ask([user(request_text), *(assistant(r) for r in reports)], language=lang)
    tasks = section(out, "Open tasks" if lang == "en" else "待办")
    assert (tasks == []) is done, out


def test_code_the_assistant_wrote_closes_the_request_for_it() -> None:
    code = "这是代码：\n```python\n@app.get('/health')\ndef health():\n    return {}\n```"
    out = ask([user("帮我写一个 FastAPI 的 health check endpoint。"), assistant(code)],
              language="zh")
    assert section(out, "待办") == []
    assert section(out, "事实") == ["帮我写一个 FastAPI 的 health check endpoint。（已完成）"]


def test_a_sentence_without_a_word_says_nothing() -> None:
    out = ask([user("My flight is BA117 on May 3."), user("(12)"), user("3/4"),
               user("我也这么觉得。")])
    assert section(out, "Facts") == ["My flight is BA117 on May 3."]


def test_naming_one_of_the_listed_options_is_a_choice() -> None:
    out = ask([user("Find me a yoga class near Union Square on weekends."),
               assistant("Found two: Sun Yoga (Sat 10am) and Flow Studio (Sun 9am). "
                         "Want me to sign you up for one?"),
               user("Sun Yoga, please.")])
    assert "User chose: Sun Yoga (Sat 10am)" in section(out, "Decisions")
    zh = ask([user("帮我订一家浦东新区的酒店。"),
              assistant("为您找到两家：如家每晚800元；汉庭每晚850元。您选哪家？"),
              user("就如家吧。")], language="zh")
    assert "用户选择：如家每晚800元" in section(zh, "决定")
    # Naming something the assistant did not list, or asking back, chooses nothing.
    none = ask([assistant("Found Sun Yoga and Flow Studio. Which one?"), user("Neither, sorry."),
                assistant("Which do you want?"), user("What about Zen Den?")])
    assert section(none, "Decisions") == []


def test_a_pick_among_listed_options_is_a_choice_even_worded_as_a_yes() -> None:
    # "Let's go with the Hilton" accepts one option, not the whole listing; the listing leaves.
    out = ask([assistant("I found two options: the Marriott at $220/night or the Hilton at "
                         "$180/night. Which do you prefer?"),
               user("Let's go with the Hilton.")])
    assert section(out, "Decisions") == ["User chose: the Hilton at $180/night"]
    assert "Marriott" not in out
    zh = ask([assistant("有两个选择：全季酒店每晚380元，或者亚朵每晚460元。您选哪个？"),
              user("选亚朵吧。")], language="zh")
    assert section(zh, "决定") == ["用户选择：亚朵每晚460元"]
    assert "全季" not in zh


def test_an_offer_asked_as_yao_ding_ma_is_accepted_and_the_search_is_done() -> None:
    out = ask([user("帮我查一下北京到成都的机票。"),
               assistant("查到国航CA4113，周五14:05起飞，票价1280元。要订吗？"),
               user("好的，订吧。")], language="zh")
    assert section(out, "决定") == ["用户同意：查到国航CA4113，周五14:05起飞，票价1280元。"]
    assert section(out, "待办") == []


def test_x_it_is_and_lets_not_are_decisions() -> None:
    out = ask([user("OK, Postgres it is."), user("Let's not invite Kevin to the party."),
               user("It is what it is.")])
    assert section(out, "Decisions") == [
        "Postgres it is.", "Let's not invite Kevin to the party."]


@pytest.mark.parametrize("said", [
    "Let's meet at 7pm at Blue Bottle on Friday.", "The team voted for option B.",
    "We voted to move the offsite to June.", "Let's go with the blue logo.",
])
def test_a_plan_or_a_vote_is_a_decision(said: str) -> None:
    assert section(ask([user(said)]), "Decisions") == [f"{said}"]


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "Let's do the 10am slot then."),
    ("en", "I'm going to take the job offer from Canva."),
    ("en", "We accepted the offer on the house."),
    ("zh", "就定这家了，西贝。"),
    ("zh", "想了想，还是不买新手机了。"),
    ("zh", "我接受了美团的offer。"),
    ("en", "After thinking it over, I'll keep my old car instead of buying a new one."),
    ("en", "Let's do pizza rather than sushi tonight."),
])
def test_a_choice_said_in_passing_is_a_decision(lang: str, said: str) -> None:
    out = ask([user(said)], language=lang)
    assert any(said.rstrip("。.").split("，")[-1] in d
               for d in section(out, "Decisions" if lang == "en" else "决定")), out


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "Let's do it!"), ("zh", "这家店还是不错的。"), ("zh", "我还是不太明白。"),
    # What happened instead of something else, and a hedged choice.
    ("en", "I went to the park instead of the gym yesterday."),
    ("en", "I'll probably go with the blue one instead of the red one, maybe."),
])
def test_words_of_choosing_in_chatter_decide_nothing(lang: str, said: str) -> None:
    assert section(ask([user(said)], language=lang), "Decisions" if lang == "en" else "决定") == []


@pytest.mark.parametrize(("lang", "offer", "reply", "chosen"), [
    ("en", "Maybe use Postgres for the job queue?", "Yes, let's do that.", "Postgres"),
    ("en", "I can book the Marriott for $190 a night or the Westin for $230.",
     "Book the Westin.", "Westin"),
    ("zh", "可以订全季每晚400元，或者亚朵每晚520元。", "订亚朵。", "亚朵"),
])
def test_an_offer_of_this_or_that_and_the_pick_are_a_decision(
    lang: str, offer: str, reply: str, chosen: str
) -> None:
    out = ask([assistant(offer), user(reply)], language=lang)
    assert any(chosen in d for d in section(out, "Decisions" if lang == "en" else "决定")), out


@pytest.mark.parametrize(("offer", "reply"), [
    ("Maybe try yoga sometime?", "Yeah, maybe!"),  # a passing thought names nothing
    ("You could try painting or pottery.", "Pottery sounds fun."),  # no offer to act
])
def test_a_suggestion_in_passing_is_no_decision(offer: str, reply: str) -> None:
    assert section(ask([assistant(offer), user(reply)]), "Decisions") == []


@pytest.mark.parametrize(("lang", "task", "report"), [
    ("en", "I have to finish the quarterly report by Friday.",
     "Quarterly report is finished and sent to my boss."),
    ("en", "I have to call the plumber about the kitchen sink.",
     "The plumber came this morning and fixed the sink."),
    ("en", "I need to renew my passport before June.",
     "Got my renewed passport back in the mail today!"),
    ("zh", "季度报告周五前要写完。", "季度报告终于写好了。"),
    ("zh", "我得去续签护照。", "续签护照的事办好了。"),
    ("zh", "我还没交个税申报。", "个税申报昨晚弄完了。"),
    # Reported by the one word that names the thing: enough when no other task shares it.
    ("zh", "我还得去办签证。", "签证今天寄到了。"),
    ("zh", "我还没交个税申报。", "个税昨晚终于申报完了。"),
    # What was bought or booked is spoken of: it was done.
    ("zh", "周末前得订好餐厅。", "我订的那家餐厅评价很好。"),
    ("en", "I need to buy a birthday gift for my mom.",
     "Mom loved the scarf I got her for her birthday."),
    # The thing is named by a word of three letters.
    ("en", "I need to get my car washed.", "The car is done, it looks brand new."),
    # Done said by what was done, the thing first, or with more after it.
    ("en", "I need to pick up the dry cleaning.", "Picked up the dry cleaning after work."),
    ("en", "I have to return the rental car by Sunday.", "Rental car returned, all good."),
    ("zh", "我还得去快递站取快递。", "下班路上把快递取了。"),
    ("zh", "我明天得还充电宝。", "充电宝还了，押金也退了。"),
    ("zh", "我得给猫约个宠物医院体检。", "给宠物医院打了电话，约了周六上午9点。"),
    ("zh", "周末得给外婆打个电话。", "给外婆打了电话，她挺好的。"),
])
@pytest.mark.parametrize("carried", [False, True])
def test_the_users_own_task_is_open_until_they_report_it_done(
    lang: str, task: str, report: str, carried: bool
) -> None:
    title = "Open tasks" if lang == "en" else "待办"
    assert section(ask([user(task)], language=lang), title) == [task]
    chatter = user("Nice weather today." if lang == "en" else "今天天气不错。")
    if carried:
        out = ask([chatter, user(report)], previous=ask([user(task)], language=lang),
                  language=lang)
    else:
        out = ask([user(task), chatter, user(report)], language=lang)
    assert section(out, title) == []


@pytest.mark.parametrize(("lang", "task", "later"), [
    ("en", "I have to finish the quarterly report by Friday.",
     "The quarterly report is taking forever."),
    ("en", "I need to renew my passport before June.", "I looked up the passport office hours."),
    ("zh", "季度报告周五前要写完。", "季度报告写得好累啊。"),
    ("zh", "我得去续签护照。", "查了一下护照办理的时间。"),
    ("zh", "周末前得订好餐厅。", "想订的那家餐厅周末没位子了。"),
    ("en", "I need to buy a birthday gift for my mom.",
     "The gift I got from Mom for my birthday was lovely."),
    ("zh", "周末得给外婆打个电话。", "外婆最近身体挺好的。"),
])
def test_progress_on_a_task_does_not_close_it(lang: str, task: str, later: str) -> None:
    out = ask([user(task), user(later)], language=lang)
    assert section(out, "Open tasks" if lang == "en" else "待办") == [
        task]


@pytest.mark.parametrize(("lang", "tasks", "report", "still_open"), [
    # The report names the photos task by two words, the passport task by one: only the
    # photos are done.
    ("en", ["I need to renew my passport before June.", "I need to get passport photos taken."],
     "The passport photos are done.", ["I need to renew my passport before June."]),
    ("zh", ["我得去续签护照。", "我还得拍护照照片。"], "护照照片拍好了。", ["我得去续签护照。"]),
    # One word shared with two tasks alike: which one was done is not said, both stay open.
    ("en", ["I need to renew my passport.", "I have to replace my lost passport."],
     "Passport is sorted.",
     ["I need to renew my passport.", "I have to replace my lost passport."]),
    ("zh", ["我得去续签护照。", "我还得找到旧护照。"], "护照的事弄好了。",
     ["我得去续签护照。", "我还得找到旧护照。"]),
])
def test_a_report_sharing_one_word_closes_only_the_task_it_alone_names(
    lang: str, tasks: list[str], report: str, still_open: list[str]
) -> None:
    chatter = user("Nice weather today." if lang == "en" else "今天天气不错。")
    out = ask([*map(user, tasks), chatter, user(report)], language=lang)
    assert sorted(section(out, "Open tasks" if lang == "en" else "待办")) == sorted(still_open)


def test_the_users_own_report_closes_their_task_and_keeps_what_they_did() -> None:
    previous = "Open tasks:\n- I still need to buy a gift for Anna's birthday."
    out = ask([user("I bought Anna a scarf yesterday.")], previous=previous)
    assert section(out, "Open tasks") == []
    assert "I bought Anna a scarf yesterday." in section(out, "Facts")


def test_weather_and_feelings_with_only_a_day_are_chatter() -> None:
    out = ask([user("The weather was so nice today, it felt amazing."),
               user("I went to a support group yesterday and it was so powerful."),
               user("今天天气真好，心情特别开心。")], max_tokens=20)
    # How it felt goes with the chatter; the event and its day are the fact.
    assert section(out, "Facts") == ["I went to a support group yesterday."]


@pytest.mark.parametrize("said, kept", [
    ("I went to a pride parade last Friday and it was awesome.",
     "I went to a pride parade last Friday."),
    ("We drove to Tahoe on Saturday but it was so tiring.", "We drove to Tahoe on Saturday."),
    # What followed is a fact, not a feeling: it stays.
    ("I went to the museum on Monday and it was closed.",
     "I went to the museum on Monday and it was closed."),
    ("I signed up for the pottery class and it was $120 for six weeks.",
     "I signed up for the pottery class and it was $120 for six weeks."),
])
def test_a_feeling_joined_by_and_leaves_the_event(said: str, kept: str) -> None:
    assert section(ask([user(said)]), "Facts") == [f"{kept}"]


@pytest.mark.parametrize("cut", [0, 1, 3, 4])
def test_a_booking_closed_after_a_pick_wherever_the_fold_falls(cut: int) -> None:
    # ask → listing → pick → confirmation: the confirmation names the pick, not the request;
    # what the user chose bridges the two, and a reference number says it was made.
    for lang, talk, done in [
        ("zh", [user("帮我订一家浦东新区的酒店，每晚900元以内。"),
                assistant("为您找到两家：如家每晚800元；汉庭每晚850元。您选哪家？"),
                user("就如家吧。"), assistant("已为您预订如家，订单号H123456。")], "待办"),
        ("en", [user("Book me a hotel in Shoreditch under £200 a night for May 3-5."),
                assistant("Found two: the Hoxton at £180 and the Ace at £195. Which one?"),
                user("The Hoxton, please."), assistant("Done! Booking reference HX-5521.")],
         "Open tasks"),
    ]:
        previous = ask(talk[:cut], language=lang) if cut else ""
        out = ask(talk[cut:], previous=previous, language=lang)
        assert section(out, done) == [], out
        assert "H123456" in out or "HX-5521" in out


def test_a_reference_with_no_word_in_common_closes_only_the_latest_request() -> None:
    out = ask([user("帮我订一家酒店。"), user("再帮我订个餐厅。"),
               assistant("已为您预订，订单号R7788。")], language="zh")
    assert section(out, "待办") == ["帮我订一家酒店。"]


def test_durable_facts_said_once_outrank_a_one_off_event_with_a_date() -> None:
    # With room for one line, a standing attribute ("my X is…"), a health condition, a pet's
    # name, a secret are kept before an outing of last week.
    event = user("Last weekend I went to the farmers market and it was so much fun.")
    for fact in ["I'm lactose intolerant.",
                 "We have a golden retriever named Biscuit.", "My employee ID is E-20417.",
                 "我的工号是E20417。", "我乳糖不耐受。"]:
        out = ask([event, user(fact)], max_tokens=25)
        assert fact.rstrip(".。") in out, out


def test_chinese_life_facts_outrank_an_outing() -> None:
    event = user("昨天我们去公园玩了，特别开心。")
    for fact in ["我2012年毕业于武汉大学。", "我穿42码的鞋。", "我妈妈住在昆明。",
                 "我们家有一只金毛，叫饼干。", "我学日语已经三年了。"]:
        out = ask([event, user(fact)], language="zh", max_tokens=22)
        assert fact.rstrip("。") in out, out
    # An opinion that mentions a life event is no fact of the speaker's.
    assert "出生" not in ask([event, user("我觉得出生在那个年代挺好的。")], language="zh",
                            max_tokens=22)


def test_a_reply_of_code_alone_closes_the_request() -> None:
    out = ask([user("Please write a unit test for the retry logic."),
               assistant("```python\ndef test_retries(mock_http):\n    mock_http.fail_times(2)\n"
                         "    assert client.get('/x').status_code == 200\n```")])
    assert section(out, "Open tasks") == []
    assert section(out, "Facts") == ["Please write a unit test for the retry logic. (done)"]


def test_an_accepted_recommendation_keeps_no_stray_space() -> None:
    out = ask([assistant("建议用 Redis，支持持久化。"), user("行，就用 Redis。")], language="zh")
    assert section(out, "决定") == ["用户同意：Redis，支持持久化"]


@pytest.mark.parametrize(("language", "said", "decision"), [
    ("en", "We agreed to split the bill 60/40.", "60/40"),
    ("zh", "我们商量好了，周末去杭州。", "杭州"),
    ("zh", "那就周五晚上7点在星巴克见。", "星巴克"),
])
def test_agreements_and_plans_are_decisions(language: str, said: str, decision: str) -> None:
    out = ask([user(said)], language=language)
    assert any(decision in d for d in section(out, "Decisions" if language == "en" else "决定"))


def test_an_option_picked_by_its_label() -> None:
    out = ask([assistant("Option A: $500, 2 weeks. Option B: $800, 1 week. Which one?"),
               user("B.")])
    assert section(out, "Decisions") == ["User chose: Option B: $800, 1 week"]
    zh = ask([assistant("方案A：500元，两周；方案B：800元，一周。选哪个？"), user("B吧。")],
             language="zh")
    assert section(zh, "决定") == ["用户选择：方案B：800元，一周"]


def test_a_yes_no_question_with_or_offers_no_choice() -> None:
    out = ask([assistant("Do you have any favorite scents or rituals for when you do it?"),
               user("Lavender scents, mostly.")])
    assert section(out, "Decisions") == []


def test_a_report_of_the_asked_verb_closes_the_request() -> None:
    out = ask([user("Book a dentist appointment for next Tuesday morning."),
               assistant("Booked: Dr. Kim, Tuesday 9:30am, confirmation DK-220.")])
    assert section(out, "Open tasks") == [] and "DK-220" in out
    # A promise to do it is no report.
    promise = ask([user("Please book a table at Nopa for Friday."),
                   assistant("Sure, I'll book Nopa for Friday.")])
    assert section(promise, "Open tasks") == [
        "User asked: Please book a table at Nopa for Friday."]


def test_the_assistants_advice_is_no_open_task() -> None:
    out = ask([user("My printer is not printing."),
               assistant("Make sure it's connected and check the drivers.")])
    assert section(out, "Open tasks") == []


def test_calling_off_a_request_long_after_it_closes_it() -> None:
    chatter = [user(f"第{n}天的天气还不错，我们去公园走了走，看到了很多花。") for n in range(20)]
    out = ask([user("帮我买两盒惠普305墨盒。"), assistant("好的。"), *chatter,
               user("墨盒不用买了，家里还有。")], language="zh", max_tokens=200)
    assert section(out, "待办") == []
    en = ask([user("Please order printer ink, the HP 305 cartridges."), assistant("OK."),
              *[user(f"Day {n}: we walked in the park and saw lots of flowers.")
                for n in range(20)],
              user("Actually cancel the printer ink order, I found some at home.")],
             max_tokens=200)
    assert section(en, "Open tasks") == []


def test_the_assistants_own_taste_is_no_preference() -> None:
    out = ask([user("What's your favourite story?"), assistant("我最喜欢的故事是2001年。")],
              language="zh")
    assert section(out, "偏好") == []


def test_a_bare_imperative_is_a_request() -> None:
    out = ask([user("Book a table for 4 at Nobu on Friday."), assistant("Sure."),
               user("Check this out!"), user("Call me Dana.")])
    assert section(out, "Open tasks") == ["Book a table for 4 at Nobu on Friday."]
    # A verb that opens a statement, not an order: nothing to act on follows it.
    statements = ask([user("Update: my budget for the trip is now $4,500."),
                      user("Put simply, I hate crowds."),
                      user("List of things I need: milk, eggs and bread."),
                      user("Order matters here, so go step by step.")])
    assert section(statements, "Open tasks") == []
    zh = ask([user("查一下8月18日从青岛到杭州的航班。"), assistant("好的。"),
              user("给张经理发个邮件，说会议改到周三。"), assistant("好的。")], language="zh")
    assert sorted(section(zh, "待办")) == sorted(["查一下8月18日从青岛到杭州的航班。",
                                                "给张经理发个邮件，说会议改到周三。"])


def test_numbers_asked_for_and_reported_close_a_request() -> None:
    out = ask([user("找一家浦东新区的素食餐厅，6个人，晚上18点。"),
               assistant("推荐「李素食馆」，人均240元，评分4.6。需要预订吗？"),
               user("好的，订吧。"),
               assistant("已订好18点6位，预订号R7281。")], language="zh")
    assert section(out, "待办") == []
    assert "找一家浦东新区的素食餐厅，6个人，晚上18点。（已完成）" in section(out, "事实")
    # One number in common is chance: the weather on Friday books no table.
    en = ask([user("Please book a table for 4 at Nopa, Friday 7pm."),
              assistant("Here's the weather for Friday: 7 degrees, sunny.")])
    assert section(en, "Open tasks") == ["Please book a table for 4 at Nopa, Friday 7pm."]


def test_a_yes_to_a_listing_of_options_chooses_none_of_them() -> None:
    # The options end at ";" and hold commas of their own: each is kept whole, none chosen.
    en = ask([user("Search caterers for our barn wedding, about 130 people."),
              assistant("Three options: Verde Cocina, family-style Mexican at $58 a head; "
                        "Olympia Provisions, grazing stations at $74; and "
                        "Harvest Table Co., plated at $82 with a 100-guest minimum."),
              user("Yeah, they always sleep like that. They cuddle up together.")])
    assert section(en, "Decisions") == []
    assert ("User to choose from: Verde Cocina, family-style Mexican at $58 a head | Olympia "
            "Provisions, grazing stations at $74 | Harvest Table Co., plated "
            "at $82 with a 100-guest minimum") in section(en, "Open tasks")
    zh = ask([user("帮我找找周末亲子活动，预算三百以内"),
              assistant("有两个方案：科技馆，门票60元一位；或者植物园，门票30元，还能野餐。"),
              user("好的，孩子最近有点咳嗽。")], language="zh")
    assert section(zh, "决定") == []
    assert "用户待选：科技馆，门票60元一位 | 植物园，门票30元，还能野餐" in section(zh, "待办")
    # A pick still picks, and a recommendation among them is still an offer to say yes to.
    picked = ask([assistant("有两个方案：科技馆，门票60元一位；或者植物园，门票30元，还能野餐。"),
                  user("就选第二个吧")], language="zh")
    assert "用户选择：植物园，门票30元，还能野餐" in section(picked, "决定")
    rec = ask([assistant("Two options: Verde Cocina at $58 a head, or Harvest Table at $82. "
                         "I'd recommend Verde Cocina. Want me to book it?"), user("yes please")])
    assert section(rec, "Decisions") == ["User agreed: Verde Cocina"]


def test_a_request_to_remember_is_a_fact_not_a_task() -> None:
    zh = ask([user("帮我记一下，房东陈杰的电话是17156669319。"), assistant("好的，已记下。")],
             language="zh")
    assert section(zh, "待办") == []
    assert section(zh, "事实") == ["房东陈杰的电话是17156669319。"]
    en = ask([user("Please remember that my gate code is 4512."), assistant("Noted.")])
    assert section(en, "Facts") == ["My gate code is 4512."]
    task = ask([user("Remember to call my mom on Sunday.")])  # a task keeps its words
    assert "Remember to call my mom on Sunday." in task


def test_yes_please_accepts_an_offer_that_points_back() -> None:
    out = ask([user("Can you find me a flight from Boston to Denver on May 3?"),
               assistant("Found one: United UA 455, departs 8:10am, $279. Shall I book it?"),
               user("Yes please.")])
    assert [d for d in section(out, "Decisions") if "UA 455" in d]
    assert not any(t.strip(". ").lower() == "user: please" for t in section(out, "Open tasks"))


def test_someone_elses_name_is_not_the_users() -> None:
    out = ask([user("My name is Dana Whitfield, by the way."), assistant("Nice to meet you."),
               user("My manager's name is Priya.")])
    assert "Dana Whitfield" in out and "Priya" in out
    renamed = ask([user("My name is Dana Whitfield, by the way."), assistant("Nice to meet you."),
                   user("Actually my name is Dana Brooks now.")])
    assert "Whitfield" not in renamed and "Brooks" in renamed
    assert "by the way" not in renamed  # no leftover of the replaced statement


# ---------------------------------------------------------------------------------------------
# superseded values


def test_a_new_count_replaces_the_old_en() -> None:
    first = ask([user("I have 17 postcards in my collection.")])
    out = ask([user("Update: I now have 25 postcards.")], previous=first)
    assert "25 postcards" in out and "17" not in out


def test_a_new_count_and_a_new_home_replace_the_old_zh() -> None:
    first = ask([user("我有3只猫。"), user("我住在北京。")], language="zh")
    out = ask([user("我现在有4只猫了。"), user("我搬到上海了。")], previous=first, language="zh")
    assert "4只猫" in out and "3只猫" not in out
    assert "上海" in out and "北京" not in out


def test_my_x_is_y_is_superseded_by_a_new_value() -> None:
    out = ask([user("My favourite band is Muse."), user("Actually my favourite band is Queen.")])
    assert "Queen" in out and "Muse" not in out
    zh = ask([user("我的车是红色的。"), user("我的车是蓝色的了。")], language="zh")
    assert "蓝色" in zh and "红色" not in zh


def test_different_things_are_not_superseded() -> None:
    out = ask([user("I have 2 kids."), user("I have 3 dogs.")])
    assert "2 kids" in out and "3 dogs" in out


# ---------------------------------------------------------------------------------------------
# near duplicates and filler


def test_near_duplicates_and_filler_are_dropped_en() -> None:
    out = ask([user("Hey Mel! I think the lake trip in June was the best part of summer, Mel.",
                    name="Caroline"),
               user("The lake trip in June was the best part of summer!", name="Caroline"),
               user("I totally agree, Melanie.", name="Caroline"),
               assistant("Totally agree, Mel.", name="Melanie"),
               user("ok thanks")])
    assert out.count("lake trip") == 1
    assert "agree" not in out and "ok thanks" not in out and "Hey Mel" not in out


def test_near_duplicates_and_filler_are_dropped_zh() -> None:
    out = ask([user("我下周三要去上海出差。"), user("下周三我要去上海出差。"), user("收到，谢谢"),
               assistant("好的呢")], language="zh")
    assert out.count("上海") == 1
    assert "收到" not in out and "好的呢" not in out


# ---------------------------------------------------------------------------------------------
# dates


def test_session_dates_are_kept_and_carried_en() -> None:
    first = ask([user("[1:56 pm on 8 May, 2023] Hi! I went to a support group yesterday.",
                      name="Caroline"),
                 assistant("I started pottery classes last week.", name="Melanie")])
    assert "[8 May 2023]" in first
    out = ask([user("[25 May, 2023] I'm starting a counseling course next week!",
                    name="Caroline")], previous=first)
    lines = [line for line in out.splitlines() if line.startswith("- ")]
    assert any("[8 May 2023]" in line for line in lines)
    # The year is written once per section, where it changes.
    assert any("[25 May]" in line and "counseling" in line for line in lines), out
    assert out.count("[8 May 2023]") <= 2  # once per section it has lines in


def test_message_timestamps_are_kept_zh() -> None:
    out = ask([user("我对青霉素过敏。", created_at="2024-03-05T10:00:00Z"),
               user("我下个月去成都。", timestamp=1712000000)], language="zh")
    assert "[2024年3月5日]" in out and "[2024年4月1日]" in out


def test_a_datetime_in_message_metadata_is_a_date() -> None:
    # A framework's message objects carry datetimes, not strings.
    import datetime as dt
    out = ask([user("I'm allergic to penicillin.", sent_at=dt.datetime(2024, 3, 5, 10, 0)),
               user("I'm flying to Lisbon next month.", date=dt.date(2024, 4, 1))])
    assert "[5 March 2024]" in out and "[1 April 2024]" in out, out


def test_a_dated_line_is_parsed_back_with_its_date() -> None:
    previous = "Facts:\n- [8 May 2023] Caroline: I went to a support group.\n- Caroline: I paint."
    out = ask([user("[9 May 2023] I moved to Denver.", name="Melanie")], previous=previous)
    assert "- [8 May 2023] Caroline: " in out and "- [9 May] Melanie: I moved" in out
    assert out.index("[8 May 2023]") < out.index("I paint")  # same day, not repeated
    assert out.count("[8 May 2023]") == 1


@pytest.mark.parametrize(("lang", "previous", "day"), [
    ("en", "Facts:\n- [28 December 2023] I adopted a cat.\n- [30 December] I paint."
           "\n- [2 January 2024] I moved to Denver.\n- [5 January] I quit sugar.",
     "5 January"),
    ("zh", "事实：\n- [2023年12月28日] 我养了一只猫。\n- [12月30日] 我在学画画。"
           "\n- [2024年1月2日] 我搬到了成都。\n- [1月5日] 我戒糖了。", "1月5日"),
])
def test_a_date_without_its_year_is_read_in_the_year_above_it(
        lang: str, previous: str, day: str) -> None:
    out = ask([], previous=previous, language=lang)
    # Carried with their dates: each year written once, where it changes.
    assert out.count("2023") == 1 and out.count("2024") == 1, out
    assert f"[{day}]" in out, out
    items = _previous_items(previous)
    assert [d for _, _, d in items] == ["2023-12-28", "2023-12-30", "2024-01-02", "2024-01-05"]


# ---------------------------------------------------------------------------------------------
# carry-forward without loss


def test_previous_items_survive_a_fold_of_new_material() -> None:
    previous = "Facts:\n" + "\n".join(f"- my locker code is K{i:03d}X." for i in range(6))
    new = [user(f"I bought {i} new books about Rome and {i + 2} maps of Naples on Monday.")
           for i in range(40)]
    out = ask(new, previous=previous, max_tokens=160)
    kept = [i for i in range(6) if f"K{i:03d}X" in out]
    assert kept, "a fold of new material must not evict every previous item at once"


def test_a_fold_lets_in_what_outscores_the_least_worth_of_the_summary() -> None:
    previous = ("Facts:\n- my passport number is X4471922.\n- my blood type is "
                "O negative.\n- my landlord is Priya Raman, 917-555-0144.\n"
                "- my favorite color is teal.")
    new = [user(said) for said in (
        "My dentist is Dr. Okafor at 12 Elm St, next cleaning March 3.",
        "My car is a 2019 Mazda CX-5, plate 8KXR319.",
        "My daughter Juniper starts at Hillcrest Daycare on May 6.",
        "My gym membership number is GX-20931 and it renews June 1.",
        "My wifi password is TealFox-2291.",
        "My sister Dana lives in Tacoma, her number is 253-555-0182.",
    )]
    out = ask(new, previous=previous, max_tokens=110)
    old = [key for key in ("X4471922", "O negative", "Priya", "teal.") if key in out]
    # The least worth of what was carried meets the new material on score and gives way; the
    # rest (most of the summary) holds its place.
    assert len(old) == 3 and "Juniper" in out, out


_CODES = st.lists(st.integers(min_value=0, max_value=999), min_size=1, max_size=12, unique=True)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(codes=_CODES, n_new=st.integers(min_value=0, max_value=30),
       cap=st.integers(min_value=20, max_value=300), language=st.sampled_from(["en", "zh"]))
def test_carried_items_leave_lowest_value_then_oldest_first(
    codes: list[int], n_new: int, cap: int, language: str
) -> None:
    """Equal-valued previous items are evicted oldest first: the kept ones are the newest
    (a suffix of the previous summary's order), within the cap, deterministically."""
    title = "Facts:" if language == "en" else "事实："
    previous = title + "\n" + "\n".join(f"- Locker code Q{c:03d}Z." for c in codes)
    new = [user(f"Chatting about lunch number {i} with friends from work.") for i in range(n_new)]
    out = ask(new, previous=previous, max_tokens=cap, language=language)
    assert count(out) <= cap
    assert out == ask(new, previous=previous, max_tokens=cap, language=language)
    kept = [f"Q{c:03d}Z" in out for c in codes]
    assert kept == sorted(kept), "a previous item was kept while a newer equal one was evicted"
    one = count(f"{title}\n- Locker code Q000Z.")
    if one <= cap // 2:
        assert any(kept), "the carried items' share of the cap holds at least one of them"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(codes=_CODES, cap=st.integers(min_value=200, max_value=400))
def test_previous_items_are_all_carried_while_there_is_room(codes: list[int], cap: int) -> None:
    previous = "Facts:\n" + "\n".join(f"- Locker code Q{c:03d}Z." for c in codes)
    out = ask([user("I moved to Quito in March.")], previous=previous, max_tokens=cap)
    if count(previous) + 20 <= cap // 2:
        assert all(f"Q{c:03d}Z" in out for c in codes)
    assert count(out) <= cap


def test_long_sentences_keep_the_clauses_that_say_something() -> None:
    long_en = ("Last Friday, I went to an LGBTQ+ counseling workshop, it was really enlightening, "
               "everyone was so kind and supportive, and honestly the vibe was just amazing, "
               "you know, so much warmth in the room.")
    out = ask([user(long_en)])
    assert "Last Friday, I went to an LGBTQ+ counseling workshop." in out
    assert "vibe" not in out
    long_zh = ("来到拉萨才发觉这家饭店的价格的确是偏高，同样水准的饭店在北京路上都只需200元以下，"
               "服务也一般般，早餐品种很少，总的来说不太推荐大家来住。")
    zh = ask([user(long_zh)], language="zh")
    assert "200元" in zh and "早餐" not in zh


def test_an_unrelated_reply_does_not_close_a_task() -> None:
    out = ask([user("Please book a table at Nopa for Friday."),
               assistant("Here's the weather for Friday: sunny and 21°C.")])
    assert any("Nopa" in t for t in section(out, "Open tasks"))
    zh = ask([user("帮我订周五晚上的餐厅。"), assistant("周五的天气是晴天。")], language="zh")
    assert any("餐厅" in t for t in section(zh, "待办"))


def test_names_and_codes_right_after_chinese_characters_count() -> None:
    # "Luna" and "CA1234" follow a Chinese character: they start a word all the same.
    chatter = [user("哈哈哈那天的聚会真的太好玩了，大家笑了一整晚。"),
               user("我看得出来。"), user("我在想一个东西。")]
    facts = [user("我的猫叫Luna。"), user("我的航班号是CA1234。")]
    out = ask([*facts, *chatter], language="zh", max_tokens=24)
    assert "Luna" in out and "CA1234" in out
    assert "聚会" not in out and "东西" not in out


def test_a_condition_or_a_shrug_is_no_decision() -> None:
    zh = ask([user("除非你确定需要这样做。"), user("不过三星也就这样了。"),
              user("我决定订如家酒店。")], language="zh")
    assert section(zh, "决定") == ["我决定订如家酒店。"]
    en = ask([user("Unless you decided otherwise, keep it."),
              user("We decided to go with Lisbon.")])
    assert section(en, "Decisions") == ["We decided to go with Lisbon."]


def test_a_clause_that_only_says_how_it_felt_is_dropped() -> None:
    out = ask([user("I ran a charity race for mental health last Saturday – it was really "
                    "rewarding."),
               user("We went camping at Lake Tahoe last weekend, it was amazing, the kids "
                    "loved the lake.")])
    assert "I ran a charity race for mental health last Saturday." in out
    assert "rewarding" not in out and "amazing" not in out
    assert "the kids loved the lake" in out


@pytest.mark.parametrize(("said", "kept", "gone"), [
    ("小赵来了快一年了，底薪三千五加提成，想给他涨点，涨多少合适", "底薪三千五加提成", "涨多少"),
    ("豆豆在育才小学读四年级，老师让报课后托管，值不值啊", "老师让报课后托管", "值不值"),
    ("We pay about $900 a month for utilities at the bakery, is that normal for a shop?",
     "$900 a month for utilities at the bakery", "normal"),
])
def test_the_users_question_at_the_end_of_a_statement_is_left_out(said: str, kept: str,
                                                                  gone: str) -> None:
    # The facts before it are kept as a statement; the question asked of them is not.
    out = ask([user(said), assistant("OK.")], language="en" if said.isascii() else "zh")
    assert kept in out and gone not in out, out


def test_an_ask_at_the_end_of_a_statement_stays() -> None:
    out = ask([user("中介说那套两居一个月6500，押一付三，你帮我看看附近还有没有更便宜的")],
              language="zh")
    assert "你帮我看看附近还有没有更便宜的" in out, out
    # A question from its start is one: its last clause is part of what it asks.
    out = ask([user("Can you change the address on B2290-KM to 1190 Harbor View Drive, Columbus "
                    "OH 43215?")])
    assert "Columbus OH 43215" in out, out


def test_how_it_felt_without_anything_to_ask_for_is_chatter() -> None:
    feelings = [user("Everyone was so happy and it made me feel like I belonged."),
                user("I'm truly grateful for all the support I've got from friends and mentors."),
                user("我们都特别开心，感动得不得了。")]
    facts = [user("I switched banks to Monzo last May."), user("我女儿今年6岁。")]
    out = ask([*facts, *feelings], max_tokens=30)
    assert "Monzo" in out and "6岁" in out
    assert "belonged" not in out and "grateful" not in out and "感动" not in out


def test_a_chinese_question_without_a_question_mark_states_nothing() -> None:
    told = [user("我住在上海浦东，离公司多少有点远")]
    out = ask([user("什么是HAL9000"), user("是谁写的科学怪人"), *told], language="zh",
              max_tokens=count(ask(told, language="zh")) + 4)
    assert "浦东" in out
    assert "HAL9000" not in out and "科学怪人" not in out


def test_the_incumbent_bonus_sets_how_firmly_kept_items_hold() -> None:
    # Carried items first claim 90% of the cap; the last tenth is contested, and the bonus
    # decides whether a kept fact yields to a new one of about the same worth.
    previous = ("Facts:\n- My locker number is 5512.\n- My train leaves at 7:40.\n"
                "- My gym is on Elm Street.\n- My cousin Dana lives in Reno.\n"
                "- Anna visited us on Friday.")
    new = [user("I booked flight BA2490.")]  # an event too: no standing fact's claim
    cap = count(previous) + 5  # room for one of the two last lines, not both
    request = SummaryRequest(previous, new, "en", cap)  # type: ignore[arg-type]
    firm = ExtractiveSummarizer(count=count, incumbent_bonus=10.0).summarize(request)
    loose = ExtractiveSummarizer(count=count, incumbent_bonus=0.0).summarize(request)
    assert "BA2490" not in firm and "Anna" in firm
    assert "BA2490" in loose and "Anna" not in loose and "5512" in loose


_EVENTS = {
    "en": ["Last week I went to a pride parade in Denver.",
           "Yesterday I took the kids to the science museum in Boston."],
    "zh": ["上周六我去参加了北京的半程马拉松。", "昨晚我和老王去工体看了国安的比赛。"],
}


@pytest.mark.parametrize("lang, standing", [
    ("en", "My blood type is O negative."),
    ("en", "I've been learning Japanese for 3 years."),
    ("en", "We have a golden retriever named Biscuit."),
    ("en", "The wifi password at the cabin is pinecone88."),
    ("zh", "我学日语已经三年了。"),
    ("zh", "我们家有一只金毛，叫饼干。"),
    ("zh", "我的工号是E20417。"),
    ("en", "I drive a blue Subaru Outback."),
    ("en", "We speak Spanish at home."),
    # A code, a job and where, a goal, an address, what is coming with when, an age.
    ("en", "The side gate code is 7731."),
    ("en", "I'm a line cook at Nopa, mostly evenings."),
    ("en", "We're saving for a car, aiming for $15,000 by June."),
    ("en", "Our clinic moved to 210 King Street."),
    ("en", "My brother Sam is getting married in Austin in May."),
    ("en", "My daughter Ivy just turned 9."),
    ("zh", "我们在存钱，目标年底存够20万。"),
    ("zh", "我们公司搬到了张江科技园。"),
    ("zh", "我弟弟下个月要在厦门办婚礼。"),
    ("zh", "我女儿刚满8岁。"),
    # Of the people and pets around the user: who comes when, where they moved, what is set
    # to happen, whose surname.
    ("en", "Our dog walker Sam comes Tuesdays and Thursdays."),
    ("en", "Our parrot Kiwi needs her drops three times a day."),
    ("en", "My cousin Ana just moved to Lisbon."),
    ("en", "My wife's train arrives at 5:15pm on Sunday."),
    ("en", "My parents are visiting from Osaka in August."),
    ("zh", "孩子的钢琴老师姓周。"),
    ("zh", "我表妹刚搬到西安。"),
    ("zh", "我爸妈下个月从哈尔滨过来住一阵。"),
    # A value said to have changed to a new one: the value that now holds.
    ("en", "We can stretch the budget for the sofa to $1,100."),
    ("en", "The launch got pushed to October 12."),
])
@pytest.mark.parametrize("event", [0, 1])
def test_a_standing_fact_outranks_a_one_off_event(lang: str, standing: str, event: int) -> None:
    # A summary full of narrated events (a companion chat, LoCoMo's friends) still lets in the
    # user's standing facts: true until said otherwise, they outweigh an event and its day.
    told = _EVENTS[lang][event]
    title = "Facts" if lang == "en" else "事实"
    cap = max(count(f"{title}:\n- {t}\n") for t in (told, standing)) + 2
    for said in ([told, standing], [standing, told]):
        out = ask([user(t) for t in said], language=lang, max_tokens=cap)
        assert section(out, title) == [standing]


@pytest.mark.parametrize("lang, rule", [
    ("en", "I can't eat shellfish, it makes me sick."), ("en", "We don't drink alcohol."),
    ("zh", "我不能吃海鲜。"),
    # What the user avoids, asked once and meant for good.
    ("en", "I hate olives, they taste like brine to me."),
    ("en", "Please don't recommend jazz bars, I can't stand them."),
    # The user's own way of doing things.
    ("en", "I only fly Delta, because of the status."), ("en", "I'd rather take the train."),
    ("en", "I'm more of a tea person than a coffee person."),
    ("zh", "我只坐国航，因为有会员。"),
    # Instructions given once, for good: each weighs as a request and as a preference.
    ("en", "From now on, always answer in metric units."),
    ("en", "Whenever possible, pick hotels with a gym."),
    ("en", "Always cc my assistant Priya on the emails you draft."),
    ("en", "Keep your answers short, I read on my phone."),
    ("en", "Don't ever schedule anything before 9am for me."),
    ("zh", "以后都用中文回复我。"), ("zh", "以后给我妈的消息都用繁体字。"),
    ("zh", "回答请简短一点，我都是在手机上看。"), ("zh", "每次都要给我订靠窗的座位。"),
    ("zh", "以后写代码都用Python。"),
])
def test_what_the_speaker_cannot_eat_or_avoids_outranks_an_event(lang: str, rule: str) -> None:
    told = _EVENTS[lang][0]
    title = "Preferences" if lang == "en" else "偏好"
    cap = max(count(f"{title}:\n- {t}\n") for t in (told, rule)) + 2
    out = ask([user(told), user(rule)], language=lang, max_tokens=cap)
    assert rule.split(",")[0].rstrip("。.") in out and told.rstrip("。.") not in out


@pytest.mark.parametrize(("lang", "said"), [
    # Plans, hopes and encouragement in the words of an instruction.
    ("en", "From now on I'm going to paint every day."),
    ("en", "In the future, I want to adopt a dog."),
    ("en", "Never give up on your dreams!"), ("en", "Always be yourself!"),
    ("en", "Calvin, you must feel amazing every time you get inside!"),
    # Someone else's dislike; a reviewer's verdict.
    ("en", "But one thing they hate is snow."), ("zh", "以后都不会再来了。"),
    ("zh", "以后都会写好评的。"),
])
def test_words_of_an_instruction_or_dislike_alone_do_not_outrank_an_event(
    lang: str, said: str
) -> None:
    told = _EVENTS[lang][1]
    line = "Preferences:\n- {}\n" if lang == "en" else "事实：\n- {}\n"
    cap = max(count(line.format(t)) for t in (told, said)) + 2
    out = ask([user(said), user(told)], language=lang, max_tokens=cap)
    assert told.rstrip("。.") in out and said.rstrip("。.!") not in out


@pytest.mark.parametrize(("lang", "first", "then"), [
    ("en", "From now on, always answer in metric units.",
     "Actually, from now on answer in imperial units."),
    ("en", "Whenever possible, pick hotels with a gym.",
     "Actually, pick hotels with a pool instead, whenever possible."),
    ("zh", "以后都用中文回复我。", "以后还是用英文回复我吧。"),
    ("zh", "以后订酒店都要无烟房。", "以后订酒店改成要有浴缸的房间。"),
])
@pytest.mark.parametrize("across_a_fold", [False, True])
def test_an_instruction_taken_back_replaces_the_earlier_one(
    lang: str, first: str, then: str, across_a_fold: bool
) -> None:
    if across_a_fold:
        out = ask([user(then)], previous=ask([user(first)], language=lang), language=lang)
    else:
        out = ask([user(first), user(then)], language=lang)
    assert section(out, "Preferences" if lang == "en" else "偏好") == [
        then]


@pytest.mark.parametrize(("lang", "first", "then"), [
    # Two instructions on different things, the later one taking nothing back.
    ("en", "Always answer in bullet points.", "From now on, always answer in metric units."),
    ("en", "Always cc my assistant Priya on the emails you draft.",
     "Actually, whenever possible, pick hotels with a gym."),
    ("zh", "以后都用中文回复我。", "以后订酒店还是要无烟房。"),
])
def test_instructions_on_different_things_both_stay(lang: str, first: str, then: str) -> None:
    out = ask([user(first), user(then)], language=lang)
    assert sorted(section(out, "Preferences" if lang == "en" else "偏好")) == sorted(
        [first, then])


@pytest.mark.parametrize("decision", [
    "Decided: we're going with Postgres for the new service.",
    "We settled on the Hyatt for $245 a night.",
])
def test_a_decision_that_names_its_choice_outranks_an_event(decision: str) -> None:
    told = _EVENTS["en"][1]
    cap = max(count(f"{title}:\n- {t}\n")
              for t, title in ((told, "Facts"), (decision, "Decisions"))) + 2
    out = ask([user(told), user(decision)], max_tokens=cap)
    assert section(out, "Decisions") == [f"{decision}"] and told.rstrip(".") not in out


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "I'm more of a morning person than a night person."),
    ("en", "I don't like loud restaurants."),
    ("en", "I only fly United for the miles."),
    ("zh", "别给我推荐综艺，我看不了。"),
    ("zh", "我只喝燕麦奶。"),
    ("zh", "订酒店的话我一定要有窗户的房间。"),
])
def test_how_the_user_likes_things_is_a_preference(lang: str, said: str) -> None:
    out = ask([user(said)], language=lang)
    assert section(out, "Preferences" if lang == "en" else "偏好") == [
        said]


_KEPT_OUTINGS = {
    "en": "Facts:\n" + "".join(
        f"- Last {day} I went to the {place} with {who}.\n"
        for day, place, who in [("Monday", "jazz bar", "Jon"), ("Tuesday", "art fair", "Ava"),
                                ("Friday", "lake trail", "Omar"), ("Sunday", "book club", "Kim"),
                                ("Saturday", "night market", "Raj"),
                                ("Thursday", "climbing gym", "Theo")]),
    "zh": "事实：\n" + "".join(
        f"- {said}\n"
        for said in ["上周一我和老陈去了爵士酒吧。", "周二下午小美约我看了艺术展。",
                     "上周五跟阿伟沿着湖边步道走了一圈。", "周日参加了莉莉组织的读书会。",
                     "上周六和大刘逛了夜市。", "周四晚上阿杰带我去攀岩馆玩。"]),
}


def _room_for(previous: str, lang: str) -> int:
    """A cap that holds ``previous`` as rendered, with no room for one more line."""
    return count(ask([], previous=previous, language=lang, max_tokens=1000)) + 6


@pytest.mark.parametrize(("lang", "new", "kept"), [
    ("en", [user("My blood type is O negative.")], "O negative"),
    ("en", [user("I run 5 km every morning.")], "5 km"),
    ("en", [assistant("Where will you be flying from?"), user("Boston.")], "Boston"),
    ("zh", [user("我的血型是O型。")], "O型"),
    ("zh", [assistant("您从哪个城市出发？"), user("上海。")], "上海"),
])
def test_what_stays_true_takes_the_place_of_one_kept_outing(
    lang: str, new: list[dict[str, Any]], kept: str
) -> None:
    # The summary is full of kept outings, each holding its place by the incumbency bonus; a
    # standing fact worth more than one of them on its own score takes that one's place.
    previous = _KEPT_OUTINGS[lang].rstrip()
    out = ask(new, previous=previous, language=lang, max_tokens=_room_for(previous, lang))
    facts = section(out, "Facts" if lang == "en" else "事实")
    assert any(kept in f for f in facts), out
    assert len(facts) >= 5  # one outing gave way (two for a long line), the others stay


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_new_outing_does_not_take_the_place_of_a_kept_one(lang: str) -> None:
    previous = _KEPT_OUTINGS[lang].rstrip()
    said = ("Last Wednesday I went to the science museum with Lena." if lang == "en"
            else "上周三我和小林去了科技馆。")
    out = ask([user(said)], previous=previous, language=lang, max_tokens=_room_for(previous, lang))
    assert said.rstrip("。.") not in out
    assert len(section(out, "Facts" if lang == "en" else "事实")) == 6


@pytest.mark.parametrize("chatter", [
    "Wow, having symbols of travel memories in our homes is so cool!",
    "We get our creative on and have a blast together.",
    "Our weekend was really relaxing.",
    "My hard work is paying off!",
    "Our team has seen the most growth in communication.",
    "I'd love to experience that every day.",
    "I'm a big fan of the Warriors.",
    "I'm a bit nervous about Sunday.",
])
def test_how_something_is_felt_is_no_standing_fact(chatter: str) -> None:
    # "our X is so cool" has the shape of "my X is Y" but says how it felt; "our creative on
    # and have" has no subject at all; "is paying off", "has seen" say what goes on or went
    # on; "I'd love to … every day" is a wish, not a habit.
    told = _EVENTS["en"][0]
    cap = max(count(f"Facts:\n- {t}\n") for t in (told, chatter)) + 2
    out = ask([user(chatter), user(told)], max_tokens=cap)
    assert section(out, "Facts") == [f"{told}"]


def test_kept_chatter_yields_to_a_new_fact_however_high_the_bonus() -> None:
    # The bonus is at most 1.5 times a kept item's own score: chatter let in while the summary
    # had room does not hold off a fact worth far more (long assistant answers filled the
    # summary, then "Our API rate limit is 600 requests per minute" found no room).
    previous = ("Facts:\n- We played board games all evening.\n- We baked bread.\n"
                "- We walked to the park.\n- We watched a film.\n"
                "- We talked about music.")
    new = [user("My flight number is BA2490.")]
    cap = count(previous) + 6  # room for the fact when one line of chatter goes
    request = SummaryRequest(previous, new, "en", cap)  # type: ignore[arg-type]
    out = ExtractiveSummarizer(count=count, incumbent_bonus=10.0).summarize(request)
    assert "BA2490" in out and "board games" in out


@pytest.mark.parametrize("bad", [-1, float("nan"), "3", True])
def test_a_bad_incumbent_bonus_is_a_typed_error(bad: object) -> None:
    with pytest.raises(InvalidArgumentError, match="incumbent_bonus"):
        ExtractiveSummarizer(incumbent_bonus=bad)  # type: ignore[arg-type]


def test_each_task_keeps_its_own_budget_unless_one_is_changed() -> None:
    zh = ask([user("第一趟去杭州，每晚预算600元。"), user("第二趟去成都，每晚预算900元。"),
              user("另外，成都那趟每晚预算改成1200元。")], language="zh")
    assert "600元" in zh and "1200元" in zh and "900元" not in zh
    en = ask([user("For the Rome trip my budget is 2000 euros."),
              user("For the Oslo trip my budget is 3500 euros."),
              user("Actually the Oslo budget is now 4000 euros.")])
    assert "2000" in en and "4000" in en and "3500" not in en


@pytest.mark.parametrize(("lang", "chain", "final", "stale"), [
    ("en", ["My budget for the trip is $3,000.", "Update: my budget for the trip is now $3,500.",
            "Actually, the budget for the trip is now $4,000.",
            "We cut the trip budget to $3,800.",
            "Final answer: my budget for the trip is now $4,200."],
     "4,200", ["3,000", "3,500", "4,000", "3,800", "Actually."]),
    ("zh", ["这次旅行的预算是3000元。", "更新一下：旅行预算改成3500元。",
            "旅行预算现在是4000元了。", "旅行预算砍到3800元。", "最后定了，旅行预算改为4200元。"],
     "4200", ["3000", "3500", "4000", "3800"]),
])
def test_a_value_changed_again_and_again_keeps_only_the_last(lang: str, chain: list[str],
                                                             final: str,
                                                             stale: list[str]) -> None:
    out = ask([user(line) for line in chain], language=lang)
    assert final in out and not any(v in out for v in stale), out


def test_not_x_but_y_replaces_x() -> None:
    # The correction names the old value itself: the value it says not to be is the old one.
    out = ask([user("The party is on Saturday."), user("haha"),
               user("Not Saturday but Sunday, the party is on Sunday.")])
    assert "The party is on Saturday" not in out and "on Sunday" in out
    zh = ask([user("聚会在周六。"), user("哈哈"), user("不是周六，是周日，聚会在周日。")],
             language="zh")
    assert "聚会在周六" not in zh and "聚会在周日" in zh


@pytest.mark.parametrize(("said", "changed", "kept", "gone"), [
    # What the attribute is for, said after it: another thing, not a new value.
    ("My budget for the hotel is $900.", "The budget for food is now $300.", "$900", ""),
    ("The deadline of the report is May 3.", "The deadline of the launch is now June 1.",
     "May 3", ""),
    # The same thing: replaced.
    ("My budget for the trip is $3,000.", "My budget for the trip is now $4,500.", "$4,500",
     "$3,000"),
])
def test_an_attribute_for_another_thing_is_another_slot(said: str, changed: str, kept: str,
                                                         gone: str) -> None:
    previous = ExtractiveSummarizer(count=count).summarize(
        SummaryRequest("", [user(said)], "en", 200))  # type: ignore[arg-type]
    out = ExtractiveSummarizer(count=count).summarize(
        SummaryRequest(previous, [user(changed)], "en", 200))  # type: ignore[arg-type]
    assert kept in out and (not gone or gone not in out)


def test_a_phone_number_in_groups_is_an_identifier() -> None:
    from chatfold.summarizers.extractive.lexicon import _ID
    from chatfold.summarizers.extractive.scoring import _scan

    texts = ["I switched my phone number to 555-0142.", "Call me at +44 20 7946 0958.",
             "我的手机号换成138-1234-5678了。", "We met in 2019 and 2020.", "It was 3-2 at 12 34."]
    masks, _ = _scan(texts)
    assert [bool(m & _ID) for m in masks] == [True, True, True, False, False]
    out = ask([user("I switched my phone number to 555-0142."),
               user("We had such a lovely dinner together, the food was great.")], max_tokens=14)
    assert "555-0142" in out


# ---------------------------------------------------------------------------------------------
# corrected quantities, either-or choices, sentences that say nothing


def test_a_corrected_quantity_rewrites_the_request_it_corrects_en() -> None:
    out = ask([user("Please order 17 postcards for the wedding guests."),
               assistant("Sure, noted."),
               user("Scratch that, make it 25 postcards instead of 17.")])
    assert section(out, "Open tasks") == ["Please order 25 postcards for the wedding guests."]
    assert "17" not in out  # the correction said nothing else: it is absorbed


def test_a_corrected_quantity_rewrites_the_request_it_corrects_zh() -> None:
    out = ask([user("帮我订20份年会的伴手礼。"), user("不好意思，伴手礼改成35份。"),
               user("帮我订两间房，住三晚。"), user("改成住四晚吧。")], language="zh")
    assert "帮我订35份年会的伴手礼。" in section(out, "待办")
    assert "帮我订两间房，住四晚。" in section(out, "待办")
    assert "20份" not in out and "三晚" not in out


def test_a_corrected_quantity_carried_from_the_previous_summary() -> None:
    previous = "Open tasks:\n- Book a table for 4 people at 7pm."
    out = ask([user("Change it to 6 people please.")], previous=previous)
    assert "Book a table for 6 people at 7pm." in section(out, "Open tasks")


def test_only_a_correction_rewrites_a_number() -> None:
    # Another run, another count, a different thing: none of them corrects the first.
    out = ask([user("I ran 3 miles last week."), user("Actually I ran 5 miles today."),
               user("I have 2 dogs."), user("Change the cake order to 3 cakes."),
               user("Please buy 4 apples."), user("Make it 6 bananas.")])
    assert "3 miles" in out and "5 miles" in out
    assert "4 apples" in out and "6 bananas" in out


def test_a_correction_keeps_what_else_it_says() -> None:
    out = ask([user("We need 30 chairs for the party."),
               user("Sorry, make it 45 chairs, and the party moves to the garden.")])
    assert "We need 45 chairs for the party." in out
    assert "garden" in out


def test_an_either_or_answer_is_recorded_as_the_choice() -> None:
    out = ask([user("I need a new dining table."),
               assistant("Would you like the walnut dining table or the oak one?"),
               user("The walnut one, definitely.")])
    assert section(out, "Decisions") == [
        "User chose: walnut dining table (the walnut dining table or the oak one)"]
    zh = ask([user("帮我订周五晚上的餐厅。"), assistant("你想要靠窗的位置还是包间？"),
              user("包间吧。")], language="zh")
    assert section(zh, "决定") == ["用户选择：包间（靠窗的位置还是包间）"]


@pytest.mark.parametrize("reply", ["Neither, I'll think about it.", "What's the difference?",
                                   "Both look nice, I can't decide between them really."])
def test_a_reply_that_picks_no_option_is_no_choice(reply: str) -> None:
    out = ask([assistant("Would you like the walnut table or the oak one?"), user(reply)])
    assert not section(out, "Decisions")


def test_only_what_sets_an_option_apart_picks_it() -> None:
    out = ask([assistant("Should I book it for 2 nights or 3 nights?"), user("3 nights.")])
    assert section(out, "Decisions") == ["User chose: 3 nights (book it for 2 nights or 3 nights)"]


def test_a_sentence_of_pronouns_and_light_verbs_is_chatter() -> None:
    chatter = [user("We got this!"), user("I'll keep ya posted."), user("Same here!")]
    facts = [user("I made this bowl in my pottery class."), user("I'm vegan.")]
    out = ask(chatter + facts, max_tokens=count(ask(facts)) + 4)  # room for the facts alone
    assert "bowl" in out and "vegan" in out
    for line in ("We got this", "keep ya posted", "Same here"):
        assert line not in out


def test_a_request_the_user_calls_off_leaves_the_open_tasks() -> None:
    out = ask([user("Please book a dinner for two at Nobu on Friday."),
               assistant("Sure, I will book it."),
               user("Actually, cancel the dinner at Nobu, we are staying in.")])
    assert not section(out, "Open tasks")
    assert "cancel the dinner at Nobu" in out
    zh = ask([user("帮我订周五晚上两个人的海底捞。"), assistant("好的。"),
              user("算了，海底捞不订了，我们在家吃。")], language="zh")
    assert not section(zh, "待办") and "海底捞不订了" in zh
    # Calling off something else leaves the request open.
    other = ask([user("Please book a dinner for two at Nobu on Friday."),
                 user("Cancel my gym membership too.")])
    assert "Please book a dinner for two at Nobu on Friday." in section(other,
                                                                             "Open tasks")


@pytest.mark.parametrize("said", [
    "Tell me all about it!", "Will you give it another go?", "Could you do that for me?",
])
def test_a_request_that_names_nothing_to_do_is_no_task(said: str) -> None:
    assert section(ask([user(said)]), "Open tasks") == []


@pytest.mark.parametrize(("lang", "messages", "when"), [
    ("en", [user("Remind me to water the plants on Friday."), user("Nice weather today."),
            assistant("Sure, I'll remind you on Friday at 8am.")], "8am"),
    ("en", [user("Remind me to call the dentist tomorrow."),
            assistant("Reminder set: call the dentist tomorrow at 9am.")], "9am"),
    ("en", [user("Remind me to call the plumber tomorrow at 9."),
            assistant("All set! I'll ping you tomorrow at 9am about the plumber.")], "9"),
    ("en", [user("Remind me to call mom and buy milk."),
            assistant("Reminder set: call mom and buy milk at 5pm.")], "5pm"),
    ("zh", [user("记得提醒我周四给妈妈买生日礼物。"), assistant("没问题，周四上午9点会提醒你。")],
     "9点"),
    ("zh", [user("她校服又小了，提醒我抽空给她买套新的。"),
            assistant("好的，校服的事我会提醒你。")],
     "校服"),
])
def test_a_reminder_set_keeps_the_errand_open_marked(
        lang: str, messages: list[dict[str, Any]], when: str) -> None:
    # The reminder is the assistant's part; the errand stays the user's: a "(done)" would
    # tell the model the plants were watered.
    out = ask(messages, language=lang)
    tasks = section(out, "Open tasks" if lang == "en" else "待办")
    mark = "(reminder set)" if lang == "en" else "（已设提醒）"
    assert len(tasks) == 1 and tasks[0].endswith(mark) and when in out, out
    assert "(done)" not in out and "已完成" not in out


def test_an_errand_with_its_reminder_set_closes_when_the_user_reports_it() -> None:
    first = ask([user("Remind me to renew Leo's passport before April."),
                 assistant("Sure, I'll remind you in March.")])
    assert section(first, "Open tasks")[0].endswith("(reminder set)")
    # A later promise does not close it again; the user's report does.
    again = ask([assistant("I'll remind you about the passport again next week.")],
                previous=first)
    assert section(again, "Open tasks") == section(first, "Open tasks"), again
    done = ask([user("Renewed Leo's passport today, finally.")], previous=first)
    assert section(done, "Open tasks") == [], done
    assert "reminder set" not in done and "Renewed Leo's passport" in done, done


_UPDATES = [
    ("en", "My commute is about 40 minutes each way.",
     "Since we moved, my commute's down to 25 minutes.", "25 minutes", "40 minutes"),
    ("en", "My daughter is in 3rd grade.", "My daughter just started 4th grade.", "4th", "3rd"),
    ("en", "I run 5 km every morning.", "These days I run 10 km every morning.", "10 km",
     "5 km"),
    ("en", "I sleep about 6 hours a night.", "I've been sleeping 8 hours a night lately.",
     "8 hours", "6 hours"),
    ("zh", "我通勤要40分钟。", "搬家以后通勤只要25分钟了。", "25分钟", "40分钟"),
    ("zh", "我在腾讯做产品经理。", "我跳槽到字节跳动了。", "字节跳动", "腾讯"),
    ("zh", "我女儿上三年级。", "我女儿今年升四年级了。", "四年级", "三年级"),
    ("zh", "我们家有两只猫。", "我们又领养了一只，现在有三只猫了。", "三只猫", "两只猫"),
    ("zh", "我每晚睡6个小时。", "最近我每晚能睡8个小时了。", "8个小时", "6个小时"),
    ("en", "I prefer aisle seats.", "Actually I like window seats better now.", "window",
     "aisle"),
    ("en", "My phone number is 555-0199.", "New number: 555-0123.", "555-0123", "555-0199"),
    ("en", "We're planning 40 guests for the party.", "Guest count is up to 55 now.", "55",
     "40 guests"),
    ("zh", "我的领导是王经理。", "我们换了新领导，是李经理。", "李经理", "王经理"),
    ("zh", "我喜欢靠过道的座位。", "现在我更喜欢靠窗的座位了。", "靠窗", "过道"),
    ("zh", "聚会计划来40个人。", "聚会人数增加到55人了。", "55", "40个人"),
    # A budget stretched, a date as one value, a colleague called by surname and title, a
    # street address said anew.
    ("en", "Our budget for the sofa is $900.", "We can stretch the budget to $1,100.", "$1,100",
     "$900"),
    ("zh", "发布会定在5月8号。", "发布会推迟到5月20号了。", "5月20号", "5月8号"),
    ("zh", "我的导师是陈姐。", "陈姐调走了，现在我的导师是刘哥。", "刘哥", "导师是陈姐"),
    ("zh", "快递寄到浦东新区世纪大道100号。", "抱歉，地址改成徐汇区漕溪北路18号。", "漕溪北路",
     "世纪大道"),
]


@pytest.mark.parametrize(("lang", "old", "new", "kept", "gone"), _UPDATES)
@pytest.mark.parametrize("carried", [False, True])
def test_a_value_said_anew_in_other_words_replaces_the_old(
    lang: str, old: str, new: str, kept: str, gone: str, carried: bool
) -> None:
    # No "my X is" and no slot: the same doing, counted the same way, with a word that says it
    # is what holds now ("these days", "lately", "最近", "…以后", "三只猫了").
    if carried:
        out = ask([user(new)], previous=ask([user(old)], language=lang), language=lang)
    else:
        out = ask([user(old), user(new)], language=lang)
    assert kept in out and gone not in out


def test_a_new_value_named_another_way_replaces_the_old() -> None:
    out = ask([user("My phone number is 555-123-4567."), user("My new number is 555-987-6543.")])
    assert "555-987-6543" in out and "555-123-4567" not in out
    out = ask([user("The project deadline is March 3."),
               user("The deadline got pushed to March 17.")])
    assert "March 17" in out and "March 3." not in out


def test_a_preference_for_the_same_kind_of_thing_changes_only_when_it_says_so() -> None:
    out = ask([user("I prefer aisle seats."), user("Actually I prefer window seats now.")])
    assert "window seats" in out and "aisle" not in out
    both = ask([user("I like Italian food."), user("I also like Chinese food.")])
    assert "Italian" in both and "Chinese" in both


def test_an_accepted_recommendation_is_one_decision() -> None:
    out = ask([assistant("I recommend the Tokyo itinerary with 5 days in Kyoto."),
               user("Sounds great, go with that.")])
    assert out.count("Kyoto") == 1
    assert section(out, "Decisions") == ["User agreed: the Tokyo itinerary with 5 days in Kyoto"]
    zh = ask([assistant("我建议选方案B，成本更低。"), user("行，就按方案B。")], language="zh")
    assert section(zh, "决定") == ["用户同意：方案B，成本更低"]


@pytest.mark.parametrize(("language", "old", "new", "stale"), [
    ("en", "The meeting is on Tuesday at 3pm.", "The meeting moved to Wednesday at 10am.",
     "Tuesday"),
    ("en", "We are expecting 40 guests.", "The guest count is now 55.", "40"),
    ("en", "My flight is BA117 on June 3.", "My flight changed to BA119.", "BA117"),
    ("en", "My email is tom@old.com.", "Please use tom@new.io from now on.", "old.com"),
    ("zh", "会议定在周二下午三点。", "会议改到周三上午十点了。", "周二"),
    ("zh", "我的航班是CA1234。", "航班改成CA5678了。", "CA1234"),
    ("zh", "我的邮箱是a@qq.com。", "以后请用b@163.com联系我。", "qq.com"),
    # someone else changed it, and the thing is named between the verb and "to"
    ("en", "Our rent is $1,800 a month.", "The landlord raised our rent to $1,950.", "1,800"),
    ("en", "My passport expires on Jan 5.", "Good news, my passport expiry was extended to Feb 20.",
     "Jan 5"),
    # a name that opens the sentence is the name the older one gave
    ("en", "My daughter Mia is 6.", "Mia just turned 7 yesterday.", "is 6"),
    # "now" and "down to": the same measure, nothing else named
    ("en", "I weigh 82 kg.", "I'm down to 78 kg now!", "82"),
    ("zh", "我体重82公斤。", "我现在瘦到78公斤了！", "82"),
    ("zh", "我每天跑步5公里。", "我现在每天跑10公里了。", "5公里"),
    ("zh", "我们的房租每月4500元。", "房东把房租涨到了4800元。", "4500"),
    ("zh", "我的手机号是13800138000。", "我换号了，新号码是13911112222。", "13800138000"),
    # the same thing counted, the same event at another time, a bare age
    ("en", "I have 2 cats.", "We adopted another cat, so now we have 3 cats.", "2 cats"),
    ("en", "The party is at 6pm.", "The party now starts at 7pm.", "6pm"),
    ("en", "I'm 34.", "I turned 35 last week.", "34"),
    ("zh", "我家有2只猫。", "我们又领养了一只，现在有3只猫了。", "2只"),
    ("zh", "我的办公室在3楼。", "我们搬办公室了，现在在12楼。", "3楼"),
    # a correction
    ("en", "My sister lives in Berlin.", "Oops, I meant my sister lives in Munich.", "Berlin"),
    ("en", "The meeting is at 3pm.", "Correction: the meeting is at 4pm.", "3pm"),
    ("zh", "会议是下午3点。", "更正一下，会议是下午4点。", "3点"),
])
def test_a_statement_of_change_replaces_what_it_changes(
    language: str, old: str, new: str, stale: str
) -> None:
    # A word of change, or one that only says "current" of the very same thing.
    out = ask([user(old), user("Thanks!" if language == "en" else "谢谢！"), user(new)],
              language=language)
    assert stale not in out
    assert new.rstrip("。.!！") in out


def test_a_bare_switch_replaces_the_one_thing_the_user_said_they_use() -> None:
    out = ask([user("I use an iPhone 12."), user("I switched to a Pixel 8 last week.")])
    assert "iPhone" not in out and "Pixel 8" in out
    zh = ask([user("我用的是iPhone 12。"), user("我上周换成Pixel 8了。")], language="zh")
    assert "iPhone" not in zh and "Pixel 8" in zh
    # Two things in use: which one was switched is not said, so both stay.
    both = ask([user("I use an iPhone 12."), user("I drive a 2015 Honda Civic."),
                user("I switched to a Pixel 8 last week.")])
    assert "iPhone 12" in both and "Civic" in both


def test_a_request_to_change_a_value_replaces_it_once_done() -> None:
    out = ask([user("My address is 5 Elm St."), user("Please update my address to 12 Oak St."),
               assistant("Done, your address is now 12 Oak St.")])
    assert "Elm" not in out and "12 Oak St." in out and section(out, "Open tasks") == []
    zh = ask([user("我的地址是朝阳区幸福路5号。"), user("帮我把地址改成海淀区中关村大街12号。"),
              assistant("好的，已将地址更新为海淀区中关村大街12号。")], language="zh")
    assert "幸福路" not in zh and "中关村大街12号" in zh and section(zh, "待办") == []
    # Asked but not yet done: the new value is what the user wants, the request stays open.
    asked = ask([user("Dinner reservation is for 4 people."),
                 user("Can you change the dinner reservation to 6 people?")])
    assert "4 people" not in asked
    assert section(asked, "Open tasks") == [
        "Can you change the dinner reservation to 6 people?"]


def test_a_new_favourite_without_its_kind_replaces_the_only_one_said() -> None:
    zh = ask([user("我最喜欢的颜色是蓝色。"), user("我现在最喜欢绿色了。")], language="zh")
    assert "蓝色" not in zh and "绿色" in zh
    en = ask([user("My favorite band is Radiohead."), user("Now my favorite is Coldplay.")])
    assert "Radiohead" not in en and "Coldplay" in en
    # Two favourites said: which one changed is not said, so both stay.
    both = ask([user("我最喜欢的颜色是蓝色。"), user("我最喜欢的水果是芒果。"),
                user("我现在最喜欢绿色了。")], language="zh")
    assert "蓝色" in both and "芒果" in both


@pytest.mark.parametrize(("language", "old", "new"), [
    ("en", "My sister lives in Boston.", "Now I live in Chicago."),  # someone else's
    ("en", "My flight lands at 6pm.", "My brother's flight now lands at 9pm."),
    ("en", "Tom's phone is 555-0100.", "My new number is 555-0199."),
    ("en", "I sleep 6 hours a night.", "I now work 10 hours a day."),  # another thing
    ("en", "Room 204 is my office.", "Now the meeting is in room 310."),
    ("zh", "我每天跑5公里。", "我老婆现在每天跑3公里。"),
    ("zh", "我的预算是3000元。", "我老公的预算涨到5000元了。"),
    ("zh", "早餐8点开始。", "午餐现在12点开始。"),
    ("zh", "房租每月4500元。", "水电费现在每月300元。"),
    ("zh", "我儿子8岁。", "我女儿现在5岁了。"),
    ("en", "I have 2 cats.", "Now we have 3 dogs."),
    ("en", "The meeting starts at 3pm.", "The party now starts at 7pm."),
    ("en", "I'm 34.", "The temperature turned 35 degrees today."),
    ("zh", "我住在3楼。", "我们公司现在在12楼。"),
    ("zh", "会议3点开始。", "聚会现在7点开始。"),
    # Another habit, another count, another person, said anew.
    ("en", "I sleep about 6 hours a night.", "These days I run 10 km every morning."),
    ("en", "My son is in 3rd grade.", "My daughter just started 4th grade."),
    ("zh", "我每天喝两杯咖啡。", "今天已经喝了三杯茶了。"),
    ("zh", "我们家有两只猫。", "我朋友家现在有三只猫了。"),
    ("zh", "下班以后我去健身一小时。", "周末我去游泳两小时。"),
    ("zh", "我在腾讯做产品经理。", "我老婆跳槽到字节跳动了。"),
    ("zh", "我在家做饭。", "我跳槽到字节跳动了。"),
    ("en", "I prefer aisle seats.", "I like window tables better."),
    ("en", "The venue holds 40 guests.", "It's up to you, we could invite 55."),
    ("zh", "我的领导是王经理。", "我老婆换了新领导，是李经理。"),
    ("zh", "我喜欢靠过道的座位。", "我更喜欢靠窗的桌子。"),
    ("en", "Our budget for the sofa is $900.", "My sister can stretch her budget to $1,100."),
    ("zh", "发布会定在5月8号。", "年会推迟到5月20号了。"),
    ("zh", "我妈住在朝阳区建国路88号。", "我的地址改成海淀区中关村大街1号了。"),
    # The same person, a new day, another thing: no character in common.
    ("zh", "周一下午两点和王总开会。", "王总的航班改到周二了。"),
])
def test_a_current_value_of_another_thing_or_person_replaces_nothing(
    language: str, old: str, new: str
) -> None:
    out = ask([user(old), user(new)], language=language)
    assert old.rstrip("。.") in out and new.rstrip("。.") in out


@pytest.mark.parametrize("across_a_fold", [False, True])
def test_a_new_day_with_the_same_person_replaces_the_old_one(across_a_fold: bool) -> None:
    # "开会" and "会议" share no word; the name and a character say it is the same meeting.
    old, new = "周一下午两点和王总开会。", "王总说会议改到周二下午四点。"
    if across_a_fold:
        out = ask([user(new)], previous=ask([user(old)], language="zh"), language="zh")
    else:
        out = ask([user(old), user("今天天气不错。"), user(new)], language="zh")
    assert "周一" not in out and "周二下午四点" in out


@pytest.mark.parametrize(("old", "new", "other"), [
    ("I'm allergic to peanuts.", "Turns out I'm not allergic to peanuts after all.",
     "My son is allergic to cats."),
    ("We are vegetarian.", "We're not vegetarian after all, we just eat little meat.",
     "My sister is vegetarian."),
])
def test_a_state_found_never_to_have_held_ends_only_that_state(old: str, new: str,
                                                               other: str) -> None:
    out = ask([user(other), user(old), user("Nice weather today."), user(new)])
    assert old.rstrip(".") not in out and new.split(",")[0].rstrip(".") in out
    assert other.rstrip(".") in out
    assert "I'm not sure" in ask([user("I'm sure about the venue."),
                                  user("Actually I'm not sure after all.")])


def test_a_change_carried_from_the_previous_summary() -> None:
    previous = "Facts:\n- The meeting is on Tuesday at 3pm.\n- I live in Leeds."
    out = ask([user("The meeting moved to Wednesday at 10am.")], previous=previous)
    assert "Tuesday" not in out and "Wednesday" in out and "Leeds" in out


@pytest.mark.parametrize(("first", "second"), [
    ("I ran 3 miles last week.", "Actually I ran 5 miles today."),  # no word of change
    ("The meeting is on Tuesday at 3pm.", "The workshop moved to Friday."),  # another thing
    ("My flight is BA117.", "The gate changed to B12."),
])
def test_without_a_change_of_the_same_thing_both_stay(first: str, second: str) -> None:
    out = ask([user(first), user(second)])
    assert first.rstrip(".") in out and second.rstrip(".") in out


@pytest.mark.parametrize(("language", "old", "new", "stale"), [
    ("en", "I am 34 years old.", "I turned 35 yesterday.", "34"),
    ("en", "I work at Google as a designer.", "I just started a new job at Stripe.", "Google"),
    ("en", "My wife Sarah is a teacher.", "Sarah is now a principal.", "teacher"),
    ("zh", "我今年28岁。", "我今年29岁了。", "28"),
    ("zh", "我在阿里巴巴上班。", "我跳槽到字节跳动了。", "阿里巴巴"),
])
def test_age_job_and_role_update(language: str, old: str, new: str, stale: str) -> None:
    out = ask([user(old), user(new)], language=language)
    assert stale not in out and new.rstrip("。.") in out


def test_a_role_changes_only_when_it_says_so() -> None:
    out = ask([user("Sarah is a teacher."), user("Sarah is a big fan of jazz."),
               user("Anna is a nurse.")])
    assert "teacher" in out and "jazz" in out and "nurse" in out


@pytest.mark.parametrize(("language", "messages"), [
    ("en", [user("Please add milk and eggs to my shopping list."),
            assistant("Milk and eggs are on your shopping list now.")]),
    ("en", [user("Please book a flight to Denver for March 4."),
            user("Thanks, the flight to Denver is booked, I did it myself.")]),
    ("zh", [user("帮我订一张明天去上海的高铁票。"),
            assistant("订好了：G102次，明天8:00北京南出发，二等座。")]),
    ("zh", [user("帮我写一封请假邮件。"),
            assistant("好的，邮件如下：王经理您好，我因身体不适，申请明天请假一天，望批准。")]),
    ("zh", [user("帮我订酒店。"), user("酒店我自己订好了，不用麻烦了。")]),
])
def test_a_request_answered_in_the_next_message_is_closed(
    language: str, messages: list[dict[str, Any]]
) -> None:
    out = ask(messages, language=language)
    assert not section(out, "Open tasks" if language == "en" else "待办"), out


def test_a_reply_that_only_shares_a_time_closes_nothing() -> None:
    out = ask([user("Can you book a table at Nopa for Friday?"),
               assistant("Here's the forecast for Friday: sunny.")])
    assert section(out, "Open tasks")


def test_an_ended_state_takes_out_what_it_ends() -> None:
    out = ask([user("I drive a Toyota Corolla."),
               user("I sold the Corolla and bought a Tesla Model 3.")])
    assert "drive a Toyota" not in out and "Tesla" in out
    out = ask([user("I work at Google as a designer, and I live in Austin."),
               user("I quit my job at Google last week.")])
    assert "designer" not in out and "I live in Austin." in out
    zh = ask([user("我喜欢喝美式咖啡。"), user("我每天都喝绿茶。"), user("最近不喝咖啡了。")],
             language="zh")
    assert "美式" not in zh and "绿茶" in zh


def test_selling_what_was_made_ends_nothing() -> None:
    out = ask([user("I painted a lake sunrise."), user("I sold my paintings at the fair.")])
    assert "lake sunrise" in out


def test_a_promise_that_names_nothing_is_chatter() -> None:
    vague = [user("I'll definitely check it out."), user("I'll make sure to keep you updated."),
             user("I'll keep working at it and hopefully the next steps get clearer.")]
    concrete = [user("I'll send the report to Anna by Friday."),
                user("I'll keep pursuing my passion for screenwriting.")]
    out = ask(vague + concrete, max_tokens=30)
    assert "Anna" in out and "screenwriting" in out
    assert "check it out" not in out and "keep you updated" not in out


def test_a_chinese_sentence_of_particles_and_light_verbs_is_chatter() -> None:
    chatter = [user("我也是。"), user("嗯嗯，我知道了。"), user("那就这样吧。"), user("挺好。")]
    facts = [user("我养了一只猫。"), user("我不吃辣。")]
    out = ask(chatter + facts, language="zh",
              max_tokens=count(ask(facts, language="zh")) + 4)  # room for the facts alone
    assert "猫" in out and "辣" in out
    for line in ("我也是", "我知道了", "就这样", "挺好"):
        assert line not in out


def test_short_words_that_name_things_are_content_words() -> None:
    from chatfold.summarizers.extractive.threads import content_tokens

    assert content_tokens("My cats and the tax bill, and Mom's car.") == {
        "cat", "tax", "bill", "mom", "car"}
    assert content_tokens("Taxes for the kids' bus") == {"tax", "kid", "bus"}
    assert content_tokens("You and she saw the way out") == frozenset()


# ---------------------------------------------------------------------------------------------
# people by name, a pick from a listing, what closes an errand, values reached (stop 24)



@pytest.mark.parametrize(("lang", "listing", "reply", "picked", "other"), [
    ("en", "For the offsite I found two venues: Lakeview Lodge ($4,200) or Pine Ridge "
     "Retreat ($3,600).", "Pine Ridge sounds good, let's lock that in.", "Pine Ridge Retreat",
     "Lakeview"),
    ("zh", "团建场地找了两个：湖景山庄4200元，或者松岭度假村3600元。", "就松岭吧，定下来。",
     "松岭度假村3600元", "湖景"),
])
def test_an_option_taken_from_a_listing_is_a_choice(lang: str, listing: str, reply: str,
                                                     picked: str, other: str) -> None:
    out = ask([assistant(listing), user(reply)], language=lang)
    decisions = section(out, "Decisions" if lang == "en" else "决定")
    assert any(picked in d and other not in d for d in decisions)
    # Named without being taken, it is no choice.
    out = ask([assistant(listing), user("Is Pine Ridge far from the city?" if lang == "en"
                                        else "松岭离市区远吗？")], language=lang)
    assert section(out, "Decisions" if lang == "en" else "决定") == []


def test_a_name_called_or_another_call_made_closes_no_errand() -> None:
    task = user("I have to call the landlord about the leaking sink.")
    for later in ('This game is called "Dungeons of the Dragon", very exciting!',
                  "I called my mom last night, she is doing great."):
        out = ask([task, assistant("OK."), user(later)])
        assert section(out, "Open tasks") == [
            "I have to call the landlord about the leaking sink."]
    out = ask([task, assistant("OK."), user("I called the landlord, he'll fix the sink.")])
    assert section(out, "Open tasks") == []


def test_a_carried_decision_lends_its_words_to_no_errand() -> None:
    previous = ("Decisions:\n- Let's use Vercel for hosting.\n"
                "- Today I decided to spend more time with my pets.\n\n"
                "Open tasks:\n- I have to call the landlord about the leaking sink.")
    # Reports and take-backs that share a word with a decision, none with the errand.
    for later in ("My strategy game is finally finished, it took loads of time.",
                  "Scratch that, we'll host on Netlify instead."):
        out = ask([user(later)], previous=previous)
        assert section(out, "Open tasks") == [
            "I have to call the landlord about the leaking sink."]
    zh = ("决定：\n- 网站就用Vercel部署吧。\n\n"
          "待办：\n- 我得给房东打电话说一下水槽漏水的事。")
    out = ask([user("算了，还是用Netlify部署。")], previous=zh, language="zh")
    assert "房东" in out and "Vercel" not in out and "Netlify" in out


@pytest.mark.parametrize(("lang", "old", "new", "kept", "gone"), [
    ("en", "I weigh 82 kg right now, trying to get lower.", "Down to 78 kg this morning!",
     "78 kg", "82 kg"),
    ("zh", "我现在体重82公斤，想再减一点。", "今天早上称了一下，78公斤了！", "78公斤", "82公斤"),
    ("en", "We have 12 people coming to the party.",
     "Actually make that 15 people, my cousins are coming too.", "15 people", "12 people"),
    ("zh", "聚会一共来12个人。", "再加3个，变成15个人了，表哥他们也来。", "15个人", "12个人"),
    ("en", "Our rent is $1,800 a month.", "Scratch that, it is $1,950 now.", "1,950", "1,800"),
])
def test_a_value_reached_or_taken_back_replaces_the_old(lang: str, old: str, new: str,
                                                       kept: str, gone: str) -> None:
    out = ask([user(old), assistant("OK." if lang == "en" else "好的。"), user(new)],
              language=lang)
    assert kept in out and gone not in out
    assert "3个人" not in out  # "再加3个" adds three; fifteen is what holds


def test_a_report_sent_off_closes_the_errand_zh() -> None:
    out = ask([user("提醒我周五前要交报销单。"), assistant("好的。"), user("报销单终于交上去了。")],
              language="zh")
    assert section(out, "待办") == []



def test_leaving_the_chat_is_no_errand() -> None:
    out = ask([user("I have to go, I'm tired over the last two days.")])
    assert section(out, "Open tasks") == []


@pytest.mark.parametrize(("lang", "old", "new", "kept"), [
    ("en", "I weigh 82 kg right now.", "Down to 78 kg this morning!", "78 kg"),
    ("zh", "我现在体重82公斤。", "今天早上称了一下，78公斤了！", "78公斤"),
    ("en", "We have 12 people coming.", "Actually make that 15 people.", "15 people"),
])
def test_a_value_reached_holds_its_place_in_later_folds(lang: str, old: str, new: str,
                                                        kept: str) -> None:
    # The new value inherits the old one's worth in the fold that replaces it, and must keep
    # it on its own words after that: carried items are scored again from their text, and a
    # carried one-off event gives way to what stays true.
    first = ask([user(old), user(new)], language=lang, max_tokens=60)
    assert kept in first
    standing = ([user("I take metformin every morning.")] if lang == "en"
                else [user("我每天早上吃二甲双胍。")])
    out = ask(standing, previous=first, language=lang, max_tokens=count(first) + 2)
    assert kept in out


_OUTINGS = {
    "en": [user("Last Saturday we took the kids to the aquarium and saw the sharks."),
           user("Yesterday I went hiking at Mount Rainier with Tom and Jess."),
           user("Last week I ran the Portland half marathon with my brother.")],
    "zh": [user("上周六我们带孩子去了海洋馆，看了鲨鱼。"), user("昨天我和小李去爬了香山。"),
           user("上周我和我哥跑了北京半程马拉松。")],
}



def test_a_time_is_no_host() -> None:
    out = ask([*_OUTINGS["en"], user("Let's talk again at 10:30."), *_OUTINGS["en"]],
              max_tokens=26)
    assert "10:30" not in out


@pytest.mark.parametrize(("lang", "said", "kept", "gone", "other"), [
    ("en", ["My salary is $95k.", "The hotel is $180 a night.", "Got a raise, I'm at $105k now."],
     "105k", "95k", "$180"),
    ("zh", ["我月薪20000。", "酒店每晚500元。", "涨薪了，现在月薪23000。"],
     "23000", "20000", "500元"),
])
def test_a_raise_replaces_the_salary_not_the_latest_amount(lang: str, said: list[str],
                                                           kept: str, gone: str,
                                                           other: str) -> None:
    out = ask([user(s) for s in said], language=lang)
    assert kept in out and gone not in out and other in out


@pytest.mark.parametrize(("lang", "asked", "reply", "picked"), [
    ("en", "Should we deploy on Friday or wait until Monday?", "Monday, no Friday deploys.",
     "wait until Monday"),
    ("zh", "周五上线还是等到周一？", "周一吧，周五不上线。", "等到周一"),
])
def test_a_pick_then_the_other_option_ruled_out_is_a_choice(lang: str, asked: str, reply: str,
                                                             picked: str) -> None:
    out = ask([assistant(asked), user(reply)], language=lang)
    decisions = section(out, "Decisions" if lang == "en" else "决定")
    assert any(d.startswith(("User chose: " + picked, "用户选择：" + picked)) for d in decisions)
    assert section(ask([assistant(asked), user("No, neither works.")]), "Decisions") == []


def test_a_report_done_and_sent_closes_the_errand() -> None:
    out = ask([user("I need to finish the quarterly report by Thursday."), assistant("OK."),
               user("Quarterly report done and sent to my boss.")])
    assert section(out, "Open tasks") == []


def test_a_carried_choice_holds_against_new_outings() -> None:
    previous = "Decisions:\n- User chose: blue with white text"
    out = ask(_OUTINGS["en"], previous=previous, max_tokens=count(previous) + 2)
    assert "blue with white text" in out


def test_what_the_assistant_tells_of_the_users_order_is_theirs_zh() -> None:
    out = ask([user("我的快递到哪了？"), assistant("您的订单A-7781已发货，预计12月12日送达。"),
               *_OUTINGS["zh"]], language="zh", max_tokens=30)
    assert "A-7781" in out


@pytest.mark.parametrize(("lang", "said", "key"), [
    ("en", "Please always give me prices in euros.", "euros"),
    ("en", "Never book red-eye flights for me.", "red-eye"),
    ("zh", "以后价格都用欧元给我报。", "欧元"),
])
def test_an_ask_for_good_takes_a_kept_outings_place(lang: str, said: str,
                                                                  key: str) -> None:
    # A summary already full of narrated outings: what the user wants for good must still get
    # in, as a standing fact does, in place of one outing.
    outings = _RICH_OUTINGS[lang]
    first = ask(outings, language=lang, max_tokens=200)
    out = ask([user(said)], previous=first, language=lang, max_tokens=count(first) + 1)
    assert key in out
    assert sum(o["content"][:8] in out for o in outings) >= len(outings) - 2


_RICH_OUTINGS = {
    "en": [user("Last Saturday Tom, Jess and I took the kids to the Seattle Aquarium."),
           user("Yesterday I went hiking at Mount Rainier with Tom and Jess Moreno."),
           user("Last week I ran the Portland Half Marathon with my brother Dave."),
           user("On Sunday I baked a lemon cake for Grandma Rose at Lake Union.")],
    "zh": [user("上周六我和小李、小王带孩子去了上海海洋水族馆。"),
           user("昨天我和小李去爬了香山，拍了200多张照片。"),
           user("上周我和我哥在北京跑了半程马拉松。"),
           user("周日我给奶奶在西湖边过了80岁生日。")],
}


@pytest.mark.parametrize("later", [
    "Family support is invaluable. It's so good to have those reminders.",
    "That photo on my cork board reminds me of home every day.",
])
def test_reminders_in_passing_set_no_reminder(later: str) -> None:
    asked = "Remind me to renew my car insurance next month."
    out = ask([user(asked), assistant("Noted."), user("How was your weekend?"),
               assistant(later)])
    assert section(out, "Open tasks") == ["" + asked]
    # Carried from an earlier fold beside an agreed offer that shares a word with the later
    # message ("good"), too.
    previous = ("Decisions:\n- User agreed: look into volunteering (that's a good idea)\n\n"
                f"Open tasks:\n- {asked}")
    out = ask([user("Thanks! Having that picture reminds me of them every day."),
               assistant(later)], previous=previous)
    assert section(out, "Open tasks") == ["" + asked]


def test_next_and_last_name_no_errand() -> None:
    asked = "Remind me to renew my car insurance next month."
    out = ask([user("I just finished the intro to my next movie script!")],
              previous=f"Open tasks:\n- {asked}")
    assert section(out, "Open tasks") == ["" + asked]


# ---------------------------------------------------------------------------------------------
# an engineering agent's memory: stack, schedule, prohibitions, what it made (probe 3)



@pytest.mark.parametrize(("lang", "made", "key"), [
    ("en", "Created JIRA-2291 for the login bug.", "JIRA-2291"),
    ("zh", "已创建工单JIRA-2291。", "JIRA-2291"),
])
def test_what_the_assistant_made_with_its_key_outranks_outings(lang: str, made: str,
                                                               key: str) -> None:
    out = ask([*_OUTINGS[lang], assistant(made), *_OUTINGS[lang]], language=lang, max_tokens=40)
    assert key in out


@pytest.mark.parametrize(("lang", "asked", "later", "done"), [
    ("en", "I have to rotate the AWS keys by Friday.", "Rotated the AWS keys this morning.", True),
    ("en", "I have to migrate the billing database.", "I migrated the billing database.", True),
    ("zh", "我得在周五前轮换AWS密钥。", "AWS密钥今天上午已经轮换了。", True),
    ("en", "I have to rotate the AWS keys by Friday.", "Excited about the AWS keys talk!", False),
    ("en", "I need to watch the new Dune movie.", "I loved the Dune trailer.", False),
])
def test_any_verb_reported_done_closes_its_errand(lang: str, asked: str, later: str,
                                                  done: bool) -> None:
    out = ask([user(asked), assistant("OK." if lang == "en" else "好的。"), user(later)],
              language=lang)
    assert (section(out, "Open tasks" if lang == "en" else "待办") == []) is done


def test_a_corrected_count_finds_its_thing_not_its_measure_word() -> None:
    out = ask([user("我们API的限流是每分钟500次。"), user("它的意思是人只会活一次。"),
               user("限流调到每分钟2000次了。")], language="zh")
    assert "每分钟2000次" in out and "500次" not in out and "活2000次" not in out


# Standing statements of every kind, each among narrated outings with room for two items: the
# outing with three names may keep its place, not the other two.
@pytest.mark.parametrize(("lang", "said", "key"), [
    ("en", "My manager, Dana Whitfield, is very strict about deadlines.", "Dana"),
    ("en", "We live in Tacoma now, moved from Boise last spring.", "Tacoma"),
    ("zh", "我的领导王建华对截止日期特别严格。", "王建华"),
    ("zh", "顺便说一下，我女儿叫小雨，明年秋天上幼儿园。", "小雨"),
    ("en", "I still need to pick up my prescription.", "prescription"),
    ("zh", "我还得去药店拿药。", "拿药"),
    ("en", "I weigh 82 kg right now, trying to get lower.", "82 kg"),
    ("en", "We have 12 people coming to the party.", "12 people"),
    ("zh", "我现在体重82公斤，想再减一点。", "82公斤"),
    ("zh", "聚会一共来12个人。", "12个人"),
    ("en", "FYI the staging database lives at db-staging.internal:5432.", "db-staging"),
    ("zh", "测试环境的数据库地址是db-staging.internal:5432。", "db-staging"),
    ("en", "The print server is 10.0.3.17.", "10.0.3.17"),
    ("en", "I'm trying to cut down on sugar, so please don't suggest desserts.", "desserts"),
    ("en", "Remind me to renew my car insurance next month.", "car insurance"),
    ("zh", "提醒我下个月续车险。", "车险"),
    ("en", "Don't ever push directly to main.", "push directly"),
    ("zh", "永远不要直接推到main分支。", "直接推"),
    ("en", "I still need to write the migration guide.", "migration guide"),
    ("en", "We're on Python 3.11 and Django 4.2.", "Django 4.2"),
    ("zh", "我们用的是Python 3.11和Django 4.2。", "Django 4.2"),
    ("en", "The deploy freeze starts December 20.", "December 20"),
    ("zh", "发布冻结期从12月20号开始。", "12月20号"),
    ("en", "We switched the CI from Jenkins to GitHub Actions.", "GitHub Actions"),
    ("en", "Note: Maria is the on-call engineer this week.", "Maria"),
    ("zh", "这周on-call的是Maria。", "Maria"),
    ("zh", "这个项目的对接人是王磊。", "王磊"),
])
def test_standing_statements_outrank_outings(lang: str, said: str, key: str) -> None:
    out = ask([*_OUTINGS[lang], user(said), *_OUTINGS[lang]], language=lang, max_tokens=40)
    assert key in out


# ---------------------------------------------------------------------------------------------
# a pick lends its words to an errand only when it is near it, and only to what follows it

_CARRIED_REMINDER = (
    "Open tasks:\n- Can you remind me to renew the car insurance before June 3?")


@pytest.mark.parametrize("later", [
    # An either-or question about what is: its answer is a fact, no pick.
    [assistant("Is it a martial arts place or a yoga studio?"),
     user("Yup, it's a yoga studio I go to often. The instructors are awesome.")],
    # An offer taken after the statement that shares its words: it names nothing said before.
    [assistant("Yoga is a great way to relax, and joining a new class might be a good option."),
     user("Yeah, it's been great for me.")],
])
def test_a_pick_elsewhere_closes_no_errand(later: list[dict[str, Any]]) -> None:
    out = ask(later, previous=_CARRIED_REMINDER)
    assert any("insurance" in line for line in section(out, "Open tasks")), out


def test_an_answer_to_a_factual_either_or_question_is_no_decision() -> None:
    out = ask([assistant("Did you drive up or take the train to Portland?"),
               user("Took the train, it was lovely.")])
    assert not section(out, "Decisions"), out


# ---------------------------------------------------------------------------------------------
# held-out probe 4: picks by place or description, requests said in passing, whose person is
# who, conditions, doses, renewals, recurring amounts, rules without a verb

@pytest.mark.parametrize(("lang", "listing", "reply", "chosen"), [
    ("en", "Three options: (1) Casa do Alfama, $185/night; (2) Baixa Tower Hotel with a pool, "
           "$260/night; (3) an Airbnb in Belém, $150/night.",
     "Pool would be nice but not at that price. Let's do the first one.", "Casa do Alfama"),
    ("en", "Options: Starter 100 Mbps at $45, Plus 500 Mbps at $65, or keep Gig at $90.",
     "He went with the middle one.", "500 Mbps"),
    ("en", "A few ideas: Osteria Lupa has a private room at $65 a person; Golden Lotus does "
           "dim sum at $40 a person; or we could get it catered at your place.",
     "Nobody wants to clean up after a party. So the dim sum place.", "Golden Lotus"),
    ("en", "Maple Pediatrics has Tue 10:40am, Thu 3:15pm, or Sat 9:00am.",
     "Tuesday it is, I'll pull him out of school for an hour.", "10:40"),
    ("zh", "附近有三个选择：一是少年宫的围棋班，周六上午；二是游泳班，周日下午；三是线上少儿编程。",
     "游泳她怕水……还是第一个吧。", "围棋"),
    ("zh", "有两家：如家在火车站旁边，每晚299；亚朵在武林广场，每晚516。", "最后那个。", "亚朵"),
])
def test_a_pick_by_place_or_description_is_the_option(lang: str, listing: str, reply: str,
                                                       chosen: str) -> None:
    out = ask([assistant(listing), user(reply)], language=lang)
    decisions = section(out, "Decisions" if lang == "en" else "决定")
    assert any(chosen in d for d in decisions), out


@pytest.mark.parametrize(("listing", "reply"), [
    # A single recommendation split at its commas is no listing.
    ("I recommend the Tokyo itinerary, with 5 days in Kyoto.", "The first one sounds fine."),
    ("Options: (1) the Hilton; (2) the Hyatt.", "Not the first one, I stayed there before."),
    ("Options: (1) the Hilton; (2) the Hyatt.", "The first time I went there it rained."),
    ("Options: (1) the Hilton; (2) the Hyatt; (3) the Ritz.", "Is the first one near the sea?"),
])
def test_no_pick_without_a_listing_or_with_the_place_negated(listing: str, reply: str) -> None:
    out = ask([assistant(listing), user(reply)])
    assert not any("chose" in d for d in section(out, "Decisions")), out


@pytest.mark.parametrize(("lang", "said", "key"), [
    ("en", "Oh and remind me to sign her permission slip for the aquarium trip, it's due Friday.",
     "permission slip"),
    ("en", "Unrelated, but remind me to renew Leo's passport, it expires in April.", "passport"),
    ("en", "Ticket #88213 goes to tier 2 once Priya's back on Monday. Don't let me forget.",
     "88213"),
    ("en", "I need to call Dr. Petrov's office about the retainer. Keep it on the list.",
     "retainer"),
    ("zh", "她校服又小了，提醒我抽空给她买套新的。", "校服"),
    ("zh", "工单 TK-60342 得等财务周一上班再跟进。你别让我忘了。", "TK-60342"),
])
def test_a_request_said_in_passing_is_an_open_task(lang: str, said: str, key: str) -> None:
    out = ask([user(said)], language=lang)
    tasks = section(out, "Open tasks" if lang == "en" else "待办")
    assert any(key in t for t in tasks), out


@pytest.mark.parametrize(("said", "standing"), [
    ("Maya's new homeroom teacher is Mrs. Okafor, room 14.", True),
    ("The main contact is Raj Mehta in procurement.", True),
    ("She has a sesame allergy.", True),
    ("Leo is allergic to penicillin.", True),
    ("Dr. Feldman is keeping him on the amlodipine, 5 mg in the mornings.", True),
    ("Their contract renews Sept 30.", True),
    ("We're putting $600 a month into the college fund.", True),
    ("Aisle seats only, always.", True),
    ("And never a layover under an hour, I've been burned on that twice.", True),
    ("孩子对芒果过敏。", True),
    ("我们家房贷每个月还 6800。", True),
    # What is refused, then why.
    ("Nothing with cashews please, I'm allergic, but other nuts are fine.", True),
    ("no shellfish in mine - I am allergic", True),
    # A noun read as a verb, or a verdict, is no attribute.
    ("Here's our latest work from last weekend.", False),
    ("I'm trying to make my plan work, even though it's been tough.", False),
    ("Showing off our true selves is the best thing ever.", False),
    ("Allergies can be tough.", False),
    ("I skipped dessert since I'm allergic.", False),
    ("Only a few more days until the trip.", False),
])
def test_what_stays_true_is_standing_and_chatter_is_not(said: str, standing: bool) -> None:
    from chatfold.summarizers.extractive.scoring import _score_all

    assert _score_all([said], ["user"])[0].standing is standing


@pytest.mark.parametrize(("said", "section_title"), [
    ("另外朵朵班级群的消息别一条一条转给我了，太多了，每天晚上给我汇总一次就好。", "偏好"),
    ("最后那个便宜是便宜，可我最受不了红眼航班，以后晚上十点以后起飞的都别给我选。", "偏好"),
    ("车子得在11月底之前去做年检。", "待办"),
    ("华东仓的发货截单时间是每天下午 4 点。", "事实"),
])
def test_chinese_instructions_deadlines_and_settings_stand(said: str, section_title: str) -> None:
    from chatfold.summarizers.extractive.scoring import _score_all

    assert _score_all([said], ["user"])[0].standing
    assert section(ask([user(said)], language="zh"), section_title), said


def test_a_chinese_change_said_inside_a_long_sentence_replaces_the_old_time() -> None:
    previous = "事实：\n- 华东仓的发货截单时间是每天下午 4 点。\n- 我住在16楼。"
    out = ask([user("仓库刚通知，从下周一起截单提前了，改成下午 3 点半，顾客问起来按新的说。")],
              previous=previous, language="zh")
    assert "3 点半" in out and "下午 4 点" not in out and "16楼" in out, out


def test_kept_on_the_list_stays_open_and_a_passive_report_closes_it() -> None:
    first = ask([user("I need to call Dr. Petrov's office about Leo's retainer. Keep it on the "
                      "list."), assistant("Will do, it's on the list.")])
    assert "retainer" in section(first, "Open tasks")[0] and "(done)" not in first, first
    slip = "Open tasks:\n- Remind me to sign her permission slip, it's due Friday and " \
        "it's buried in her folder."
    done = ask([user("Slip's signed and back in her backpack, finally.")], previous=slip)
    assert section(done, "Open tasks") == [], done


@pytest.mark.parametrize(("lang", "said", "key"), [
    ("en", "Found it — order BX-40219. I'll ask the warehouse for a new jar.", "BX-40219"),
    ("zh", "查到了，是 DD20240611087，川味小馆的单。", "DD20240611087"),
])
def test_what_a_lookup_found_by_its_key_outranks_chatter(lang: str, said: str, key: str) -> None:
    chatter = [user(f"Haha the weather was so lovely on day {n}, we had so much fun!")
               if lang == "en" else user(f"第{n}天天气真好，我们玩得特别开心！") for n in range(12)]
    out = ask([*chatter, assistant(said)], language=lang, max_tokens=60)
    assert key in out, out


def test_an_idiom_reports_nothing_done_and_a_verb_ending_its_clause_no_attribute() -> None:
    from chatfold.summarizers.extractive.scoring import _score_all
    from chatfold.summarizers.extractive.threads import user_done

    assert not user_done("Knowing you've got my back really helps keep me going.")
    assert user_done("Got my renewed passport back today.")
    said = "Life's unpredictable, but these moments remind us how important our loved ones are."
    assert not _score_all([said], ["user"])[0].standing
    assert _score_all(["Our loved ones are in Ohio."], ["user"])[0].standing


# ---------------------------------------------------------------------------------------------
# held-out probe 5: the assistant saying what the user's reasons leave, "that one", values
# taken back as they are said, and what stays true of a body, a goal, a new person

@pytest.mark.parametrize(("lang", "messages", "chosen"), [
    ("en", [assistant("A few knee-friendly choices: swimming laps, cycling on a spin bike, or "
                      "the elliptical at your gym."),
            user("The pool closes at 6 and I don't own a bike, so I guess that settles it."),
            assistant("Then the elliptical it is: 25 minutes, twice a week.")], "elliptical"),
    ("en", [assistant("Three options nearby: Glenmore Dairy is the cheapest at €6.80/kg but "
                      "only delivers Tuesdays; Valley Creamery is organic, €8.20/kg, and drops "
                      "off every morning; Brennan & Sons is €7.40/kg, Mondays only."),
            user("Honestly a drop-off every morning matters more to me than a euro a kilo. "
                 "I'll go with that one."),
            assistant("Makes sense.")], "Valley Creamery"),
    ("zh", [assistant("可以看这三个：1）客如云，支持会员储值，月费198；"
                      "2）二维火，月费128，不支持储值；3）微信收款加Excel记账。"),
            user("我们老顾客好多都是充值的，不能储值的那个就算了，Excel那种我也懒得天天对账。"),
            assistant("那就上客如云，我帮你列一下迁移要准备的东西。")], "客如云"),
])
def test_a_pick_the_assistant_concludes_or_the_user_makes_by_that_one(
        lang: str, messages: list[dict[str, Any]], chosen: str) -> None:
    out = ask(messages, language=lang)
    decisions = section(out, "Decisions" if lang == "en" else "决定")
    assert any(chosen in d and ("chose" in d or "选择" in d) for d in decisions), out


@pytest.mark.parametrize(("lang", "said", "meant", "wrong"), [
    ("en", "For monitoring, staging is at 10.4.12.88 — no wait, sorry, that's the old box we "
           "retired, the real one is 10.4.12.91.", "10.4.12.91", "10.4.12.88"),
    ("zh", "机房那台NAS的IP是192.168.3.45，啊不对，说错了，NAS是192.168.3.60。",
     "192.168.3.60", "192.168.3.45"),
])
def test_a_value_taken_back_as_it_is_said_is_not_kept(lang: str, said: str, meant: str,
                                                       wrong: str) -> None:
    out = ask([user(said)], language=lang)
    assert meant in out and wrong not in out, out


@pytest.mark.parametrize("said", [
    "Quick thing: don't ever restart the prod database without pinging me first.",
    "I'm 41, sitting at around 92 kg right now, desk job.",
    "I tore the meniscus in my left knee skiing in February.",
    "Main goal is a sub-50 10K by October.",
    "Oh, and my new head baker, Priyanka Oduya, starts on the 14th.",
    "One thing about scheduling: I'm really not into early morning workouts.",
    "对了，新来的学徒叫邝志豪，下周一开始上班。",
    "去年右肩肩袖做过一个小手术，所以推举类的动作我有点怕。",
    "跟你说，鸡胸肉我真的吃不下去了。",
])
def test_probe_5_standing_statements(said: str) -> None:
    from chatfold.summarizers.extractive.scoring import _score_all

    assert _score_all([said], ["user"])[0].standing, said


@pytest.mark.parametrize(("lang", "messages", "key"), [
    ("en", [user("Can you remind me to send the October invoice to the café on Dunmore Street?"),
            assistant("Will do, I'll remind you about the Dunmore Street invoice."),
            user("The Dunmore Street invoice went out this morning, so that's off my plate.")],
     "Dunmore"),
    ("zh", [user("提醒我这周五之前把美的那边的配件款结了，一共4860块。"),
            assistant("好的，周五前提醒你。"),
            user("美的那笔配件款昨天下午已经转过去了。")], "配件款"),
])
def test_an_errand_reported_done_after_its_reminder_was_set_closes(
        lang: str, messages: list[dict[str, Any]], key: str) -> None:
    out = ask(messages, language=lang)
    assert not any(key in t for t in section(out, "Open tasks" if lang == "en" else "待办")), out


def test_a_chinese_dose_raised_replaces_the_old_dose() -> None:
    previous = "事实：\n- 医生让我每天早上空腹吃一片优甲乐，50微克。"
    out = ask([user("复查了甲功，医生把优甲乐加到75微克了。")], previous=previous, language="zh")
    assert "75微克" in out and "50微克" not in out, out


def test_a_promise_to_look_answers_no_request_and_a_daydream_is_no_fact() -> None:
    out = ask([user("Can you find me a repair tech who services Rofco B40 ovens?"),
               assistant("Ha, Lisbon sounds nice. I'll look for a technician who works on the "
                         "Rofco B40.")])
    assert any("Rofco" in t for t in section(out, "Open tasks")), out
    from chatfold.summarizers.extractive.scoring import _score_all

    dream, fact = _score_all(["If I ever win the lottery I'm opening a surf shop in Lisbon.",
                              "I'm opening a surf shop in Lisbon in May."], ["user", "user"])
    assert dream.score < 0.7 * fact.score
    zh = _score_all(["要是哪天中了五百万，我就把店一关去大理开民宿，哈哈。"], ["user"])[0]
    assert zh.score < 2.5


# ---------------------------------------------------------------------------------------------
# probe 6 (measured held out first, then read): a lettered pick, an errand not done yet,
# noted is not done, titles, rules for drafting

def test_a_lettered_pick_is_its_option() -> None:
    out = ask([assistant("Options: (A) rotate subjects every day, (B) block by subject, week 1 "
                         "chemistry, week 2 algebra, or (C) mix them."),
               user("B. Switching every day just scrambles my brain.")])
    assert section(out, "Decisions") == [
        "User chose: block by subject, week 1 chemistry, week 2 algebra"], out
    # "A." with no lettered listing picks nothing.
    plain = ask([assistant("We could rotate subjects or block them."), user("A. I guess.")])
    assert not any("chose" in d for d in section(plain, "Decisions")), plain


@pytest.mark.parametrize(("messages", "open_keys"), [
    ([user("Ugh, and I still haven't returned 'Molecular Driving Forces' to the library.")],
     ["Molecular Driving Forces"]),
    ([user("Pay the florist deposit by the 15th. And at some point order the welcome-bag "
           "totes."), assistant("Both are on the list: the deposit by the 15th, and the totes.")],
     ["deposit", "totes"]),
])
def test_an_errand_not_done_yet_or_only_noted_stays_open(messages: list[dict[str, Any]],
                                                          open_keys: list[str]) -> None:
    out = ask(messages)
    tasks = section(out, "Open tasks")
    assert all(any(k in t for t in tasks) for k in open_keys), out


@pytest.mark.parametrize("said", [
    "One ground rule for every vendor email you draft: never put our budget in the first message.",
    "And keep them short, three sentences max.",
    "For my SPAN 301 review, quiz me in Spanish only.",
])
def test_rules_for_what_the_assistant_writes_stand(said: str) -> None:
    from chatfold.summarizers.extractive.scoring import _score_all

    scored = _score_all([said], ["user"])[0]
    assert scored.standing and scored.section == 1, (said, scored)


@pytest.mark.parametrize(("said", "section_title", "key"), [
    ("跟你说下进展，婚宴最后定在锦华酒店三楼的牡丹厅了，不过那个厅最多只能摆28桌。",
     "决定", "牡丹厅"),
    ("你好，我是上周刚搬进来的租户，住枫林苑7栋1402。", "事实", "7栋1402"),
    ("司仪请的是我表哥的朋友单志杰，听说他主持过好多场。", "事实", "单志杰"),
    ("高数期中考试的通知出来了，11月7号考，在逸夫楼203。", "事实", "11月7号"),
    ("另外你记得提醒我去找陆老师要推荐信，12月1号就截止了。", "待办", "推荐信"),
    ("还有啊，工作日中午12点前别给我安排师傅上门，我上夜班。", "偏好", "12点前"),
    ("唉，还有图书馆借的《概率论与数理统计》已经超期了，得赶紧还。", "待办", "概率论"),
    ("还有喜帖得找地方印，大概120份，这个我到现在还没顾上。", "待办", "喜帖"),
    ("提前说一声，我家养了只猫叫年糕，特别怕生。", "事实", "年糕"),
    ("你帮我催一下他，14楼楼道的声控灯坏了快一个星期了。", "待办", "声控灯"),
])
def test_probe_6_chinese_statements_are_filed_and_kept(said: str, section_title: str,
                                                       key: str) -> None:
    from chatfold.summarizers.extractive.scoring import _score_all

    out = ask([user(said)], language="zh")
    assert any(key in line for line in section(out, section_title)), out
    assert _score_all([said], ["user"])[0].score >= 5.0, said


def test_a_chinese_value_taken_back_after_a_dash_is_dropped() -> None:
    said = "房租是每月4800——不对不对，我记岔了，那是隔壁那套的价，我这套是4650，押一付三。"
    out = ask([user(said)], language="zh")
    assert "4650" in out and "4800" not in out, out
    dream = ask([user("问个假设的问题啊，要是我这学期绩点掉到2.8，奖学金是不是就没了？"),
                 user("现在其实是3.7，我就是有点焦虑。")], language="zh")
    assert "3.7" in dream, dream


# ---------------------------------------------------------------------------------------------
# chat shorthand, and what calls off or reports which task


@pytest.mark.parametrize(("typed", "meant"), [
    ("btw im allergic to shellfish, pls dont forget", "by the way I'm allergic to shellfish, "
     "please don't forget"),
    ("can u book it tmrw? idk the time yet", "can you book it tomorrow? I don't know the time yet"),
    ("U-turn, i.e. the U of M, u2, I'm, it's", "U-turn, i.e. the U of M, u2, I'm, it's"),
    ("BTW i gotta go", "by the way I got to go"),
    ("我 im ok", "我 I'm ok"),
    ("went w leafloop.app, coffee w/ milk w/o sugar", "went with leafloop.app, coffee with "
     "milk without sugar"),
    ("Plan W, W 42nd St", "Plan W, W 42nd St"),
])
def test_chat_shorthand_is_read_as_the_words_it_stands_for(typed: str, meant: str) -> None:
    from chatfold.summarizers.extractive.sentences import plain_spelling

    assert plain_spelling(typed) == meant


@pytest.mark.parametrize(("said", "section_title", "key"), [
    ("pls stop recommending horror movies, they give me nightmares", "Preferences", "horror"),
    ("oh and use imperial units with me, I'm in Ohio", "Preferences", "imperial"),
    ("gotta renew my fishing license before the 15th", "Open tasks", "fishing license"),
    ("Need to return the rented tux by Monday.", "Open tasks", "tux"),
    ("can u draft a thank-you note for Mrs. Alvarez sometime this week?", "Open tasks",
     "thank-you note"),
])
def test_casual_asks_and_errands_are_filed(said: str, section_title: str, key: str) -> None:
    out = ask([user(said)])
    assert any(key in line for line in section(out, section_title)), out


@pytest.mark.parametrize("said", [
    "I got to see the Northern Lights last winter.",
    "Have to say, the concert was great.",
    "Gotta run, talk later!",
])
def test_a_chance_had_or_an_aside_is_no_errand(said: str) -> None:
    assert section(ask([user(said)]), "Open tasks") == []


def test_a_report_sharing_only_the_errands_verb_does_not_close_it() -> None:
    previous = "Open tasks:\n- got to pick up the dry cleaning on Friday"
    out = ask([user("Also picked up some new hobbies this year, like archery."),
               assistant("Archery sounds fun!")], previous=previous)
    assert any("dry cleaning" in t for t in section(out, "Open tasks")), out
    done = ask([user("picked up the dry cleaning, finally"), assistant("Nice.")],
               previous=previous)
    assert not any("dry cleaning" in t for t in section(done, "Open tasks")), done


def test_never_mind_calls_off_what_was_asked_last_not_any_task() -> None:
    previous = ("Open tasks:\n- I still need to call my bank about the card fee, I never "
                "use it.")
    out = ask([user("vet appointment at 4, remind me to leave early"),
               assistant("Will do."),
               user("nvm they called, it moved to Saturday. so no leaving early")],
              previous=previous)
    tasks = section(out, "Open tasks")
    assert any("bank" in t for t in tasks), out
    assert not any("leave early" in t for t in tasks), out


@pytest.mark.parametrize(("asked", "reply", "chosen", "not_kept"), [
    ("Shortlist: Aria 5 ($649), Nimbus Pro ($1,199), Vega Air ($899). All light enough.",
     "the cheaper one, I'm on a budget", "Aria 5", ["Nimbus", "Vega"]),
    ("Available: bluefern.com, oakandrye.com, thepantry.co",
     "first one for sure, buying it now", "bluefern.com", ["oakandrye", "thepantry"]),
    ("可以考虑大理（古城）、厦门（海边）、洛阳（看牡丹）。", "厦门吧，想看海", "厦门",
     ["大理", "洛阳"]),
    ("给你两个选择：1. 汉庭（地铁口，一晚198）；2. 桔子（带早餐，一晚356）。", "便宜的那个吧",
     "汉庭", ["桔子"]),
    ("可以看看：华为P70、OPPO Find X7、荣耀Magic6，续航都不错。", "第三个吧", "荣耀Magic6",
     ["华为P70", "OPPO"]),
])
def test_a_pick_from_a_series_is_one_decision_and_the_rest_go(
        asked: str, reply: str, chosen: str, not_kept: list[str]) -> None:
    lang = "en" if asked.isascii() else "zh"
    out = ask([user("help me choose" if lang == "en" else "帮我挑一个"), assistant(asked),
               user(reply)], language=lang)
    decisions = section(out, "Decisions" if lang == "en" else "决定")
    assert any(chosen in d for d in decisions), out
    for other in not_kept:
        assert other not in out, out


@pytest.mark.parametrize(("said", "section_title", "key"), [
    ("我女儿甜甜今年上二年级了，最近老说肚子疼", "事实", "甜甜"),
    ("帮我给老婆林悦订束花，周五她生日", "待办", "林悦"),
    ("今天值了个大夜班，当护士真的太累了。", "事实", "护士"),
    ("回头帮我查下社保怎么转，现在在开会", "待办", "社保"),
    ("房贷下个月开始扣，我还没绑卡，你到时候提醒我一下，顺便问下晚饭吃啥", "待办", "绑卡"),
    ("以后回复简洁点，别写那么长，我都是手机上看", "偏好", "简洁"),
])
def test_chinese_typed_with_spaces_and_casual_forms_is_filed(said: str, section_title: str,
                                                            key: str) -> None:
    out = ask([user(said.replace("，", " "))], language="zh")
    assert any(key in line for line in section(out, section_title)), out


@pytest.mark.parametrize("said", ["孩子天天哭，怎么办", "我家小区最近停水", "大家算算这笔账"])
def test_chinese_words_said_twice_are_no_names(said: str) -> None:
    from chatfold.summarizers.extractive.lexicon import _NAME
    from chatfold.summarizers.extractive.scoring import _scan

    masks, _ = _scan([said])
    assert not masks[0] & _NAME, said
    named, _ = _scan(["我家球球最近不爱吃饭"])
    assert named[0] & _NAME


@pytest.mark.parametrize(("said", "key"), [
    ("the billing db lives on pg-main-3.internal, port 6432", "pg-main-3.internal"),
    ("point the smoke tests at api.stg.example.io please", "api.stg.example.io"),
    ("we're pinning python to 3.11.9 until the wheels catch up", "3.11.9"),
    ("reorg again, I report to Priya Raman now", "Priya Raman"),
    ("组织调整了，我现在汇报给王一鸣，周报发他", "王一鸣"),
    ("新实例是 r-bq7z2m1，老的那台下周下线", "r-bq7z2m1"),
])
def test_where_things_live_and_who_one_reports_to_outrank_chatter(said: str, key: str) -> None:
    from chatfold.summarizers.extractive.scoring import _score_all

    lang = "en" if said.isascii() else "zh"
    chatter = ["I went to the beach with my kids last Saturday and it was lovely.",
               "我上周末带孩子去了趟海边，玩得挺开心。"][lang == "zh"]
    scored = _score_all([said, chatter], ["user", "user"])
    assert scored[0].score > scored[1].score, (said, scored)
    assert key in ask([user(said)], language=lang)


def test_a_forum_link_or_a_blog_is_no_service_address() -> None:
    from chatfold.summarizers.extractive.lexicon import _ATTR, _FACT
    from chatfold.summarizers.extractive.scoring import _scan

    # A link is an id, not where a service lives: nothing standing about the speaker.
    for said in ("下载地址：http://bbs.example.com/forum-79-1.html 用这个论坛的系统吧",
                 "the recipe is on cooking.example.com, scroll down"):
        masks, _ = _scan([said])
        assert not masks[0] & (_FACT | _ATTR), said


def test_a_new_host_of_the_same_service_replaces_the_old() -> None:
    out = ask([user("the prod redis is on cache-01.internal, port 6380"),
               assistant("Noted."),
               user("migration done, prod redis is cache-07.internal now")])
    assert "cache-07.internal" in out and "cache-01.internal" not in out, out


@pytest.mark.parametrize(("said", "section_title", "key"), [
    ("JIRA-812 那个需求，周四前我得评审完，帮我盯一下", "待办", "JIRA-812"),
    ("开题报告5月8号要交给导师，还差一半", "待办", "开题报告"),
    ("护照7月2号到期，记得提前一个月提醒我去换", "待办", "护照"),
    ("以后帮我写的邮件，别用感叹号，显得不专业", "偏好", "感叹号"),
])
def test_chinese_deadlines_reminders_and_rules_with_their_subject_first(
        said: str, section_title: str, key: str) -> None:
    out = ask([user(said)], language="zh")
    assert any(key in line for line in section(out, section_title)), out


@pytest.mark.parametrize(("messages", "lang", "kept", "gone"), [
    ([user("for the visitor pass, my plate is BXT 5631"), assistant("Got it, BXT 5631."),
      user("oops, checked the registration, it's BXT 5613")], "en", "BXT 5613", "5631"),
    ([user("can you draft a thank-you note to my aunt Marietta"),
      assistant("Sure: 'Dear Marietta, …'"), user("autocorrect again. it's Marieta, one t")],
     "en", "Marieta", "Marietta"),
    ([user("帮我给女朋友林悦写张贺卡"), assistant("好的：“林悦，新年快乐……”"),
      user("打错了，是林玥，王字旁那个玥")], "zh", "林玥", "林悦"),
    ([user("停车登记，我车牌是沪A8K273"), assistant("好的，沪A8K273。"),
      user("不对，是沪A8K237，最后两位反了")], "zh", "A8K237", "A8K273"),
])
def test_a_slip_put_right_is_put_right_where_it_was_said(
        messages: list[dict[str, Any]], lang: str, kept: str, gone: str) -> None:
    out = ask(messages, language=lang)
    assert kept in out and gone not in out, out


def test_a_value_near_another_without_a_correction_is_left_alone() -> None:
    out = ask([user("my locker is 4829"), user("and the gym's door code is 4892")])
    assert "4829" in out and "4892" in out, out


def test_a_correction_naming_known_things_puts_no_near_name_right() -> None:
    # "Marcy" and "Marco" were both said before the correction: neither is a slip of the other.
    out = ask([user("Marco moves into the Marcy Avenue flat next week."),
               user("The deposit for Marco is $900."),
               user("small correction on Marcy Avenue: it's 3 keys and Marco wants a fob too.")])
    assert "deposit for Marco" in out and "deposit for Marcy" not in out, out


@pytest.mark.parametrize(("messages", "kept", "gone"), [
    ([user("帮我登记一下访客车位，车牌，苏E3M618"), assistant("好的，登记车牌苏E3M618。"),
      user("啊不对，打错了，是苏E3M681，最后两位反了")], "E3M681", "E3M618"),
    ([user("冒烟测试的 baseUrl 改成 dev.example.cn"), assistant("已改为 dev.example.cn。"),
      user("sorry 说错了，dev 那个早就下线了，应该是 uat.example.cn")], "uat.example.cn",
     "dev.example.cn"),
    ([user("团建定在3月8号，在西湖边那家民宿"), assistant("记下了：团建3月8号。"),
      user("刚群里通知，团建改15号了，地点不变")], "15号", "3月8号"),
])
def test_chinese_corrections_and_moved_days_replace_the_old_value(
        messages: list[dict[str, Any]], kept: str, gone: str) -> None:
    out = ask(messages, language="zh")
    assert kept in out and gone not in out, out


@pytest.mark.parametrize("said", [
    "我血型是AB型", "我现在在网易上班，天天加班", "我是做后端的 主要写Go",
    "我们小区叫翠湖天地 在西二环", "我养的那只布偶叫年年", "公司在漕河泾那边 宜山路700号",
    "我家狗狗叫豆豆啦，三岁了",
])
def test_chinese_facts_about_the_speaker_stand(said: str) -> None:
    from chatfold.summarizers.extractive.scoring import _score_all

    scored = _score_all([said], ["user"])[0]
    assert scored.standing or scored.score >= 5.0, (said, scored)


@pytest.mark.parametrize("said", ["我住的是2702房，房间很小", "我很怀疑这是四星级酒店",
                                  "我觉得是他的问题"])
def test_what_the_speaker_did_or_thinks_is_no_attribute(said: str) -> None:
    from chatfold.summarizers.extractive.scoring import _score_all

    assert not _score_all([said], ["user"])[0].standing, said


@pytest.mark.parametrize("said", [
    "ugh Pretzel (my dog) chewed through the charger again",
    "being a paramedic is rough on night shifts, anyway any podcast ideas?",
    "As a pharmacist, I see this all the time.",
    "flying out monday on DL 1442 from Atlanta, how early should I get there?",
])
def test_who_and_what_said_in_passing_still_counts(said: str) -> None:
    from chatfold.summarizers.extractive.scoring import _score_all

    chatter = "Had a great time at the lake with friends last weekend!"
    scored = _score_all([chatter, said], ["user", "user"])
    assert scored[1].score > scored[0].score, (said, scored)


def test_a_new_street_address_replaces_the_old() -> None:
    out = ask([user("ship the order to 41 Larkspur Lane Apt 3"), assistant("Noted."),
               user("change of plans, use my office instead: 900 Market Street, Suite 12")])
    assert "900 Market Street" in out and "Larkspur" not in out, out


@pytest.mark.parametrize("said", [
    "please stop using exclamation marks in my cover letters",
    "ground rule for travel: no layovers under an hour, ever.",
    "when you draft replies to my landlord keep them under 4 sentences",
])
def test_rules_said_as_rules_stand(said: str) -> None:
    from chatfold.summarizers.extractive.scoring import _score_all

    scored = _score_all([said], ["user"])[0]
    assert scored.standing and scored.section == 1, (said, scored)


@pytest.mark.parametrize(("lang", "result", "key"), [
    ("en", "Deployed search-api v4.2.1 to prod-us-east (4/4 pods healthy). Rollback id: rb-91002.",
     "rb-91002"),
    ("zh", "发布成功：order-center v2.3.0 已发布到 prod-sh，灰度 20%", "v2.3.0"),
])
def test_what_a_tool_made_for_the_user_outlasts_chatter(lang: str, result: str, key: str) -> None:
    call = {"id": "c1", "type": "function",
            "function": {"name": "deploy", "arguments": '{"service": "x"}'}}
    chatter = ["I ran {k} km with my friend Sam at Lakeview Park on May {k}, so fun!",
               "5月{k}号和朋友小林去西湖边跑了{k}公里，特别开心！"][lang == "zh"]
    first = ask([user("ship it" if lang == "en" else "发一下"),
                 {"role": "assistant", "content": "", "tool_calls": [call]},
                 {"role": "tool", "tool_call_id": "c1", "content": result}], language=lang)
    out = first
    for fold in range(3):  # folds of chatter later, the deploy is still remembered
        out = ask([user(chatter.format(k=k)) for k in range(3 + 6 * fold, 9 + 6 * fold)],
                  previous=out, language=lang, max_tokens=110)
    assert key in out, out


def test_a_chinese_day_moved_in_a_long_sentence_moves_the_day() -> None:
    out = ask([user("我们的订婚宴定在11月2号了！帮我想想邀请函怎么写"),
               assistant("恭喜！可以写：“诚邀您于11月2日光临。”"),
               user("啊 饭店说那天被包场了 改到11月9号了 邀请函帮我改一下日期")], language="zh")
    assert "11月9号" in out and "11月2号" not in out, out


def test_a_chinese_date_written_without_its_hao_still_changes_the_date() -> None:
    out = ask([user("课程设计报告5月8号要交给张老师，PPT还没开始做"),
               assistant("还有时间，先列提纲。"),
               user("张老师说可以宽限到5月15 终于能喘口气")], language="zh")
    assert "5月15" in out and "5月8号" not in out, out


@pytest.mark.parametrize(("lang", "first", "change", "key", "now", "then"), [
    ("en", "booked the vet for Biscuit's shots on June 9, can you remind me what to bring",
     "ugh the clinic can't do the 9th anymore so we moved it to June 16", "Biscuit",
     "June 16", "June 9"),
    ("en", "standup with the Lagos team is at 3:30 on Thursdays",
     "heads up, not 3:30 anymore, they moved it to 4:15 because of the time change", "Lagos",
     "4:15", "3:30"),
    ("zh", "女儿学校的家长会定在11月14号，我得请半天假",
     "班主任刚发通知，14号礼堂被占了，改到11月21号", "家长会", "11月21号", "11月14号"),
])
def test_a_change_that_names_the_old_day_or_time_changes_it(
        lang: str, first: str, change: str, key: str, now: str, then: str) -> None:
    ok = "OK." if lang == "en" else "好的。"
    chatter = [user("what's a good podcast for a long drive?" if lang == "en"
                    else "有什么适合开长途听的播客？"), assistant(ok)]
    out = ask([user(first), assistant(ok), *chatter, *chatter, user(change)], language=lang)
    said = [line for line in out.splitlines() if key in line]
    assert said and now in said[0] and then not in said[0], out


def test_a_chinese_errand_still_to_do_is_a_task() -> None:
    out = ask([user("那条裤子买大了 还得退 七天无理由周五就到期了")], language="zh")
    assert any("裤子" in t for t in section(out, "待办")), out


@pytest.mark.parametrize(("said", "key"), [
    ("下周三部门聚餐要订12个人的包间，找公司对面那家湘菜馆", "包间"),
    ("要给王阿姨转上个月的保洁费，一共800", "王阿姨"),
    ("月底之前要续一下宽带，不然会断网", "宽带"),
])
def test_a_chinese_errand_said_with_yao_is_a_task(said: str, key: str) -> None:
    out = ask([user(said), assistant("好的。")], language="zh")
    assert key in _open(out, "zh"), out


@pytest.mark.parametrize("said", [
    "那个蓝牙音箱我不要买了，太贵", "想要买个新手机，还在看", "我要去睡了，明天聊",
    "我要给你看个东西",
])
def test_a_yao_that_is_no_errand_is_no_task(said: str) -> None:
    out = ask([user(said), assistant("好的。")], language="zh")
    assert not section(out, "待办"), out


@pytest.mark.parametrize("said", [
    "预算再加三千吧，一共两万五", "房租涨到五千二了 真离谱",
    "下周二晚上八点的演唱会门票 帮我记一下", "后天上午十点约了眼科", "我们组新来的实习生叫Daniel",
])
def test_chinese_amounts_memos_appointments_and_latin_names_count(said: str) -> None:
    from chatfold.summarizers.extractive.scoring import _score_all
    from chatfold.summarizers.extractive.sentences import plain_spelling

    chatter = "今天天气真好，出去走了走，心情不错"
    scored = _score_all([chatter, plain_spelling(said)], ["user", "user"])
    assert scored[1].score >= scored[0].score + 2.0, (said, scored)


@pytest.mark.parametrize(("reply", "chosen", "not_chosen"), [
    ("option 2. legal would kill the third one anyway", "Beta", "Gamma"),
    ("Nice, but the first one works better for us", "Alpha", "Beta"),
    ("除了第一个都行，就第三个吧", "Gamma", "Alpha"),
])
def test_an_option_ruled_out_by_place_is_not_the_pick(reply: str, chosen: str,
                                                      not_chosen: str) -> None:
    lang = "en" if reply.isascii() else "zh"
    listing = ("Three options:\n1. Alpha - cheap.\n2. Beta - fast.\n3. Gamma - managed."
               if lang == "en" else "三个选择：\n1. Alpha，便宜。\n2. Beta，快。\n3. Gamma，托管。")
    out = ask([user("options?" if lang == "en" else "有什么选择？"), assistant(listing),
               user(reply)], language=lang)
    decisions = section(out, "Decisions" if lang == "en" else "决定")
    assert any(chosen in d for d in decisions), out
    assert not any(not_chosen in d for d in decisions), out


@pytest.mark.parametrize(("said", "section_title"), [
    ("这个项目的变量名统一用英文 别给我写拼音", "偏好"),
    ("后端 Node 先锁 20.11.1 了，22 暂时不上", "决定"),
    ("婚礼预算我们定的是八万 包括婚纱照", "事实"),
])
def test_chinese_rules_pins_and_budgets_are_filed(said: str, section_title: str) -> None:
    from chatfold.summarizers.extractive.scoring import _score_all
    from chatfold.summarizers.extractive.sentences import plain_spelling

    out = ask([user(said)], language="zh")
    assert section(out, section_title), out
    assert _score_all([plain_spelling(said)], ["user"])[0].score >= 5.0, said


def test_an_english_date_moved_replaces_the_old_date() -> None:
    out = ask([user("put the board review on my calendar, april 9 at 2pm, room Cedar"),
               assistant("Added: board review, April 9, 2:00 pm, Cedar."),
               user("they pinged me, it's now the 14th at 11am"),
               assistant("Moved it to April 14 at 11:00 am in Cedar.")])
    assert "April 14" in out and "April 9" not in out, out


def test_may_as_a_verb_is_no_date() -> None:
    from chatfold.summarizers.extractive.changes import _values

    assert "may 3" not in _values("I may 3D print the part")[0]
    assert "may 3" in _values("the launch is on May 3")[0]


@pytest.mark.parametrize(("messages", "lang", "key"), [
    ([user("For the weekly report, put the numbers in a table please."),
      assistant("Understood. Weekly reports will have the numbers in a table from now on.")],
     "en", "table"),
    ([user("whenever you draft something for the landlord, cc my partner"),
      assistant("Will do."), user("it's jo.reyes@example.org"),
      assistant("Noted. I'll cc jo.reyes@example.org on anything for the landlord.")],
     "en", "jo.reyes@example.org"),
    ([user("keep replies under 100 words unless I ask for detail"),
      assistant("Got it. Under 100 words unless you ask for detail.")], "en", "100 words"),
    ([user("以后发我的报价单都用含税价，别再单列税额了"),
      assistant("好的，以后报价单统一写含税价。")], "zh", "含税价"),
    ([user("周报里的日期都写成月/日的格式"), assistant("收到，周报日期都会写成月/日。")],
     "zh", "月/日"),
])
def test_an_instruction_the_assistant_took_on_is_kept_as_asked(
        messages: list[dict[str, Any]], lang: str, key: str) -> None:
    out = ask(messages, language=lang)
    prefs = section(out, "偏好" if lang == "zh" else "Preferences")
    asked = "用户要求：" if lang == "zh" else "User asked: "
    assert any(line.startswith(asked) and key in line for line in prefs), out
    # The previous summary's line is read back as what it was: still worth a decision.
    again = ask([user("ok thanks" if lang == "en" else "好的谢谢")], previous=out, language=lang)
    assert any(key in line for line in section(again, "偏好" if lang == "zh" else "Preferences"))


@pytest.mark.parametrize(("messages", "lang"), [
    # An errand taken on stays an errand; a one-off value noted stays a plain value; a fact the
    # user told of themselves stays theirs; "sure" agreeing to chatter takes nothing on.
    ([user("pick up the dry cleaning on Thursday"),
      assistant("Got it - dry cleaning pickup on Thursday.")], "en"),
    ([user("ship the order to 12 Elm Road"), assistant("Noted: 12 Elm Road.")], "en"),
    ([user("I'm vegetarian, by the way"),
      assistant("Understood, I'll always suggest vegetarian dishes.")], "en"),
    ([user("we should grab coffee sometime"), assistant("Sure, sounds fun!")], "en"),
    ([user("明天下午帮我把快递寄了"), assistant("好的，明天下午寄快递。")], "zh"),
])
def test_an_acknowledged_errand_fact_or_chatter_is_no_standing_ask(
        messages: list[dict[str, Any]], lang: str) -> None:
    out = ask(messages, language=lang)
    assert "User asked:" not in out and "用户要求" not in out, out


@pytest.mark.parametrize(("messages", "lang", "key"), [
    ([user("Jonah's food handler card expires on the 30th. I need to get him into a renewal "
           "class before that, can you find me options later? not now, elbow deep in dough"),
      assistant("Sure, I'll look for food handler renewal classes he can take before the 30th "
                "whenever you're ready.")], "en", "renewal class"),
    ([user("Get me 3 quotes for a refrigerated pastry display case, 48 inch, by the end of "
           "the month please."),
      assistant("Will do. I'll gather three quotes for a 48-inch refrigerated display case.")],
     "en", "display case"),
    ([user("帮我找几家能做企业团建的农家乐，下周再给我"),
      assistant("好的，我会整理几家适合企业团建的农家乐，下周发给你。")], "zh", "农家乐"),
    # A promise that says when: "我明天把…给你".
    ([user("帮我写个退货说明放商品详情页里，手工制品有轻微色差不算质量问题。今天不急，明天给我就行"),
      assistant("好的，我明天把退货说明的草稿给你，语气会尽量温和一点。")], "zh", "退货说明"),
])
def test_an_errand_the_assistant_promised_stays_open(
        messages: list[dict[str, Any]], lang: str, key: str) -> None:
    out = ask(messages, language=lang)
    title, asked = ("待办", "用户要求：") if lang == "zh" else ("Open tasks", "User asked: ")
    assert any(line.startswith(asked) and key in line for line in section(out, title)), out
    # Carried into the next fold with narrated events, it holds its place among them (a
    # request without the promise does not, in English).
    events = ([f"我上周末去了{p}，玩得很开心，还拍了很多照片" for p in
               ("杭州西湖", "苏州园林", "南京夫子庙", "黄山", "青岛海边", "厦门鼓浪屿")]
              if lang == "zh" else
              [f"Last weekend I went to {p} with my sister and took lots of photos."
               for p in ("Lake Tahoe", "Napa", "Big Sur", "Yosemite", "Monterey", "Sausalito")])
    previous = ("事实：\n" if lang == "zh" else "Facts:\n") + "".join(
        f"- {e}\n" for e in events) + "\n" + out.split("\n\n")[-1]
    again = ask([user("好" if lang == "zh" else "ok")], previous=previous, language=lang,
                max_tokens=60)
    assert any(key in line for line in section(again, title)), again
    if lang == "en" and not re.search(r"\d+(?!\d|st|nd|rd|th)", messages[0]["content"]):
        # (A request with values of its own, "3 quotes … 48 inch", holds by them.)
        plain = ask([user("ok")], previous=previous.replace(asked, ""), max_tokens=60)
        assert not any(key in line for line in section(plain, title)), plain


def test_a_promised_errand_reported_done_closes() -> None:
    out = ask([user("Please book a table at Nopa for Friday."),
               assistant("Sure, I'll book Nopa for Friday."),
               user("thanks"),
               assistant("Booked: Nopa, Friday 7pm, confirmation NP-4471.")])
    assert section(out, "Open tasks") == [] and "NP-4471" in out, out


def test_an_errand_of_the_users_own_keeps_its_words() -> None:
    # "I still need to…" already holds until it is reported done: no label put before it.
    out = ask([user("I still need to cancel my Hulu subscription before the 30th."),
               assistant("Noted - I'll remind you to cancel Hulu before the 30th.")])
    assert not any(line.startswith("User asked:") for line in section(out, "Open tasks")), out
    assert any("Hulu" in line for line in section(out, "Open tasks")), out


def _looked_up(question: str, name: str, result: str, answer: str,
               filler: str) -> list[dict[str, Any]]:
    call = {"id": "c1", "type": "function", "function": {"name": name, "arguments": "{}"}}
    return [user(question), {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": result}, assistant(answer),
            *[user(filler.format(i)) for i in range(12)]]


@pytest.mark.parametrize(("messages", "lang", "key"), [
    (_looked_up("how much is left on the team card this month?", "get_card_balance",
                "Team Visa (...4412): available credit $3,118.40", "$3,118.40 is still available.",
                "I rode my bike to the lake {} times last summer and it was great."),
     "en", "3,118.40"),
    (_looked_up("仓库那批货到哪了？", "query_express",
                "YT8812034417：已到达杭州转运中心，预计3月6日送达",
                "已经到杭州转运中心了，预计3月6日送到。",
                "我们小区楼下新开了{}家奶茶店，周末人很多。"),
     "zh", "3月6日"),
    # Asked without a question mark ("pull up…", "any news on…", "调出…"), answered with a
    # label and its value (not a listing of options).
    (_looked_up("pull up the latest dairy invoice, the total looked off to me", "get_invoice",
                "INV-2291, Dairy Lane. Total $1,846.20, due Oct 30.",
                "INV-2291: total $1,846.20, due Oct 30. The cream is $5.80 per half gallon.",
                "I rode my bike to the lake {} times last summer and it was great."),
     "en", "1,846.20"),
    (_looked_up("any news on the sign permit for the new awning", "permit_status",
                "Application SP-7719: under review by Planning.",
                "Still under review: application SP-7719.",
                "I rode my bike to the lake {} times last summer and it was great."),
     "en", "SP-7719"),
    (_looked_up("帮我调出上个月的电费账单", "get_bill", "2025-10 电费 326.5 元，缴费截止 11月10日",
                "上个月电费：326.5元，11月10日前交。",
                "我们小区楼下新开了{}家奶茶店，周末人很多。"),
     "zh", "326.5"),
])
def test_what_a_tool_found_for_the_user_is_kept_with_the_question(
        messages: list[dict[str, Any]], lang: str, key: str) -> None:
    # Against a dozen statements of the user's own, the question and what it found hold one
    # line, worth the user's own answer to a question.
    out = ask(messages, language=lang, max_tokens=90)
    assert any("→" in line and key in line for line in user_lines(out)), out


@pytest.mark.parametrize("answer", [
    "Three options: United at 7:05am ($312 each), Delta at 1:40pm ($289), Southwest at 6:55pm.",
    "Two fits: UA 1187 at 7:05am, $312. DL 402 at 1:40pm, $289.",
    "1) UA 1187 at 7:05am, $312 2) DL 402 at 1:40pm, $289",
])
def test_options_a_tool_found_are_offered_not_learned(answer: str) -> None:
    # The user's pick comes next: the listing is no answer to keep with the question.
    out = ask(_looked_up("find flights to Denver for the 4 of us on the 21st", "search_flights",
                         "1) UA 1187 07:05 $312/pp 2) DL 402 13:40 $289/pp", answer,
                         "I rode my bike to the lake {} times last summer and it was great."))
    assert not any("→" in line for line in user_lines(out)), out


def _picked_from_tool(result: str, listing: str, pick: str) -> list[dict[str, Any]]:
    call = {"id": "c1", "type": "function", "function": {"name": "search", "arguments": "{}"}}
    return [user("find me options"), {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": result}, assistant(listing),
            user(pick)]


@pytest.mark.parametrize(("result", "listing", "pick", "lang", "ref"), [
    ("1) UA 1187 dep 07:05 arr 09:48, $312/pp 2) DL 402 dep 13:40 arr 16:25, $289/pp "
     "3) WN 3310 dep 18:55, $276/pp",
     "Three options: the United one leaves at 7:05am ($312 each), Delta at 1:40pm ($289), "
     "Southwest in the evening ($276).",
     "the united one, early flight means we actually get a whole day with grandma", "en",
     "UA 1187"),
    # A bare name picks an option that opens with an article: "United." / "the United one…".
    ("1) UA 1187 dep 07:05, $312/pp 2) DL 402 dep 13:40, $289/pp",
     "Two options: the United one leaves at 7:05am ($312 each), or Delta at 1:40pm ($289).",
     "United.", "en", "UA 1187"),
    # "the X one" with a word of thanks after it still picks.
    ("1) UA 1187 dep 07:05, $312/pp 2) DL 402 dep 13:40, $289/pp",
     "Two options: the United one leaves at 7:05am ($312 each), or Delta at 1:40pm ($289).",
     "The Delta one, thanks!", "en", "DL 402"),
    ("1. 如家(西湖店) 房号待定 每晚388元 2. 全季(城站店) 每晚329元 3. 亚朵(滨江店) 每晚512元",
     "有三家：西湖边那家388一晚；城站那家329一晚，离地铁近；滨江那家512一晚，含早。",
     "就城站那家吧", "zh", "全季"),
])
def test_a_pick_of_what_a_tool_found_keeps_the_tools_reference(
        result: str, listing: str, pick: str, lang: str, ref: str) -> None:
    out = ask(_picked_from_tool(result, listing, pick), language=lang)
    decisions = section(out, "决定" if lang == "zh" else "Decisions")
    assert any(ref in d for d in decisions), out


def test_a_pick_matching_two_tool_items_alike_adds_neither() -> None:
    out = ask(_picked_from_tool("1) Hotel Mar $126/night 2) Hotel Sol $126/night",
                                "Two fits: Mar at $126, or Sol at $126.", "Mar."))
    assert not any("[" in d for d in section(out, "Decisions")), out


def test_chinese_options_a_tool_found_are_offered_not_learned() -> None:
    out = ask(_looked_up("帮我查一下杭州的酒店", "search_hotels",
                         "1. 如家 每晚388元 2. 全季 每晚329元 3. 亚朵 每晚512元",
                         "有三家：西湖边那家388一晚；城站那家329一晚，离地铁近；滨江那家512一晚。",
                         "我们小区楼下新开了{}家奶茶店，周末人很多。"), language="zh")
    assert not any("→" in line for line in user_lines(out)), out


def test_a_question_answered_in_small_talk_is_not_joined() -> None:
    out = ask([user("how many states have you been to?"), assistant("About 12, I think!")])
    assert "→" not in out, out


@pytest.mark.parametrize(("listing", "reply", "chosen", "not_chosen"), [
    # Options described in brackets with commas of their own: each is one option, whole.
    ("Good fits for a bookshop: Shopify POS (easy, cheap hardware), Square (free plan, "
     "decent reports), and Lightspeed (deep inventory, pricier).", "second one. cheap matters",
     "Square", ["Shopify", "Lightspeed"]),
    ("Three to consider: oak (warm, scratches easily), walnut (dark, pricey), or maple "
     "(pale, very hard, takes stain badly).", "maple.", "maple", ["oak", "walnut"]),
    ("Two agencies nearby: Hartley & Moss Realty (big, slow), and Quinn Property Group "
     "(small, answers the phone).", "Quinn Property Group. I want someone who picks up",
     "Quinn", ["Hartley"]),
])
def test_a_pick_from_options_described_in_brackets(listing: str, reply: str, chosen: str,
                                                   not_chosen: list[str]) -> None:
    out = ask([user("what are my options?"), assistant(listing), user(reply)])
    decisions = section(out, "Decisions")
    assert any(chosen in d for d in decisions), out
    assert not any(n in out for n in not_chosen), out


def test_the_offer_is_what_was_proposed_not_the_options_named_in_passing() -> None:
    out = ask([user("what should we cook for the party?"),
               assistant("I'd go with a slow-roasted lamb shoulder. It feeds twelve easily. "
                         "Other options would be paella or a big lasagna."),
               user("yeah ok let's do that")])
    decisions = section(out, "Decisions")
    assert any("lamb" in d for d in decisions) and "paella" not in out, out


@pytest.mark.parametrize(("listing", "reply", "chosen", "not_chosen"), [
    ("有三家：西湖边那家560一晚，湖景；城站那家280一晚，离地铁近；滨江那家830一晚，含早。",
     "就最便宜那家，反正白天都在外面", "城站", ["西湖边", "滨江"]),
    ("附近有：乐高机器人，每节200元；墨香书法，每节90元，走路就到；还有体育馆的篮球班。",
     "他太闹了，想让他安静点，就墨香吧，还近", "墨香", ["乐高"]),
])
def test_a_chinese_pick_by_price_or_by_name_mid_reply(listing: str, reply: str, chosen: str,
                                                      not_chosen: list[str]) -> None:
    out = ask([user("帮我看看有什么选择"), assistant(listing), user(reply)], language="zh")
    assert any(chosen in d for d in section(out, "决定")), out
    assert not any(n in out for n in not_chosen), out


@pytest.mark.parametrize(("said", "key"), [
    ("Need a snack idea for the 30 kids on the field trip that's cheap and quick to pack, "
     "absolutely no peanuts anywhere near it, my son is allergic, which is why I offered.",
     "peanuts"),
    ("周末要给班上二十几个小朋友准备点心，最好便宜又好做的，千万不能有芒果，我女儿过敏，所以我才主动揽下来的。",
     "芒果"),
])
def test_an_allergy_in_a_long_sentence_keeps_what_it_is_to(said: str, key: str) -> None:
    lang = "en" if said.isascii() else "zh"
    out = ask([user(said)], language=lang)
    assert key in out, out


@pytest.mark.parametrize(("said", "lang", "task"), [
    ("My passport expires in March — could you find me the renewal office hours later?", "en",
     True),
    ("下个月要去成都出差，能帮我订个靠近春熙路的酒店吗？", "zh", True),
    ("I finally finished the marathon — can you believe it?", "en", False),
])
def test_a_request_closing_a_sentence_that_said_why_is_a_task(said: str, lang: str,
                                                              task: bool) -> None:
    out = ask([user(said)], language=lang)
    assert bool(section(out, "待办" if lang == "zh" else "Open tasks")) is task, out


@pytest.mark.parametrize(("said", "lang", "key"), [
    ("中通的月结账号6620913, 下单的时候填这个就行吧？", "zh", "6620913"),
    ("快递单号YT20938811，这个能查到现在到哪了吗？", "zh", "YT20938811"),
])
def test_a_value_stated_before_a_question_is_kept(said: str, lang: str, key: str) -> None:
    filler = ["周末去公园走了走，天气很好。" if lang == "zh"
              else "We walked in the park, lovely day."]
    out = ask([user(said), assistant("好的。" if lang == "zh" else "Sure."),
               *[user(f) for f in filler * 6]], language=lang, max_tokens=60)
    assert key in out, out


@pytest.mark.parametrize(("first", "later", "new", "old"), [
    ("婚宴的预算我们一开始定的是20万，含场地和菜", "跟家里商量了一晚上，最后砍到十五万，不能再多了",
     "十五万", "20万"),
    ("公司年会要订400份伴手礼，logo印在盒子上", "行政那边说人数变了，减到三百五十份，logo照旧",
     "三百五十份", "400份"),
])
def test_a_chinese_amount_cut_in_words_replaces_the_old_amount(first: str, later: str,
                                                               new: str, old: str) -> None:
    out = ask([user(first), assistant("好的，记下了。"), user(later)], language="zh")
    assert new in out and old not in out, out


def test_a_chinese_day_moved_by_a_clause_naming_no_one_moves_anyones_day() -> None:
    first = "我爸约的是11月13号去复查，要空腹抽血"
    moved = ask([user(first), assistant("好的。"),
                 user("医院刚打电话来说那天医生出差，给改到11月20号了，还是上午")], language="zh")
    assert "11月20号" in moved and "11月13号" not in moved, moved
    # Someone else's day moved is theirs: "我老婆的复查改到11月20号了" leaves Dad's.
    other = ask([user(first), assistant("好的。"), user("我老婆的复查改到11月20号了")],
                language="zh")
    assert "11月13号" in other and "11月20号" in other, other


@pytest.mark.parametrize(("said", "fixed", "lang", "new", "old"), [
    ("有个客户说没收到货，单号是SF14028873321，帮我写个安抚的话术",
     "看错行了，是SF14028873312，你改一下", "zh", "SF14028873312", "SF14028873321"),
    ("my tracking number is 1Z999AA10123456784", "misread it, it's 1Z999AA10123456748",
     "en", "1Z999AA10123456748", "1Z999AA10123456784"),
])
def test_a_reference_with_letters_and_digits_is_put_right(
        said: str, fixed: str, lang: str, new: str, old: str) -> None:
    # A code opening with letters ("SF…") or with a digit ("1Z…") is one value, not a
    # phone number after a word: the slip is found by its shape.
    out = ask([user(said), assistant("好的。" if lang == "zh" else "Got it."), user(fixed)],
              language=lang)
    assert new in out and old not in out, out


@pytest.mark.parametrize(("first", "later", "new", "old"), [
    ("现在工作室房租每个月6800，押一付三，合同明年三月到期", "房东今天来了，说续签的话涨到七千三。",
     "七千三", "6800"),
    ("我工资8000，房租3000", "房东说下个月涨到3500", "3500", "3000"),
    ("房租每个月6800元，押一付三", "房东说明年涨到7300", "7300", "6800"),
])
def test_a_chinese_amount_raised_without_its_unit_replaces_the_one_of_its_size(
        first: str, later: str, new: str, old: str) -> None:
    out = ask([user(first), assistant("好的，记下了。"), user(later)], language="zh")
    assert new in out and old not in out, out
    assert "8000" in out or "8000" not in first, out  # the other amount stays


@pytest.mark.parametrize(("first", "later"), [
    ("我们家房子150平，物业费每月300", "孩子的补习班费用降到2400了"),  # no number of its size
    ("这个月营业额8000，成本6000", "房东说涨到7000"),  # two of its size: which one is not said
    ("我们家房子120平", "公司人数涨到150"),  # a measured number is another thing
])
def test_a_bare_amount_raised_replaces_nothing_it_may_not_be(first: str, later: str) -> None:
    out = ask([user(first), assistant("好的。"), user(later)], language="zh")
    for part in first.split("，"):
        assert part in out, out


@pytest.mark.parametrize(("text", "digits"), [
    ("砍到九万", "砍到9万"), ("九万五", "9.5万"), ("涨到七千三", "涨到7300"),
    ("两百二十套", "220套"), ("一万二", "1.2万"), ("千万别忘了", "千万别忘了"),
    ("万一下雨", "万一下雨"), ("十分感谢", "十分感谢"),
])
def test_chinese_numbers_are_read_as_digits_for_comparison(text: str, digits: str) -> None:
    assert _arabic(text) == digits


@pytest.mark.parametrize(("said", "done"), [
    ("DONE, paid it this morning.", True), ("All done!", True), ("done.", True),
    ("Done deal, we signed the lease", False), ("donezo lol", False),
])
def test_done_said_first_is_the_user_reporting_it_done(said: str, done: bool) -> None:
    assert user_done(said) is done


@pytest.mark.parametrize(("said", "key"), [
    ("the renewal form wants the license number. it's LIC-40417, if that matters", "LIC-40417"),
    ("conf # 8812-QRT in case the county asks", "8812-QRT"),
])
def test_a_reference_in_a_forms_shape_outlasts_narrated_chatter(said: str, key: str) -> None:
    places = ["Riverside", "Summit", "Granite", "Boulder", "Crux", "Vertex", "Apex", "Ridge"]
    friends = ["Priya", "Tom", "Anna", "Luis", "Mei", "Omar", "Sara", "Ken"]
    chatter = [user(f"On May {i + 1} I went climbing at {p} Gym with {f}.")
               for i, (p, f) in enumerate(zip(places, friends, strict=True))]
    out = ask([user(said), assistant("Thanks."), *chatter], max_tokens=60)
    assert key in out, out


def _open_line(out: str, lang: str, *keys: str) -> str:
    """The open-task line holding every one of ``keys`` (the test fails on none)."""
    title = "待办" if lang == "zh" else "Open tasks"
    lines = [line for line in section(out, title) if all(k in line for k in keys)]
    assert lines, out
    return lines[0]


@pytest.mark.parametrize(("messages", "lang", "keys"), [
    # A request whose own words say "it": the sentence before names the thing.
    ([user("My nephew Arlo's passport expires in March. I need to get it renewed before our "
           "trip, can you look up the forms later?"),
      assistant("Sure, I'll look up the passport renewal forms for Arlo before the trip.")],
     "en", ("Arlo", "passport", "renewed")),
    # An errand of the user's own keeps how it opens (it holds until done), then the context.
    ([user("The county's dog license renewal opens Monday at 8am and the slots go fast. "
           "I have to get Biscuit registered before the 15th."),
      assistant("Understood. I'll flag it Monday morning so you can renew Biscuit's dog "
                "license right at 8.")],
     "en", ("I have to get Biscuit", "dog license")),
    ([user("我儿子的护照三月到期。得在出国前给他续上，你晚点帮我查查续签要哪些材料？"),
      assistant("好的，我会帮你查护照续签需要的材料。")], "zh", ("护照三月到期", "续签")),
])
def test_an_errand_takes_the_sentences_its_promise_restates(
        messages: list[dict[str, Any]], lang: str, keys: tuple[str, ...]) -> None:
    out = ask(messages, language=lang)
    _open_line(out, lang, *keys)


@pytest.mark.parametrize(("messages", "lang", "keys"), [
    ([user("Fall camp signup opens at noon Thursday and it always sells out within the hour, "
           "and I always forget these things."),
      assistant("Got it, I'll remind you Thursday before noon so you can sign up for fall "
                "camp.")], "en", ("Fall camp", "(reminder set)")),
    ([user("小区游泳馆的暑期班周六上午九点开放报名，名额很少，我老是记不住"),
      assistant("明白，周六九点游泳馆暑期班报名，我会提前提醒你。")], "zh",
     ("暑期班", "（已设提醒）")),
])
def test_what_the_assistant_promises_to_remind_of_stays_open(
        messages: list[dict[str, Any]], lang: str, keys: tuple[str, ...]) -> None:
    out = ask(messages, language=lang)
    _open_line(out, lang, *keys)


def test_a_promise_that_reminds_of_nothing_opens_no_task() -> None:
    out = ask([user("My sister Dana loves hiking in the Cascades every summer."),
               assistant("I'll keep that in mind when suggesting trips for you two!")])
    assert not section(out, "Open tasks"), out


@pytest.mark.parametrize(("messages", "lang", "keys"), [
    ([user("The garage door opener died this morning. I need someone to fix it this week."),
      assistant("I can look for a garage door repair service near you. What's your zip code?"),
      user("not now, heading into a meeting")], "en", ("garage door",)),
    ([user("家里热水器坏了，洗不了澡，得尽快找人来修"),
      assistant("可以找品牌售后或者附近的维修师傅。你家热水器是什么牌子的？"),
      user("等下再说，我先去开会")], "zh", ("热水器",)),
    # "算了" put off, not called off: "今天先算了，明天再说".
    ([user("工作室那扇窗一下雨就漏水，物业不管，只能自己找人修了"),
      assistant("可以找做门窗密封的师傅看看。要我帮你找附近的师傅吗？"),
      user("要的 不过今天先算了 明天再说")], "zh", ("漏水",)),
])
def test_a_matter_put_off_stays_open(
        messages: list[dict[str, Any]], lang: str, keys: tuple[str, ...]) -> None:
    out = ask(messages, language=lang)
    _open_line(out, lang, *keys)


@pytest.mark.parametrize(("messages", "lang"), [
    # A goodbye is no putting off; nor is a question left unasked.
    ([user("We finally picked a name for the puppy, it's Waffles."),
      assistant("Cute! What breed is Waffles?"), user("see you later!")], "en"),
    ([user("家里热水器坏了，得找人来修"), assistant("你家热水器是什么牌子的？"),
      user("算了，不修了，直接换个新的")], "zh"),
])
def test_no_open_task_without_a_matter_put_off(
        messages: list[dict[str, Any]], lang: str) -> None:
    out = ask(messages, language=lang)
    assert not section(out, "待办" if lang == "zh" else "Open tasks"), out


@pytest.mark.parametrize("later", [
    # A time in common is no sign of the thing done.
    [{"role": "assistant", "content": None, "tool_calls": [{
        "id": "c1", "type": "function",
        "function": {"name": "permit_status", "arguments": '{"type": "sign"}'}}]},
     {"role": "tool", "tool_call_id": "c1",
      "content": "Application SP-7719: under review. Typical turnaround 3-4 weeks."}],
    # Two "User asked: …" lines share no word by their label.
    [user("When you find supplies for the shop, don't send me Amazon links, for good."),
     assistant("Understood. No Amazon links for shop supplies from now on.")],
    # A reply at the start of a fold answers a question the last fold ended on, not an errand
    # taken on folds ago.
    [assistant("I know, right? It was such a fun day."), user("totally")],
])
def test_a_carried_errand_is_not_closed_by_what_names_nothing_of_it(
        later: list[dict[str, Any]]) -> None:
    previous = ("Open tasks:\n- User asked: I need a plumber under the upstairs bathroom this "
                "week, who does weekend calls?")
    out = ask(later, previous=previous)
    assert any("plumber" in line for line in section(out, "Open tasks")), out


@pytest.mark.parametrize(("said", "lang", "keys"), [
    ("Priyanka's birthday is March 14th, she's been with us 3 years.", "en",
     ("Priyanka", "March 14")),
    ("My mom's anniversary is on June 2, forty years this time.", "en", ("June 2",)),
    ("对了，乐乐的生日是10月8号，今年满六岁", "zh", ("10月8号",)),
])
def test_a_date_of_someones_said_once_outlasts_narrated_chatter(
        said: str, lang: str, keys: tuple[str, ...]) -> None:
    if lang == "zh":
        chatter = [user(f"{d}号我们去{p}玩了一天，拍了好多照片，天气也特别好")
                   for d, p in zip(range(1, 9), ("西湖", "灵隐寺", "千岛湖", "乌镇", "莫干山",
                                                   "西溪湿地", "宋城", "九溪"), strict=True)]
    else:
        chatter = [user(f"On May {i + 1} I went climbing at {p} Gym with my friends and had fun.")
                   for i, p in enumerate(("Riverside", "Summit", "Granite", "Boulder", "Crux",
                                          "Vertex", "Apex", "Ridge"))]
    out = ask([user(said), assistant("好的。" if lang == "zh" else "Noted."), *chatter],
              language=lang, max_tokens=60)
    assert all(k in out for k in keys), out


def test_someone_glossed_by_what_they_are_to_the_speaker_is_kept() -> None:
    chatter = [user(f"On May {i + 1} I went climbing at {p} Gym with my friends and had fun.")
               for i, p in enumerate(("Riverside", "Summit", "Granite", "Boulder", "Crux",
                                      "Vertex", "Apex", "Ridge"))]
    out = ask([user("Teodora (our rep at the mill) swears the short delivery was the "
                    "warehouse's fault."), assistant("Noted."), *chatter], max_tokens=60)
    assert "Teodora" in out, out
    # A day glossed so is no one: "Monday (my day off)".
    assert scoring_of("Monday (my day off) was great") < scoring_of(
        "Teodora (our rep at the mill) was great")


def scoring_of(text: str) -> float:
    from chatfold.summarizers.extractive.scoring import _score_all
    return _score_all([text], ["user"])[0].score


@pytest.mark.parametrize(("said", "lang", "key"), [
    ("payroll q: Gusto wants the company ID before I can add Leo, it's GC-556120 right?", "en",
     "GC-556120"),
    ("我们在物流平台的客户号是KH-88120对吧？", "zh", "KH-88120"),
])
def test_a_value_said_to_be_confirmed_is_a_statement(said: str, lang: str, key: str) -> None:
    from chatfold.summarizers.extractive.scoring import _is_question
    assert not _is_question(said)
    assert _is_question("is it Tuesday, right?")  # nothing said to confirm but a day
    out = ask([user(said), assistant("对，没错。" if lang == "zh" else "Yes, that's the one."),
               *([user(f"{d}号我们去{p}玩了一天，拍了好多照片")
                  for d, p in zip(range(1, 7),
                                  ("西湖", "灵隐寺", "千岛湖", "乌镇", "莫干山", "宋城"),
                                  strict=True)] if lang == "zh" else
                 [user(f"On May {i + 1} I went climbing at {p} Gym with my friends.")
                  for i, p in enumerate(("Riverside", "Summit", "Granite", "Boulder", "Crux"))])],
              language=lang, max_tokens=60)
    assert key in out, out


@pytest.mark.parametrize(("messages", "lang", "chosen", "not_chosen"), [
    ([user("给我爸订个体检套餐，他胃一直不舒服"),
      assistant("医院有两个套餐：套餐A 1280元，常规血检加B超；套餐B 2380元，多了无痛胃肠镜。"),
      user("B吧，他胃不好就该好好查查")], "zh", "2380", "1280"),
    ([user("Which phone plan fits a family of four?"),
      assistant("Plan 1: 20 GB shared for $60. Plan 2: unlimited for $95. Plan 3: 50 GB for $75."),
      user("plan 3 please")], "en", "$75", "$95"),
])
def test_an_option_picked_by_its_label_is_the_decision(
        messages: list[dict[str, Any]], lang: str, chosen: str, not_chosen: str) -> None:
    out = ask(messages, language=lang)
    decisions = section(out, "决定" if lang == "zh" else "Decisions")
    assert any(chosen in line for line in decisions), out
    assert not any(not_chosen in line for line in decisions), out


@pytest.mark.parametrize("reply", ["不要B，太贵了", "B超做过了吗？", "都行"])
def test_no_label_pick_from_a_reply_that_names_none_or_refuses(reply: str) -> None:
    out = ask([user("给我爸订个体检套餐"),
               assistant("医院有两个套餐：套餐A 1280元，常规血检加B超；"
                         "套餐B 2380元，多了无痛胃肠镜。"),
               user(reply)], language="zh")
    assert not any("2380" in line for line in section(out, "决定")), out


@pytest.mark.parametrize("said", ["我们那台电窑是HT-12，0.12立方的，烧一窑要11个小时",
                                  "我们店的收银机是SP-300，用了五年了"])
def test_the_speakers_thing_by_a_demonstrative_or_a_place_is_their_fact(said: str) -> None:
    key = said.split("是")[1].split("，")[0]
    chatter = [user(f"{d}号我们去{p}玩了一天，拍了好多照片，天气也特别好")
               for d, p in zip(range(1, 9), ("西湖", "灵隐寺", "千岛湖", "乌镇", "莫干山",
                                               "西溪湿地", "宋城", "九溪"), strict=True)]
    out = ask([user(said), assistant("好的。"), *chatter], language="zh", max_tokens=60)
    assert key in out, out
    # Held as "我的X是Y" is, above a narrated outing.
    from chatfold.summarizers.extractive.scoring import _score_all
    assert _score_all([said], ["user"])[0].standing


@pytest.mark.parametrize(("said", "holds"), [
    ("乐乐班主任刘老师今天在家长群里点名说有三个没交作业的", True),
    ("我们房东王先生说下个月要涨租", True),
    ("老板说今天早点下班", False),  # a role without a name names no one
])
def test_someone_by_role_and_name_is_kept_as_who_they_are(said: str, holds: bool) -> None:
    from chatfold.summarizers.extractive.scoring import _score_all
    assert _score_all([said], ["user"])[0].standing is holds


def _open(out: str, lang: str) -> str:
    return "\n".join(section(out, "待办" if lang == "zh" else "Open tasks"))


@pytest.mark.parametrize(("lang", "text", "key"), [
    # An errand said after what led to it.
    ("en", "her lisinopril refill runs out on the 18th and the pharmacy needs a new script, so "
           "I need to call Dr. Okafor's office this week", "Okafor"),
    ("en", "ticket PAY-4471 is assigned to me, need to bump billing-svc to node 20", "PAY-4471"),
    ("zh", "卫生间吊顶又开始滴水了，肯定是楼上1502的防水有问题，得找他们家谈谈", "1502"),
    ("zh", "得赶紧把毕业论文的查重做了，学校要求重复率15%以下", "查重"),
    # Asked to be kept in mind, at the start.
    ("en", "don't let me forget to renew my passport before Lisbon.", "passport"),
    # Handed to the speaker by someone else.
    ("en", "my boss wants me to redo the Q3 deck by Friday", "Q3 deck"),
    ("zh", "领导刚在群里@我，让我周五前把618活动的复盘PPT弄出来", "复盘"),
    ("zh", "回头要把线上那个redis从5.0升到7.x，todo先挂着", "redis"),
    # A deadline of the speaker's, and what is still missing.
    ("en", "my thesis draft is due to Prof. Adeyemi Nov 4 and I'm maybe 60% done", "thesis"),
    ("en", "the daycare application is due April 30, I still need the immunization record",
     "immunization"),
])
def test_an_errand_of_the_speakers_own_is_read_wherever_it_is_said(
        lang: str, text: str, key: str) -> None:
    out = ask([user(text)], language=lang)
    assert key in _open(out, lang), out


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "The hike was long, so we need to rest a bit before dinner, honestly."),
    ("zh", "我老婆让我少喝点酒"),
])
def test_no_errand_is_read_into_what_needs_nothing_done(lang: str, text: str) -> None:
    out = ask([user(text)], language=lang)
    assert _open(out, lang) == "", out


def test_a_long_message_keeps_the_errand_said_in_passing() -> None:
    text = ("今天累死了，早上带娃去公园喂鸽子，结果他非要玩沙子弄得一身，回来洗了半天，"
            "中午我妈又打电话说老家的房子要翻修问我出不出钱，下午还被快递小哥放了鸽子，"
            "哦对周末还得去物业那把停车费交了 不然下个月抬杆不让进。你说小孩玩沙子到底要不要拦着啊")
    out = ask([user(text)], language="zh")
    assert "停车费" in _open(out, "zh"), out


@pytest.mark.parametrize(("lang", "task", "advice", "report", "key"), [
    # The user's next turn reports it done, pointing back at it or naming it.
    ("en", "I need to submit the FAFSA before the state deadline",
     "Save the confirmation page when you submit.", "submitted it last night!!", "FAFSA"),
    ("en", "I need to sign Milo's permission slip for the aquarium trip and send $12",
     "Put it in his backpack tonight.", "signed it and stuck the cash in the envelope",
     "permission slip"),
    ("en", "have to get the brakes looked at on the Civic, they squeal every time I stop",
     "Don't put it off for weeks.", "dropped it at Midas this morning, new front pads, $289",
     "brakes"),
    ("en", "need to get Pepper's rabies shot sorted, the county letter says she's overdue",
     "Bring the county letter.", "update: took Pepper to Dr. Bhatt at lunch, all vaccinated",
     "rabies"),
    ("zh", "那笔定期下周三到期，我得去银行转存，想存3年的", "可以问问柜台有没有额度。",
     "弄好了，存的3年大额存单，利率2.15%", "定期"),
    # Or calls it off, made unneeded.
    ("en", "I need to get a Schengen visa appointment for the Berlin conference",
     "Check the portal daily.", "update: the conference went virtual so no visa needed.",
     "visa"),
    ("en", "I need to renew our booth at the Saturday farmers market, the fee's $450",
     "I'd send it this week.", "we talked it over and we're skipping the market this season",
     "booth"),
    ("zh", "周五晚上我加班，得找人帮忙接娃，老公也出差", "可以问问同班家长。",
     "我妈说她来接，不用找人了", "接娃"),
    ("zh", "五一那个创意市集的摊位得续报名了，摊位费800", "好位置先到先得。",
     "想了想今年不摆了，人手不够", "摊位"),
    ("zh", "老板让我整理一份竞品报价表，说下周一要", "可以按单价、起订量来整理。",
     "刚又说不用做了，那个项目黄了", "竞品"),
])
def test_an_errand_reported_done_or_called_off_in_the_next_turn_closes(
        lang: str, task: str, advice: str, report: str, key: str) -> None:
    out = ask([user(task), assistant(advice), user(report)], language=lang)
    assert key not in _open(out, lang), out
    # Without the report, it stays open: the assistant's advice does not do it.
    assert key in _open(ask([user(task), assistant(advice)], language=lang), lang)


def test_a_report_that_points_back_closes_nothing_when_several_tasks_were_just_given() -> None:
    out = ask([user("my list for this week, keep it for me:\n1) renew car registration, plate "
                    "7KQM224\n2) send the W-9 to the Alvarez kitchen job\n3) birthday gift for "
                    "Noor, she turns 7 on the 22nd"),
               assistant("Got it, three items."),
               user("all good, emailed it from my phone this morning")])
    open_tasks = _open(out, "en")
    assert all(k in open_tasks for k in ("7KQM224", "W-9", "Noor")), out


@pytest.mark.parametrize(("lang", "text", "keys"), [
    ("en", "my list for this week, keep it for me:\n1) renew car registration, plate 7KQM224\n"
           "2) send the W-9 to the Alvarez kitchen job\n3) birthday gift for Noor",
     ("7KQM224", "W-9", "Noor")),
    ("zh", "这周要干的事帮我记一下：\n1. 给阿姨结这个月工资\n2. 孩子的疫苗本去社区医院盖章\n"
           "3. 上个月出差的报销单交给财务", ("阿姨", "疫苗本", "报销单")),
])
def test_a_to_do_list_the_user_gives_is_one_task_per_line(
        lang: str, text: str, keys: tuple[str, ...]) -> None:
    out = ask([user(text)], language=lang)
    asked = "用户要求：" if lang == "zh" else "User asked: "
    for key in keys:
        assert _open_line(out, lang, key).startswith(asked), out


@pytest.mark.parametrize(("lang", "task", "change", "new", "old"), [
    ("en", "I need to get all my 1099s together before meeting Gloria (accountant) on March 3rd",
     "Gloria rescheduled to March 10th, so I have an extra week to chase the last two 1099s",
     "March 10th", "March 3rd"),
    ("zh", "3月3号约了会计刘姐对个税汇算，我得先把专项附加扣除的材料准备好",
     "刘姐改到3月10号了，材料还是得准备", "3月10号", "3月3号"),
])
def test_a_changed_detail_of_an_errand_changes_the_errand_not_drops_it(
        lang: str, task: str, change: str, new: str, old: str) -> None:
    out = ask([user(task), assistant("OK."), user(change)], language=lang)
    line = _open_line(out, lang, new)
    assert old not in line, out


def test_a_changed_value_is_written_into_the_statement_it_changes() -> None:
    out = ask([user("周五团建要订40份盒饭，找楼下那家老乡鸡"), assistant("团餐一般要提前一天订。"),
               user("改成55份 市场部也来 明天上午我去订")], language="zh")
    assert "55份盒饭" in out and "40份" not in out, out


def test_a_stated_value_outranks_narrated_chatter() -> None:
    chatter = [user(f"We went to {p} with the kids last weekend and had the best time ever.")
               for p in ("the lake", "the zoo", "the beach", "the farm")]
    out = ask([*chatter[:2], user("Kitchen reno budget is 38k all in."), *chatter[2:]],
              max_tokens=40)
    assert "38k" in out, out


def test_the_next_turn_changing_what_was_just_said_by_a_pronoun_rewrites_it() -> None:
    out = ask([user("I need to pick up Dad at the airport on sunday, his flight lands 4:15"),
               assistant("Leave about an hour before landing to allow for traffic."),
               user("his connection got moved, now he lands at 6:50 instead")])
    assert "4:15" not in _open_line(out, "en", "Dad", "6:50"), out
    out = ask([user("要给小林转露营的钱，每人260"), assistant("记下了：给小林转露营费，每人260。"),
               user("她刚说加上营地费变成每人310了，我还没转")], language="zh")
    said = [line for line in out.splitlines() if "：要给小林" in line]
    assert said and "每人310" in said[0], out
    # A count of other things is no change of it: "4 apples" stays beside "6 bananas".
    out = ask([user("Please buy 4 apples."), assistant("Sure."), user("Make it 6 bananas.")])
    assert "4 apples" in out and "6 bananas" in out, out


def test_what_follows_a_colon_without_list_lines_is_no_to_do_list() -> None:
    out = ask([user("remember this: my blood type is O negative")])
    assert "User asked" not in out and _open(out, "en") == "", out


@pytest.mark.parametrize(("lang", "said", "settled", "new", "old"), [
    # Said to be settled, with no word of change: the one value it pairs with is rewritten.
    ("en", "The warehouse owner is asking 6,800/mo on a 3 yr lease.",
     "DONE!!! Negotiated. 6,350 a month with rent-free setup time", "6,350", "6,800"),
    # The other number of the statement is not near it: "$22/hr" pairs, "40 hrs" does not.
    ("en", "Offering Priya the barista job at $22/hr, 40 hrs a week.",
     "she pushed back a bit and we landed on 23.50", "23.50", "$22/"),
    # "48k" and "44 grand" are the same unit.
    ("en", "Our wedding budget is 48k for everything.",
     "my parents and I talked it through, we're capping it at 44 grand", "44", "48k"),
    # A misreading said in one sentence, the value in the next.
    ("en", "The supplier quoted $61 a crate for the limes.",
     "argh I misread the invoice. it's 67.40 per crate", "67.40", "$61"),
    ("en", "Maya's recital is May 9 at 6:30.",
     "the school just emailed, everything got pushed back a week, so it's May 16, same time",
     "May 16", "May 9"),
    ("zh", "房东说续租每个月要5200", "磨了半天最后谈下来4900，押一付三", "4900", "5200"),
])
def test_the_next_turn_saying_a_value_was_settled_rewrites_it(
        lang: str, said: str, settled: str, new: str, old: str) -> None:
    out = ask([user(said), assistant("OK." if lang == "en" else "好的。"), user(settled)],
              language=lang)
    assert new in out and old not in out, out


@pytest.mark.parametrize("messages", [
    # Someone else's value: "my sister" is not the speaker.
    [user("My rent is 2,400 a month."), assistant("OK."),
     user("my sister negotiated hers down to 2,300 a month")],
    # No number near the old one: a settled value of another thing.
    [user("The caterer wants a $400 deposit."), assistant("OK."),
     user("we agreed on 35 guests in the end")],
    # Settled long after: not the user's next turn.
    [user("The venue is asking 3,000 for the night."), assistant("OK."), user("Thanks."),
     assistant("Anything else?"), user("Yes."), assistant("Sure."),
     user("the band negotiated 2,900 for the night")],
])
def test_a_settled_value_of_another_thing_or_turn_rewrites_nothing(
        messages: list[dict[str, Any]]) -> None:
    first = str(messages[0]["content"])
    out = ask(messages)
    assert first.rstrip(".") in out, out


def test_keep_going_with_something_decides_nothing() -> None:
    out = ask([user("Winning makes us keep going with our passions.")])
    assert section(out, "Decisions") == [], out


def test_a_change_reaches_an_ask_the_assistant_took_on_and_its_echo() -> None:
    out = ask([user("need to pay Omar back $45 for the concert tickets"),
               assistant("Noted: $45 to Omar for the concert tickets."),
               user("oh he says it's $52 now with the fees. haven't paid yet")])
    assert "$52" in _open(out, "en") and "$45" not in out, out


def test_a_value_said_not_to_be_is_the_old_one() -> None:
    out = ask([user("the scholarship essay is due March 14, I still need a recommendation letter"),
               assistant("Ask your teacher this week; they need time to write it."),
               user("they moved it, the essay is now due March 28 not March 14")])
    assert "March 28" in _open(out, "en") and "March 14" not in _open(out, "en"), out


def test_a_later_deadline_allowed_rewrites_the_deadline() -> None:
    out = ask([user("结课论文5月20号要交给王老师，我数据还没跑完"),
               assistant("先把方法部分写出来，结果可以最后补。"),
               user("王老师说可以晚点 6月3号前交就行")], language="zh")
    assert "6月3号" in _open(out, "zh") and "5月20号" not in _open(out, "zh"), out



@pytest.mark.parametrize(("lang", "text", "key"), [
    ("en", "The dishwasher has been leaking under the door for a week. I need to get that fixed "
           "before my in-laws visit", "dishwasher"),
    ("zh", "楼下邻居说我家卫生间往下渗水。得把这事跟物业说一下", "渗水"),
])
def test_an_errand_that_points_back_names_what_it_points_at(
        lang: str, text: str, key: str) -> None:
    out = ask([user(text), assistant("OK." if lang == "en" else "好的。")], language=lang)
    assert key in _open(out, lang), out


@pytest.mark.parametrize(("lang", "text", "key"), [
    ("en", "Tried three payroll tools this week. Gusto was the only one that handled tips right. "
           "the others were clunky. we're going with it from March", "Gusto"),
    ("en", "The quote from Brightline Roofing came in at 14,200, way under the rest. "
           "Switching to them for the whole job", "Brightline"),
    ("zh", "问了三家打印店，A4彩印最便宜的是印象图文，0.8元一张。以后就找他们家了", "印象图文"),
])
def test_a_choice_that_points_back_is_a_decision_naming_its_thing(
        lang: str, text: str, key: str) -> None:
    out = ask([user(text), assistant("OK." if lang == "en" else "好的。")], language=lang)
    decisions = section(out, "Decisions" if lang == "en" else "决定")
    assert any(key in d for d in decisions), out


def test_a_choice_pointing_at_nothing_named_is_read_against_the_offer() -> None:
    out = ask([assistant("Two options: Northwind Movers at $1,150, or Swift Van at $980."),
               user("reviews matter more to me than the money. I'll go with that first one")])
    decisions = section(out, "Decisions")
    assert any("Northwind" in d for d in decisions) and not any(
        "reviews matter" in d for d in decisions), out


@pytest.mark.parametrize(("lang", "messages", "task", "value"), [
    ("en", [user("I need to renew my passport before the Lisbon trip, the photo is ready"),
            assistant("You can renew online if your old passport is undamaged."),
            user("did it online just now! application number is PX-4471-QR")],
     "passport", "PX-4471-QR"),
    ("zh", [user("得去车管所把驾照换了，下个月就到期"),
            assistant("可以在交管12123上预约，带上体检证明。"),
            user("今天换好了！新的有效期到2036年，档案号ZJ7731")],
     "驾照", "ZJ7731"),
])
def test_a_report_with_values_of_its_own_goes_on_the_line_of_what_it_closes(
        lang: str, messages: list[dict[str, Any]], task: str, value: str) -> None:
    out = ask(messages, language=lang)
    done = "(done)" if lang == "en" else "（已完成）"
    lines = [line for line in out.splitlines() if value in line]
    assert len(lines) == 1 and task in lines[0] and lines[0].endswith(done), out
    assert task not in _open(out, lang), out
    # What came of it stays with it when the line is carried into the next fold.
    again = ask([user("thanks" if lang == "en" else "谢谢")], previous=out, language=lang)
    assert value in again and task not in _open(again, lang), again


@pytest.mark.parametrize(("lang", "messages", "key", "report"), [
    ("en", [user("the vet says Miso needs her rabies booster again in 11 months"),
            assistant("Noted: rabies booster for Miso in about 11 months. Want a reminder to "
                      "book it closer to the date?"),
            user("yes pls")], "booster", "booked Miso's booster for Oct 2, all done"),
    ("zh", [user("牙医说我半年后要回去复查一下补的那颗牙"),
            assistant("好的，半年后复查。要不要到时候提醒你预约牙医？"),
            user("要的")], "牙医", "牙医约好了，10月9号下午"),
])
def test_an_offered_reminder_taken_keeps_the_errand_open_until_reported(
        lang: str, messages: list[dict[str, Any]], key: str, report: str) -> None:
    out = ask(messages, language=lang)
    assert key in _open(out, lang), out
    again = ask([user(report)], previous=out, language=lang)
    assert key not in _open(again, lang), again


def test_an_offer_of_a_thing_taken_is_a_decision_not_an_errand() -> None:
    out = ask([user("comparing Fidelity and Vanguard for my Roth IRA"),
               assistant("Both have no-fee index funds. Want a side-by-side table of the "
                         "Fidelity ZERO and Vanguard Admiral funds?"),
               user("sure")])
    assert any("side-by-side" in d for d in section(out, "Decisions")), out
    assert not section(out, "Open tasks"), out


def test_a_report_closes_the_list_item_it_names_by_its_code() -> None:
    asked = user("this week, keep it for me:\n1) file the I-9 for the new hire\n"
                 "2) renew the plate 8KXR319\n3) buy a gift for Omar")
    ack = assistant("Got it, three items.")
    out = ask([asked, ack, user("I-9 is done, filed it this morning")])
    assert "I-9" not in _open(out, "en") and "8KXR319" in _open(out, "en"), out
    # A code of no item closes nothing.
    out = ask([asked, ack, user("W-4 is done, filed it this morning")])
    assert "I-9" in _open(out, "en") and "8KXR319" in _open(out, "en"), out


# ---------------------------------------------------------------------------------------------
# picks by an option's own word, turns that open as an update, sentences about "he" or "she"

@pytest.mark.parametrize(("listing", "reply", "chosen"), [
    # The option's own word said alone, the reasons after it.
    ("Choices: 1) vinyl plank, cheap but it dents; 2) quartz counters, tough but pricey; "
     "3) butcher block, warm but needs oiling.",
     "the quartz. we cook every night and I never want to oil anything", "quartz"),
    # A relative clause stays with its option; the pick is the first clause of a long reply.
    ("For a small office: Slack (about $8 a user), Teams (bundled with Office), or Zulip, "
     "which is open source and free to self-host.",
     "let's start with the open source one and see if people actually use it", "Zulip"),
])
def test_a_pick_by_an_options_own_word_is_the_option(listing: str, reply: str,
                                                      chosen: str) -> None:
    out = ask([user("Which one should we get?"), assistant(listing), user(reply)])
    assert any(chosen in d for d in section(out, "Decisions")), out


@pytest.mark.parametrize("reply", [
    "the price is what worries me. we cook every night",
    "the quartz and the butcher block both look nice, can't decide",
])
def test_a_sentence_opening_with_an_option_word_is_no_pick(reply: str) -> None:
    out = ask([assistant("Choices: 1) vinyl plank, cheap but it dents; 2) quartz counters, tough "
                         "but pricey; 3) butcher block, warm but needs oiling."), user(reply)])
    assert not any("chose" in d for d in section(out, "Decisions")), out


@pytest.mark.parametrize(("said", "update", "new", "old"), [
    ("Booking the boat tour for the reunion, 18 people, Saturday at 10am.",
     "update from my cousin: two families dropped out. plan for 12", "12 people", "18 people"),
    ("The venue deposit is $900, due Friday.", "quick update: they knocked it to $750", "$750",
     "$900"),
])
def test_a_turn_that_opens_as_an_update_rewrites_what_it_updates(
        said: str, update: str, new: str, old: str) -> None:
    out = ask([user(said), assistant("Noted."), user(update)])
    assert new in out and old not in out, out
    assert not section(out, "Open tasks"), out  # "update from…" asks for nothing


def test_an_update_to_something_else_rewrites_nothing() -> None:
    out = ask([user("Booking the boat tour for the reunion, 18 people, Saturday at 10."),
               assistant("Noted."), user("Sounds fun."), assistant("It will be!"),
               user("update: my flight lands at 9 now")])
    assert "18 people" in out, out


@pytest.mark.parametrize(("lang", "text", "name", "fact"), [
    ("en", "quick one, is garlic bad for cats? Mochi got into the pasta sauce. she's a 4 yr old "
           "tabby, seems fine", "Mochi", "4 yr old"),
    ("en", "need a winter coat for Arlo. he's a size 6 now and hates hoods", "Arlo", "size 6"),
    ("zh", "我家猫叫年糕。它今年3岁了，最近老掉毛", "年糕", "3岁"),
])
def test_a_sentence_about_he_or_she_stays_with_who_it_is_about(
        lang: str, text: str, name: str, fact: str) -> None:
    out = ask([user(text), assistant("OK." if lang == "en" else "好的。")], language=lang)
    assert any(name in line and fact in line for line in out.splitlines()), out


def test_a_pronoun_sentence_after_no_name_stays_alone() -> None:
    out = ask([user("the vet called back this morning. she's a 4 yr old tabby, seems fine")])
    assert not any("called back" in line and "tabby" in line for line in out.splitlines()), out


@pytest.mark.parametrize(("listing", "reply", "chosen"), [
    ("附近有：星辰美术，每节150元；乐动篮球，每节100元，离家近；还有少年宫的书法班，要坐地铁。",
     "他精力太旺盛了，得让他跑起来 就打球那个吧", "乐动篮球"),
    ("三种思路：实木复合木地板，脚感好但怕水怕划；大板瓷砖，耐用好打理；微水泥，无缝很有质感，"
     "但施工要求高、价格偏贵。", "贵那家吧，一步到位", "微水泥"),
])
def test_a_chinese_pick_by_a_character_of_its_option(listing: str, reply: str,
                                                     chosen: str) -> None:
    out = ask([assistant(listing), user(reply)], language="zh")
    assert any(chosen in d for d in section(out, "决定")), out


def test_a_chinese_yes_that_describes_nothing_picks_nothing() -> None:
    out = ask([assistant("三种思路：实木复合木地板，脚感好但怕水怕划；大板瓷砖，耐用好打理；"
                         "微水泥，无缝很有质感，但施工要求高、价格偏贵。"), user("好吧")],
              language="zh")
    assert not section(out, "决定"), out


def test_a_chinese_question_without_its_mark_keeps_what_the_lookup_found() -> None:
    out = ask([user("公司账户里现在还有多少钱，下周要付房租"),
               {"role": "assistant", "content": None, "tool_calls": [
                   {"id": "c1", "type": "function",
                    "function": {"name": "query_balance", "arguments": "{}"}}]},
               {"role": "tool", "tool_call_id": "c1", "content": "可用余额 ¥52,310.40"},
               assistant("可用余额52,310.40元，付房租够了。")], language="zh")
    assert any("还有多少钱→" in line and "52,310.40" in line for line in out.splitlines()), out
    assert any("下周要付房租" in line and "→" not in line for line in out.splitlines()), out


def _asked_and_found(asked: str, found: str, told: str, lang: str = "zh") -> str:
    return ask([user(asked),
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c1", "type": "function",
                     "function": {"name": "lookup", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": found},
                assistant(told)], language=lang)


@pytest.mark.parametrize(("asked", "found", "told", "key"), [
    # "帮我看看" asks to know; what it is about ("退款申请") is asked of no one.
    ("店里后台有个退款申请，帮我看看是哪单", "订单88412，买家“小橘子”，申请退款¥268",
     "是买家“小橘子”的订单，退款268元。", "小橘子"),
    # "出来没": asked without a mark.
    ("我妈上周的体检报告出来没，帮我看看", "空腹血糖 6.1 mmol/L，其余正常",
     "出来了。空腹血糖6.1，略高，其余都正常。", "6.1"),
])
def test_a_chinese_lookup_asked_as_a_request_keeps_what_was_found(
        asked: str, found: str, told: str, key: str) -> None:
    out = _asked_and_found(asked, found, told)
    assert any(asked[:6] in line and "→" in line and key in line for line in out.splitlines()), out


@pytest.mark.parametrize(("text", "asks"), [
    ("帮我查一下订单到哪了", True),  # "订单" is an order to look up, not one to place
    ("帮我订单人间，周五入住", False),
    ("后台有个退款申请，帮我看看是哪单", True),
    ("有个退款申请，帮我退掉", False),
])
def test_what_a_chinese_request_asks_starts_at_the_asking(text: str, asks: bool) -> None:
    assert asks_for_information(text) is asks


def test_a_task_with_the_users_report_of_it_is_carried_as_a_fact() -> None:
    first = ask([user("那笔存款月底到期，我得去银行转存，想存5年的"),
                 assistant("可以先问问柜台利率。"), user("弄好了，转存的5年期，利率2.5%")],
                language="zh")
    assert "2.5%" in first, first
    # The next fold: the user's own values come in; the report of the errand, theirs too, is
    # not discounted as a question answered.
    facts = [user("我的车牌号是浙A12345。"), user("我家宽带账号是057112345678。"),
             user("我的工号是HZ20931。"), user("我女儿的学号是20250317。"),
             user("这台笔记本外表美观、用起来也很好，花了4999元。"), user("内存8G，硬盘512G。")]
    later = ask(facts, previous=first, language="zh", max_tokens=120)
    assert "2.5%" in later, later


@pytest.mark.parametrize(("text", "key"), [
    ("豆包的狂犬疫苗该打了，去年是3月打的", "狂犬疫苗"),
    ("车险该续了，下个月10号到期", "车险"),
])
def test_a_chinese_thing_said_due_is_an_open_task(text: str, key: str) -> None:
    out = ask([user(text), assistant("好的。")], language="zh")
    assert key in _open(out, "zh"), out


@pytest.mark.parametrize("text", ["我应该到了", "活该被骂了", "我该睡了"])
def test_a_chinese_should_that_is_no_errand_is_no_task(text: str) -> None:
    assert not _open(ask([user(text)], language="zh"), "zh")


@pytest.mark.parametrize(("task", "later"), [
    # "时候" and "开始" are said of anything: they name no errand.
    ("记得提醒我下周去车管所把驾照换了，下个月就过期了，到时候开车都麻烦",
     "买的时候价格2999，比较合算。"),
    ("阳台又开始渗水了，肯定是楼上的防水有问题，得找他们家谈谈",
     "开始买的那台路由器老掉线，换了一台就好了。"),
    # About to be done is not done.
    ("论文初稿5月10号要交给李老师，我数据还没跑完", "数据马上就跑完了，今晚应该能出结果"),
])
def test_a_chinese_turn_sharing_only_a_common_word_closes_no_task(task: str, later: str) -> None:
    out = ask([user(task), assistant("好的。"), user(later)], language="zh")
    assert task[:6] in _open(out, "zh"), out
    assert "已完成" not in out, out


@pytest.mark.parametrize(("lang", "task", "later"), [
    # A season in common is a time, like a weekday: nothing of the errand is named.
    ("en", "still need to book the night train to Vienna for the 12th, it sells out in summer",
     "I took that photo on a hike last summer near the lake."),
    ("zh", "暑假前得把护照续了，七月要出国", "暑假的时候我带孩子去了海边，住的民宿订了三晚"),
    # Characters either side of "这个" make no word: "比这个价钱" names no "比价".
    ("zh", "车险月底到期，得续了，今年想换一家比比价", "我看好多人都是比这个价钱低不少买的"),
    # An adverb any sentence may say: "只能", "差点".
    ("zh", "阳台那扇窗一下雨就漏水，看来只能得找人来修", "电池只能用6个小时，还是自己加了根内存"),
    # Whom an errand is for names no errand: "孩子".
    ("zh", "孩子的疫苗本得去社区医院盖章，入园要用", "带着老人和小孩子，就因为离得近才订的"),
    ("en", "need to pick up the kids' passports from the post office",
     "the kids bought their own snacks at the fair."),
])
def test_a_turn_sharing_no_word_of_the_errand_closes_no_task(lang: str, task: str,
                                                           later: str) -> None:
    ok, chat = ("好的。", "今天好冷啊") if lang == "zh" else ("OK.", "So cold today!")
    out = ask([user(task), assistant(ok), user(chat), assistant(ok), user(later)], language=lang)
    assert task[:6] in _open(out, lang), out


@pytest.mark.parametrize("text", ["屏幕再大一点就好了", "如果是八核的就好了", "太好了！"])
def test_a_chinese_wish_or_cheer_is_nothing_done(text: str) -> None:
    assert not user_done(text)


def test_one_word_naming_the_errand_still_closes_it() -> None:
    out = ask([user("我得去出入境把护照续签了"), assistant("好的。"), user("今天天气真好"),
               assistant("是啊。"), user("新护照今天寄到了")], language="zh")
    assert "护照续签" not in _open(out, "zh"), out


@pytest.mark.parametrize(("lang", "said", "name"), [
    ("en", "Honestly, just call me Dana, nobody uses my full name.", "Dana"),
    ("en", "I go by Sam at work.", "Sam"),
    ("zh", "别叫我王总了，听着别扭，叫我老王就行", "老王"),
    ("zh", "以后叫我小林就好", "小林"),
])
def test_how_the_user_wants_to_be_called_outlasts_chatter(lang: str, said: str,
                                                          name: str) -> None:
    chatter = [user(t) for t in (
        ["I went hiking with my friends at Mount Tam last Saturday and it was great.",
         "My sister Priya and I baked 40 cookies for the bake sale on Friday.",
         "We watched three movies in a row last night, the last one was Dune.",
         "I ran 10 km this morning in 52 minutes, a new personal best."]
        if lang == "en" else
        ["上周六和朋友去爬了莫干山，风景特别好。", "我和姐姐周五给义卖烤了40块饼干。",
         "昨晚连看了三部电影，最后一部是沙丘。", "今天早上跑了10公里，用了52分钟，个人最好成绩。"])]
    out = ask([user(said), *chatter], language=lang, max_tokens=40)
    assert name in out, out


@pytest.mark.parametrize("said", ["Call me back tomorrow after 5.", "叫我去吧，我顺路"])
def test_call_me_back_names_nobody(said: str) -> None:
    lang = "en" if said.isascii() else "zh"
    out = ask([user(said)], language=lang)
    assert not section(out, "Preferences" if lang == "en" else "偏好"), out


def test_almost_done_is_not_done() -> None:
    out = ask([user("I need to finish the grant report by Friday"), assistant("OK."),
               user("almost finished the grant report, just the budget table left")])
    assert "grant report by Friday" in _open(out, "en"), out


def test_a_kept_open_errand_outranks_new_statements_of_the_same_worth() -> None:
    previous = ("Facts:\n- My passport number is X1234567, it expires 2031.\n"
                "- My wife Ana is a nurse at St. Mary's, night shifts Mon-Thu.\n"
                "- I'm allergic to penicillin.\n"
                "Open tasks:\n- I should really get the 529 for Juniper set up before her "
                "first birthday\n")
    news = [user("I'm allergic to most reptiles and animals with fur."),
            user("I'm lactose intolerant, so dairy-free for me."),
            user("My sister Dana lives in Denver with her two kids."),
            user("I'm vegetarian since 2019."),
            user("My daughter Mia turns 6 on March 3."),
            user("My husband Raj works at Boeing as an engineer."),
            user("Our landlord Mr. Chen raised the rent to $2,450 from June 1."),
            user("My son Leo's school, Lakeside Elementary, starts at 8:10 on weekdays.")]
    out = ask(news, previous=previous, max_tokens=100)
    assert "529" in _open(out, "en"), out


@pytest.mark.parametrize("text", [
    "外观漂亮，键盘也很舒服，主要还是觉得性价比高，5099买的挺划算",
    "重要还是看售后，只要还能保修就行",
])
def test_a_chinese_main_point_is_no_errand(text: str) -> None:
    assert not _open(ask([user(text)], language="zh"), "zh")


def test_an_errand_said_after_a_comma_without_i_is_open() -> None:
    out = ask([user("my bike registration expires 04/2026, gotta get it renewed before the "
                    "spring rides"), assistant("Most states send a reminder by mail.")])
    assert "renewed" in _open(out, "en"), out
    chance = ask([user("the tour was amazing, got to see the northern lights twice")])
    assert not _open(chance, "en"), chance


def test_a_value_rewritten_takes_no_full_stop_with_it() -> None:
    out = ask([user("my car inspection sticker expires 06/2025, gotta get it inspected soon"),
               assistant("Most states give you until the end of that month."),
               user("wait I misread it, the sticker says 09/2025. still need to do it though")])
    assert "09/2025," in out and "09/2025.," not in out and "06/2025" not in out, out


def test_a_great_idea_adds_no_idea_to_what_was_agreed() -> None:
    out = ask([assistant("Maybe there are other animals you could consider!"),
               user("Great idea! I'm already invested in those little guys!")])
    decisions = section(out, "Decisions")
    assert decisions and not any("(idea" in d for d in decisions), out


def test_an_allergy_said_without_what_to_is_no_health_fact() -> None:
    out = ask([user("I'm allergic to shellfish and peanuts."),
               user("We watched the dolphins from the deck, from a distance, since I'm allergic."),
               user("My sister Dana lives in Denver with her two kids.")], max_tokens=45)
    assert "shellfish" in out and "from a distance" not in out, out


def test_my_bad_puts_a_value_right() -> None:
    out = ask([user("point the nightly backups at backup.acme.dev"),
               assistant("Updated the backup target to backup.acme.dev."),
               user("ugh my bad, that host was retired last year. it's bk.acme.io")])
    assert "bk.acme.io" in out and "backup.acme.dev" not in out, out


def test_a_change_rewrites_what_was_agreed_of_the_old_value() -> None:
    out = ask([user("I have to send the audit packet to Moreno & Co by June 6"),
               assistant("Noted. Want me to set a reminder two days before June 6?"),
               user("yes. actually they gave us an extension, due June 20 instead")])
    assert "June 20" in out and "June 6" not in out, out


@pytest.mark.parametrize(("lang", "text", "kept", "gone"), [
    # The statement stands, its value put right; the question after it is no part of it.
    ("zh", "我女儿朵朵5岁 哦不对 上周过完生日6岁了 这个年纪学钢琴合适吗", "朵朵6岁", "5岁"),
    ("en", "I weigh 82 kg, no wait, sorry, 80 kg since the diet started", "weigh 80 kg", "82"),
])
def test_a_value_taken_back_as_said_is_put_right_in_its_statement(
        lang: str, text: str, kept: str, gone: str) -> None:
    out = ask([user(text)], language=lang)
    assert kept in out and gone not in out, out



@pytest.mark.parametrize(("lang", "listing", "reply", "chosen", "other"), [
    ("zh", "小区门口有两家游泳馆 一个是海豚 次卡45 一个是蓝鲸 年卡要3600 选哪个",
     "那就便宜的那个吧", "海豚", "蓝鲸"),
    ("en", "two quotes for the fence: one is Oakline at 4,200, the other is Hart & Sons at 5,100. "
           "which one should we take?", "the cheaper one, it's just a fence", "Oakline", "Hart"),
])
def test_a_pick_among_options_the_user_listed(lang: str, listing: str, reply: str, chosen: str,
                                              other: str) -> None:
    out = ask([user(listing), assistant("都可以，看你更在意什么。" if lang == "zh"
                                        else "Both are fine; it depends on the warranty."),
               user(reply)], language=lang)
    decisions = section(out, "决定" if lang == "zh" else "Decisions")
    assert any(chosen in d and other not in d for d in decisions), out


def test_a_bare_number_prices_no_option_the_assistant_listed() -> None:
    out = ask([assistant("Options: Starter 100 Mbps, Plus 500 Mbps, or Gig 1000 Mbps."),
               user("the cheaper one")])
    assert not any("chose" in d for d in section(out, "Decisions")), out


@pytest.mark.parametrize(("lang", "listed", "reply", "chosen", "other"), [
    # Listed without asking which, priced in Chinese numerals.
    ("zh", "看了两套房，一套在滨江，总价三百二十万；一套在余杭，总价两百六十万", "还是便宜的吧",
     "余杭", "滨江"),
    ("zh", "面了两个设计师，一个小周，五年经验，要一万二；一个小吴，刚毕业，要七千",
     "我还是选便宜的，带一带就行", "小吴", "小周"),
    ("en", "I interviewed two people: one is Marco, 5 years at Stripe, asking 9500; the other "
           "is Lena, fresh grad, asking 6000", "the cheaper one, we can train her", "Lena",
     "Marco"),
])
def test_a_pick_among_options_the_user_listed_without_asking(
        lang: str, listed: str, reply: str, chosen: str, other: str) -> None:
    ok = "看你更看重什么。" if lang == "zh" else "Depends on your runway."
    out = ask([user(listed), assistant(ok), user(reply)], language=lang)
    decisions = section(out, "决定" if lang == "zh" else "Decisions")
    assert any(chosen in d and other not in d for d in decisions), out


def test_a_list_of_questions_is_no_choice() -> None:
    out = ask([user("我有两个问题，一个是发票怎么开，一个是运费谁出"),
               assistant("发票可以在后台开。"), user("好的，便宜的那个快递就行")], language="zh")
    assert not any("发票" in d or "运费" in d for d in section(out, "决定")), out


def test_a_request_about_a_value_stays_one_request() -> None:
    out = ask([user("My order is 4417, can you check where it is?")])
    assert any("4417" in line and "check" in line for line in out.splitlines()), out


@pytest.mark.parametrize(("first", "then", "new", "old"), [
    ("we need 60 chairs for the recital", "actually make that 75, more families RSVP'd", "75",
     "60"),
    ("the cake should serve 30", "hmm make it 40, just in case", "40", "30"),
])
def test_make_that_changes_the_number_just_said(first: str, then: str, new: str,
                                                old: str) -> None:
    out = ask([user(first), assistant("OK."), user(then)])
    assert new in out and old not in out, out


def test_a_chinese_clause_naming_someone_by_title_is_kept() -> None:
    said = ("今天累坏了，早上送孩子上学，中午开会，下午医院终于来电话了，约了3月2号上午复查，"
            "挂的是周建国主任的号。复查前要空腹吗？")
    out = ask([user(said), assistant("一般不用空腹。")], language="zh")
    assert "周建国" in out, out


@pytest.mark.parametrize("report", ["房租已经转给王阿姨了", "钱打给他了"])
def test_a_chinese_report_of_what_went_to_whom_is_done(report: str) -> None:
    assert user_done(report)


@pytest.mark.parametrize("reply", ["no need, my brother-in-law fixed it last night",
                                   "no need anymore, the landlord replaced it"])
def test_no_need_because_someone_did_it_closes_the_task(reply: str) -> None:
    out = ask([user("I need to find a plumber for the leaky shower"),
               assistant("Want me to list a few nearby?"), user(reply)])
    assert "plumber" not in _open(out, "en"), out


@pytest.mark.parametrize(("lang", "said", "key"), [
    ("en", "two things today: renew the domain for the bakery site and order more pastry boxes",
     "domain"),
    ("en", "a few things this week: book the vet for Milo and return the library books",
     "vet"),
])
def test_a_short_list_of_errands_is_open(lang: str, said: str, key: str) -> None:
    out = ask([user(said), assistant("Want a reminder this afternoon?")], language=lang)
    assert key in _open(out, lang), out


def test_an_option_listed_with_commas_in_brackets_is_one_option() -> None:
    out = ask([assistant("For the venue: The Foundry ($4,500, 120 guests) or Rosewood Barn "
                         "($3,200, 90 guests)."), user("the barn works")])
    assert any("Rosewood Barn ($3,200, 90 guests)" in d for d in section(out, "Decisions")), out


@pytest.mark.parametrize(("said", "open_"), [
    ("我妈让我这周末回去帮她把空调滤网洗了", True),
    ("老婆让我下班顺路买瓶酱油", True),
    ("我妈让我别熬夜", False),  # advice, no errand
])
def test_a_chinese_errand_handed_over_by_family_is_open(said: str, open_: bool) -> None:
    out = ask([user(said), assistant("好的。")], language="zh")
    assert bool(_open(out, "zh")) is open_, out


def test_a_chinese_short_list_of_errands_is_open() -> None:
    out = ask([user("明天三件事：给网站域名续费，订一批糕点盒，去银行取对账单"),
               assistant("要我提醒你吗？")], language="zh")
    assert "域名" in _open(out, "zh"), out


@pytest.mark.parametrize(("lang", "task", "report", "key"), [
    ("zh", "今天得给网站域名续费，再订一批糕点盒", "糕点盒已经订好了，500个，域名还没弄", "域名"),
    ("en", "I need to renew the domain for the bakery site and order more pastry boxes",
     "ordered the boxes already, 500 of them, the domain is still to do", "domain"),
])
def test_a_report_of_part_done_leaves_the_rest_open(lang: str, task: str, report: str,
                                                    key: str) -> None:
    ok = "好的。" if lang == "zh" else "OK."
    out = ask([user(task), assistant(ok), user(report)], language=lang)
    assert key in _open(out, lang), out


@pytest.mark.parametrize("said", [
    "I have a root canal next Tuesday at 10, need someone to drive me home",
    "we still need somebody to feed the cats while we're in Oaxaca",
])
def test_what_the_user_needs_someone_to_do_is_open(said: str) -> None:
    out = ask([user(said), assistant("Maybe ask a neighbour.")])
    assert said[:12] in _open(out, "en"), out


@pytest.mark.parametrize(("lang", "read_back", "yes", "key"), [
    ("zh", "跟您确认一下，您回程是18号的MU5137，晚上9点40落地，对吗？", "对的", "MU5137"),
    ("en", "Just to confirm, your flight home is AA 2291 on the 18th, landing at 9:40pm?",
     "yep that's right", "2291"),
])
def test_a_read_back_the_user_confirms_is_kept(lang: str, read_back: str, yes: str,
                                               key: str) -> None:
    chatter = [user(t) for t in (
        ["上周六和朋友去爬了莫干山，风景特别好。", "昨晚连看了三部电影，最后一部是沙丘。",
         "今天早上跑了10公里，用了52分钟，个人最好成绩。"] if lang == "zh" else
        ["I went hiking with my friends at Mount Tam last Saturday and it was great.",
         "We watched three movies in a row last night, the last one was Dune.",
         "I ran 10 km this morning in 52 minutes, a new personal best."])]
    out = ask([assistant(read_back), user(yes), *chatter], language=lang, max_tokens=60)
    assert key in out, out


def test_a_read_back_the_user_corrects_is_not_agreed() -> None:
    out = ask([assistant("Just to confirm, your flight home is AA 2291 on the 18th?"),
               user("no, the 19th")])
    assert not section(out, "Decisions"), out


# ---------------------------------------------------------------------------------------------
# changes an agent makes: a tool's fields by the object they belong to, and requests to change


def _called(name: str, args: str, result: str, n: int) -> list[dict[str, Any]]:
    call = {"id": f"c{n}", "type": "function", "function": {"name": name, "arguments": args}}
    return [{"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{n}", "content": result}]


def test_a_newer_tool_line_about_the_same_object_replaces_its_changed_fields() -> None:
    first = ask([user("Put the quarterly review with Dana on my calendar, Tuesday 3:30pm."),
                 *_called("create_event", '{"title": "Quarterly review", "start": "15:30"}',
                          '{"event_id": "evt_8812", "status": "created", '
                          '"start": "2024-11-19T15:30", "location": "Birch"}', 1)])
    out = ask(_called("update_event", '{"event_id": "evt_8812", "start": "11:15"}',
                      '{"event_id": "evt_8812", "start": "2024-11-20T11:15", '
                      '"status": "updated"}', 2), previous=first)
    tools = [line for line in out.splitlines() if line.startswith("- Tool create_event")]
    assert tools and "15:30" not in tools[0] and "Birch" in tools[0], out
    assert "title=Quarterly review" in tools[0] and "2024-11-20T11:15" in out


def test_tool_lines_about_other_objects_keep_their_fields() -> None:
    out = ask([user("Where are my two orders?"),
               *_called("get_order", '{"user_id": "u42", "order_id": "A1001"}',
                        '{"order_id": "A1001", "status": "shipped"}', 1),
               *_called("get_order", '{"user_id": "u42", "order_id": "A2002"}',
                        '{"order_id": "A2002", "status": "processing"}', 2)])
    assert "status=shipped" in out and "status=processing" in out


@pytest.mark.parametrize(("old", "new", "gone", "kept", "lang"), [
    # one code for another of its shape, said to change ("rebooked", "改签…现在是")
    ("My flight to Denver is UA 1187 on the 22nd, leaves at 6:05am.",
     "United cancelled my Denver flight and rebooked me on Delta, DL 2046, leaves 9:50am.",
     "UA 1187", "DL 2046", "en"),
    ("帮我记一下，周五回杭州的高铁是 G1372，下午两点十分上海虹桥发车",
     "车票改签了，会拖到下午才开完，现在是 G1398，晚上六点四十五的", "G1372", "G1398", "zh"),
    # a slot named in one clause, its value in the next: the change still finds the value
    ("跟你说个好消息！年底团建预算批下来了，总共 23600 块，28 个人。",
     "唉，财务又砍了一刀，团建总预算现在只剩 19800 了，人数不变。", "23600", "19800", "zh"),
    # a clause of change naming nothing, of what its sentence names
    (".nvmrc 和 package.json 的 engines 都锁到 node 18.19.1，CI 镜像也对齐一下",
     "Node 18 快 EOL 了，统一升到 20.11.1 吧，.nvmrc、engines、Dockerfile 都改掉",
     "18.19.1", "20.11.1", "zh"),
    # asked for, as agents are; the clause that changes, not what else the sentence asks
    ("pin pydantic to 2.5.3 in requirements.txt, the 2.6 release breaks our custom validators",
     "found the validator issue. bump the pydantic pin to 2.7.4 and rerun the schema tests",
     "2.5.3", "2.7.4", "en"),
    ("Finance signed off on the offsite! We have $18,500 total for the whole thing.",
     "Ugh. Finance clawed some back and we're now working with $14,200 total.",
     "18,500", "14,200", "en"),
    ("bump the worker memory limit on staging-api to 768Mi, it's getting OOMKilled",
     "still OOMing. make the worker limit 1536Mi", "768Mi", "1536Mi", "en"),
    # a time moved naming nothing but "it": the latest time said
    ("I have my first physical therapy session with Dr. Okafor on Thursday at 2:50.",
     "actually the PT clinic called, they changed it to 4:05. same day", "2:50", "4:05", "en"),
    # the clause that changes inside a long sentence about other things
    ("Rent is €890, utilities around €140, transit pass €49.",
     "My starter doubled! Also my landlord emailed, from the April lease the rent goes up to "
     "€965, which is annoying but still less than the new builds on our street.",
     "890", "965", "en"),
    # as agreed, as it turned out (and then asked about)
    ("Our nginx proxy_read_timeout is 45s and the export endpoint keeps timing out.",
     "we agreed on 150s for proxy_read_timeout until the async export ships", "45s", "150s",
     "en"),
    ("My phone plan is 15GB a month and I keep running out around the 20th.",
     "I checked my account and turns out I'm on the 'Flex 40' plan, not what I thought, so "
     "maybe it includes Canada?", "15GB", "Flex 40", "en"),
    # a name for a name, in the clause that says so
    ("I need to ask my manager, Gareth Pryce, for Friday off next week.",
     "Context: there was a reorg last week, so my manager is now Oluwaseun Baptiste, who "
     "doesn't know my work at all yet.", "Pryce", "Baptiste", "en"),
    # someone named before, by a pronoun now
    ("My mom's flight lands at 6:40pm on Friday.",
     "Update: her flight got moved, it lands at 9:15pm now.", "6:40pm", "9:15pm", "en"),
    # a day moved in the clause that says so; a rise said with 涨成
    ("面试定在这周五下午两点。", "HR刚打电话，面试推迟到下周一上午十点。", "周五", "下周一", "zh"),
    ("健身房年卡2999。", "健身房年卡续费，这次涨成3299了。", "2999", "3299", "zh"),
    # Chinese: said, then asked ("…改签成 G7559 了，…来得及吗？"), talked up, set by the doctor
    ("下周二坐 G7541 去杭州出差，二等座，车上能办公吗？",
     "开会时间调了，高铁我改签成 G7559 了，14:10 到杭州东，去滨江开四点的会来得及吗？",
     "G7541", "G7559", "zh"),
    ("拿到一家公司的 offer，月薪 18K，14 薪，我现在是 15K。",
     "跟HR谈下来了，月薪谈到了 21K，还是14薪。", "18K", "21K", "zh"),
    ("孩子支气管炎，医生开了阿莫西林克拉维酸钾干混悬剂，每次4毫升，一天两次。",
     "复诊了，医生说孩子体重长了，剂量调成每次6毫升，还是一天两次。", "4毫升", "6毫升", "zh"),
])
def test_a_change_said_folds_later_replaces_the_value(old: str, new: str, gone: str, kept: str,
                                                      lang: str) -> None:
    first = ask([user(old)], language=lang)
    assert gone in first
    out = ask([user(new)], previous=first, language=lang)
    assert gone not in out and kept in out, out


def test_a_carried_echo_of_a_changed_value_goes_with_it() -> None:
    # The assistant's report of the old value, rewritten, would say it did what it has not
    # done yet ("三处都锁到 20.11.1 了"): it goes; the user's own statement says the new value.
    first = ask([user(".nvmrc 和 package.json 的 engines 都锁到 node 18.19.1"),
                 assistant("三处都锁到 18.19.1 了：.nvmrc、engines.node、CI 的 Dockerfile。")],
                language="zh")
    out = ask([user("Node 18 快 EOL 了，统一升到 20.11.1 吧，.nvmrc、engines 都改掉")],
              previous=first, language="zh")
    assert "18.19.1" not in out and "三处都锁到" not in out and "20.11.1" in out, out


# ---------------------------------------------------------------------------------------------
# a choice left open: options the user asked for, picked from folds later


@pytest.mark.parametrize(("asked", "listing", "later", "chosen", "lang"), [
    ("Need a spot for the team dinner on the 12th, 9 people. ideas?",
     "A few that handle groups well: Bavel in the Arts District (Middle Eastern, great for "
     "sharing plates), Osteria Mozza on Melrose (Italian, pricier), and Kismet in Los Feliz "
     "(Mediterranean-Californian, relaxed).",
     "team voted for the Middle Eastern place.", "Bavel", "en"),
    ("we need a background job queue for the PDF exports. options?",
     "Three reasonable choices: Celery with Redis as broker (most features, heaviest to "
     "operate), RQ (very simple, but retries and scheduling are basic), or Dramatiq (lighter "
     "than Celery, good retry middleware, works with Redis). All three fit your stack.",
     "Celery feels like overkill, so going with the lighter one, good retry middleware.",
     "Dramatiq", "en"),
    ("Which laptop would you pick for coding?",
     "Three solid options:\n1) ThinkPad X1 Carbon: great keyboard.\n2) Dell XPS 13 Plus: "
     "gorgeous screen.\n3) Framework Laptop 13: modular and repairable.",
     "We'll go with the third one.", "Framework", "en"),
    ("下周三去成都出差两晚，帮我找下春熙路附近 500 以内的酒店",
     "春熙路附近 500 以内有三家：全季春熙路店 389/晚，评分 4.6；亚朵太古里店 468/晚，离太古里 150 "
     "米，评分 4.8；桔子水晶 IFS 店 495/晚，评分 4.7。",
     "成都那个酒店就订离太古里最近的那家吧", "亚朵", "zh"),
    # An option said to be right, by its place; the cheapest, by the prices given.
    ("Where should we eat for my parents' anniversary on Friday?",
     "Three ideas: Trattoria Sole for a quiet family room, Hanami for a sushi counter, or "
     "The Copper Pot for a tasting menu.",
     "The third one sounds great, they love tasting menus.", "Copper Pot", "en"),
    ("Which e-reader should I get for travel?",
     "Three options: the Kindle Paperwhite at $159, the Kobo Clara at $139, or the Boox Go "
     "at $219. The Kindle has the best store, the Kobo is the cheapest, and the Boox runs apps.",
     "I'll go with the cheapest of the three.", "Kobo Clara", "en"),
    ("家里要办宽带，推荐几个套餐",
     "可以看这三种：电信200M，一年800元；联通300M，一年1000元；移动500M，一年1300元。",
     "选第三个吧，网速快一点", "移动500M", "zh"),
    ("周末想带孩子去游泳，附近有哪些游泳馆？",
     "附近有三家：海洋游泳馆，一次60元；体育中心游泳馆，一次45元，离地铁站最近；星河会所，一次90元。",
     "就离地铁近的那家吧", "体育中心", "zh"),
    ("Our dog needs his rabies shot this week, which one should I take?",
     "Two openings: Dr. Lindgren on Monday at 4:10 PM, or Dr. Osei on Wednesday at 9:30 AM.",
     "Wednesday morning works better for me.", "Dr. Osei", "en"),
    ("Want a deep green for the hallway. Suggestions?",
     "Three good ones: Benjamin Moore Essex Green, Sherwin-Williams Rainforest, or Farrow & "
     "Ball Studio Green.", "Rainforest, definitely.", "Rainforest", "en"),
    ("Need new wiper blades for the Civic, options?",
     "Bosch Icon at $28 each, Rain-X Latitude at $19 each, or Michelin Stealth at $24 each.",
     "Go cheapest, it's an old car.", "Rain-X", "en"),
])
def test_options_left_open_are_kept_and_picked_from_folds_later(
        asked: str, listing: str, later: str, chosen: str, lang: str) -> None:
    first = ask([user(asked), assistant(listing)], language=lang)
    assert any(chosen in line for line in section(first, "Open tasks" if lang == "en" else "待办")
               ), first
    filler = "I watched a film with my sister yesterday evening." if lang == "en" \
        else "昨天晚上和我姐姐一起看了一部电影。"
    middle = ask([user(filler)], previous=first, language=lang)
    out = ask([user(later)], previous=middle, language=lang)
    decisions = section(out, "Decisions" if lang == "en" else "决定")
    assert any(chosen in d for d in decisions), out
    assert not any("choose" in t or "待选" in t
                   for t in section(out, "Open tasks" if lang == "en" else "待办")), out


def test_a_listing_that_explains_is_no_choice() -> None:
    out = ask([user("Why does my build keep failing?"),
               assistant("Three likely causes: a stale lockfile, a missing env var, or the "
                         "cache volume being full.")])
    assert "choose" not in out


def test_a_tool_update_in_a_full_summary_keeps_its_new_field_not_the_old() -> None:
    first = ask(_called("create_event", '{"title": "Quarterly review", "start": "15:30"}',
                        '{"event_id": "evt_8812", "start": "2024-11-19T15:30"}', 1))
    facts = "".join(f"- My cousin number {i} lives in Springfield {i}00.\n"
                    for i in range(1, 9))
    previous = first.replace("Facts:\n", "Facts:\n" + facts)
    cap = count(previous)
    news = [user(f"I'm allergic to penicillin {i}, my passport is X{i}234567 and my blood "
                 f"type is O{i}.") for i in range(1, 9)]
    request = SummaryRequest(previous, [*news, *_called(
        "update_event", '{"event_id": "evt_8812", "start": "11:15"}',
        '{"event_id": "evt_8812", "start": "2024-11-20T11:15"}', 2)],
        "en", cap)  # type: ignore[arg-type]
    out = ExtractiveSummarizer(count=count).summarize(request)
    assert "2024-11-20T11:15" in out and "2024-11-19T15:30" not in out, out


def test_a_question_with_an_or_is_no_choice_to_keep() -> None:
    out = ask([user("Planning a road trip from Denver to Moab in May. Can you map out stops?"),
               assistant("Happy to. One quick question first so I can plan fuel or charging "
                         "stops: are you still driving the Mazda?"),
               user("nope, traded it in last month. it's a 2022 Kia Niro EV now")])
    assert "choose" not in out and "Niro" in out


def test_looking_up_ones_own_calendar_is_no_choice() -> None:
    call = {"id": "c1", "type": "function",
            "function": {"name": "get_calendar", "arguments": "{}"}}
    out = ask([user("帮我查一下这周的日程。"),
               {"role": "assistant", "content": "", "tool_calls": [call]},
               {"role": "tool", "tool_call_id": "c1",
                "content": '[{"title": "部门周会", "start": "周一 09:30"}]'},
               assistant("这周有三件事：\n- 周一 09:30 部门周会\n- 周四 10:30 供应商评审会\n"
                         "- 周六 08:00 体检")], language="zh")
    assert "待选" not in out


@pytest.mark.parametrize("came", [
    "Good news, the new passport showed up in the mail today!",
    "My replacement card arrived this morning.",
])
def test_what_was_to_come_having_come_closes_the_errand(came: str) -> None:
    first = ask([user("I need to renew my passport ASAP, it expires in February."
                      if "passport" in came else "I need to order a replacement card.")])
    out = ask([user(came)], previous=first)
    assert section(out, "Open tasks") == [], out


@pytest.mark.parametrize(("said", "key"), [
    ("when you have a sec, write a README section explaining the webhook retry policy",
     "webhook"),
    ("also at some point we need nightly backups of the grafana-data volume.", "grafana-data"),
    ("prometheus 那边帮我加个磁盘使用率告警，超过 85% 就推飞书群。", "告警"),
])
def test_a_request_after_a_lead_in_or_a_team_need_is_an_open_task(said: str, key: str) -> None:
    lang = "en" if said.isascii() else "zh"
    out = ask([user(said), user("My cat Luna is 7 and loves the sunny windowsill.")],
              language=lang)
    assert any(key in t for t in section(out, "Open tasks" if lang == "en" else "待办")), out


def test_what_the_user_says_of_their_own_before_asking_stays_when_the_ask_is_done() -> None:
    out = ask([user("老师好，我家闺女朵朵在实验二小读四年级，最近分数应用题老是错，能帮她练练吗？"),
               assistant("没问题！先来一道热身：一根绳子长 12 米，用去了它的 3/4，还剩多少米？"
                         "让朵朵先自己算，把步骤写下来发我看看。")],
              language="zh")
    assert "实验二小" in out and "朵朵" in out, out


def test_a_value_put_right_of_someone_named_by_a_pronoun() -> None:
    first = ask([user("我老婆生日5月3号。")], language="zh")
    out = ask([user("我记错了，她生日不是5月3号，是5月8号。")], previous=first, language="zh")
    assert "我老婆生日5月8号" in out, out


def test_a_thing_of_ones_own_named_by_its_measure_word_before_asking_stays() -> None:
    out = ask([user("问个车的问题。我那台比亚迪秦PLUS DM-i 开了快三年了，最近早上冷车启动的时候"
                    "发动机介入声音特别大，嗡嗡的，正常吗？"),
               assistant("DM-i 在低温、电量低的时候，发动机会更频繁地介入，声音大一点比较常见。")],
              language="zh")
    assert "秦PLUS" in out, out


def test_a_look_up_asked_for_is_no_choice_and_its_subject_stays() -> None:
    out = ask([user("帮我查下 tiger-gateway 这个服务最近一周的报错数量，运维那边说网关最近老超时"),
               assistant("这周报错从5号开始暴涨，5号到7号每天一千三四百条，其他几天都在一百条左右。"
                         "建议看下5号有没有发版或者上游配置改动。")], language="zh")
    assert "待选" not in out and "tiger-gateway" in out, out


def test_what_is_said_before_the_ask_is_no_second_thing_asked() -> None:
    first = ask([user("Just noticed my passport expires in February and we're going to Mexico "
                      "in April. I need to renew it ASAP.")])
    out = ask([user("Good news, the new passport showed up in the mail today!")], previous=first)
    assert section(out, "Open tasks") == [], out


def test_a_result_that_names_its_thing_without_its_word_closes_the_errand() -> None:
    first = ask([user("十月份想去日本玩，得赶紧把签证办了。")], language="zh")
    out = ask([user("五年多次，一周就出签了，比我想的快多了")], previous=first, language="zh")
    assert section(out, "待办") == [], out


def test_an_errand_noted_down_is_not_done() -> None:
    out = ask([user("对了，帮我记一下，我车险7月25号到期，到时候要续保。今年想多比几家报价"),
               assistant("记下了，车险7月25号到期，要续保。一般到期前一个月就能报价了，"
                         "可以同时问三四家。")], language="zh")
    assert any("续保" in t for t in section(out, "待办")), out
    assert "。。" not in out, out


def test_a_value_changed_twice_leaves_neither_old_one() -> None:
    first = ask([user("My dad was just diagnosed with type 2 and started on Lantus, 18 units at "
                      "bedtime. He's really nervous about the injections.")])
    second = ask([user("update: his endo raised the Lantus to 22 units because his fasting "
                       "sugars were still running around 180.")], previous=first)
    assert "18 units" not in second and "22 units" in second, second
    out = ask([user("scratch that, the higher dose was too much. he went low around 3am twice, "
                    "so the endo settled on 20 units and wants him checking at 3am for a week")],
              previous=second)
    assert "20 units" in out and "22 units" not in out and "18 units" not in out, out


def test_a_value_changed_twice_through_an_unnamed_clause_keeps_the_last() -> None:
    first = ask([user("婚宴订了14桌。")], language="zh")
    second = ask([user("双方家长又拉了一堆亲戚，加到17桌了，酒店说这个厅最多放20桌。")],
                 previous=first, language="zh")
    out = ask([user("后来我妈那边又加了两桌，最后定的是19桌，明天去交定金。")], previous=second,
              language="zh")
    assert "19桌" in out and "17桌" not in out and "14桌" not in out, out


def test_what_a_friend_does_in_prose_is_no_choice_left_open() -> None:
    out = ask([user("I have been stuck on writing new songs lately, any ideas?"),
               assistant("If I'm having trouble coming up with ideas, I usually immerse myself "
                         "in something I love, like concerts or my favorite albums. Doing that "
                         "usually helps to jumpstart my inspiration. Maybe try taking a break "
                         "from music and explore other things.")])
    assert "choose" not in out, out


def test_options_offered_with_an_or_before_a_question_are_a_choice() -> None:
    out = ask([user("Need to get from Denver to Chicago on Friday morning, options?"),
               assistant("You could take the 7:05 UA 455, the 9:30 DL 2046 or the 11:00 AA 100. "
                         "Which works?")])
    assert any("DL 2046" in t for t in section(out, "Open tasks")), out


@pytest.mark.parametrize(("question", "reply", "answered"), [
    ("When are you leaving?", "Trying to build an actual budget.", False),
    ("When are you leaving?", "Next Friday.", True),
    ("How many people are coming?", "Not sure yet honestly.", False),
    ("你们什么时候出发？", "下周五。", True),
    ("你们什么时候出发？", "还在做预算。", False),
])
def test_a_fragment_answers_a_when_or_how_many_only_with_a_time_or_a_count(
        question: str, reply: str, answered: bool) -> None:
    lang = "en" if question.isascii() else "zh"
    out = ask([user("Long week." if lang == "en" else "这周好累。"), assistant(question),
               user(reply)], language=lang)
    assert ((question + (" → " if lang == "en" else "→")) in out) is answered, out


def test_a_request_for_later_is_no_standing_rule() -> None:
    out = ask([user("parser 模块基本没测试，之后帮我补一下单测，重点覆盖那几个日期格式的分支。"
                    "不急，等重构合进去再说"),
               assistant("好，等重构合进去之后我来给 parser 补单测，"
                         "重点覆盖日期格式解析的各个分支。")],
              language="zh")
    assert any("单测" in t for t in section(out, "待办")), out


def test_a_promise_to_do_it_later_does_not_do_it() -> None:
    out = ask([user("also at some point we need nightly backups of the grafana-data volume. all "
                    "our dashboards live there. not urgent, later this week"),
               assistant("Noted. When you're ready I'll set up a nightly snapshot for "
                         "grafana-data, either a VolumeSnapshot CronJob or a Velero schedule.")])
    assert any("grafana" in t for t in section(out, "Open tasks")), out


def _assert_replaced(old: str, new: str, gone: str, kept: str) -> None:
    """``new``, said a fold after ``old`` (the assistant acknowledging it), leaves ``kept`` in
    the summary and ``gone`` out of it."""
    lang = "en" if old.isascii() else "zh"
    first = ask([user(old)], language=lang)
    out = ask([user(new), assistant("OK." if lang == "en" else "好的。")], previous=first,
              language=lang)
    assert gone not in out and kept in out, out


@pytest.mark.parametrize(("old", "new", "gone", "kept"), [
    ("My rent is $1,850 a month.", "Landlord says starting March it goes up to $1,975.",
     "1,850", "1,975"),
    ("我现在房租每个月3800。", "房东说明年开始涨到4200了，有点肉疼。", "3800", "4200"),
    ("季度复盘报告5月20日交。", "老板说提前到5月15日，因为要先给VP过一遍。", "5月20日", "5月15日"),
    ("孩子支气管炎，医生开了阿莫西林，每次4毫升，一天两次。",
     "复诊了，医生说孩子体重长了，剂量调成每次6毫升，还是一天两次。", "4毫升", "6毫升"),
])
def test_a_change_someone_reports_is_the_users(old: str, new: str, gone: str,
                                               kept: str) -> None:
    _assert_replaced(old, new, gone, kept)


@pytest.mark.parametrize(("old", "new", "gone"), [
    ("我开的是一辆大众朗逸，白色的。", "上个月把朗逸卖了，换了辆比亚迪汉。", "白色"),
    ("My gym membership is $45 a month at Planet Fitness.",
     "Cancelled Planet Fitness, I'm at Crunch now for $30.", "$45"),
    ("我们部门经理是老王，人挺好的。", "老王调走了，新来的经理姓赵。", "人挺好"),
])
def test_a_thing_sold_or_a_person_gone_ends_what_was_said_of_them(old: str, new: str,
                                                                   gone: str) -> None:
    lang = "en" if old.isascii() else "zh"
    first = ask([user(old)], language=lang)
    out = ask([user(new)], previous=first, language=lang)
    assert gone not in out and "- \n" not in out + "\n", out


def test_a_seat_put_right_by_its_letter() -> None:
    first = ask([user("Checked in for my red-eye to Lisbon, I'm in seat 31C.")])
    out = ask([user("wait, I misread the boarding pass, it's actually 31A. so window after all")],
              previous=first)
    assert "31C" not in out and "31A" in out, out


def test_a_value_changed_twice_across_folds_keeps_only_the_last() -> None:
    first = ask([user("今年开始存钱，目前攒了2.3万，想年底攒到6万，每个月得存多少？")],
                language="zh")
    second = ask([user("发了季度奖，存款到3.6万了")], previous=first, language="zh")
    out = ask([user("现在是4.2万，但下个月要交孩子学费。")], previous=second, language="zh")
    assert "3.6万" not in out and "4.2万" in out, out


@pytest.mark.parametrize(("old", "new", "gone", "kept"), [
    ("医生给我开了优甲乐，让我每天早上空腹吃两片。",
     "今天复查甲功，指标降下来了，医生让我改成每天一片。", "两片", "一片"),
    ("婚宴在酒店订了18桌。", "亲戚名单最后核完了，定下来是22桌，酒店说可以按实际开的桌数结算。",
     "18桌", "22桌"),
    ("孩子放学后的托管班一个月3800。",
     "唉，托管班又涨价了，现在一个月4500了，我在想要不要让我妈过来帮忙接孩子。", "3800", "4500"),
])
def test_a_count_or_amount_that_now_holds_replaces_the_old(old: str, new: str, gone: str,
                                                           kept: str) -> None:
    _assert_replaced(old, new, gone, kept)


@pytest.mark.parametrize(("said", "kept"), [
    ("钢琴老师说她那边调课了，以后改到周六15:20上，那上午空出来了，可以给孩子报个游泳吗？",
     "15:20"),
    ("之前那位阿姨家里有事回老家了，中介新介绍了一位蒋阿姨，今天第一天上工，要交代哪些事？",
     "蒋阿姨"),
])
def test_what_is_told_before_a_chinese_question_stays(said: str, kept: str) -> None:
    out = ask([user(said), assistant("好的。")], language="zh")
    assert kept in out, out


@pytest.mark.parametrize(("old", "new", "gone"), [
    ("我开的是卡罗拉双擎，快到6万公里了。", "车已经换了，现在开比亚迪海豹，纯电的。", "卡罗拉"),
    ("我用的是中国移动58元套餐。", "已经携号转网到联通了，办了个39元的套餐，有100G通用流量。",
     "中国移动"),
    ("我住回龙观，每天坐13号线到西二旗上班。", "上周刚搬到望京，离地铁站走路十分钟。", "回龙观"),
])
def test_what_the_user_uses_or_where_they_live_now_replaces_the_old(old: str, new: str,
                                                                    gone: str) -> None:
    first = ask([user(old)], language="zh")
    out = ask([user(new), assistant("好的。")], previous=first, language="zh")
    assert gone not in out, out


def test_a_balance_reached_replaces_the_last_one_not_the_goal() -> None:
    first = ask([user("Emergency fund is at $5,150. Target is three months of expenses, "
                      "about $9,000.")])
    out = ask([user("Crossed $6,020 today. Should I move it to a high-yield account?")],
              previous=first)
    assert "5,150" not in out and "$9,000" in out and "6,020" in out, out


def test_a_new_passphrase_replaces_the_old() -> None:
    first = ask([user("Making a card for guests with our wifi info. Network is OakHollow, "
                      "password maple-otter-42.")])
    out = ask([user("The ISP tech reset the router so I set a new password: cedar-heron-77.")],
              previous=first)
    assert "maple-otter-42" not in out and "cedar-heron-77" in out, out


def test_a_value_told_before_an_english_question_stays() -> None:
    out = ask([user("Had my follow-up, the nurse said today's reading was 129/84, so I guess "
                    "the amlodipine is working?"),
               assistant("That's a real improvement; keep taking it as prescribed.")])
    assert "129/84" in out, out


def test_a_tool_report_of_a_change_puts_its_time_into_what_named_the_object() -> None:
    book = {"id": "c1", "type": "function", "function": {
        "name": "book_table", "arguments": '{"restaurant": "Osteria Brava", "time": "19:15"}'}}
    first = ask([user("Book Osteria Brava for Saturday, 4 people, 7:15pm."),
                 {"role": "assistant", "content": "", "tool_calls": [book]},
                 {"role": "tool", "tool_call_id": "c1",
                  "content": "Reservation confirmed: Osteria Brava, Sat, party of 4, 7:15 PM. "
                             "Ref OB-3390."},
                 assistant("You're booked at Osteria Brava on Saturday at 7:15 for four, "
                           "ref OB-3390.")])
    move = {"id": "c2", "type": "function", "function": {
        "name": "modify_reservation", "arguments": '{"ref": "OB-3390", "time": "20:30"}'}}
    out = ask([user("our babysitter can't get there until later, can you push it to 8:30?"),
               {"role": "assistant", "content": "", "tool_calls": [move]},
               {"role": "tool", "tool_call_id": "c2",
                "content": "Reservation OB-3390 updated: Sat, party of 4, 8:30 PM."},
               assistant("Done, Saturday at 8:30 now, same reference number.")], previous=first)
    assert "7:15" not in out and "8:30" in out, out


@pytest.mark.parametrize(("old", "new", "gone", "kept"), [
    ("I'm at 183.4 lb this morning and the goal is 170 by August.",
     "Weigh-in this morning ended up at 176.8, more than I expected honestly.", "183.4", "176.8"),
    ("开始减肥了，今天早上称了一下71.6公斤，身高172，目标先减到68。", "坚持一个月了，今天69.8",
     "71.6", "69.8"),
])
def test_todays_reading_replaces_the_last_one(old: str, new: str, gone: str, kept: str) -> None:
    _assert_replaced(old, new, gone, kept)


@pytest.mark.parametrize(("old", "new", "gone", "kept"), [
    ("My flight to Denver is UA 1187 on Friday.",
     "They put me on UA 1423 instead after the cancellation.", "1187", "1423"),
    ("I'm paying $89 a month for internet with Comcast.",
     "Negotiated the internet bill down to $65 a month.", "$89", "$65"),
    ("My daughter's soccer practice is Tuesdays at 5.",
     "Soccer practice is Thursdays at 5 now, the coach changed it.", "Tuesdays", "Thursdays"),
    ("The contractor quoted $12,400 for the deck.",
     "Contractor revised the deck quote to $13,900 after seeing the slope.", "12,400", "13,900"),
    ("Our database is Postgres 13.", "We upgraded the database to Postgres 16 last weekend.",
     "Postgres 13", "Postgres 16"),
    ("We budgeted $2,500 for the trip to Portugal.",
     "We're bumping the Portugal budget to $3,100 since flights went up.", "2,500", "3,100"),
    ("我牙医预约在3月4号上午10点。", "诊所打电话说改到3月6号了，时间不变。", "3月4号", "3月6号"),
])
def test_more_ways_a_value_changes(old: str, new: str, gone: str, kept: str) -> None:
    _assert_replaced(old, new, gone, kept)


@pytest.mark.parametrize(("old", "new", "gone", "kept"), [
    ("团建地点定在杭州。", "团建地点改成苏州了。", "杭州", "苏州"),
    ("周六大学室友聚餐定在海底捞，六个人，要提前排号吗？",
     "然后周六聚餐改在外婆家了，因为有个同学不能吃辣。", "海底捞", "外婆家"),
    ("我的车险在平安，一年3800。", "今年车险换到了太平洋，一年3200。", "平安", "太平洋"),
    # What moved unnamed, the place said to hold from now on.
    ("孩子足球训练在东区球场，每周六上午。", "训练场地换了，以后去西区体育馆", "东区球场",
     "西区体育馆"),
    ("我们周会在五楼大会议室开", "周会以后改去三楼小会议室开了", "五楼大会议室", "三楼小会议室"),
    # Moved ("挪到", "搬到", "移到") to another place.
    ("女儿舞蹈训练在青少年宫，每周三下午", "舞蹈那边发通知了，训练挪到市文化馆，老地方漏水",
     "青少年宫", "市文化馆"),
    ("公司年会定在希尔顿酒店", "年会移到万豪了，那天满了", "希尔顿", "万豪"),
])
def test_a_chinese_thing_moved_to_another_named_place_or_maker(old: str, new: str, gone: str,
                                                               kept: str) -> None:
    _assert_replaced(old, new, gone, kept)


@pytest.mark.parametrize(("old", "new", "gone", "kept"), [
    # The old day said not to hold any more names what changes.
    ("Mom's cardiology appointment is Thursday at 2:30 with Dr. Feld.",
     "Her cardiology thing isn't Thursday anymore, it's Friday same time.", "Thursday at",
     "Friday at 2:30"),
    ("我妈的复查约在下礼拜三上午", "我妈复查不是礼拜三了，改礼拜五", "下礼拜三", "下礼拜五"),
    # A value reached, said in words.
    ("The landlord wants $2,400 for the shop lease renewal.",
     "Landlord says the renewal goes to twenty-six hundred. ugh", "2,400", "2,600"),
    # From a time on: "下季度起", "以后".
    ("房租现在每月八千五", "房东说下季度起每月九千二", "八千五", "九千二"),
])
def test_a_value_denied_reached_or_holding_from_a_time_on(old: str, new: str, gone: str,
                                                          kept: str) -> None:
    _assert_replaced(old, new, gone, kept)


@pytest.mark.parametrize(("parts", "gone", "kept"), [
    # A name of several words for the one said not to hold any more.
    (["ok so wedding stuff: we booked the Grange for June 14, budget is around $32,000, and "
      "we're thinking 120 guests but my mom keeps adding cousins lol",
      "so the venue's not the Grange anymore, it's Holloway Barn."],
     "booked the Grange", "booked the Holloway Barn for June 14, budget is around $32,000"),
    # The thing counted named, a near number, no word of change but "now".
    (["ok so wedding stuff: we booked the Grange for June 14, budget is around $32,000, and "
      "we're thinking 120 guests but my mom keeps adding cousins lol",
      "guest list update, we're at 134 now. mom found more cousins"],
     "120 guests", "thinking 134 guests"),
    # Taken back to what it was.
    (["The movers are coming at 3pm on Saturday.", "movers asked to come at 5pm instead",
      "nvm, back to the original 3pm, they sorted out their other job"], "5pm", "3pm on Saturday"),
    # A day of the week for a date, in a long message with no stops; the rest of it kept.
    (["那个我们搬家的事就是定在月底30号然后搬家公司是蚂蚁搬家大概报价一千八然后新房子在望京那边",
      "搬家公司那边说30号排不开 改到下礼拜三了"], "定在月底30号",
     "礼拜三然后搬家公司是蚂蚁搬家大概报价一千八"),
    # An hour in Chinese numerals, its part of the day with it; taken back to the original.
    (["面试时间是下礼拜三下午两点半", "HR那边说面试提前到上午十点了"], "下午十点", "上午十点"),
    (["面试时间是下礼拜三下午两点半", "HR那边说面试提前到上午十点了", "又改回原来的两点半了"],
     "十点", "下礼拜三下午两点半"),
    (["The API gateway timeout is 30s right now.", "timeout → 45s, upstream is slow"], "30s",
     "45s"),
    (["Release v2.4 is planned for the 18th.", "Mira: 'release slips to the 22nd, QA found it'"],
     "18th", "planned for the 22nd"),
    # What the one who decides says to do, and a day moved with its part of the day kept.
    (["我爸的降压药每天吃一片 氨氯地平", "医生让我爸降压药改成每天两片了"], "每天吃一片",
     "每天吃两片"),
    (["下周二下午三点跟供应商开会", "供应商那个会挪到周四了 时间不变"], "周二", "下周四下午三点"),
    # Someone on leave, someone else doing it from now on.
    (["周会主持人是小张", "小张休产假了 周会以后小李主持"], "主持人是小张", "小李"),
])
def test_changes_said_in_passing(parts: list[str], gone: str, kept: str) -> None:
    lang = "en" if parts[0].isascii() else "zh"
    out = ""
    for text in parts:
        out = ask([user(text), assistant("OK." if lang == "en" else "好的。")], previous=out,
                  language=lang)
    assert gone not in out and kept in out, out


def test_a_tool_reporting_old_to_new_in_text_updates_what_was_said_and_looked_up() -> None:
    first = ask([user("what's the request timeout on the payments service?"),
                 *tool_turn("c1", "read_config", '{"service": "payments"}',
                             "timeout_ms: 30000\nretries: 3\npool_size: 20"),
                 assistant("Payments has timeout_ms 30000, 3 retries, pool 20.")])
    out = ask([user("the upstream is slow, raise it"),
               *tool_turn("c2", "set_config", '{"service": "payments", "timeout_ms": 45000}',
                           "updated timeout_ms: 30000 -> 45000"),
               assistant("Done.")], previous=first)
    lines = [line for line in out.splitlines() if "30000" in line]
    assert lines and all("30000 -> 45000" in line for line in lines), out


@pytest.mark.parametrize("content", ["status: open -> closed", "hours 9-5",
                                     "renamed src/a.py -> src/b.py"])
def test_text_that_is_no_old_to_new_value_pair(content: str) -> None:
    from chatfold.summarizers.extractive.changes import tool_pairs

    assert tool_pairs(content) == []


def test_a_number_said_anew_of_the_very_same_thing_replaces_the_old() -> None:
    # No word of change, but all the newer statement names the older one named.
    out = ask([user("Our flight lands at 6:40 on Friday.")])
    out = ask([user("Our flight lands at 9:15 on Friday."), assistant("OK.")], previous=out)
    assert "6:40" not in out and "9:15" in out, out


@pytest.mark.parametrize(("first", "second", "gone", "kept"), [
    ("物业费一个月380，电梯老坏", "物业费一个月420 真离谱", "380", "物业费一个月420"),
    ("小区停车位一个月350，还老是被占", "小区停车位一个月400 服了", "350", "一个月400"),
])
def test_a_chinese_number_said_anew_of_the_very_same_thing(first: str, second: str, gone: str,
                                                           kept: str) -> None:
    # In Chinese, the one clause giving the value names two words or more of the older one,
    # and the value is of the same measure.
    out = ask([user(first)], language="zh")
    out = ask([user(second), assistant("好的。")], previous=out, language="zh")
    assert gone not in out and kept in out, out


@pytest.mark.parametrize(("first", "second"), [
    ("我家阿姨一个月4500", "我家阿姨今天来了4个小时"),  # what was done
    ("周二下午三点去4S店保养", "周二下午三点的会别忘了"),  # another thing
    ("我今天跑了5公里，腿好酸", "今天跑了8公里"),  # what was done today, each
])
def test_a_chinese_number_said_again_of_something_else_leaves_the_old(first: str,
                                                                     second: str) -> None:
    out = ask([user(first)], language="zh")
    out = ask([user(second), assistant("好的。")], previous=out, language="zh")
    assert first in out, out


def test_a_count_after_a_weekday_is_no_number_of_the_weekday() -> None:
    # "周六两个人" is Saturday and two people: a dose raised to "14个单位" is neither.
    out = ask([user("排班帮我理一下，小刘每周三休息，周六两个人必须都在")], language="zh")
    out = ask([user("医生说胰岛素加到14个单位，先打两周看看"), assistant("好的。")],
              previous=out, language="zh")
    assert "周六两个人必须都在" in out, out


def test_that_someone_says_a_number_names_no_thing() -> None:
    # "now he says fifteen hundred" (the oven's repair) is no rent that "Mr. Okafor says" goes
    # to $3,400: "says" is no word of what either is about.
    out = ask([user("ugh. Mr. Okafor stopped by this morning, says rent goes to $3,400 when the "
                    "new lease year starts in march.")])
    out = ask([user("oven guy opened it up, now he says fifteen hundred bc the thermostat's "
                    "shot too."), assistant("Fair.")], previous=out)
    assert "rent goes to $3,400" in out, out


@pytest.mark.parametrize(("first", "second", "kept"), [
    # A share is no count: the fee stays 20%, whatever the headcount.
    ("The caterer charges per head plus a 20% service fee.",
     "Final headcount for the caterer is 134.", "a 20% service fee"),
    ("The tip for the caterer is 18%.", "Make the tip for the caterer 20%.", "20%"),
])
def test_a_share_changes_only_a_share(first: str, second: str, kept: str) -> None:
    out = ask([user(first)])
    out = ask([user(second), assistant("OK.")], previous=out)
    assert kept in out and "134%" not in out, out


def test_the_assistants_echo_of_a_value_taken_out_says_the_new_one() -> None:
    # The user's statement is taken out, not rewritten; the assistant's words about the old
    # value, carried beside it, say the new one.
    out = ask([user("Our HOA fee is $2,240 a quarter and honestly the pool is closed half the "
                    "year, is that a lot?"),
               assistant("$2,240 a quarter is on the high side for a complex with a seasonal "
                         "pool.")])
    out = ask([user("HOA fee goes up to $2,480 a quarter from April, great"),
               assistant("That's a big jump.")], previous=out)
    assert "2,240" not in out and "2,480" in out, out


@pytest.mark.parametrize(("first", "second"), [
    ("I ran 5 km this morning.", "I ran 8 km today, legs are dead"),  # an event, each
    ("My daughter is 7 and loves horses.", "My son is 4 and loves trucks."),  # another one
    ("Show me hotels in Lisbon for 2026-03-10.", "Show me hotels in Porto for 2026-05-12."),
])
def test_a_number_said_again_of_something_else_leaves_the_old(first: str, second: str) -> None:
    out = ask([user(first)])
    out = ask([user(second), assistant("OK.")], previous=out)
    assert first.rstrip(".") in out and second.split(",")[0].rstrip(".") in out, out


def test_a_little_later_is_no_hour() -> None:
    # "晚一点的" is "a little later", not one o'clock: the hour asked for is not rewritten.
    out = ask([user("帮我订一张3月15号上海虹桥到南京南的高铁，早上8点左右的。")], language="zh")
    out = ask([user("那天早上临时有个电话会，帮我改签晚一点的，十点前后吧"), assistant("好的。")],
              previous=out, language="zh")
    assert "一点左右" not in out, out


def test_a_span_a_price_is_per_is_no_unit_they_share() -> None:
    # "1450一个月" and "660一天" share no unit ("一" opens the span): a rent from next term on
    # leaves a hotel's nightly price alone.
    out = ask([user("床很硬，会响，没有空调。660一天不值得啊！")], language="zh")
    out = ask([user("午托那边发通知了 下学期起1450一个月 唉"), assistant("好的。")], previous=out,
              language="zh")
    assert "660一天" in out and "1450一天" not in out, out


@pytest.mark.parametrize(("old", "new", "line"), [
    ("房租每月八千五，押一付三，合同两年", "房东说下季度起每月九千二",
     "房租每月九千二，押一付三，合同两年"),
    ("婚宴定了十二桌，每桌三千八", "最后定的是十五桌", "婚宴定了十五桌，每桌三千八"),
])
def test_a_chinese_amount_is_rewritten_as_it_was_said(old: str, new: str, line: str) -> None:
    # The old statement keeps its own words ("押一付三") and takes the new amount as the user
    # wrote it ("九千二", not "9200"): what is looked for later is what was said.
    out = ask([user(old)], language="zh")
    out = ask([user(new), assistant("好的。")], previous=out, language="zh")
    assert line in out, out


def test_a_chinese_place_from_now_on_leaves_another_things_place() -> None:
    out = ask([user("我每周三在星光健身房练腿")], language="zh")
    out = ask([user("下周开始我想学游泳，以后去市游泳馆"), assistant("好的。")], previous=out,
              language="zh")
    assert "星光健身房" in out and "市游泳馆" in out, out


@pytest.mark.parametrize(("old", "new"), [
    ("游泳课是每周一三五晚上七点，在奥体中心", "游泳课改到每周二四了"),
    ("钢琴课是周二、四下午", "钢琴课改到周一三五了"),
])
def test_a_run_of_chinese_weekdays_is_one_value(old: str, new: str) -> None:
    # "周一三五" is Monday, Wednesday and Friday, not a Monday and two stray numbers: the new days
    # replace the whole run, never one day of it ("每周二三五" was written).
    out = ask([user(old)], language="zh")
    out = ask([user(new), assistant("好的。")], previous=out, language="zh")
    days = new[new.index("周"):].rstrip("了")
    assert all(line.count("周") == 1 and days in line for line in out.splitlines()
               if "课" in line), out


@pytest.mark.parametrize(("first", "then", "gone", "kept"), [
    # A later call changes a field of an object the first call's result named in its text.
    ([user("Order the Kelty Cosmic sleeping bag in Indigo, regular length."),
      *tool_turn("c1", "place_order", '{"sku": "KC-2207", "color": "Indigo", "length": "R"}',
                  "Order #Q-77120 confirmed: Cosmic 20, Indigo, regular. Ships Monday."),
      assistant("Ordered: #Q-77120, Indigo, regular length, ships Monday.")],
     [user("actually make it the Rust color instead, before it ships"),
      *tool_turn("c2", "modify_order", '{"order_id": "Q-77120", "color": "Rust"}',
                  "Order #Q-77120 updated: color Rust."),
      assistant("Changed to Rust, still shipping Monday.")], "Indigo", "Rust"),
    ([user("帮我下单那台戴森吸尘器，V8那款。"),
      *tool_turn("c1", "place_order", '{"item": "戴森吸尘器", "model": "V8X22"}',
                  "下单成功，订单号 TB55018263，戴森吸尘器 V8X22，预计周二送达"),
      assistant("已下单，V8X22，订单号TB55018263，预计周二送到。")],
     [user("家里地毯多，还是换成V12Y40吧"),
      *tool_turn("c2", "modify_order", '{"order_id": "TB55018263", "model": "V12Y40"}',
                  "订单TB55018263已修改：戴森吸尘器 V12Y40"),
      assistant("改好了，换成V12Y40。")], "V8X22", "V12Y40"),
    # A read of a file the agent later wrote says what no longer holds.
    ([user("Which Python does the Dockerfile use?"),
      *tool_turn("c1", "read_file", '{"path": "docker/base.Dockerfile"}',
                  "FROM python:3.10.14-slim"),
      assistant("It builds on python 3.10.14-slim.")],
     [user("bump the Dockerfile to 3.12"),
      *tool_turn("c2", "write_file",
                  '{"path": "docker/base.Dockerfile", "content": "FROM python:3.12.7-slim"}',
                  "ok"),
      assistant("Done, the image now builds on python:3.12.7-slim.")],
     "FROM python:3.10", "3.12.7"),
])
def test_a_later_tool_call_changes_what_an_earlier_one_said(
        first: list[dict[str, Any]], then: list[dict[str, Any]], gone: str, kept: str) -> None:
    lang = "zh" if not first[0]["content"].isascii() else "en"
    out = ask(then, previous=ask(first, language=lang), language=lang)
    assert gone not in out and kept in out, out


@pytest.mark.parametrize(("old", "new", "gone", "kept"), [
    # People counted are not whose the count is.
    ("We're doing Leo's 9th birthday at the bowling alley, 12 kids so far.",
     "Two more said yes, so it's 14 kids now.", "12 kids", "14 kids"),
    # The count as it stands at the end.
    ("We're planning around 80 guests for the retirement party.",
     "Final headcount came to 92.", "80", "92"),
    # A change said as what is being done, by another name of the same thing.
    ("We set a budget of $9,000 for the bathroom.",
     "Talked to my husband, we're raising the cap to $11,500 so we can redo the tiles too.",
     "9,000", "11,500"),
    ("My car insurance is $187 a month.", "My insurer's bumping it to $212 in January.",
     "$187", "$212"),
    ("My manager is Dana Whitfield.", "Reorg last week: I now report to Marcus Oyelaran.",
     "Whitfield", "Oyelaran"),
])
def test_a_change_said_by_another_name_or_as_it_happens(old: str, new: str, gone: str,
                                                        kept: str) -> None:
    _assert_replaced(old, new, gone, kept)


@pytest.mark.parametrize(("lang", "said", "task"), [
    ("en", "I have to renew the car registration before the 15th, can you keep that on my list?",
     "registration"),
    ("zh", "护照明年三月到期，打算下个月去换，先帮我记上", "护照"),
])
def test_a_task_put_on_the_list_is_open(lang: str, said: str, task: str) -> None:
    out = ask([user(said), assistant("Added." if lang == "en" else "记上了。")], language=lang)
    assert any(task in t for t in section(out, "Open tasks" if lang == "en" else "待办")), out


@pytest.mark.parametrize(("lang", "said", "fact"), [
    ("en", "I'm type 1 diabetic, does that mean I need a different travel insurance?",
     "I'm type 1 diabetic."),
    ("zh", "国庆回江西赣州老家，有啥特产适合带给朋友？", "国庆回江西赣州老家。"),
])
def test_what_the_user_says_of_themselves_before_asking_stays(lang: str, said: str,
                                                              fact: str) -> None:
    reply = "It may, check the pre-existing conditions section." if lang == "en" \
        else "脐橙和板鸭都不错。"
    out = ask([user(said), assistant(reply)], language=lang)
    assert fact in out, out


def test_a_flight_pushed_back_departs_at_its_new_time() -> None:
    _assert_replaced("My flight home is DL 2044 on Sunday, it leaves at 6:10 pm.",
                     "Got a text, it's been pushed back: DL 2044 now departs at 8:35 pm.",
                     "6:10", "8:35")


@pytest.mark.parametrize(("old", "new", "gone", "kept"), [
    # A day with its part of the day is one value; a change naming no one is of the thing
    # said before by all it names (whoever else the older statement names).
    ("我家老二的书法课在周三下午，上完课还要去奶奶家吃饭。", "培训班通知了，书法以后改到周五晚上上",
     "下午", "周五晚上"),
    # A bare new address of the same kind.
    ("我们预发环境的Redis在172.16.4.21上，帮我写个连接命令",
     "预发Redis迁移了，新的是172.16.9.8，端口没变", "172.16.4.21", "172.16.9.8"),
])
def test_a_day_part_or_an_address_moved(old: str, new: str, gone: str, kept: str) -> None:
    _assert_replaced(old, new, gone, kept)


@pytest.mark.parametrize(("old", "new", "gone", "kept"), [
    # An amount said short is the amount said in full, and is written as the older one was.
    ("The offer from Brightline is $88,000 base.", "They bumped the offer to 94k base after I "
     "pushed back.", "88,000", "$94,000 base"),
])
def test_an_amount_in_thousands_said_short(old: str, new: str, gone: str, kept: str) -> None:
    _assert_replaced(old, new, gone, kept)


@pytest.mark.parametrize(("first", "later", "task"), [
    # The user's report with where it was done.
    ([user("Need to get the tire rotation done on the Civic, it's 2,000 miles overdue."),
      assistant("Worth doing soon; uneven wear shortens tire life.")],
     [user("Tire rotation done at Midas on Fifth. They said the tread looks fine."),
      assistant("Good call getting it done.")], "rotation"),
    # The assistant's bare report, then what it did, of the user's own errand.
    ([user("Tonight I need to email the landlord about the broken dryer in unit 4B."),
      assistant("Okay, tell me when and I'll help you write it.")],
     [user("Go ahead, send the landlord an email about the dryer."),
      assistant("Sent. I told the landlord the dryer in unit 4B stopped heating and asked for a "
                "repair this week.")], "dryer"),
])
def test_an_errand_reported_done_in_more_ways_closes(first: list[dict[str, Any]],
                                                     later: list[dict[str, Any]],
                                                     task: str) -> None:
    before = ask(first)
    assert task in _open(before, "en"), before
    out = ask(later, previous=before)
    assert task not in _open(out, "en"), out


@pytest.mark.parametrize(("said", "reply", "task"), [
    ("Don't let me forget to renew harborline.dev, it expires in March.",
     "I'll keep it in mind. You could also turn on auto-renew at your registrar so "
     "harborline.dev never lapses.", "harborline"),
    ("Can you later help me write a thank-you note to Mr. Okoro? He fixed our fence for free.",
     "Of course. Whenever you're ready, we'll write something warm for Mr. Okoro.", "Okoro"),
    ("On my list for Saturday: reseal the deck before the rain.",
     "You'll want a dry day and a deck cleaner first.", "reseal"),
    ("After the deploy finishes tonight I need to delete the old staging_2021 bucket.",
     "Makes sense, check nothing still reads from it first.", "staging_2021"),
])
def test_a_task_for_later_stays_open(said: str, reply: str, task: str) -> None:
    out = ask([user(said), assistant(reply)])
    assert task in _open(out, "en"), out


@pytest.mark.parametrize(("said", "reply", "task"), [
    ("你回头帮我把部门聚餐的报名表整理一下，名单我晚点发你", "没问题，你发过来我就整理。",
     "报名表"),
    ("待办加一条：周日给鱼缸换水，水已经有点浑了", "加上了。换水别一次换太多，三分之一就够。",
     "鱼缸"),
    ("等这周上线完了我要把release/v3分支删掉，现在先别动", "明白，上线稳定后再删。", "release/v3"),
    ("Add it to my list: renew the fishing license before April.",
     "Added to your list. It takes five minutes online.", "fishing license"),
])
def test_a_task_put_for_later_stays_open_in_both_languages(said: str, reply: str,
                                                           task: str) -> None:
    lang = "en" if said.isascii() else "zh"
    out = ask([user(said), assistant(reply)], language=lang)
    assert task in _open(out, lang), out


def test_a_chinese_role_filled_by_someone_else() -> None:
    _assert_replaced("伴郎定了我发小阿杰，帮我想想送伴郎什么礼物", "伴郎换成我同事老周了",
                     "阿杰", "老周")


def test_options_the_user_weighs_are_picked_from_folds_later() -> None:
    first = ask([user("For the team offsite I'm torn between a cooking class at Sur La Table, "
                      "an escape room downtown, or kayaking on the river.")])
    middle = ask([user("I watched a film with my sister yesterday evening.")], previous=first)
    out = ask([user("Decided, we're doing the kayaking.")], previous=middle)
    assert any("kayaking on the river" in d for d in section(out, "Decisions")), out


def test_a_name_after_a_title_is_the_value_that_changes() -> None:
    _assert_replaced("Our pediatrician is Dr. Haverford at Lakeside Clinic.",
                     "We switched, our pediatrician is Dr. Quintero now.", "Haverford", "Quintero")


_CHATTER = "Hey Dave, I invited my old high school buddy to see me perform in Boston!"


@pytest.mark.parametrize("said", [
    # A value said to hold now.
    "Amtrak emailed, the train's leaving at 6:48 now.",
    "fund's at 5,150 now",
    "Traded in the old SUV this weekend, we're a Subaru Outback family now.",
    # A switch said without its subject, as people type.
    "Ported my number over to US Mobile last week, their hotspot allowance is way better.",
    # A blood type.
    "I'm O-negative and the blood bank keeps calling me.",
])
def test_what_holds_now_or_is_asked_to_be_remembered_outranks_chatter(said: str) -> None:
    from chatfold.summarizers.extractive.scoring import _score_all

    scores = _score_all([said, _CHATTER], ["user", "user"])
    assert scores[0].score > scores[1].score, scores


@pytest.mark.parametrize("said", [
    "Remind me to book a piano tuner before the spring recital, the middle C is off.",
    "Put this on my to-do list: repot the fig tree into a bigger pot once it warms up.",
])
def test_what_the_user_asks_to_be_remembered_outranks_an_outing(said: str) -> None:
    # Asked, in so many words, to be remembered: worth what "my X is Y" is, more than a dated
    # outing with a name.
    from chatfold.summarizers.extractive.scoring import _score_all

    outing = "Last Friday I went to the Pride parade in Seattle with Mel."
    scores = _score_all([said, outing], ["user", "user"])
    assert scores[0].score > scores[1].score, scores


def test_a_chinese_ask_to_put_it_on_the_list_is_an_open_task() -> None:
    out = ask([user("阳台那几盆多肉根都长出来了，等天凉快点要给它们换盆，帮我加到待办里"),
               assistant("已加到待办：天凉快后给多肉换盆。")], language="zh")
    assert "换盆" in _open(out, "zh"), out


@pytest.mark.parametrize(("said", "reply"), [
    # "remind me of/why" is no reminder
    ("They motivate me and remind me why I'm doing this.", "That's lovely."),
])
def test_what_reminds_the_user_of_something_is_no_task(said: str, reply: str) -> None:
    out = ask([user(said), assistant(reply)])
    assert not _open(out, "en"), out


@pytest.mark.parametrize(("first", "then", "kept", "gone"), [
    # A day of the week is no new name for whom the user greeted.
    ("Hey Dave, not everything has been going smoothly. I had an incident last week where my "
     "place got flooded.", "They were short-staffed so I've switched my food bank shift, I'm "
     "now going weekly, on Fridays.", "Dave", "Hey Fridays"),
    # The next turn's number is no revision of one far from it in another unit.
    ("Moreover, Max is already old, he is 8 years old.",
     "Last weigh-in of the cut: ended up at 176.8.", "8 years old", "176.8 years"),
])
def test_a_value_is_not_written_where_it_does_not_belong(first: str, then: str, kept: str,
                                                        gone: str) -> None:
    out = ask([user(first), user(then), assistant("OK.")])
    assert kept in out and gone not in out, out


@pytest.mark.parametrize(("old", "new", "gone", "kept"), [
    # A day for another, of a thing named by two words in common.
    ("I volunteer at the Harbor Street food bank every other Tuesday.",
     "They were short-staffed so I've switched my food bank shift, I'm now going weekly, on "
     "Fridays.", "Tuesday", "Fridays"),
    # "pushing … back", "to be safe" name nothing the plan is about.
    ("I'm planning to plant out my tomato seedlings on May 12.",
     "Ugh, frost warning for next week. I'm pushing the tomatoes back to May 19 to be safe.",
     "May 12", "May 19"),
])
def test_more_changes_replace_what_they_change(old: str, new: str, gone: str,
                                               kept: str) -> None:
    _assert_replaced(old, new, gone, kept)


@pytest.mark.parametrize(("first", "later", "task", "lang"), [
    ([user("Don't let me forget, I have to move the electricity account to the new address "
           "before the 17th."),
      assistant("Noted: transfer the electricity account to the new address before the 17th.")],
     [user("Northwind Power confirmed the transfer, the electricity is in my name at the new "
           "place from the 16th."),
      assistant("Perfect, that's sorted.")], "electricity", "en"),
    ([user("体检报告说下周三出，到时候我得去医院拿一下"),
      assistant("好的，下周三去医院领体检报告。")],
     [user("体检报告拿到了，别的都正常，就是写了个甲状腺结节2类"),
      assistant("甲状腺结节2类一般是良性的。")], "体检报告", "zh"),
])
def test_an_errand_done_by_whoever_was_to_do_it_closes(first: list[dict[str, Any]],
                                                       later: list[dict[str, Any]],
                                                       task: str, lang: str) -> None:
    before = ask(first, language=lang)
    assert task in _open(before, lang), before
    out = ask(later, previous=before, language=lang)
    assert task not in _open(out, lang), out


def _lookup(cid: str, sku: str) -> dict[str, Any]:
    fn = {"name": "inventory_lookup", "arguments": f'{{"sku": "{sku}"}}'}
    return assistant("", tool_calls=[{"id": cid, "type": "function", "function": fn}])


def test_the_same_look_up_a_fold_later_replaces_what_it_found() -> None:
    first = ask([user("How many Cedar & Smoke candles do we have in the back?"),
                 _lookup("c1", "CND-CEDAR-SMOKE"),
                 {"role": "tool", "tool_call_id": "c1",
                  "content": "CND-CEDAR-SMOKE (Cedar & Smoke 8oz): 48 in stock, back shelf B"}])
    assert "48 in stock" in first, first
    out = ask([user("The craft fair went crazy this weekend. Can you check Cedar & Smoke again?"),
               _lookup("c2", "CND-CEDAR-SMOKE"),
               {"role": "tool", "tool_call_id": "c2",
                "content": "CND-CEDAR-SMOKE (Cedar & Smoke 8oz): 7 in stock, back shelf B"}],
              previous=first)
    assert "7 in stock" in out and "48 in stock" not in out, out


@pytest.mark.parametrize(("old", "new", "gone", "kept"), [
    ("My water-damage claim was assigned to an adjuster called Tom Halvorsen.",
     "Quick update on the claim: Halvorsen went on leave, so a Priya Dasgupta is handling my "
     "file now.", "Halvorsen", "Priya Dasgupta"),
    ("我报名了社区垃圾分类的志愿者，负责人是王姐。",
     "王姐调去街道了，现在志愿者这块是刘老师在管，排班都找他", "王姐", "刘老师"),
    ("装修找的老周师傅来贴厨房瓷砖，下周一进场。",
     "老周那边临时接了个大活来不了，装修公司给换了小吴师傅", "老周", "小吴"),
    # the one who left named by their role only
    ("我在健身房办了私教课，教练是王教练，每周二四练。", "原来那个教练离职了，现在带我的是李佳琪",
     "王教练", "李佳琪"),
    ("家里请了个保姆，李阿姨，每天来做饭。",
     "之前那位阿姨家里有事回老家了，中介新介绍了一位蒋阿姨，今天第一天上工。", "李阿姨", "蒋阿姨"),
])
def test_someone_who_took_over_from_someone_replaces_them(old: str, new: str, gone: str,
                                                          kept: str) -> None:
    _assert_replaced(old, new, gone, kept)


def test_someone_leaving_who_was_never_named_replaces_no_one() -> None:
    out = ask([user("My sister lives in Tucson with her husband Mark."),
               user("Dana left, so a Priya Okafor is handling my claim now."),
               assistant("OK.")])
    assert "Mark" in out and "Priya Okafor" in out, out


def test_a_look_up_made_again_puts_right_what_was_said_of_its_result() -> None:
    def lookup(cid: str) -> dict[str, Any]:
        fn = {"name": "tax_settlement_estimate", "arguments": '{"year": 2023}'}
        return assistant("", tool_calls=[{"id": cid, "type": "function", "function": fn}])

    first = ask([user("帮我算一下个税汇算能退多少"), lookup("t1"),
                 {"role": "tool", "tool_call_id": "t1",
                  "content": "2023年度综合所得汇算：应退税额 1236元（未填报专项附加扣除）"},
                 assistant("预估可以退1236元。不过你还没填专项附加扣除。")], language="zh")
    out = ask([user("我把住房贷款利息和赡养老人都填上了，再算一次"), lookup("t2"),
               {"role": "tool", "tool_call_id": "t2",
                "content": "2023年度综合所得汇算：应退税额 2180元（已填报：住房贷款利息、"
                           "赡养老人）"},
               assistant("填完以后应退税额变成2180元了。")], previous=first, language="zh")
    assert "1236" not in out and "2180" in out, out


def test_an_account_renamed_replaces_its_handle() -> None:
    first = ask([user("My GitHub handle is @quietfern. How do I add one of those profile READMEs?"),
                 assistant("Create a public repository named exactly quietfern and add a "
                           "README.md to it.")])
    out = ask([user("Renamed my account to fernwright. Will old links to my repos still "
                    "redirect?"), assistant("Repo links redirect automatically.")],
              previous=first)
    assert "quietfern" not in out and "@fernwright" in out, out


@pytest.mark.parametrize("said", [
    "Renamed my account to fernwright.",
    "Now that we're settled into the new place on Larchmont Avenue I could also host dessert.",
])
def test_a_rename_or_a_new_home_outranks_chatter(said: str) -> None:
    from chatfold.summarizers.extractive.scoring import _score_all

    scores = _score_all([said, _CHATTER], ["user", "user"])
    assert scores[0].score > scores[1].score, scores


def test_several_standing_facts_take_the_place_of_kept_outings_in_one_fold() -> None:
    outings = ["Last month I visited my mom's house which holds a special place in my heart.",
               "Yesterday my partner and I got back from an awesome trip to Rio de Janeiro.",
               "We visited an animal sanctuary on the road trip with Mark and Josh.",
               "Last Friday I went to the Pride parade in Seattle with Mel.",
               "I went to a support group yesterday and it was so powerful."]
    first = ask([user(o) for o in outings])
    out = ask([user("My blood type is O negative."), user("I'm allergic to penicillin."),
               user("My daughter's name is Ottilie."), assistant("Noted.")],
              previous=first, max_tokens=count(first))
    assert all(k in out for k in ("O negative", "penicillin", "Ottilie")), out


@pytest.mark.parametrize(("said", "kept"), [
    # Where the user is from, said before asking.
    ("我老家郴州的，过年回去想给爸妈带点实用的东西，预算两千左右，有啥推荐吗？", "郴州"),
    # A child by a doubled name, said before asking.
    ("我女儿朵朵下个月上幼儿园小班，怎么帮她度过分离焦虑？", "朵朵"),
    ("我是RH阴性血，下周要做个小手术切个囊肿，需要提前跟医院说什么吗？", "RH阴性"),
])
def test_what_the_user_says_of_themselves_in_chinese_outranks_chatter(said: str,
                                                                      kept: str) -> None:
    chatter = ["今天天气真不错，我们去公园散步了，很开心。",
               "哈哈，那家店的奶茶真的很好喝，下次再去。",
               "周末和朋友看了场电影，挺有意思的。", "最近工作有点累，不过还好。"]
    first = ask([user(c) for c in chatter], language="zh")
    out = ask([user(said), assistant("好的。")], previous=first, language="zh",
              max_tokens=count(first))
    assert kept in out, out


@pytest.mark.parametrize("said", [
    "Change of plans, we're doing Porto instead, flights were way cheaper.",
    "组织架构调整了，现在带我们组的是岑晓梅，从隔壁增长组调过来的。",
    "我们后来转去省人民医院了，现在是欧阳敏医生在看，她建议直接做关节镜。",
])
def test_a_plan_switched_or_who_does_it_now_outranks_chatter(said: str) -> None:
    from chatfold.summarizers.extractive.scoring import _score_all

    chatter = _CHATTER if said.isascii() else "周末和朋友看了场电影，挺有意思的，下次还想去。"
    scores = _score_all([said, chatter], ["user", "user"])
    assert scores[0].score > scores[1].score, scores


def test_a_name_said_to_hold_now_and_more_after_it_outranks_chatter() -> None:
    from chatfold.summarizers.extractive.scoring import _score_all

    said = "the kids outvoted me, she's Pickles now and already answers to it lol."
    scores = _score_all([said, _CHATTER], ["user", "user"])
    assert scores[0].score > scores[1].score, scores


def test_a_third_value_rewrites_the_earlier_change_carried_beside_the_first() -> None:
    summary = ask([user("Emergency fund is at $4,300. Target is three months of expenses, about "
                        "$9,000."), assistant("You need about $4,700 more.")])
    summary = ask([user("payday! fund's at 5,150 now"), assistant("Nice, ahead of schedule.")],
                  previous=summary)
    out = ask([user("Crossed $6,020 today. Should I move it to a high-yield savings account?"),
               assistant("Move it to a high-yield savings account.")], previous=summary)
    assert "4,300" not in out and "5,150" not in out and "6,020" in out, out


def test_a_new_blood_pressure_reading_replaces_the_old() -> None:
    _assert_replaced("My home blood pressure readings this week have been averaging about "
                     "138/91.", "Had my follow-up, the nurse said today's reading was 129/84.",
                     "138/91", "129/84")


def test_a_rate_raised_by_an_amount_to_a_new_one_replaces_it() -> None:
    _assert_replaced("Can you help me word a rate sheet? I charge $85 per hour, with a 2-hour "
                     "minimum.", "I decided to raise it by ten bucks for new clients starting "
                     "next month, so $95 an hour.", "$85", "$95")


def test_a_temperature_changed_replaces_the_old_one() -> None:
    _assert_replaced("酵母菌培养我打算放37℃培养箱里过夜。",
                     "刚被师兄提醒了，老板也说酿酒酵母用30℃，我就改成30℃了", "37℃", "30℃")


# ---------------------------------------------------------------------------------------------
# stop 39: changes said by a place, a firm, an instruction, a count of people; errands that
# point back, are answered by the reply itself, or come through; chatter that is no errand


@pytest.mark.parametrize(("old", "new", "gone", "kept"), [
    # People counted or pointed at ("the other parents", "two more kids") are not whose it is.
    ("I have to order 14 jerseys, when should I ask the other parents for sizes?",
     "Two more kids signed up, so we're at 16 jerseys now.", "14 jerseys", "16 jerseys"),
    # What someone who decides it said to do: "my supervisor said to anneal at 58°C".
    ("I'm running the annealing step at 55°C for 30 seconds.",
     "My supervisor checked the primers and said to anneal at 58°C, same 30 seconds.",
     "55°C", "58°C"),
    # A place for another, of a thing named by two words in common.
    ("I'm planning our knitting circle's monthly swap night at Cedar Point Library.",
     "The library is closing for repairs, so knitting circle is meeting at the Birch Avenue "
     "community hall from now on.", "Cedar Point", "Birch Avenue"),
    # A firm's name holds no kin: "Delgado & Sons" is who does it now.
    ("We hired Summit Roofing to replace the shingles, they start on the 3rd.",
     "Delgado & Sons can do the roof instead, starting the 12th.", "Summit Roofing",
     "Delgado & Sons"),
    # Who teaches it now, said without who left.
    ("女儿的钢琴课一直是钱老师带的。", "琴行通知，下个月开始换邵老师带了。", "钱老师", "邵老师"),
    # A count settled; an amount raised with 提到; a deal struck.
    ("婚宴先订了16桌，每桌4288。", "最后定下来19桌。", "16桌", "19桌"),
    ("我每个月定投800元到中证500指数基金。", "发了奖金，我把定投提到每月1200元了。", "800元",
     "1200元"),
    ("看中了一套一居室，房租4800一个月。", "跟房东谈了半天，最后4500成交。", "4800", "4500"),
])
def test_a_change_said_by_place_firm_instruction_or_settlement_replaces(
        old: str, new: str, gone: str, kept: str) -> None:
    _assert_replaced(old, new, gone, kept)


def test_whose_it_is_counts_no_one_counted_or_pointed_at() -> None:
    from chatfold.summarizers.extractive.changes import _whose

    assert _whose("I booked the bus for the kids.") == frozenset()
    assert _whose("Three more kids joined the team.") == frozenset()
    assert _whose("My two kids start school on Monday.") == {"kid"}
    assert _whose("Kim's kids are 3 and 5.") >= {"kid"}
    assert _whose("My brother's flight lands at 9pm.") == {"brother"}
    assert _whose("Harlow & Sons quoted $4,200.") == frozenset()


def test_a_change_made_to_a_booking_its_result_named_by_code_rewrites_the_old_result() -> None:
    first = ask([user("Book me a 10-foot van for Saturday."),
                 *tool_turn("c1", "book_van", '{"size": "10-foot", "date": "2025-06-07"}',
                             "Reservation VN-40219 confirmed: 10-foot van, Jun 7, 9:00 AM."),
                 assistant("Booked a 10-foot van for Saturday (VN-40219).")])
    out = ask([user("It won't fit the couch, can you switch it to the bigger one?"),
               *tool_turn("c2", "modify_van", '{"reservation": "VN-40219", "size": "15-foot"}',
                           "Reservation VN-40219 updated: 15-foot van, Jun 7, 9:00 AM."),
               assistant("Done, it's a 15-foot van now.")], previous=first)
    assert "10-foot" not in out and "15-foot" in out, out


@pytest.mark.parametrize(("messages", "lang"), [
    # "I got to…" is a chance had, not a duty.
    ([user("Something great happened last Thursday, I got to work with an old friend on a game "
           "jam project!"), assistant("That sounds like a blast!")], "en"),
    # Cheering is no errand.
    ([user("You've been working so hard. And don't forget, you deserve a break too!"),
      assistant("Thanks, that means a lot.")], "en"),
])
def test_chatter_shaped_like_an_errand_opens_no_task(messages: list[dict[str, Any]],
                                                     lang: str) -> None:
    out = ask(messages, language=lang)
    assert _open(out, lang) == "", out


def test_an_ask_to_tell_more_is_no_offer_agreed() -> None:
    out = ask([user("Garlic is my go-to ingredient."),
               assistant("Do you have a favorite dish with it? Would you like to share the "
                         "recipe?"),
               user("Sure! Roasted chicken is one of my favorites, I'll send it later.")])
    assert "agreed" not in out, out


def test_let_me_know_how_it_goes_is_no_ask_taken_on() -> None:
    out = ask([user("Great job, Sam! Let me know how it goes. Small changes add up."),
               assistant("Hey Evan, thanks! Appreciate it. I'll definitely keep you posted.")])
    assert "how it goes" not in out, out


@pytest.mark.parametrize(("said", "lang", "key"), [
    ("The school says I can't chaperone until my TB test results are in. I haven't done it "
     "yet, can you keep it on my to-do list?", "en", "TB test"),
    ("The pool pass renewal opens Monday for returning members. Remind me to do that first "
     "thing?", "en", "pool pass"),
])
def test_a_reminder_that_points_back_names_its_errand(said: str, lang: str, key: str) -> None:
    out = ask([user(said), assistant("Added to your list.")], language=lang)
    assert key in _open(out, lang), out


@pytest.mark.parametrize(("request_", "report"), [
    ("I still need the notarized lease copy from the county office. Keep that on my list?",
     "The notarized lease copy came back in the mail today."),
    ("Don't let me forget the background check for the volunteer program.",
     "Good news, the background check cleared this morning."),
])
def test_what_was_waited_for_coming_through_closes_the_errand(request_: str,
                                                              report: str) -> None:
    first = ask([user(request_), assistant("Added to your list.")])
    out = ask([user(report), assistant("Great, one less thing to track.")], previous=first)
    assert _open(out, "en") == "", out


@pytest.mark.parametrize(("said", "reply", "lang"), [
    ("Can you write a short bio for my pottery shop page?",
     "'Hand-thrown stoneware from a small studio in Asheville, glazed in small batches and "
     "fired twice for strength.'", "en"),
    ("帮我算下一共要付多少钱？", "押一付三的话，第一次要付4个月的房租，一共19200元。", "zh"),
])
def test_an_ask_the_reply_itself_answers_does_not_stay_open(said: str, reply: str,
                                                            lang: str) -> None:
    out = ask([user(said), assistant(reply)], language=lang)
    assert _open(out, lang) == "", out


@pytest.mark.parametrize("said", [
    # the name of someone just spoken of; a value cut, dropped or bumped to, a price that comes
    # to, what someone said to use, a value asked of the agent; a value put right
    "Her name's Rosalind and she's 91, and she mostly just needs FaceTime and photos.",
    "They called back and with the service coupon it comes to $960 out the door.",
    "No bites in two weeks so I dropped it to $395.",
    "Vet says cut him to 1.25 cups per meal and bulk it up with green beans.",
    "My PI looked at my protocol and said to spin at 4,200 rpm, same 10 minutes.",
    "bump the pydantic pin to 2.7.4 and rerun the schema tests",
    "Oh, correction on the bisque thing from earlier: I meant cone 04, not 06.",
    # what the user drives, a value put right, a time, day or place moved to, a rule from now
    # on, a child's school
    "我开的是2019款卡罗拉双擎。",
    "打错了，车牌是7K529，最后两位反了。",
    "说错了，应该是下午4点半。",
    "刚收到短信，航班推迟到16:35起飞了。",
    "然后周六聚餐改在外婆家了，因为有个同学不能吃辣。",
    "离国庆演出只剩一个月了，团长说从这周起每周两次，周二加一次",
    "我闺女在实验二小上三年级，最近学校要求每天打卡阅读半小时。",
])
def test_what_now_holds_or_was_put_right_outranks_chatter(said: str) -> None:
    from chatfold.summarizers.extractive.scoring import _score_all

    # (friends' chat of what they did, a habit with how often, a price in a review, and words
    # that look like the rule's without its value)
    chatter = ([_CHATTER, "My dog came to me today while I was playing on the console.",
                "I take them to the park twice a week for practice - it's been great.",
                "Sorry I meant that as a joke."] if said.isascii() else
               ["周末和朋友看了场电影，挺有意思的，下次还想去。", "这家店降到99元了，真划算。",
                "我用的是这个方法。", "我搞错了方向。"])
    scores = _score_all([said, *chatter], ["user"] * (1 + len(chatter)))
    # (Chinese chat scores lower: a wider margin over it)
    margin = 0.5 if said.isascii() else 2.0
    assert scores[0].score > max(s.score for s in scores[1:]) + margin, scores


def test_a_pleasantry_acknowledged_is_no_ask_taken_on() -> None:
    out = ask([user("It's right by the lake path we usually walk."),
               assistant("That's awesome, not too far away then! I'll have to check it out."),
               user("Yup! Not at all! Let me know how it goes."),
               assistant("Sure, I'll let you know. Always great chatting with you!")])
    assert "asked" not in out, out


def test_an_id_of_any_name_scores_as_a_known_one() -> None:
    from chatfold.summarizers.extractive.scoring import _score_all

    scores = _score_all(["我原神UID是183924507。", "我的车牌是沪A7K529。"], ["user"] * 2)
    assert scores[0].score >= scores[1].score - 0.5, scores


def test_an_allergy_told_before_a_question_is_kept_as_a_fact() -> None:
    out = ask([user("对了我自己是青霉素过敏，以后我做检查是不是每次都得主动说？"),
               assistant("要的，每次就诊都主动告诉医生。")], language="zh")
    assert any("青霉素过敏" in line and "？" not in line for line in section(out, "偏好")
               + section(out, "事实")), out


def test_where_the_user_is_from_is_split_from_a_question_typed_without_its_mark() -> None:
    from chatfold.summarizers.extractive.sentences import split_stated_question

    said = "我老家郴州的，过年回去想给爸妈带点实用的东西，预算两千左右，有啥推荐吗"
    assert split_stated_question([said])[0].startswith("我老家郴州的")
    assert split_stated_question([said])[-1] == "有啥推荐吗"
    # (a reminder asked for stays with what it is about)
    asked = "周五要交房租，到时候提醒我一下好吗"
    assert split_stated_question([asked]) == [asked]


def test_a_thing_not_done_yet_in_chinese_is_an_errand() -> None:
    out = ask([user("我从杭州换工作到北京，社保转移还没办。"),
               assistant("社保转移可以在线上申请。")], language="zh")
    assert "社保转移" in _open(out, "zh"), out


@pytest.mark.parametrize(("old", "new", "gone", "kept"), [
    # Who decides it is not whose it is: the doctor raises the speaker's dose.
    ("I'm on 20 mg of fluoxetine.", "Saw my doctor this morning, she wants to go up to 40 mg "
     "since the winter's been rough.", "20 mg", "40 mg"),
    # Who told of the old value speaks of the thing: the landlord's rent.
    ("Landlord just told us rent goes up to $2,150 starting in June.",
     "Small win: we pushed back and the landlord settled at $2,060 instead.", "2,150", "2,060"),
    # A flight named by its code, a time for a time.
    ("My flight home is DL 2219, it leaves at 7:05 AM on Sunday.",
     "ugh the airline just texted, they moved DL 2219 to 11:40.", "7:05", "11:40"),
])
def test_a_change_decided_by_someone_told_by_someone_or_of_a_coded_thing_replaces(
        old: str, new: str, gone: str, kept: str) -> None:
    _assert_replaced(old, new, gone, kept)


def test_a_moved_flight_rewrites_the_look_up_that_found_it() -> None:
    first = ask([user("What time does my Austin flight leave on Friday?"),
                 *tool_turn("c1", "get_booking", '{"trip": "AUS", "date": "Friday"}',
                             '{"flight": "WN 3301", "departs": "6:55 AM", "seat": "14C"}'),
                 assistant("Your Southwest flight WN 3301 departs at 6:55 AM on Friday.")])
    out = ask([user("the airline just texted, they moved WN 3301 to 10:20."),
               assistant("Nice, you get to sleep in.")], previous=first)
    assert "6:55" not in out and "10:20" in out, out


@pytest.mark.parametrize(("first", "then", "lang", "kept"), [
    # Options listed without "which one?", picked by place a fold later.
    ([user("I have room for one more pepper plant, something mild my kids will eat."),
      assistant("Three favorites: Lunchbox, small sweet snacking peppers; Jimmy Nardello, long "
                "red frying peppers; and Shishito, mild but now and then a hot one.")],
     [user("The second one sounds great, they love anything red."), assistant("Great pick.")],
     "en", "Jimmy Nardello"),
    ([user("寒假想给女儿报个兴趣班，7岁，有什么类型的？"),
      assistant("常见的有三种：1. 美术班，画画和手工，2. 舞蹈班，练形体，3. 围棋班，锻炼专注力。")],
     [user("她坐不住，还是第三个吧，练练专注"), assistant("好的，就报围棋班。")], "zh", "围棋班"),
    # An offer made without a question, accepted a fold later.
    ([user("订单表两千多万行，要加索引，直接加怕锁表，有什么办法"),
      assistant("建议用gh-ost在线改表，它通过binlog同步，基本不锁原表。")],
     [user("行，就这么办，今晚跑"), assistant("好的，跑之前先在测试库演练一遍。")], "zh", "gh-ost"),
])
def test_options_or_an_offer_a_fold_ends_on_are_kept_for_the_pick(
        first: list[dict[str, Any]], then: list[dict[str, Any]], lang: str, kept: str) -> None:
    summary = ask(first, language=lang)
    out = ask(then, previous=summary, language=lang)
    decided = section(out, "决定" if lang == "zh" else "Decisions")
    assert any(kept in line for line in decided), out


def test_a_numbered_court_or_building_is_no_day_to_write_over_dates() -> None:
    from chatfold.summarizers.extractive.changes import _values

    assert _values("以后都换到12号场了")[0] == {"12"}
    assert _values("改25号了")[0] == {"25号"}
    first = ask([user("这个 PR 我得在5月16日之前合进去，reviewer 还没看。"),
                 user("我们羽毛球群每周六下午3点在奥体打，订的是7号场。")], language="zh")
    out = ask([user("场馆那边通知，以后都换到12号场了。"), assistant("好的。")], previous=first,
              language="zh")
    assert "5月16日" in out and "12号场" in out and "7号场" not in out, out


@pytest.mark.parametrize(("old", "new", "kept"), [
    ("With the lease renewal, what I pay each month goes up to $1,975.", "Crossed $6,020 today.",
     "$1,975"),
    ("Talked it over with Dana last night, we're raising the cap to $22,500 so we can do the "
     "flooring too.", "Landlord's bumping it to $1,975 starting next month.", "$22,500"),
])
def test_an_amount_naming_nothing_changes_no_far_amount(old: str, new: str, kept: str) -> None:
    first = ask([user(old)])
    out = ask([user(new), assistant("OK.")], previous=first)
    assert kept in out, out


def test_a_chinese_particle_after_a_number_is_no_unit() -> None:
    from chatfold.summarizers.extractive.changes import _units

    assert _units("现在1893了") == frozenset()
    assert _units("来回机票加起来快四千了") == frozenset()
    assert _units("家里有2只猫") == {"只"}
    first = ask([user("你说我过年要不要回去啊，来回机票加起来快四千了。")], language="zh")
    out = ask([user("上个月有篇文章小爆了一下，现在1893了"), assistant("恭喜！")], previous=first,
              language="zh")
    assert "四千" in out or "4000" in out, out


def test_an_ask_for_later_is_not_answered_by_the_next_reply_and_a_date_is_no_code() -> None:
    from chatfold.summarizers.extractive.summarizer import _done_factor
    from chatfold.summarizers.extractive.threads import content_tokens, fulfils

    reply = "Soup of the day, grilled trout with capers, and a lemon tart to finish."
    for asked, done in (("Can you translate the menu for me?", True),
                        ("Can you translate the menu for me later?", False),
                        ("Can you translate the menu tomorrow?", False)):
        assert fulfils(asked, content_tokens(asked), reply, "assistant", adjacent=True) is done
    looked_up, coded = "帮我看看Porto2026-06-24的酒店。", "帮我写封邮件，工号HZ20417"
    assert _done_factor(looked_up) < _done_factor(coded)


def test_one_and_a_half_in_chinese_is_written_as_one_value() -> None:
    _assert_replaced("我爸血压高，医生开的苯磺酸氨氯地平，每天早上2片。",
                     "今天复诊，医生说血压控制得还行，改成每天1片半了。", "早上2片", "早上1.5片")


def test_a_space_after_a_closing_particle_or_a_value_and_le_ends_a_chinese_clause() -> None:
    from chatfold.summarizers.extractive.sentences import plain_spelling

    assert plain_spelling("我改成9527了 nginx要改吗") == "我改成9527了，nginx要改吗"
    assert plain_spelling("好的吧 OK") == "好的吧，OK"
    assert plain_spelling("我买了 iPhone 15 很好用") == "我买了 iPhone 15 很好用"
    _assert_replaced("小程序后端我用flask写的 现在跑在8080端口 nginx反代要怎么配",
                     "那个端口跟服务器上另一个服务冲突了 我改成9527了 nginx是不是也得跟着改",
                     "8080", "9527")


@pytest.mark.parametrize(("old", "new", "gone", "kept"), [
    # the change said in one sentence, the new value in the next
    ("Renovation update: the tile guy quoted $3,180 for the bathroom floor and shower walls.",
     "So the tile guy sent a revised quote, he'd left out the membrane. New total is $3,640.",
     "3,180", "3,640"),
    # a value put right by "is really"
    ("The tax software says my federal refund is $1,482.",
     "My accountant said I missed a 1099-NEC. The refund is really $1,067.", "1,482", "1,067"),
])
def test_a_change_named_by_the_sentence_before_or_put_right_by_really(
        old: str, new: str, gone: str, kept: str) -> None:
    _assert_replaced(old, new, gone, kept)


def test_a_change_named_by_the_sentence_before_cuts_no_value_of_another_kind() -> None:
    first = ask([user("Got the lease renewal letter. Landlord's bumping it to $1,975 starting "
                      "next month.")])
    out = ask([user("Change of plans, we're doing Porto instead, flights were way cheaper. Same "
                    "week in October."),
               assistant("OK.")], previous=first)
    assert "1,975" in out, out


@pytest.mark.parametrize(("old", "new", "gone", "kept"), [
    ("我的收货地址是公司，宜山路700号B座，前台代收。",
     "公司搬了，以后都寄到张江碧波路690号，还是前台代收。", "宜山路700号", "碧波路690号"),
    ("Marco Ferrante is doing the electrical for the kitchen, new circuits for the range.",
     "Marco's booked solid through August, so we're going with Dale Pruitt instead.",
     "Ferrante", "Dale Pruitt"),
    ("水电改造找的周师傅，他说下周一进场。",
     "我妈说之前那个师傅排不过来，换成她朋友介绍的韩师傅了。",
     "周师傅", "韩师傅"),
])
def test_a_move_from_now_on_or_someone_booked_up_and_replaced(old: str, new: str, gone: str,
                                                               kept: str) -> None:
    _assert_replaced(old, new, gone, kept)


def test_a_code_the_reply_gives_for_a_change_the_user_said_replaces_the_users_code() -> None:
    call = {"id": "c1", "type": "function",
            "function": {"name": "query_order", "arguments": '{"order_no": "E927361540"}'}}
    first = ask([user("五一成都到重庆我买的G8505，早上8点多的那班。"),
                 assistant("成渝高铁一般一个半小时左右，10点前后能到重庆西。")], language="zh")
    out = ask([user("我刚在12306上改签了，你帮我看下现在订单是哪趟"),
               assistant("", tool_calls=[call]),
               {"role": "tool", "tool_call_id": "c1",
                "content": '{"status": "已改签", "train": "G8633", "depart": "10:17"}'},
               assistant("改签成功了，现在是G8633，5月1日10:17从成都东出发，11:52到重庆西。")],
              previous=first, language="zh")
    assert "G8505" not in out and "G8633" in out, out
    # (a lone numeral is no code: "一般" is never written as "G8633般")
    assert "G8633般" not in out, out
    # A code of the same shape in what speaks of something else stays.
    other = ask([user("五一成都到重庆我买的G8505。"), user("这台K5200质量不错，装系统要注意。")],
                language="zh")
    out = ask([user("我刚在12306上改签了，你帮我看下现在订单是哪趟"),
               assistant("改签成功了，现在是G8633，11:52到重庆西。")],
              previous=other, language="zh")
    assert "K5200" in out and "G8505" not in out, out


def test_options_each_ending_at_a_semicolon_are_whole_and_a_described_pick_names_one() -> None:
    out = ask([user("We need a hotel in Porto for June 6 to 9, under 180 euros a night."),
               assistant("A few options: Casa dos Azulejos, a guesthouse right by São Bento "
                         "station, about €140 a night; Ribeira Riverside Loft, on the waterfront, "
                         "about €175; and Hotel Boavista Park, quieter and further out, about "
                         "€110."),
               user("Let's do the one next to the station, easiest with our bags.")])
    assert any("Casa dos Azulejos" in line for line in section(out, "Decisions")), out


def test_a_reminder_to_do_it_names_the_thing_the_sentence_before_names() -> None:
    out = ask([user("We need the school gym for raffle night. Can you remind me to ask the "
                    "front office to book it?"),
               assistant("Sure. When you ask, mention the date, setup time and how many tables "
                         "you'll need, since the gym often has sports practices booked in the "
                         "evenings.")])
    assert any("raffle" in line for line in section(out, "Open tasks")), out


def test_a_tool_result_giving_an_old_and_a_new_value_rewrites_what_was_said() -> None:
    from chatfold.summarizers.extractive.changes import tool_pairs

    assert tool_pairs('{"original_departure": "09:12", "new_departure": "13:39", "seat": "4"}') \
        == [("09:12", "13:39")]
    assert tool_pairs('{"booking": {"old_room": "B-14", "new_room": "C-02"}}') \
        == [("B-14", "C-02")]
    assert tool_pairs("original_departure 09:12") == []
    call = {"id": "c1", "type": "function",
            "function": {"name": "get_train_booking", "arguments": '{"reference": "PQX-55821"}'}}
    first = ask([user("For the Portugal leg we're taking the 9:12 Alfa Pendular to Porto.")])
    out = ask([user("CP sent me something about a schedule change. Reference PQX-55821."),
               assistant("", tool_calls=[call]),
               {"role": "tool", "tool_call_id": "c1", "content":
                '{"reference": "PQX-55821", "status": "rescheduled", "original_departure": '
                '"09:12", "new_departure": "13:39", "arrival": "16:31"}'},
               assistant("Your train now leaves at 13:39.")], previous=first)
    said = next(line for line in out.splitlines() if "Alfa Pendular" in line)
    assert "9:12" not in said and "13:39 Alfa Pendular" in said, out


_OPEN_LISTINGS = """Open tasks:
- User to choose from: Hetzner CX22 VPS, about €4.50 a month | DigitalOcean Basic Droplet, about \
$12 a month | Fly.io, pay as you go, less server management
- User to choose from: Calacatta Nuvo quartz, about $3,900 installed | Steel Grey granite, about \
$2,700 | walnut butcher block, about $1,800
"""


@pytest.mark.parametrize(("said", "chosen"), [
    # the words of saying so name no option ("go" is no "pay as you go" plan)...
    ("Let's go with that one.", None),
    # ...the sentence before does
    ("We went to the stone yard and loved the granite slabs. Let's go with that one.",
     "Steel Grey granite"),
    ("I'll take the second option, I've used their tutorials before anyway.", "DigitalOcean"),
    # what it is comes after what was ruled out
    ("hetzner and digitalocean feel like overkill tbh, fly.io it is", "Fly.io"),
    ("No idea what the granite is, whatever it is", None),
    # an ordinal far from the words of choosing places no pick
    ("Changed the rental, we're picking up downtown since we'll take the bus there first.",
     None),
])
def test_a_later_pick_among_open_listings_is_read_from_what_names_an_option(
        said: str, chosen: str | None) -> None:
    out = ask([user(said)], previous=_OPEN_LISTINGS)
    picked = [line for line in section(out, "Decisions") if line.startswith("User chose")]
    assert (picked[0].split(": ", 1)[1].startswith(chosen) if chosen else not picked), out


@pytest.mark.parametrize(("old", "kept", "gone"), [
    ("I'm selling my Fender Blues Junior on Reverb, listed at $450 for now.", "$395", "$450"),
    # a far amount is no price of "it"
    ("My rent is $1,850 a month.", "$1,850", None),
])
def test_a_price_put_on_it_is_the_latest_near_price(old: str, kept: str, gone: str | None
                                                    ) -> None:
    first = ask([user(old)])
    out = ask([user("No bites in two weeks so I dropped it to $395."), assistant("OK.")],
              previous=first)
    assert kept in out and (gone is None or gone not in out), out


def test_a_price_the_reply_gives_for_a_change_the_user_said_replaces_the_users_price() -> None:
    first = ask([user("I do bookkeeping on the side. Hartwell Bakery pays me $68 an hour.")])
    out = ask([user("Pull up the Hartwell contract terms, I think something changed."),
               assistant("You're right, the contract shows your Hartwell rate is now $74.50 an "
                         "hour, effective April 1.")], previous=first)
    assert "$68" not in out and "pays me $74.50" in out, out


def test_a_time_said_after_being_bumped_moves_the_latest_time() -> None:
    _assert_replaced("I coach my daughter's U10 soccer team and practice is Tuesdays at 5:15.",
                     "Heads up, we got bumped, it's 5:45 now because the lacrosse kids have the "
                     "field first.", "5:15", "5:45")


def test_one_name_for_another_after_the_same_head_name_is_a_rename() -> None:
    _assert_replaced("We're calling the new onboarding initiative Project Halibut internally.",
                     "Legal made us rename it, it's Project Cormorant now because of a "
                     "trademark conflict.", "Halibut", "Project Cormorant")
    # no word of change, no rename: another project
    first = ask([user("We're calling the new onboarding initiative Project Halibut.")])
    out = ask([user("Project Cormorant is the billing one, totally separate."),
               assistant("OK.")], previous=first)
    assert "Project Halibut" in out, out


def test_gai_x_le_says_a_change_but_gai_hao_le_does_not() -> None:
    from chatfold.summarizers.extractive.changes import _other_code, _says_change

    _assert_replaced("我们公司8:45打卡，我住得远，早上几点出门合适？",
                     "公司改弹性了，最晚9:20前打卡就行", "8:45", "9:20")
    assert not _says_change("改好了，需要补300块差价") and not _says_change("这个改不了")
    # an order number is no model to write over
    assert _other_code("jd7730415962", "kj550") and not _other_code("g7125", "g7139")


def _a_later_fold(previous: str, language: str = "en") -> str:
    """``previous`` carried through a fold of small talk that changes nothing."""
    talk = [user("We went to the farmers market this morning."), assistant("Sounds fun!")] \
        if language == "en" else [user("今天去了趟超市。"), assistant("好的。")]
    return ask(talk, previous=previous, language=language)


def test_a_carried_time_moved_naming_nothing_moves_no_time_in_a_later_fold() -> None:
    # It moved the ceremony in its own fold; once the ceremony's line has left the summary,
    # said again to what is left it would move the only time remaining.
    previous = ("Facts:\n- it's been a week since Theo proposed and my mom is already "
                "sending me Pinterest boards at 6am.\n"
                "- scrap that, actually back to the original 3pm.")
    assert "Pinterest boards at 6am" in _a_later_fold(previous)
    zh = _a_later_fold("事实：\n- 我爸生日是10月3号，今年六十大寿\n"
                       "- 那天被订了，改到10月6号了", "zh")
    assert "生日是10月3号" in zh
    # In its own fold it still moves the latest time said.
    fresh = ask([user("I have my first physical therapy session on Thursday at 2:50."),
                 assistant("Noted."), user("actually they changed it to 4:05. same day")])
    assert "4:05" in fresh and "2:50" not in fresh


def test_a_value_rewritten_changes_only_that_value_where_else_it_is_said() -> None:
    # "$425" became "$610"; "6k", said beside it, was not replaced, and the deductible that
    # happens to be $6,000 is another thing.
    previous = ("Facts:\n- my plan through work is the Bronze HSA, $6,000 deductible.\n"
                "- I auto-transfer $425 a month into a high yield savings account at Ally "
                "for the emergency fund, it's at about 6k right now.")
    out = ask([user("decided the emergency fund transfer goes to $610 a month starting next "
                    "paycheck."), assistant("Nice, that's a solid bump.")], previous=previous)
    assert "$6,000 deductible" in out
    assert "$610 a month into a high yield savings account" in out


def test_a_sentence_saying_it_is_done_gives_nothing_a_new_value() -> None:
    # Neither after a sentence of change with no value of its own nor said anew: the two
    # hours it took are no garage code of the office.
    out = ask([user("for the onboarding doc: garage code at the new office is 4471#, visitors "
                    "park on P2"), assistant("Added."),
               user("finally got the driver's license renewed!! 2 hrs at the elm st office but "
                    "done."), assistant("Congrats!")])
    assert "garage code at the new office is 4471#" in out
    # A value after such a sentence still changes what it names.
    rent = ask([user("Rent is $1,750 a month for our two bedroom."), assistant("Got it."),
                user("Our lease renewed. New rent is $1,900."), assistant("Oof.")])
    assert "$1,750" not in rent and "Rent is $1,900 a month" in rent


def test_an_address_or_a_version_is_no_amount_to_change() -> None:
    out = ask([user("add the reporting replica as a metabase connection pls. host 10.40.2.18, "
                    "db analytics, pw is in vault under metabase/replica"), assistant("Added."),
               user("anniversary coming up, she wants a gooseneck kettle. find me a few under "
                    "$200"), assistant("Here are three.")])
    assert "host 10.40.2.18" in out
    # A version still changes to a version, the one it replaces.
    pin = ask([user("pin pydantic to 2.5.3 in requirements.txt, the 2.6 release breaks our "
                    "custom validators"), assistant("Pinned."),
               user("found the validator issue. bump the pydantic pin to 2.7.4 and rerun the "
                    "schema tests"), assistant("Done, all tests pass.")])
    assert "2.5.3" not in pin and "pin pydantic to 2.7.4 in requirements.txt" in pin


def test_an_ordinal_is_no_count_to_correct() -> None:
    # "第二天" is the next day, not two days: "早两天" corrects no room move.
    zh = ask([user("第二天调整到1710房间！"), assistant("好的。"),
              user("单位调休，改成9月30号走了，能早两天避开高峰"), assistant("好的。")],
             language="zh")
    assert "第二天调整到1710房间" in zh and "第两天" not in zh
    # A count still corrects a count.
    count = ask([user("订20份年会的伴手礼"), assistant("好的。"), user("伴手礼改成35份"),
                 assistant("好的。")], language="zh")
    assert "订35份年会的伴手礼" in count


def test_a_change_naming_nothing_is_of_what_the_reply_to_it_speaks_of() -> None:
    out = ask([user("Our goal is $2,500 for new library books."), assistant("Great cause!"),
               user("The trade-in would be my old 2011 Civic. The dealer offered $3,400 for "
                    "it."), assistant("Get a second quote before you take it."),
               user("Update from the principal: she thinks that is too ambitious for a first "
                    "year, so we're settling on $2,850."),
               assistant("$2,850 sounds realistic, and it still covers the books.")])
    assert "dealer offered $3,400" in out
    assert "$2,500" not in out
    zh = ask([user("我妈眼科复查约在3月19日上午"), assistant("好的。"),
              user("给朋友买的本子，5月29号下的单，说6月2号到"), assistant("好的，到了记得验货。"),
              user("医院打电话说那天医生停诊，推到3月26日了"),
              assistant("那复查就改到3月26日，记得提前挂号。")], language="zh")
    assert "复查约在3月26日上午" in zh and "5月29号下的单" in zh
    # What the reply speaks of comes first, not alone: "tweed" names the amp's other line,
    # which holds no price; the price said before it changes.
    amp = ask([user("I'm selling my Fender Blues Junior on Reverb. I listed it at $450. It's "
                    "the tweed version, 2016, new tubes last year."), assistant("Here's a draft."),
               user("No bites in two weeks so I dropped it to $395."),
               assistant("At $395 you're right in the typical used range for a tweed one.")])
    assert "$450" not in amp and "$395" in amp


def test_a_word_that_names_any_value_names_no_thing_to_change() -> None:
    # Carried into a later fold, "the higher number" is no refund "my numbers" gave.
    previous = ("Facts:\n- Ran my numbers through the tax software and it says my "
                "federal refund is $1,067.\n- Update from the principal: she thinks the "
                "higher number is too ambitious for a first year, so we're settling on $2,850.")
    assert "refund is $1,067" in _a_later_fold(previous)


def test_that_it_is_decided_with_nothing_of_what_is_no_decision() -> None:
    out = ask([user("ok decided."), assistant("Great!"),
               user("We're booking the documentary photographer, Mara Quintero.")])
    # Chatter, the weakest line: not a decision.
    assert "decided." not in section(out, "Decisions") and "Mara Quintero" in out
    assert "decided." in section(out, "Facts"), out
    zh = ask([user("就这么定了。"), assistant("好的！"), user("摄影师就选小周了，套餐5800。")],
             language="zh")
    assert not any("就这么定了" in d for d in section(zh, "决定")) and "小周" in zh


def test_a_change_naming_nothing_leaves_what_a_look_up_told_unless_it_points_there() -> None:
    call = {"id": "c1", "type": "function",
            "function": {"name": "search_email", "arguments": '{"query": "Atlas"}'}}
    first = ask([user("Can you check my email for anything from Atlas Relocation?"),
                 assistant("", tool_calls=[call]),
                 {"role": "tool", "tool_call_id": "c1",
                  "content": "1 result: pickup moved to June 12, crew arriving at 8:00 AM."},
                 assistant("Yes: Atlas moved your pickup to June 12, crew arriving at 8:00 AM.")])
    out = ask([user("Heads up, we got bumped, it's 5:45 now because the lacrosse kids have the "
                    "field first."), assistant("OK.")], previous=first)
    answered = next(line for line in out.splitlines() if "→ Yes" in line)
    assert "8:00 AM" in answered, out
    call = {"id": "c2", "type": "function", "function": {"name": "get_ticket", "arguments": "{}"}}
    first = ask([user("我周六回家那趟高铁几点发车来着"), assistant("", tool_calls=[call]),
                 {"role": "tool", "tool_call_id": "c2",
                  "content": '{"train": "G1375", "depart": "14:20"}'},
                 assistant("你周六坐的是G1375，杭州东14:20发车。")], language="zh")
    out = ask([user("那趟车我改签了，现在是17:05的，车次没变"), assistant("好的。")],
              previous=first, language="zh")
    answered = next(line for line in out.splitlines() if "→你" in line)
    assert "14:20" not in answered and "17:05" in answered, out


def test_an_earlier_change_holding_the_value_replaced_goes_with_it() -> None:
    first = ask([user("We finally finished the wedding guest list: 112 people.")])
    second = ask([user("Ugh, Dan's parents want to invite two more cousins, so we're at 114 now."),
                  assistant("OK.")], previous=first)
    out = ask([user("Okay big change, no plus-ones for single guests. Final headcount is 103."),
               assistant("OK.")], previous=second)
    assert "114" not in out and "guest list: 103" in out, out
    # a change of something else that happens to hold a small number stays
    first = ask([user("My son is 9 and plays chess on Saturdays.")])
    second = ask([user("Our book club moved, now 9 of us meet on Sundays."), assistant("OK.")],
                 previous=first)
    out = ask([user("My son turned 10 last week, the chess club moved him up a group."),
               assistant("OK.")], previous=second)
    assert "9 of us" in out, out


def test_a_value_said_of_nothing_goes_with_the_sentence_before() -> None:
    first = ask([user("The Corvane Health application asks for salary expectations. "
                      "I put $92,000.")])
    assert "salary expectations. I put $92,000." in first, first
    out = ask([user("Changing my answer on that, after looking at Glassdoor I'm going with "
                    "$98,500 as my expectation."), assistant("OK.")], previous=first)
    users = user_lines(out)
    assert not any("$92,000" in line for line in users), out
    assert any("Corvane Health" in line for line in users), out


def test_settling_on_a_near_price_changes_the_latest_one() -> None:
    _assert_replaced("The PTA met last night and bumped the fundraiser goal up to $3,200.",
                     "Update from the principal: she thinks the higher number is too ambitious "
                     "for a first year, so we're settling on $2,850.", "$3,200", "$2,850")
    # a far price is another thing's
    first = ask([user("My rent is $1,850 a month.")])
    out = ask([user("Update from the principal: the trip is too much, so we're settling on "
                    "$450."), assistant("OK.")], previous=first)
    assert "$1,850" in out, out


def test_the_value_after_a_change_said_without_one_is_of_what_it_points_at() -> None:
    _assert_replaced("Prof. Lindqvist wants the full draft of my results chapter by March 21.",
                     "She emailed again, the committee meeting got moved so she needs it by "
                     "March 18 after all.", "March 21", "March 18")
    _assert_replaced("Ivy's math tutor can do tuesdays at 4:30.",
                     "tutor texted, she has to push Ivy to 5:15.", "4:30", "5:15")


def test_a_value_the_user_denies_is_put_right_where_it_was_said() -> None:
    out = ask([user("Book a table for 6 people at 7:30 tonight."),
               assistant("Booked for 6 people at 8:30."), user("I said 7:30, not 8:30.")])
    assert "Booked for 6 people at 7:30" in out, out
    first = ("事实：\n- 看中一台车，表显6.8万公里，2019年的\n"
             "- 助手：按表显8.6万公里算，接下来要换刹车片和变速箱油，三年大概六七千。\n")
    out = ask([user("不是8.6 是6.8万 你搞反了"), assistant("抱歉。")], previous=first,
              language="zh")
    assert "按表显6.8万公里" in out, out
    # a value denied with none of its kind said for it stays as it was
    first = "Facts:\n- The dentist is at 7:30.\n- Assistant: The gym class is at 8:30.\n"
    out = ask([user("not 8:30, sorry, the other one."), assistant("OK.")], previous=first)
    assert "class is at 8:30" in out, out


def test_a_final_figure_said_with_a_colon_is_a_change() -> None:
    from chatfold.summarizers.extractive.changes import _says_change

    assert _says_change("final number after my wife weighed in: $11,200 all in.")
    assert _says_change("we're settling on $2,850")
    assert not _says_change("the final round is on Friday: 4 teams left")


def test_a_tool_result_keeps_its_verdict_and_not_the_value_it_replaced() -> None:
    from chatfold.summarizers.extractive.tools import _render_result

    out = _render_result('{"ok": true, "item": "雪松香薰蜡烛", "old_price": 39.9, '
                         '"new_price": 46.8}', 120)
    assert "39.9" not in out and "new_price=46.8" in out, out
    # an old value with no new one beside it is what the result says
    assert "old_price=39.9" in _render_result('{"item": "x", "old_price": 39.9}', 120)
    certbot = ("Successfully received certificate.\nCertificate is saved at: /etc/letsencrypt/"
               "live/leafloop.app/fullchain.pem\nThis certificate expires on 2025-09-03.\n"
               "Congratulations! You have successfully enabled HTTPS on https://leafloop.app")
    out = _render_result(certbot, 120)
    assert len(out) <= 120 and out.startswith("Successfully") and "enabled HTTPS" in out, out
    # (a short one is whole)
    assert _render_result("line one\nline two", 120) == "line one line two"
    call = {"id": "c1", "type": "function",
            "function": {"name": "ssh_exec", "arguments": '{"cmd": "sudo certbot --nginx"}'}}
    out = ask([user("at some point pls set up https on the leafloop box, no rush"),
               assistant("Sure, certbot makes it quick.")])
    out = ask([assistant("", tool_calls=[call]),
               {"role": "tool", "tool_call_id": "c1", "content": certbot},
               assistant("certbot finished; the renewal timer will keep it fresh.")],
              previous=out)
    assert not section(out, "Open tasks"), out


@pytest.mark.parametrize(("old", "new", "gone", "kept"), [
    ("Mom's physio appointment is on May 3 at 10:15.",
     "The clinic pushed mom's physio back a week, to May 10, same time.", "May 3", "May 10"),
    ("Dad's cardiology follow-up is on the 14th.",
     "They had to reschedule dad's follow-up to the 21st.", "14th", "21st"),
    # a number spelled out is no word of what changed; a noun opening a sentence, no one's name
    ("Our contractor quoted $18,400 for the kitchen.",
     "Contractor's revised quote came in: eighteen thousand nine hundred, $18,900 after the "
     "extra outlet.", "18,400", "18,900"),
    ("The carer, Joyce, comes Mondays and Thursdays.",
     "Joyce is leaving, the agency is sending Priscilla instead.", "Joyce,", "Priscilla"),
    ("Staff meeting is every Monday at 8:15.",
     "Heads up, staff meeting moves to Wednesdays, still 8:15.", "Monday", "Wednesdays"),
    ("团建报名的有32个人。", "又有3个人报名，一共35个了。", "32", "35"),
])
def test_a_change_said_the_way_people_relay_it_replaces_the_old_value(
        old: str, new: str, gone: str, kept: str) -> None:
    _assert_replaced(old, new, gone, kept)


def test_a_number_said_in_words_is_the_value_it_names() -> None:
    from chatfold.summarizers.extractive.changes import _in_digits

    assert _in_digits("make that seventy-five, and two hundred and fifty guests") \
        == "make that 75, and 250 guests"
    assert _in_digits("eighteen thousand nine hundred") == "18,900"
    # a small word alone, a word of a number that names none, two numbers: as written, apart
    assert _in_digits("one of them, five apples, a hundred times, the seventies") \
        == "one of them, five apples, a hundred times, the seventies"
    assert _in_digits("twenty and thirty") == "20 and 30"
    _assert_replaced("We are expecting 40 kids at the summer camp.",
                     "Update: the summer camp is expecting forty-five kids now.", "40", "45 kids")


@pytest.mark.parametrize(("old", "new", "gone", "kept"), [
    # a confirmation pasted from an email
    ("The booking at Marlowe Hall is for 80 guests.",
     "Email from Marlowe Hall: 'Your booking is confirmed for 92 guests on Saturday 14 June.'",
     "80", "92"),
    # the value said not to hold any more is the old one
    ("Sophie's swim lessons are Wednesdays at 4pm.",
     "Sophie's swim lessons aren't Wednesdays anymore, the pool moved them to Fridays at 4pm.",
     "are Wednesdays", "Fridays"),
    ("The invoice for Hartley & Co is $3,200, due March 31.",
     "Hartley & Co asked for a discount, I reissued the invoice at $2,950.", "3,200", "2,950"),
    ("We pay the cleaner $120 a visit.",
     "The cleaner raised her rate because of fuel costs, it's $135 a visit starting next month.",
     "$120", "$135"),
])
def test_a_change_confirmed_reissued_or_said_not_to_hold_replaces_the_old_value(
        old: str, new: str, gone: str, kept: str) -> None:
    _assert_replaced(old, new, gone, kept)


@pytest.mark.parametrize(("old", "new", "gone", "kept"), [
    ("装修师傅报价两万八。", "师傅说材料涨价了，得三万二。", "两万八", "三万二"),
    ("我们合唱团每月会费50块。", "会费上调了，每月60。", "50块", "60"),
    ("年会定在1月18号，在海悦酒店。", "年会日子改了哈，1月25号，地方不变。", "1月18", "1月25"),
    ("论文查重率现在是18%。", "改了一遍重新查了，降到9%了。", "18%", "9%"),
    ("我们的队服订了22套。", "又有四个小朋友报名，队服得多订4套，26套。", "22套", "26套"),
])
def test_a_price_moved_in_chinese_then_said_replaces_the_old_one(old: str, new: str, gone: str,
                                                                   kept: str) -> None:
    from chatfold.summarizers.extractive.changes import _says_change

    _assert_replaced(old, new, gone, kept)
    assert not _says_change("又涨价了好烦")  # (no new price said)


def test_a_carried_statement_of_a_revised_value_outranks_chatter_of_its_worth() -> None:
    previous = ("Facts:\n- We went hiking on Sunday with the kids, it was great\n"
                "- Contractor revised it to 18,900\n")
    out = ask([user("hi"), assistant("Hi!")], previous=previous, max_tokens=24)
    assert "18,900" in out and "hiking" not in out, out


@pytest.mark.parametrize(("old", "new", "gone", "kept"), [
    # a verb of when ("now begins") says when, not of what: the lease is the lease's start
    ("lease start is Feb 24, keys the same day.",
     "landlady says the painters won't be finished in time so the lease now begins March 3.",
     "Feb 24", "March 3"),
    # who decides it says it: "老板拍板了" reports the change, it is not the boss's own target
    ("飞书表格里 Q3 GMV 目标先填 1.2亿，在 C4。", "老板拍板了 Q3 GMV 目标改成 1.45亿",
     "1.2亿", "1.45亿"),
    # settled after a talk, the value after it
    ("房东说续租每个月要涨到6800，我现在才6200，这涨得也太狠了吧。",
     "谈下来了，续租每月6500，押一付三，签两年", "6800", "6500"),
])
def test_a_change_said_by_when_it_begins_by_who_decides_or_as_settled_replaces_the_old_value(
        old: str, new: str, gone: str, kept: str) -> None:
    _assert_replaced(old, new, gone, kept)


def test_a_correction_said_in_the_sentence_before_its_value_puts_the_slip_right() -> None:
    first = ask([user("booked the GRE! Oct 12, 9am, Prometric centre in Koramangala.")])
    out = ask([user("ugh small correction, the GRE date I gave you was a typo, I swapped the "
                    "digits. it's Oct 21. a little more prep time at least"),
               assistant("Oct 21 gives you more than another week.")], previous=first)
    assert "Oct 12" not in out and "Oct 21" in out, out


def test_what_must_have_been_is_no_task() -> None:
    out = ask([user("We went to the lake with my son last weekend, he caught his first fish."),
               assistant("Must've been a cool experience for the two of you."),
               user("Must've been a cool experience for us too. You must be so proud of "
                    "your own kids."),
               assistant("I am!"),
               user("I must renew my passport before March.")])
    tasks = section(out, "Open tasks")
    assert any("passport" in t for t in tasks) and not any("Must've" in t for t in tasks), out


def test_a_change_said_after_a_riddle_is_news_not_the_riddle_s_answer() -> None:
    out = ask([user("玩笑"), assistant("你当你穿越兔子和草坪洒水你会得到什么？"),
               user("老板拍板了 Q3 GMV 目标改成 1.45亿 月度按 3:3:4 拆"),
               assistant("已改成 1.45亿。")], language="zh")
    assert "1.45亿" in out and "兔子" not in out, out
    out = ask([user("玩笑"), assistant("我是一个没有一部喜剧片你为什么不签出的笑话？"),
               user("内分泌科看了空腹记录，Tresiba晚上打12个单位。"), assistant("好的。")],
              language="zh")
    assert "12个单位" in out and "喜剧片" not in out, out
    # (a fragment still answers the question it needs: "你老家是哪个城市？" → "宜宾，四川那个")
    out = ask([user("我想订个酒店"), assistant("你老家是哪个城市？"), user("宜宾，四川那个"),
               assistant("好的。")], language="zh")
    assert "你老家是哪个城市？→宜宾" in out, out


def test_the_assistant_s_change_puts_right_the_answer_joined_to_a_question() -> None:
    def run(ident: str, command: str, result: str) -> list[dict[str, Any]]:
        return tool_turn(ident, "run_command",
                          f'{{"host": "console-prod-01", "cmd": "{command}"}}', result)

    first = ask([user("which port is the admin console on in prod? need it for the firewall"),
                 *run("c1", "grep server.port app.yaml", "server.port: 9001"),
                 assistant("The admin console listens on 9001 in prod, without SSL.")])
    assert "→ The admin console listens on 9001" in first, first
    out = ask([user("put it on 8443, the cert is uploaded, and turn ssl on"),
               *run("c2", "sed -i s/9001/8443/ app.yaml && restart", "server.port: 8443"),
               assistant("Done: the admin console now listens on 8443 with SSL on.")],
              previous=first)
    assert "→ The admin console listens on 8443" in out, out


def test_over_the_cap_a_long_chinese_statement_gives_up_its_idle_clauses_first() -> None:
    said = [user("我妈上礼拜感冒发烧去社区医院挂水，我特地跟护士说了她对头孢过敏，"
                 "幸好我看了一眼瓶子，吓死我了，所以我就是想问，我出国以后她一个人去看病怎么办"),
            assistant("可以给她准备一张过敏卡。"),
            user("就是我在给我妈弄保险，她六十二了又有糖尿病，一年1280，然后保证续保只有一年，唉，真是头疼"),
            assistant("先看看条款。")]
    roomy = ask(said, language="zh", max_tokens=400)
    assert "吓死我了" in roomy and "真是头疼" in roomy, roomy  # (under the cap: said as said)
    tight = ask(said, language="zh", max_tokens=110)
    assert "头孢过敏" in tight and "一年1280" in tight, tight  # both statements kept...
    assert "吓死我了" not in tight and "真是头疼" not in tight, tight  # ...without idle words


def test_a_measure_names_no_object_and_a_field_is_its_own_key() -> None:
    def read(ident: str, keys: str, result: str) -> list[dict[str, Any]]:
        return [user("payment-svc 的配置看一下"),
                *tool_turn(ident, "config_get",
                            f'{{"service": "payment-svc", "keys": [{keys}]}}', result),
                assistant("好的。")]

    first = ask(read("c1", '"memory_limit", "cpu_limit"',
                     '{"service": "payment-svc", "memory_limit": "2Gi", "cpu_limit": "1"}'),
                language="zh")
    out = ask(read("c2", '"memory_limit", "oom_events_48h"',
                   '{"service": "payment-svc", "memory_limit": "3Gi", "oom_events_48h": 0}'),
              previous=first, language="zh")
    # "2Gi" and "3Gi" are one service's limit, changed; its cpu_limit was not given again
    assert "memory_limit=2Gi" not in out and "memory_limit=3Gi" in out, out
    assert "cpu_limit=1" in out, out


@pytest.mark.parametrize(("lang", "first", "then", "kept"), [
    ("en", "Dan called, he got the job! he's doing $450 a month for mom going forward.",
     "the knee surgeon's office called, they had to push mom to June 3.", "$450"),
    ("zh", "我哥每个月给我妈的护理费出1500元。", "我妈的复查改到下周三了，医生临时有事。",
     "1500元"),
])
def test_a_change_of_when_takes_no_amount_out(lang: str, first: str, then: str,
                                               kept: str) -> None:
    # A change whose values are of another kind than the older statement's changes nothing of
    # it (a day, a date and an hour are one kind: when).
    previous = ask([user(first), assistant("OK." if lang == "en" else "好的。")], language=lang)
    out = ask([user(then), assistant("Noted." if lang == "en" else "记下了。")],
              previous=previous, language=lang)
    assert kept in out, out


@pytest.mark.parametrize(("lang", "asked", "cut"), [
    ("en", "if I stretch to 3,600, is the jump to the M3 Max actually worth it for 4K?",
     "3,600."),
    ("zh", "要是我把预算加到3600块，换M3 Max值不值", "3600块。"),
])
def test_the_condition_of_a_question_is_no_statement(lang: str, asked: str, cut: str) -> None:
    # Cut from its question, "if I stretch to 3,600" would read as the user's budget.
    ok = "OK." if lang == "en" else "好的。"
    out = ask([user(asked), assistant(ok)], language=lang)
    assert cut not in out, out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_user_s_own_lines_go_untagged_and_read_back_as_theirs(lang: str) -> None:
    # A "User: " on every line was 7-8% of a summary: the user's statements go bare, the
    # assistant's and a tool's keep their tag, and an older summary's tagged lines read the
    # same as bare ones (a change replaces either).
    if lang == "en":
        said, change, old, new = ("My gym is on Elm Street.", "I switched gyms, my gym is on "
                                  "Oak Street now.", "Elm Street", "Oak Street")
        noted, tag, title = "Noted: your locker is 4471.", "User: ", "Facts"
    else:
        said, change = "我住在长乐路。", "我搬家了，现在住在武康路。"
        old, new = "长乐路", "武康路"
        noted, tag, title = "记下了：你的柜子是4471号。", "用户：", "事实"
    first = ask([user(said), assistant(noted)], language=lang)
    assert f"- {said}" in first.splitlines() and tag not in first, first
    assert any(line.startswith(("- Assistant: ", "- 助手：")) for line in first.splitlines())
    for previous in (first, first.replace(f"- {said}", f"- {tag}{said}")):
        out = ask([user(change), assistant("OK" if lang == "en" else "好的")],
                  previous=previous, language=lang)
        assert old not in out and any(new in line for line in section(out, title)), out
        assert tag not in out, out


def test_where_a_thing_of_the_speaker_s_is_now_replaces_where_it_was() -> None:
    # "我的X在Y" is "我的X是Y" of a place, a time word ("现在", "目前") before it or not.
    _assert_replaced("我的健身房在长乐路，离公司很近。", "我的健身房现在在武康路了。",
                     "长乐路", "武康路")
    # another thing of the speaker's is another slot
    first = ask([user("我的手机在充电。")], language="zh")
    out = ask([user("我的钥匙在门口的鞋柜上。"), assistant("好的。")], previous=first,
              language="zh")
    assert "充电" in out and "鞋柜" in out, out
