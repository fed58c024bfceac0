"""The context-manager protocol of the objects that hold connections (stores, remote
summarizers), written once: ``with`` calls ``close()``, ``async with`` awaits ``aclose()``."""

from __future__ import annotations

from types import TracebackType
from typing import Self

__all__ = ["Closing"]


class Closing:
    """``with`` / ``async with`` support for a class that implements ``close`` and ``aclose``."""

    def close(self) -> None:
        """Release what the object holds; subclasses implement it."""
        raise NotImplementedError  # pragma: no cover - abstract: subclasses implement it

    async def aclose(self) -> None:
        """Async twin of :meth:`close`; subclasses implement it."""
        raise NotImplementedError  # pragma: no cover - abstract: subclasses implement it

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
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
