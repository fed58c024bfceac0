"""The replay engine behind ``chatfold simulate`` and the benchmarks."""

from __future__ import annotations

from typing import Any

from _cli_fixtures import FakeSummarizer, WordCounter, chat, tool_turn

from chatfold.cli.replay import SeedCounter, SeedPolicyFolder, replay, seed_folder
from chatfold.fold import Folder, Policy
from chatfold.messages import find_orphans


def folder(fake: FakeSummarizer, **policy: Any) -> Folder:
    options: dict[str, Any] = {"trigger_tokens": 300, "target_tokens": 200, "keep": 2,
                               "summary_max_tokens": 40}
    options.update(policy)
    return Folder(fake, Policy(**options), counter=WordCounter())


def test_replay_counts_folds_calls_and_prompt_tokens() -> None:
    msgs = chat(60, words=20)  # system + 60 messages of 22 words + 2
    fake = FakeSummarizer(lambda r: "short summary")
    report = replay(msgs, folder(fake))
    assert len(report.turns) == 60
    assert report.turns[0].index == 1
    assert report.summarizer_calls == fake.calls == len(report.fold_points) > 0
    assert all(report.turns[i - 1].folded for i in report.fold_points)
    assert report.peak_context_tokens <= 300
    assert report.trigger_tokens == 300 and report.target_tokens == 200
    # model calls: after every user message (the next one is the assistant's answer)
    assert [t.model_call for t in report.turns[:4]] == [True, False, True, False]
    assert report.model_calls == 30
    counter = WordCounter()
    history = [sum(counter.count_message(m) for m in msgs[: i + 1]) for i in range(len(msgs))]
    assert report.full_history_prompt_tokens == sum(
        history[t.index] for t in report.turns if t.model_call)
    assert report.prompt_tokens == sum(t.context_tokens for t in report.turns if t.model_call)
    assert report.prompt_tokens < report.full_history_prompt_tokens
    assert report.history_tokens == history[-1]
    assert report.final_context[0] == msgs[0]
    assert report.counter_name == "words"
    assert 0 < report.savings < 1


def test_summarizer_input_is_previous_summary_plus_evicted_messages() -> None:
    msgs = chat(60, words=20)
    fake = FakeSummarizer(lambda r: "short summary")
    report = replay(msgs, folder(fake))
    counter = WordCounter()
    first, second = [t for t in report.turns if t.folded][:2]
    req1, req2 = fake.requests[:2]
    assert req1.previous_summary == ""
    assert first.summarizer_input_tokens == sum(counter.count_message(m) for m in req1.messages)
    summary_msg = {"role": "system", "content": "Summary of the earlier conversation: "
                   + req2.previous_summary}
    assert second.summarizer_input_tokens == counter.count_message(summary_msg) + sum(
        counter.count_message(m) for m in req2.messages)
    assert report.summarizer_input_tokens == sum(t.summarizer_input_tokens for t in report.turns)


def test_no_assistant_role_counts_a_model_call_after_every_message() -> None:
    msgs = [{"role": "user", "content": f"note {i}"} for i in range(5)]
    report = replay(msgs, folder(FakeSummarizer()))
    assert [t.model_call for t in report.turns] == [True] * 5
    assert report.summarizer_calls == 0 and report.fold_points == ()


def test_progress_is_reported() -> None:
    seen: list[tuple[int, int]] = []
    replay(chat(6), folder(FakeSummarizer()), progress=lambda done, total: seen.append(
        (done, total)))
    assert seen == [(k, 6) for k in range(1, 7)]


def test_tool_calls_never_make_an_orphan_context_under_either_policy() -> None:
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "Tools."}]
    for i in range(40):
        msgs += tool_turn(i, results=2)
    for f in (folder(FakeSummarizer(lambda r: "s")),
              seed_folder(FakeSummarizer(lambda r: "s"), max_tokens=300, keep=3)):
        report = replay(msgs, f)
        assert report.summarizer_calls > 0
        assert report.orphan_contexts == 0
        assert find_orphans(report.final_context) == []


def test_orphans_in_the_input_are_counted() -> None:
    msgs = [{"role": "tool", "tool_call_id": "x", "content": "42"},
            {"role": "user", "content": "and?"}]
    report = replay(msgs, folder(FakeSummarizer()))
    assert report.orphan_contexts == 2


def test_seed_policy_folds_whenever_over_the_trigger_and_keeps_exactly_keep() -> None:
    msgs = chat(40, words=20)
    fake = FakeSummarizer(lambda r: "s")
    f = seed_folder(fake, max_tokens=400, keep=4)
    assert isinstance(f, SeedPolicyFolder) and isinstance(f.counter, SeedCounter)
    assert f.policy.trigger_tokens == f.policy.target == 400
    report = replay(msgs, f, name="seed", counter=WordCounter())
    assert report.name == "seed" and report.counter_name == "words"
    assert report.summarizer_calls > 0
    for req in fake.requests:
        assert len(req.messages) > 0
    # after every fold exactly keep messages follow the summary
    seed_count = SeedCounter()
    context: list[Any] = list(msgs[:1])
    for m in msgs[1:]:
        result = f.fold([*context, m])
        if result.folded:
            assert len(result.messages) == 1 + 1 + 4
        else:
            assert sum(seed_count.count_message(x) for x in result.messages) <= 400
        context = result.messages


def test_seed_counter_is_the_seeds_estimate() -> None:
    c = SeedCounter()
    assert c.count("") == 1
    assert c.count("a" * 10) == 6
    assert c.count_message({"role": "user", "content": "hello"}) == int(len("user: hello") * 0.6)
    assert c.count_message({"role": "assistant", "content": None, "tool_calls": []}) == int(
        len("assistant: None") * 0.6)


def test_to_dict_is_json_ready() -> None:
    import json

    report = replay(chat(10), folder(FakeSummarizer()))
    data = report.to_dict()
    assert "final_context" not in data and len(data["turns"]) == 10
    assert "turns" not in report.to_dict(turns=False)
    json.dumps(data)
