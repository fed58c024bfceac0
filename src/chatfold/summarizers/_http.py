"""What the HTTP backends share: one error boundary, retries, usable output, client lifecycle.

Every backend that talks to a provider through its SDK (``OpenAISummarizer``,
``AnthropicSummarizer``) subclasses :class:`RemoteSummarizer` and handles failure the same way:

- **One boundary.** SDK exceptions are translated into :class:`~chatfold.SummarizerError` in
  one place, :meth:`HTTPFailures.boundary`, with ``raise ... from exc``. Each backend lists
  every exception class of its SDK in a rule table (by class name, so the table needs no SDK
  import); a guard test fails when the SDK grows a class the table does not name. A class
  the table does not name is still translated, by its nearest named ancestor.
- **Bounded retries.** 408, 429, 5xx, timeouts and connection errors are retried at most
  ``max_retries`` times with exponential backoff and jitter, honouring ``Retry-After``;
  other 4xx, malformed responses and empty answers are not retried. When a server asks for
  a longer wait than :data:`MAX_RETRY_AFTER` the error is raised at once, still
  ``retryable=True``. The SDK's own retries are switched off so the count is exact.
- **Usable output.** :func:`clean_summary` strips ``<think>`` blocks of reasoning models
  (DeepSeek-R1, Qwen3), surrounding whitespace and code fences; what remains must be
  non-empty or the call fails with a non-retryable error (a deterministic model asked the
  same thing again answers the same).

No message ever contains the API key: every server-provided text is passed through
:func:`redact` before it is quoted.

:class:`RemoteSummarizer` holds the rest of what the backends have in common: a sync client
created on first use under a lock, an async client per event loop that keeps no idle
connection, ``close``/``aclose`` and the context managers, and the ``summarize`` and
``asummarize`` drivers around :meth:`HTTPFailures.call`. A backend adds only what differs: the
SDK import, how a client is built, the request parameters, how to read the answer and its
error-rule table.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import math
import random
import re
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from types import TracebackType
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar
from urllib.parse import urlsplit

from .._errors import SummarizerError
from .base import BaseSummarizer, SummaryRequest

__all__ = [
    "BY_STATUS",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_RETRY_BACKOFF",
    "DEFAULT_TIMEOUT",
    "MAX_BACKOFF",
    "MAX_RETRY_AFTER",
    "ErrorRule",
    "HTTPFailures",
    "RemoteSummarizer",
    "RetryPolicy",
    "clean_summary",
    "display_host",
    "output_budget",
    "redact",
    "retry_after_seconds",
    "usable_summary",
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
OUTPUT_HEADROOM = 1.5
OUTPUT_SLACK = 64


def output_budget(cap: int, reasoning_tokens: int = 0) -> int:
    """The ``max_tokens`` to send for a summary capped at ``cap`` tokens.

    The fold enforces the cap itself (re-ask, then cut at a sentence boundary), so the API
    limit leaves headroom: a provider's tokenizer counts differently from the fold's, and an
    answer cut mid-sentence by the API is worse than one a little over the cap.
    ``reasoning_tokens`` adds room for models whose thinking counts against the limit.
    """
    return int(max(1, cap) * OUTPUT_HEADROOM) + OUTPUT_SLACK + max(0, reasoning_tokens)


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


_THINK_TAGS = "think|thinking|reasoning"
_THINK_BLOCK = re.compile(rf"<({_THINK_TAGS})>.*?</\1\s*>", re.S | re.I)
_THINK_ORPHAN_CLOSE = re.compile(rf"\A.*</(?:{_THINK_TAGS})\s*>", re.S | re.I)
_THINK_UNCLOSED = re.compile(rf"\A\s*<(?:{_THINK_TAGS})>.*\Z", re.S | re.I)
_SURROGATES = re.compile("[\ud800-\udfff]")
_FENCED = re.compile(r"\A```[\w+-]*[ \t]*\n(.*?)\n?[ \t]*```\Z", re.S)


def clean_summary(text: str) -> str:
    """The summary in a model's answer: no ``<think>`` blocks, no fences, no outer whitespace.

    Handles a closed block anywhere, a closing tag whose opening tag was in the prompt
    (Qwen3 templates), and an opening tag never closed (the thinking used the whole output
    budget: nothing usable is left).

    Example:
        >>> clean_summary("<think>The user wants...</think>\\n\\n```\\nFacts:\\n- Ann\\n```\\n")
        'Facts:\\n- Ann'
    """
    # A model's answer is not the user's text: a lone surrogate (a bad "\\ud83d" escape in
    # the reply) becomes U+FFFD here rather than stop every later fold at .encode().
    text = _SURROGATES.sub("\ufffd", text)
    text = _THINK_BLOCK.sub("", text)
    text = _THINK_ORPHAN_CLOSE.sub("", text)
    text = _THINK_UNCLOSED.sub("", text)
    text = text.strip()
    fenced = _FENCED.match(text)
    if fenced:
        text = fenced.group(1).strip()
    return text


def usable_summary(raw: Any, *, where: str, truncated: bool, budget: int) -> str:
    """``raw`` cleaned, or a non-retryable SummarizerError if nothing usable is left.

    ``truncated`` says the provider stopped at the output limit: a non-empty answer is still
    returned (the fold enforces the cap) with a warning; an empty one names the likely cause.
    """
    if not isinstance(raw, str):
        raise SummarizerError(f"{where} returned no text content", retryable=False)
    text = clean_summary(raw)
    if not text:
        reason = "an empty summary"
        if truncated:
            reason += (
                f" (it stopped at the output limit of {budget} tokens, probably while "
                "reasoning; raise reasoning_tokens or turn thinking off)"
            )
        raise SummarizerError(f"{where} returned {reason}", retryable=False)
    if truncated:
        logger.warning(
            "%s stopped at the output limit of %d tokens; the summary may be cut short", where,
            budget,
        )
    return text


class _SyncClient(Protocol):
    """What the lifecycle needs of an SDK's sync client (``openai.OpenAI``...)."""

    @property
    def api_key(self) -> str | None: ...

    def with_options(self, *, max_retries: int, timeout: float) -> Self: ...

    def close(self) -> None: ...


class _AsyncClient(Protocol):
    """What the lifecycle needs of an SDK's async client (``openai.AsyncOpenAI``...)."""

    @property
    def api_key(self) -> str | None: ...

    def with_options(self, *, max_retries: int, timeout: float) -> Self: ...

    async def close(self) -> None: ...


SyncClientT = TypeVar("SyncClientT", bound=_SyncClient)
AsyncClientT = TypeVar("AsyncClientT", bound=_AsyncClient)


class RemoteSummarizer(BaseSummarizer, Generic[SyncClientT, AsyncClientT]):
    """The client lifecycle and the drivers every SDK backend shares (not public API).

    A backend validates and resolves its own options, then calls this ``__init__`` with the
    results. It sets the class attributes below and implements the hooks (the methods that
    raise ``NotImplementedError``); its public ``summarize`` and ``asummarize`` keep their own
    docstrings and call :meth:`_summarize` and :meth:`_asummarize`.

    Args:
        model: The model name, resolved.
        base_url: The endpoint, resolved; None for the provider's own.
        api_key: The key to send, resolved; None lets the SDK find one.
        timeout: Seconds one HTTP attempt may take (already checked to be > 0).
        max_retries: Retries after the first attempt, for retryable failures only.
        retry_backoff: Seconds before the first retry.
        temperature: Sampling temperature, or None to leave it out.
        reasoning_tokens: Extra output tokens for thinking.
        extra_body: Extra JSON fields for the request.
        client: A sync SDK client given by the caller, never closed here.
        async_client: An async SDK client given by the caller, never closed here.

    Raises:
        ValueError: ``max_retries`` or ``retry_backoff`` is negative.
    """

    _API: ClassVar[str]
    """Who answers, for messages (``"OpenAI-compatible API"``)."""
    _DEFAULT_URL: ClassVar[str]
    """The provider's own endpoint, shown in messages when ``base_url`` is None."""
    _ERROR_RULES: ClassVar[Mapping[str, ErrorRule]]
    """A rule for every exception class of the SDK, by class name."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None,
        api_key: str | None,
        timeout: float,
        max_retries: int,
        retry_backoff: float,
        temperature: float | None,
        reasoning_tokens: int,
        extra_body: Mapping[str, Any] | None,
        client: SyncClientT | None,
        async_client: AsyncClientT | None,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self._api_key = api_key
        self.timeout = float(timeout)
        self.temperature = temperature
        self.reasoning_tokens = reasoning_tokens
        self.extra_body = dict(extra_body) if extra_body else None
        self.retry = RetryPolicy(max_retries=max_retries, backoff=retry_backoff)
        self._given_client = client
        self._given_async_client = async_client
        self._client: SyncClientT | None = None
        self._async_client: AsyncClientT | None = None
        self._async_loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._failures: HTTPFailures | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r})"

    # -- hooks: what each backend does its own way --------------------------------------

    def _sdk_errors(self) -> type[BaseException]:
        """The SDK's root exception class, imported on first use."""
        raise NotImplementedError  # pragma: no cover - abstract: backends implement it

    def _secrets(self) -> tuple[str, ...]:
        """The strings never to repeat in a message (the keys)."""
        raise NotImplementedError  # pragma: no cover - abstract: backends implement it

    def _params(self, request: SummaryRequest) -> tuple[dict[str, Any], int]:
        """The keyword arguments of the SDK call, and the output budget they carry."""
        raise NotImplementedError  # pragma: no cover - abstract: backends implement it

    def _summary(self, response: object, budget: int) -> str:
        """The cleaned summary in ``response``; malformed shapes become SummarizerError."""
        raise NotImplementedError  # pragma: no cover - abstract: backends implement it

    def _new_client(self) -> SyncClientT:
        """A new sync SDK client with our timeout and the SDK's own retries off."""
        raise NotImplementedError  # pragma: no cover - abstract: backends implement it

    def _new_async_client(self) -> AsyncClientT:
        """A new async SDK client like :meth:`_new_client`, keeping no idle connection."""
        raise NotImplementedError  # pragma: no cover - abstract: backends implement it

    def _send(self, client: SyncClientT, params: dict[str, Any]) -> object:
        """One request through the sync client."""
        raise NotImplementedError  # pragma: no cover - abstract: backends implement it

    async def _asend(self, client: AsyncClientT, params: dict[str, Any]) -> object:
        """One request through the async client."""
        raise NotImplementedError  # pragma: no cover - abstract: backends implement it

    # -- shared, no I/O -----------------------------------------------------------------

    @property
    def _provider(self) -> str:
        return f"{self._API} at {display_host(self.base_url, self._DEFAULT_URL)}"

    @property
    def _where(self) -> str:
        return f"{self._provider} (model {self.model!r})"

    def _given_keys(self) -> list[str]:
        """The keys of the clients the caller gave."""
        givens: tuple[_SyncClient | _AsyncClient | None, ...] = (
            self._given_client,
            self._given_async_client,
        )
        return [g.api_key for g in givens if g is not None and isinstance(g.api_key, str)]

    def _errors(self) -> HTTPFailures:
        if self._failures is None:
            sdk_errors = self._sdk_errors()
            self._failures = HTTPFailures(
                provider=self._provider,
                model=self.model,
                sdk_errors=sdk_errors,
                rules=self._ERROR_RULES,
                secrets=self._secrets(),
                retry=self.retry,
                timeout=self.timeout,
            )
        return self._failures

    # -- sync ----------------------------------------------------------------------------

    def _sync_client(self) -> SyncClientT:
        with self._lock:
            if self._client is None:
                if self._given_client is not None:
                    self._client = self._given_client.with_options(
                        max_retries=0, timeout=self.timeout
                    )
                else:
                    self._client = self._new_client()
            return self._client

    def _summarize(self, request: SummaryRequest) -> str:
        params, budget = self._params(request)
        client = self._sync_client()

        def attempt() -> str:
            response = self._send(client, params)
            return self._summary(response, budget)

        return self._errors().call(attempt)

    def close(self) -> None:
        """Close the HTTP client this summarizer created (a given client stays open)."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None and self._given_client is None:
            client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- async ---------------------------------------------------------------------------

    def _async_client_for_loop(self) -> AsyncClientT:
        # An async connection belongs to the event loop that opened it, and callers often
        # run each turn in a new loop (asyncio.run per turn). So the client is per loop and
        # keeps no idle connection (the SDK's own keep-alive expires after 5 s, far shorter
        # than the time between two folds): a finished loop leaves no socket behind. A given
        # client is the caller's to manage.
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._given_async_client is not None:
                if self._async_client is None:
                    self._async_client = self._given_async_client.with_options(
                        max_retries=0, timeout=self.timeout
                    )
            elif self._async_client is None or self._async_loop is not loop:
                self._async_client = self._new_async_client()
                self._async_loop = loop
            return self._async_client

    async def _asummarize(self, request: SummaryRequest) -> str:
        params, budget = self._params(request)
        client = self._async_client_for_loop()

        async def attempt() -> str:
            response = await self._asend(client, params)
            return self._summary(response, budget)

        return await self._errors().acall(attempt)

    async def aclose(self) -> None:
        """Close the clients this summarizer created, async and sync."""
        with self._lock:
            client, self._async_client, self._async_loop = self._async_client, None, None
        if client is not None and self._given_async_client is None:
            await client.close()
        self.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
