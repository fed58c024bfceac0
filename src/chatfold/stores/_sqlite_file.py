"""The SQLite store's file: its connections, write transactions, schema and migrations.

The file runs in WAL mode, so readers never wait for a writer. Every write is one
``BEGIN IMMEDIATE`` transaction (:func:`write_transaction`), which takes the file's write lock
up front: concurrent writers from any thread or process queue on the busy timeout instead of
failing. Where SQLite reports the file busy without waiting, :func:`retry_busy` retries.

The file is marked with ``PRAGMA application_id`` and its schema version is
``PRAGMA user_version``; the numbered :data:`MIGRATIONS` run in order when a store opens
(:func:`migrate`), each in one transaction with its version bump.
"""

from __future__ import annotations

import random
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Literal, TypeVar

from chatfold._errors import StoreCorruptError
from chatfold.stores._migrations import apply_steps
from chatfold.stores._sqlite_search import backfill_search

__all__ = [
    "APPLICATION_ID",
    "DEFAULT_BUSY_TIMEOUT",
    "DEFAULT_SYNCHRONOUS",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "Synchronous",
    "connect",
    "migrate",
    "retry_busy",
    "use_wal",
    "write_transaction",
]

APPLICATION_ID = 0x43484644
"""``PRAGMA application_id`` of a chatfold file ("CHFD")."""

DEFAULT_BUSY_TIMEOUT = 30.0
"""Seconds a write waits for another writer's lock before failing."""

Synchronous = Literal["FULL", "NORMAL", "OFF"]
"""SQLite's ``PRAGMA synchronous`` for the store's connections (see :class:`SQLiteStore`)."""

DEFAULT_SYNCHRONOUS: Synchronous = "FULL"
"""Every acknowledged append survives a power loss (one ``fsync`` of the WAL per commit)."""


MIGRATIONS: tuple[tuple[str | Callable[[sqlite3.Connection], None], ...], ...] = (
    # 1: the log, its per-conversation counter, and the fold state.
    (
        """CREATE TABLE chatfold_conversations (
            namespace TEXT NOT NULL,
            id TEXT NOT NULL,
            created_at REAL NOT NULL,
            last_seq INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (namespace, id)
        ) WITHOUT ROWID""",
        """CREATE TABLE chatfold_entries (
            namespace TEXT NOT NULL,
            conversation_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            message TEXT NOT NULL,
            created_at REAL NOT NULL,
            UNIQUE (namespace, conversation_id, seq)
        )""",
        """CREATE TABLE chatfold_states (
            namespace TEXT NOT NULL,
            id TEXT NOT NULL,
            version INTEGER NOT NULL,
            state TEXT NOT NULL,
            PRIMARY KEY (namespace, id)
        ) WITHOUT ROWID""",
    ),
    # 2: fold leases, so two processes do not pay for the same summary.
    (
        """CREATE TABLE chatfold_leases (
            namespace TEXT NOT NULL,
            id TEXT NOT NULL,
            owner TEXT NOT NULL,
            expires_at REAL NOT NULL,
            PRIMARY KEY (namespace, id)
        ) WITHOUT ROWID""",
    ),
    # 3: lease tokens, so no process trusts another's wall clock (expires_at: informational).
    (
        "ALTER TABLE chatfold_leases ADD COLUMN token TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE chatfold_leases ADD COLUMN ttl REAL NOT NULL DEFAULT 0",
    ),
    # 4: the search index for recall, filled from the entries already stored.
    (
        """CREATE TABLE chatfold_search_convs (
            no INTEGER PRIMARY KEY,
            namespace TEXT NOT NULL,
            id TEXT NOT NULL,
            docs INTEGER NOT NULL,
            length INTEGER NOT NULL,
            UNIQUE (namespace, id)
        )""",
        "CREATE TABLE chatfold_search_text (id INTEGER PRIMARY KEY, terms TEXT NOT NULL)",
        """CREATE VIRTUAL TABLE chatfold_fts USING fts5(
            terms, content='chatfold_search_text', content_rowid='id',
            tokenize='ascii', detail='none'
        )""",
        "CREATE TABLE chatfold_search_lengths (id INTEGER PRIMARY KEY, length INTEGER NOT NULL)",
        backfill_search,
    ),
)
"""``MIGRATIONS[i]`` takes the schema from version ``i`` to ``i + 1``."""

SCHEMA_VERSION = len(MIGRATIONS)


def _version(conn: sqlite3.Connection) -> tuple[int, int]:
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    return int(app_id), int(version)


_T = TypeVar("_T")


class _Connection(sqlite3.Connection):
    """A connection that knows its busy timeout, for :func:`retry_busy`."""

    busy_timeout: float = DEFAULT_BUSY_TIMEOUT


def connect(path: str, timeout: float, synchronous: Synchronous = DEFAULT_SYNCHRONOUS
             ) -> _Connection:
    # The busy timeout is set when the connection opens, before its first statement.
    conn = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False,
                           factory=_Connection)
    conn.busy_timeout = timeout
    # Per connection (not stored in the file); takes no lock. The value is one of ours.
    conn.execute(f"PRAGMA synchronous = {synchronous}")
    return conn


def retry_busy(conn: sqlite3.Connection, fn: Callable[[], _T]) -> _T:
    """Run ``fn``, retrying while SQLite reports the file busy, up to the busy timeout.

    The busy handler covers most waits, but SQLite returns SQLITE_BUSY at once where waiting
    could deadlock: switching a fresh file to WAL while another connection opens it, WAL
    recovery, ``BEGIN IMMEDIATE`` racing a journal-mode change. Under load (several processes
    opening one new file at once) those are common, and only safe to retry before anything
    was written, which is where this is used.
    """
    deadline = time.monotonic() + getattr(conn, "busy_timeout", DEFAULT_BUSY_TIMEOUT)
    delay = 0.002
    while True:
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
            if code not in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or (
                time.monotonic() + delay > deadline
            ):
                raise
        time.sleep(delay * random.uniform(0.5, 1.0))  # jitter: contenders do not retry in step
        delay = min(delay * 2, 0.1)


@contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[None]:
    retry_busy(conn, lambda: conn.execute("BEGIN IMMEDIATE"))
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    try:
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def use_wal(conn: sqlite3.Connection) -> None:
    if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        conn.execute("PRAGMA journal_mode=WAL").fetchone()


def migrate(conn: sqlite3.Connection, path: str, target: int = SCHEMA_VERSION) -> None:
    """Bring the database of ``conn`` to schema version ``target``, one migration at a time.

    Each migration runs in its own ``BEGIN IMMEDIATE`` transaction together with its
    ``user_version`` bump, and re-reads the version inside the lock, so processes opening the
    same file at once apply each migration exactly once.

    Args:
        conn: An autocommit (``isolation_level=None``) connection.
        path: The file, for error messages.
        target: The version to reach (tests use lower ones to build old files).

    Raises:
        StoreCorruptError: The file is a foreign SQLite database, or from a newer chatfold.
    """
    if retry_busy(conn, lambda: _version(conn)) == (APPLICATION_ID, target):
        return  # the common case, without waiting for the write lock
    while True:
        with write_transaction(conn):
            app_id, version = _version(conn)
            if app_id != APPLICATION_ID:
                objects = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
                if app_id != 0 or version != 0 or objects:
                    raise StoreCorruptError(
                        f"SQLite file {path} is not a chatfold store (application_id {app_id}, "
                        f"{objects} schema objects): use a new file"
                    )
            if version > SCHEMA_VERSION:
                raise StoreCorruptError(
                    f"SQLite store {path} has schema version {version}, newer than this "
                    f"chatfold's {SCHEMA_VERSION}: upgrade chatfold"
                )
            if version >= target:
                return
            apply_steps(conn, MIGRATIONS[version])
            # PRAGMA takes no parameters; both values are integers of ours.
            if version == 0:
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID:d}")
            conn.execute(f"PRAGMA user_version = {version + 1:d}")
