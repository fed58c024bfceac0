"""What the SDK backends share: options resolution, the client lifecycle and the drivers.

:class:`RemoteSummarizer` holds what ``OpenAISummarizer`` and ``AnthropicSummarizer`` have in
common: a sync client created on first use under a lock, an async client per event loop that
keeps no idle connection, ``close``/``aclose`` and the context managers, and the ``summarize``
and ``asummarize`` drivers around :meth:`~chatfold.summarizers._http.HTTPFailures.call`. Both
SDKs are generated from one template (same client options, same connection limits, same
exception hierarchy), so their clients are built by one recipe here. A backend adds only what
differs: its names, the request parameters, how to read the answer, its own error rules and
which SDK method sends the request.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import os
import threading
from collections.abc import Mapping
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar, cast

from .._closing import Closing
from .._errors import MissingDependencyError
from ._answer import output_budget
from ._http import ErrorRule, HTTPFailures, RetryPolicy, display_host
from ._options import UNSET, RemoteOptions, RemoteOverrides
from .base import BaseSummarizer, SummaryRequest
from .prompts import Prompt, build_prompt

__all__ = ["LOCAL_API_KEY", "RemoteSummarizer", "env_value", "require_sdk"]

LOCAL_API_KEY = "not-needed"
"""Sent as the key to a ``base_url`` that needs none (the SDKs refuse to run without one)."""


def env_value(*names: str) -> str | None:
    """The first of the environment variables ``names`` that is set and not blank."""
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


def require_sdk(module: str, what: str, extra: str) -> None:
    """Import ``module`` now, so a missing extra fails at construction, naming the extra."""
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(what, extra) from exc


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


class RemoteSummarizer(BaseSummarizer, Closing, Generic[SyncClientT, AsyncClientT]):
    """The client lifecycle and the drivers every SDK backend shares (not public API).

    A backend validates and resolves its own options, then calls this ``__init__`` with the
    results. It sets the class attributes below and implements the hooks (the methods that
    raise ``NotImplementedError``): the request's parameters, reading the answer, and which
    SDK method sends it.

    Args:
        model: The model name, resolved.
        base_url: The endpoint, resolved; None for the provider's own.
        api_key: The key to send, resolved; None lets the SDK find one.
        options: Timeout, retries, temperature (resolved: not ``UNSET``), reasoning tokens
            and extra body.
        client: A sync SDK client given by the caller, never closed here.
        async_client: An async SDK client given by the caller, never closed here.
    """

    _API: ClassVar[str]
    """Who answers, for messages (``"OpenAI-compatible API"``)."""
    _DEFAULT_URL: ClassVar[str]
    """The provider's own endpoint, shown in messages when ``base_url`` is None."""
    _ERROR_RULES: ClassVar[Mapping[str, ErrorRule]]
    """A rule for every exception class of the SDK, by class name."""
    _SDK: ClassVar[str]
    """The SDK's module (``"openai"``)."""
    _ROOT_ERROR: ClassVar[str]
    """The SDK's root exception class (``"OpenAIError"``)."""
    _CLIENTS: ClassVar[tuple[str, str]]
    """The SDK's sync and async client classes (``("OpenAI", "AsyncOpenAI")``)."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None,
        api_key: str | None,
        options: RemoteOptions,
        client: SyncClientT | None,
        async_client: AsyncClientT | None,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self._api_key = api_key
        self.options = options
        self.retry = RetryPolicy(max_retries=options.max_retries, backoff=options.retry_backoff)
        self._given_client = client
        self._given_async_client = async_client
        self._client: SyncClientT | None = None
        self._async_client: AsyncClientT | None = None
        self._async_loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._failures: HTTPFailures | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r})"

    @classmethod
    def _resolve(cls, options: RemoteOptions | None, default_temperature: float | None,
                 given: RemoteOverrides) -> RemoteOptions:
        """``options`` with the keyword arguments given beside them applied, and the
        backend's default temperature where neither set one.

        Raises:
            TypeError: A keyword argument is not an option (as for any unknown argument).
        """
        for name in given:
            if name not in RemoteOverrides.__annotations__:
                raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {name!r}")
        resolved = (options or RemoteOptions()).replace(**given)
        if resolved.temperature is UNSET:
            resolved = dataclasses.replace(resolved, temperature=default_temperature)
        return resolved

    # The options as attributes, as before they were one object.
    @property
    def timeout(self) -> float:
        return self.options.timeout

    @property
    def temperature(self) -> float | None:
        t = self.options.temperature
        return None if t is UNSET else t

    @property
    def reasoning_tokens(self) -> int:
        return self.options.reasoning_tokens

    @property
    def extra_body(self) -> dict[str, Any] | None:
        body = self.options.extra_body
        return dict(body) if body else None

    # -- hooks: what each backend does its own way --------------------------------------

    def _secrets(self) -> tuple[str, ...]:
        """The strings never to repeat in a message (the keys)."""
        raise NotImplementedError  # pragma: no cover - abstract: backends implement it

    def _params(self, prompt: Prompt, budget: int) -> dict[str, Any]:
        """The keyword arguments of the SDK call for ``prompt`` with ``budget`` output tokens."""
        raise NotImplementedError  # pragma: no cover - abstract: backends implement it

    def _summary(self, response: object, budget: int) -> str:
        """The cleaned summary in ``response``; malformed shapes become SummarizerError."""
        raise NotImplementedError  # pragma: no cover - abstract: backends implement it

    def _send(self, client: SyncClientT, params: dict[str, Any]) -> object:
        """One request through the sync client."""
        raise NotImplementedError  # pragma: no cover - abstract: backends implement it

    async def _asend(self, client: AsyncClientT, params: dict[str, Any]) -> object:
        """One request through the async client."""
        raise NotImplementedError  # pragma: no cover - abstract: backends implement it

    # -- the SDK: both are generated from one template, so one recipe builds their clients --

    def _sdk_errors(self) -> type[BaseException]:
        """The SDK's root exception class, imported on first use."""
        errors: type[BaseException] = getattr(importlib.import_module(self._SDK), self._ROOT_ERROR)
        return errors

    def _client_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"timeout": self.timeout, "max_retries": 0}
        if self._api_key is not None:
            kwargs["api_key"] = self._api_key
        if self.base_url is not None:
            kwargs["base_url"] = self.base_url
        return kwargs

    def _new_client(self) -> SyncClientT:
        """A new sync SDK client with our timeout and the SDK's own retries off."""
        sdk = importlib.import_module(self._SDK)
        return cast(SyncClientT, getattr(sdk, self._CLIENTS[0])(**self._client_kwargs()))

    def _new_async_client(self) -> AsyncClientT:
        """A new async SDK client like :meth:`_new_client`, keeping no idle connection."""
        sdk = importlib.import_module(self._SDK)
        limits = type(sdk.DEFAULT_CONNECTION_LIMITS)(max_keepalive_connections=0)
        http_client = sdk.DefaultAsyncHttpxClient(limits=limits)
        return cast(AsyncClientT, getattr(sdk, self._CLIENTS[1])(
            **self._client_kwargs(), http_client=http_client))

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

    def _request(self, request: SummaryRequest) -> tuple[dict[str, Any], int]:
        budget = output_budget(request.max_tokens, self.reasoning_tokens)
        return self._params(build_prompt(request), budget), budget

    def summarize(self, request: SummaryRequest) -> str:
        """Ask the model for the new summary.

        Args:
            request: What to summarize.

        Returns:
            The summary text, cleaned (no ``<think>`` block, no fences), never empty.

        Raises:
            SummarizerError: The call failed after the allowed retries, or the answer was
                empty or a refusal; ``retryable`` and ``status_code`` say which.
        """
        params, budget = self._request(request)
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

    async def asummarize(self, request: SummaryRequest) -> str:
        """Async twin of :meth:`summarize` (the SDK's async client; never blocks the loop)."""
        params, budget = self._request(request)
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
