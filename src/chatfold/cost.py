"""What a fold policy costs per turn: the model's prompt tokens plus the summarizer's.

Between two folds the context climbs from where a fold lands (``L``, about the target) to the
trigger (``T``) by ``g`` tokens a turn: a sawtooth. Per turn, on average:

- the model reads ``(L + T) / 2`` prompt tokens;
- a fold happens ``g / (T - L)`` times;
- each fold sends the summarizer the previous summary (``S``), the evicted ``T - L`` tokens
  and its instructions (``o``), and gets ``S`` tokens back, which cost ``w`` times an input
  token (output is the expensive kind: ``w`` is about 4 for most hosted models).

So, in input-token units::

    cost(L) = (L + T) / 2  +  g  +  g * (S * (1 + w) + o) / (T - L)

Both variable terms grow with ``L``: for a given peak ``T``, **a deeper fold is cheaper on
every axis** (fewer prompt tokens, fewer summarizer calls, fewer summarizer tokens in and
out), and at an equal mean context ``(L + T) / 2`` the deeper fold still makes fewer calls.
What a deep fold gives up is verbatim recency: right after a fold the model sees only the
summary and the recent window. chatfold's default therefore folds deep, to the summary's cap
plus a twentieth of the trigger (at least ``keep`` messages): the summary carries the rest, and
its room is protected. ``Policy(target_tokens=...)`` is the knob: raise it to keep more recent
messages verbatim, at the price this module computes.

These are estimates of a steady state (constant growth, a summary at its cap), not bounds.

Example:
    >>> from chatfold import Policy
    >>> deep = estimate_cost(Policy(trigger_tokens=3000), tokens_per_turn=60)
    >>> shallow = estimate_cost(Policy(trigger_tokens=3000, target_tokens=1800), tokens_per_turn=60)
    >>> deep.summarizer_calls_per_turn < shallow.summarizer_calls_per_turn
    True
    >>> deep.cost_per_turn < shallow.cost_per_turn
    True
"""

from __future__ import annotations

from dataclasses import dataclass

from ._errors import InvalidPolicyError
from .fold import Policy

__all__ = ["CostEstimate", "estimate_cost"]

DEFAULT_OUTPUT_WEIGHT = 4.0
"""Price of an output token in input tokens (typical of hosted models' price lists)."""
DEFAULT_PROMPT_OVERHEAD = 450
"""Tokens of the summarizer's instructions around the data (chatfold's prompt is ~400-500)."""


@dataclass(frozen=True)
class CostEstimate:
    """Steady-state cost per turn of a policy (estimates, not bounds)."""

    landing_tokens: float
    """Where a fold lands: the target, or higher when pinned + summary + keep need more."""
    mean_context_tokens: float
    """Prompt tokens the model reads per turn, on average."""
    summarizer_calls_per_turn: float
    """Folds per turn (one call each when the summary fits its cap)."""
    summarizer_input_per_turn: float
    """Tokens sent to the summarizer per turn."""
    summarizer_output_per_turn: float
    """Tokens the summarizer writes per turn."""
    cost_per_turn: float
    """Everything, in input-token units (output tokens weighted)."""


def estimate_cost(
    policy: Policy,
    *,
    tokens_per_turn: float,
    pinned_tokens: float = 0.0,
    keep_tokens: float = 0.0,
    summary_tokens: float | None = None,
    output_weight: float = DEFAULT_OUTPUT_WEIGHT,
    prompt_overhead: float = DEFAULT_PROMPT_OVERHEAD,
) -> CostEstimate:
    """The steady-state cost per turn of folding under ``policy``.

    Args:
        policy: The fold policy (its fold trigger, target and summary cap are used).
        tokens_per_turn: How much the conversation grows per turn (user + assistant + tools).
        pinned_tokens: Tokens of the pinned head (the system prompt).
        keep_tokens: Tokens of the last ``keep`` messages (the window never goes below them).
        summary_tokens: Length of the summary; default: the policy's cap.
        output_weight: Price of an output token in input tokens.
        prompt_overhead: Tokens of the summarizer's instructions per call.

    Raises:
        InvalidPolicyError: a negative or non-finite figure, or no growth.
    """
    for name, value in (("tokens_per_turn", tokens_per_turn), ("pinned_tokens", pinned_tokens),
                        ("keep_tokens", keep_tokens), ("output_weight", output_weight),
                        ("prompt_overhead", prompt_overhead)):
        if not isinstance(value, int | float) or not 0 <= value < float("inf"):
            raise InvalidPolicyError(name, "must be a finite number >= 0")
    if tokens_per_turn <= 0:
        raise InvalidPolicyError("tokens_per_turn", "must be positive")
    s = float(policy.summary_max_tokens if summary_tokens is None else summary_tokens)
    if not 0 <= s < float("inf"):
        raise InvalidPolicyError("summary_tokens", "must be a finite number >= 0")
    trigger = float(policy.fold_trigger)
    landing = max(float(policy.target), pinned_tokens + s + keep_tokens)
    gap = max(trigger - landing, float(policy.min_gain))
    calls = tokens_per_turn / gap
    sent = calls * (s + gap + prompt_overhead)
    written = calls * s
    mean = (landing + landing + gap) / 2
    return CostEstimate(
        landing_tokens=landing,
        mean_context_tokens=mean,
        summarizer_calls_per_turn=calls,
        summarizer_input_per_turn=sent,
        summarizer_output_per_turn=written,
        cost_per_turn=mean + sent + output_weight * written,
    )
