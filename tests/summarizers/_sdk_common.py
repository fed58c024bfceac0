"""Helpers shared by the tests of the SDK backends (``test_openai.py``, ``test_anthropic.py``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any, Protocol, TypeVar

import pytest

from chatfold import SummaryRequest
from chatfold._errors import SummarizerError

__all__ = ["FAST", "fail", "sdk_exception_classes", "summarizer_factory"]

FAST = {"retry_backoff": 0.001, "timeout": 5.0}
"""Options that keep retry and timeout tests short."""


class _Closeable(Protocol):
    def close(self) -> None: ...


S = TypeVar("S", bound=_Closeable)


def summarizer_factory(
    cls: Callable[..., S], model: str, **defaults: Any
) -> Iterator[Callable[..., S]]:
    """Yield a factory of ``cls(model, **defaults, **FAST, **kwargs)``; close all it made after.

    Meant for ``yield from`` in a test module's ``make`` fixture.
    """
    made: list[S] = []

    def factory(**kwargs: Any) -> S:
        options: dict[str, Any] = dict(defaults)
        options.update(FAST)
        options.update(kwargs)
        summarizer = cls(options.pop("model", model), **options)
        made.append(summarizer)
        return summarizer

    yield factory
    for summarizer in made:
        summarizer.close()


def fail(run: Any, summarizer: Any, req: SummaryRequest) -> SummarizerError:
    """The SummarizerError that ``run(summarizer, req)`` raises."""
    with pytest.raises(SummarizerError) as info:
        run(summarizer, req)
    return info.value


def sdk_exception_classes(sdk: ModuleType) -> list[type[BaseException]]:
    """Every exception class an SDK exports in its ``__all__``."""
    return [
        obj
        for name in sdk.__all__
        if isinstance(obj := getattr(sdk, name, None), type) and issubclass(obj, BaseException)
    ]
