"""Redis store (``redis-py``): low-latency conversations shared by several processes and machines.

Key layout (schema version 2), all keys of a namespace sharing the hash tag ``{namespace}`` so
the Lua scripts below stay legal on Redis Cluster::

    chatfold:{ns}:schema              string  layout version
    chatfold:{ns}:conversations       set     ids of the namespace's conversations
    chatfold:{ns}:log:<id>            list    entry i (0-based) is seq i + 1: {"at": t, "m": msg}
    chatfold:{ns}:state:<id>          hash    version, state (FoldState.to_json())
    chatfold:{ns}:lease:<id>          string  owner, with a PX expiry

Appends, the fold-state compare-and-set and leases are Lua scripts, so each is atomic; an
append's messages get contiguous sequence numbers because one ``RPUSH`` sequence inside one
script runs without interleaving. Conversations are listed from the index set, never by
pattern matching user-chosen names. Commands are never retried by the client: a retried
append whose first attempt reached the server would duplicate messages.

The server must not evict keys (``maxmemory-policy noeviction``, the default), or it may drop
messages. Needs the ``redis`` extra.
"""

from __future__ import annotations

import copy
import json
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Self

from chatfold._errors import (
    ConversationNotFoundError,
    FoldConflictError,
    MissingDependencyError,
    StoreCorruptError,
    StoreError,
    StoreUnavailableError,
)
from chatfold.stores.base import (
    DEFAULT_NAMESPACE,
    BaseStore,
    LogEntry,
    SharedResource,
    check_entries_args,
    check_lease_args,
    check_new_state,
    encode_messages,
    mask_password,
    state_from_record,
    validate_conversation_id,
    validate_namespace,
)
from chatfold.stores.state import FoldState

if TYPE_CHECKING:
    import redis

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

_APPEND = """
local n = redis.call('LLEN', KEYS[2])
redis.call('SADD', KEYS[1], ARGV[1])
for i = 2, #ARGV, 1000 do
  n = redis.call('RPUSH', KEYS[2], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
return n
"""
"""KEYS: index, log. ARGV: id, entries... Returns the log's new length (the last seq).
LLEN comes first: a log key of the wrong type fails the script before it writes anything."""

_SAVE_STATE = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 0 then return -2 end
local actual = tonumber(redis.call('HGET', KEYS[2], 'version') or '0')
if actual ~= tonumber(ARGV[2]) then return actual end
redis.call('HSET', KEYS[2], 'version', ARGV[3], 'state', ARGV[4])
return -1
"""
"""KEYS: index, state. ARGV: id, expected, new version, state JSON.
Returns -1 saved, -2 no such conversation, else the actual version (conflict)."""

_ACQUIRE = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
"""
"""KEYS: lease. ARGV: owner, ttl ms. Returns 1 when held by owner afterwards."""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
"""

_DELETE = """
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
redis.call('SREM', KEYS[1], ARGV[1])
return 0
"""
"""KEYS: index, log, state, lease. ARGV: id."""


def _glob_escape(text: str) -> str:
    return "".join("\\" + ch if ch in "*?[]\\" else ch for ch in text)


class RedisKeys:
    """The keys of one namespace (see the module docstring)."""

    def __init__(self, namespace: str) -> None:
        self.prefix = f"chatfold:{{{validate_namespace(namespace)}}}:"
        self.schema = self.prefix + "schema"
        self.index = self.prefix + "conversations"

    def log(self, conversation_id: str) -> str:
        """The list of log entries."""
        return self.prefix + "log:" + conversation_id

    def state(self, conversation_id: str) -> str:
        """The fold-state hash."""
        return self.prefix + "state:" + conversation_id

    def lease(self, conversation_id: str) -> str:
        """The fold-lease string."""
        return self.prefix + "lease:" + conversation_id

    def log_pattern(self) -> str:
        """SCAN pattern of every log key of the namespace, glob characters escaped."""
        return _glob_escape(self.prefix + "log:") + "*"


def _migrate_to_1(pipe: Any, keys: RedisKeys) -> None:
    """1: log lists and state hashes; conversations were listed with SCAN."""
    pipe.multi()


def _migrate_to_2(pipe: Any, keys: RedisKeys) -> None:
    """2: an index set of conversation ids (no SCAN over a shared keyspace), fold leases."""
    start = len(keys.prefix + "log:")
    ids = [key[start:] for key in pipe.scan_iter(match=keys.log_pattern(), count=1000)]
    pipe.multi()
    if ids:
        pipe.sadd(keys.index, *ids)


MIGRATIONS: tuple[Callable[[Any, RedisKeys], None], ...] = (_migrate_to_1, _migrate_to_2)
"""``MIGRATIONS[i]`` takes a namespace from layout version ``i`` to ``i + 1``. Each reads what it
needs, then calls ``pipe.multi()`` and queues its writes; the runner adds the version bump."""

SCHEMA_VERSION = len(MIGRATIONS)


def migrate(client: redis.Redis, namespace: str, target: int = SCHEMA_VERSION) -> None:
    """Bring ``namespace`` to layout version ``target``, one migration at a time.

    Each migration's writes and its version bump run in one ``MULTI``/``EXEC`` transaction that
    ``WATCH``es the version key, so concurrent openers apply each migration once.

    Args:
        client: A ``redis.Redis`` with ``decode_responses=True``.
        namespace: The namespace to migrate.
        target: The version to reach (tests use lower ones to build old layouts).

    Raises:
        StoreCorruptError: The namespace has a newer layout, or a version key that is not one.
    """
    import redis as redis_lib

    keys = RedisKeys(namespace)
    while True:
        pipe: Any
        with client.pipeline(transaction=True) as pipe:
            try:
                pipe.watch(keys.schema)
                raw = pipe.get(keys.schema)
                try:
                    version = 0 if raw is None else int(raw)
                except ValueError:
                    raise StoreCorruptError(
                        f"Redis key {keys.schema} holds {raw!r}, not a layout version"
                    ) from None
                if version > SCHEMA_VERSION:
                    raise StoreCorruptError(
                        f"Redis namespace {namespace!r} has layout version {version}, newer than "
                        f"this chatfold's {SCHEMA_VERSION}: upgrade chatfold"
                    )
                if version >= target:
                    return
                MIGRATIONS[version](pipe, keys)
                pipe.set(keys.schema, str(version + 1))
                pipe.execute()
            except redis_lib.WatchError:
                continue


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
                self._append = self._client.register_script(_APPEND)
                self._save_state = self._client.register_script(_SAVE_STATE)
                self._acquire = self._client.register_script(_ACQUIRE)
                self._release = self._client.register_script(_RELEASE)
                self._delete = self._client.register_script(_DELETE)
        except BaseException:
            self._client.close()
            raise
        self._shared: SharedResource[Any] = SharedResource(self._client, _close_client)

    def __repr__(self) -> str:
        return f"RedisStore({self._location!r}, namespace={self._namespace!r})"

    def with_namespace(self, namespace: str) -> Self:
        """A store on the same server and connection pool, scoped to ``namespace``.

        Cheap (no new connection): a multi-tenant server can make one per request. Close each;
        the connections close with the last one.
        """
        self._check_open()
        other = copy.copy(self)
        BaseStore.__init__(other, namespace=namespace)
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
        with self._translate():
            keys = [self._keys.index, self._keys.log(cid)]
            last = int(self._append(keys=keys, args=[cid, *items]))
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
                keys=[keys.index, keys.log(cid), keys.state(cid), keys.lease(cid)], args=[cid]
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
