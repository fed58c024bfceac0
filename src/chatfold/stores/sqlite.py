"""The default store: one SQLite file (stdlib ``sqlite3``), safe across processes on one machine.

The file runs in WAL mode, so readers never wait for a writer. Every write (append, fold-state
compare-and-set, lease) is one ``BEGIN IMMEDIATE`` transaction, which takes the file's write
lock up front: concurrent writers from any thread or process queue on the busy timeout instead
of failing, and sequence numbers are assigned inside the lock, so they stay gap-free.

Each thread gets its own connection (SQLite connections must not be shared between threads).

Fold leases trust no process's wall clock (processes may disagree, and clocks jump): a lease row
holds its owner, a token the holder changes whenever it takes or renews the lease, and the
holder's TTL. Another process treats the lease as expired only once it has itself seen the same
owner and token, unchanged, for that TTL on its own monotonic clock. A process meeting a lease
for the first time therefore waits up to one TTL, however old the lease is.

The file is marked with ``PRAGMA application_id`` and its schema version is
``PRAGMA user_version``; numbered migrations run in order when a store opens, each in one
transaction with its version bump. A file that is not SQLite, or an SQLite database that is not
a chatfold store, raises :class:`~chatfold.StoreCorruptError` rather than being modified.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Self

from chatfold._errors import (
    ConversationNotFoundError,
    FoldConflictError,
    InvalidArgumentError,
    StoreCorruptError,
    StoreError,
    StoreUnavailableError,
)
from chatfold.recall import Postings, check_search_args
from chatfold.stores._records import (
    check_entries_args,
    check_lease_args,
    check_new_state,
    check_seqs,
    encode_messages,
    state_from_record,
    validate_conversation_id,
)
from chatfold.stores._sqlite_file import (
    APPLICATION_ID,
    DEFAULT_BUSY_TIMEOUT,
    DEFAULT_SYNCHRONOUS,
    MIGRATIONS,
    SCHEMA_VERSION,
    Synchronous,
    connect,
    migrate,
    retry_busy,
    use_wal,
    write_transaction,
)
from chatfold.stores._sqlite_search import delete_index, index_rows, search
from chatfold.stores.base import DEFAULT_NAMESPACE, BaseStore, LogEntry, log_entries
from chatfold.stores.state import FoldState

__all__ = [
    "APPLICATION_ID",
    "DEFAULT_BUSY_TIMEOUT",
    "DEFAULT_SYNCHRONOUS",
    "MIGRATIONS",
    "SQLiteStore",
    "Synchronous",
    "migrate",
]

_CORRUPT_CODES = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}
_UNAVAILABLE_CODES = {
    sqlite3.SQLITE_CANTOPEN,
    sqlite3.SQLITE_READONLY,
    sqlite3.SQLITE_IOERR,
    sqlite3.SQLITE_BUSY,
    sqlite3.SQLITE_LOCKED,
    sqlite3.SQLITE_FULL,
    sqlite3.SQLITE_PERM,
    sqlite3.SQLITE_AUTH,
    sqlite3.SQLITE_NOLFS,
}


class _LeaseWatch:
    """What this process has seen of other owners' leases, on its own monotonic clock.

    Shared by every store object of the process on the same file, so a web app that opens a
    store per request still sees a dead holder's lease expire.
    """

    def __init__(self, limit: int = 10_000) -> None:
        self._seen: dict[tuple[str, str, str], tuple[str, str, float]] = {}
        self._lock = threading.Lock()
        self._limit = limit

    def expired(self, key: tuple[str, str, str], owner: str, token: str, ttl: float) -> bool:
        """True once ``owner``'s lease with ``token`` has been seen unchanged for ``ttl``."""
        now = time.monotonic()
        with self._lock:
            seen = self._seen.get(key)
            if seen is not None and seen[:2] == (owner, token):
                return now - seen[2] >= ttl
            if seen is None and len(self._seen) >= self._limit:
                self._seen.pop(next(iter(self._seen)))  # the oldest watch
            self._seen[key] = (owner, token, now)
            return False

    def forget(self, key: tuple[str, str, str]) -> None:
        with self._lock:
            self._seen.pop(key, None)


_LEASES = _LeaseWatch()


def translate_error(exc: BaseException, path: str) -> StoreError | None:
    """The chatfold error for an ``sqlite3`` or JSON exception raised on ``path``, or None.

    Args:
        exc: The exception caught.
        path: The database file, named in the message.

    Returns:
        The error to raise ``from exc``, or None when ``exc`` is not a library error.
    """
    if isinstance(exc, json.JSONDecodeError):
        return StoreCorruptError(f"SQLite store {path}: a stored value is not valid JSON ({exc})")
    if not isinstance(exc, sqlite3.Error):
        return None
    code = getattr(exc, "sqlite_errorcode", None)
    primary = None if code is None else code & 0xFF
    text = str(exc)
    if primary in _CORRUPT_CODES or "no such table" in text or "no such column" in text:
        return StoreCorruptError(f"SQLite store {path} is damaged or not a chatfold store: {text}")
    if primary in _UNAVAILABLE_CODES:
        return StoreUnavailableError(f"SQLite store {path} cannot be used: {text}")
    return StoreError(f"SQLite store {path} failed: {text}")


class SQLiteStore(BaseStore):
    """Conversations in one SQLite file; several threads and processes may share it.

    Args:
        path: The database file; created when absent (its directory must exist).
        namespace: Tenant scope; see :mod:`chatfold.stores.base`.
        timeout: Seconds a write waits for another writer before raising
            :class:`~chatfold.StoreUnavailableError`.
        synchronous: How durable an acknowledged write is (SQLite's ``PRAGMA synchronous``;
            the file is always in WAL mode):

            * ``"FULL"`` (default): every append, fold and lease is on disk when the call
              returns (one ``fsync`` of the WAL per commit). Survives a crash of the process,
              of the operating system and a power loss.
            * ``"NORMAL"``: commits are written to the WAL without ``fsync`` (the WAL is synced
              at checkpoints). Survives a crash of the process (the data is in the OS's page
              cache); an OS crash or power loss can lose the last commits before a checkpoint,
              but never corrupts the file or splits a batch. Several times faster per append on
              a real disk.
            * ``"OFF"``: no ``fsync`` at all. Survives a crash of the process only; an OS crash
              or power loss can lose recent commits and may corrupt the file. For scratch data.

    Raises:
        StoreUnavailableError: The file cannot be opened or created.
        StoreCorruptError: The file is not SQLite, or is an SQLite database of something else.
        InvalidArgumentError: ``path`` is ``""`` or ``":memory:"`` (use ``MemoryStore``), or
            ``synchronous`` is not one of the three values.
    """

    name: ClassVar[str] = "sqlite"
    persistent: ClassVar[bool] = True
    shared_across_processes: ClassVar[bool] = True
    shared_across_machines: ClassVar[bool] = False
    schema_version: ClassVar[int] = SCHEMA_VERSION

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        namespace: str = DEFAULT_NAMESPACE,
        timeout: float = DEFAULT_BUSY_TIMEOUT,
        synchronous: Synchronous = DEFAULT_SYNCHRONOUS,
    ) -> None:
        super().__init__(namespace=namespace)
        if synchronous not in ("FULL", "NORMAL", "OFF"):
            raise InvalidArgumentError(
                "synchronous", f"must be 'FULL', 'NORMAL' or 'OFF', got {synchronous!r}"
            )
        self._synchronous: Synchronous = synchronous
        self._path = os.fspath(path)
        if self._path in ("", ":memory:"):
            raise InvalidArgumentError(
                "path", "SQLiteStore needs a file path (each thread has its own connection); "
                "use MemoryStore for an in-memory store"
            )
        self._timeout = timeout
        self._file = os.path.realpath(self._path)  # the lease watch's key
        self._lock = threading.Lock()
        self._conns: dict[threading.Thread, sqlite3.Connection] = {}
        self._pid = os.getpid()
        try:
            with self._translate():
                conn = self._conn()
                retry_busy(conn, lambda: use_wal(conn))
                migrate(conn, self._path)
        except BaseException:
            self.close()
            raise

    @property
    def path(self) -> str:
        """The database file."""
        return self._path

    @property
    def synchronous(self) -> Synchronous:
        """How durable an acknowledged write is (see the class)."""
        return self._synchronous

    def __repr__(self) -> str:
        return f"SQLiteStore({self._path!r}, namespace={self._namespace!r})"

    def with_namespace(self, namespace: str) -> Self:
        """A store on the same file, scoped to ``namespace``."""
        return type(self)(self._path, namespace=namespace, timeout=self._timeout,
                          synchronous=self._synchronous)

    def _store_error(self, exc: Exception) -> StoreError | None:
        return translate_error(exc, self._path)

    def _conn(self) -> sqlite3.Connection:
        self._check_open()
        if os.getpid() != self._pid:
            # A forked child must not use its parent's connections: open its own.
            self._conns, self._pid = {}, os.getpid()
        thread = threading.current_thread()
        conn = self._conns.get(thread)
        if conn is None:
            conn = connect(self._path, self._timeout, self._synchronous)
            with self._lock:
                for dead in [t for t in self._conns if not t.is_alive()]:
                    self._conns.pop(dead).close()
                self._conns[thread] = conn
        return conn

    def close(self) -> None:
        """Close every thread's connection. Idempotent."""
        super().close()
        with self._lock:
            conns, self._conns = list(self._conns.values()), {}
        for conn in conns:
            conn.close()

    def append(self, conversation_id: str, messages: Sequence[Mapping[str, Any]]) -> list[int]:
        """See :meth:`chatfold.stores.base.Store.append`."""
        cid = validate_conversation_id(conversation_id)
        encoded = encode_messages(messages)
        ns = self._namespace
        with self._translate():
            conn = self._conn()
            with write_transaction(conn):
                now = time.time()
                conn.execute(
                    "INSERT INTO chatfold_conversations (namespace, id, created_at, last_seq) "
                    "VALUES (?, ?, ?, 0) ON CONFLICT (namespace, id) DO NOTHING",
                    (ns, cid, now),
                )
                (last,) = conn.execute(
                    "SELECT last_seq FROM chatfold_conversations WHERE namespace = ? AND id = ?",
                    (ns, cid),
                ).fetchone()
                seqs = list(range(last + 1, last + 1 + len(encoded)))
                if encoded:
                    conn.executemany(
                        "INSERT INTO chatfold_entries "
                        "(namespace, conversation_id, seq, message, created_at) "
                        "VALUES (?, ?, ?, ?, ?)",
                        [(ns, cid, s, text, now) for s, text in zip(seqs, encoded, strict=True)],
                    )
                    conn.execute(
                        "UPDATE chatfold_conversations SET last_seq = ? "
                        "WHERE namespace = ? AND id = ?",
                        (seqs[-1], ns, cid),
                    )
                    index_rows(conn, ns, cid, list(zip(seqs, messages, strict=True)))
        return seqs

    def entries(
        self, conversation_id: str, *, after: int = 0, limit: int | None = None
    ) -> list[LogEntry]:
        """See :meth:`chatfold.stores.base.Store.entries`."""
        cid = validate_conversation_id(conversation_id)
        check_entries_args(after, limit)
        with self._translate():
            rows = (
                self._conn()
                .execute(
                    "SELECT seq, message, created_at FROM chatfold_entries "
                    "WHERE namespace = ? AND conversation_id = ? AND seq > ? "
                    "ORDER BY seq LIMIT ?",
                    (self._namespace, cid, after, -1 if limit is None else limit),
                )
                .fetchall()
            )
            return log_entries(rows)

    def last_seq(self, conversation_id: str) -> int:
        """See :meth:`chatfold.stores.base.Store.last_seq`."""
        cid = validate_conversation_id(conversation_id)
        with self._translate():
            row = (
                self._conn()
                .execute(
                    "SELECT last_seq FROM chatfold_conversations WHERE namespace = ? AND id = ?",
                    (self._namespace, cid),
                )
                .fetchone()
            )
        return 0 if row is None else int(row[0])

    def entries_at(self, conversation_id: str, seqs: Sequence[int]) -> list[LogEntry]:
        """See :meth:`chatfold.stores.base.Store.entries_at`."""
        cid = validate_conversation_id(conversation_id)
        wanted = check_seqs(seqs)
        out: list[LogEntry] = []
        with self._translate():
            conn = self._conn()
            for i in range(0, len(wanted), 500):
                chunk = wanted[i : i + 500]
                rows = conn.execute(
                    "SELECT seq, message, created_at FROM chatfold_entries WHERE namespace = ? "
                    f"AND conversation_id = ? AND seq IN ({','.join('?' * len(chunk))}) "
                    "ORDER BY seq",
                    (self._namespace, cid, *chunk),
                ).fetchall()
                out += log_entries(rows)
        return out

    def search(
        self, conversation_id: str, terms: Sequence[str], *, through_seq: int, max_df: int
    ) -> Postings:
        """See :meth:`chatfold.stores.base.Store.search`."""
        cid = validate_conversation_id(conversation_id)
        wanted = check_search_args(terms, through_seq, max_df)
        with self._translate():
            return search(self._conn(), self._namespace, cid, wanted, through_seq=through_seq,
                          max_df=max_df)

    def exists(self, conversation_id: str) -> bool:
        """See :meth:`chatfold.stores.base.Store.exists`."""
        cid = validate_conversation_id(conversation_id)
        with self._translate():
            row = (
                self._conn()
                .execute(
                    "SELECT 1 FROM chatfold_conversations WHERE namespace = ? AND id = ?",
                    (self._namespace, cid),
                )
                .fetchone()
            )
        return row is not None

    def list_conversations(self) -> list[str]:
        """See :meth:`chatfold.stores.base.Store.list_conversations`."""
        with self._translate():
            rows = (
                self._conn()
                .execute(
                    "SELECT id FROM chatfold_conversations WHERE namespace = ?",
                    (self._namespace,),
                )
                .fetchall()
            )
        return sorted(str(row[0]) for row in rows)

    def delete(self, conversation_id: str) -> None:
        """See :meth:`chatfold.stores.base.Store.delete`."""
        cid = validate_conversation_id(conversation_id)
        ns = self._namespace
        with self._translate():
            conn = self._conn()
            with write_transaction(conn):
                conn.execute(
                    "DELETE FROM chatfold_entries WHERE namespace = ? AND conversation_id = ?",
                    (ns, cid),
                )
                delete_index(conn, ns, cid)
                for table in ("chatfold_states", "chatfold_leases", "chatfold_conversations"):
                    conn.execute(f"DELETE FROM {table} WHERE namespace = ? AND id = ?", (ns, cid))

    def load_state(self, conversation_id: str) -> FoldState:
        """See :meth:`chatfold.stores.base.Store.load_state`."""
        cid = validate_conversation_id(conversation_id)
        with self._translate():
            row = (
                self._conn()
                .execute(
                    "SELECT version, state FROM chatfold_states WHERE namespace = ? AND id = ?",
                    (self._namespace, cid),
                )
                .fetchone()
            )
            if row is None:
                return FoldState()
            return state_from_record(int(row[0]), str(row[1]))

    def save_state(self, conversation_id: str, state: FoldState, *, expected_version: int) -> None:
        """See :meth:`chatfold.stores.base.Store.save_state`."""
        cid = validate_conversation_id(conversation_id)
        check_new_state(state, expected_version)
        ns = self._namespace
        with self._translate():
            conn = self._conn()
            with write_transaction(conn):
                found = conn.execute(
                    "SELECT 1 FROM chatfold_conversations WHERE namespace = ? AND id = ?",
                    (ns, cid),
                ).fetchone()
                if found is None:
                    raise ConversationNotFoundError(cid)
                row = conn.execute(
                    "SELECT version FROM chatfold_states WHERE namespace = ? AND id = ?",
                    (ns, cid),
                ).fetchone()
                actual = 0 if row is None else int(row[0])
                if actual != expected_version:
                    raise FoldConflictError(expected_version, actual)
                conn.execute(
                    "INSERT OR REPLACE INTO chatfold_states (namespace, id, version, state) "
                    "VALUES (?, ?, ?, ?)",
                    (ns, cid, state.version, state.to_json()),
                )

    def acquire_lease(self, conversation_id: str, owner: str, ttl_seconds: float) -> bool:
        """See :meth:`chatfold.stores.base.Store.acquire_lease`."""
        cid = validate_conversation_id(conversation_id)
        check_lease_args(owner, ttl_seconds)
        ns = self._namespace
        with self._translate():
            conn = self._conn()
            key = (self._file, ns, cid)
            with write_transaction(conn):
                row = conn.execute(
                    "SELECT owner, token, ttl FROM chatfold_leases WHERE namespace = ? AND id = ?",
                    (ns, cid),
                ).fetchone()
                if row is not None and row[0] != owner:
                    held_for = float(row[2]) if row[2] > 0 else ttl_seconds  # 0: a v2 row
                    if not _LEASES.expired(key, str(row[0]), str(row[1]), held_for):
                        return False
                # A new token on every take and renewal: watchers start counting again.
                conn.execute(
                    "INSERT OR REPLACE INTO chatfold_leases "
                    "(namespace, id, owner, expires_at, token, ttl) VALUES (?, ?, ?, ?, ?, ?)",
                    (ns, cid, owner, time.time() + ttl_seconds, uuid.uuid4().hex,
                     float(ttl_seconds)),
                )
            _LEASES.forget(key)
            return True

    def release_lease(self, conversation_id: str, owner: str) -> None:
        """See :meth:`chatfold.stores.base.Store.release_lease`."""
        cid = validate_conversation_id(conversation_id)
        check_lease_args(owner)
        with self._translate():
            conn = self._conn()
            with write_transaction(conn):
                conn.execute(
                    "DELETE FROM chatfold_leases WHERE namespace = ? AND id = ? AND owner = ?",
                    (self._namespace, cid, owner),
                )
