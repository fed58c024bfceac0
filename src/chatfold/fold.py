"""The rolling fold: pinned head + one rolling summary + the recent window, within a budget.

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

Example:
    >>> class Echo:  # a seed-style summarizer: summarize(text) -> str
    ...     def summarize(self, text: str) -> str:
    ...         return "The user is Ada; she asked about tea."
    >>> history = [{"role": "system", "content": "You are helpful."}] + [
    ...     {"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i} " * 40}
    ...     for i in range(20)]
    >>> folder = Folder(Echo(), Policy(trigger_tokens=1000, target_tokens=600, keep=4))
    >>> result = folder.fold(history)
    >>> result.folded, len(result.messages), result.tokens_after <= 600
    (True, 6, True)
    >>> result.messages[1]["content"]
    'Summary of the earlier conversation: The user is Ada; she asked about tea.'
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import inspect
import json
import logging
import re
import threading
import time
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from ._errors import ContextOverflowError, InvalidPolicyError, SummarizerError
from ._lang import detect_language
from .messages import (
    SUMMARY_KEY,
    check_sequence,
    content_text,
    format_messages,
    is_pinned,
    is_summary,
    split_units,
    validate_message,
)
from .tokens import TokenCounter, default_counter

__all__ = [
    "DEFAULT_KEEP",
    "DEFAULT_SUMMARY_MAX_TOKENS",
    "DEFAULT_TARGET_RATIO",
    "DEFAULT_TRIGGER_TOKENS",
    "SUMMARY_PREFIXES",
    "AsyncSummarizer",
    "FoldPlan",
    "FoldResult",
    "FoldState",
    "Folder",
    "Language",
    "Policy",
    "Style",
    "Summarizer",
    "SummaryRequest",
    "apply_fold",
    "compress",
    "maybe_compress",
    "plan_fold",
    "summary_message",
    "summary_text",
]

logger = logging.getLogger("chatfold")

Message = Mapping[str, Any]
Language = Literal["zh", "en"]
"""Languages chatfold writes prompts and summary prefixes in."""
Style = Literal["sections", "paragraph"]
"""``sections``: facts / preferences / decisions / open tasks. ``paragraph``: the seed's style."""

DEFAULT_TRIGGER_TOKENS = 3000
"""The seed's ``max_tokens``."""
DEFAULT_TARGET_RATIO = 0.6
"""Target = 60% of the trigger unless given: room for several turns before the next fold."""
DEFAULT_KEEP = 4
"""The seed's ``keep``: the last K messages stay verbatim."""
DEFAULT_SUMMARY_MAX_TOKENS = 400
"""Hard cap on the summary (the seed asked for 200 Chinese characters, about this many tokens)."""
MIN_SUMMARY_TOKENS = 64
"""A fold never asks for a summary shorter than this (or the cap, if smaller)."""

SUMMARY_PREFIXES: dict[str, str] = {
    "zh": "历史摘要: ",
    "en": "Summary of the earlier conversation: ",
}
"""Prefix of the summary message's content, by language (Chinese is exactly the seed's)."""
_KNOWN_PREFIXES = ("历史摘要: ", "历史摘要：", "历史摘要:", *SUMMARY_PREFIXES.values())


# ---------------------------------------------------------------------------------------------
# configuration and data


@dataclass(frozen=True)
class Policy:
    """When to fold and how much to keep.

    Example:
        >>> p = Policy(trigger_tokens=8000)
        >>> p.target, p.keep, p.summary_max_tokens
        (4800, 4, 400)
    """

    trigger_tokens: int = DEFAULT_TRIGGER_TOKENS
    """Fold when the context's count exceeds this."""
    target_tokens: int | None = None
    """After a fold the context is at or below this; ``None`` means 60% of the trigger."""
    keep: int = DEFAULT_KEEP
    """Minimum number of recent (non-pinned) messages kept verbatim, widened to whole units."""
    summary_max_tokens: int = 0
    """Hard cap on the summary's text. ``0`` (the default) means 400, or a third of the
    target if that is smaller."""
    recall_tokens: int = 0
    """Room reserved for recalled archive messages (stored conversations); folds happen at
    ``trigger_tokens - recall_tokens`` so the context plus recall stays within the trigger.
    ``0``: recall is off."""
    language: Literal["auto", "zh", "en"] = "auto"
    """Language of prompts and the summary prefix; ``auto`` detects it by script."""
    system_messages: Literal["pin", "fold"] = "pin"
    """``pin``: every system message is kept (the seed's rule). ``fold``: system messages that
    come after the conversation started are folded like any other message."""
    on_overflow: Literal["raise", "keep"] = "raise"
    """When pinned + the latest unit exceed the target: raise ContextOverflowError, or keep
    the best possible context and log a warning."""
    on_error: Literal["raise", "return"] = "raise"
    """When the summarizer fails: raise SummarizerError, or return the input unchanged with
    the error in ``FoldResult.error`` (logged as a warning)."""
    style: Style = "sections"
    """Summary format asked of the summarizer."""
    summarizer_timeout: float | None = None
    """Seconds to wait for one summarizer call; ``None`` leaves timeouts to the summarizer."""

    def __post_init__(self) -> None:
        if not isinstance(self.trigger_tokens, int) or self.trigger_tokens <= 0:
            raise InvalidPolicyError("trigger_tokens", "must be a positive integer")
        r = self.recall_tokens
        if not isinstance(r, int) or isinstance(r, bool) or not 0 <= r < self.trigger_tokens:
            raise InvalidPolicyError(
                "recall_tokens",
                f"must be an integer in 0..trigger_tokens-1 ({self.trigger_tokens - 1})",
            )
        fold_trigger = self.trigger_tokens - r
        t = self.target_tokens
        if t is not None and (not isinstance(t, int) or not 0 < t <= fold_trigger):
            limit = "trigger_tokens - recall_tokens" if r else "trigger_tokens"
            raise InvalidPolicyError(
                "target_tokens", f"must be an integer in 1..{limit} ({fold_trigger})"
            )
        if not isinstance(self.keep, int) or self.keep < 0:
            raise InvalidPolicyError("keep", "must be an integer >= 0")
        if self.summary_max_tokens == 0:
            # At most a third of the target, so recent messages keep most of the room.
            auto = min(DEFAULT_SUMMARY_MAX_TOKENS, max(16, self.target // 3))
            object.__setattr__(self, "summary_max_tokens", auto)
        if not isinstance(self.summary_max_tokens, int) or self.summary_max_tokens < 16:
            raise InvalidPolicyError("summary_max_tokens", "must be an integer >= 16 (or 0: auto)")
        if self.summary_max_tokens >= self.target:
            raise InvalidPolicyError(
                "summary_max_tokens",
                f"must be below the target ({self.target}) to leave room for recent messages",
            )
        for name, allowed in (
            ("language", ("auto", "zh", "en")),
            ("system_messages", ("pin", "fold")),
            ("on_overflow", ("raise", "keep")),
            ("on_error", ("raise", "return")),
            ("style", ("sections", "paragraph")),
        ):
            if getattr(self, name) not in allowed:
                raise InvalidPolicyError(name, f"must be one of {', '.join(allowed)}")
        if self.summarizer_timeout is not None and not self.summarizer_timeout > 0:
            raise InvalidPolicyError("summarizer_timeout", "must be positive seconds or None")

    @property
    def fold_trigger(self) -> int:
        """The count above which a fold runs: ``trigger_tokens - recall_tokens``."""
        return self.trigger_tokens - self.recall_tokens

    @property
    def target(self) -> int:
        """The effective target (``target_tokens`` or 60% of the fold trigger)."""
        if self.target_tokens is not None:
            return self.target_tokens
        return max(1, int(self.fold_trigger * DEFAULT_TARGET_RATIO))

    @property
    def min_gain(self) -> int:
        """Tokens a fold must free when it cannot reach the target: the trigger-target gap."""
        return max(1, self.fold_trigger - self.target)


@dataclass(frozen=True)
class SummaryRequest:
    """Everything a summarizer needs to write the next rolling summary.

    Example:
        >>> req = SummaryRequest(previous_summary="", messages=({"role": "user", "content": "hi"},),
        ...                      language="en", max_tokens=200)
        >>> req.attempt
        1
    """

    previous_summary: str
    """The current summary text (without its prefix), ``""`` before the first fold."""
    messages: Sequence[Mapping[str, Any]]
    """The newly evicted messages, oldest first, unchanged (tool calls and results included)."""
    language: Language
    """Language of the conversation: the summary must be written in it."""
    max_tokens: int
    """Hard cap on the summary's length in tokens (as counted by the fold's counter)."""
    style: Style = "sections"
    """Output format asked for."""
    attempt: int = 1
    """1 for the first ask; 2 when re-asking because the first answer was over the cap."""
    target_tokens: int | None = None
    """On a re-ask, the shorter length to aim for."""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    """Free-form context for custom summarizers (e.g. the conversation id); never sent as-is."""
    count: Callable[[str], int] | None = field(default=None, compare=False, repr=False)
    """The fold's token counter, so a summarizer can hold ``max_tokens`` exactly."""

    def transcript(self) -> str:
        """The evicted messages as a transcript (tool calls and results included)."""
        return format_messages(self.messages)


@runtime_checkable
class Summarizer(Protocol):
    """A synchronous summarizer: ``summarize(request) -> str``.

    Mark a class with ``accepts_request = True`` (the built-ins are) so chatfold passes it a
    :class:`SummaryRequest`; an object whose ``summarize`` takes plain text (the seed's
    ``llm``) gets the seed's text format instead.
    """

    def summarize(self, request: SummaryRequest) -> str:
        """Return the new summary text for ``request`` (no prefix)."""
        ...


@runtime_checkable
class AsyncSummarizer(Protocol):
    """An asynchronous summarizer: ``await asummarize(request) -> str``."""

    async def asummarize(self, request: SummaryRequest) -> str:
        """Return the new summary text for ``request`` (no prefix)."""
        ...


@dataclass(frozen=True)
class FoldState:
    """The running-summary state of a stored conversation.

    ``covered_through`` is the sequence number of the last log entry folded into ``summary``
    (0 before the first fold); ``version`` is bumped by every successful fold and is what a
    store's compare-and-set checks.
    """

    summary: str = ""
    """Summary text, without its prefix; ``""`` before the first fold."""
    covered_through: int = 0
    """Sequence number of the last log entry folded into the summary."""
    version: int = 0
    """Bumped by every successful fold; the compare-and-set key."""
    language: str | None = None
    """Language of the summary ("zh" / "en"), fixed at the first fold."""
    pinned_seqs: tuple[int, ...] = ()
    """Log entries at or before ``covered_through`` that stay in the context (pinned)."""
    folds: int = 0
    """Folds done so far."""
    summarizer_calls: int = 0
    """Summarizer calls made so far (re-asks included)."""
    last_fold_seconds: float | None = None
    """Wall time of the last fold."""

    def to_json(self) -> str:
        """Serialise for a store."""
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> FoldState:
        """Parse what :meth:`to_json` wrote; unknown keys (from a newer chatfold) are ignored."""
        data: dict[str, Any] = json.loads(text)
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        if "pinned_seqs" in known:
            known["pinned_seqs"] = tuple(known["pinned_seqs"])
        return cls(**known)


Reason = Literal[
    "folded",
    "under_trigger",
    "nothing_to_fold",
    "gain_too_small",
    "summarizer_error",
    "fold_in_progress",
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


@dataclass(frozen=True)
class FoldResult:
    """What a fold did. ``messages`` is the input list itself when nothing was folded."""

    messages: list[Any]
    """The context to send next."""
    folded: bool
    """True when a new summary replaced old messages."""
    reason: Reason
    """``folded``, or why not."""
    tokens_before: int
    """Tokens of the input."""
    tokens_after: int
    """Tokens of ``messages``."""
    messages_folded: int = 0
    """Messages that went into the new summary."""
    summarizer_calls: int = 0
    """Calls made (2 when an overlong summary was re-asked)."""
    seconds: float = 0.0
    """Wall time of the fold."""
    summary: str | None = None
    """The new summary text (without prefix) when folded."""
    summary_tokens: int = 0
    """Tokens of the new summary message."""
    truncated: bool = False
    """The summary stayed over the cap after the re-ask and was cut at a sentence."""
    over_target: bool = False
    """Folded, but ``keep`` or the pinned head held the context above the target."""
    error: SummarizerError | None = None
    """The summarizer's error, with ``on_error="return"``."""
    plan: FoldPlan | None = None
    """The plan the fold followed."""


# ---------------------------------------------------------------------------------------------
# summary message


def summary_text(message: Message) -> str:
    """Text of a summary message without its prefix (``历史摘要: `` or the English one)."""
    text = content_text(message.get("content"))
    for prefix in _KNOWN_PREFIXES:
        if text.startswith(prefix):
            return text[len(prefix) :]
    return text


def summary_message(text: str, language: Language) -> dict[str, Any]:
    """The summary message in the seed's shape: ``{"role": "system", "content": "历史摘要: …",
    "is_summary": True}``; export with :func:`~chatfold.to_openai` to drop the marker.

    Example:
        >>> summary_message("用户叫小王。", "zh")
        {'role': 'system', 'content': '历史摘要: 用户叫小王。', 'is_summary': True}
    """
    return {"role": "system", "content": SUMMARY_PREFIXES[language] + text, SUMMARY_KEY: True}


# ---------------------------------------------------------------------------------------------
# planning (pure)


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


def _detect(messages: Sequence[Message], indices: Sequence[int], previous: str) -> Language:
    parts = [previous]
    size = len(previous)
    for i in indices:
        text = content_text(messages[i].get("content"))
        parts.append(text)
        size += len(text)
        if size > 20_000:
            break
    return detect_language("\n".join(parts))


def plan_fold(
    messages: Sequence[Message],
    policy: Policy,
    counter: TokenCounter,
    *,
    force: bool = False,
    grow_recent: bool = True,
    require_gain: bool = True,
    counts: Sequence[int] | None = None,
) -> FoldPlan:
    """Decide what a fold of ``messages`` under ``policy`` would do. Pure: no I/O, no clock.

    Args:
        messages: The conversation (validated by the caller).
        policy: The policy.
        counter: Token counter.
        force: Fold even under the trigger (as long as there is something to fold that frees
            tokens).
        grow_recent: Let the recent window grow beyond ``keep`` up to the target (the seed's
            ``compress`` keeps exactly ``keep``).
        require_gain: Skip a fold that would not shrink the context (the seed's explicit
            ``compress`` folds regardless).
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
             overflow: bool = False) -> FoldPlan:
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
            pinned_tokens=pinned_tokens,
            recent_tokens=sum(c[i] for i in recent),
            old_tokens=sum(c[i] for i in old),
            overflow=overflow,
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
    if overflow and policy.on_overflow == "raise":
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
    # ...and more, while the folded context (with a summary at its cap) fits the target.
    room = target - pinned_tokens - overhead - cap - 2
    if grow_recent:
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

    # The summary's cap for this fold: the policy's, shrunk (not below a floor) so that the
    # folded context still fits the target when the recent window is large.
    # (2 tokens of slack: a counter need not be exactly additive where prefix and text meet.)
    budget = min(cap, max(min(cap, MIN_SUMMARY_TOKENS), target - pinned_tokens - overhead
                          - recent_tokens - 2))
    old_tokens = sum(c[i] for i in old)
    previous_tokens = sum(c[i] for i in summaries)
    # A summary is no longer than the cap, nor (in practice) than what it summarizes.
    expected_summary = overhead + min(budget, previous_tokens + old_tokens)
    expected_after = pinned_tokens + expected_summary + recent_tokens
    gain = total - expected_after
    if require_gain and gain <= 0:
        return plan("gain_too_small", old, recent, budget, overflow)
    if require_gain and not force and expected_after > target and gain < policy.min_gain:
        return plan("gain_too_small", old, recent, budget, overflow)
    return plan("folded", old, recent, budget, overflow)


def apply_fold(messages: Sequence[Message], plan: FoldPlan, summary: str) -> list[Any]:
    """The folded context: pinned head, the one new summary, the recent window (unchanged
    input objects, in input order)."""
    head = [messages[i] for i in plan.pinned]
    tail = [messages[i] for i in plan.recent]
    return [*head, summary_message(summary, plan.language), *tail]


# ---------------------------------------------------------------------------------------------
# the summary's length


_SENTENCE_END = re.compile(r"(?<=[。！？!?；;…])|(?<=\.)(?=\s)|\n")


def _cut(text: str, budget: int, counter: TokenCounter) -> str:
    """The longest prefix of ``text`` that ends at a sentence boundary and fits ``budget``."""
    pieces = [p for p in _SENTENCE_END.split(text) if p]
    out = ""
    for piece in pieces:
        candidate = out + piece
        if counter.count(candidate.strip()) > budget:
            break
        out = candidate
    out = out.strip()
    if out:
        return out
    # A single sentence over the cap: cut it by characters (binary search on length).
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if counter.count(text[:mid] + "…") <= budget:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + "…"


def _clean(reply: object) -> str:
    # A chat-model message object (LangChain's AIMessage, an SDK message) carries the text in
    # .content; anything else that is not a string is a summarizer bug.
    content = getattr(reply, "content", None)
    if not isinstance(reply, str) and isinstance(content, str):
        reply = content
    if not isinstance(reply, str):
        raise SummarizerError(
            f"the summarizer returned {type(reply).__name__}, expected str", retryable=False
        )
    text = reply.strip()
    for prefix in _KNOWN_PREFIXES:
        if text.startswith(prefix):
            text = text[len(prefix) :].strip()
    if not text:
        raise SummarizerError("the summarizer returned an empty summary", retryable=True)
    return text


@dataclass(frozen=True)
class _Outcome:
    summary: str
    calls: int
    truncated: bool


def _summary_steps(
    plan: FoldPlan, messages: Sequence[Message], policy: Policy, counter: TokenCounter,
    metadata: Mapping[str, Any],
) -> Generator[SummaryRequest, object, _Outcome]:
    """Ask for the summary; re-ask once if it is over the cap; then cut at a sentence.

    Written once as a generator: the sync and async drivers only run it.
    """
    request = SummaryRequest(
        previous_summary=plan.previous_summary,
        messages=tuple(messages[i] for i in plan.old),
        language=plan.language,
        max_tokens=plan.summary_budget,
        style=policy.style,
        metadata=metadata,
        count=counter.count,
    )
    summary = _clean((yield request))
    if counter.count(summary) <= plan.summary_budget:
        return _Outcome(summary, 1, False)
    retry = dataclasses.replace(
        request, attempt=2, target_tokens=max(16, int(plan.summary_budget * 0.7))
    )
    try:
        second = _clean((yield retry))
    except SummarizerError as exc:
        logger.warning("chatfold: re-ask for a shorter summary failed (%s); cutting the first", exc)
        second = summary
    if counter.count(second) <= plan.summary_budget:
        return _Outcome(second, 2, False)
    return _Outcome(_cut(second, plan.summary_budget, counter), 2, True)


# ---------------------------------------------------------------------------------------------
# summarizer adaptation


def _seed_text(request: SummaryRequest) -> str:
    """The seed's text format for a ``summarize(text)`` object, in the conversation's language.

    Chinese is exactly the seed's: ``已有摘要: …\\n新增对话:\\n…`` (with the transcript fixed:
    tool calls and results included, multi-part content as text).
    """
    transcript = request.transcript()
    zh = request.language == "zh"
    text = transcript
    if request.previous_summary:
        if zh:
            text = f"已有摘要: {request.previous_summary}\n新增对话:\n{transcript}"
        else:
            text = f"Previous summary: {request.previous_summary}\nNew messages:\n{transcript}"
    if request.attempt > 1:
        n = request.target_tokens or request.max_tokens
        note = (
            f"（上一版摘要过长：请压缩到约 {n} 个 token 以内，只保留最重要的事实。）\n"
            if zh
            else f"(The last summary was too long: keep it under about {n} tokens, "
            "most important facts only.)\n"
        )
        text = note + text
    return text


def _accepts_request(obj: object) -> bool:
    flag = getattr(obj, "accepts_request", None)
    if flag is not None:
        return bool(flag)
    method = getattr(obj, "summarize", None) or getattr(obj, "asummarize", None)
    if method is None:
        return False
    try:
        params = list(inspect.signature(method).parameters.values())
    except (TypeError, ValueError):
        return False
    if not params:
        return False
    annotation = params[0].annotation
    return "SummaryRequest" in (
        annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    )


class _Caller:
    """Calls any supported summarizer with a request, sync or async, with the policy's timeout;
    every failure becomes a :class:`SummarizerError` with the cause chained."""

    def __init__(self, summarizer: object, timeout: float | None) -> None:
        has_sync = callable(getattr(summarizer, "summarize", None))
        has_async = callable(getattr(summarizer, "asummarize", None))
        if not (has_sync or has_async or callable(summarizer)):
            raise TypeError(
                "summarizer must have summarize(request_or_text) -> str, "
                "async asummarize(request) -> str, or be a callable(text) -> str"
            )
        self.summarizer = summarizer
        self.timeout = timeout
        self.structured = _accepts_request(summarizer)
        self.has_sync = has_sync
        self.has_async = has_async

    def _arg(self, request: SummaryRequest) -> object:
        return request if self.structured else _seed_text(request)

    def _sync_call(self, request: SummaryRequest) -> object:
        arg = self._arg(request)
        if self.has_sync:
            return self.summarizer.summarize(arg)  # type: ignore[attr-defined]
        if self.has_async:
            raise SummarizerError(
                "this summarizer is async-only: use afold()/acontext(), or give it summarize()"
            )
        return self.summarizer(arg)  # type: ignore[operator]

    @contextlib.contextmanager
    def _boundary(self) -> Iterator[None]:
        """The one place where a summarizer's exception becomes a SummarizerError."""
        try:
            yield
        except SummarizerError:
            raise
        except TimeoutError as exc:
            limit = f" (limit {self.timeout}s)" if self.timeout is not None else ""
            raise SummarizerError(f"the summarizer timed out{limit}: {exc}",
                                  retryable=True) from exc
        except Exception as exc:
            raise SummarizerError(
                f"the summarizer failed: {type(exc).__name__}: {exc}", retryable=False
            ) from exc

    def call(self, request: SummaryRequest) -> object:
        with self._boundary():
            if self.timeout is None:
                return self._sync_call(request)
            pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="chatfold-sum")
            try:
                return pool.submit(self._sync_call, request).result(timeout=self.timeout)
            finally:
                pool.shutdown(wait=False)

    async def acall(self, request: SummaryRequest) -> object:
        arg = self._arg(request)
        with self._boundary():
            if self.has_async:
                coro = self.summarizer.asummarize(arg)  # type: ignore[attr-defined]
            else:
                coro = asyncio.to_thread(self._sync_call, request)
            if self.timeout is None:
                return await coro
            return await asyncio.wait_for(coro, self.timeout)


# ---------------------------------------------------------------------------------------------
# the drivers


class _BaseFolder:
    """State shared by the sync and async drivers: policy, counter, the scan memo."""

    def __init__(
        self,
        summarizer: object,
        policy: Policy | None = None,
        *,
        counter: TokenCounter | None = None,
        on_result: Callable[[FoldResult], None] | None = None,
    ) -> None:
        self.policy = policy if policy is not None else Policy()
        self.counter: TokenCounter = counter if counter is not None else default_counter()
        self.on_result = on_result
        self._caller = _Caller(summarizer, self.policy.summarizer_timeout)
        self._memo_lock = threading.Lock()
        self._memo: tuple[list[Any], list[int], int] = ([], [], 0)

    @property
    def summarizer(self) -> object:
        """The summarizer this folder calls."""
        return self._caller.summarizer

    def count(self, messages: Sequence[Message]) -> int:
        """Tokens of ``messages`` as this folder counts them (validates them too)."""
        return self._scan(messages)[1]

    def _scan(self, messages: Sequence[Message]) -> tuple[list[int], int]:
        """Validate and count ``messages`` (per-message counts and their total), reusing the
        work done for an unchanged prefix.

        Messages are values: a prefix whose message objects are the same (``is``) as last
        time is not validated or counted again, so the check after each new message costs
        time proportional to the new messages (plus a C-speed identity comparison of the
        prefix). Replace a message to change it; a message mutated in place keeps its count.
        """
        check_sequence(messages)
        with self._memo_lock:
            memo_msgs, memo_counts, memo_total = self._memo
        n = len(memo_msgs)
        if n and len(messages) >= n and messages[:n] == memo_msgs:
            start, counts, total = n, memo_counts, memo_total
            if len(messages) > n:
                counts = memo_counts[:]
        else:
            start, counts, total = 0, [], 0
        for i in range(start, len(messages)):
            validate_message(messages[i], i)
            c = self.counter.count_message(messages[i])
            counts.append(c)
            total += c
        if start != len(messages) or not n:
            snapshot = messages if isinstance(messages, list) else list(messages)
            with self._memo_lock:
                self._memo = (snapshot[:], counts, total)
        return counts, total

    def _prepare(self, messages: Sequence[Message], force: bool, grow_recent: bool = True,
                 require_gain: bool = True) -> FoldPlan | FoldResult:
        """The plan of a fold that should run, or the result of one that should not."""
        counts, total = self._scan(messages)
        if total <= self.policy.fold_trigger and not force:
            # The hot path: no planning at all under the trigger.
            same = messages if isinstance(messages, list) else list(messages)
            result = FoldResult(messages=same, folded=False, reason="under_trigger",
                                tokens_before=total, tokens_after=total)
            if self.on_result:
                self.on_result(result)
            return result
        plan = plan_fold(
            messages, self.policy, self.counter, force=force, grow_recent=grow_recent,
            require_gain=require_gain, counts=counts,
        )
        return plan if plan.should_fold else self._skipped(messages, plan)

    def _skipped(self, messages: Any, plan: FoldPlan) -> FoldResult:
        logger.debug(
            "chatfold: no fold (%s, %d tokens, %d messages before the window)",
            plan.reason, plan.tokens_before, len(plan.old),
        )
        result = FoldResult(
            messages=messages, folded=False, reason=plan.reason, tokens_before=plan.tokens_before,
            tokens_after=plan.tokens_before, plan=plan,
        )
        if self.on_result:
            self.on_result(result)
        return result

    def _failed(self, messages: Any, plan: FoldPlan, exc: SummarizerError, calls: int,
                started: float) -> FoldResult:
        if self.policy.on_error == "raise":
            raise exc
        logger.warning("chatfold: fold failed, context unchanged: %s", exc)
        result = FoldResult(
            messages=messages, folded=False, reason="summarizer_error",
            tokens_before=plan.tokens_before, tokens_after=plan.tokens_before,
            summarizer_calls=calls, seconds=time.perf_counter() - started, error=exc, plan=plan,
        )
        if self.on_result:
            self.on_result(result)
        return result

    def _done(self, messages: Sequence[Message], plan: FoldPlan, outcome: _Outcome,
              started: float) -> FoldResult:
        new = apply_fold(messages, plan, outcome.summary)
        tokens_after = sum(self.counter.count_message(m) for m in new)
        summary_tokens = self.counter.count_message(new[len(plan.pinned)])
        over = tokens_after > self.policy.target
        seconds = time.perf_counter() - started
        result = FoldResult(
            messages=new, folded=True, reason="folded", tokens_before=plan.tokens_before,
            tokens_after=tokens_after, messages_folded=len(plan.old),
            summarizer_calls=outcome.calls, seconds=seconds, summary=outcome.summary,
            summary_tokens=summary_tokens, truncated=outcome.truncated, over_target=over,
            plan=plan,
        )
        logger.info(
            "chatfold: folded %d messages: %d -> %d tokens (summary %d, %d call%s, %.2fs)%s",
            len(plan.old), plan.tokens_before, tokens_after, summary_tokens, outcome.calls,
            "" if outcome.calls == 1 else "s", seconds,
            " [over target: keep/pinned hold more than the target]" if over else "",
        )
        if plan.overflow:
            logger.warning(
                "chatfold: pinned messages plus the latest unit exceed the target (%d); kept "
                "them anyway (on_overflow='keep')", self.policy.target,
            )
        if self.on_result:
            self.on_result(result)
        return result


class Folder(_BaseFolder):
    """Folds a message list under a :class:`Policy`, calling a summarizer when it must.

    ``fold`` and ``afold`` share one planning core (:func:`plan_fold`) and differ only in how
    they call the summarizer.

    Args:
        summarizer: An object with ``summarize(request) -> str`` (chatfold's summarizers), the
            seed's ``summarize(text) -> str``, ``async asummarize(request)``, or a plain
            ``callable(text) -> str``.
        policy: When to fold and what to keep (default :class:`Policy()`).
        counter: Token counter (default: the zero-dependency heuristic).
        on_result: Called with every :class:`FoldResult`, folded or skipped.
    """

    def fold(self, messages: Sequence[Message], *, force: bool = False,
             metadata: Mapping[str, Any] | None = None, exact_keep: bool = False) -> FoldResult:
        """Fold ``messages`` if the policy says so.

        Args:
            messages: The conversation; never mutated.
            force: Fold even under the trigger, if there is something worth folding.
            metadata: Passed to the summarizer in ``SummaryRequest.metadata``.
            exact_keep: The seed's rule: keep exactly the last ``keep`` messages (in whole
                units) and fold whatever is older, without growing the window to the target
                and without the batching rule. ``compress()`` uses it.

        Returns:
            A :class:`FoldResult`; its ``messages`` is the input list itself when nothing was
            folded.

        Raises:
            InvalidMessageError: a message is malformed (the error names its index).
            ContextOverflowError: pinned + latest unit exceed the target (``on_overflow="raise"``).
            SummarizerError: the summarizer failed (``on_error="raise"``); nothing changed.
        """
        run = self._start(messages, force, exact_keep, metadata)
        if isinstance(run, FoldResult):
            return run
        while run.request is not None:
            try:
                reply: object = self._caller.call(run.request)
            except SummarizerError as exc:
                reply = exc
            run.advance(reply)
        return self._finish(messages, run)

    async def afold(self, messages: Sequence[Message], *, force: bool = False,
                    metadata: Mapping[str, Any] | None = None,
                    exact_keep: bool = False) -> FoldResult:
        """Async twin of :meth:`fold`: awaits ``asummarize`` (or runs a sync summarizer in a
        thread), never blocking the event loop."""
        run = self._start(messages, force, exact_keep, metadata)
        if isinstance(run, FoldResult):
            return run
        while run.request is not None:
            try:
                reply: object = await self._caller.acall(run.request)
            except SummarizerError as exc:
                reply = exc
            run.advance(reply)
        return self._finish(messages, run)

    def _start(self, messages: Sequence[Message], force: bool, exact_keep: bool,
               metadata: Mapping[str, Any] | None) -> FoldResult | _Run:
        plan = self._prepare(messages, force, grow_recent=not exact_keep,
                             require_gain=not exact_keep)
        if isinstance(plan, FoldResult):
            return plan
        steps = _summary_steps(plan, messages, self.policy, self.counter, metadata or {})
        return _Run(plan, steps)

    def _finish(self, messages: Sequence[Message], run: _Run) -> FoldResult:
        if run.error is not None:
            return self._failed(messages, run.plan, run.error, run.calls, run.started)
        assert run.outcome is not None
        return self._done(messages, run.plan, run.outcome, run.started)


class _Run:
    """One fold in progress: the summary generator and where it stands. The drivers feed it
    each reply (or the summarizer's error); the generator decides what happens next."""

    def __init__(self, plan: FoldPlan,
                 steps: Generator[SummaryRequest, object, _Outcome]) -> None:
        self.plan = plan
        self.steps = steps
        self.started = time.perf_counter()
        self.calls = 0
        self.outcome: _Outcome | None = None
        self.error: SummarizerError | None = None
        self.request: SummaryRequest | None = next(steps)

    def advance(self, reply: object) -> None:
        """Send the reply in (a SummarizerError is thrown in: the generator falls back on a
        failed re-ask, and a failed first ask ends the fold)."""
        self.calls += 1
        try:
            if isinstance(reply, SummarizerError):
                self.request = self.steps.throw(reply)
            else:
                self.request = self.steps.send(reply)
        except StopIteration as stop:
            self.outcome, self.request = stop.value, None
        except SummarizerError as exc:
            self.error, self.request = exc, None


# ---------------------------------------------------------------------------------------------
# the seed's API


def compress(messages: list[dict[str, Any]], llm: Any, keep: int = DEFAULT_KEEP) -> list[Any]:
    """The seed's ``compress``: fold everything but the last ``keep`` messages, now.

    Same call, same output shape (``pinned system + [summary] + recent``), with the seed's
    defects fixed: the window never splits a tool call from its results, every existing
    summary is read, tool calls are in the transcript, the summary is capped, and a failing
    ``llm`` raises :class:`SummarizerError` with nothing changed.

    Args:
        messages: The conversation.
        llm: An object with ``summarize(text) -> str`` (or a chatfold summarizer).
        keep: Messages kept verbatim.

    Returns:
        The folded list, or ``messages`` itself when there is nothing to fold.

    Example:
        >>> class LLM:
        ...     def summarize(self, text): return "用户想去杭州玩三天。"
        >>> msgs = [{"role": "system", "content": "你是助手"}] + [
        ...     {"role": "user", "content": f"第{i}条"} for i in range(8)]
        >>> out = compress(msgs, LLM(), keep=4)
        >>> [m["content"] for m in out][:2], len(out)
        (['你是助手', '历史摘要: 用户想去杭州玩三天。'], 6)
    """
    folder = Folder(llm, _seed_policy(keep, trigger=None))
    return folder.fold(messages, force=True, exact_keep=True).messages


def maybe_compress(
    messages: list[dict[str, Any]],
    llm: Any,
    max_tokens: int = DEFAULT_TRIGGER_TOKENS,
    keep: int = DEFAULT_KEEP,
) -> list[Any]:
    """The seed's ``maybe_compress``: fold only above ``max_tokens``; otherwise return the
    input list itself.

    Unlike the seed, it counts tokens by script (English is not over-counted 2.4x), folds down
    to 60% of ``max_tokens`` so the next turns do not fold again, and skips a fold that could
    not free enough. A conversation whose pinned head plus latest message exceed the budget is
    returned folded as far as possible, with a warning (the seed never raised).

    Example:
        >>> class LLM:
        ...     def summarize(self, text): return "summary"
        >>> short = [{"role": "user", "content": "hi"}]
        >>> maybe_compress(short, LLM()) is short
        True
    """
    return _seed_folder(llm, max_tokens, keep).fold(messages).messages


# The seed's signature has nowhere to keep per-conversation state, so maybe_compress keeps a
# few folders (and their counting memos) keyed by llm and settings: a chat loop calling it on
# a growing list then pays for the new messages only.
_SEED_FOLDERS: dict[tuple[int, int, int], Folder] = {}
_SEED_FOLDERS_MAX = 32
_SEED_FOLDERS_LOCK = threading.Lock()


def _seed_folder(llm: Any, max_tokens: int, keep: int) -> Folder:
    key = (id(llm), max_tokens, keep)
    with _SEED_FOLDERS_LOCK:
        folder = _SEED_FOLDERS.get(key)
        if folder is not None and folder.summarizer is llm:
            return folder
    folder = Folder(llm, _seed_policy(keep, trigger=max_tokens))
    with _SEED_FOLDERS_LOCK:
        if len(_SEED_FOLDERS) >= _SEED_FOLDERS_MAX:
            _SEED_FOLDERS.pop(next(iter(_SEED_FOLDERS)))
        _SEED_FOLDERS[key] = folder
    return folder


def _seed_policy(keep: int, trigger: int | None) -> Policy:
    if trigger is None:
        # compress() has no budget: any trigger works since it always forces the fold.
        return Policy(trigger_tokens=10**9, target_tokens=10**9, keep=keep,
                      on_overflow="keep")
    # The seed accepted any max_tokens: a tiny one still gets a target the summary fits under.
    target = max(int(trigger * DEFAULT_TARGET_RATIO), 17)
    return Policy(trigger_tokens=max(trigger, target), target_tokens=target, keep=keep,
                  on_overflow="keep")
