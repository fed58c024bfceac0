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
from typing import TYPE_CHECKING, Any, ClassVar, Unpack

from .._errors import SummarizerError
from ._answer import usable_summary
from ._http import BY_STATUS, ErrorRule, sdk_error_rules
from ._options import RemoteOptions, RemoteOverrides
from ._remote import LOCAL_API_KEY, RemoteSummarizer, env_value, require_sdk
from .prompts import Prompt

if TYPE_CHECKING:
    import anthropic

__all__ = ["ANTHROPIC_ERROR_RULES", "DEFAULT_TEMPERATURE", "LOCAL_API_KEY", "AnthropicSummarizer"]

DEFAULT_TEMPERATURE: float | None = None
"""Not sent by default: recent Claude models fix their own sampling, and the SDK has dropped
the parameter. Set it for a Messages-API server that takes it (it goes in the JSON body)."""

_SPEND_LIMIT = ErrorRule(False, "hit a spend limit", "raise the limit; retrying will not help")
_CREDENTIALS = ErrorRule(False, "could not load credentials", "pass api_key= or a client=")

# One HTTP status each beyond the ones every such SDK has: the status decides (408, 429 and
# 5xx retry, other 4xx do not).
_STATUS_CLASSES = (
    "PaymentRequiredError", "RequestTimeoutError", "PreconditionFailedError",
    "ContentTooLargeError", "RequestTooLargeError", "RequestBodyTooLargeAfterDecodingError",
    "RampLimitExceededError", "RequestHeaderFieldsTooLargeError", "ClientClosedRequestError",
    "HTTPNotImplementedError", "ServiceUnavailableError", "GatewayTimeoutError",
    "DeadlineExceededError", "OverloadedError", "CMEKContextUnavailableError",
    "CMEKKeyUnreachableError", "StorageNotReadyError",
    # Account and configuration states: 4xx, and waiting does not change them.
    "ClaudeCodeKeyCreatorNotMemberError", "ClaudeCodeVersionTooOldError",
    "CMEKKeyDisabledError", "CMEKKeyNetworkBlockedError", "OrganizationOnHoldError",
    "OrganizationTypeNotSupportedError", "ParentOrganizationRequiredError",
    "RequestBodyEncodingInvalidError", "RequestBodyEncodingUnsupportedError",
    "WorkspaceHumanReviewDisabledError", "LinkedOrganizationBillingUnavailableError",
    "LinkedOrganizationSpendLimitReachedError", "SandboxEgressRestrictedError",
    "OrganizationURLFetchDisabledError",
)

ANTHROPIC_ERROR_RULES: Mapping[str, ErrorRule] = sdk_error_rules(
    "AnthropicError",
    connect_hint="check base_url and the network",
    APIWebhookValidationError=ErrorRule(False, "rejected a webhook"),
    RetryableError=ErrorRule(True, "failed transiently", "retry later"),
    CredentialsError=_CREDENTIALS,
    IdentityTokenFileError=_CREDENTIALS,
    **dict.fromkeys(_STATUS_CLASSES, BY_STATUS),
    # 429s that waiting seconds does not cure.
    ContractSpendLimitReachedError=_SPEND_LIMIT,
    EnforcedSpendLimitReachedError=_SPEND_LIMIT,
)
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
            temperature, reasoning tokens and extra body at once. Unset options take the
            defaults shown in :class:`~chatfold.summarizers.RemoteOptions` (temperature: this
            backend's, ``None``: left out, as recent Claude models expect; when set it goes in
            the JSON body). 529 "overloaded" is retried like any 5xx; ``reasoning_tokens``
            makes room when ``extra_body`` turns extended thinking on.
        client: An ``anthropic.Anthropic`` to use instead of creating one; its retries are
            disabled for our calls and it is not closed by :meth:`close`.
        async_client: The same for ``anthropic.AsyncAnthropic``.
        **overrides: Any field of :class:`~chatfold.summarizers.RemoteOptions` (``timeout``,
            ``max_retries``, ``retry_backoff``, ``temperature``, ``reasoning_tokens``,
            ``extra_body``) given on its own; it wins over ``options``.

    Raises:
        MissingDependencyError: The ``anthropic`` extra is not installed.
        SummarizerError: No key for Anthropic's own endpoint.
    """

    _API: ClassVar[str] = "Anthropic API"
    _DEFAULT_URL: ClassVar[str] = "https://api.anthropic.com"
    _ERROR_RULES: ClassVar[Mapping[str, ErrorRule]] = ANTHROPIC_ERROR_RULES
    _SDK: ClassVar[str] = "anthropic"
    _ROOT_ERROR: ClassVar[str] = "AnthropicError"
    _CLIENTS: ClassVar[tuple[str, str]] = ("Anthropic", "AsyncAnthropic")

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        options: RemoteOptions | None = None,
        client: anthropic.Anthropic | None = None,
        async_client: anthropic.AsyncAnthropic | None = None,
        **overrides: Unpack[RemoteOverrides],
    ) -> None:
        require_sdk("anthropic", "AnthropicSummarizer", "anthropic")
        opts = self._resolve(options, DEFAULT_TEMPERATURE, overrides)
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

    def _secrets(self) -> tuple[str, ...]:
        own = [k for k in (self._api_key, env_value("ANTHROPIC_AUTH_TOKEN")) if k]
        return tuple(s for s in (*own, *self._given_keys()) if s != LOCAL_API_KEY)

    def _params(self, prompt: Prompt, budget: int) -> dict[str, Any]:
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
        return params

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

    def _send(self, client: anthropic.Anthropic, params: dict[str, Any]) -> object:
        return client.messages.create(**params)

    async def _asend(self, client: anthropic.AsyncAnthropic, params: dict[str, Any]) -> object:
        return await client.messages.create(**params)
