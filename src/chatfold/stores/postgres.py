"""PostgreSQL store (``psycopg`` 3 with ``psycopg_pool``): conversations shared by several
application servers.

Sequence numbers come from a per-conversation counter row bumped with an UPSERT
(``INSERT ... ON CONFLICT DO UPDATE ... RETURNING``): the row lock it takes serialises
concurrent appends to one conversation, and the counter rolls back with a failed transaction,
so numbers stay gap-free. The fold state's compare-and-set is a conditional ``UPDATE`` (or an
``INSERT ... ON CONFLICT DO NOTHING`` for the first fold) checked by its row count. Leases use
the server's clock, so machines with skewed clocks agree on expiry.

The schema version lives in the ``chatfold_meta`` table; numbered migrations run in order when
a store opens, each in one transaction with its version bump, under an advisory lock so
servers starting together apply each migration once. Tables are created in the first schema
of the ``search_path`` (``schema=`` selects one). Needs the ``postgres`` extra.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, ClassVar, Self

from chatfold._errors import (
    ConversationNotFoundError,
    FoldConflictError,
    InvalidArgumentError,
    StoreCorruptError,
    StoreError,
    StoreUnavailableError,
)
from chatfold.recall import Postings, check_search_args
from chatfold.stores._postgres_schema import (
    MIGRATIONS,
    SCHEMA_VERSION,
    connection_kwargs,
    create_schema,
    import_psycopg,
    migrate,
)
from chatfold.stores._postgres_search import delete_index, index_rows, search
from chatfold.stores._records import (
    check_entries_args,
    check_lease_args,
    check_new_state,
    check_seqs,
    encode_messages,
    state_from_record,
    validate_conversation_id,
)
from chatfold.stores._server import SharedResource, mask_password
from chatfold.stores.base import DEFAULT_NAMESPACE, BaseStore, LogEntry, log_entries
from chatfold.stores.state import FoldState

if TYPE_CHECKING:
    import psycopg
    import psycopg_pool

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_POOL_SIZE",
    "MIGRATIONS",
    "PostgresStore",
    "migrate",
]

DEFAULT_POOL_SIZE = 5
"""Most connections one store object keeps open."""

DEFAULT_CONNECT_TIMEOUT = 5.0
"""Seconds to wait for the server when connecting."""

DEFAULT_POOL_TIMEOUT = 30.0
"""Seconds an operation waits for a free pooled connection."""


def translate_error(exc: BaseException, location: str) -> StoreError | None:
    """The chatfold error for a ``psycopg`` / ``psycopg_pool`` / JSON exception, or None.

    Args:
        exc: The exception caught.
        location: The server, password already masked, named in the message.

    Returns:
        The error to raise ``from exc``, or None when ``exc`` is not a library error.
    """
    if isinstance(exc, json.JSONDecodeError):
        return StoreCorruptError(f"PostgreSQL store {location}: a stored value is not JSON ({exc})")
    psycopg = sys.modules.get("psycopg")
    pool = sys.modules.get("psycopg_pool")
    if psycopg is None or not isinstance(exc, psycopg.Error):
        return None
    text = mask_password(str(exc).strip())
    if pool is not None and isinstance(exc, pool.PoolTimeout):
        return StoreUnavailableError(
            f"PostgreSQL store {location}: no connection available in time ({text}); "
            "is the server up, or is pool_size too small?"
        )
    if pool is not None and isinstance(exc, pool.PoolClosed | pool.TooManyRequests):
        return StoreError(f"PostgreSQL store {location}: {text}")
    errors = psycopg.errors
    if isinstance(exc, errors.UndefinedTable | errors.UndefinedColumn):
        return StoreCorruptError(
            f"PostgreSQL store {location}: chatfold tables are missing or damaged ({text})"
        )
    sqlstate = getattr(exc, "sqlstate", None) or ""
    if sqlstate.startswith("40"):  # serialization failure, deadlock: the server is fine
        return StoreError(f"PostgreSQL store {location}: transaction aborted, retry ({text})")
    if isinstance(exc, psycopg.OperationalError):
        return StoreUnavailableError(f"PostgreSQL server {location} is unavailable: {text}")
    return StoreError(f"PostgreSQL store {location} failed: {text}")


def _close_pool(pool: psycopg_pool.ConnectionPool[Any]) -> None:
    pool.close()


class PostgresStore(BaseStore):
    """Conversations in PostgreSQL, shared by every process and machine using the database.

    Args:
        conninfo: A libpq connection string or URL (``postgresql://user:pw@host:5432/db``);
            ``""`` uses the ``PG*`` environment variables.
        namespace: Tenant scope; see :mod:`chatfold.stores.base`.
        pool_size: Most connections this store object keeps open.
        schema: Create and use the tables in this schema (created when absent) instead of
            the first one of the server's ``search_path``.
        connect_timeout: Seconds to wait for the server when connecting.
        pool_timeout: Seconds an operation waits for a free pooled connection.

    Raises:
        MissingDependencyError: The ``postgres`` extra is not installed.
        StoreUnavailableError: The server cannot be reached or refuses the login.
        StoreCorruptError: The database holds a newer chatfold schema.
    """

    name: ClassVar[str] = "postgres"
    persistent: ClassVar[bool] = True
    shared_across_processes: ClassVar[bool] = True
    shared_across_machines: ClassVar[bool] = True
    schema_version: ClassVar[int] = SCHEMA_VERSION

    def __init__(
        self,
        conninfo: str = "",
        *,
        namespace: str = DEFAULT_NAMESPACE,
        pool_size: int = DEFAULT_POOL_SIZE,
        schema: str | None = None,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        pool_timeout: float = DEFAULT_POOL_TIMEOUT,
    ) -> None:
        super().__init__(namespace=namespace)
        if pool_size < 1:
            raise InvalidArgumentError("pool_size", f"must be >= 1, got {pool_size}")
        self._conninfo = conninfo
        self._location = mask_password(conninfo) if conninfo else "(PG* environment)"
        self._pool_size = pool_size
        self._schema = schema
        self._connect_timeout = connect_timeout
        self._pool_timeout = pool_timeout
        self._kwargs = connection_kwargs(connect_timeout, schema)
        self._pool: SharedResource[psycopg_pool.ConnectionPool[Any]] | None = None
        self._pool_lock = threading.Lock()
        self._pid = os.getpid()
        psycopg, _ = import_psycopg()
        with self._translate():
            with psycopg.connect(conninfo, **self._kwargs) as conn:
                if schema is not None:
                    create_schema(conn, schema)
                migrate(conn)
            self._pool = SharedResource(self._open_pool(), _close_pool)

    def _open_pool(self) -> psycopg_pool.ConnectionPool[Any]:
        _, pool_lib = import_psycopg()
        pool: psycopg_pool.ConnectionPool[Any] = pool_lib.ConnectionPool(
            self._conninfo,
            min_size=1,
            max_size=self._pool_size,
            kwargs=self._kwargs,
            open=False,
            timeout=self._pool_timeout,
            name=f"chatfold-{self._namespace}",
        )
        try:
            pool.open(wait=True, timeout=max(1.0, self._connect_timeout))
        except BaseException:
            pool.close()
            raise
        return pool

    def __repr__(self) -> str:
        return f"PostgresStore({self._location!r}, namespace={self._namespace!r})"

    def with_namespace(self, namespace: str) -> Self:
        """See :meth:`chatfold.stores.base.Store.with_namespace` (same database and pool)."""
        other = self._scoped_copy(namespace)
        if self._pool is None:  # pragma: no cover - only if __init__ failed half-way
            raise StoreError(f"{self!r} is not open")
        other._pool = self._pool.acquire()
        return other

    def _store_error(self, exc: Exception) -> StoreError | None:
        return translate_error(exc, self._location)

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        self._check_open()
        if os.getpid() != self._pid:
            # A forked child cannot use the parent's pool (its sockets and threads): a new one.
            with self._pool_lock:
                if os.getpid() != self._pid:
                    self._pool = SharedResource(self._open_pool(), _close_pool)
                    self._pid = os.getpid()
        shared = self._pool
        if shared is None:  # pragma: no cover - only reachable if __init__ failed half-way
            raise StoreError(f"{self!r} is not open")
        with shared.resource.connection() as conn:
            yield conn

    def close(self) -> None:
        """Release the connection pool (closed with its last store). Idempotent."""
        super().close()
        shared, self._pool = self._pool, None
        if shared is not None and os.getpid() == self._pid:
            shared.release()

    def append(self, conversation_id: str, messages: Sequence[Mapping[str, Any]]) -> list[int]:
        """See :meth:`chatfold.stores.base.Store.append`."""
        cid = validate_conversation_id(conversation_id)
        encoded = encode_messages(messages)
        ns, count = self._namespace, len(encoded)
        with self._translate(), self._connection() as conn, conn.transaction():
            now = time.time()
            row = conn.execute(
                "INSERT INTO chatfold_conversations (namespace, id, created_at, last_seq) "
                "VALUES (%s, %s, %s, %s) ON CONFLICT (namespace, id) DO UPDATE "
                "SET last_seq = chatfold_conversations.last_seq + EXCLUDED.last_seq "
                "RETURNING last_seq",
                (ns, cid, now, count),
            ).fetchone()
            assert row is not None  # RETURNING always yields the upserted row
            last = int(row[0])
            seqs = list(range(last - count + 1, last + 1))
            if encoded:
                with conn.cursor() as cur:
                    cur.executemany(
                        "INSERT INTO chatfold_entries "
                        "(namespace, conversation_id, seq, message, created_at) "
                        "VALUES (%s, %s, %s, %s, %s)",
                        [(ns, cid, s, text, now) for s, text in zip(seqs, encoded, strict=True)],
                    )
                index_rows(conn, ns, cid, list(zip(seqs, messages, strict=True)))
        return seqs

    def entries(
        self, conversation_id: str, *, after: int = 0, limit: int | None = None
    ) -> list[LogEntry]:
        """See :meth:`chatfold.stores.base.Store.entries`."""
        cid = validate_conversation_id(conversation_id)
        check_entries_args(after, limit)
        with self._translate(), self._connection() as conn:
            rows = conn.execute(
                "SELECT seq, message, created_at FROM chatfold_entries "
                "WHERE namespace = %s AND conversation_id = %s AND seq > %s "
                "ORDER BY seq LIMIT %s",
                (self._namespace, cid, after, limit),
            ).fetchall()
            return log_entries(rows)

    def last_seq(self, conversation_id: str) -> int:
        """See :meth:`chatfold.stores.base.Store.last_seq`."""
        cid = validate_conversation_id(conversation_id)
        with self._translate(), self._connection() as conn:
            row = conn.execute(
                "SELECT last_seq FROM chatfold_conversations WHERE namespace = %s AND id = %s",
                (self._namespace, cid),
            ).fetchone()
        return 0 if row is None else int(row[0])

    def entries_at(self, conversation_id: str, seqs: Sequence[int]) -> list[LogEntry]:
        """See :meth:`chatfold.stores.base.Store.entries_at`."""
        cid = validate_conversation_id(conversation_id)
        wanted = check_seqs(seqs)
        if not wanted:
            return []
        with self._translate(), self._connection() as conn:
            rows = conn.execute(
                "SELECT seq, message, created_at FROM chatfold_entries WHERE namespace = %s "
                "AND conversation_id = %s AND seq = ANY(%s::bigint[]) ORDER BY seq",
                (self._namespace, cid, wanted),
            ).fetchall()
            return log_entries(rows)

    def search(
        self, conversation_id: str, terms: Sequence[str], *, through_seq: int, max_df: int
    ) -> Postings:
        """See :meth:`chatfold.stores.base.Store.search`."""
        cid = validate_conversation_id(conversation_id)
        wanted = check_search_args(terms, through_seq, max_df)
        with self._translate(), self._connection() as conn:
            return search(conn, self._namespace, cid, wanted, through_seq=through_seq,
                          max_df=max_df)

    def exists(self, conversation_id: str) -> bool:
        """See :meth:`chatfold.stores.base.Store.exists`."""
        cid = validate_conversation_id(conversation_id)
        with self._translate(), self._connection() as conn:
            row = conn.execute(
                "SELECT 1 FROM chatfold_conversations WHERE namespace = %s AND id = %s",
                (self._namespace, cid),
            ).fetchone()
        return row is not None

    def list_conversations(self) -> list[str]:
        """See :meth:`chatfold.stores.base.Store.list_conversations`."""
        with self._translate(), self._connection() as conn:
            rows = conn.execute(
                "SELECT id FROM chatfold_conversations WHERE namespace = %s",
                (self._namespace,),
            ).fetchall()
        # Sorted here, not by the server: its collation may not be codepoint order.
        return sorted(str(row[0]) for row in rows)

    def delete(self, conversation_id: str) -> None:
        """See :meth:`chatfold.stores.base.Store.delete`."""
        cid = validate_conversation_id(conversation_id)
        ns = self._namespace
        with self._translate(), self._connection() as conn, conn.transaction():
            # The counter row first: it waits for appends and folds in flight, and keeps new
            # ones out until the rest is gone (every writer locks this row first too).
            conn.execute(
                "DELETE FROM chatfold_conversations WHERE namespace = %s AND id = %s", (ns, cid)
            )
            conn.execute(
                "DELETE FROM chatfold_entries WHERE namespace = %s AND conversation_id = %s",
                (ns, cid),
            )
            conn.execute("DELETE FROM chatfold_states WHERE namespace = %s AND id = %s", (ns, cid))
            delete_index(conn, ns, cid)
            conn.execute("DELETE FROM chatfold_leases WHERE namespace = %s AND id = %s", (ns, cid))

    def load_state(self, conversation_id: str) -> FoldState:
        """See :meth:`chatfold.stores.base.Store.load_state`."""
        cid = validate_conversation_id(conversation_id)
        with self._translate(), self._connection() as conn:
            row = conn.execute(
                "SELECT version, state FROM chatfold_states WHERE namespace = %s AND id = %s",
                (self._namespace, cid),
            ).fetchone()
            return FoldState() if row is None else state_from_record(int(row[0]), str(row[1]))

    def save_state(self, conversation_id: str, state: FoldState, *, expected_version: int) -> None:
        """See :meth:`chatfold.stores.base.Store.save_state`."""
        cid = validate_conversation_id(conversation_id)
        check_new_state(state, expected_version)
        ns = self._namespace
        with self._translate(), self._connection() as conn, conn.transaction():
            # KEY SHARE: a concurrent delete waits for this fold; appends do not.
            found = conn.execute(
                "SELECT 1 FROM chatfold_conversations WHERE namespace = %s AND id = %s "
                "FOR KEY SHARE",
                (ns, cid),
            ).fetchone()
            if found is None:
                raise ConversationNotFoundError(cid)
            if expected_version == 0:
                cur = conn.execute(
                    "INSERT INTO chatfold_states (namespace, id, version, state) "
                    "VALUES (%s, %s, %s, %s) ON CONFLICT (namespace, id) DO NOTHING",
                    (ns, cid, state.version, state.to_json()),
                )
            else:
                cur = conn.execute(
                    "UPDATE chatfold_states SET version = %s, state = %s "
                    "WHERE namespace = %s AND id = %s AND version = %s",
                    (state.version, state.to_json(), ns, cid, expected_version),
                )
            if cur.rowcount != 1:
                row = conn.execute(
                    "SELECT version FROM chatfold_states WHERE namespace = %s AND id = %s",
                    (ns, cid),
                ).fetchone()
                raise FoldConflictError(expected_version, 0 if row is None else int(row[0]))

    def acquire_lease(self, conversation_id: str, owner: str, ttl_seconds: float) -> bool:
        """See :meth:`chatfold.stores.base.Store.acquire_lease`."""
        cid = validate_conversation_id(conversation_id)
        check_lease_args(owner, ttl_seconds)
        with self._translate(), self._connection() as conn:
            row = conn.execute(
                "INSERT INTO chatfold_leases (namespace, id, owner, expires_at) "
                "VALUES (%s, %s, %s, clock_timestamp() + make_interval(secs => %s)) "
                "ON CONFLICT (namespace, id) DO UPDATE "
                "SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at "
                "WHERE chatfold_leases.owner = EXCLUDED.owner "
                "OR chatfold_leases.expires_at <= clock_timestamp() "
                "RETURNING 1",
                (self._namespace, cid, owner, float(ttl_seconds)),
            ).fetchone()
        return row is not None

    def release_lease(self, conversation_id: str, owner: str) -> None:
        """See :meth:`chatfold.stores.base.Store.release_lease`."""
        cid = validate_conversation_id(conversation_id)
        check_lease_args(owner)
        with self._translate(), self._connection() as conn:
            conn.execute(
                "DELETE FROM chatfold_leases WHERE namespace = %s AND id = %s AND owner = %s",
                (self._namespace, cid, owner),
            )
