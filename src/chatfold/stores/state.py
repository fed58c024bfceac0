"""The running-summary state a store keeps beside a conversation's log.

A conversation is an append-only log plus this state: the summary, the last log entry it
covers, and a version that every fold bumps (the key of the stores' compare-and-set).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["FoldState"]


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
