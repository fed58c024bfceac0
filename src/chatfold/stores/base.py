"""The store protocol: where a conversation's log, fold state and fold lease live.

A conversation is an append-only **log** of raw messages, each with a sequence number
(1, 2, 3, ... without gaps), plus a **fold state** (:class:`~chatfold.fold.FoldState`: the
summary and the sequence number it covers through). A fold reads the log, summarizes the next
run of entries and saves the new state with a compare-and-set on ``FoldState.version``.
Appends never touch the fold state, so writers and folds never conflict and nothing is lost.
A **lease** (owner + expiry) keeps a second process from starting the same fold meanwhile.

Every store is scoped to a **namespace** (a tenant): it can never read, list, fold or delete
the conversations of another namespace. Conversation ids and namespaces are 1–200 characters
of ``A-Z a-z 0-9 _ . : @ -`` and do not start with ``.``.

Every store offers the sync methods of :class:`Store` and their async twins of
:class:`AsyncStore` (``aappend``, ``aentries``, ...). Stores built on blocking client
libraries get the twins from :class:`BaseStore`, which runs the sync method in a worker thread.

Where each part of a store lives:

* ``base.py``: the contract (:class:`Store`, :class:`AsyncStore`, :class:`LogEntry`) and
  :class:`BaseStore`; ``_records.py``: ids, messages and fold states checked and serialised.
* ``memory.py``, ``sqlite.py``, ``postgres.py``, ``redis.py``: each backend's store class.
* ``_sqlite_file.py``, ``_postgres_schema.py``, ``_redis_schema.py``: each backend's schema
  and numbered migrations (the Redis store's Lua scripts: ``_redis_scripts.py``).
* ``_sqlite_search.py``, ``_postgres_search.py``: each SQL backend's search index for recall
  (Redis keeps its index in its append script); ``_search.py`` the parts they share.
* ``_migrations.py``: the SQL migrations' step runner; ``_server.py``: a server store's
  shared pool and its masked location.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import TracebackType
from typing import Any, ClassVar, ParamSpec, Protocol, Self, TypeVar, runtime_checkable

from chatfold._closing import Closing
from chatfold._errors import ChatfoldError, StoreCorruptError, StoreError
from chatfold._threads import STORE_THREADS
from chatfold.recall import Postings

# The checks and serialisation every backend shares live in _records.py, the server stores'
# plumbing in _server.py; the names the stores imported from here are re-exported.
from chatfold.stores._records import (
    DamagedRecordError,
    decode_message,
    encode_message,
    validate_conversation_id,
    validate_namespace,
)
from chatfold.stores._records import check_entries_args as check_entries_args
from chatfold.stores._records import check_lease_args as check_lease_args
from chatfold.stores._records import check_new_state as check_new_state
from chatfold.stores._records import check_seqs as check_seqs
from chatfold.stores._records import encode_messages as encode_messages
from chatfold.stores._records import state_from_record as state_from_record
from chatfold.stores._server import SharedResource as SharedResource
from chatfold.stores._server import mask_password
from chatfold.stores.state import FoldState

__all__ = [
    "DEFAULT_NAMESPACE",
    "AsyncStore",
    "BaseStore",
    "LogEntry",
    "Store",
    "decode_message",
    "encode_message",
    "mask_password",
    "validate_conversation_id",
    "validate_namespace",
]

DEFAULT_NAMESPACE = "default"
"""The namespace of a store created without one."""

_P = ParamSpec("_P")
_T = TypeVar("_T")


@dataclass(frozen=True)
class LogEntry:
    """One message of a conversation's log."""

    seq: int
    """Sequence number: 1 for the first message of the conversation, then +1, without gaps."""
    message: dict[str, Any]
    """The message as appended (after a JSON round trip: tuples come back as lists)."""
    created_at: float
    """When it was appended, in seconds since the epoch."""


def log_entries(rows: Iterable[Sequence[Any]]) -> list[LogEntry]:
    """The entries of ``(seq, message JSON, created_at)`` rows, as the SQL stores read them.

    Raises:
        json.JSONDecodeError, DamagedRecordError: A stored message is not a JSON object (the
            stores' error boundary reports it as StoreCorruptError).
    """
    return [
        LogEntry(seq=int(seq), message=decode_message(text), created_at=float(at))
        for seq, text, at in rows
    ]


@runtime_checkable
class Store(Protocol):
    """A conversation store (sync API). Every method is safe to call from several threads.

    Capabilities are class attributes, so callers can check them without an instance.
    """

    name: ClassVar[str]
    """Registry name ("memory", "sqlite", "postgres", "redis")."""
    persistent: ClassVar[bool]
    """Data survives the process."""
    shared_across_processes: ClassVar[bool]
    """Several processes on one machine can share conversations."""
    shared_across_machines: ClassVar[bool]
    """Several machines can share conversations."""
    schema_version: ClassVar[int]
    """Latest schema / key-layout version this code writes (0: no schema)."""

    @property
    def namespace(self) -> str:
        """The namespace this store object reads and writes."""
        ...

    def append(self, conversation_id: str, messages: Sequence[Mapping[str, Any]]) -> list[int]:
        """Append messages atomically, creating the conversation if absent.

        The messages get contiguous sequence numbers after the current last one, even under
        concurrent appends from other threads or processes. An empty list only creates the
        conversation.

        Args:
            conversation_id: The conversation.
            messages: Raw JSON-serialisable messages, stored exactly as given.

        Returns:
            Their sequence numbers, in order.

        Raises:
            InvalidConversationIdError: The id is invalid.
            InvalidMessageError: A message is not a JSON-serialisable mapping; nothing appended.
            StoreError: The store failed; nothing appended.
        """
        ...

    def entries(
        self, conversation_id: str, *, after: int = 0, limit: int | None = None
    ) -> list[LogEntry]:
        """Log entries with ``seq > after``, oldest first, at most ``limit`` of them.

        Returns ``[]`` for a conversation that does not exist.
        """
        ...

    def last_seq(self, conversation_id: str) -> int:
        """Sequence number of the last entry; 0 when the conversation is empty or absent."""
        ...

    def entries_at(self, conversation_id: str, seqs: Sequence[int]) -> list[LogEntry]:
        """The log entries with these sequence numbers (those that exist), ascending by seq.

        Raises:
            InvalidArgumentError: A seq is not a positive integer.
        """
        ...

    def search(
        self, conversation_id: str, terms: Sequence[str], *, through_seq: int, max_df: int
    ) -> Postings:
        """Look ``terms`` up in the conversation's search index (built at append time).

        Args:
            conversation_id: The conversation.
            terms: Distinct terms of :func:`chatfold.recall.terms` (duplicates are ignored).
            through_seq: Only entries with ``seq <= through_seq`` are listed.
            max_df: A term held by more than this many of those entries is put in
                ``common`` instead of being listed (this bounds the work).

        Returns:
            The postings (see :class:`chatfold.recall.Postings`); all empty for a
            conversation that does not exist.

        Raises:
            InvalidArgumentError: ``terms`` is not a sequence of non-empty strings,
                ``through_seq < 0`` or ``max_df < 1``.
        """
        ...

    def exists(self, conversation_id: str) -> bool:
        """Whether the conversation exists in this namespace."""
        ...

    def list_conversations(self) -> list[str]:
        """Ids of this namespace's conversations, sorted."""
        ...

    def delete(self, conversation_id: str) -> None:
        """Remove the conversation's log, fold state and lease. No error when absent."""
        ...

    def load_state(self, conversation_id: str) -> FoldState:
        """The stored fold state, or ``FoldState()`` (version 0) when none is stored."""
        ...

    def save_state(self, conversation_id: str, state: FoldState, *, expected_version: int) -> None:
        """Compare-and-set the fold state.

        Args:
            conversation_id: The conversation.
            state: The new state; ``state.version`` must be ``expected_version + 1``.
            expected_version: The version the fold started from (0 when none is stored).

        Raises:
            FoldConflictError: The stored version is not ``expected_version``.
            ConversationNotFoundError: The conversation does not exist (was deleted).
            InvalidArgumentError: ``state.version != expected_version + 1``.
        """
        ...

    def acquire_lease(self, conversation_id: str, owner: str, ttl_seconds: float) -> bool:
        """Take the conversation's fold lease for ``ttl_seconds``.

        Returns True when the lease was free, expired or already held by ``owner`` (then it
        is renewed), False when another owner holds it.

        Expiry follows the holder's ``ttl_seconds`` on a clock every process agrees on: the
        server's (PostgreSQL, Redis), this process's (memory). SQLite has no shared clock: a
        process there sees another's lease expire once it has watched it unchanged for the
        holder's TTL, so the first attempt on a stale lease returns False.
        """
        ...

    def release_lease(self, conversation_id: str, owner: str) -> None:
        """Release the fold lease if ``owner`` holds it; otherwise do nothing."""
        ...

    def with_namespace(self, namespace: str) -> Self:
        """A store object on the same database, file or server, scoped to ``namespace``.

        It shares this store's connection pool where the backend has one (PostgreSQL,
        Redis: no new connection, so a multi-tenant server can make one per request; the pool
        closes with the last store using it), and must be closed on its own.
        """
        ...

    def close(self) -> None:
        """Release connections and files. Idempotent; the store is unusable afterwards."""
        ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


@runtime_checkable
class AsyncStore(Protocol):
    """The async twins of :class:`Store`: same arguments, results and errors."""

    async def aappend(
        self, conversation_id: str, messages: Sequence[Mapping[str, Any]]
    ) -> list[int]: ...

    async def aentries(
        self, conversation_id: str, *, after: int = 0, limit: int | None = None
    ) -> list[LogEntry]: ...

    async def alast_seq(self, conversation_id: str) -> int: ...

    async def aentries_at(
        self, conversation_id: str, seqs: Sequence[int]
    ) -> list[LogEntry]: ...

    async def asearch(
        self, conversation_id: str, terms: Sequence[str], *, through_seq: int, max_df: int
    ) -> Postings: ...

    async def aexists(self, conversation_id: str) -> bool: ...

    async def alist_conversations(self) -> list[str]: ...

    async def adelete(self, conversation_id: str) -> None: ...

    async def aload_state(self, conversation_id: str) -> FoldState: ...

    async def asave_state(
        self, conversation_id: str, state: FoldState, *, expected_version: int
    ) -> None: ...

    async def aacquire_lease(
        self, conversation_id: str, owner: str, ttl_seconds: float
    ) -> bool: ...

    async def arelease_lease(self, conversation_id: str, owner: str) -> None: ...

    async def aclose(self) -> None: ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


class BaseStore(Closing):
    """Shared plumbing of the built-in stores: namespace, closing, context managers, and the
    async twins, which run the sync method in a thread of chatfold's bounded store pool (not
    asyncio's default executor, so hung summarizer threads or the application's own blocking
    work never hold them up).

    Subclasses implement the sync methods of :class:`Store`. A store whose sync methods never
    block (``MemoryStore``) sets ``blocking = False`` and its twins call them directly.
    """

    name: ClassVar[str] = "base"
    persistent: ClassVar[bool] = False
    shared_across_processes: ClassVar[bool] = False
    shared_across_machines: ClassVar[bool] = False
    schema_version: ClassVar[int] = 0
    blocking: ClassVar[bool] = True
    """Sync methods do I/O: the async twins run them in a worker thread."""

    def __init__(self, *, namespace: str = DEFAULT_NAMESPACE) -> None:
        self._namespace = validate_namespace(namespace)
        self._closed = False

    @property
    def namespace(self) -> str:
        """The namespace this store object reads and writes."""
        return self._namespace

    def _scoped_copy(self, namespace: str) -> Self:
        """A shallow copy of this open store object scoped to ``namespace``, for
        :meth:`with_namespace` (the backend then takes its own reference to what it shares)."""
        self._check_open()
        other = copy.copy(self)
        BaseStore.__init__(other, namespace=namespace)
        return other

    def _store_error(self, exc: Exception) -> StoreError | None:
        """The chatfold error for a driver exception (``None``: not the driver's)."""
        return None

    @contextmanager
    def _translate(self) -> Iterator[None]:
        """The one boundary where driver exceptions become chatfold's ``StoreError``s."""
        try:
            yield
        except ChatfoldError:
            raise
        except DamagedRecordError as exc:
            raise StoreCorruptError(f"{self!r}: {exc}") from exc
        except Exception as exc:
            error = self._store_error(exc)
            if error is None:
                raise
            raise error from exc

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._closed

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError(f"this {type(self).__name__} is closed; create a new one")

    def close(self) -> None:
        """Mark the store closed; subclasses release their resources too."""
        self._closed = True

    # -- async twins -----------------------------------------------------------------------

    async def _run(self, fn: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
        if not self.blocking:
            return fn(*args, **kwargs)
        return await STORE_THREADS.run(fn, *args, **kwargs)

    # The sync methods below are abstract: each backend implements every one of them, and
    # BaseStore alone stores nothing (the contract suite runs against every backend).

    def append(self, conversation_id: str, messages: Sequence[Mapping[str, Any]]) -> list[int]:
        raise NotImplementedError

    def entries(
        self, conversation_id: str, *, after: int = 0, limit: int | None = None
    ) -> list[LogEntry]:
        raise NotImplementedError

    def last_seq(self, conversation_id: str) -> int:
        raise NotImplementedError

    def entries_at(self, conversation_id: str, seqs: Sequence[int]) -> list[LogEntry]:
        raise NotImplementedError

    def search(
        self, conversation_id: str, terms: Sequence[str], *, through_seq: int, max_df: int
    ) -> Postings:
        raise NotImplementedError

    def exists(self, conversation_id: str) -> bool:
        raise NotImplementedError

    def list_conversations(self) -> list[str]:
        raise NotImplementedError

    def delete(self, conversation_id: str) -> None:
        raise NotImplementedError

    def load_state(self, conversation_id: str) -> FoldState:
        raise NotImplementedError

    def save_state(self, conversation_id: str, state: FoldState, *, expected_version: int) -> None:
        raise NotImplementedError

    def acquire_lease(self, conversation_id: str, owner: str, ttl_seconds: float) -> bool:
        raise NotImplementedError

    def release_lease(self, conversation_id: str, owner: str) -> None:
        raise NotImplementedError

    def with_namespace(self, namespace: str) -> Self:
        raise NotImplementedError

    async def aappend(
        self, conversation_id: str, messages: Sequence[Mapping[str, Any]]
    ) -> list[int]:
        """Async twin of :meth:`Store.append`."""
        return await self._run(self.append, conversation_id, messages)

    async def aentries(
        self, conversation_id: str, *, after: int = 0, limit: int | None = None
    ) -> list[LogEntry]:
        """Async twin of :meth:`Store.entries`."""
        return await self._run(self.entries, conversation_id, after=after, limit=limit)

    async def alast_seq(self, conversation_id: str) -> int:
        """Async twin of :meth:`Store.last_seq`."""
        return await self._run(self.last_seq, conversation_id)

    async def aentries_at(self, conversation_id: str, seqs: Sequence[int]) -> list[LogEntry]:
        """Async twin of :meth:`Store.entries_at`."""
        return await self._run(self.entries_at, conversation_id, seqs)

    async def asearch(
        self, conversation_id: str, terms: Sequence[str], *, through_seq: int, max_df: int
    ) -> Postings:
        """Async twin of :meth:`Store.search`."""
        return await self._run(self.search, conversation_id, terms, through_seq=through_seq,
                               max_df=max_df)

    async def aexists(self, conversation_id: str) -> bool:
        """Async twin of :meth:`Store.exists`."""
        return await self._run(self.exists, conversation_id)

    async def alist_conversations(self) -> list[str]:
        """Async twin of :meth:`Store.list_conversations`."""
        return await self._run(self.list_conversations)

    async def adelete(self, conversation_id: str) -> None:
        """Async twin of :meth:`Store.delete`."""
        await self._run(self.delete, conversation_id)

    async def aload_state(self, conversation_id: str) -> FoldState:
        """Async twin of :meth:`Store.load_state`."""
        return await self._run(self.load_state, conversation_id)

    async def asave_state(
        self, conversation_id: str, state: FoldState, *, expected_version: int
    ) -> None:
        """Async twin of :meth:`Store.save_state`."""
        await self._run(self.save_state, conversation_id, state, expected_version=expected_version)

    async def aacquire_lease(self, conversation_id: str, owner: str, ttl_seconds: float) -> bool:
        """Async twin of :meth:`Store.acquire_lease`."""
        return await self._run(self.acquire_lease, conversation_id, owner, ttl_seconds)

    async def arelease_lease(self, conversation_id: str, owner: str) -> None:
        """Async twin of :meth:`Store.release_lease`."""
        await self._run(self.release_lease, conversation_id, owner)

    async def aclose(self) -> None:
        """Async twin of :meth:`Store.close`."""
        await self._run(self.close)
