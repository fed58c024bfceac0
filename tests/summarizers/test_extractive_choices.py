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
