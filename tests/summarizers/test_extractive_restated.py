"""A value said again of the same thing in the same measure, no word of change (``restated.py``):
the newer one holds; nothing else's value, no other measure, no assistant's words are touched."""

from __future__ import annotations

import pytest
from _folds import assistant, folds, user
from hypothesis import given
from hypothesis import strategies as st

from chatfold.summarizers.extractive.changes import _values
from chatfold.summarizers.extractive.items import _Item
from chatfold.summarizers.extractive.lexicon import _FACTS
from chatfold.summarizers.extractive.restated import restated_values


@pytest.mark.parametrize(("lang", "first", "then", "now", "gone"), [
    # The thing is named by another sentence of the message: "$236/mo." alone names nothing.
    ("en", "Got the letter: my Medigap premium is $212 a month.",
     "The medigap renewal came in the mail. $236/mo.", "$236", "$212"),
    ("en", "The dog walker charges $18 per walk, Tuesdays and Fridays.",
     "dog walker sent her new price list, $21 per walk from March", "$21", "$18"),
    # A unit said in the other language's way: "20mg" / "40毫克".
    ("zh", "我妈的阿托伐他汀每晚一片 20mg，饭后吃。",
     "这回门诊开的阿托伐他汀是40毫克的，每晚一片。", "40毫克", "20mg"),
    # A number in Chinese numerals, per the same span: "一年一千二" / "一年一千四百八".
    ("zh", "给我妈买了个防癌医疗险，一年一千二，七十岁还能买。",
     "防癌医疗险的续费通知来了，一年一千四百八，涨得有点快", "一千四百八", "一千二"),
])
def test_a_value_said_again_of_the_same_thing_replaces_the_old(
        lang: str, first: str, then: str, now: str, gone: str) -> None:
    out = folds(lang, [user(first), assistant("OK." if lang == "en" else "好的。")],
                [user(then), assistant("Noted." if lang == "en" else "记下了。")])
    assert now in out and gone not in out, out


@pytest.mark.parametrize(("lang", "first", "then", "kept"), [
    # someone else's
    ("en", "Our rent for the flat on Hale Street is $1,900 a month.",
     "My sister's rent for her flat on Hale Street is $2,400 a month.", "$1,900"),
    # per another thing: per person, per square metre
    ("zh", "年货预算每人50以内，给村里的小孩买。", "装修预算每平100以内，厨房墙砖要换。", "50"),
    # another measure of the same thing: a time is no price
    ("en", "The piano lessons with Ms Farrow are Thursdays at 4:30.",
     "The piano lessons with Ms Farrow cost $45 each.", "4:30"),
    # one short name in common is not the same thing
    ("en", "Ivy's swim class starts at 5:15.", "Ivy takes the bus now, pickup at 7:12.", "5:15"),
    # what was done that day is an event, not what holds now
    ("zh", "我每天跑5公里，坚持两年了。", "今天跑了8公里，腿好酸。", "5公里"),
])
def test_a_value_of_something_else_leaves_the_old(lang: str, first: str, then: str,
                                                  kept: str) -> None:
    out = folds(lang, [user(first), assistant("OK." if lang == "en" else "好的。")],
                [user(then), assistant("Noted." if lang == "en" else "记下了。")])
    assert kept in out, out


_THINGS = ["flat rent", "medigap premium", "dog walker", "maths tutor", "公寓房租", "防癌医疗险",
           "医院护工"]
_VALUES = ["$1,900 a month", "$2,100 a month", "$18 per walk", "$21 per walk", "4:30", "5:15",
           "每月6800", "每月7200", "一天280", "一天320", "20mg", "40mg"]
_TEMPLATES = ["The {t} is {v}.", "My {t}: {v}", "{t} {v}", "{t}是{v}。", "我的{t}{v}"]
_SPEAKERS = ["User: ", "Assistant: "]

statement = st.builds(
    lambda tpl, t, v, who: (who, tpl.format(t=t, v=v)),
    st.sampled_from(_TEMPLATES), st.sampled_from(_THINGS), st.sampled_from(_VALUES),
    st.sampled_from(_SPEAKERS))


@given(st.lists(statement, max_size=10), st.integers(0, 10))
def test_only_an_older_user_statement_takes_a_value_a_newer_one_gave(
        rows: list[tuple[str, str]], carried: int) -> None:
    items = [_Item.make(tag, body, _FACTS, 5.0, n - carried,
                        "assistant" if tag.startswith("Assistant") else "user", False)
             for n, (tag, body) in enumerate(rows)]
    for n, it in enumerate(items):
        it.msg = n - carried if n >= carried else -1
    before = [it.body for it in items]
    kept = restated_values(list(items))
    for n, it in enumerate(items):
        if it.body == before[n]:
            continue
        assert it.tag == "User: ", (before, it.body)  # never the assistant's words
        later = set().union(*(_values(x.body)[0] for x in items[n + 1:]
                              if x.tag == it.tag and x.msg >= 0))
        # what it says now that it did not is what a newer statement of the user's said
        assert _values(it.body)[0] - _values(before[n])[0] <= later, (before, it.body)
        assert it in kept or not it.body

