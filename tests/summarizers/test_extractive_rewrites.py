"""A value rewritten into an older statement (``changes.py``, ``quantities.py``) goes only where
the same thing is measured: found by logging every rewrite on long folded chats, each of these
once wrote a value into a statement about something else."""

from __future__ import annotations

import pytest
from _folds import assistant, folds, user

from chatfold.summarizers.extractive.changes import _pair


def turn(lang: str, text: str) -> list[dict[str, str]]:
    return [user(text), assistant("OK." if lang == "en" else "好的。")]


def test_a_phone_call_is_no_phone_number() -> None:
    # "打电话说…" filled the phone slot: a new number took the whole clause out, leaving
    # "小周今天中午打¥5,100一个月".
    out = folds("zh", turn("zh", "小周今天中午打电话说她去跟林晓雯聊了，¥5,100一个月，"
                                 "她说这两天出合同。"),
                turn("zh", "林晓雯换号了，新号139 5802 7713，帮我改一下"))
    assert "打电话说她去跟林晓雯聊了" in out, out
    assert "139 5802 7713" in out, out


def test_a_new_phone_number_still_replaces_the_old() -> None:
    out = folds("zh", turn("zh", "我的手机号是13905712846，快递都打这个"),
                turn("zh", "我换号了，手机号改成18621337509"))
    assert "18621337509" in out and "13905712846" not in out, out


@pytest.mark.parametrize("then", [
    "燃气公司又打电话来，说上午排满了，改到同一天下午两点半",  # the same day, not one day
    "酒店那边改成一天一结了",  # a day each, not one day
])
def test_a_day_that_is_no_count_corrects_no_count(then: str) -> None:
    out = folds("zh", turn("zh", "大理租车订了，七座的，五天，取车在大理站，她说这两天出合同"),
                turn("zh", then))
    assert "五天" in out and "这两天" in out, out


def test_a_correction_to_a_count_still_corrects_it() -> None:
    out = folds("zh", turn("zh", "周五团建要订40份盒饭，找楼下那家老乡鸡"),
                turn("zh", "盒饭改成55份"))
    assert "55份盒饭" in out and "40份" not in out, out


def test_a_number_with_thousands_is_one_value() -> None:
    # "¥4,800,九月一号开始" (commas as typed on a phone) was read as "4" by a clause split at
    # every comma: "…¥4一个月…".
    out = folds("zh", turn("zh", "小周今天中午打电话说她去跟林晓雯聊了,对方同意续约,¥5,100一个月,"
                                 "她说这两天出合同。"),
                turn("zh", "林晓雯后来私下找小周说阿杰今年公司在裁员,"
                           "最后谈下来是¥4,800,九月一号开始。"))
    assert "¥4,800一个月" in out and "¥4一个月" not in out, out


def test_an_email_renames_no_one() -> None:
    # (in one fold: the next turn's "her" took "Dave" for the thing whose email it set)
    out = folds("en", [user("Hey Dave, not everything has been going smoothly with the move."),
                       assistant("Oh no, what happened?"),
                       user("Set her email to m.dupont-atelier@proton.me please."),
                       assistant("Done.")])
    assert "Hey Dave" in out, out


def test_another_doctor_is_no_new_name_for_one_seen() -> None:
    out = folds("en", turn("en", "I have my first physical therapy session with Dr. Okafor on "
                                 "Thursday at 2:50 for my shoulder."),
                turn("en", "My primary care doc is Dr. Abernathy at Cedar Ridge now."))
    assert "with Dr. Okafor" in out, out


def test_a_doctor_who_holds_a_role_is_replaced() -> None:
    out = folds("en", turn("en", "My GP, Dr. Lindqvist, wants me to get a fasting lipid panel."),
                turn("en", "Switched practices, my GP is Dr. Abernathy now."))
    assert "Dr. Abernathy" in out and "Lindqvist" not in out, out


def test_a_number_inside_a_longer_one_is_not_rewritten() -> None:
    out = folds("zh", [user("我们羽毛球群每周六下午3点在奥体打，订的是7号场。"),
                       assistant("好的。"),
                       user("Redis 7 支持 Functions 吗"),
                       assistant("不支持，Redis Functions 是 7.0 才引入的。"),
                       user("场馆那边通知，以后都换到12号场了，公告帮我改一下。"),
                       assistant("好的，已改成12号场。")])
    assert "12号场" in out and "7.0" in out and "12.0" not in out, out
    out = folds("zh", [user("我们婚礼暂定20桌，酒店一桌3888"),
                       assistant("一小时十分钟再留15分钟余量，7:20出门比较稳。"),
                       user("最后定了22桌，跟酒店合同已经签了"), assistant("好的。")])
    assert "22桌" in out and "7:20" in out and "7:22" not in out, out


def test_an_echo_of_another_measure_keeps_its_number() -> None:
    out = folds("zh", [user("我们婚礼暂定20桌，酒店一桌3888"),
                       assistant("从酒店开车过去大概20分钟，20桌的话菜钱是77760元。"),
                       user("最后定了22桌，跟酒店合同已经签了"), assistant("好的。")])
    assert "20分钟" in out and "22分钟" not in out, out


def test_a_ratio_is_no_time() -> None:
    out = folds("zh", turn("zh", "16:9的物理分辨率，整体看起来屏幕比较矮，看高清不错"),
                turn("zh", "医院刚发短信，说礼拜五那个号改到三点一刻了"))
    assert "16:9" in out, out


def test_a_name_ending_in_am_is_no_time() -> None:
    # "Sam" ends in "am": it was read as a time and "5:15" written over it.
    out = folds("en", [user("I'm here for you, Sam."), assistant("Thanks, that means a lot."),
                       user("tutor texted, she has to push Ivy to 5:15."), assistant("Noted.")])
    assert "for you, Sam" in out, out


def test_a_code_is_no_new_name() -> None:
    # "Good luck with Toby!" became "Good luck with CHA2DS2-VASc!": a name and a code were one
    # kind of value, a word.
    assert _pair(frozenset({"toby"}), frozenset({"cha2ds2-vasc"}), True) is None
    assert _pair(frozenset({"ba117"}), frozenset({"ba119"}), False) == ("ba117", "ba119")


def test_a_price_is_no_count() -> None:
    out = folds("en", turn("en", "started a sourdough subscription thing, 31 members so far, they "
                                 "pick up saturday mornings."),
                turn("en", "we went to $7.50 on the sourdough."))
    assert "31 members" in out and "7.50 members" not in out, out


def test_an_id_is_no_amount() -> None:
    out = folds("en", [user("HiWi pay is €13.25/h and its a minijob I think"),
                       assistant("Is that your tax ID on the form?"),
                       user("it's 3318842 I think yes."), assistant("OK.")])
    assert "€13.25" in out, out

