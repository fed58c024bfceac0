"""The sawtooth the fold guarantees, on random chats across triggers (issue 13, item 5).

With an exact, additive counter:

* a fold runs only above the fold trigger; one that lands at or below the target frees more
  than the gap (fold trigger - target), one that cannot (the kept messages hold the context
  up) frees at least ``Policy.min_gain`` (the gain rule);
* tokens freed by all folds add up to what came in and left the context:
  c0 + H - c_end (c0 the pinned head, H the appended messages, c_end the final context);
* hence folds <= (c0 + H - c_end) / gap when every fold reaches the target (the ceiling
  benchmarks/bench_calls.py reports), and <= (c0 + H - c_end) / min_gain always;
* when the pinned head, a summary at its cap and the kept messages fit the target, every fold
  reaches it and no context handed back is over the trigger; otherwise a context over it is
  one the kept messages hold up (the fold ran and reports ``over_target``, or the gain rule
  deferred it).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from chatfold import Folder, Policy
from chatfold.fold import FoldResult
from chatfold.tokens import BaseCounter


class Words(BaseCounter):
    """Exact and additive: one token per whitespace-separated word (plus the overhead)."""

    name = "words"

    def count(self, text: str) -> int:
        return len(text.split())


class Summarizer:
    """Writes a summary that grows with what it folds, always within the cap."""

    accepts_request = True

    def summarize(self, request: Any) -> str:
        n = min(request.max_tokens - 2, 6 + 3 * len(request.messages))
        return " ".join(["fact"] * max(1, n)) + "."


def run(trigger: int, keep: int, sizes: list[int]) -> tuple[Policy, list[FoldResult], int, int]:
    """Replay a chat of messages of ``sizes`` words; (policy, results, c0, history)."""
    policy = Policy(trigger_tokens=trigger, keep=keep)
    counter = Words()
    folder = Folder(Summarizer(), policy, counter=counter)
    context: list[Any] = [{"role": "system", "content": "You are a careful assistant."}]
    c0 = counter.count_messages(context)
    history = 0
    results = []
    for i, n in enumerate(sizes):
        message = {"role": "user" if i % 2 == 0 else "assistant",
                   "content": " ".join(f"w{i}" for _ in range(n))}
        history += counter.count_message(message)
        result = folder.fold([*context, message])
        assert result.tokens_after == counter.count_messages(result.messages)
        context = result.messages
        results.append(result)
    return policy, results, c0, history


def check_sawtooth(policy: Policy, results: list[FoldResult], c0: int, history: int) -> None:
    gap = policy.fold_trigger - policy.target
    freed = [r.tokens_before - r.tokens_after for r in results if r.folded]
    for r in results:
        if r.folded:
            assert r.tokens_before > policy.fold_trigger
            if r.tokens_after <= policy.target:
                assert r.tokens_before - r.tokens_after > gap
            else:
                assert r.over_target and r.tokens_before - r.tokens_after >= policy.min_gain
    c_end = results[-1].tokens_after
    assert sum(freed) == c0 + history - c_end
    assert len(freed) <= (c0 + history - c_end) / policy.min_gain
    if all(r.tokens_after <= policy.target for r in results if r.folded):
        assert len(freed) <= (c0 + history - c_end) / gap


def largest_fitting(trigger: int, keep: int) -> int:
    """Words a message may have so that the pinned head, a summary at its cap and ``keep``
    such messages fit the target (so every fold can reach it)."""
    policy = Policy(trigger_tokens=trigger, keep=keep)
    room = policy.target - 9 - (4 + 5) - policy.summary_max_tokens - 2  # head, prefix, slack
    return max(1, room // max(keep, 1) - 4)


@settings(max_examples=40, deadline=None)
@given(trigger=st.integers(600, 6000), keep=st.integers(0, 4),
       sizes=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=160))
def test_small_messages_never_leave_a_context_over_the_trigger(
        trigger: int, keep: int, sizes: list[float]) -> None:
    most = largest_fitting(trigger, keep)
    words = [max(1, int(f * most)) for f in sizes]
    policy, results, c0, history = run(trigger, keep, words)
    check_sawtooth(policy, results, c0, history)
    assert all(r.tokens_after <= policy.target for r in results if r.folded)
    assert max(r.tokens_after for r in results) <= trigger


@settings(max_examples=40, deadline=None)
@given(trigger=st.integers(300, 4000), keep=st.integers(0, 8),
       sizes=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=120))
def test_any_chat_folds_in_a_sawtooth(trigger: int, keep: int, sizes: list[float]) -> None:
    # Any message up to what fits the target beside the pinned head (no overflow).
    most = Policy(trigger_tokens=trigger).target - 9 - 4 - 1
    words = [max(1, int(f * most)) for f in sizes]
    policy, results, c0, history = run(trigger, keep, words)
    check_sawtooth(policy, results, c0, history)
    for r in results:
        if r.tokens_after > trigger:
            # The kept messages alone hold the context up: the fold ran and still could not
            # reach the target, or waits until it can free enough.
            if r.folded:
                assert r.over_target
            else:
                assert r.reason in ("gain_too_small", "nothing_to_fold")
