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

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Unpack

from .._errors import SummarizerError
from ._answer import usable_summary
from ._http import BY_STATUS, ErrorRule, sdk_error_rules
from ._options import RemoteOptions, RemoteOverrides
from ._remote import LOCAL_API_KEY, RemoteSummarizer, env_value, require_sdk
from .prompts import Prompt

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

_CONNECT_HINT = "check base_url and that the server is running"

OPENAI_ERROR_RULES: Mapping[str, ErrorRule] = sdk_error_rules(
    "OpenAIError",
    connect_hint=_CONNECT_HINT,
    OAuthError=BY_STATUS,
    LengthFinishReasonError=ErrorRule(False, "stopped at the output limit"),
    ContentFilterFinishReasonError=ErrorRule(False, "refused the content (content filter)"),
    InvalidWebhookSignatureError=ErrorRule(False, "rejected a webhook signature"),
    WebSocketQueueFullError=ErrorRule(False, "failed (websocket queue full)"),
    WebSocketConnectionClosedError=ErrorRule(True, "closed the connection", _CONNECT_HINT),
)
"""Every exception class of the ``openai`` SDK, by name, and how it translates."""


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
        options: A :class:`~chatfold.summarizers.RemoteOptions` carrying the timeout, retries,
            temperature, reasoning tokens and extra body at once. Unset options take the
            defaults shown in :class:`~chatfold.summarizers.RemoteOptions` (temperature: this
            backend's, 0). ``temperature=None`` leaves it out (models that reject it);
            ``extra_body`` carries e.g. ``{"enable_thinking": False}`` (DashScope) or
            ``{"chat_template_kwargs": {...}}`` (vLLM); ``reasoning_tokens`` makes room for
            models whose thinking counts against the limit (DeepSeek-R1, Qwen3).
        max_tokens_param: ``"max_tokens"`` (most servers) or ``"max_completion_tokens"``
            (OpenAI's reasoning models).
        client: An ``openai.OpenAI`` to use instead of creating one; its retries are
            disabled for our calls and it is not closed by :meth:`close`.
        async_client: The same for ``openai.AsyncOpenAI``.
        **overrides: Any field of :class:`~chatfold.summarizers.RemoteOptions` (``timeout``,
            ``max_retries``, ``retry_backoff``, ``temperature``, ``reasoning_tokens``,
            ``extra_body``) given on its own; it wins over ``options``.

    Raises:
        MissingDependencyError: The ``openai`` extra is not installed.
        SummarizerError: No model, or no key for OpenAI's own endpoint.
    """

    _API: ClassVar[str] = "OpenAI-compatible API"
    _DEFAULT_URL: ClassVar[str] = OPENAI_URL
    _ERROR_RULES: ClassVar[Mapping[str, ErrorRule]] = OPENAI_ERROR_RULES
    _SDK: ClassVar[str] = "openai"
    _ROOT_ERROR: ClassVar[str] = "OpenAIError"
    _CLIENTS: ClassVar[tuple[str, str]] = ("OpenAI", "AsyncOpenAI")

    def __init__(
        self,
        model: str | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        options: RemoteOptions | None = None,
        max_tokens_param: Literal["max_tokens", "max_completion_tokens"] = "max_tokens",
        client: openai.OpenAI | None = None,
        async_client: openai.AsyncOpenAI | None = None,
        **overrides: Unpack[RemoteOverrides],
    ) -> None:
        require_sdk("openai", "OpenAISummarizer", "openai")
        opts = self._resolve(options, DEFAULT_TEMPERATURE, overrides)
        resolved_model = model or env_value("CHATFOLD_MODEL")
        if not resolved_model:
            raise SummarizerError(
                "OpenAISummarizer needs a model: pass model='...' or set CHATFOLD_MODEL"
            )
        if max_tokens_param not in ("max_tokens", "max_completion_tokens"):
            raise ValueError("max_tokens_param must be 'max_tokens' or 'max_completion_tokens'")
        resolved_base_url = base_url or env_value("CHATFOLD_BASE_URL", "OPENAI_BASE_URL")
        key = api_key or env_value("CHATFOLD_API_KEY", "OPENAI_API_KEY")
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
            options=opts,
            client=client,
            async_client=async_client,
        )

    # -- what differs from the other backends, no I/O ------------------------------------

    def _secrets(self) -> tuple[str, ...]:
        own = [k for k in (self._api_key,) if k is not None and k != LOCAL_API_KEY]
        return (*own, *self._given_keys())

    def _params(self, prompt: Prompt, budget: int) -> dict[str, Any]:
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
        return params

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

    def _send(self, client: openai.OpenAI, params: dict[str, Any]) -> object:
        return client.chat.completions.create(**params)

    async def _asend(self, client: openai.AsyncOpenAI, params: dict[str, Any]) -> object:
        return await client.chat.completions.create(**params)
