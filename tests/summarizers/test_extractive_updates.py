"""Values updated across folds (``changes.py``): a guessed range is no value, a correction by
what it "should be", a count that "is at" a number, an amount that "went up", a change a task
mentions, a date moved with its hour, a name in quotes, what the assistant said of an old
value."""

from __future__ import annotations

import pytest
from _folds import assistant, folds, tool_turn, user

from chatfold import SummaryRequest
from chatfold.summarizers.extractive import ExtractiveSummarizer
from chatfold.summarizers.extractive.changes import _arabic


def two_folds(lang: str, first: str, then: str) -> str:
    ok = "OK." if lang == "en" else "好的。"
    return folds(lang, [user(first), assistant(ok)], [user(then), assistant(ok)])


@pytest.mark.parametrize(("text", "digits"), [
    # Two digits in a row guess a range: no one number.
    ("一晚上大概能卖七八百", "一晚上大概能卖七八百"), ("三四十个", "三四十个"),
    ("七八十万", "七八十万"),
    # After a 零 comes the ones place, not the next place down.
    ("一千零五", "1005"), ("一百零八", "108"), ("两千零二十", "2020"), ("一万零五百", "10500"),
    ("七千三", "7300"),
    # typed in digits, the place after 万 or 千 is the next one down
    ("9万5", "9.5万"), ("7千3", "7300"), ("v1.5万3", "v1.5万3"),
])
def test_chinese_ranges_and_zeros_are_read_as_written(text: str, digits: str) -> None:
    assert _arabic(text) == digits


def test_a_guessed_range_is_no_value_a_change_keeps_or_replaces() -> None:
    # "七八百" (what a night sells) was read as 800, the new fee: the fee seemed unchanged.
    out = two_folds("zh", "夜市摊位费一个月600块 我一晚上大概能卖七八百 这个划算吗",
                    "夜市管理处发通知了 摊位费涨到800块一个月 唉")
    assert "800块" in out and "600块" not in out, out
    assert "七八百" in out, out


@pytest.mark.parametrize(("lang", "first", "then", "now", "gone"), [
    # put right by what it should be ("of the 8oz hex jars" is of the jars, not of "the")
    ("en", "placing the jar order with Ferncastle Glass: 12 cases of the 8oz hex jars.",
     "it should be 9 cases of the hex jars, I forgot I still have a stack left from last fall",
     "9 cases", "12 cases"),
    # where a count stands now
    ("en", "I'm running 6 hives now. what's a realistic honey yield?",
     "did a couple of splits this week so I'm at 8 hives", "8 hives", "6 hives"),
    # "went up" with no value after it
    ("en", "Expatrio releases €934 a month to my normal account.",
     "got an email from Expatrio, from January the monthly payout is €992 because the "
     "required amount went up.", "€992", "€934"),
    # an amount raised under another name: the one the speaker gave near it, in its currency
    ("en", "I pay €640 warm for my room, that includes heating and water but not electricity.",
     "my landlord says rent goes up to €685 from May. can he even do that?", "€685", "€640"),
    ("zh", "我现在住的单间 每个月£950 包bills但是不包网",
     "房东刚发WhatsApp说9月新合同开始要涨到£1,020 说是能源和保险都涨了", "£1,020", "£950"),
    # ... said only to be what holds now
    ("en", "HiWi pay is €13.25/h and it's a minijob I think",
     "with the new collective agreement we now get €13.98 an hour", "€13.98", "€13.25"),
    ("zh", "我现在住的单间 每个月£950 包bills但是不包网",
     "房东发消息了 现在房租是£1,020 说是能源涨了", "£1,020", "£950"),
    # "9万5" is one amount: rewritten whole, its 万 kept
    ("zh", "年薪现在是9万5 HR说下个月谈", "HR那边谈下来了 年薪涨到11万 offer下周发",
     "年薪现在是11万 HR", "9万5"),
    ("zh", "年薪现在是九万五 HR说下个月谈", "HR那边谈下来了 年薪涨到11万 offer下周发",
     "年薪现在是11万 HR", "九万五"),
    # scaled up ("扩到"), or "至" for "到"
    ("zh", "订单服务现在是4个副本",
     "今晚直播带货流量大 运营说要冲销量 order-svc先扩到12个副本 顶过今晚再说", "现在是12个副本",
     "4个副本"),
    ("zh", "论文截止日期是5月20日",
     "导师群里通知 因为系统故障 截止日期统一延至5月27日 大家别慌 慢慢写",
     "5月27日", "5月20日"),
    # a name in quotes is a value, sent elsewhere ("改发到")
    ("zh", "周报现在是发到「产品周会」群里", "群消息太多了 周报改发到「运营周报」群",
     "运营周报", "产品周会"),
])
def test_a_value_changed_in_other_words_replaces_the_old(
        lang: str, first: str, then: str, now: str, gone: str) -> None:
    out = two_folds(lang, first, then)
    assert now in out and gone not in out, out


@pytest.mark.parametrize(("first", "then", "kept"), [
    # two amounts near the new one: which one is not said
    ("I pay €640 for my room and €610 for the parking spot near work.",
     "my landlord says rent goes up to €685 from May.", ("€640", "€610")),
    # someone else's
    ("I pay €640 warm for my room.", "My sister says her rent goes up to €685 from May.",
     ("€640",)),
    # another currency
    ("I pay €640 warm for my room.", "the gym membership went up to $685 a year.", ("€640",)),
    # not near it
    ("I pay €640 warm for my room.", "the car insurance went up to €1,400 a year.", ("€640",)),
])
def test_an_amount_raised_under_another_name_takes_out_only_the_one_it_can_be(
        first: str, then: str, kept: tuple[str, ...]) -> None:
    out = two_folds("en", first, then)
    for value in kept:
        assert value in out, out


def test_a_task_that_mentions_a_change_does_not_take_the_next_one() -> None:
    # The second change matched the task first ("我还得跟房东说…" is to be done) and stopped
    # there: the flight kept 7月1号.
    out = folds("zh",
                [user("暑假回国的机票订好了！6月28号 曼彻斯特飞浦东 中转一次"),
                 assistant("恭喜！记得查下中转的行李是不是直挂。")],
                [user("航司发邮件说航班调整 变成7月1号了 我还得跟房东说晚几天退房"),
                 assistant("可以免费接受，跟房东沟通一下。")],
                [user("又改了 7月3号晚上十一点多的 行吧我认了"),
                 assistant("好的，那就7月3号晚上的那班。")])
    assert "7月3号，曼彻斯特飞浦东" in out.replace(" ", "，"), out
    assert "6月28号" not in out, out


def test_a_date_moved_with_its_hour_is_written_into_the_old_statement() -> None:
    # The new date, of the two new values, for the old one: the rest of what was said of the
    # flight stays (it was taken out with the old date).
    out = folds("en",
                [user("My flight home is on July 1, FRA to BOM."), assistant("Exciting!")],
                [user("they moved it again, July 3 at 11pm now"), assistant("Oh no.")])
    assert "My flight home is on July 3, FRA to BOM" in out and "July 1" not in out, out


@pytest.mark.parametrize(("name", "first", "then", "gone", "kept"), [
    ("config_set", '{"cluster": "cart-redis", "key": "maxmemory", "value": "8gb"}',
     '{"cluster": "cart-redis", "key": "maxmemory", "value": "6gb"}', "8gb", "6gb"),
    ("deploy", '{"service": "risk-engine", "env": "prod", "version": "1.15.0"}',
     '{"service": "risk-engine", "env": "prod", "version": "1.15.1"}', "1.15.0", "1.15.1"),
])
def test_a_setting_set_again_leaves_only_the_newer_call(
        name: str, first: str, then: str, gone: str, kept: str) -> None:
    # The same call but for the one value it sets: the older call's line says what no longer
    # holds, and goes whole (its value taken out, "config_set(cluster=cart-redis,
    # key=maxmemory) → ok=true" had stayed, a line that says nothing).
    out = folds("en",
                [user("set it please"), *tool_turn("c1", name, first, '{"ok": true}'),
                 assistant("Done.")],
                [user("change it again please"), *tool_turn("c2", name, then, '{"ok": true}'),
                 assistant("Done.")])
    assert kept in out and gone not in out, out
    assert out.count(f"{name}(") == 1, out


def test_a_setting_of_another_thing_stays() -> None:
    out = folds("en",
                [user("set it please"),
                 *tool_turn("c1", "config_set", '{"cluster": "cart-redis", "key": "maxmemory", '
                             '"value": "8gb"}', '{"ok": true}'), assistant("Done.")],
                [user("and the other one"),
                 *tool_turn("c2", "config_set", '{"cluster": "session-redis", "key": '
                             '"timeout", "value": "300"}', '{"ok": true}'), assistant("Done.")])
    assert "8gb" in out and "300" in out, out


def test_what_the_assistant_said_of_a_changed_value_goes_with_it() -> None:
    # "$1,850 is on the lower end" spoke of a rent that no longer holds.
    out = folds("en", [user("my rent here is $1,850 a month"),
                       assistant("$1,850 is on the lower end for Somerville.")],
                [user("landlord says rent goes up to $1,975 in May"),
                 assistant("That's a big jump.")])
    assert "$1,975" in out and "$1,850" not in out and "lower end" not in out, out



@pytest.mark.parametrize(("first", "then", "new", "old"), [
    # A pound sign, an emoji, a dash or an accented name is still English: the English rules
    # of change apply (they were skipped, as if the sentence were Chinese).
    ("The flat's rent is £1,450 a month, bills on top.",
     "Landlord emailed, from March the rent is £1,525 now, ugh.", "£1,525", "1,450"),
    ("my son's dentist is Dr. Okafor at Elm Street Dental, he's been going there since he was 4",
     "bad news, she's moving to Leeds 😢 we're switching him to Dr. Patel at the same clinic.",
     "Dr. Patel at Elm", "Okafor"),
    ("I take Zoloft 50mg every morning.",
     "Saw Dr. Núñez today — she bumped the Zoloft up to 100mg, starting Monday.", "100mg", "50mg"),
])
def test_english_with_a_pound_sign_emoji_or_accent_is_english(
        first: str, then: str, new: str, old: str) -> None:
    out = two_folds("en", first, then)
    assert new in out and old not in out, out


@pytest.mark.parametrize(("lang", "ask", "again", "result", "result_again", "said", "new",
                          "old"), [
    ("zh", "帮我查下顺丰给我们的报价", "刚跟网点重新谈过 你再查一次",
     "承运: 顺丰\n首重(1kg): 12元\n续重: 2.5元/kg\n月结门槛: 800单",
     "承运: 顺丰\n首重(1kg): 10.5元\n续重: 2元/kg\n月结门槛: 1200单",
     "顺丰现在首重12元，续重2.5元一公斤，月结要800单。", "首重10.5元", "12元"),
    ("en", "how many of the walnut desks do we have?", "the sale just ended, check again",
     "sku: DESK-WAL\navailable: 64\nreserved: 9\nwarehouse: east",
     "sku: DESK-WAL\navailable: 23\nreserved: 31\nwarehouse: east",
     "You have 64 walnut desks available, 9 more reserved.", "23 walnut desks", "64"),
])
def test_a_look_up_made_again_puts_each_changed_number_right(
        lang: str, ask: str, again: str, result: str, result_again: str, said: str, new: str,
        old: str) -> None:
    # What the assistant said of the first result says the second, number by number (it
    # kept the old numbers when more than one had changed).
    args = '{"q": "same"}'
    ok = "好的。" if lang == "zh" else "OK."
    out = folds(lang, [user(ask), *tool_turn("c1", "lookup", args, result), assistant(said)],
                [user(again), *tool_turn("c2", "lookup", args, result_again), assistant(ok)])
    assert new in out and old not in out, out


def test_a_chinese_change_said_then_its_value_in_the_next_clause_replaces_the_old_one() -> None:
    # "护工费涨了" says the change, "一天320元" its value: one change, of the fee said before,
    # and what the assistant said of the old fee goes with it.
    out = folds("zh", [user("保姆费 一个月5500 不包住 这个价正常吗"),
                       assistant("一线城市不包住的保姆，5500算中等偏下，挺正常。")],
                [user("阿姨说明年要回老家 保姆费涨了 一个月6200 唉 先这样吧"),
                 assistant("好的。")])
    assert "6200" in out and "5500" not in out, out


@pytest.mark.parametrize(("first", "reply", "then", "answer", "new", "old", "kept"), [
    # "load in" and "load-in" are one label, though the change names the day by what else
    # happens in it.
    ("milwaukee show: load in 5:30, doors 7, we go on 9:15", "Eat before the 5:30 load in.",
     "venue has a private event earlier so load-in is 4:15 now, gotta leave by 2",
     "Right, with a 4:15 load-in leave early.", "load in 4:15", "5:30", "9:15"),
    # The change says only "she's on 31 now"; the reply to it says what 31 is.
    ("Mia starts the school bus on Monday, bus 14 from the corner of Elm, pickup 7:05",
     "Bus 14 at 7:05, got it.", "district redid the routes over the summer, she's on 31 now",
     "Okay, bus 31 from the same corner then.", "bus 31", "bus 14", "7:05"),
])
def test_a_change_pairs_with_the_old_value_said_under_the_same_label(
        first: str, reply: str, then: str, answer: str, new: str, old: str, kept: str) -> None:
    out = folds("en", [user(first), assistant(reply)], [user(then), assistant(answer)])
    assert new in out and old not in out and kept in out, out


def test_a_value_under_another_label_is_not_changed_by_it() -> None:
    # "pickup" is not "bus": the new route number leaves the pickup time alone, and a change
    # whose reply names no label of an older value changes nothing.
    out = folds("en", [user("Mia's bus is 14, pickup 7:05 at the corner"), assistant("Got it.")],
                [user("they moved some things around, it's 7:20 now"), assistant("OK.")])
    assert "14" in out and "7:20" in out, out


def test_a_change_of_nothing_still_held_outranks_chatter() -> None:
    # The old rehearsal day was folded away long ago: the change is what holds now, and it is
    # what a tight fold keeps (it lost to the hike).
    said = [user("We went hiking at Bear Lake on Saturday with my cousin Anna, the view was "
                 "great."),
            assistant("Sounds lovely."),
            user("The choir moved rehearsals to Thursdays at 7:30 now, the church needs the hall "
                 "on Wednesdays."),
            assistant("Okay."),
            user("I finished reading The Overstory last week, 500 pages, it took me a month."),
            assistant("Nice.")]
    out = ExtractiveSummarizer().summarize(SummaryRequest("", tuple(said), "en", 40))
    assert "Thursdays at 7:30" in out, out


def test_a_bare_zero_beside_an_amount_raised_is_no_crash() -> None:
    # "000" is a bare number too: comparing the new amount with it divided by zero.
    out = two_folds("zh", "门禁密码是000，物业说房租是4800一个月。", "房租涨到5300了，下个月开始。")
    assert "5300" in out, out


def test_two_carried_amounts_near_each_other_are_not_a_change_of_one() -> None:
    # Both were kept side by side by the folds that said them: the jam's new price is no new
    # price of the eggs.
    previous = ("Facts:\n- and eggs go up to $7.25/doz starting next week, corn went up "
                "again.\n- jars went up, so the strawberry rhubarb jam is $9.50 now.")
    request = SummaryRequest(previous, (user("the hens are laying well this week"),
                                        assistant("Good to hear.")), "en", 400)
    out = ExtractiveSummarizer().summarize(request)
    assert "$7.25" in out and "$9.50" in out, out


def test_carried_lines_keep_the_order_they_were_said_in() -> None:
    # The next fold reads the summary in time order: the later value is the one that holds,
    # whichever line ranks higher.
    out = folds("en", [user("Emergency fund is at $4,300, target is $9,000."),
                       assistant("Nice progress.")],
                [user("The contractor says the deck will cost $12,400 in total."),
                 assistant("OK.")],
                [user("Crossed $6,020 in the emergency fund today."), assistant("Great!")])
    lines = [line for line in out.splitlines() if line.startswith("- ")]
    deck = next(i for i, line in enumerate(lines) if "$12,400" in line)
    fund = next(i for i, line in enumerate(lines) if "$6,020" in line)
    assert deck < fund, out
