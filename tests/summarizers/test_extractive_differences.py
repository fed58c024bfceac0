"""A change given with its difference ("came down $600, so it's $17,300", "涨了300，现在2100"):
the older value the difference leads to is the one replaced, whatever either statement names;
one it does not lead to, or leads to the other way, stays."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chatfold import SummaryRequest
from chatfold.summarizers.extractive import ExtractiveSummarizer
from chatfold.summarizers.extractive.changes import _topic
from chatfold.summarizers.extractive.differences import said_differences


def _fold(old: list[str], new: list[str]) -> str:
    """``old`` said, folded, then ``new`` (each user message answered) folded onto it."""
    lang = "en" if "".join(old + new).isascii() else "zh"
    ok = "OK." if lang == "en" else "好的。"

    def said(texts: list[str]) -> list[dict[str, Any]]:
        return [m for t in texts for m in ({"role": "user", "content": t},
                                            {"role": "assistant", "content": ok})]

    first = ExtractiveSummarizer().summarize(SummaryRequest("", said(old), lang, 400))
    return ExtractiveSummarizer().summarize(SummaryRequest(first, said(new), lang, 400))


@pytest.mark.parametrize(("old", "new", "gone", "kept"), [
    ("Found a 2019 Mazda CX-5 with 48k miles on a dealer lot, listed at $17,900.",
     "Called them back and they came down $600, so it's $17,300 before tax and fees.",
     "17,900", "17,300"),
    # the difference and the value in two sentences, naming nothing of what they change
    ("I got the interview! It's Thursday at 10:45 over Zoom.",
     "Recruiter just emailed, they pushed it back an hour. Same day, 11:45.", "10:45", "11:45"),
    ("We finally finished the wedding guest list: 112 people.",
     "Ugh, two more cousins, so we're at 114 now.", "112", "114"),
    ("The grant report is due March 14.", "They pushed everything back a week, to March 21.",
     "March 14", "March 21"),
    ("我现在房租每个月1800，押一付三。", "房东说涨了300，现在2100，唉。", "1800", "2100"),
    ("周六的羽毛球4点开始。", "提前了半小时，3点半到就行。", "4点", "3点半"),
    ("橱柜报价18600，含台面。", "嗯 橱柜那边说台面要换加厚的 贵了三百 现在18900", "18600", "18900"),
])
def test_the_value_a_difference_leads_to_is_replaced(old: str, new: str, gone: str,
                                                     kept: str) -> None:
    out = _fold([old], [new])
    assert gone not in out and kept in out, out


@pytest.mark.parametrize(("old", "new", "kept"), [
    # the other way: $600 off $17,900 is not $18,500
    ("The car is listed at $17,900.", "They came down $600, so it's $18,500 with fees.",
     "17,900"),
    # a small count that shares no word with what it would change
    ("My son is 12 and loves robotics.", "Two more kids signed up for the club, 14 now.",
     "12"),
    ("我们家预算一共3万。", "加了一堆亲戚，变成18桌了。", "3万"),
])
def test_a_difference_that_does_not_lead_there_changes_nothing(old: str, new: str,
                                                               kept: str) -> None:
    assert kept in _fold([old], [new])


@given(old=st.integers(150, 9000), size=st.integers(1, 900), up=st.booleans(),
       right=st.booleans())
def test_only_the_sum_the_difference_says_replaces(old: int, size: int, up: bool,
                                                   right: bool) -> None:
    new = old + size if up else old - size
    said = new if right else new + 7
    if said <= 0 or said == old:
        return
    word = "more" if up else "less"
    out = _fold([f"The quote for the fence was ${old:,}."],
                [f"He called back: ${size:,} {word}, so ${said:,} all in."])
    quote = next(line for line in out.splitlines() if "quote for the fence" in line)
    assert quote.endswith(f"${said if right else old:,}."), out


def test_differences_are_read_only_where_a_number_is_said_to_move() -> None:
    assert said_differences("差不多3000吧") == ()
    assert said_differences("早8点到，预算2000") == ()
    assert said_differences("One more thing, the budget is 5,000.") == ()
    assert said_differences("加了一堆亲戚，变成18桌了") == ()
    (moved,) = said_differences("they pushed it back an hour. Same day, 11:45.")
    assert (moved.kind, moved.size, moved.sign, moved.fresh) == ("minutes", 60, 1, {"11:45"})


def test_a_noun_before_dao_stays_in_the_topic() -> None:
    # "存款到3.6万了" speaks of 存款; "瘦到78公斤" leaves its verb out.
    assert "存款" in _topic("存款到3.6万了")
    assert _topic("体重瘦到78公斤") == _topic("体重现在78公斤")
