"""An in-process store: thread-safe, nothing persisted. For tests, scripts and notebooks."""

from __future__ import annotations

import bisect
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Self

from chatfold._errors import ConversationNotFoundError, FoldConflictError
from chatfold.recall import Postings, check_search_args, message_terms
from chatfold.stores.base import (
    DEFAULT_NAMESPACE,
    BaseStore,
    LogEntry,
    check_entries_args,
    check_lease_args,
    check_new_state,
    check_seqs,
    decode_message,
    encode_message,
    encode_messages,
    validate_conversation_id,
)
from chatfold.stores.state import FoldState

__all__ = ["MemoryStore"]


_Packed = str | tuple[tuple[str, ...], tuple[str, ...]]
"""A stored message: its JSON text, or (keys, values) when every key and value is a str."""
_KEYS: dict[tuple[str, ...], tuple[str, ...]] = {}
"""One shared keys tuple per message shape (("role", "content"), ...): not one per entry."""
_STR = {str}


def _pack(message: Mapping[str, Any], index: int) -> _Packed:
    """What the log keeps of ``message``: a copy nothing outside the store can change.

    The common message holds only strings, and for it a JSON round trip is exactly a copy
    (strings are immutable): its keys and values are kept as tuples, a fifth of the cost of
    encoding and decoding JSON on every turn. Anything else is kept as JSON text, like the
    persistent stores keep it (and checked the same way).
    """
    if type(message) is dict:
        values = tuple(message.values())
        if set(map(type, values)) == _STR:  # exactly str, no subclass
            keys = tuple(message)
            shared = _KEYS.get(keys)  # a known shape's keys are all str already
            if shared is None and set(map(type, keys)) == _STR:
                if len(_KEYS) >= 256:
                    _KEYS.clear()
                shared = _KEYS[keys] = keys
            if shared is not None:
                return (shared, values)
    return encode_message(message, index)


def _entry(seq: int, packed: _Packed, created_at: float) -> LogEntry:
    # LogEntry is frozen: its generated __init__ sets each field through
    # object.__setattr__, a third of reading one new entry on a turn. Same fields, set directly.
    entry = object.__new__(LogEntry)
    entry.__dict__.update(seq=seq, message=_unpack(packed), created_at=created_at)
    return entry


def _unpack(packed: _Packed) -> dict[str, Any]:
    if isinstance(packed, str):  # JSON text
        return decode_message(packed)
    keys, values = packed  # of equal length: both read from one dict by _pack
    if len(keys) == 2:  # role and content, most messages: a literal is a third of dict(zip())
        return {keys[0]: values[0], keys[1]: values[1]}
    return dict(zip(keys, values, strict=False))


@dataclass
class _Conversation:
    log: list[tuple[_Packed, float]] = field(default_factory=list)
    """(message, created_at) per entry (see :func:`_pack`); entry i has seq i + 1."""
    state: FoldState | None = None
    postings: dict[str, list[int]] = field(default_factory=dict)
    """Search index: term -> seqs of the entries holding it, ascending."""
    lengths: list[int] = field(default_factory=list)
    """Distinct terms of entry i (seq i + 1)."""
    total_length: int = 0

    def index(self) -> None:
        """Index the entries appended since the last search (call under the store's lock).

        Indexing is lazy: an append costs no term extraction (a fifth of a turn), and a
        conversation that never searches never pays for it; the first search after some
        appends indexes them once, from their stored JSON (what a search must see).
        """
        for seq in range(len(self.lengths) + 1, len(self.log) + 1):
            found = message_terms(_unpack(self.log[seq - 1][0]))
            self.lengths.append(len(found))
            self.total_length += len(found)
            for term in found:
                self.postings.setdefault(term, []).append(seq)


_NO_ID = object()
"""Matches no conversation id (MemoryStore._key's cache starts with it)."""


@dataclass
class _Data:
    lock: threading.Lock = field(default_factory=threading.Lock)
    conversations: dict[tuple[str, str], _Conversation] = field(default_factory=dict)
    leases: dict[tuple[str, str], tuple[str, float]] = field(default_factory=dict)
    """(owner, time.monotonic() expiry) per conversation."""


class MemoryStore(BaseStore):
    """Conversations in this process's memory, lost when it exits.

    Messages are kept as JSON text, or as tuples of their keys and values when all are strings
    (see :func:`_pack`), so what comes back is exactly what a persistent store would return, and
    mutating a message after appending it changes nothing in the log.

    Args:
        namespace: Tenant scope; see :mod:`chatfold.stores.base`.
    """

    name: ClassVar[str] = "memory"
    persistent: ClassVar[bool] = False
    shared_across_processes: ClassVar[bool] = False
    shared_across_machines: ClassVar[bool] = False
    schema_version: ClassVar[int] = 0
    blocking: ClassVar[bool] = False

    def __init__(self, *, namespace: str = DEFAULT_NAMESPACE) -> None:
        super().__init__(namespace=namespace)
        self._data = _Data()
        self._last: tuple[object, tuple[str, str]] = (_NO_ID, (self._namespace, ""))

    def with_namespace(self, namespace: str) -> Self:
        """A store over the same memory, scoped to ``namespace``."""
        other = type(self)(namespace=namespace)
        other._data = self._data
        return other

    def _key(self, conversation_id: str) -> tuple[str, str]:
        if self._closed:
            self._check_open()  # raises
        last_id, key = self._last  # one read: threads may replace it meanwhile
        if conversation_id is last_id:  # every call of a turn names the same conversation
            return key
        key = (self._namespace, validate_conversation_id(conversation_id))
        self._last = (conversation_id, key)
        return key

    def append(self, conversation_id: str, messages: Sequence[Mapping[str, Any]]) -> list[int]:
        """See :meth:`chatfold.stores.base.Store.append`."""
        key = self._key(conversation_id)
        if type(messages) is not list and (isinstance(messages, (str, bytes, Mapping))
                                            or not isinstance(messages, Sequence)):
            encode_messages(messages)  # raises the shared error for a batch that is no list
        encoded = [_pack(m, i) for i, m in enumerate(messages)]
        now = time.time()
        with self._data.lock:
            conv = self._data.conversations.get(key)
            if conv is None:
                conv = self._data.conversations[key] = _Conversation()
            first = len(conv.log) + 1
            conv.log += [(packed, now) for packed in encoded]
        return list(range(first, first + len(encoded)))

    def entries(
        self, conversation_id: str, *, after: int = 0, limit: int | None = None
    ) -> list[LogEntry]:
        """See :meth:`chatfold.stores.base.Store.entries`."""
        key = self._key(conversation_id)
        if type(after) is not int or after < 0 or limit is not None:  # else nothing to check
            check_entries_args(after, limit)
        with self._data.lock:
            conv = self._data.conversations.get(key)
            end = None if limit is None else after + limit
            rows = [] if conv is None else conv.log[after:end]
        return [_entry(seq, packed, at) for seq, (packed, at) in enumerate(rows, after + 1)]

    def last_seq(self, conversation_id: str) -> int:
        """See :meth:`chatfold.stores.base.Store.last_seq`."""
        key = self._key(conversation_id)
        with self._data.lock:
            conv = self._data.conversations.get(key)
            return 0 if conv is None else len(conv.log)

    def entries_at(self, conversation_id: str, seqs: Sequence[int]) -> list[LogEntry]:
        """See :meth:`chatfold.stores.base.Store.entries_at`."""
        key = self._key(conversation_id)
        wanted = check_seqs(seqs)
        with self._data.lock:
            conv = self._data.conversations.get(key)
            log = [] if conv is None else conv.log
            rows = [(s, log[s - 1]) for s in wanted if s <= len(log)]
        return [_entry(s, packed, at) for s, (packed, at) in rows]

    def search(
        self, conversation_id: str, terms: Sequence[str], *, through_seq: int, max_df: int
    ) -> Postings:
        """See :meth:`chatfold.stores.base.Store.search`."""
        key = self._key(conversation_id)
        wanted = check_search_args(terms, through_seq, max_df)
        hits: dict[str, tuple[tuple[int, int], ...]] = {}
        common: set[str] = set()
        with self._data.lock:
            conv = self._data.conversations.get(key)
            if conv is None:
                return Postings(hits={t: () for t in wanted})
            conv.index()
            for term in wanted:
                seqs = conv.postings.get(term, [])
                n = bisect.bisect_right(seqs, through_seq)
                if n > max_df:
                    common.add(term)
                else:
                    hits[term] = tuple((s, conv.lengths[s - 1]) for s in seqs[:n])
            return Postings(docs=len(conv.log), total_length=conv.total_length, hits=hits,
                            common=frozenset(common))

    def exists(self, conversation_id: str) -> bool:
        """See :meth:`chatfold.stores.base.Store.exists`."""
        key = self._key(conversation_id)
        with self._data.lock:
            return key in self._data.conversations

    def list_conversations(self) -> list[str]:
        """See :meth:`chatfold.stores.base.Store.list_conversations`."""
        self._check_open()
        with self._data.lock:
            return sorted(cid for ns, cid in self._data.conversations if ns == self._namespace)

    def delete(self, conversation_id: str) -> None:
        """See :meth:`chatfold.stores.base.Store.delete`."""
        key = self._key(conversation_id)
        with self._data.lock:
            self._data.conversations.pop(key, None)
            self._data.leases.pop(key, None)

    def load_state(self, conversation_id: str) -> FoldState:
        """See :meth:`chatfold.stores.base.Store.load_state`."""
        key = self._key(conversation_id)
        with self._data.lock:
            conv = self._data.conversations.get(key)
            state = None if conv is None else conv.state
        return FoldState() if state is None else state

    def save_state(self, conversation_id: str, state: FoldState, *, expected_version: int) -> None:
        """See :meth:`chatfold.stores.base.Store.save_state`."""
        key = self._key(conversation_id)
        check_new_state(state, expected_version)
        # A JSON round trip, as the persistent stores do: no shared mutable state.
        stored = replace(FoldState.from_json(state.to_json()), version=state.version)
        with self._data.lock:
            conv = self._data.conversations.get(key)
            if conv is None:
                raise ConversationNotFoundError(conversation_id)
            actual = 0 if conv.state is None else conv.state.version
            if actual != expected_version:
                raise FoldConflictError(expected_version, actual)
            conv.state = stored

    def acquire_lease(self, conversation_id: str, owner: str, ttl_seconds: float) -> bool:
        """See :meth:`chatfold.stores.base.Store.acquire_lease`."""
        key = self._key(conversation_id)
        check_lease_args(owner, ttl_seconds)
        with self._data.lock:
            now = time.monotonic()
            held = self._data.leases.get(key)
            if held is not None and held[0] != owner and held[1] > now:
                return False
            self._data.leases[key] = (owner, now + ttl_seconds)
            return True

    def release_lease(self, conversation_id: str, owner: str) -> None:
        """See :meth:`chatfold.stores.base.Store.release_lease`."""
        key = self._key(conversation_id)
        check_lease_args(owner)
        with self._data.lock:
            held = self._data.leases.get(key)
            if held is not None and held[0] == owner:
                del self._data.leases[key]
