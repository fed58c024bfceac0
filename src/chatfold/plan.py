"""Planning a fold: which messages are pinned, old and recent, and the summary's budget.

How a fold decides (all in :func:`plan_fold`, a pure function):

1. Split the list into the **pinned head** (leading system prompt, every other system
   message under ``system_messages="pin"``, and any unit holding a ``{"pinned": True}``
   message), the existing **summary** message(s), and the **flow** (everything else, in
   whole units: an assistant tool call stays with its results).
2. Under ``trigger_tokens`` nothing happens and the input list itself is returned.
3. Above it, the **recent window** grows backwards from the end in whole units: at least the
   last ``keep`` flow messages, and more while the folded context (pinned + a summary at its
   cap + recent) still fits ``target_tokens``. Everything before the window is **old**.
4. The fold only runs when it is worth a summarizer call: it must either land the context at
   the target, or free at least ``trigger - target`` tokens. So each fold frees at least
   the gap between trigger and target, and the number of calls stays close to
   ``tokens added / (trigger - target)``, even when ``keep`` alone holds the context near the
   trigger (then the fold waits until enough has piled up before the window).
5. The summarizer gets the previous summary plus the old messages (never the summary as an
   old message), and its answer is held to the cap: re-asked once, then cut at a sentence.

If the pinned head plus the latest unit alone exceed the target, no fold can help:
:class:`ContextOverflowError`, or with ``on_overflow="keep"`` the best context and a warning.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ._errors import ContextOverflowError
from ._lang import detect_language, script_of
from ._summary import SUMMARY_PREFIXES, Language, summary_text
from .messages import content_text, is_pinned, is_summary, split_units
from .policy import MIN_SUMMARY_TOKENS, Policy
from .tokens import TokenCounter

__all__ = ["FoldPlan", "Reason", "plan_fold"]

Message = Mapping[str, Any]

Reason = Literal[
    "folded",
    "under_trigger",
    "nothing_to_fold",
    "gain_too_small",
    "summarizer_error",
    "fold_in_progress",
    "fold_conflict",
]


@dataclass(frozen=True)
class FoldPlan:
    """What a fold would do; made by :func:`plan_fold` without any I/O."""

    should_fold: bool
    """True when the summarizer should be called."""
    reason: Reason
    """Why (``folded`` when it should)."""
    pinned: tuple[int, ...]
    """Indices of the pinned head, in input order."""
    summaries: tuple[int, ...]
    """Indices of the existing summary messages."""
    old: tuple[int, ...]
    """Indices of the messages to fold into the summary."""
    recent: tuple[int, ...]
    """Indices of the messages kept verbatim after the summary."""
    previous_summary: str
    """Text of the existing summary (all of them, in order), without prefixes."""
    language: Language
    """Language of the prompt and the summary prefix."""
    summary_budget: int
    """Cap for the new summary's text, in tokens."""
    tokens_before: int
    """Tokens of the input list."""
    pinned_tokens: int
    """Tokens of the pinned head."""
    recent_tokens: int
    """Tokens of the recent window."""
    old_tokens: int
    """Tokens of the old messages."""
    overflow: bool = False
    """Pinned + the latest unit exceed the target (only with ``on_overflow="keep"``)."""
    summary_squeezed: bool = False
    """The pinned head plus the latest unit left the summary less than its floor."""



def _classify(
    messages: Sequence[Message], policy: Policy
) -> tuple[list[int], list[int], list[list[int]]]:
    """Pinned indices, summary indices, and the flow as units of indices."""
    pinned: list[int] = []
    summaries: list[int] = []
    flow: list[int] = []
    started = False
    for i, m in enumerate(messages):
        if is_summary(m):
            summaries.append(i)
            continue
        role = m.get("role")
        if role in ("system", "developer"):
            if not started or policy.system_messages == "pin":
                pinned.append(i)
                continue
        else:
            started = True
        flow.append(i)
    units: list[list[int]] = []
    flow_msgs = [messages[i] for i in flow]
    for start, stop in split_units(flow_msgs):
        units.append(flow[start:stop])
    # A unit holding a pinned message is pinned whole, so a tool call keeps its results.
    kept: list[list[int]] = []
    for unit in units:
        if any(is_pinned(messages[i]) for i in unit):
            pinned.extend(unit)
        else:
            kept.append(unit)
    pinned.sort()
    return pinned, summaries, kept


def _summary_overhead(counter: TokenCounter, language: Language) -> int:
    return counter.count_message({"role": "system", "content": SUMMARY_PREFIXES[language]})


def _text_of(messages: Sequence[Message], indices: Sequence[int], user_only: bool) -> str:
    parts = []
    size = 0
    for i in indices:
        if user_only and messages[i].get("role") != "user":
            continue
        text = content_text(messages[i].get("content"))
        parts.append(text)
        size += len(text)
        if size > 20_000:
            break
    return "\n".join(parts)


def _detect(messages: Sequence[Message], indices: Sequence[int], previous: str) -> Language:
    # The user's own words decide: an English system prompt, JSON tool results and English
    # terms in the replies do not make a conversation the user holds in Chinese English.
    found = script_of(_text_of(messages, indices, True))
    if found is not None:
        return found
    return detect_language(previous + "\n" + _text_of(messages, indices, False))


def plan_fold(
    messages: Sequence[Message],
    policy: Policy,
    counter: TokenCounter,
    *,
    force: bool = False,
    exact_keep: bool = False,
    counts: Sequence[int] | None = None,
) -> FoldPlan:
    """Decide what a fold of ``messages`` under ``policy`` would do. Pure: no I/O, no clock.

    Args:
        messages: The conversation (validated by the caller).
        policy: The policy.
        counter: Token counter.
        force: Fold even under the trigger (as long as there is something to fold that frees
            tokens).
        exact_keep: The seed's ``compress``: keep exactly the last ``keep`` messages (whole
            units), without growing the window to the target and without the batching rule
            (fold even when it would not shrink the context).
        counts: Precomputed ``counter.count_message`` of each message, if the caller has them.

    Raises:
        ContextOverflowError: pinned + the latest unit exceed the target, with
            ``on_overflow="raise"``.
    """
    c = list(counts) if counts is not None else [counter.count_message(m) for m in messages]
    total = sum(c)
    pinned, summaries, units = _classify(messages, policy)
    previous = "\n".join(summary_text(messages[i]) for i in summaries)
    if policy.language != "auto":
        language: Language = policy.language
    else:
        flow_idx = [i for u in units for i in u]
        language = _detect(messages, flow_idx, previous)
    pinned_tokens = sum(c[i] for i in pinned)

    def plan(reason: Reason, old: list[int], recent: list[int], budget: int = 0,
             overflow: bool = False, squeezed: bool = False) -> FoldPlan:
        return FoldPlan(
            should_fold=reason == "folded",
            reason=reason,
            pinned=tuple(pinned),
            summaries=tuple(summaries),
            old=tuple(old),
            recent=tuple(recent),
            previous_summary=previous,
            language=language,
            summary_budget=budget,
            tokens_before=total,
            pinned_tokens=sum(c[i] for i in pinned),
            recent_tokens=sum(c[i] for i in recent),
            old_tokens=sum(c[i] for i in old),
            overflow=overflow,
            summary_squeezed=squeezed,
        )

    all_flow = [i for u in units for i in u]
    if total <= policy.fold_trigger and not force:
        return plan("under_trigger", [], all_flow)
    if not units:
        return plan("nothing_to_fold", [], [])

    target = policy.target
    cap = policy.summary_max_tokens
    overhead = _summary_overhead(counter, language)
    latest = sum(c[i] for i in units[-1])
    overflow = pinned_tokens + latest > target
    # A deep default target is a preference: a long latest message that still fits under the
    # trigger folds everything else and is kept (flagged). Only one that leaves no room below
    # the trigger is an error.
    if overflow and policy.on_overflow == "raise" and \
            pinned_tokens + latest + MIN_SUMMARY_TOKENS > policy.fold_trigger:
        raise ContextOverflowError(
            tokens=pinned_tokens + latest,
            target=target,
            pinned_tokens=pinned_tokens,
            latest_unit_tokens=latest,
        )

    # The recent window: at least `keep` messages, in whole units...
    n_recent_units = 0
    n_msgs = 0
    recent_tokens = 0
    while n_recent_units < len(units) and n_msgs < policy.keep:
        unit = units[-1 - n_recent_units]
        n_msgs += len(unit)
        recent_tokens += sum(c[i] for i in unit)
        n_recent_units += 1
    if n_recent_units == 0:
        # keep=0: the latest unit is still what the model is answering.
        recent_tokens = latest
        n_recent_units = 1
    # ...and more, while the folded context with the summary at its full cap fits the target:
    # the summary's room is reserved before the window grows.
    # (2 tokens of slack: a counter need not be exactly additive where prefix and text meet.)
    room = target - pinned_tokens - overhead - cap - 2
    if not exact_keep:
        while n_recent_units < len(units):
            unit_tokens = sum(c[i] for i in units[-1 - n_recent_units])
            if recent_tokens + unit_tokens > room:
                break
            recent_tokens += unit_tokens
            n_recent_units += 1
    old_units = units[: len(units) - n_recent_units]
    recent = [i for u in units[len(units) - n_recent_units :] for i in u]
    old = [i for u in old_units for i in u]
    if not old:
        return plan("nothing_to_fold", [], recent)
    if recent:
        # A pinned message inside the window stays where it is: the context must still end on
        # what the model has to answer.
        late = [i for i in pinned if i > recent[0]]
        if late:
            pinned = [i for i in pinned if i <= recent[0]]
            recent = sorted(recent + late)

    # The default target is a preference, as for the overflow above: only a pinned head plus
    # latest unit that leave the summary less than its floor below the *trigger* squeeze it.
    limit = target if policy.target_tokens is not None else policy.fold_trigger
    budget, squeezed = _summary_budget(policy, target - pinned_tokens - overhead - 2,
                                       recent_tokens, latest,
                                       limit - pinned_tokens - overhead - 2)
    old_tokens = sum(c[i] for i in old)
    previous_tokens = sum(c[i] for i in summaries)
    # A summary is no longer than the cap, nor (in practice) than what it summarizes.
    expected_summary = overhead + min(budget, previous_tokens + old_tokens)
    expected_after = pinned_tokens + expected_summary + recent_tokens
    gain = total - expected_after
    if not exact_keep and gain <= 0:
        return plan("gain_too_small", old, recent, budget, overflow, squeezed)
    if not exact_keep and not force and expected_after > target and gain < policy.min_gain:
        return plan("gain_too_small", old, recent, budget, overflow, squeezed)
    return plan("folded", old, recent, budget, overflow, squeezed)


def _summary_budget(policy: Policy, room: int, window: int, latest: int,
                    hard_room: int) -> tuple[int, bool]:
    """The summary's cap for one fold, and whether it fell below the policy's floor.

    ``room`` is the target less the pinned head and the summary's prefix. The summary gets its
    full cap when the window leaves room for it; a long ``keep`` window squeezes it, but never
    below ``summary_min_tokens``: the window is what exceeds the target then (``over_target``).
    Only when the pinned head plus the latest unit leave less than the floor in ``hard_room``
    (the same as ``room`` for an explicit target; below the trigger for the default one) does
    the summary shrink further (never below :data:`MIN_SUMMARY_TOKENS`), and the result says so.
    """
    cap, floor = policy.summary_max_tokens, policy.summary_min_tokens
    budget = min(cap, max(floor, room - window))
    if hard_room - latest < floor:
        budget = min(budget, max(MIN_SUMMARY_TOKENS, hard_room - latest))
    return budget, budget < floor
