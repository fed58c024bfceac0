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
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from types import TracebackType
from typing import Any, ClassVar, Generic, ParamSpec, Protocol, Self, TypeVar, runtime_checkable

from chatfold._errors import (
    ChatfoldError,
    InvalidArgumentError,
    InvalidConversationIdError,
    InvalidMessageError,
    StoreCorruptError,
    StoreError,
)
from chatfold._threads import STORE_THREADS
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

MAX_ID_LENGTH = 200
"""Longest conversation id or namespace accepted."""

_ID_RE = re.compile(rf"[A-Za-z0-9_:@-][A-Za-z0-9._:@-]{{0,{MAX_ID_LENGTH - 1}}}")

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


def _check_id(value: object, what: str) -> str:
    if not isinstance(value, str) or _ID_RE.fullmatch(value) is None:
        shown = (
            repr(value)
            if not isinstance(value, str) or len(value) <= 60
            else (repr(value[:60]) + "...")
        )
        raise InvalidConversationIdError(
            f"invalid {what} {shown}: use 1-{MAX_ID_LENGTH} characters of A-Z a-z 0-9 _ . : @ -, "
            "not starting with '.'"
        )
    return value


def validate_conversation_id(conversation_id: object) -> str:
    """Check a conversation id and return it.

    Args:
        conversation_id: The id to check.

    Returns:
        The id, unchanged.

    Raises:
        InvalidConversationIdError: It is not a string of 1–200 characters of
            ``A-Z a-z 0-9 _ . : @ -`` not starting with ``.``.
    """
    return _check_id(conversation_id, "conversation id")


def validate_namespace(namespace: object) -> str:
    """Check a namespace (same rules as conversation ids) and return it.

    Args:
        namespace: The namespace to check.

    Returns:
        The namespace, unchanged.

    Raises:
        InvalidConversationIdError: It breaks the conversation-id rules.
    """
    return _check_id(namespace, "namespace")


def encode_message(message: object, index: int | None = None) -> str:
    """Serialise one message for a store: compact JSON, UTF-8 text kept as is.

    Args:
        message: A mapping of JSON-serialisable values.
        index: Position of the message in the batch, for the error.

    Returns:
        The JSON text.

    Raises:
        InvalidMessageError: It is not a mapping or not JSON-serialisable (NaN and infinities
            included: they are not JSON).
    """
    if not isinstance(message, Mapping):
        raise InvalidMessageError(index, f"expected a mapping, got {type(message).__name__}")
    if not isinstance(message, dict):
        message = dict(message)  # json serialises dicts only
    try:
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidMessageError(index, f"not JSON-serialisable: {exc}") from exc
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # Lone surrogates cannot be stored as UTF-8 text; \\u escapes keep them exactly.
        text = json.dumps(message, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text


def encode_messages(messages: object) -> list[str]:
    """Serialise the batch of :meth:`Store.append` with :func:`encode_message`.

    Raises:
        InvalidMessageError: ``messages`` is not a list (or tuple) of messages, or one of them
            is not a JSON-serialisable mapping; nothing is appended.
    """
    if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Sequence):
        raise InvalidMessageError(
            None, f"expected a list of messages, got {type(messages).__name__}"
        )
    return [encode_message(m, i) for i, m in enumerate(messages)]


class DamagedRecordError(ValueError):
    """A stored value parsed, but is not what chatfold writes. :meth:`BaseStore._translate`
    turns it into :class:`~chatfold.StoreCorruptError` naming the store."""


def decode_message(text: str) -> dict[str, Any]:
    """Parse what :func:`encode_message` wrote.

    Args:
        text: JSON text of one message.

    Returns:
        The message.

    Raises:
        json.JSONDecodeError: The text is not JSON (stores translate it to StoreCorruptError).
        DamagedRecordError: It is JSON but not an object (likewise).
    """
    value = json.loads(text)
    if not isinstance(value, dict):
        kind = type(value).__name__
        raise DamagedRecordError(f"a stored message is a JSON {kind}, not an object")
    return value


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


_STATE_TYPES: dict[str, tuple[type, ...]] = {
    "summary": (str,),
    "covered_through": (int,),
    "version": (int,),
    "language": (str, type(None)),
    "pinned_seqs": (tuple,),
    "folds": (int,),
    "summarizer_calls": (int,),
    "last_fold_seconds": (int, float, type(None)),
}


def state_from_record(version: int, text: str) -> FoldState:
    """Rebuild a stored fold state from its version column and ``FoldState.to_json()`` text.

    The version column is what the compare-and-set checks, so it wins over the JSON's copy.

    Raises:
        json.JSONDecodeError: The text is not JSON (stores translate it to StoreCorruptError).
        DamagedRecordError: It is JSON but not a fold state (likewise).
    """
    try:
        state = FoldState.from_json(text)
    except (AttributeError, TypeError) as exc:  # not an object, or a list where a number goes
        raise DamagedRecordError(f"the stored fold state is not a chatfold state ({exc})") from exc
    for name, types in _STATE_TYPES.items():
        value: Any = getattr(state, name)
        wrong = not isinstance(value, types) or isinstance(value, bool)
        if not wrong and name == "pinned_seqs":
            wrong = not all(_is_int(x) for x in value)
        if wrong:
            raise DamagedRecordError(
                f"the stored fold state's {name} is {value!r}, not a {types[0].__name__}"
            )
    return state if state.version == version else replace(state, version=version)


def check_entries_args(after: int, limit: int | None) -> None:
    """Validate the ``after`` and ``limit`` arguments of :meth:`Store.entries`.

    Raises:
        InvalidArgumentError: ``after`` or ``limit`` is negative or not an integer.
    """
    if not _is_int(after) or after < 0:
        raise InvalidArgumentError("after", f"must be an integer >= 0, got {after!r}")
    if limit is not None and (not _is_int(limit) or limit < 0):
        raise InvalidArgumentError("limit", f"must be an integer >= 0 or None, got {limit!r}")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_new_state(state: FoldState, expected_version: int) -> None:
    """Validate the arguments of :meth:`Store.save_state` before any I/O.

    Raises:
        InvalidArgumentError: ``expected_version`` is negative or ``state.version`` is not
            ``expected_version + 1``.
    """
    if not _is_int(expected_version) or expected_version < 0:
        raise InvalidArgumentError(
            "expected_version", f"must be an integer >= 0, got {expected_version!r}"
        )
    if not isinstance(state, FoldState):
        raise InvalidArgumentError("state", f"must be a FoldState, got {type(state).__name__}")
    if state.version != expected_version + 1:
        raise InvalidArgumentError(
            "state.version",
            f"must be expected_version + 1 = {expected_version + 1}, got {state.version}",
        )


def check_lease_args(owner: str, ttl_seconds: float | None = None) -> None:
    """Validate a lease owner and time-to-live.

    Raises:
        InvalidArgumentError: The owner is not a non-empty string or the ttl is not a
            positive number.
    """
    if not isinstance(owner, str) or not owner:
        raise InvalidArgumentError("owner", f"must be a non-empty string, got {owner!r}")
    if ttl_seconds is not None and (
        not isinstance(ttl_seconds, (int, float)) or isinstance(ttl_seconds, bool)
        or not 0 < ttl_seconds < float("inf")
    ):
        raise InvalidArgumentError(
            "ttl_seconds", f"must be a positive number of seconds, got {ttl_seconds!r}"
        )


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

        It shares this store's connection pool where the backend has one (the pool closes
        with the last store using it), and must be closed on its own.
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


class BaseStore:
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

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

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

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
