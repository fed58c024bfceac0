"""What the stores on a server (PostgreSQL, Redis) share: one connection pool or client for
the store objects of :meth:`~chatfold.stores.base.Store.with_namespace`, and a location safe
to name in messages."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Generic, Self, TypeVar

from chatfold._errors import StoreError

__all__ = ["SharedResource", "mask_password"]

_T = TypeVar("_T")

_URL_PASSWORD_RE = re.compile(r"(://[^:/?#@\s]*:)[^@\s]*@")
_KEYWORD_PASSWORD_RE = re.compile(r"(password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]+)", re.IGNORECASE)


def mask_password(location: str) -> str:
    """Hide the password of a connection URL or libpq conninfo string, for error messages.

    Args:
        location: ``scheme://user:password@host/...``, ``host=... password=...``, or a path.

    Returns:
        The same text with every password replaced by ``***``.
    """
    masked = _URL_PASSWORD_RE.sub(r"\1***@", location)
    return _KEYWORD_PASSWORD_RE.sub(r"\1***", masked)


class SharedResource(Generic[_T]):
    """A connection pool or client shared by the store objects of :meth:`Store.with_namespace`.

    Each store holds one reference; the resource closes when the last one is released.
    """

    def __init__(self, resource: _T, close: Callable[[_T], None]) -> None:
        self.resource = resource
        self._close = close
        self._refs = 1
        self._lock = threading.Lock()

    def acquire(self) -> Self:
        """Take one more reference.

        Raises:
            StoreError: The resource is already closed.
        """
        with self._lock:
            if self._refs == 0:
                raise StoreError("this store is closed; create a new one")
            self._refs += 1
        return self

    def release(self) -> None:
        """Drop one reference; close the resource with the last one."""
        with self._lock:
            if self._refs == 0:
                return
            self._refs -= 1
            last = self._refs == 0
        if last:
            self._close(self.resource)
