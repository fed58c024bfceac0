"""How a remote summarizer calls its provider, as one frozen value (like httpx's ``Timeout``)."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypedDict

from ._http import DEFAULT_MAX_RETRIES, DEFAULT_RETRY_BACKOFF, DEFAULT_TIMEOUT

__all__ = ["UNSET", "RemoteOptions", "RemoteOverrides"]


class _Unset(enum.Enum):
    UNSET = "UNSET"

    def __repr__(self) -> str:
        return "UNSET"


UNSET = _Unset.UNSET
"""An option not given (``None`` already means something: no temperature, no extra body)."""


@dataclass(frozen=True)
class RemoteOptions:
    """How a remote summarizer calls its provider, as one value (like httpx's ``Timeout``).

    Build it once and hand it to any backend (``OpenAISummarizer(model, options=opts)``);
    derive a variant with :meth:`replace`. The backends' keyword arguments of the same names
    still work and win over ``options``.

    Example:
        >>> opts = RemoteOptions(timeout=20, max_retries=4)
        >>> opts.replace(temperature=None).temperature is None
        True

    Raises:
        ValueError: ``timeout`` is not positive, or a count or a wait is negative.
    """

    timeout: float = DEFAULT_TIMEOUT
    """Seconds one HTTP attempt may take."""
    max_retries: int = DEFAULT_MAX_RETRIES
    """Retries after the first attempt, for retryable failures (408/429/5xx, timeouts,
    connection errors) only."""
    retry_backoff: float = DEFAULT_RETRY_BACKOFF
    """Seconds before the first retry, doubled each retry, with jitter."""
    temperature: float | _Unset | None = UNSET
    """Sampling temperature; ``None`` leaves it out; ``UNSET``: the backend's default."""
    reasoning_tokens: int = 0
    """Extra output tokens for models whose thinking counts against the limit."""
    extra_body: Mapping[str, Any] | None = field(default=None, hash=False)
    """Extra JSON fields for the request (copied, read-only)."""

    def __post_init__(self) -> None:
        if not self.timeout > 0:
            raise ValueError(f"timeout must be > 0 seconds, not {self.timeout}")
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, not {self.max_retries}")
        if self.retry_backoff < 0:
            raise ValueError(f"retry_backoff must be >= 0, not {self.retry_backoff}")
        if self.reasoning_tokens < 0:
            raise ValueError(f"reasoning_tokens must be >= 0, not {self.reasoning_tokens}")
        body = MappingProxyType(dict(self.extra_body)) if self.extra_body else None
        object.__setattr__(self, "timeout", float(self.timeout))
        object.__setattr__(self, "extra_body", body)

    def replace(self, **changes: Any) -> RemoteOptions:
        """A copy with ``changes`` applied (``UNSET`` values are ignored)."""
        given = {k: v for k, v in changes.items() if v is not UNSET}
        return dataclasses.replace(self, **given) if given else self


class RemoteOverrides(TypedDict, total=False):
    """The fields of :class:`RemoteOptions` a backend also takes as keyword arguments, where
    they win over its ``options``."""

    timeout: float
    max_retries: int
    retry_backoff: float
    temperature: float | None
    reasoning_tokens: int
    extra_body: Mapping[str, Any] | None
