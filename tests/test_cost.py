"""The cost model behind the default fold depth (chatfold.cost)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chatfold import Folder, InvalidPolicyError, Policy
from chatfold.cost import estimate_cost
from chatfold.tokens import HeuristicCounter

from helpers import FakeSummarizer, chat


@settings(max_examples=80, deadline=None)
@given(st.integers(1000, 200_000), st.floats(0.05, 0.8), st.floats(0.05, 0.8),
       st.floats(5, 2000), st.floats(0, 10))
def test_a_deeper_fold_is_cheaper_at_the_same_peak(
    trigger: int, a: float, b: float, growth: float, weight: float
) -> None:
    cap = min(400, trigger // 3)
    room = trigger - cap - 1
    low, high = sorted((cap + 1 + int(a * room), cap + 1 + int(b * room)))
    deep = estimate_cost(Policy(trigger_tokens=trigger, target_tokens=low),
                         tokens_per_turn=growth, output_weight=weight)
    shallow = estimate_cost(Policy(trigger_tokens=trigger, target_tokens=high),
                            tokens_per_turn=growth, output_weight=weight)
    assert deep.summarizer_calls_per_turn <= shallow.summarizer_calls_per_turn
    assert deep.summarizer_output_per_turn <= shallow.summarizer_output_per_turn
    assert deep.mean_context_tokens <= shallow.mean_context_tokens
    assert deep.cost_per_turn <= shallow.cost_per_turn + 1e-9


def test_the_estimate_matches_a_replay() -> None:
    policy = Policy(trigger_tokens=2000, summary_max_tokens=200)
    counter = HeuristicCounter()
    fake = FakeSummarizer(fn=lambda r: "The user said things. " * 30)
    folder = Folder(fake, policy)
    messages = chat(0)
    turns = chat(600, system=False)
    for m in turns:
        messages = folder.fold([*messages, m]).messages
    growth = sum(counter.count_message(m) for m in turns) / len(turns)
    est = estimate_cost(policy, tokens_per_turn=growth,
                        pinned_tokens=counter.count_message(chat(0)[0]))
    predicted = est.summarizer_calls_per_turn * len(turns)
    assert fake.calls == pytest.approx(predicted, rel=0.25)


def test_bad_figures_are_named() -> None:
    with pytest.raises(InvalidPolicyError, match="tokens_per_turn"):
        estimate_cost(Policy(), tokens_per_turn=0)
    with pytest.raises(InvalidPolicyError, match="output_weight"):
        estimate_cost(Policy(), tokens_per_turn=50, output_weight=float("nan"))


def test_docstring_examples_run() -> None:
    import doctest

    import chatfold.cost

    assert doctest.testmod(chatfold.cost).failed == 0
