"""The PostgreSQL store's schema: its tables, numbered migrations and where they live.

The schema version lives in the ``chatfold_meta`` table; the numbered :data:`MIGRATIONS` run in
order when a store opens (:func:`migrate`), each in one transaction with its version bump,
under an advisory lock so servers starting together apply each migration once. Tables are
created in the first schema of the ``search_path``; ``schema=`` selects one
(:func:`connection_kwargs`, :func:`create_schema`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from chatfold._errors import InvalidArgumentError, MissingDependencyError, StoreCorruptError
from chatfold.stores._migrations import apply_steps
from chatfold.stores._postgres_search import backfill_search

if TYPE_CHECKING:
    import psycopg

__all__ = [
    "MIGRATIONS",
    "MIGRATION_LOCK_KEY",
    "SCHEMA_VERSION",
    "connection_kwargs",
    "create_schema",
    "import_psycopg",
    "migrate",
]

MIGRATION_LOCK_KEY = 0x63686664_6D696772
"""``pg_advisory_xact_lock`` key held while migrating ("chfdmigr")."""


MIGRATIONS: tuple[tuple[str | Callable[[psycopg.Connection[Any]], None], ...], ...] = (
    # 1: the log, its per-conversation counter, and the fold state.
    (
        """CREATE TABLE chatfold_conversations (
            namespace text NOT NULL,
            id text NOT NULL,
            created_at double precision NOT NULL,
            last_seq bigint NOT NULL DEFAULT 0,
            PRIMARY KEY (namespace, id)
        )""",
        """CREATE TABLE chatfold_entries (
            namespace text NOT NULL,
            conversation_id text NOT NULL,
            seq bigint NOT NULL,
            message text NOT NULL,
            created_at double precision NOT NULL,
            PRIMARY KEY (namespace, conversation_id, seq)
        )""",
        """CREATE TABLE chatfold_states (
            namespace text NOT NULL,
            id text NOT NULL,
            version bigint NOT NULL,
            state text NOT NULL,
            PRIMARY KEY (namespace, id)
        )""",
    ),
    # 2: fold leases, so two servers do not pay for the same summary.
    (
        """CREATE TABLE chatfold_leases (
            namespace text NOT NULL,
            id text NOT NULL,
            owner text NOT NULL,
            expires_at timestamptz NOT NULL,
            PRIMARY KEY (namespace, id)
        )""",
    ),
    # 3: the search index for recall, filled from the entries already stored.
    (
        """CREATE TABLE chatfold_search (
            namespace text NOT NULL,
            conversation_id text NOT NULL,
            seq bigint NOT NULL,
            length integer NOT NULL,
            terms tsvector NOT NULL,
            PRIMARY KEY (namespace, conversation_id, seq)
        )""",
        # fastupdate off: a search never scans a long pending list (appends are small).
        "CREATE INDEX chatfold_search_terms ON chatfold_search USING gin (terms) "
        "WITH (fastupdate = off)",
        """CREATE TABLE chatfold_search_stats (
            namespace text NOT NULL,
            id text NOT NULL,
            docs bigint NOT NULL,
            length bigint NOT NULL,
            PRIMARY KEY (namespace, id)
        )""",
        backfill_search,
    ),
)
"""``MIGRATIONS[i]`` takes the schema from version ``i`` to ``i + 1``."""

SCHEMA_VERSION = len(MIGRATIONS)

_SCHEMA_RE = re.compile(r"[a-z_][a-z0-9_]{0,62}")


def import_psycopg() -> tuple[Any, Any]:
    try:
        import psycopg
        import psycopg_pool
    except ImportError as exc:
        raise MissingDependencyError("PostgresStore", "postgres") from exc
    return psycopg, psycopg_pool


def _current_version(conn: psycopg.Connection[Any]) -> int | None:
    """The schema version, or None when there is no ``chatfold_meta`` table yet."""
    psycopg, _ = import_psycopg()
    try:
        with conn.transaction():
            row = conn.execute(
                "SELECT value FROM chatfold_meta WHERE key = 'schema_version'"
            ).fetchone()
    except psycopg.errors.UndefinedTable:
        return None
    return 0 if row is None else int(row[0])


def migrate(conn: psycopg.Connection[Any], target: int = SCHEMA_VERSION) -> None:
    """Bring the database of ``conn`` to schema version ``target``, one migration at a time.

    Each migration runs in its own transaction with its version bump, under an advisory lock.

    Args:
        conn: An autocommit connection (its ``search_path`` picks the schema).
        target: The version to reach (tests use lower ones to build old databases).

    Raises:
        StoreCorruptError: The database holds a newer chatfold schema.
    """
    if _current_version(conn) == target:
        return  # the common case, without taking the lock
    while True:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK_KEY,))
            conn.execute(
                "CREATE TABLE IF NOT EXISTS chatfold_meta "
                "(key text PRIMARY KEY, value text NOT NULL)"
            )
            row = conn.execute(
                "SELECT value FROM chatfold_meta WHERE key = 'schema_version'"
            ).fetchone()
            version = 0 if row is None else int(row[0])
            if version > SCHEMA_VERSION:
                raise StoreCorruptError(
                    f"PostgreSQL schema version {version} is newer than this chatfold's "
                    f"{SCHEMA_VERSION}: upgrade chatfold"
                )
            if version >= target:
                return
            apply_steps(conn, MIGRATIONS[version])
            conn.execute(
                "INSERT INTO chatfold_meta (key, value) VALUES ('schema_version', %s) "
                "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                (str(version + 1),),
            )


def create_schema(conn: psycopg.Connection[Any], schema: str) -> None:
    """Create ``schema`` when absent, under the migration lock."""
    from psycopg import sql

    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK_KEY,))
        conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))


def connection_kwargs(connect_timeout: float, schema: str | None) -> dict[str, Any]:
    """Keyword arguments for ``psycopg.connect`` used by the store's connections.

    Raises:
        InvalidArgumentError: ``schema`` is not a lowercase SQL identifier.
    """
    kwargs: dict[str, Any] = {
        "autocommit": True,
        # libpq takes whole seconds and treats 1 as 2.
        "connect_timeout": max(1, math.ceil(connect_timeout)),
    }
    if schema is not None:
        if _SCHEMA_RE.fullmatch(schema) is None:
            raise InvalidArgumentError(
                "schema", f"must be a lowercase SQL identifier, got {schema!r}"
            )
        kwargs["options"] = f"-c search_path={schema}"
    return kwargs
