"""Replay a conversation message by message through a fold policy, and measure what it costs.

A chat app calls the fold before every model call. :func:`replay` does the same over a
recorded conversation: the leading system messages are the pinned head, then each message is
appended to the context and the context is folded (``folder.fold([*context, message])``). The
report says what the user would pay and keep: context tokens after every message (a sawtooth
between the target and the trigger), summarizer calls and the tokens sent to the summarizer,
and the prompt tokens of every model call against sending the whole history each time.

A **model call** happens where the next message is an assistant message: the context at that
point is the prompt the model answered. A conversation with no assistant message (a log of
user notes) counts a model call after every message.

:func:`seed_folder` expresses the seed article's policy with chatfold's own planner, so both
policies can run side by side on one replay (``chatfold simulate --compare``). It is the
seed's *policy* (its 0.6-token-per-character count, fold whenever over ``max_tokens``, keep
exactly ``keep`` messages, no target below the trigger, no check that a fold frees anything)
with chatfold's unit safety: its recent window never starts with an orphan tool result. The
seed's code itself, defects included, is ``benchmarks/seed_reference.py``.

Example:
    >>> class Short:  # a seed-style summarizer: summarize(text) -> str
    ...     def summarize(self, text: str) -> str:
    ...         return "They talked."
    >>> from chatfold.fold import Folder, Policy
    >>> talk = [{"role": "user" if i % 2 == 0 else "assistant",
    ...          "content": f"message {i} " + "blah " * 60} for i in range(40)]
    >>> policy = Policy(trigger_tokens=1200, keep=2, summary_max_tokens=100)
    >>> report = replay(talk, Folder(Short(), policy))
    >>> report.summarizer_calls == len(report.fold_points) > 0
    True
    >>> report.peak_context_tokens <= 1200, report.orphan_contexts
    (True, 0)
    >>> report.prompt_tokens < report.full_history_prompt_tokens
    True
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from ..fold import DEFAULT_KEEP, DEFAULT_SUMMARY_MAX_TOKENS, Folder, FoldResult, Policy
from ..messages import find_orphans, validate_messages
from ..tokens import TokenCounter

__all__ = [
    "SEED_TOKENS_PER_CHAR",
    "FolderLike",
    "ReplayReport",
    "SeedCounter",
    "SeedPolicyFolder",
    "TurnRecord",
    "replay",
    "seed_folder",
]

SEED_TOKENS_PER_CHAR = 0.6
"""The seed's ``_estimate_tokens``: 0.6 token per character, whatever the script."""


@dataclass(frozen=True)
class TurnRecord:
    """What happened when one message was appended."""

    index: int
    """Position of the message in the replayed conversation."""
    role: str
    """Its role."""
    context_tokens: int
    """Tokens of the context after the fold that followed the append."""
    folded: bool
    """A fold happened at this message."""
    summarizer_calls: int
    """Summarizer calls made at this message (2 when an overlong summary was re-asked)."""
    summarizer_input_tokens: int
    """Tokens sent to the summarizer at this message: previous summary + evicted messages,
    once per call."""
    model_call: bool
    """The context after this message is a prompt (the next message is the model's answer)."""


@dataclass(frozen=True)
class ReplayReport:
    """The figures of one replay; every token figure uses one counter (``counter_name``)."""

    name: str
    """Label of the policy (``chatfold``, ``seed``...)."""
    turns: tuple[TurnRecord, ...]
    """One record per appended message (the leading system messages are not turns)."""
    summarizer_calls: int
    """Summarizer calls in the whole replay."""
    summarizer_input_tokens: int
    """Tokens sent to the summarizer in the whole replay."""
    peak_context_tokens: int
    """Largest context after any message."""
    mean_context_tokens: float
    """Mean context size over the turns."""
    prompt_tokens: int
    """Sum of the context tokens at each model call: what the prompts cost."""
    full_history_prompt_tokens: int
    """The same sum if the whole history were sent at each model call."""
    final_context: list[Any]
    """The context after the last message."""
    fold_points: tuple[int, ...]
    """Message indices at which a fold happened."""
    trigger_tokens: int
    """The policy's trigger (in the folder's own counter's units)."""
    target_tokens: int
    """The policy's target (in the folder's own counter's units)."""
    orphan_contexts: int
    """Turns whose context held a tool result without its call (a provider would reject it)."""
    seconds: float
    """Wall time of the replay, summarizer calls included."""
    counter_name: str = ""
    """The counter the token figures were measured with."""
    history_tokens: int = 0
    """Tokens of the whole conversation."""
    model_calls: int = 0
    """Number of model calls counted."""

    @property
    def folds(self) -> int:
        """Number of folds."""
        return len(self.fold_points)

    @property
    def savings(self) -> float:
        """Share of prompt tokens saved against sending the whole history (0..1)."""
        if not self.full_history_prompt_tokens:
            return 0.0
        return 1.0 - self.prompt_tokens / self.full_history_prompt_tokens

    def to_dict(self, *, turns: bool = True) -> dict[str, Any]:
        """The report as JSON-ready data (``turns=False`` leaves out the per-turn records)."""
        data = asdict(self)
        data.pop("final_context")
        data["turns"] = [asdict(t) for t in self.turns] if turns else None
        data["fold_points"] = list(self.fold_points)
        data["folds"] = self.folds
        data["savings"] = round(self.savings, 4)
        data["mean_context_tokens"] = round(self.mean_context_tokens, 1)
        data["seconds"] = round(self.seconds, 4)
        if not turns:
            del data["turns"]
        return data


class FolderLike(Protocol):
    """What :func:`replay` needs of a folder: :class:`~chatfold.Folder` or a wrapper with the
    same ``fold``, ``counter`` and ``policy`` (a benchmark's re-implementation of a peer)."""

    counter: TokenCounter
    policy: Policy

    def fold(self, messages: Sequence[Mapping[str, Any]], /) -> FoldResult:
        """Fold ``messages`` if the policy says so."""
        ...


class _Measure:
    """Counts messages with one counter, once per message object."""

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        # id -> (message, count): holding the message keeps its id from being reused.
        self._cache: dict[int, tuple[Mapping[str, Any], int]] = {}

    def message(self, message: Mapping[str, Any]) -> int:
        hit = self._cache.get(id(message))
        if hit is not None and hit[0] is message:
            return hit[1]
        n = self.counter.count_message(message)
        self._cache[id(message)] = (message, n)
        return n

    def messages(self, messages: Sequence[Mapping[str, Any]]) -> int:
        return sum(self.message(m) for m in messages)


def _model_calls(messages: Sequence[Mapping[str, Any]], start: int) -> list[bool]:
    """For each message from ``start``: is the context after it a prompt?"""
    n = len(messages)
    if not any(m.get("role") == "assistant" for m in messages[start:]):
        return [True] * (n - start)
    return [i + 1 < n and messages[i + 1].get("role") == "assistant" for i in range(start, n)]


def replay(
    messages: Sequence[Mapping[str, Any]],
    folder: FolderLike,
    *,
    name: str = "chatfold",
    progress: Callable[[int, int], None] | None = None,
    counter: TokenCounter | None = None,
) -> ReplayReport:
    """Replay ``messages`` one by one through ``folder`` and report the costs.

    Args:
        messages: The recorded conversation (OpenAI format).
        folder: The folder (its policy, summarizer and counter decide the folds). A folder
            whose results carry no ``plan`` is reported as sending 0 tokens to its summarizer
            (count them in the summarizer instead).
        name: Label of the report.
        progress: Called as ``progress(done, total)`` after each message.
        counter: Measures the report's token figures (default: the folder's counter), so that
            two policies with different counters are compared with one ruler.

    Returns:
        A :class:`ReplayReport`.

    Raises:
        InvalidMessageError: a message is malformed (the error names its index).
        ContextOverflowError: the folder's policy raises on overflow and a message is too big.
        SummarizerError: the summarizer failed (policy ``on_error="raise"``).
    """
    validate_messages(messages)
    measure = _Measure(counter if counter is not None else folder.counter)
    started = time.perf_counter()
    head = 0
    while head < len(messages) and messages[head].get("role") in ("system", "developer"):
        head += 1
    context: list[Any] = list(messages[:head])
    calls_at = _model_calls(messages, head)
    total = len(messages) - head
    turns: list[TurnRecord] = []
    history = measure.messages(messages[:head])
    full_prompts = prompts = sum_context = peak = 0
    orphan_contexts = model_calls = 0
    for k, i in enumerate(range(head, len(messages))):
        message = messages[i]
        history += measure.message(message)
        given = [*context, message]
        result: FoldResult = folder.fold(given)
        context = result.messages
        tokens = measure.messages(context)
        calls = result.summarizer_calls
        sent = 0
        if calls and result.plan is not None:
            # What the summarizer read: the previous summary and the evicted messages.
            read = (*result.plan.summaries, *result.plan.old)
            sent = calls * sum(measure.message(given[j]) for j in read)
        is_call = calls_at[k]
        if is_call:
            model_calls += 1
            prompts += tokens
            full_prompts += history
        if find_orphans(context):
            orphan_contexts += 1
        peak = max(peak, tokens)
        sum_context += tokens
        turns.append(TurnRecord(
            index=i, role=str(message.get("role")), context_tokens=tokens, folded=result.folded,
            summarizer_calls=calls, summarizer_input_tokens=sent, model_call=is_call,
        ))
        if progress is not None:
            progress(k + 1, total)
    policy = folder.policy
    return ReplayReport(
        name=name,
        turns=tuple(turns),
        summarizer_calls=sum(t.summarizer_calls for t in turns),
        summarizer_input_tokens=sum(t.summarizer_input_tokens for t in turns),
        peak_context_tokens=peak if turns else measure.messages(context),
        mean_context_tokens=sum_context / len(turns) if turns else 0.0,
        prompt_tokens=prompts,
        full_history_prompt_tokens=full_prompts,
        final_context=context,
        fold_points=tuple(t.index for t in turns if t.folded),
        trigger_tokens=policy.trigger_tokens,
        target_tokens=policy.target,
        orphan_contexts=orphan_contexts,
        seconds=time.perf_counter() - started,
        counter_name=str(getattr(measure.counter, "name", type(measure.counter).__name__)),
        history_tokens=history,
        model_calls=model_calls,
    )


# ---------------------------------------------------------------------------------------------
# the seed's policy


class SeedCounter:
    """The seed's ``_estimate_tokens`` applied per message: ``max(1, int(len(text) * 0.6))``
    of ``f"{role}: {content}"`` (the seed's ``_fmt`` line, ``None`` and reprs included)."""

    name = "seed-0.6/char"

    def count(self, text: str) -> int:
        """The seed's estimate of ``text``."""
        return max(1, int(len(text) * SEED_TOKENS_PER_CHAR))

    def count_message(self, message: Mapping[str, Any]) -> int:
        """The seed's estimate of the message's transcript line."""
        return self.count(f"{message.get('role')}: {message.get('content')}")


class SeedPolicyFolder(Folder):
    """A :class:`~chatfold.Folder` that folds the seed's way: whenever the context is over
    the trigger, keep exactly ``keep`` recent messages (widened to whole units), with no
    target below the trigger and no check that the fold frees anything."""

    def fold(self, messages: Sequence[Mapping[str, Any]], *, force: bool = False,
             metadata: Mapping[str, Any] | None = None, exact_keep: bool = True) -> FoldResult:
        """Fold like the seed's ``maybe_compress`` (``force`` folds even under the trigger,
        like its ``compress``); ``exact_keep`` is always on."""
        return super().fold(messages, force=force, metadata=metadata, exact_keep=True)


def seed_folder(
    summarizer: object,
    *,
    max_tokens: int = 3000,
    keep: int = DEFAULT_KEEP,
) -> SeedPolicyFolder:
    """A folder applying the seed's ``maybe_compress(messages, llm, max_tokens, keep)`` policy.

    The summary is still held to chatfold's cap (the seed only asked for 200 characters in its
    prompt), and the recent window never splits a tool call from its results.

    Args:
        summarizer: Any summarizer :class:`~chatfold.Folder` accepts.
        max_tokens: The seed's threshold, in its 0.6-per-character units.
        keep: Messages kept verbatim.
    """
    cap = DEFAULT_SUMMARY_MAX_TOKENS
    if cap >= max_tokens:
        cap = max(16, max_tokens // 3)
    policy = Policy(
        trigger_tokens=max(max_tokens, cap + 1), target_tokens=max(max_tokens, cap + 1),
        keep=keep, summary_max_tokens=cap, on_overflow="keep",
    )
    return SeedPolicyFolder(summarizer, policy, counter=SeedCounter())
