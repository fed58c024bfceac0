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
import random
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar, Literal, Self, TypeVar

from chatfold._errors import (
    ConversationNotFoundError,
    FoldConflictError,
    InvalidArgumentError,
    StoreCorruptError,
    StoreError,
    StoreUnavailableError,
)
from chatfold.recall import Postings, check_search_args, message_terms, scope_token
from chatfold.stores._records import (
    check_entries_args,
    check_lease_args,
    check_new_state,
    check_seqs,
    decode_message,
    encode_messages,
    state_from_record,
    validate_conversation_id,
)
from chatfold.stores.base import DEFAULT_NAMESPACE, BaseStore, LogEntry
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

APPLICATION_ID = 0x43484644
"""``PRAGMA application_id`` of a chatfold file ("CHFD")."""

DEFAULT_BUSY_TIMEOUT = 30.0
"""Seconds a write waits for another writer's lock before failing."""

Synchronous = Literal["FULL", "NORMAL", "OFF"]
"""SQLite's ``PRAGMA synchronous`` for the store's connections (see :class:`SQLiteStore`)."""

DEFAULT_SYNCHRONOUS: Synchronous = "FULL"
"""Every acknowledged append survives a power loss (one ``fsync`` of the WAL per commit)."""


_SEQ_BITS = 32
"""A search row's id is ``conversation number << 32 | seq``: one conversation's entries are one
contiguous id range, so a search reads its own rows only, up to ``through_seq``, with no join."""


def _index_rows(
    conn: sqlite3.Connection, ns: str, cid: str, rows: Sequence[tuple[int, Mapping[str, Any]]]
) -> None:
    """Index log entries ``(seq, message)`` for search (inside the caller's transaction).

    Each entry's terms, prefixed with the conversation's scope token, go to an external-content
    FTS5 table (``ascii`` tokenizer: every non-ASCII character is part of a token, so Chinese
    bigrams stay whole) whose content is ``chatfold_search_text``; the narrow
    ``chatfold_search_lengths`` holds each entry's length for BM25.
    """
    scope = scope_token(ns, cid)
    texts = []
    lengths = []
    total = 0
    for seq, message in rows:
        found = message_terms(message)
        total += len(found)
        if found:
            texts.append((seq, " ".join(scope + t for t in found)))
            lengths.append((seq, len(found)))
    conn.execute(
        "INSERT INTO chatfold_search_convs (namespace, id, docs, length) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (namespace, id) DO UPDATE SET docs = docs + excluded.docs, "
        "length = length + excluded.length",
        (ns, cid, len(rows), total),
    )
    if not texts:
        return
    (number,) = conn.execute(
        "SELECT no FROM chatfold_search_convs WHERE namespace = ? AND id = ?", (ns, cid)
    ).fetchone()
    base = number << _SEQ_BITS
    conn.executemany(
        "INSERT INTO chatfold_search_text (id, terms) VALUES (?, ?)",
        [(base + seq, text) for seq, text in texts],
    )
    conn.executemany(
        "INSERT INTO chatfold_fts (rowid, terms) VALUES (?, ?)",
        [(base + seq, text) for seq, text in texts],
    )
    conn.executemany(
        "INSERT INTO chatfold_search_lengths (id, length) VALUES (?, ?)",
        [(base + seq, n) for seq, n in lengths],
    )


def _backfill_search(conn: sqlite3.Connection) -> None:
    """Index every entry already in the file (migration 3), a conversation at a time."""
    conversations = conn.execute("SELECT namespace, id FROM chatfold_conversations").fetchall()
    for ns, cid in conversations:
        rows = conn.execute(
            "SELECT seq, message FROM chatfold_entries WHERE namespace = ? "
            "AND conversation_id = ? ORDER BY seq",
            (ns, cid),
        ).fetchall()
        _index_rows(conn, ns, cid, [(seq, decode_message(text)) for seq, text in rows])


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
        _backfill_search,
    ),
)
"""``MIGRATIONS[i]`` takes the schema from version ``i`` to ``i + 1``."""

SCHEMA_VERSION = len(MIGRATIONS)

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


def _version(conn: sqlite3.Connection) -> tuple[int, int]:
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    return int(app_id), int(version)


_T = TypeVar("_T")


class _Connection(sqlite3.Connection):
    """A connection that knows its busy timeout, for :func:`_retry_busy`."""

    busy_timeout: float = DEFAULT_BUSY_TIMEOUT


def _connect(path: str, timeout: float, synchronous: Synchronous = DEFAULT_SYNCHRONOUS
             ) -> _Connection:
    # The busy timeout is set when the connection opens, before its first statement.
    conn = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False,
                           factory=_Connection)
    conn.busy_timeout = timeout
    # Per connection (not stored in the file); takes no lock. The value is one of ours.
    conn.execute(f"PRAGMA synchronous = {synchronous}")
    return conn


def _retry_busy(conn: sqlite3.Connection, fn: Callable[[], _T]) -> _T:
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
def _write_transaction(conn: sqlite3.Connection) -> Iterator[None]:
    _retry_busy(conn, lambda: conn.execute("BEGIN IMMEDIATE"))
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


def _use_wal(conn: sqlite3.Connection) -> None:
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
    if _retry_busy(conn, lambda: _version(conn)) == (APPLICATION_ID, target):
        return  # the common case, without waiting for the write lock
    while True:
        with _write_transaction(conn):
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
            for statement in MIGRATIONS[version]:
                if callable(statement):
                    statement(conn)
                else:
                    conn.execute(statement)
            # PRAGMA takes no parameters; both values are integers of ours.
            if version == 0:
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID:d}")
            conn.execute(f"PRAGMA user_version = {version + 1:d}")


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
                _retry_busy(conn, lambda: _use_wal(conn))
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
            conn = _connect(self._path, self._timeout, self._synchronous)
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
            with _write_transaction(conn):
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
                    _index_rows(conn, ns, cid, list(zip(seqs, messages, strict=True)))
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
            return [
                LogEntry(seq=seq, message=decode_message(text), created_at=at)
                for seq, text, at in rows
            ]

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
                out += [LogEntry(seq=seq, message=decode_message(text), created_at=at)
                        for seq, text, at in rows]
        return out

    def search(
        self, conversation_id: str, terms: Sequence[str], *, through_seq: int, max_df: int
    ) -> Postings:
        """See :meth:`chatfold.stores.base.Store.search`."""
        cid = validate_conversation_id(conversation_id)
        wanted = check_search_args(terms, through_seq, max_df)
        ns = self._namespace
        scope = scope_token(ns, cid)
        hits: dict[str, tuple[tuple[int, int], ...]] = {}
        common: set[str] = set()
        with self._translate():
            conn = self._conn()
            row = conn.execute(
                "SELECT no, docs, length FROM chatfold_search_convs WHERE namespace = ? AND id = ?",
                (ns, cid),
            ).fetchone()
            if row is None:
                return Postings(hits={t: () for t in wanted})
            lo = int(row[0]) << _SEQ_BITS
            hi = lo + min(through_seq, (1 << _SEQ_BITS) - 1)
            if not wanted:
                return Postings(docs=int(row[1]), total_length=int(row[2]))
            matches = [f'"{scope}{t}"' for t in wanted]
            # Two statements for the whole query. First each term's count, in C and bounded:
            # a common term costs max_df + 1 steps at most...
            one = (
                "SELECT count(*) FROM (SELECT rowid FROM chatfold_fts WHERE chatfold_fts "
                "MATCH ? AND rowid BETWEEN ? AND ? LIMIT ?)"
            )
            counts = conn.execute(
                " UNION ALL ".join(f"SELECT {i}, * FROM ({one})" for i in range(len(wanted))),
                [v for m in matches for v in (m, lo, hi, max_df + 1)],
            ).fetchall()
            listed = []
            for i, n in counts:
                if n > max_df:
                    common.add(wanted[i])
                else:
                    hits[wanted[i]] = ()
                    if n:
                        listed.append(i)
            # ...then the entries (and lengths) of the terms that are not too common.
            if listed:
                rows = conn.execute(
                    " UNION ALL ".join(
                        f"SELECT {i}, chatfold_fts.rowid, l.length FROM chatfold_fts CROSS JOIN "
                        "chatfold_search_lengths l ON l.id = chatfold_fts.rowid WHERE "
                        "chatfold_fts MATCH ? AND chatfold_fts.rowid BETWEEN ? AND ?"
                        for i in listed
                    ),
                    [v for i in listed for v in (matches[i], lo, hi)],
                ).fetchall()
                found: dict[int, list[tuple[int, int]]] = {i: [] for i in listed}
                for i, rowid, length in rows:
                    found[i].append((int(rowid) - lo, int(length)))
                for i, got in found.items():
                    hits[wanted[i]] = tuple(sorted(got))
        return Postings(docs=int(row[1]), total_length=int(row[2]), hits=hits,
                        common=frozenset(common))

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
            with _write_transaction(conn):
                conn.execute(
                    "DELETE FROM chatfold_entries WHERE namespace = ? AND conversation_id = ?",
                    (ns, cid),
                )
                row = conn.execute(
                    "SELECT no FROM chatfold_search_convs WHERE namespace = ? AND id = ?",
                    (ns, cid),
                ).fetchone()
                if row is not None:
                    lo = int(row[0]) << _SEQ_BITS
                    span = (lo, lo + (1 << _SEQ_BITS) - 1)
                    conn.execute(
                        "INSERT INTO chatfold_fts (chatfold_fts, rowid, terms) SELECT 'delete', "
                        "id, terms FROM chatfold_search_text WHERE id BETWEEN ? AND ?",
                        span,
                    )
                    for table in ("chatfold_search_text", "chatfold_search_lengths"):
                        conn.execute(f"DELETE FROM {table} WHERE id BETWEEN ? AND ?", span)
                    conn.execute("DELETE FROM chatfold_search_convs WHERE no = ?", (row[0],))
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
            with _write_transaction(conn):
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
            with _write_transaction(conn):
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
            with _write_transaction(conn):
                conn.execute(
                    "DELETE FROM chatfold_leases WHERE namespace = ? AND id = ? AND owner = ?",
                    (self._namespace, cid, owner),
                )
