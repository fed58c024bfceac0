"""``AnthropicSummarizer``: Claude (or any Messages-API endpoint) writes the summary.

It uses the official ``anthropic`` SDK (``pip install 'chatfold[anthropic]'``), imported when
a summarizer is created, never by ``import chatfold``. The key comes from ``api_key`` or
``ANTHROPIC_API_KEY`` (``ANTHROPIC_AUTH_TOKEN`` is read by the SDK itself), the endpoint from
``base_url`` or ``ANTHROPIC_BASE_URL``; an endpoint without a key (a local Messages-API
server) gets a placeholder key.

Example:
    >>> AnthropicSummarizer("claude-haiku-4-5", base_url="http://127.0.0.1:8080")
    AnthropicSummarizer(model='claude-haiku-4-5', base_url='http://127.0.0.1:8080')

Failures follow :mod:`chatfold.summarizers._http`, exactly as for
:class:`~chatfold.summarizers.openai.OpenAISummarizer` (529 "overloaded" is a 5xx: retried).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from .._errors import SummarizerError
from ._http import (
    BY_STATUS,
    LOCAL_API_KEY,
    UNSET,
    ErrorRule,
    RemoteOptions,
    RemoteSummarizer,
    _Unset,
    env_value,
    output_budget,
    require_sdk,
    usable_summary,
)
from .base import SummaryRequest
from .prompts import build_prompt

if TYPE_CHECKING:
    import anthropic

__all__ = ["ANTHROPIC_ERROR_RULES", "DEFAULT_TEMPERATURE", "LOCAL_API_KEY", "AnthropicSummarizer"]

DEFAULT_TEMPERATURE: float | None = None
"""Not sent by default: recent Claude models fix their own sampling, and the SDK has dropped
the parameter. Set it for a Messages-API server that takes it (it goes in the JSON body)."""

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




class AnthropicSummarizer(RemoteSummarizer["anthropic.Anthropic", "anthropic.AsyncAnthropic"]):
    """Summarize with Anthropic's Messages API.

    The prompt's rules go in ``system`` and the fenced transcript in the single user message;
    only text blocks of the answer are kept (thinking blocks are not), then cleaned.

    Args:
        model: Model name (``"claude-haiku-4-5"``...).
        api_key: Key; default ``ANTHROPIC_API_KEY`` (or the SDK's ``ANTHROPIC_AUTH_TOKEN``); a
            placeholder when an endpoint is set without one.
        base_url: Endpoint; default ``ANTHROPIC_BASE_URL``, then Anthropic's.
        options: A :class:`~chatfold.summarizers.RemoteOptions` carrying the timeout, retries,
            temperature, reasoning tokens and extra body at once; any of the keyword arguments
            below given beside it wins. Unset options take the defaults shown in
            :class:`~chatfold.summarizers.RemoteOptions` (temperature: this backend's).
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

    _API: ClassVar[str] = "Anthropic API"
    _DEFAULT_URL: ClassVar[str] = "https://api.anthropic.com"
    _ERROR_RULES: ClassVar[Mapping[str, ErrorRule]] = ANTHROPIC_ERROR_RULES

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        options: RemoteOptions | None = None,
        timeout: float | _Unset = UNSET,
        max_retries: int | _Unset = UNSET,
        retry_backoff: float | _Unset = UNSET,
        temperature: float | _Unset | None = UNSET,
        reasoning_tokens: int | _Unset = UNSET,
        extra_body: Mapping[str, Any] | _Unset | None = UNSET,
        client: anthropic.Anthropic | None = None,
        async_client: anthropic.AsyncAnthropic | None = None,
    ) -> None:
        require_sdk("anthropic", "AnthropicSummarizer", "anthropic")
        opts = self._resolve(options, DEFAULT_TEMPERATURE, timeout=timeout,
                             max_retries=max_retries, retry_backoff=retry_backoff,
                             temperature=temperature, reasoning_tokens=reasoning_tokens,
                             extra_body=extra_body)
        if not model:
            raise SummarizerError("AnthropicSummarizer needs a model: pass model='...'")
        resolved_base_url = base_url or env_value("ANTHROPIC_BASE_URL")
        key = api_key or env_value("ANTHROPIC_API_KEY")
        given = client is not None or async_client is not None
        if key is None and resolved_base_url is None and not given:
            if env_value("ANTHROPIC_AUTH_TOKEN") is None:
                raise SummarizerError(
                    "AnthropicSummarizer needs an API key: pass api_key='...' or set "
                    "ANTHROPIC_API_KEY"
                )
        elif key is None and resolved_base_url is not None:
            key = LOCAL_API_KEY
        super().__init__(
            model,
            base_url=resolved_base_url,
            api_key=key,
            options=opts,
            client=client,
            async_client=async_client,
        )

    # -- what differs from the other backends, no I/O ------------------------------------

    def _sdk_errors(self) -> type[BaseException]:
        from anthropic import AnthropicError

        return AnthropicError

    def _secrets(self) -> tuple[str, ...]:
        own = [k for k in (self._api_key, env_value("ANTHROPIC_AUTH_TOKEN")) if k]
        return tuple(s for s in (*own, *self._given_keys()) if s != LOCAL_API_KEY)

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

    def _new_client(self) -> anthropic.Anthropic:
        from anthropic import Anthropic

        return Anthropic(**self._client_kwargs())

    def _new_async_client(self) -> anthropic.AsyncAnthropic:
        from anthropic import DEFAULT_CONNECTION_LIMITS, AsyncAnthropic, DefaultAsyncHttpxClient

        limits = type(DEFAULT_CONNECTION_LIMITS)(max_keepalive_connections=0)
        return AsyncAnthropic(
            **self._client_kwargs(), http_client=DefaultAsyncHttpxClient(limits=limits)
        )

    def _send(self, client: anthropic.Anthropic, params: dict[str, Any]) -> object:
        return client.messages.create(**params)

    async def _asend(self, client: anthropic.AsyncAnthropic, params: dict[str, Any]) -> object:
        return await client.messages.create(**params)

    # -- the public calls ----------------------------------------------------------------

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
        return self._summarize(request)

    async def asummarize(self, request: SummaryRequest) -> str:
        """Async twin of :meth:`summarize` (``anthropic.AsyncAnthropic``)."""
        return await self._asummarize(request)
