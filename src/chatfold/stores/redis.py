"""Redis store (``redis-py``): low-latency conversations shared by several processes and machines.

Key layout (schema version 3), all keys of a namespace sharing the hash tag ``{namespace}`` so
the Lua scripts (``_redis_scripts.py``) stay legal on Redis Cluster::

    chatfold:{ns}:schema              string  layout version
    chatfold:{ns}:conversations       set     ids of the namespace's conversations
    chatfold:{ns}:log:<id>            list    entry i (0-based) is seq i + 1: {"at": t, "m": msg}
    chatfold:{ns}:state:<id>          hash    version, state (FoldState.to_json())
    chatfold:{ns}:lease:<id>          string  owner, with a PX expiry
    chatfold:{ns}:post:<id>:<term>    string  search: seqs holding the term, 10 digits each
    chatfold:{ns}:doclen:<id>         string  search: each entry's length, 5 digits each
    chatfold:{ns}:terms:<id>          set     search: the terms with a posting key
    chatfold:{ns}:search:<id>         hash    search: docs, length (sums for BM25)

Stock Redis has no full-text search, so the store keeps its own inverted index, written by
the append script itself: an entry and its index entries land atomically, in seq order, so
any number of writers keep posting lists sorted and in step with the log. The per-term keys
are built inside the scripts from a prefix (they share the namespace's hash slot).

Appends, the fold-state compare-and-set and leases are Lua scripts, so each is atomic; an
append's messages get contiguous sequence numbers because one ``RPUSH`` sequence inside one
script runs without interleaving. Conversations are listed from the index set, never by
pattern matching user-chosen names. Commands are never retried by the client: a retried
append whose first attempt reached the server would duplicate messages.

The server must not evict keys (``maxmemory-policy noeviction``, the default), or it may drop
messages. Needs the ``redis`` extra. The key names and the layout's migrations are in
``_redis_schema.py``.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Self

from chatfold._errors import (
    ConversationNotFoundError,
    FoldConflictError,
    MissingDependencyError,
    StoreCorruptError,
    StoreError,
    StoreUnavailableError,
)
from chatfold.recall import Postings, check_search_args, message_terms
from chatfold.stores import _redis_scripts as scripts
from chatfold.stores._records import (
    check_entries_args,
    check_lease_args,
    check_new_state,
    check_seqs,
    encode_messages,
    state_from_record,
    validate_conversation_id,
)
from chatfold.stores._redis_schema import MIGRATIONS, SCHEMA_VERSION, RedisKeys, migrate
from chatfold.stores._server import SharedResource, mask_password
from chatfold.stores.base import DEFAULT_NAMESPACE, BaseStore, LogEntry
from chatfold.stores.state import FoldState

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_SOCKET_TIMEOUT",
    "DEFAULT_URL",
    "MIGRATIONS",
    "RedisKeys",
    "RedisStore",
    "migrate",
]

DEFAULT_URL = "redis://localhost:6379/0"
"""The server used when no URL is given."""

DEFAULT_CONNECT_TIMEOUT = 5.0
"""Seconds to wait for the server when connecting."""

DEFAULT_SOCKET_TIMEOUT = 30.0
"""Seconds to wait for a reply."""


def _close_client(client: Any) -> None:
    client.close()


def _import() -> Any:
    try:
        import redis
    except ImportError as exc:
        raise MissingDependencyError("RedisStore", "redis") from exc
    return redis


def translate_error(exc: BaseException, location: str) -> StoreError | None:
    """The chatfold error for a ``redis`` or JSON exception, or None.

    Args:
        exc: The exception caught.
        location: The server URL, password already masked, named in the message.

    Returns:
        The error to raise ``from exc``, or None when ``exc`` is not a library error.
    """
    if isinstance(exc, json.JSONDecodeError):
        return StoreCorruptError(f"Redis store {location}: a stored value is not JSON ({exc})")
    redis_lib = sys.modules.get("redis")
    if redis_lib is None or not type(exc).__module__.startswith("redis"):
        return None
    errors = redis_lib.exceptions
    text = mask_password(str(exc))
    if isinstance(exc, errors.ConnectionError | errors.TimeoutError | errors.ReadOnlyError):
        return StoreUnavailableError(f"Redis server {location} is unavailable: {text}")
    if isinstance(exc, errors.AuthenticationWrongNumberOfArgsError):
        return StoreUnavailableError(f"Redis server {location} refused the login: {text}")
    if isinstance(exc, errors.ResponseError) and text.startswith("WRONGTYPE"):
        return StoreCorruptError(
            f"Redis store {location}: a chatfold key holds another type of value ({text})"
        )
    return StoreError(f"Redis store {location} failed: {text}")


class RedisStore(BaseStore):
    """Conversations in Redis, shared by every process and machine using the server.

    Args:
        url: ``redis://[:password@]host:port/db`` (or ``rediss://``, ``unix://``).
        namespace: Tenant scope; see :mod:`chatfold.stores.base`.
        connect_timeout: Seconds to wait for the server when connecting.
        socket_timeout: Seconds to wait for a reply.

    Raises:
        MissingDependencyError: The ``redis`` extra is not installed.
        StoreUnavailableError: The server cannot be reached or refuses the login.
        StoreCorruptError: The namespace has a newer layout.
    """

    name: ClassVar[str] = "redis"
    persistent: ClassVar[bool] = True
    shared_across_processes: ClassVar[bool] = True
    shared_across_machines: ClassVar[bool] = True
    schema_version: ClassVar[int] = SCHEMA_VERSION

    def __init__(
        self,
        url: str = DEFAULT_URL,
        *,
        namespace: str = DEFAULT_NAMESPACE,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        socket_timeout: float = DEFAULT_SOCKET_TIMEOUT,
    ) -> None:
        super().__init__(namespace=namespace)
        redis_lib = _import()
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        self._url = url
        self._location = mask_password(url)
        self._connect_timeout = connect_timeout
        self._socket_timeout = socket_timeout
        self._keys = RedisKeys(self._namespace)
        # Any: with decode_responses=True replies are str, which redis-py's stubs cannot express.
        self._client: Any = redis_lib.Redis.from_url(
            url,
            decode_responses=True,
            socket_connect_timeout=connect_timeout,
            socket_timeout=socket_timeout,
            # Never retry: a retried append whose first attempt ran would duplicate messages.
            retry=Retry(NoBackoff(), 0),
            health_check_interval=30,
        )
        try:
            with self._translate():
                self._client.ping()
                migrate(self._client, self._namespace)
                self._append = self._client.register_script(scripts.APPEND)
                self._save_state = self._client.register_script(scripts.SAVE_STATE)
                self._acquire = self._client.register_script(scripts.ACQUIRE)
                self._release = self._client.register_script(scripts.RELEASE)
                self._delete = self._client.register_script(scripts.DELETE)
                self._search = self._client.register_script(scripts.SEARCH)
        except BaseException:
            self._client.close()
            raise
        self._shared: SharedResource[Any] = SharedResource(self._client, _close_client)

    def __repr__(self) -> str:
        return f"RedisStore({self._location!r}, namespace={self._namespace!r})"

    def with_namespace(self, namespace: str) -> Self:
        """See :meth:`chatfold.stores.base.Store.with_namespace` (same server and connections;
        the namespace's layout is migrated first)."""
        other = self._scoped_copy(namespace)
        other._keys = RedisKeys(namespace)
        with self._translate():
            migrate(self._client, namespace)
        other._shared = self._shared.acquire()
        return other

    def _store_error(self, exc: Exception) -> StoreError | None:
        return translate_error(exc, self._location)

    def close(self) -> None:
        """Release the connections (closed with their last store). Idempotent."""
        if not self.closed:
            super().close()
            self._shared.release()

    def _id(self, conversation_id: str) -> str:
        self._check_open()
        return validate_conversation_id(conversation_id)

    def append(self, conversation_id: str, messages: Sequence[Mapping[str, Any]]) -> list[int]:
        """See :meth:`chatfold.stores.base.Store.append`."""
        cid = self._id(conversation_id)
        encoded = encode_messages(messages)
        now = repr(time.time())
        items = ['{"at":' + now + ',"m":' + text + "}" for text in encoded]
        indexed: list[str | int] = []
        for message in messages:
            found = message_terms(message)
            indexed += [len(found), *found]
        k = self._keys
        with self._translate():
            keys = [k.index, k.log(cid), k.doclen(cid), k.termset(cid), k.search_stats(cid)]
            args = [cid, k.postings(cid), len(items), *items, *indexed]
            last = int(self._append(keys=keys, args=args))
        return list(range(last - len(items) + 1, last + 1))

    def entries(
        self, conversation_id: str, *, after: int = 0, limit: int | None = None
    ) -> list[LogEntry]:
        """See :meth:`chatfold.stores.base.Store.entries`."""
        cid = self._id(conversation_id)
        check_entries_args(after, limit)
        if limit == 0:
            return []
        stop = -1 if limit is None else after + limit - 1
        with self._translate():
            items = self._client.lrange(self._keys.log(cid), after, stop)
        return [self._entry(after + 1 + i, item) for i, item in enumerate(items)]

    def _entry(self, seq: int, item: str) -> LogEntry:
        try:
            data = json.loads(item)
            if not isinstance(data["m"], dict):
                raise TypeError(f"its message is a JSON {type(data['m']).__name__}")
            return LogEntry(seq=seq, message=data["m"], created_at=float(data["at"]))
        except (ValueError, KeyError, TypeError) as exc:
            raise StoreCorruptError(
                f"Redis store {self._location}: log entry {seq} is not a chatfold entry ({exc})"
            ) from exc

    def entries_at(self, conversation_id: str, seqs: Sequence[int]) -> list[LogEntry]:
        """See :meth:`chatfold.stores.base.Store.entries_at`."""
        cid = self._id(conversation_id)
        wanted = check_seqs(seqs)
        if not wanted:
            return []
        key = self._keys.log(cid)
        with self._translate():
            pipe = self._client.pipeline(transaction=False)
            for s in wanted:
                pipe.lindex(key, s - 1)
            items = pipe.execute()
        return [self._entry(s, item) for s, item in zip(wanted, items, strict=True)
                if item is not None]

    def search(
        self, conversation_id: str, terms: Sequence[str], *, through_seq: int, max_df: int
    ) -> Postings:
        """See :meth:`chatfold.stores.base.Store.search`."""
        cid = self._id(conversation_id)
        wanted = check_search_args(terms, through_seq, max_df)
        k = self._keys
        with self._translate():
            reply = self._search(
                keys=[k.doclen(cid), k.search_stats(cid)],
                args=[k.postings(cid), through_seq, max_df, *wanted],
            )
        try:
            hits: dict[str, tuple[tuple[int, int], ...]] = {}
            common: set[str] = set()
            for i, term in enumerate(wanted):
                seqs, lens = reply[2 + 2 * i], reply[3 + 2 * i]
                if seqs == "c":
                    common.add(term)
                    continue
                hits[term] = tuple(
                    (int(seqs[j * 10 : j * 10 + 10]), int(lens[j * 5 : j * 5 + 5] or 0))
                    for j in range(len(seqs) // 10)
                )
            return Postings(docs=int(reply[0]), total_length=int(reply[1]), hits=hits,
                            common=frozenset(common))
        except (ValueError, IndexError) as exc:
            raise StoreCorruptError(
                f"Redis store {self._location}: the search index of {cid!r} is damaged ({exc})"
            ) from exc

    def last_seq(self, conversation_id: str) -> int:
        """See :meth:`chatfold.stores.base.Store.last_seq`."""
        cid = self._id(conversation_id)
        with self._translate():
            return int(self._client.llen(self._keys.log(cid)))

    def exists(self, conversation_id: str) -> bool:
        """See :meth:`chatfold.stores.base.Store.exists`."""
        cid = self._id(conversation_id)
        with self._translate():
            return bool(self._client.sismember(self._keys.index, cid))

    def list_conversations(self) -> list[str]:
        """See :meth:`chatfold.stores.base.Store.list_conversations`."""
        self._check_open()
        with self._translate():
            return sorted(self._client.smembers(self._keys.index))

    def delete(self, conversation_id: str) -> None:
        """See :meth:`chatfold.stores.base.Store.delete`."""
        cid = self._id(conversation_id)
        keys = self._keys
        with self._translate():
            self._delete(
                keys=[keys.index, keys.log(cid), keys.state(cid), keys.lease(cid),
                      keys.doclen(cid), keys.termset(cid), keys.search_stats(cid)],
                args=[cid, keys.postings(cid)],
            )

    def load_state(self, conversation_id: str) -> FoldState:
        """See :meth:`chatfold.stores.base.Store.load_state`."""
        cid = self._id(conversation_id)
        with self._translate():
            version, text = self._client.hmget(self._keys.state(cid), ["version", "state"])
            if version is None or text is None:
                return FoldState()
            try:
                number = int(version)
            except ValueError:
                raise StoreCorruptError(
                    f"Redis store {self._location}: fold-state version {version!r} of "
                    f"{cid!r} is not a number"
                ) from None
            return state_from_record(number, text)

    def save_state(self, conversation_id: str, state: FoldState, *, expected_version: int) -> None:
        """See :meth:`chatfold.stores.base.Store.save_state`."""
        cid = self._id(conversation_id)
        check_new_state(state, expected_version)
        with self._translate():
            outcome = int(
                self._save_state(
                    keys=[self._keys.index, self._keys.state(cid)],
                    args=[cid, expected_version, state.version, state.to_json()],
                )
            )
        if outcome == -2:
            raise ConversationNotFoundError(cid)
        if outcome != -1:
            raise FoldConflictError(expected_version, outcome)

    def acquire_lease(self, conversation_id: str, owner: str, ttl_seconds: float) -> bool:
        """See :meth:`chatfold.stores.base.Store.acquire_lease`."""
        cid = self._id(conversation_id)
        check_lease_args(owner, ttl_seconds)
        ttl_ms = max(1, round(ttl_seconds * 1000))
        with self._translate():
            return bool(self._acquire(keys=[self._keys.lease(cid)], args=[owner, ttl_ms]))

    def release_lease(self, conversation_id: str, owner: str) -> None:
        """See :meth:`chatfold.stores.base.Store.release_lease`."""
        cid = self._id(conversation_id)
        check_lease_args(owner)
        with self._translate():
            self._release(keys=[self._keys.lease(cid)], args=[owner])
