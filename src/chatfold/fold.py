"""The rolling fold: pinned head + one rolling summary + the recent window, within a budget.

The plan (which messages are pinned, old and recent) is made by :func:`~chatfold.plan.plan_fold`,
a pure function; this module applies it and drives the summarizer, sync and async.

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

import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._adapter import AsyncSummarizer, Caller, Summarizer, SummaryRequest
from ._errors import SummarizerError
from ._summary import (
    SUMMARY_PREFIXES,
    Language,
    Style,
    clean_reply,
    count_carried,
    cut_to_budget,
    summary_items,
    summary_message,
    summary_text,
)
from .messages import check_sequence, validate_message
from .plan import FoldPlan, Reason, plan_fold
from .policy import (
    DEFAULT_KEEP,
    DEFAULT_SUMMARY_MAX_TOKENS,
    DEFAULT_TRIGGER_TOKENS,
    DEFAULT_WINDOW_RATIO,
    MIN_GAIN_RATIO,
    MIN_SUMMARY_TOKENS,
    Policy,
    default_summary_cap,
    default_target,
)
from .tokens import TokenCounter, default_counter

__all__ = [
    "DEFAULT_KEEP",
    "DEFAULT_SUMMARY_MAX_TOKENS",
    "DEFAULT_TRIGGER_TOKENS",
    "DEFAULT_WINDOW_RATIO",
    "MIN_GAIN_RATIO",
    "MIN_SUMMARY_TOKENS",
    "SUMMARY_PREFIXES",
    "AsyncSummarizer",
    "FoldPlan",
    "FoldResult",
    "Folder",
    "Language",
    "Policy",
    "Reason",
    "Style",
    "Summarizer",
    "SummaryRequest",
    "apply_fold",
    "count_carried",
    "default_summary_cap",
    "default_target",
    "plan_fold",
    "summary_items",
    "summary_message",
    "summary_text",
]

logger = logging.getLogger("chatfold")

Message = Mapping[str, Any]

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
    """Folded, but ``keep``, the summary's floor or the pinned head held the context above
    the target."""
    summary_squeezed: bool = False
    """The pinned head plus the latest unit left the summary less than ``summary_min_tokens``."""
    previous_items: int = 0
    """Items (bullet lines, else sentences) of the summary this fold started from."""
    carried_items: int = 0
    """How many of them the new summary still holds. A summarizer that drops most of them is
    trading old facts for new chatter; the fold logs a warning."""
    error: SummarizerError | None = None
    """The summarizer's error, with ``on_error="return"``."""
    plan: FoldPlan | None = None
    """The plan the fold followed."""



def apply_fold(messages: Sequence[Message], plan: FoldPlan, summary: str) -> list[Any]:
    """The folded context: pinned head, the one new summary, the recent window (unchanged
    input objects, in input order)."""
    head = [messages[i] for i in plan.pinned]
    tail = [messages[i] for i in plan.recent]
    return [*head, summary_message(summary, plan.language), *tail]


# ---------------------------------------------------------------------------------------------
# the summary steps


@dataclass(frozen=True)
class _Outcome:
    summary: str
    calls: int
    truncated: bool
    previous_items: int = 0
    carried_items: int = 0


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
    outcome = _outcome_steps(request, plan, counter)
    result = yield from outcome
    if plan.previous_summary.strip():
        n, kept = count_carried(plan.previous_summary, result.summary)
        result = dataclasses.replace(result, previous_items=n, carried_items=kept)
    return result


def _outcome_steps(
    request: SummaryRequest, plan: FoldPlan, counter: TokenCounter,
) -> Generator[SummaryRequest, object, _Outcome]:
    summary = clean_reply((yield request))
    if counter.count(summary) <= plan.summary_budget:
        return _Outcome(summary, 1, False)
    retry = dataclasses.replace(
        request, attempt=2, target_tokens=max(16, int(plan.summary_budget * 0.7))
    )
    try:
        second = clean_reply((yield retry))
    except SummarizerError as exc:
        logger.warning("chatfold: re-ask for a shorter summary failed (%s); cutting the first", exc)
        second = summary
    if counter.count(second) <= plan.summary_budget:
        return _Outcome(second, 2, False)
    cut = cut_to_budget(second, plan.summary_budget, counter, plan.previous_summary)
    return _Outcome(cut, 2, True)


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
        self._caller = Caller(summarizer, self.policy.summarizer_timeout)
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
        time proportional to the new messages, plus one C-speed identity comparison of the
        prefix (about a nanosecond a message, so that a replaced message is noticed). Replace
        a message to change it; a message mutated in place keeps its count.

        The memo holds only what this folder was last given, or the context its last fold
        returned: a folded-away message is not kept alive by it. The returned counts may be
        the memo's own list, longer than ``messages`` once a later call extends it: read only
        its first ``len(messages)`` entries.
        """
        if type(messages) is not list:
            check_sequence(messages)
            messages = list(messages)
        size = len(messages)
        with self._memo_lock:
            memo_msgs, counts, total = self._memo
            n = len(memo_msgs)
            start = 0
            if n and size >= n and messages[n - 1] is memo_msgs[-1]:
                if size == n:
                    if messages == memo_msgs:
                        return counts, total
                elif size == n + 1:
                    # The turn's common case, one new message: no loop, no temporary lists.
                    m = messages[n]
                    memo_msgs.append(m)
                    if messages == memo_msgs:
                        try:
                            validate_message(m, n)
                            c = self.counter.count_message(m)
                        except BaseException:
                            memo_msgs.pop()
                            raise
                        counts.append(c)
                        self._memo = (memo_msgs, counts, total + c)
                        return counts, total + c
                    memo_msgs.pop()
                else:
                    # Extend the memo first, then compare whole lists: no O(n) slice of the
                    # prefix is copied, only the identity loop over it remains.
                    memo_msgs.extend(messages[n:])
                    if messages == memo_msgs:
                        start = n
                    else:
                        del memo_msgs[n:]
            new_counts: list[int] = []
            running = total if start else 0
            try:
                validate, count = validate_message, self.counter.count_message
                for i in range(start, size):
                    m = messages[i]
                    validate(m, i)
                    c = count(m)
                    new_counts.append(c)
                    running += c
            except BaseException:
                del memo_msgs[n:]  # a bad message leaves the memo as it was
                raise
            if start:
                counts.extend(new_counts)
            else:
                memo_msgs, counts = messages[:], new_counts
            self._memo = (memo_msgs, counts, running)
        return counts, running

    def _prepare(self, messages: Sequence[Message], force: bool,
                 exact_keep: bool = False) -> FoldPlan | FoldResult:
        """The plan of a fold that should run, or the result of one that should not."""
        counts, total = self._scan(messages)
        if total <= self.policy.fold_trigger and not force:
            # The hot path: no planning at all under the trigger. FoldResult is frozen, so its
            # generated __init__ sets each field through object.__setattr__ (over a µs, a
            # tenth of a turn); this result sets only the fields that differ from their
            # defaults (every default is immutable and read from the class).
            same = messages if isinstance(messages, list) else list(messages)
            result = object.__new__(FoldResult)
            result.__dict__.update(messages=same, folded=False, reason="under_trigger",
                                   tokens_before=total, tokens_after=total)
            return self._emit(result)
        plan = plan_fold(
            messages, self.policy, self.counter, force=force, exact_keep=exact_keep,
            counts=counts[:len(messages)],
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
        return self._emit(result)

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
        return self._emit(result)

    def _done(self, messages: Sequence[Message], plan: FoldPlan, outcome: _Outcome,
              started: float) -> FoldResult:
        new = apply_fold(messages, plan, outcome.summary)
        counts = [self.counter.count_message(m) for m in new]
        tokens_after = sum(counts)
        summary_tokens = counts[len(plan.pinned)]
        with self._memo_lock:
            # The next turn extends the folded context: the memo now holds that, and lets
            # the folded-away messages go.
            self._memo = (new[:], counts, tokens_after)
        over = tokens_after > self.policy.target
        seconds = time.perf_counter() - started
        result = FoldResult(
            messages=new, folded=True, reason="folded", tokens_before=plan.tokens_before,
            tokens_after=tokens_after, messages_folded=len(plan.old),
            summarizer_calls=outcome.calls, seconds=seconds, summary=outcome.summary,
            summary_tokens=summary_tokens, truncated=outcome.truncated, over_target=over,
            summary_squeezed=plan.summary_squeezed, previous_items=outcome.previous_items,
            carried_items=outcome.carried_items, plan=plan,
        )
        logger.info(
            "chatfold: folded %d messages: %d -> %d tokens (summary %d, %d call%s, %.2fs)%s",
            len(plan.old), plan.tokens_before, tokens_after, summary_tokens, outcome.calls,
            "" if outcome.calls == 1 else "s", seconds,
            " [over target: keep/pinned hold more than the target]" if over else "",
        )
        if outcome.previous_items >= 3 and outcome.carried_items * 2 < outcome.previous_items:
            logger.warning(
                "chatfold: the new summary holds only %d of the previous summary's %d items: "
                "the summarizer is dropping old facts", outcome.carried_items,
                outcome.previous_items,
            )
        if plan.overflow:
            logger.warning(
                "chatfold: pinned messages plus the latest unit exceed the target (%d); kept "
                "them anyway", self.policy.target,
            )
        return self._emit(result)

    def _emit(self, result: FoldResult) -> FoldResult:
        """The one place every result, folded or not, goes out through ``on_result``."""
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
        plan = self._prepare(messages, force, exact_keep)
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
