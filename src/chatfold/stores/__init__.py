"""Conversation stores: one protocol (:class:`Store` / :class:`AsyncStore`), four backends.

=================  ======================================================  ===========
store              for                                                     extra
=================  ======================================================  ===========
``MemoryStore``    tests and scripts; one process, nothing persisted       --
``SQLiteStore``    the default; one file, several processes on one machine --
``PostgresStore``  several application servers sharing conversations      ``postgres``
``RedisStore``     low-latency shared state                                ``redis``
=================  ======================================================  ===========

Importing this package never imports ``psycopg`` or ``redis``: the Postgres and Redis stores
load their client library when constructed, raising
:class:`~chatfold.MissingDependencyError` naming the extra when it is missing.
"""

from __future__ import annotations

from chatfold.stores.base import (
    DEFAULT_NAMESPACE,
    AsyncStore,
    BaseStore,
    LogEntry,
    Store,
    validate_conversation_id,
    validate_namespace,
)
from chatfold.stores.memory import MemoryStore
from chatfold.stores.postgres import PostgresStore
from chatfold.stores.redis import RedisStore
from chatfold.stores.sqlite import SQLiteStore

__all__ = [
    "DEFAULT_NAMESPACE",
    "AsyncStore",
    "BaseStore",
    "LogEntry",
    "MemoryStore",
    "PostgresStore",
    "RedisStore",
    "SQLiteStore",
    "Store",
    "validate_conversation_id",
    "validate_namespace",
]
