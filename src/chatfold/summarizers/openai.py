"""``OpenAISummarizer``: any OpenAI-compatible Chat Completions endpoint writes the summary.

One class serves OpenAI, DeepSeek, Qwen (DashScope compatible mode), Moonshot, GLM, vLLM,
Ollama and llama.cpp servers: only ``base_url``, the key and the model name change. It uses
the official ``openai`` SDK (``pip install 'chatfold[openai]'``), imported when a summarizer
is created, never by ``import chatfold``.

Configuration comes from the arguments, else the environment:

=============  =======================================  =========================================
setting        argument                                 environment, first set wins
=============  =======================================  =========================================
model          ``model``                                ``CHATFOLD_MODEL``
endpoint       ``base_url``                             ``CHATFOLD_BASE_URL``, ``OPENAI_BASE_URL``
key            ``api_key``                              ``CHATFOLD_API_KEY``, ``OPENAI_API_KEY``
=============  =======================================  =========================================

A local server (Ollama, llama.cpp, vLLM) needs no key: when an endpoint is set and no key is,
a placeholder is sent. The ``CHATFOLD_*`` variables let the summarizer use another endpoint or
a cheaper model than the application's own ``OPENAI_*`` settings.

Example:
    >>> OpenAISummarizer("qwen2.5:7b", base_url="http://127.0.0.1:11434/v1")   # Ollama, no key
    OpenAISummarizer(model='qwen2.5:7b', base_url='http://127.0.0.1:11434/v1')

Failures follow :mod:`chatfold.summarizers._http`: every SDK exception becomes a
:class:`~chatfold.SummarizerError`; 408/429/5xx, timeouts and connection errors are retried
``max_retries`` times with backoff; an empty answer is an error, never an empty summary.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from .._errors import MissingDependencyError, SummarizerError
from ._http import (
    BY_STATUS,
    DEFAULT_MAX_RETRIES,
    DEFAULT_RETRY_BACKOFF,
    DEFAULT_TIMEOUT,
    ErrorRule,
    RemoteSummarizer,
    output_budget,
    usable_summary,
)
from .base import SummaryRequest
from .prompts import build_prompt

if TYPE_CHECKING:
    import openai
    from openai.types.chat import ChatCompletion

__all__ = [
    "DEFAULT_TEMPERATURE",
    "LOCAL_API_KEY",
    "OPENAI_ERROR_RULES",
    "OPENAI_URL",
    "OpenAISummarizer",
]

DEFAULT_TEMPERATURE = 0.0
"""Summaries should be reproducible, not creative."""
OPENAI_URL = "https://api.openai.com"
"""OpenAI's own endpoint (shown in messages when no ``base_url`` is set)."""
LOCAL_API_KEY = "not-needed"
"""Sent as the key to a ``base_url`` that needs none (the SDK refuses to run without one)."""

_TIMEOUT_HINT = "raise timeout= or retry later"
_CONNECT_HINT = "check base_url and that the server is running"

OPENAI_ERROR_RULES: Mapping[str, ErrorRule] = {
    "OpenAIError": ErrorRule(False, "failed"),
    "APIError": ErrorRule(False, "failed"),
    "APIStatusError": BY_STATUS,
    "APIConnectionError": ErrorRule(True, "could not be reached", _CONNECT_HINT),
    "APITimeoutError": ErrorRule(True, "timed out", _TIMEOUT_HINT),
    "APIResponseValidationError": ErrorRule(
        False, "returned a response of the wrong shape", "check that base_url is the API's"
    ),
    "BadRequestError": BY_STATUS,
    "AuthenticationError": BY_STATUS,
    "OAuthError": BY_STATUS,
    "PermissionDeniedError": BY_STATUS,
    "NotFoundError": BY_STATUS,
    "ConflictError": BY_STATUS,
    "UnprocessableEntityError": BY_STATUS,
    "RateLimitError": BY_STATUS,
    "InternalServerError": BY_STATUS,
    "LengthFinishReasonError": ErrorRule(False, "stopped at the output limit"),
    "ContentFilterFinishReasonError": ErrorRule(False, "refused the content (content filter)"),
    "InvalidWebhookSignatureError": ErrorRule(False, "rejected a webhook signature"),
    "WebSocketQueueFullError": ErrorRule(False, "failed (websocket queue full)"),
    "WebSocketConnectionClosedError": ErrorRule(True, "closed the connection", _CONNECT_HINT),
}
"""Every exception class of the ``openai`` SDK, by name, and how it translates."""


def _require_sdk() -> None:
    try:
        import openai  # noqa: F401 - imported to fail early with the extra's name
    except ImportError as exc:
        raise MissingDependencyError("OpenAISummarizer", "openai") from exc


def _env(*names: str) -> str | None:
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


class OpenAISummarizer(RemoteSummarizer["openai.OpenAI", "openai.AsyncOpenAI"]):
    """Summarize with an OpenAI-compatible Chat Completions API.

    The prompt's rules go in the system message and the fenced transcript in the single user
    message. The answer is cleaned (``<think>`` blocks, fences) and must not be empty.

    Args:
        model: Model name (``"gpt-4o-mini"``, ``"deepseek-chat"``, ``"qwen-plus"``...); default
            ``CHATFOLD_MODEL``.
        base_url: Endpoint ending in ``/v1`` (or the provider's equivalent); default
            ``CHATFOLD_BASE_URL``, then ``OPENAI_BASE_URL``, then OpenAI's.
        api_key: Key; default ``CHATFOLD_API_KEY``, then ``OPENAI_API_KEY``; a placeholder when
            an endpoint is set without one.
        timeout: Seconds one HTTP attempt may take.
        max_retries: Retries after the first attempt, for 408/429/5xx, timeouts and
            connection errors only (the SDK's own retries are turned off).
        retry_backoff: Seconds before the first retry, doubled each retry, with jitter; a
            ``Retry-After`` header wins.
        temperature: Sampling temperature; ``None`` leaves it out (models that reject it).
        max_tokens_param: ``"max_tokens"`` (most servers) or ``"max_completion_tokens"``
            (OpenAI's reasoning models).
        reasoning_tokens: Extra output tokens for models whose thinking counts against the
            limit (DeepSeek-R1, Qwen3 in thinking mode).
        extra_body: Extra JSON fields for the request, e.g. ``{"enable_thinking": False}``
            (DashScope) or ``{"chat_template_kwargs": {...}}`` (vLLM).
        client: An ``openai.OpenAI`` to use instead of creating one; its retries are
            disabled for our calls and it is not closed by :meth:`close`.
        async_client: The same for ``openai.AsyncOpenAI``.

    Raises:
        MissingDependencyError: The ``openai`` extra is not installed.
        SummarizerError: No model, or no key for OpenAI's own endpoint.
    """

    _API: ClassVar[str] = "OpenAI-compatible API"
    _DEFAULT_URL: ClassVar[str] = OPENAI_URL
    _ERROR_RULES: ClassVar[Mapping[str, ErrorRule]] = OPENAI_ERROR_RULES

    def __init__(
        self,
        model: str | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        retry_backoff: float = DEFAULT_RETRY_BACKOFF,
        temperature: float | None = DEFAULT_TEMPERATURE,
        max_tokens_param: Literal["max_tokens", "max_completion_tokens"] = "max_tokens",
        reasoning_tokens: int = 0,
        extra_body: Mapping[str, Any] | None = None,
        client: openai.OpenAI | None = None,
        async_client: openai.AsyncOpenAI | None = None,
    ) -> None:
        _require_sdk()
        resolved_model = model or _env("CHATFOLD_MODEL")
        if not resolved_model:
            raise SummarizerError(
                "OpenAISummarizer needs a model: pass model='...' or set CHATFOLD_MODEL"
            )
        if timeout <= 0:
            raise ValueError(f"timeout must be > 0 seconds, not {timeout}")
        if max_tokens_param not in ("max_tokens", "max_completion_tokens"):
            raise ValueError("max_tokens_param must be 'max_tokens' or 'max_completion_tokens'")
        resolved_base_url = base_url or _env("CHATFOLD_BASE_URL", "OPENAI_BASE_URL")
        key = api_key or _env("CHATFOLD_API_KEY", "OPENAI_API_KEY")
        if key is None and resolved_base_url is None and client is None and async_client is None:
            raise SummarizerError(
                "OpenAISummarizer needs an API key for OpenAI's endpoint: pass api_key='...' or "
                "set OPENAI_API_KEY (or CHATFOLD_API_KEY); a local server needs only base_url"
            )
        self.max_tokens_param = max_tokens_param
        super().__init__(
            resolved_model,
            base_url=resolved_base_url,
            api_key=key or LOCAL_API_KEY,
            timeout=timeout,
            max_retries=max_retries,
            retry_backoff=retry_backoff,
            temperature=temperature,
            reasoning_tokens=reasoning_tokens,
            extra_body=extra_body,
            client=client,
            async_client=async_client,
        )

    # -- what differs from the other backends, no I/O ------------------------------------

    def _sdk_errors(self) -> type[BaseException]:
        from openai import OpenAIError

        return OpenAIError

    def _secrets(self) -> tuple[str, ...]:
        own = [k for k in (self._api_key,) if k is not None and k != LOCAL_API_KEY]
        return (*own, *self._given_keys())

    def _params(self, request: SummaryRequest) -> tuple[dict[str, Any], int]:
        prompt = build_prompt(request)
        budget = output_budget(request.max_tokens, self.reasoning_tokens)
        params: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": prompt.system},
                {"role": "user", "content": prompt.user},
            ],
            self.max_tokens_param: budget,
        }
        if self.temperature is not None:
            params["temperature"] = self.temperature
        if self.extra_body:
            params["extra_body"] = self.extra_body
        return params, budget

    def _summary(self, response: ChatCompletion | object, budget: int) -> str:
        """The text of the first choice; malformed shapes become SummarizerError."""
        choices = getattr(response, "choices", None)
        if not choices:
            raise SummarizerError(f"{self._where} returned no choices", retryable=False)
        choice = choices[0]
        message = getattr(choice, "message", None)
        content = getattr(message, "content", None)
        refusal = getattr(message, "refusal", None)
        if content is None and isinstance(refusal, str) and refusal:
            raise SummarizerError(f"{self._where} refused: {refusal[:200]}", retryable=False)
        truncated = getattr(choice, "finish_reason", None) == "length"
        return usable_summary(content, where=self._where, truncated=truncated, budget=budget)

    def _client_kwargs(self) -> dict[str, Any]:
        return {
            "api_key": self._api_key,
            "base_url": self.base_url,
            "timeout": self.timeout,
            "max_retries": 0,
        }

    def _new_client(self) -> openai.OpenAI:
        from openai import OpenAI

        return OpenAI(**self._client_kwargs())

    def _new_async_client(self) -> openai.AsyncOpenAI:
        from openai import DEFAULT_CONNECTION_LIMITS, AsyncOpenAI, DefaultAsyncHttpxClient

        limits = type(DEFAULT_CONNECTION_LIMITS)(max_keepalive_connections=0)
        return AsyncOpenAI(
            **self._client_kwargs(), http_client=DefaultAsyncHttpxClient(limits=limits)
        )

    def _send(self, client: openai.OpenAI, params: dict[str, Any]) -> object:
        return client.chat.completions.create(**params)

    async def _asend(self, client: openai.AsyncOpenAI, params: dict[str, Any]) -> object:
        return await client.chat.completions.create(**params)

    # -- the public calls ----------------------------------------------------------------

    def summarize(self, request: SummaryRequest) -> str:
        """Ask the model for the new summary.

        Args:
            request: What to summarize.

        Returns:
            The summary text, cleaned (no ``<think>`` block, no fences), never empty.

        Raises:
            SummarizerError: The call failed after the allowed retries, or the answer was
                empty; ``retryable`` and ``status_code`` say which.
        """
        return self._summarize(request)

    async def asummarize(self, request: SummaryRequest) -> str:
        """Async twin of :meth:`summarize` (``openai.AsyncOpenAI``; never blocks the loop)."""
        return await self._asummarize(request)
