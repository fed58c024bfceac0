"""What a summarizer is, and adapters that make one out of a plain function.

A summarizer turns a :class:`~chatfold.SummaryRequest` (the previous summary, the newly
evicted messages with their full structure, the language and the token cap) into the new
summary text. The fold never cares how: an LLM behind an HTTP API, the embedded extractive
default, or any object with the seed's ``summarize(text) -> str``.

Example:
    >>> from chatfold import Folder, Policy
    >>> s = CallableSummarizer(lambda prompt: "The user likes green tea.")
    >>> s.summarize(SummaryRequest("", [{"role": "user", "content": "I like green tea"}],
    ...                            "en", 100))
    'The user likes green tea.'
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import ClassVar

from .._threads import SUMMARIZER_THREADS
from ..fold import AsyncSummarizer, Language, Style, Summarizer, SummaryRequest
from .prompts import build_prompt

__all__ = [
    "AsyncSummarizer",
    "BaseSummarizer",
    "CallableSummarizer",
    "Language",
    "Style",
    "Summarizer",
    "SummaryRequest",
]


class BaseSummarizer:
    """Base for summarizers that take a :class:`SummaryRequest`.

    Subclasses implement ``summarize``; ``asummarize`` runs it in a thread unless overridden.
    """

    accepts_request: ClassVar[bool] = True
    """Tells the fold to pass a :class:`SummaryRequest` rather than the seed's text."""

    def summarize(self, request: SummaryRequest) -> str:
        """Return the new summary text for ``request``."""
        raise NotImplementedError  # pragma: no cover - abstract: subclasses implement it

    async def asummarize(self, request: SummaryRequest) -> str:
        """Async twin of :meth:`summarize` (a thread of chatfold's bounded summarizer pool, so
        the event loop never blocks and a hung call never holds the loop's default threads)."""
        return await SUMMARIZER_THREADS.run(self.summarize, request)


class CallableSummarizer(BaseSummarizer):
    """A summarizer from a function that takes the full prompt text and returns the summary.

    The function gets chatfold's prompt (instructions, the previous summary, the fenced
    transcript) as one string, so any ``complete(text) -> str`` client works. An ``async def``
    function makes ``asummarize`` native.

    Args:
        fn: ``fn(prompt) -> str`` or ``async fn(prompt) -> str``.
    """

    def __init__(self, fn: Callable[[str], str] | Callable[[str], Awaitable[str]]) -> None:
        if not callable(fn):
            raise TypeError("CallableSummarizer needs a callable taking the prompt text")
        self.fn = fn
        self.is_async = inspect.iscoroutinefunction(fn)

    @staticmethod
    def _prompt(request: SummaryRequest) -> str:
        prompt = build_prompt(request)
        return f"{prompt.system}\n\n{prompt.user}"

    def summarize(self, request: SummaryRequest) -> str:
        """Call the function with the whole prompt."""
        if self.is_async:
            raise TypeError("this CallableSummarizer wraps an async function: use asummarize")
        return self.fn(self._prompt(request))  # type: ignore[return-value]

    async def asummarize(self, request: SummaryRequest) -> str:
        """Await the function (or run a sync one in a thread)."""
        if self.is_async:
            return await self.fn(self._prompt(request))  # type: ignore[misc, no-any-return]
        return await SUMMARIZER_THREADS.run(self.summarize, request)
