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

import os
from pathlib import Path

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
from chatfold.stores.state import FoldState

__all__ = [
    "DEFAULT_NAMESPACE",
    "AsyncStore",
    "BaseStore",
    "FoldState",
    "LogEntry",
    "MemoryStore",
    "PostgresStore",
    "RedisStore",
    "SQLiteStore",
    "Store",
    "default_store",
    "default_store_path",
    "validate_conversation_id",
    "validate_namespace",
]


def default_store_path() -> Path:
    """Where the default SQLite store lives: ``$CHATFOLD_DB`` or ``~/.chatfold/chatfold.db``."""
    env = os.environ.get("CHATFOLD_DB")
    return Path(env) if env else Path.home() / ".chatfold" / "chatfold.db"


def default_store() -> SQLiteStore:
    """The store a conversation gets when given none: SQLite at :func:`default_store_path`
    (its directory is created when missing)."""
    path = default_store_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    return SQLiteStore(path)
