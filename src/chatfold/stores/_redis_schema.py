"""The Redis store's key layout and its numbered migrations.

The layout is described in :mod:`chatfold.stores.redis`; its version is kept per namespace
under ``chatfold:{ns}:schema``, and :func:`migrate` brings a namespace to the latest one, each
migration in one ``MULTI``/``EXEC`` transaction with its version bump.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from chatfold._errors import StoreCorruptError
from chatfold.recall import message_terms
from chatfold.stores._records import validate_namespace

if TYPE_CHECKING:
    import redis

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "RedisKeys", "migrate"]


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
