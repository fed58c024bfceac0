"""The fold policy: when to fold, how deep, and how the budget is shared.

:class:`Policy` is a frozen value checked on creation (a bad field raises
:class:`~chatfold.InvalidPolicyError` naming it); :func:`default_summary_cap` and
:func:`default_target` fill in what it leaves at 0 / None. Standard library only (layer 2):
:mod:`chatfold.fold` plans and applies folds under it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from ._errors import InvalidPolicyError
from ._summary import Style

__all__ = [
    "DEFAULT_KEEP",
    "DEFAULT_RECALL_SHARE",
    "DEFAULT_SUMMARY_CEILING",
    "DEFAULT_SUMMARY_MAX_TOKENS",
    "DEFAULT_TRIGGER_TOKENS",
    "DEFAULT_WINDOW_RATIO",
    "MIN_GAIN_RATIO",
    "MIN_SUMMARY_TOKENS",
    "Policy",
    "default_summary_cap",
    "default_target",
]

DEFAULT_TRIGGER_TOKENS = 3000
"""The seed's ``max_tokens``."""
DEFAULT_WINDOW_RATIO = 0.05
"""Unless ``target_tokens`` is given, a fold lands at the summary's cap plus this share of the
trigger for the recent window (at least ``keep`` messages): see :func:`default_target`.
A twentieth of the trigger is about the ``keep`` window of ordinary chat turns at the default
trigger (four messages of 30-40 tokens at 3,000)."""
DEFAULT_KEEP = 4
"""The seed's ``keep``: the last K messages stay verbatim."""
DEFAULT_SUMMARY_MAX_TOKENS = 400
"""The base of the summary's automatic cap (the seed asked for 200 Chinese characters, about this
many tokens, whatever the budget): :func:`default_summary_cap` adds a tenth of the trigger."""
DEFAULT_SUMMARY_CEILING = 2000
"""The automatic cap never exceeds this: a summary an LLM can write in one reply."""
DEFAULT_SUMMARY_SHARE = (2, 5)
"""Nor this share of the trigger (two fifths, in integers so the cap is exact): the rest is
the recent window's and the gap a fold frees. At small budgets this is what limits the
summary. Measured at a 1,200-token trigger (``benchmarks/bench_retention.py --budgets 1200``):
a 480-token cap instead of a third of the trigger (400) keeps 0.424 of LoCoMo answers instead
of 0.409 (old facts 0.449 / 0.432) and 0.168 of the Chinese sessions' values instead of 0.146
(the seed's algorithm: 0.146), at the same mean context, for 13% more folds."""
MIN_SUMMARY_TOKENS = 16
"""No summary is ever asked to be shorter than this."""
MIN_GAIN_RATIO = 0.1
"""A fold that cannot reach the target still runs if it frees this share of the trigger."""
DEFAULT_RECALL_SHARE = 0.25
"""``recall_tokens=None`` (auto) gives recall this share of the trigger in a conversation whose
store can search its archive. Measured (``benchmarks/bench_recall.py``, LoCoMo at the same
total budget of 4,000 tokens): answer recall 0.545 without recall, 0.813 with this share (old
facts 0.557 -> 0.816), for 43% more summarizer calls (the fold trigger is lower); a third or
a half of the budget add less than 0.01."""
MIN_AUTO_RECALL_TOKENS = 64
"""Auto recall is off when it would get less than this (a header and one short hit)."""


# ---------------------------------------------------------------------------------------------
# configuration and data


def default_summary_cap(trigger_tokens: int) -> int:
    """The summary's cap when ``summary_max_tokens`` is 0: 400 tokens plus a tenth of the
    trigger, at most 40% of the trigger (room for the recent window) and 2,000 tokens.

    The summary grows with the budget because it is where old facts live: on LoCoMo at 4,000
    tokens, a cap of 800 instead of the seed's fixed 400 keeps 0.559 of old-fact answers
    instead of 0.499 (``benchmarks/bench_retention.py``). The price is a longer summary to
    write per fold; pass ``summary_max_tokens`` to trade memory for summarizer output.

    Example:
        >>> default_summary_cap(600), default_summary_cap(1200), default_summary_cap(4000)
        (240, 480, 800)
        >>> default_summary_cap(8000), default_summary_cap(128_000)
        (1200, 2000)
    """
    num, den = DEFAULT_SUMMARY_SHARE
    share = trigger_tokens * num // den
    return min(DEFAULT_SUMMARY_CEILING, max(MIN_SUMMARY_TOKENS, share),
               DEFAULT_SUMMARY_MAX_TOKENS + trigger_tokens // 10)


def default_target(trigger_tokens: int, summary_max_tokens: int) -> int:
    """The target when ``target_tokens`` is None: the summary's cap plus a twentieth of the
    trigger for the recent window (never above the trigger), so a fold lands at about the
    summary plus the ``keep`` window.

    Why this deep: a fold's cost per turn falls on every axis as the fold goes deeper (see
    :mod:`chatfold.cost` and :class:`Policy`), so the default keeps no verbatim window beyond
    about ``keep`` and lets the protected summary carry the rest. The default target is a
    preference, not a limit: a ``keep`` window or a latest message longer than it is kept
    whole (``over_target``), and only one that leaves the summary less than its floor below
    the *trigger* shortens the summary. Raise ``target_tokens`` to keep more recent messages
    verbatim at the price of more frequent folds.

    Example:
        >>> default_target(3000, 400), default_target(8000, 400)
        (550, 800)
    """
    window = max(1, int(trigger_tokens * DEFAULT_WINDOW_RATIO))
    return min(trigger_tokens, summary_max_tokens + window)


@dataclass(frozen=True)
class Policy:
    """When to fold, how deep, and how the budget is shared.

    The target is shared by three parts, in this order of protection: the pinned head, the
    summary (its room is reserved first, up to ``summary_max_tokens``; a long recent window
    never squeezes it below ``summary_min_tokens``), and the recent window (at least the last
    ``keep`` messages in whole units, grown while everything fits the target). Only the pinned
    head plus the latest unit can push the summary below its floor, and then
    :attr:`FoldResult.summary_squeezed` says so.

    **How deep a fold goes, and what it costs.** Between two folds the context climbs from
    where a fold lands (``L``: pinned + summary + recent window) to the trigger ``T``; with
    ``g`` tokens added per turn and a summary of ``S`` tokens, a turn costs on average (in
    input-token units, output tokens weighing ``w``, about 4 on hosted price lists; the
    summarizer's instructions ``o``)::

        model prompt (L + T) / 2   +   summarizer  g / (T - L) * (S + (T - L) + o + w * S)

    Every term grows with ``L``: at a given peak, or at a given mean context, a deeper fold
    makes fewer summarizer calls, sends fewer tokens and asks for fewer output tokens (the
    expensive kind). So the default lands as deep as the guarantees allow: pinned head, the
    summary at its cap, and the ``keep`` window (:func:`default_target`: the cap plus a
    twentieth of the trigger). What that gives up is verbatim recency right after a fold,
    which the summary (and recall, with ``recall_tokens``) carries instead. The knobs:
    ``target_tokens`` (higher: more verbatim messages, more folds), ``keep`` (the verbatim
    minimum) and ``summary_max_tokens`` (a shorter summary lands deeper and writes fewer
    output tokens, and holds fewer facts). :func:`chatfold.cost.estimate_cost` computes the
    trade-off for a policy. The hard guarantees do not depend on it: the context never
    exceeds the trigger by the exact counter, nothing is dropped (every fold summarizes what
    leaves the window), and no tool result loses its call.

    Example:
        >>> p = Policy(trigger_tokens=8000)
        >>> p.target, p.keep, p.summary_max_tokens, p.summary_min_tokens
        (1600, 4, 1200, 1200)
    """

    trigger_tokens: int = DEFAULT_TRIGGER_TOKENS
    """Fold when the context's count exceeds this (minus ``recall_tokens``)."""
    target_tokens: int | None = None
    """After a fold the context is at or below this; ``None`` means :func:`default_target`
    (the summary's cap plus a twentieth of the trigger: about the ``keep`` window)."""
    keep: int = DEFAULT_KEEP
    """Minimum number of recent (non-pinned) messages kept verbatim, widened to whole units."""
    summary_max_tokens: int = 0
    """Hard cap on the summary's text. ``0`` (the default) means :func:`default_summary_cap`."""
    summary_min_tokens: int = 0
    """Floor below which a long recent window never squeezes the summary's cap. ``0`` (the
    default) means the cap itself: the recent window shrinks to ``keep`` first."""
    recall_tokens: int | None = None
    """Room reserved for recalled archive messages (stored conversations); folds happen at
    ``trigger_tokens - recall_tokens`` so the context plus recall stays within the trigger.
    ``0``: recall is off. ``None`` (the default): auto, resolved by :meth:`with_auto_recall`
    when a :class:`~chatfold.Conversation` opens: :data:`DEFAULT_RECALL_SHARE` of the trigger
    if its store can search (every built-in store can), else 0; a bare
    :class:`~chatfold.Folder` (no archive) and :func:`~chatfold.compress` treat it as 0."""
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
    _auto: tuple[bool, bool] = field(default=(False, False), init=False, repr=False,
                                     compare=False)
    # Whether summary_max_tokens / summary_min_tokens were left at 0 (auto), so that
    # with_auto_recall derives them again from the lower fold trigger.

    def __post_init__(self) -> None:
        def positive_int(value: object) -> bool:
            return isinstance(value, int) and not isinstance(value, bool) and value > 0

        if not positive_int(self.trigger_tokens):
            raise InvalidPolicyError("trigger_tokens", "must be a positive integer")
        r = self.recall_tokens or 0
        if self.recall_tokens is not None and (
                not isinstance(r, int) or isinstance(r, bool) or not 0 <= r < self.trigger_tokens):
            raise InvalidPolicyError(
                "recall_tokens",
                f"must be an integer in 0..trigger_tokens-1 ({self.trigger_tokens - 1}), "
                "or None (auto)",
            )
        object.__setattr__(self, "_auto", (self.summary_max_tokens == 0,
                                           self.summary_min_tokens == 0))
        fold_trigger = self.trigger_tokens - r
        t = self.target_tokens
        if t is not None and (not positive_int(t) or not t <= fold_trigger):
            limit = "trigger_tokens - recall_tokens" if r else "trigger_tokens"
            raise InvalidPolicyError(
                "target_tokens", f"must be an integer in 1..{limit} ({fold_trigger})"
            )
        if not isinstance(self.keep, int) or isinstance(self.keep, bool) or self.keep < 0:
            raise InvalidPolicyError("keep", "must be an integer >= 0")
        if self.summary_max_tokens == 0:
            auto = default_summary_cap(fold_trigger)
            if t is not None:
                # An explicit target keeps at least a third of itself for the recent window.
                auto = min(auto, max(MIN_SUMMARY_TOKENS, t * 2 // 3))
            object.__setattr__(self, "summary_max_tokens", auto)
        cap = self.summary_max_tokens
        if not isinstance(cap, int) or isinstance(cap, bool) or cap < MIN_SUMMARY_TOKENS:
            raise InvalidPolicyError(
                "summary_max_tokens", f"must be an integer >= {MIN_SUMMARY_TOKENS} (or 0: auto)"
            )
        if cap >= self.target:
            raise InvalidPolicyError(
                "summary_max_tokens",
                f"must be below the target ({self.target}) to leave room for recent messages",
            )
        floor = self.summary_min_tokens
        if floor == 0:
            object.__setattr__(self, "summary_min_tokens", cap)
        elif not isinstance(floor, int) or isinstance(floor, bool) or \
                not MIN_SUMMARY_TOKENS <= floor <= cap:
            raise InvalidPolicyError(
                "summary_min_tokens",
                f"must be an integer in {MIN_SUMMARY_TOKENS}..summary_max_tokens ({cap}), "
                "or 0 (the cap)",
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
        timeout = self.summarizer_timeout
        if timeout is not None and (isinstance(timeout, bool) or
                                    not isinstance(timeout, int | float) or not timeout > 0):
            raise InvalidPolicyError("summarizer_timeout", "must be positive seconds or None")

    @property
    def fold_trigger(self) -> int:
        """The count above which a fold runs: ``trigger_tokens - recall_tokens``."""
        return self.trigger_tokens - (self.recall_tokens or 0)

    def with_auto_recall(self, searchable: bool) -> Policy:
        """This policy with ``recall_tokens=None`` resolved: :data:`DEFAULT_RECALL_SHARE` of
        the trigger when ``searchable`` (the conversation's store has a search index), never
        so much that an explicit ``target_tokens`` would exceed the fold trigger, and 0 when
        that leaves less than :data:`MIN_AUTO_RECALL_TOKENS`, nothing can be searched, or an
        explicit summary cap would not fit below the lower fold trigger. A policy with an
        explicit ``recall_tokens`` (0 included) is returned unchanged.

        Example:
            >>> Policy(trigger_tokens=4000).with_auto_recall(True).recall_tokens
            1000
            >>> Policy(trigger_tokens=4000).with_auto_recall(False).recall_tokens
            0
        """
        if self.recall_tokens is not None:
            return self
        room = int(self.trigger_tokens * DEFAULT_RECALL_SHARE) if searchable else 0
        if self.target_tokens is not None:
            room = min(room, self.trigger_tokens - self.target_tokens)
        auto_cap, auto_floor = self._auto
        cap = 0 if auto_cap else self.summary_max_tokens
        floor = 0 if auto_floor else self.summary_min_tokens
        if room >= MIN_AUTO_RECALL_TOKENS:
            try:
                return replace(self, recall_tokens=room, summary_max_tokens=cap,
                               summary_min_tokens=floor)
            except InvalidPolicyError:
                pass  # an explicit summary cap leaves no room below the lower fold trigger
        return replace(self, recall_tokens=0, summary_max_tokens=cap, summary_min_tokens=floor)

    @property
    def target(self) -> int:
        """The effective target (``target_tokens`` or :func:`default_target`)."""
        if self.target_tokens is not None:
            return self.target_tokens
        cap = self.summary_max_tokens or default_summary_cap(self.fold_trigger)
        return default_target(self.fold_trigger, cap)

    @property
    def min_gain(self) -> int:
        """Tokens a fold must free when it cannot reach the target (the recent window or the
        summary's floor hold the context above it): a tenth of the trigger, so a ``keep``
        that holds the context near the trigger does not cost a summarizer call every turn."""
        return max(1, min(self.fold_trigger - self.target,
                          int(self.fold_trigger * MIN_GAIN_RATIO)))
