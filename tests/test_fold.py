"""The configurable fold: Policy, Folder.fold / afold, FoldResult."""

from __future__ import annotations

import asyncio
import copy
import logging
import time
from typing import Any

import pytest

from chatfold import (
    ContextOverflowError,
    Folder,
    InvalidMessageError,
    InvalidPolicyError,
    Policy,
    SummarizerError,
    find_orphans,
    plan_fold,
)
from chatfold.fold import summary_text
from chatfold.tokens import HeuristicCounter

from helpers import FakeSummarizer, SeedLLM, chat, tool_turn

POLICY = Policy(trigger_tokens=1000, target_tokens=600, keep=4, summary_max_tokens=150)


def summaries(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in messages if m.get("is_summary")]


# --- policy -------------------------------------------------------------------------------


def test_policy_defaults_follow_the_seed() -> None:
    p = Policy()
    assert (p.trigger_tokens, p.keep) == (3000, 4)  # the seed's
    assert p.summary_max_tokens == 700  # 400 (the seed's) + a tenth of the trigger
    assert p.target == 850  # the summary's cap + a twentieth of the trigger
    assert p.min_gain == 300  # a tenth of the trigger


@pytest.mark.parametrize(
    ("kwargs", "option"),
    [
        ({"trigger_tokens": 0}, "trigger_tokens"),
        ({"trigger_tokens": 1000, "target_tokens": 1001}, "target_tokens"),
        ({"keep": -1}, "keep"),
        ({"summary_max_tokens": 3000}, "summary_max_tokens"),
        ({"language": "fr"}, "language"),
        ({"system_messages": "drop"}, "system_messages"),
        ({"on_overflow": "ignore"}, "on_overflow"),
        ({"summarizer_timeout": 0}, "summarizer_timeout"),
    ],
)
def test_policy_rejects_bad_options(kwargs: dict[str, Any], option: str) -> None:
    with pytest.raises(InvalidPolicyError) as info:
        Policy(**kwargs)
    assert info.value.option == option
    assert option in str(info.value)


# --- when to fold ---------------------------------------------------------------------------


def test_under_trigger_returns_the_same_list_and_calls_nothing(driver: Any) -> None:
    fake = FakeSummarizer()
    messages = chat(4)
    result = driver(Folder(fake, POLICY), messages)
    assert result.messages is messages
    assert not result.folded and result.reason == "under_trigger"
    assert fake.calls == 0


def test_fold_lands_at_target_with_one_summary(driver: Any) -> None:
    fake = FakeSummarizer()
    messages = chat(60)
    before = copy.deepcopy(messages)
    folder = Folder(fake, POLICY)
    result = driver(folder, messages)
    assert result.folded and fake.calls == 1
    out = result.messages
    assert out[0] is messages[0]
    assert out[1]["is_summary"] is True and out[1]["role"] == "system"
    assert out[1]["content"].startswith("Summary of the earlier conversation: ")
    assert len(summaries(out)) == 1
    assert out[-4:] == messages[-4:] and all(a is b for a, b in zip(out[-4:], messages[-4:]))
    assert result.tokens_after <= POLICY.target
    assert result.tokens_after == folder.count(out)
    assert result.messages_folded == len(messages) - len(out) + 1
    assert messages == before  # the input is never mutated


def test_recent_window_grows_beyond_keep_up_to_the_target(driver: Any) -> None:
    result = driver(Folder(FakeSummarizer(), POLICY), chat(60))
    assert len(result.messages) - 2 > POLICY.keep


def test_the_summarizer_gets_previous_summary_and_old_messages(driver: Any) -> None:
    fake = FakeSummarizer()
    folder = Folder(fake, POLICY)
    first = driver(folder, chat(60))
    grown = first.messages + chat(40, system=False)
    driver(folder, grown)
    assert fake.calls == 2
    second = fake.requests[1]
    assert second.previous_summary == first.summary
    assert all(not m.get("is_summary") for m in second.messages)
    assert second.messages[0] is grown[2]  # the first message after the old summary


def test_nothing_to_fold_means_no_call(driver: Any) -> None:
    fake = FakeSummarizer()
    big = [{"role": "user", "content": "word " * 1200},
           {"role": "assistant", "content": "ok " * 300}]
    result = driver(Folder(fake, Policy(trigger_tokens=1000, target_tokens=990, keep=4,
                                        summary_max_tokens=100)), big)
    assert result.reason == "nothing_to_fold" and fake.calls == 0
    assert result.messages is big


def test_folding_twice_with_nothing_new_is_a_no_op(driver: Any) -> None:
    fake = FakeSummarizer()
    folder = Folder(fake, POLICY)
    first = driver(folder, chat(60))
    again = driver(folder, first.messages)
    assert not again.folded and again.messages is first.messages
    forced = driver(folder, first.messages, force=True)
    assert not forced.folded and fake.calls == 1


def test_calls_stay_close_to_tokens_added_over_the_gap() -> None:
    fake = FakeSummarizer()
    folder = Folder(fake, POLICY)
    counter = HeuristicCounter()
    messages = chat(0)
    added = 0
    for m in chat(400, system=False):
        added += counter.count_message(m)
        messages = folder.fold([*messages, m]).messages
        assert folder.count(messages) <= POLICY.trigger_tokens
    bound = added / (POLICY.trigger_tokens - POLICY.target)
    assert fake.calls <= bound + 1
    assert fake.calls >= bound / 2


def test_large_keep_window_waits_for_a_worthwhile_fold() -> None:
    # Each message is ~57 tokens; keep=15 alone is ~850 of a 1000 trigger: folding one
    # message per turn would be the seed's behaviour. A fold that cannot reach the target
    # waits until it frees a tenth of the trigger (two messages here).
    policy = Policy(trigger_tokens=1000, target_tokens=600, keep=15, summary_max_tokens=100)
    assert policy.min_gain == 100
    fake = FakeSummarizer()
    folder = Folder(fake, policy)
    messages = chat(0)
    turns = 0
    for m in chat(120, words=40, system=False):
        messages = folder.fold([*messages, m]).messages
        turns += 1
    assert fake.calls <= turns / 2
    freed = [r for r in fake.requests]
    assert all(len(r.messages) >= 2 for r in freed)


def test_force_folds_under_the_trigger(driver: Any) -> None:
    fake = FakeSummarizer()
    result = driver(Folder(fake, POLICY), chat(12), force=True)
    assert result.folded and fake.calls == 1


# --- units ----------------------------------------------------------------------------------


def test_recent_window_never_starts_with_a_tool_result(driver: Any) -> None:
    policy = Policy(trigger_tokens=300, target_tokens=200, keep=2, summary_max_tokens=40)
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are helpful."}]
    for i in range(30):
        messages += tool_turn(i, results=3)
    for cut in range(5, len(messages)):
        result = driver(Folder(FakeSummarizer(), policy), messages[:cut])
        assert find_orphans(result.messages) == []
        if result.folded:
            first_recent = result.messages[2]
            assert first_recent["role"] != "tool"


def test_keep_is_widened_to_whole_units(driver: Any) -> None:
    messages = chat(40) + tool_turn(99, results=3)
    policy = Policy(trigger_tokens=600, target_tokens=300, keep=3, summary_max_tokens=40)
    result = driver(Folder(FakeSummarizer(), policy), messages)
    tail = result.messages[2:]
    assert result.folded
    # The last 3 messages are two tool results and the answer: their call comes along.
    call = messages[-5]
    assert call.get("tool_calls") and any(m is call for m in tail)
    assert all(any(m is r for m in tail) for r in messages[-4:-1])


def test_anthropic_tool_blocks_are_units(driver: Any) -> None:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "sys"}]
    for i in range(25):
        messages += [
            {"role": "user", "content": f"question {i} " + "pad " * 40},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": f"tu{i}", "name": "search", "input": {"q": str(i)}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"tu{i}", "content": "found " * 30}]},
            {"role": "assistant", "content": f"answer {i}"},
        ]
    policy = Policy(trigger_tokens=800, target_tokens=500, keep=2, summary_max_tokens=60)
    for cut in range(4, len(messages), 3):
        result = driver(Folder(FakeSummarizer(), policy), messages[:cut])
        assert find_orphans(result.messages) == []


# --- pinned and system messages ---------------------------------------------------------------


def test_pinned_messages_survive_in_order(driver: Any) -> None:
    messages = chat(60)
    messages[5] = {**messages[5], "pinned": True}
    messages.insert(20, {"role": "system", "content": "Mid-conversation rule: answer in French."})
    result = driver(Folder(FakeSummarizer(), POLICY), messages)
    head = result.messages[:3]
    assert head == [messages[0], messages[5], messages[20]]
    assert result.messages[3]["is_summary"]


def test_system_messages_fold_mode_folds_mid_conversation_system(driver: Any) -> None:
    fake = FakeSummarizer()
    messages = chat(60)
    note = {"role": "system", "content": "Reminder: the user is on the premium plan."}
    messages.insert(10, note)
    policy = Policy(trigger_tokens=1000, target_tokens=600, keep=4, summary_max_tokens=150,
                    system_messages="fold")
    result = driver(Folder(fake, policy), messages)
    assert note not in result.messages
    assert any(m is note for m in fake.requests[0].messages)
    assert result.messages[0] is messages[0]


def test_every_existing_summary_is_read(driver: Any) -> None:
    fake = FakeSummarizer()
    messages = chat(60)
    messages[1:1] = [
        {"role": "system", "content": "历史摘要: 用户叫小王。", "is_summary": True},
        {"role": "system", "content": "历史摘要: 用户住在杭州。", "is_summary": True},
    ]
    result = driver(Folder(fake, POLICY), messages)
    assert fake.requests[0].previous_summary == "用户叫小王。\n用户住在杭州。"
    assert len(summaries(result.messages)) == 1


# --- overflow -------------------------------------------------------------------------------


def test_overflow_raises_with_the_figures(driver: Any) -> None:
    fake = FakeSummarizer()
    messages = chat(30) + [{"role": "user", "content": "huge " * 1200}]  # over the trigger
    with pytest.raises(ContextOverflowError) as info:
        driver(Folder(fake, POLICY), messages)
    err = info.value
    assert err.target == POLICY.target and err.tokens > err.target
    assert err.tokens == err.pinned_tokens + err.latest_unit_tokens
    assert fake.calls == 0


def test_overflow_keep_returns_best_context_and_warns(
    driver: Any, caplog: pytest.LogCaptureFixture
) -> None:
    policy = Policy(trigger_tokens=1000, target_tokens=600, keep=1, summary_max_tokens=100,
                    on_overflow="keep")
    messages = chat(30) + [{"role": "user", "content": "huge " * 900}]
    with caplog.at_level(logging.WARNING, logger="chatfold"):
        result = driver(Folder(FakeSummarizer(), policy), messages)
    assert result.folded and result.over_target
    assert result.messages[-1] is messages[-1]
    assert any("exceed the target" in r.message for r in caplog.records)


def test_a_latest_unit_over_the_target_but_under_the_trigger_is_kept(driver: Any) -> None:
    # The deep default target is a preference: a long question that fits the trigger is kept
    # and everything else folded, not an error.
    policy = Policy(trigger_tokens=3000, keep=1)
    messages = chat(60) + [{"role": "user", "content": "long " * 1300}]
    result = driver(Folder(FakeSummarizer(), policy), messages)
    assert result.folded and result.over_target and result.plan.overflow
    assert result.messages[-1] is messages[-1] and result.tokens_after <= 3000


# --- summarizer failures ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [RuntimeError("model down"), "", "   \n ", TimeoutError("read timed out"), 42],
)
def test_a_failing_summarizer_changes_nothing(driver: Any, reply: Any) -> None:
    messages = chat(60)
    before = copy.deepcopy(messages)
    with pytest.raises(SummarizerError) as info:
        driver(Folder(FakeSummarizer(reply), POLICY), messages)
    if isinstance(reply, BaseException):
        assert info.value.__cause__ is reply
    assert messages == before


def test_on_error_return_gives_the_input_back(
    driver: Any, caplog: pytest.LogCaptureFixture
) -> None:
    messages = chat(60)
    policy = Policy(trigger_tokens=1000, target_tokens=600, on_error="return",
                    summary_max_tokens=150)
    with caplog.at_level(logging.WARNING, logger="chatfold"):
        result = driver(Folder(FakeSummarizer(RuntimeError("down")), policy), messages)
    assert result.messages is messages and not result.folded
    assert result.reason == "summarizer_error" and isinstance(result.error, SummarizerError)
    assert any("fold failed" in r.message for r in caplog.records)


class SlowSummarizer:
    accepts_request = True

    def summarize(self, request: Any) -> str:
        time.sleep(2)
        return "late"

    async def asummarize(self, request: Any) -> str:
        await asyncio.sleep(2)
        return "late"


def test_a_slow_summarizer_times_out(driver: Any) -> None:
    policy = Policy(trigger_tokens=1000, target_tokens=600, summary_max_tokens=150,
                    summarizer_timeout=0.1)
    with pytest.raises(SummarizerError) as info:
        driver(Folder(SlowSummarizer(), policy), chat(60))
    assert info.value.retryable


# --- the cap --------------------------------------------------------------------------------


def test_overlong_summary_is_re_asked_once_then_accepted(driver: Any) -> None:
    fake = FakeSummarizer("long sentence. " * 200, "A short summary.")
    result = driver(Folder(fake, POLICY), chat(60))
    assert fake.calls == 2 and result.summarizer_calls == 2
    assert fake.requests[1].attempt == 2
    assert fake.requests[1].target_tokens is not None
    assert fake.requests[1].target_tokens < POLICY.summary_max_tokens
    assert result.summary == "A short summary." and not result.truncated


def test_still_overlong_summary_is_cut_at_a_sentence(driver: Any) -> None:
    long = " ".join(f"Fact number {i} is important." for i in range(300))
    fake = FakeSummarizer(long, long)
    folder = Folder(fake, POLICY)
    result = driver(folder, chat(60))
    assert result.truncated and result.summary is not None
    assert folder.counter.count(result.summary) <= POLICY.summary_max_tokens
    assert result.summary.endswith(".")
    assert result.tokens_after <= POLICY.target


def test_summary_stays_bounded_over_many_rolls() -> None:
    fake = FakeSummarizer(fn=lambda r: r.previous_summary + " More facts were added. " * 20)
    folder = Folder(fake, POLICY)
    messages = chat(0)
    for m in chat(600, system=False):
        messages = folder.fold([*messages, m]).messages
    s = summaries(messages)
    assert len(s) == 1
    assert folder.counter.count(summary_text(s[0])) <= POLICY.summary_max_tokens


# --- input validation -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "fragment"),
    [
        ({"content": "no role"}, "missing 'role'"),
        ({"role": "bot", "content": "x"}, "unknown role 'bot'"),
        ({"role": "user", "content": 42}, "content must be a string"),
        ({"role": "user", "content": None}, "content is None"),
        ({"role": "tool", "content": "x"}, "tool_call_id"),
        ({"role": "user", "content": [{"text": "no type"}]}, "content[0]"),
        ("just a string", "expected a dict"),
    ],
)
def test_malformed_messages_name_index_and_problem(
    driver: Any, bad: Any, fragment: str
) -> None:
    messages: list[Any] = chat(3)
    messages.insert(2, bad)
    with pytest.raises(InvalidMessageError) as info:
        driver(Folder(FakeSummarizer(), POLICY), messages)
    assert info.value.index == 2
    assert fragment in str(info.value) and "message 2" in str(info.value)


def test_a_string_instead_of_a_list_is_rejected() -> None:
    with pytest.raises(InvalidMessageError):
        Folder(FakeSummarizer(), POLICY).fold("hello")  # type: ignore[arg-type]


# --- content shapes ---------------------------------------------------------------------------


def test_every_content_shape_reaches_the_summarizer_as_text(driver: Any) -> None:
    fake = FakeSummarizer()
    messages: list[dict[str, Any]] = [{"role": "system", "content": "sys"}]
    messages += [
        {"role": "user", "name": "alice", "content": [
            {"type": "text", "text": "Here is my receipt, order #A-1029."},
            {"type": "image_url", "image_url": {"url": "https://example.test/r.png"}},
            {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
            {"type": "file", "file": {"filename": "invoice.pdf"}},
        ]},
        *tool_turn(1),
    ] * 1
    messages += chat(60, system=False)
    driver(Folder(fake, POLICY), messages)
    transcript = fake.requests[0].transcript()
    assert "user (alice): Here is my receipt, order #A-1029." in transcript
    assert "[image: https://example.test/r.png]" in transcript
    assert "[audio]" in transcript and "[file: invoice.pdf]" in transcript
    assert 'get_weather({"city": "City1-0"})' in transcript
    assert "tool (get_weather, id=call_1_0): 21°C and sunny in City1" in transcript
    assert "None" not in transcript.split("\n")[1]


# --- language -------------------------------------------------------------------------------


def test_chinese_conversation_gets_the_seed_prefix(driver: Any) -> None:
    fake = FakeSummarizer("用户计划去杭州。")
    result = driver(Folder(fake, POLICY), chat(60, lang="zh"))
    assert result.messages[1]["content"] == "历史摘要: 用户计划去杭州。"
    assert fake.requests[0].language == "zh"


def test_the_users_words_decide_the_language(driver: Any) -> None:
    # An English system prompt, JSON tool results and English replies; the user writes Chinese.
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a travel agent."}]
    for i in range(40):
        messages += [
            {"role": "user", "content": f"帮我查一下第{i}天去Lisbon的航班。"},
            {"role": "assistant", "content": None, "tool_calls": [{
                "id": f"c{i}", "type": "function",
                "function": {"name": "search_flights", "arguments": '{"to": "Lisbon"}'}}]},
            {"role": "tool", "tool_call_id": f"c{i}",
             "content": '{"flights": [{"no": "TP123", "dep": "09:40", "price_eur": 120}]}'},
            {"role": "assistant", "content": "Found TP123 at 09:40 for 120 EUR, Lisbon Portela."},
        ]
    fake = FakeSummarizer("用户在查去里斯本的航班。")
    driver(Folder(fake, POLICY), messages)
    assert fake.requests[0].language == "zh"
    # With no word of the user's to go by, all the text decides.
    english = [m for m in messages if m["role"] != "user"]
    fake = FakeSummarizer()
    driver(Folder(fake, POLICY), english * 2)
    assert fake.requests[0].language == "en"


def test_language_can_be_forced(driver: Any) -> None:
    fake = FakeSummarizer()
    policy = Policy(trigger_tokens=1000, target_tokens=600, summary_max_tokens=150, language="zh")
    driver(Folder(fake, policy), chat(60))
    assert fake.requests[0].language == "zh"


# --- observability --------------------------------------------------------------------------


def test_fold_logs_one_info_line_and_reports(
    driver: Any, caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[Any] = []
    folder = Folder(FakeSummarizer(), POLICY, on_result=seen.append)
    with caplog.at_level(logging.INFO, logger="chatfold"):
        result = driver(folder, chat(60))
    infos = [r for r in caplog.records if r.levelno == logging.INFO]
    assert len(infos) == 1 and "folded" in infos[0].message
    assert seen == [result]
    assert result.seconds >= 0 and result.summarizer_calls == 1
    assert result.tokens_before > result.tokens_after
    driver(folder, chat(2))
    assert seen[-1].reason == "under_trigger"


def test_plan_is_pure_and_matches_the_fold() -> None:
    messages = chat(60)
    counter = HeuristicCounter()
    p1 = plan_fold(messages, POLICY, counter)
    p2 = plan_fold(messages, POLICY, counter)
    assert p1 == p2 and p1.should_fold
    assert set(p1.old).isdisjoint(p1.recent)
    assert sorted((*p1.pinned, *p1.old, *p1.recent)) == list(range(len(messages)))


def test_seed_duck_type_llm_works_with_folder(driver: Any) -> None:
    llm = SeedLLM("The user chatted.")
    result = driver(Folder(llm, POLICY), chat(60))
    assert result.folded and llm.texts and llm.texts[0].startswith("<<<TRANSCRIPT ")
    assert "\nuser: Message 0" in llm.texts[0]


def test_plain_callable_is_a_summarizer(driver: Any) -> None:
    got: list[str] = []

    def summarize(text: str) -> str:
        got.append(text)
        return "done"

    result = driver(Folder(summarize, POLICY), chat(60))
    assert result.summary == "done" and got


def test_async_fold_does_not_block_the_loop() -> None:
    class Slow:
        accepts_request = True

        async def asummarize(self, request: Any) -> str:
            await asyncio.sleep(0.2)
            return "ok"

    async def main() -> int:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        task = asyncio.create_task(ticker())
        await Folder(Slow(), POLICY).afold(chat(60))
        task.cancel()
        return ticks

    assert asyncio.run(main()) >= 5


def test_the_default_cap_fits_a_small_budget() -> None:
    assert Policy().summary_max_tokens == 700
    # 400 tokens plus a tenth of the trigger, 40% of a trigger of 1,333 tokens or less.
    assert Policy(trigger_tokens=1200).summary_max_tokens == 480
    assert Policy(trigger_tokens=4000).summary_max_tokens == 800
    small = Policy(trigger_tokens=500)
    assert small.summary_max_tokens == 200 and small.target == 225  # + a twentieth
    # An explicit target keeps a third of itself for the recent window.
    assert Policy(trigger_tokens=1500, target_tokens=450).summary_max_tokens == 300
    with pytest.raises(InvalidPolicyError, match="below the target"):
        Policy(trigger_tokens=500, target_tokens=300, summary_max_tokens=400)


def test_a_message_object_reply_is_read_from_its_content(driver: Any) -> None:
    class AIMessage:  # what a LangChain chat model returns
        def __init__(self, content: str) -> None:
            self.content = content

    result = driver(Folder(FakeSummarizer(AIMessage("The user likes tea.")), POLICY), chat(60))
    assert result.summary == "The user likes tea."
