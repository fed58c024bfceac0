"""``AnthropicSummarizer``: Claude (or any Messages-API endpoint) writes the summary.

It uses the official ``anthropic`` SDK (``pip install 'chatfold[anthropic]'``), imported when
a summarizer is created, never by ``import chatfold``. The key comes from ``api_key`` or
``ANTHROPIC_API_KEY`` (``ANTHROPIC_AUTH_TOKEN`` is read by the SDK itself), the endpoint from
``base_url`` or ``ANTHROPIC_BASE_URL``; an endpoint without a key (a local Messages-API
server) gets a placeholder key.

Example:
    >>> AnthropicSummarizer("claude-haiku-4-5", base_url="http://127.0.0.1:8080")
    AnthropicSummarizer(model='claude-haiku-4-5', base_url='http://127.0.0.1:8080')

Failures follow :mod:`chatfold.summarizers._http_errors`, exactly as for
:class:`~chatfold.summarizers.openai.OpenAISummarizer` (529 "overloaded" is a 5xx: retried).
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any

from .._errors import MissingDependencyError, SummarizerError
from ._http_errors import (
    BY_STATUS,
    DEFAULT_MAX_RETRIES,
    DEFAULT_RETRY_BACKOFF,
    DEFAULT_TIMEOUT,
    ErrorRule,
    HTTPFailures,
    RetryPolicy,
    display_host,
    output_budget,
    usable_summary,
)
from .base import BaseSummarizer, SummaryRequest
from .prompts import build_prompt

if TYPE_CHECKING:
    import anthropic

__all__ = ["ANTHROPIC_ERROR_RULES", "DEFAULT_TEMPERATURE", "LOCAL_API_KEY", "AnthropicSummarizer"]

DEFAULT_TEMPERATURE: float | None = None
"""Not sent by default: recent Claude models fix their own sampling, and the SDK has dropped
the parameter. Set it for a Messages-API server that takes it (it goes in the JSON body)."""
LOCAL_API_KEY = "not-needed"
"""Sent as the key to a ``base_url`` that needs none."""

_TIMEOUT_HINT = "raise timeout= or retry later"
_CONNECT_HINT = "check base_url and the network"
_SPEND_LIMIT = ErrorRule(False, "hit a spend limit", "raise the limit; retrying will not help")
_CREDENTIALS = ErrorRule(False, "could not load credentials", "pass api_key= or a client=")

ANTHROPIC_ERROR_RULES: Mapping[str, ErrorRule] = {
    "AnthropicError": ErrorRule(False, "failed"),
    "APIError": ErrorRule(False, "failed"),
    "APIStatusError": BY_STATUS,
    "APIConnectionError": ErrorRule(True, "could not be reached", _CONNECT_HINT),
    "APITimeoutError": ErrorRule(True, "timed out", _TIMEOUT_HINT),
    "APIResponseValidationError": ErrorRule(
        False, "returned a response of the wrong shape", "check that base_url is the API's"
    ),
    "APIWebhookValidationError": ErrorRule(False, "rejected a webhook"),
    "RetryableError": ErrorRule(True, "failed transiently", "retry later"),
    "CredentialsError": _CREDENTIALS,
    "IdentityTokenFileError": _CREDENTIALS,
    # One HTTP status each: the status decides (408, 429 and 5xx retry, other 4xx do not).
    "BadRequestError": BY_STATUS,
    "AuthenticationError": BY_STATUS,
    "PaymentRequiredError": BY_STATUS,
    "PermissionDeniedError": BY_STATUS,
    "NotFoundError": BY_STATUS,
    "RequestTimeoutError": BY_STATUS,
    "ConflictError": BY_STATUS,
    "PreconditionFailedError": BY_STATUS,
    "ContentTooLargeError": BY_STATUS,
    "RequestTooLargeError": BY_STATUS,
    "RequestBodyTooLargeAfterDecodingError": BY_STATUS,
    "UnprocessableEntityError": BY_STATUS,
    "RateLimitError": BY_STATUS,
    "RampLimitExceededError": BY_STATUS,
    "RequestHeaderFieldsTooLargeError": BY_STATUS,
    "ClientClosedRequestError": BY_STATUS,
    "InternalServerError": BY_STATUS,
    "HTTPNotImplementedError": BY_STATUS,
    "ServiceUnavailableError": BY_STATUS,
    "GatewayTimeoutError": BY_STATUS,
    "DeadlineExceededError": BY_STATUS,
    "OverloadedError": BY_STATUS,
    "CMEKContextUnavailableError": BY_STATUS,
    "CMEKKeyUnreachableError": BY_STATUS,
    "StorageNotReadyError": BY_STATUS,
    # Account and configuration states: 4xx, and waiting does not change them.
    "ClaudeCodeKeyCreatorNotMemberError": BY_STATUS,
    "ClaudeCodeVersionTooOldError": BY_STATUS,
    "CMEKKeyDisabledError": BY_STATUS,
    "CMEKKeyNetworkBlockedError": BY_STATUS,
    "OrganizationOnHoldError": BY_STATUS,
    "OrganizationTypeNotSupportedError": BY_STATUS,
    "ParentOrganizationRequiredError": BY_STATUS,
    "RequestBodyEncodingInvalidError": BY_STATUS,
    "RequestBodyEncodingUnsupportedError": BY_STATUS,
    "WorkspaceHumanReviewDisabledError": BY_STATUS,
    "LinkedOrganizationBillingUnavailableError": BY_STATUS,
    "LinkedOrganizationSpendLimitReachedError": BY_STATUS,
    "SandboxEgressRestrictedError": BY_STATUS,
    # 429s that waiting seconds does not cure.
    "ContractSpendLimitReachedError": _SPEND_LIMIT,
    "EnforcedSpendLimitReachedError": _SPEND_LIMIT,
}
"""Every exception class of the ``anthropic`` SDK, by name, and how it translates."""


def _require_sdk() -> None:
    try:
        import anthropic  # noqa: F401 - imported to fail early with the extra's name
    except ImportError as exc:
        raise MissingDependencyError("AnthropicSummarizer", "anthropic") from exc


def _env(name: str) -> str | None:
    return os.environ.get(name, "").strip() or None


class AnthropicSummarizer(BaseSummarizer):
    """Summarize with Anthropic's Messages API.

    The prompt's rules go in ``system`` and the fenced transcript in the single user message;
    only text blocks of the answer are kept (thinking blocks are not), then cleaned.

    Args:
        model: Model name (``"claude-haiku-4-5"``...).
        api_key: Key; default ``ANTHROPIC_API_KEY`` (or the SDK's ``ANTHROPIC_AUTH_TOKEN``); a
            placeholder when an endpoint is set without one.
        base_url: Endpoint; default ``ANTHROPIC_BASE_URL``, then Anthropic's.
        timeout: Seconds one HTTP attempt may take.
        max_retries: Retries after the first attempt, for 408/429/5xx/529, timeouts and
            connection errors only (the SDK's own retries are turned off).
        retry_backoff: Seconds before the first retry, doubled each retry, with jitter; a
            ``Retry-After`` header wins.
        temperature: Sampling temperature, sent in the JSON body; ``None`` (the default)
            leaves it out, as recent Claude models expect.
        reasoning_tokens: Extra output tokens when ``extra_body`` turns extended thinking on.
        extra_body: Extra JSON fields for the request.
        client: An ``anthropic.Anthropic`` to use instead of creating one; its retries are
            disabled for our calls and it is not closed by :meth:`close`.
        async_client: The same for ``anthropic.AsyncAnthropic``.

    Raises:
        MissingDependencyError: The ``anthropic`` extra is not installed.
        SummarizerError: No key for Anthropic's own endpoint.
    """

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        retry_backoff: float = DEFAULT_RETRY_BACKOFF,
        temperature: float | None = DEFAULT_TEMPERATURE,
        reasoning_tokens: int = 0,
        extra_body: Mapping[str, Any] | None = None,
        client: anthropic.Anthropic | None = None,
        async_client: anthropic.AsyncAnthropic | None = None,
    ) -> None:
        _require_sdk()
        if not model:
            raise SummarizerError("AnthropicSummarizer needs a model: pass model='...'")
        if timeout <= 0:
            raise ValueError(f"timeout must be > 0 seconds, not {timeout}")
        self.model = model
        self.base_url = base_url or _env("ANTHROPIC_BASE_URL")
        key = api_key or _env("ANTHROPIC_API_KEY")
        given = client is not None or async_client is not None
        if key is None and self.base_url is None and not given:
            if _env("ANTHROPIC_AUTH_TOKEN") is None:
                raise SummarizerError(
                    "AnthropicSummarizer needs an API key: pass api_key='...' or set "
                    "ANTHROPIC_API_KEY"
                )
        elif key is None and self.base_url is not None:
            key = LOCAL_API_KEY
        self._api_key = key
        self.timeout = float(timeout)
        self.temperature = temperature
        self.reasoning_tokens = reasoning_tokens
        self.extra_body = dict(extra_body) if extra_body else None
        self.retry = RetryPolicy(max_retries=max_retries, backoff=retry_backoff)
        self._given_client = client
        self._given_async_client = async_client
        self._client: anthropic.Anthropic | None = None
        self._async_client: anthropic.AsyncAnthropic | None = None
        self._async_loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._failures: HTTPFailures | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r})"

    # -- shared, no I/O -----------------------------------------------------------------

    @property
    def _host(self) -> str:
        return display_host(self.base_url, "https://api.anthropic.com")

    @property
    def _where(self) -> str:
        return f"Anthropic API at {self._host} (model {self.model!r})"

    def _errors(self) -> HTTPFailures:
        if self._failures is None:
            from anthropic import AnthropicError

            secrets = [k for k in (self._api_key, _env("ANTHROPIC_AUTH_TOKEN")) if k]
            for given in (self._given_client, self._given_async_client):
                if given is not None and isinstance(given.api_key, str):
                    secrets.append(given.api_key)
            self._failures = HTTPFailures(
                provider=f"Anthropic API at {self._host}",
                model=self.model,
                sdk_errors=AnthropicError,
                rules=ANTHROPIC_ERROR_RULES,
                secrets=tuple(s for s in secrets if s != LOCAL_API_KEY),
                retry=self.retry,
                timeout=self.timeout,
            )
        return self._failures

    def _params(self, request: SummaryRequest) -> tuple[dict[str, Any], int]:
        prompt = build_prompt(request)
        budget = output_budget(request.max_tokens, self.reasoning_tokens)
        params: dict[str, Any] = {
            "model": self.model,
            "system": prompt.system,
            "messages": [{"role": "user", "content": prompt.user}],
            "max_tokens": budget,
        }
        body = dict(self.extra_body or {})
        if self.temperature is not None:
            body.setdefault("temperature", self.temperature)
        if body:
            params["extra_body"] = body
        return params, budget

    def _summary(self, response: object, budget: int) -> str:
        """The text blocks of the answer, joined; malformed shapes become SummarizerError."""
        blocks = getattr(response, "content", None)
        if not isinstance(blocks, list) or not blocks:
            raise SummarizerError(f"{self._where} returned no content", retryable=False)
        stop = getattr(response, "stop_reason", None)
        if stop == "refusal":
            raise SummarizerError(f"{self._where} refused to summarize", retryable=False)
        texts = [getattr(b, "text", None) for b in blocks if getattr(b, "type", None) == "text"]
        strings = [t for t in texts if isinstance(t, str)]
        raw = "".join(strings) if strings else None
        truncated = stop == "max_tokens"
        return usable_summary(raw, where=self._where, truncated=truncated, budget=budget)

    def _client_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"timeout": self.timeout, "max_retries": 0}
        if self._api_key is not None:
            kwargs["api_key"] = self._api_key
        if self.base_url is not None:
            kwargs["base_url"] = self.base_url
        return kwargs

    # -- sync ----------------------------------------------------------------------------

    def _sync_client(self) -> anthropic.Anthropic:
        with self._lock:
            if self._client is None:
                if self._given_client is not None:
                    self._client = self._given_client.with_options(
                        max_retries=0, timeout=self.timeout
                    )
                else:
                    from anthropic import Anthropic

                    self._client = Anthropic(**self._client_kwargs())
            return self._client

    def summarize(self, request: SummaryRequest) -> str:
        """Ask the model for the new summary.

        Args:
            request: What to summarize.

        Returns:
            The summary text, cleaned, never empty.

        Raises:
            SummarizerError: The call failed after the allowed retries, or the answer was
                empty or a refusal; ``retryable`` and ``status_code`` say which.
        """
        params, budget = self._params(request)
        client = self._sync_client()

        def attempt() -> str:
            response = client.messages.create(**params)
            return self._summary(response, budget)

        return self._errors().call(attempt)

    def close(self) -> None:
        """Close the HTTP client this summarizer created (a given client stays open)."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None and self._given_client is None:
            client.close()

    def __enter__(self) -> AnthropicSummarizer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- async ---------------------------------------------------------------------------

    def _async_client_for_loop(self) -> anthropic.AsyncAnthropic:
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
                from anthropic import (
                    DEFAULT_CONNECTION_LIMITS,
                    AsyncAnthropic,
                    DefaultAsyncHttpxClient,
                )

                limits = type(DEFAULT_CONNECTION_LIMITS)(max_keepalive_connections=0)
                self._async_client = AsyncAnthropic(
                    **self._client_kwargs(), http_client=DefaultAsyncHttpxClient(limits=limits)
                )
                self._async_loop = loop
            return self._async_client

    async def asummarize(self, request: SummaryRequest) -> str:
        """Async twin of :meth:`summarize` (``anthropic.AsyncAnthropic``)."""
        params, budget = self._params(request)
        client = self._async_client_for_loop()

        async def attempt() -> str:
            response = await client.messages.create(**params)
            return self._summary(response, budget)

        return await self._errors().acall(attempt)

    async def aclose(self) -> None:
        """Close the clients this summarizer created, async and sync."""
        with self._lock:
            client, self._async_client, self._async_loop = self._async_client, None, None
        if client is not None and self._given_async_client is None:
            await client.close()
        self.close()

    async def __aenter__(self) -> AnthropicSummarizer:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
