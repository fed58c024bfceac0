"""Redis store (``redis-py``): low-latency conversations shared by several processes and machines.

Key layout (schema version 3), all keys of a namespace sharing the hash tag ``{namespace}`` so
the Lua scripts below stay legal on Redis Cluster::

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
from chatfold.recall import Postings, check_search_args, message_terms
from chatfold.stores._records import (
    check_entries_args,
    check_lease_args,
    check_new_state,
    check_seqs,
    encode_messages,
    state_from_record,
    validate_conversation_id,
    validate_namespace,
)
from chatfold.stores._server import SharedResource, mask_password
from chatfold.stores.base import DEFAULT_NAMESPACE, BaseStore, LogEntry
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
local count = tonumber(ARGV[3])
for i = 4, 3 + count, 1000 do
  redis.call('RPUSH', KEYS[2], unpack(ARGV, i, math.min(i + 999, 3 + count)))
end
local pos = 4 + count
local total = 0
for j = 1, count do
  local seq = n + j
  local k = tonumber(ARGV[pos])
  pos = pos + 1
  redis.call('SETRANGE', KEYS[3], (seq - 1) * 5, string.format('%05d', math.min(k, 99999)))
  local tag = string.format('%010d', seq)
  for t = pos, pos + k - 1 do
    redis.call('APPEND', ARGV[2] .. ARGV[t], tag)
  end
  for t = pos, pos + k - 1, 1000 do
    redis.call('SADD', KEYS[4], unpack(ARGV, t, math.min(t + 999, pos + k - 1)))
  end
  pos = pos + k
  total = total + k
end
redis.call('HINCRBY', KEYS[5], 'docs', count)
redis.call('HINCRBY', KEYS[5], 'length', total)
return n + count
"""
"""KEYS: index, log, doclen, termset, search stats. ARGV: id, posting-key prefix, n, the n
entries, then per entry its term count k and k terms. Returns the log's new length (the last
seq). The entries and their index entries are written by one script, so concurrent writers
can never leave the index out of step with the log. LLEN comes first: a log key of the wrong
type fails the script before it writes anything."""

_SEARCH = """
local out = {redis.call('HGET', KEYS[2], 'docs') or '0',
             redis.call('HGET', KEYS[2], 'length') or '0'}
local through = tonumber(ARGV[2])
local maxdf = tonumber(ARGV[3])
for i = 4, #ARGV do
  local key = ARGV[1] .. ARGV[i]
  local lo, hi = 0, redis.call('STRLEN', key) / 10
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if tonumber(redis.call('GETRANGE', key, mid * 10, mid * 10 + 9)) <= through then
      lo = mid + 1
    else
      hi = mid
    end
  end
  if lo > maxdf then
    out[#out + 1] = 'c'
    out[#out + 1] = ''
  else
    local seqs = ''
    local lens = {}
    if lo > 0 then
      seqs = redis.call('GETRANGE', key, 0, lo * 10 - 1)
      for j = 0, lo - 1 do
        local seq = tonumber(string.sub(seqs, j * 10 + 1, j * 10 + 10))
        lens[#lens + 1] = redis.call('GETRANGE', KEYS[1], (seq - 1) * 5, seq * 5 - 1)
      end
    end
    out[#out + 1] = seqs
    out[#out + 1] = table.concat(lens)
  end
end
return out
"""
"""KEYS: doclen, search stats. ARGV: posting-key prefix, through_seq, max_df, terms...
Returns docs, length, then per term: its seqs <= through_seq (10 digits each) and their
lengths (5 digits each), or 'c' and '' for a term held by more than max_df of them. A binary
search finds the cut, so a common term costs O(log df), not a read of its list."""

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
local terms = redis.call('SMEMBERS', KEYS[6])
for i = 1, #terms, 1000 do
  local batch = {}
  for j = i, math.min(i + 999, #terms) do batch[#batch + 1] = ARGV[2] .. terms[j] end
  redis.call('DEL', unpack(batch))
end
redis.call('DEL', KEYS[5], KEYS[6], KEYS[7])
return 0
"""
"""KEYS: index, log, state, lease, doclen, termset, search stats. ARGV: id, posting prefix."""


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

    def doclen(self, conversation_id: str) -> str:
        """Search index: each entry's length, 5 digits at offset (seq - 1) * 5."""
        return self.prefix + "doclen:" + conversation_id

    def termset(self, conversation_id: str) -> str:
        """Search index: the set of terms the conversation's entries hold."""
        return self.prefix + "terms:" + conversation_id

    def search_stats(self, conversation_id: str) -> str:
        """Search index: hash of docs (entries indexed) and length (their terms)."""
        return self.prefix + "search:" + conversation_id

    def postings(self, conversation_id: str) -> str:
        """Search index: prefix of the per-term keys, strings of 10-digit seqs, ascending.
        (A term is letters and digits only, so ``<id>:<term>`` cannot be misread.)"""
        return self.prefix + "post:" + conversation_id + ":"

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


def _migrate_to_3(pipe: Any, keys: RedisKeys) -> None:
    """3: a search index per conversation, filled from the logs already stored."""
    ids = sorted(pipe.smembers(keys.index))
    if ids:
        pipe.watch(*(keys.log(cid) for cid in ids))  # a concurrent append restarts the backfill
    work = []
    for cid in ids:
        postings: dict[str, list[str]] = {}
        lengths: list[str] = []
        for seq, item in enumerate(pipe.lrange(keys.log(cid), 0, -1), 1):
            try:
                found = message_terms(json.loads(item)["m"])
            except (ValueError, KeyError, TypeError) as exc:
                raise StoreCorruptError(
                    f"Redis key {keys.log(cid)}: entry {seq} is not a chatfold entry ({exc})"
                ) from exc
            lengths.append(f"{min(len(found), 99999):05d}")
            for term in found:
                postings.setdefault(term, []).append(f"{seq:010d}")
        work.append((cid, postings, lengths))
    pipe.multi()
    for cid, postings, lengths in work:
        prefix = keys.postings(cid)
        for term, seqs in postings.items():
            pipe.append(prefix + term, "".join(seqs))
        if postings:
            pipe.sadd(keys.termset(cid), *postings)
        pipe.set(keys.doclen(cid), "".join(lengths))
        total = sum(int(n) for n in lengths)
        pipe.hset(keys.search_stats(cid), mapping={"docs": len(lengths), "length": total})


MIGRATIONS: tuple[Callable[[Any, RedisKeys], None], ...] = (
    _migrate_to_1, _migrate_to_2, _migrate_to_3,
)
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
                self._search = self._client.register_script(_SEARCH)
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
