"""Plugin tables: summarizers and stores by name.

Built-ins are registered as ``"module:Class"`` strings so their SDKs load only on use. Other
packages add entries through the entry-point groups ``chatfold.summarizers`` and
``chatfold.stores``, read once on the first lookup; ``CHATFOLD_PLUGINS=a,b`` limits which
entry points load.

Example:
    >>> register_summarizer("echo", lambda **kw: (lambda text: text[:10]), replace=True)
    >>> "echo" in list_summarizers() and "extractive" in list_summarizers()
    True
"""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Callable
from importlib import metadata
from typing import Any

from ._errors import PluginConflictError, UnknownPluginError

__all__ = [
    "get_store",
    "get_summarizer",
    "list_stores",
    "list_summarizers",
    "register_store",
    "register_summarizer",
]

Factory = Callable[..., Any] | str

_BUILTIN_SUMMARIZERS: dict[str, Factory] = {
    "extractive": "chatfold.summarizers.extractive:ExtractiveSummarizer",
    "openai": "chatfold.summarizers.openai:OpenAISummarizer",
    "anthropic": "chatfold.summarizers.anthropic:AnthropicSummarizer",
}
_BUILTIN_STORES: dict[str, Factory] = {
    "memory": "chatfold.stores.memory:MemoryStore",
    "sqlite": "chatfold.stores.sqlite:SQLiteStore",
    "postgres": "chatfold.stores.postgres:PostgresStore",
    "redis": "chatfold.stores.redis:RedisStore",
}


class _Table:
    def __init__(self, kind: str, group: str, builtins: dict[str, Factory]) -> None:
        self.kind = kind
        self.group = group
        self.entries: dict[str, Factory] = dict(builtins)
        self.loaded = False
        self.lock = threading.Lock()

    def _load_entry_points(self) -> None:
        with self.lock:
            if self.loaded:
                return
            self.loaded = True
            allowed = os.environ.get("CHATFOLD_PLUGINS")
            names = {n.strip() for n in allowed.split(",")} if allowed else None
            for ep in metadata.entry_points(group=self.group):
                if names is not None and ep.name not in names:
                    continue
                self.entries.setdefault(ep.name, ep.value)

    def register(self, name: str, factory: Factory, replace: bool) -> None:
        self._load_entry_points()
        if name in self.entries and not replace:
            raise PluginConflictError(self.kind, name)
        self.entries[name] = factory

    def get(self, name: str, options: dict[str, Any]) -> Any:
        self._load_entry_points()
        factory = self.entries.get(name)
        if factory is None:
            raise UnknownPluginError(self.kind, name, list(self.entries))
        if isinstance(factory, str):
            module, _, attr = factory.partition(":")
            factory = getattr(importlib.import_module(module), attr)
        return factory(**options)

    def names(self) -> list[str]:
        self._load_entry_points()
        return sorted(self.entries)


_SUMMARIZERS = _Table("summarizer", "chatfold.summarizers", _BUILTIN_SUMMARIZERS)
_STORES = _Table("store", "chatfold.stores", _BUILTIN_STORES)


def register_summarizer(name: str, factory: Factory, *, replace: bool = False) -> None:
    """Register a summarizer factory (a callable taking options, or ``"module:Class"``).

    Raises:
        PluginConflictError: the name is taken and ``replace`` is false.
    """
    _SUMMARIZERS.register(name, factory, replace)


def get_summarizer(name: str, **options: Any) -> Any:
    """Build the summarizer registered as ``name`` with ``options``.

    Raises:
        UnknownPluginError: no such name (the error lists the known ones).
    """
    return _SUMMARIZERS.get(name, options)


def list_summarizers() -> list[str]:
    """Names of the registered summarizers, sorted."""
    return _SUMMARIZERS.names()


def register_store(name: str, factory: Factory, *, replace: bool = False) -> None:
    """Register a store factory (a callable taking options, or ``"module:Class"``)."""
    _STORES.register(name, factory, replace)


def get_store(name: str, **options: Any) -> Any:
    """Build the store registered as ``name`` with ``options``.

    Raises:
        UnknownPluginError: no such name.
    """
    return _STORES.get(name, options)


def list_stores() -> list[str]:
    """Names of the registered stores, sorted."""
    return _STORES.names()
