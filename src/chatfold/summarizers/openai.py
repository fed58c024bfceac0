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

Failures follow :mod:`chatfold.summarizers._http_errors`: every SDK exception becomes a
:class:`~chatfold.SummarizerError`; 408/429/5xx, timeouts and connection errors are retried
``max_retries`` times with backoff; an empty answer is an error, never an empty summary.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

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
    import openai
    from openai.types.chat import ChatCompletion

__all__ = ["DEFAULT_TEMPERATURE", "LOCAL_API_KEY", "OPENAI_ERROR_RULES", "OpenAISummarizer"]

DEFAULT_TEMPERATURE = 0.0
"""Summaries should be reproducible, not creative."""
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


class OpenAISummarizer(BaseSummarizer):
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
        self.model = resolved_model
        self.base_url = base_url or _env("CHATFOLD_BASE_URL", "OPENAI_BASE_URL")
        key = api_key or _env("CHATFOLD_API_KEY", "OPENAI_API_KEY")
        if key is None and self.base_url is None and client is None and async_client is None:
            raise SummarizerError(
                "OpenAISummarizer needs an API key for OpenAI's endpoint: pass api_key='...' or "
                "set OPENAI_API_KEY (or CHATFOLD_API_KEY); a local server needs only base_url"
            )
        self._api_key = key or LOCAL_API_KEY
        self.timeout = float(timeout)
        self.temperature = temperature
        self.max_tokens_param = max_tokens_param
        self.reasoning_tokens = reasoning_tokens
        self.extra_body = dict(extra_body) if extra_body else None
        self.retry = RetryPolicy(max_retries=max_retries, backoff=retry_backoff)
        self._given_client = client
        self._given_async_client = async_client
        self._client: openai.OpenAI | None = None
        self._async_client: openai.AsyncOpenAI | None = None
        self._async_loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._failures: HTTPFailures | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r})"

    # -- shared, no I/O -----------------------------------------------------------------

    @property
    def _where(self) -> str:
        host = display_host(self.base_url, "https://api.openai.com")
        return f"OpenAI-compatible API at {host} (model {self.model!r})"

    def _errors(self) -> HTTPFailures:
        if self._failures is None:
            from openai import OpenAIError

            secrets = [self._api_key] if self._api_key != LOCAL_API_KEY else []
            for given in (self._given_client, self._given_async_client):
                if given is not None and isinstance(given.api_key, str):
                    secrets.append(given.api_key)
            host = display_host(self.base_url, "https://api.openai.com")
            self._failures = HTTPFailures(
                provider=f"OpenAI-compatible API at {host}",
                model=self.model,
                sdk_errors=OpenAIError,
                rules=OPENAI_ERROR_RULES,
                secrets=tuple(secrets),
                retry=self.retry,
                timeout=self.timeout,
            )
        return self._failures

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

    # -- sync ----------------------------------------------------------------------------

    def _sync_client(self) -> openai.OpenAI:
        with self._lock:
            if self._client is None:
                if self._given_client is not None:
                    self._client = self._given_client.with_options(
                        max_retries=0, timeout=self.timeout
                    )
                else:
                    from openai import OpenAI

                    self._client = OpenAI(
                        api_key=self._api_key,
                        base_url=self.base_url,
                        timeout=self.timeout,
                        max_retries=0,
                    )
            return self._client

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
        params, budget = self._params(request)
        client = self._sync_client()

        def attempt() -> str:
            response = client.chat.completions.create(**params)
            return self._summary(response, budget)

        return self._errors().call(attempt)

    def close(self) -> None:
        """Close the HTTP client this summarizer created (a given client stays open)."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None and self._given_client is None:
            client.close()

    def __enter__(self) -> OpenAISummarizer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- async ---------------------------------------------------------------------------

    def _async_client_for_loop(self) -> openai.AsyncOpenAI:
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
                from openai import DEFAULT_CONNECTION_LIMITS, AsyncOpenAI, DefaultAsyncHttpxClient

                limits = type(DEFAULT_CONNECTION_LIMITS)(max_keepalive_connections=0)
                self._async_client = AsyncOpenAI(
                    api_key=self._api_key,
                    base_url=self.base_url,
                    timeout=self.timeout,
                    max_retries=0,
                    http_client=DefaultAsyncHttpxClient(limits=limits),
                )
                self._async_loop = loop
            return self._async_client

    async def asummarize(self, request: SummaryRequest) -> str:
        """Async twin of :meth:`summarize` (``openai.AsyncOpenAI``; never blocks the loop)."""
        params, budget = self._params(request)
        client = self._async_client_for_loop()

        async def attempt() -> str:
            response = await client.chat.completions.create(**params)
            return self._summary(response, budget)

        return await self._errors().acall(attempt)

    async def aclose(self) -> None:
        """Close the clients this summarizer created, async and sync."""
        with self._lock:
            client, self._async_client, self._async_loop = self._async_client, None, None
        if client is not None and self._given_async_client is None:
            await client.close()
        self.close()

    async def __aenter__(self) -> OpenAISummarizer:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
