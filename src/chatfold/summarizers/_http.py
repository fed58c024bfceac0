"""The HTTP backends' error boundary and retries (the transport's failures, written once).

Every backend that talks to a provider through its SDK (``OpenAISummarizer``,
``AnthropicSummarizer``), and the ``chat`` command's model client, handle failure the same way:

- **One boundary.** SDK exceptions are translated into :class:`~chatfold.SummarizerError` in
  one place, :meth:`HTTPFailures.boundary`, with ``raise ... from exc``. Each backend lists
  every exception class of its SDK in a rule table (by class name, so the table needs no SDK
  import); a guard test fails when the SDK grows a class the table does not name. A class
  the table does not name is still translated, by its nearest named ancestor. The classes
  both SDKs share (they are generated from one template) have their rules once, in
  :func:`sdk_error_rules`.
- **Bounded retries.** 408, 429, 5xx, timeouts and connection errors are retried at most
  ``max_retries`` times with exponential backoff and jitter, honouring ``Retry-After``;
  other 4xx, malformed responses and empty answers are not retried. When a server asks for
  a longer wait than :data:`MAX_RETRY_AFTER` the error is raised at once, still
  ``retryable=True``. The SDK's own retries are switched off so the count is exact.

No message ever contains the API key: every server-provided text is passed through
:func:`redact` before it is quoted.

What a request asks for and what makes an answer usable is in ``_answer.py``; the options
object in ``_options.py``; the client lifecycle and the drivers the backends share in
``_remote.py``.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import math
import random
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar
from urllib.parse import urlsplit

from .._errors import SummarizerError

__all__ = [
    "BY_STATUS",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_RETRY_BACKOFF",
    "DEFAULT_TIMEOUT",
    "MAX_BACKOFF",
    "MAX_RETRY_AFTER",
    "ErrorRule",
    "HTTPFailures",
    "RetryPolicy",
    "display_host",
    "redact",
    "retry_after_seconds",
    "sdk_error_rules",
]

T = TypeVar("T")

logger = logging.getLogger("chatfold.summarizers")

DEFAULT_TIMEOUT = 60.0
"""Seconds one HTTP attempt may take."""
DEFAULT_MAX_RETRIES = 2
"""Retries after the first attempt, for retryable failures only."""
DEFAULT_RETRY_BACKOFF = 0.5
"""Seconds before the first retry; doubled for each further retry, with jitter."""
MAX_BACKOFF = 8.0
"""Longest computed wait between two attempts."""
MAX_RETRY_AFTER = 60.0
"""Longest ``Retry-After`` honoured inside a call; a longer one fails the call at once."""


@dataclass(frozen=True)
class ErrorRule:
    """How one SDK exception class translates.

    ``retryable=None`` means the class carries an HTTP status and the status decides.
    """

    retryable: bool | None
    """True: retry (timeouts, connection errors). None: decide from the HTTP status."""
    what: str
    """What happened, in a few words ("timed out", "could not be reached")."""
    hint: str = ""
    """How to fix it, appended to the message."""


BY_STATUS = ErrorRule(None, "answered with an error")
"""The rule for an SDK class that stands for an HTTP status: the status decides."""


def _status_retryable(status: int) -> bool:
    return status in (408, 429) or status >= 500


def _status_hint(status: int) -> str:
    if status in (401, 403):
        return "check the API key and its permissions"
    if status == 404:
        return "check the model name and base_url"
    if status == 402:
        return "check the account's billing"
    if status in (408, 429) or status >= 500:
        return "retry later"
    return "the server rejected the request"


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret (API keys) replaced by ``***``."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return text


def display_host(base_url: str | None, default: str) -> str:
    """``scheme://host[:port]`` of ``base_url``: never a path, query or user:password."""
    if not base_url:
        return default
    parts = urlsplit(base_url)
    if not parts.hostname:
        return default
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname}{port}"


def retry_after_seconds(exc: BaseException | None) -> float | None:
    """The wait a failed response asked for (``retry-after-ms`` or ``Retry-After``), if any."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / divisor
        except ValueError:
            if name == "retry-after-ms":
                continue
            parsed = email.utils.parsedate_tz(value)
            if parsed is None:
                return None
            return max(0.0, email.utils.mktime_tz(parsed) - time.time())
        return seconds if math.isfinite(seconds) and seconds >= 0 else None
    return None


def _server_message(exc: BaseException) -> str:
    """The human part of an error body (OpenAI and Anthropic shapes), else the exception text."""
    body = getattr(exc, "body", None)
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping):
            message = inner.get("message")
            if isinstance(message, str) and message.strip():
                return message.strip()
        elif isinstance(inner, str) and inner.strip():
            return inner.strip()
    return str(exc).strip()


def _error_code(exc: BaseException) -> str | None:
    code = getattr(exc, "code", None)
    if isinstance(code, str):
        return code
    body = getattr(exc, "body", None)
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and isinstance(inner.get("code"), str):
            return str(inner["code"])
    return None


_NEVER_RETRY_CODES = frozenset({"insufficient_quota", "billing_hard_limit_reached"})
"""429 codes that waiting does not cure (OpenAI's out-of-credit answers)."""


@dataclass(frozen=True)
class RetryPolicy:
    """When to try again. Pure: the jitter's random source is the only state."""

    max_retries: int = DEFAULT_MAX_RETRIES
    backoff: float = DEFAULT_RETRY_BACKOFF
    max_backoff: float = MAX_BACKOFF
    max_retry_after: float = MAX_RETRY_AFTER

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, not {self.max_retries}")
        if self.backoff < 0:
            raise ValueError(f"retry_backoff must be >= 0, not {self.backoff}")

    def delay(self, error: SummarizerError, retries_done: int) -> float | None:
        """Seconds to wait before the next attempt, or None to give up and raise ``error``."""
        if not error.retryable or retries_done >= self.max_retries:
            return None
        asked = retry_after_seconds(error.__cause__)
        if asked is not None:
            return asked if asked <= self.max_retry_after else None
        wait = min(self.max_backoff, self.backoff * 2.0**retries_done)
        return wait * random.uniform(0.5, 1.0)


@dataclass(frozen=True)
class HTTPFailures:
    """One backend's error boundary and retry drivers.

    Args:
        provider: Who answered, for messages ("OpenAI-compatible API at http://host:port").
        model: The model asked, for messages.
        sdk_errors: The SDK's root exception class (``openai.OpenAIError``).
        rules: A rule for every exception class of the SDK, by class name.
        secrets: Strings never to repeat in a message (the API key).
        retry: When to retry.
        timeout: The per-attempt timeout, for the timeout message.
    """

    provider: str
    model: str
    sdk_errors: type[BaseException]
    rules: Mapping[str, ErrorRule]
    secrets: tuple[str, ...] = ()
    retry: RetryPolicy = RetryPolicy()
    timeout: float = DEFAULT_TIMEOUT

    def rule_for(self, cls: type[BaseException]) -> ErrorRule | None:
        """The rule of ``cls`` or of its nearest ancestor in the SDK's table."""
        package = self.sdk_errors.__module__.split(".")[0]
        for klass in cls.__mro__:
            if klass.__module__.split(".")[0] == package and klass.__name__ in self.rules:
                return self.rules[klass.__name__]
        return None

    def translate(self, exc: BaseException) -> SummarizerError:
        """The :class:`SummarizerError` that stands for ``exc`` (raise it ``from exc``)."""
        where = f"{self.provider} (model {self.model!r})"
        if isinstance(exc, json.JSONDecodeError):
            return SummarizerError(
                f"{where} returned a body that is not JSON; check that base_url points at the "
                "API itself",
                retryable=False,
            )
        status = getattr(exc, "status_code", None)
        status = status if isinstance(status, int) else None
        rule = self.rule_for(type(exc)) or ErrorRule(False, "failed")
        detail = redact(_server_message(exc), self.secrets)[:300]
        if status is not None:
            retryable = rule.retryable
            if retryable is None:
                retryable = _status_retryable(status) and _error_code(exc) not in _NEVER_RETRY_CODES
            hint = rule.hint or _status_hint(status)
            what = rule.what if rule is not BY_STATUS else f"answered HTTP {status}"
            message = f"{where} {what}: {detail}; {hint}"
        else:
            retryable = bool(rule.retryable)
            if rule.what == "timed out":
                message = f"{where} timed out after {self.timeout:g} s; {rule.hint}"
            else:
                message = f"{where} {rule.what}: {detail}"
                if rule.hint:
                    message += f"; {rule.hint}"
        return SummarizerError(message, retryable=retryable, status_code=status)

    @contextmanager
    def boundary(self) -> Iterator[None]:
        """Translate any SDK exception (and a non-JSON body) raised inside into SummarizerError."""
        try:
            yield
        except SummarizerError:
            raise
        except (self.sdk_errors, json.JSONDecodeError) as exc:
            raise self.translate(exc) from exc

    def _next(self, error: SummarizerError, retries_done: int) -> float | None:
        wait = self.retry.delay(error, retries_done)
        if wait is not None:
            logger.warning(
                "%s; retry %d of %d in %.2f s", error, retries_done + 1, self.retry.max_retries,
                wait,
            )
        return wait

    def _give_up(self, error: SummarizerError, attempts: int) -> SummarizerError:
        if attempts == 1:
            return error
        final = SummarizerError(
            f"{error} (gave up after {attempts} attempts)",
            retryable=error.retryable,
            status_code=error.status_code,
        )
        final.__cause__ = error.__cause__
        return final

    def call(self, attempt: Callable[[], T]) -> T:
        """Run ``attempt`` inside the boundary, retrying what the policy allows."""
        retries = 0
        while True:
            try:
                with self.boundary():
                    return attempt()
            except SummarizerError as error:
                wait = self._next(error, retries)
                if wait is None:
                    raise self._give_up(error, retries + 1) from error.__cause__
            time.sleep(wait)
            retries += 1

    async def acall(self, attempt: Callable[[], Awaitable[T]]) -> T:
        """Async twin of :meth:`call`: same decisions, ``await`` instead of blocking."""
        retries = 0
        while True:
            try:
                with self.boundary():
                    return await attempt()
            except SummarizerError as error:
                wait = self._next(error, retries)
                if wait is None:
                    raise self._give_up(error, retries + 1) from error.__cause__
            await asyncio.sleep(wait)
            retries += 1


TIMEOUT_HINT = "raise timeout= or retry later"
"""The hint of a timed-out attempt."""

_STATUS_CLASSES = (
    "BadRequestError", "AuthenticationError", "PermissionDeniedError", "NotFoundError",
    "ConflictError", "UnprocessableEntityError", "RateLimitError", "InternalServerError",
)
"""The one-status exception classes both SDKs define."""


def sdk_error_rules(root: str, *, connect_hint: str, **own: ErrorRule) -> dict[str, ErrorRule]:
    """The rule table of an SDK generated like ``openai`` and ``anthropic`` are.

    Both SDKs share their exception hierarchy (a root class, ``APIError``, ``APIStatusError``
    and one class per common status, connection and timeout errors): those rules are written
    here once, and each backend adds the classes only its SDK has.

    Args:
        root: The SDK's root exception class name (``"OpenAIError"``).
        connect_hint: How to fix a connection error, for this provider.
        **own: The rules of the classes only this SDK defines, by class name.

    Returns:
        A rule for every class, by name.
    """
    return {
        root: ErrorRule(False, "failed"),
        "APIError": ErrorRule(False, "failed"),
        "APIStatusError": BY_STATUS,
        "APIConnectionError": ErrorRule(True, "could not be reached", connect_hint),
        "APITimeoutError": ErrorRule(True, "timed out", TIMEOUT_HINT),
        "APIResponseValidationError": ErrorRule(
            False, "returned a response of the wrong shape", "check that base_url is the API's"
        ),
        **dict.fromkeys(_STATUS_CLASSES, BY_STATUS),
        **own,
    }
