"""Invariants of the two update passes (``changes.py``, ``quantities.py``): without a word of
change nothing is replaced, the assistant's statements are rewritten only by its own statement of
change, and a change only ever touches an older statement by the same speaker."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from chatfold.summarizers.extractive.changes import (
    _CHANGE,
    _CHANGE_KEYS,
    _ENDED,
    _ENDED_KEYS,
    _WEAK_CHANGE,
    _has,
    end_states,
    replace_instructions,
    supersede_changes,
)
from chatfold.summarizers.extractive.changes import _says_change as _says_changed
from chatfold.summarizers.extractive.items import _Item
from chatfold.summarizers.extractive.lexicon import _FACTS
from chatfold.summarizers.extractive.quantities import _CORRECTION, correct_quantities

_THINGS = ["meeting", "flight", "guests", "postcards", "chairs", "会议", "航班", "客人", "伴手礼"]
_VALUES = ["Tuesday", "3pm", "BA117", "40", "17", "周二", "三点", "CA1234", "20份", "10am"]
_EN = ["The {t} is {v}.", "We need {v} {t}.", "My {t} was {v} last week.", "The {t} moved to {v}.",
       "Make it {v} {t} instead.", "I booked {v} {t} yesterday.", "I sold the {t} on {v}.",
       "The {t} is {v} now.", "My new {t} is {v}."]
_ZH = ["{t}是{v}。", "{t}改到{v}了。", "我们要{v}{t}。", "{t}定在{v}。", "不好意思，{t}改成{v}。",
       "{t}现在是{v}。", "我现在的{t}是{v}。"]
_SPEAKERS = ["User: ", "Assistant: ", "Caroline: "]

statement = st.builds(
    lambda tpl, t, v, who: (who, tpl.format(t=t, v=v)),
    st.sampled_from(_EN + _ZH), st.sampled_from(_THINGS), st.sampled_from(_VALUES),
    st.sampled_from(_SPEAKERS),
)


def _says_change(text: str) -> bool:
    return bool(_says_changed(text) or _CORRECTION.search(text) or _ENDED.search(text))


def _items(rows: list[tuple[str, str]]) -> list[_Item]:
    return [
        _Item.make(tag, body, _FACTS, 5.0, n, "assistant" if tag.startswith("Assistant")
                   else "user", False)
        for n, (tag, body) in enumerate(rows)
    ]


def _apply(rows: list[tuple[str, str]]) -> tuple[list[_Item], list[_Item]]:
    items = _items(rows)
    passes = supersede_changes(correct_quantities(list(items)))
    return items, end_states(replace_instructions(passes))


@given(st.lists(statement, max_size=12))
def test_the_assistant_is_rewritten_only_by_its_own_change(rows: list[tuple[str, str]]) -> None:
    # "Booked: dentist on Thursday" → the assistant's "Changed: dentist on Tuesday"; never by
    # the user's words.
    items, kept = _apply(rows)
    for n, ((tag, body), it) in enumerate(zip(rows, items, strict=True)):
        if tag.startswith("Assistant") and (it.body != body or it not in kept):
            assert any(t.startswith("Assistant") and _says_changed(b) for t, b in rows[n + 1:])


@given(st.lists(statement, max_size=12))
def test_only_a_statement_of_change_replaces_anything(rows: list[tuple[str, str]]) -> None:
    items, kept = _apply(rows)
    changed = [n for n, ((_, body), it) in enumerate(zip(rows, items, strict=True))
               if it.body != body or it not in kept]
    for n in changed:
        tag = rows[n][0]
        # An older statement changed only if a later one by the same speaker says it changes.
        later = [body for t, body in rows[n + 1:] if t == tag]
        said_itself = _says_change(rows[n][1])
        assert any(_says_change(b) for b in later) or said_itself


@given(st.lists(statement.filter(lambda r: not _says_change(r[1])), max_size=12))
def test_without_words_of_change_nothing_changes(rows: list[tuple[str, str]]) -> None:
    _, kept = _apply(rows)
    assert [it.body for it in kept] == [body for _, body in rows]


_CHANGE_SAMPLES = [
    "the renewal goes to twenty-six hundred", "premium jumped to $212", "rose to 4.1",
    "以后最少起订400斤", "下季度起每月九千二", "从下个月开始每周3次", "下午班提前半小时，两点开始",
    "不是礼拜三了，改礼拜五", "it should be 9 cases of the hex jars",
    "the required amount went up", "it's gone down",
    "I no longer eat meat", "not any more", "use this instead", "we changed it", "it moved",
    "I switched", "updated today", "I turned 35", "she became a lead", "the price is now 5",
    "now is 3pm", "from now on", "postponed", "rescheduled", "delayed", "pushed back to May",
    "bumped up to 6", "raised to 9", "lowered to 2", "increased to 7", "reduced to 1",
    "dropped to 4", "went up to 8", "went down to 3", "grew to 10", "改成5份", "改为周三",
    "改到周三", "改在三楼", "换成茶", "换到二楼", "变成红色", "变为十人", "搬到上海",
    "搬去深圳", "跳槽到腾讯", "推迟到周五", "提前到周一", "延期一周", "延到明天", "不再喝",
    "以后请用这个邮箱", "更新一下", "调整为三人", "调到九点", "增加到十人", "减少到五人",
    "降到100元", "涨到200元", "升到经理", "现在是十点", "set the thermostat to 21",
    "the landlord raised our rent to $1,950", "please update my address to 12 Oak St.",
    "extended to Feb 20", "延长到3月", "换号了", "I meant Munich", "Correction: 4pm",
    "sorry, typo", "not Saturday but Sunday", "我说错了", "更正一下", "打错了", "不是周六，是周日",
    "since we moved", "搬家以后通勤", "升四年级", "guest count is up to 55", "换了新领导",
]
_ENDED_SAMPLES = ["I sold the car", "I quit", "I resigned from Acme", "no longer there",
                  "I gave up smoking", "we broke up with them", "divorced", "moved out of Leeds",
                  "I don't eat it any more", "不再喝了", "车卖了", "我辞职了", "我离职了",
                  "烟戒了", "我们分手了", "不喝咖啡了", "I'm not vegetarian anymore",
                  "I'm no longer a member", "我从阿里巴巴离职了", "从北京搬走了", "我从腾讯退休了"]


_WEAK_SAMPLES = ["I'm 78 kg now", "now 5", "down to 78 kg", "down to $40", "my new number is",
                 "the new office address is", "现在每天跑10公里", "新号码是", "新地址为",
                 "these days I run 10 km", "lately", "nowadays", "currently", "just started",
                 "最近能睡8个小时了", "如今", "目前", "这阵子", "New number: 555-0123",
                 "so I'm at 8 hives", "we're now at 134"]
_TO_VALUE_SAMPLES = ["瘦到78公斤", "跑到10公里了", "长到一米八"]


def test_the_substring_filters_never_reject_a_word_of_change() -> None:
    # The key tuples are a hand-kept shortcut in front of the regexes: each cue the regex
    # accepts must pass the shortcut, or a change would be silently ignored.
    for text in _CHANGE_SAMPLES:
        assert _CHANGE.search(text), text
        assert _has(text, _CHANGE_KEYS), text
    for text in _WEAK_SAMPLES:
        assert _WEAK_CHANGE.search(text), text
        assert _has(text, _CHANGE_KEYS), text
    for text in _TO_VALUE_SAMPLES:
        assert _says_changed(text) == 1, text
        assert _has(text, _CHANGE_KEYS), text
    assert not _says_changed("从5点到7点")  # a range's end is no new value
    for text in _ENDED_SAMPLES:
        assert _ENDED.search(text), text
        assert _has(text, _ENDED_KEYS), text
