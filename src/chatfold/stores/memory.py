"""An in-process store: thread-safe, nothing persisted. For tests, scripts and notebooks."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Self

from chatfold._errors import ConversationNotFoundError, FoldConflictError
from chatfold.stores.base import (
    DEFAULT_NAMESPACE,
    BaseStore,
    LogEntry,
    check_entries_args,
    check_lease_args,
    check_new_state,
    decode_message,
    encode_messages,
    validate_conversation_id,
)
from chatfold.stores.state import FoldState

__all__ = ["MemoryStore"]


@dataclass
class _Conversation:
    log: list[tuple[str, float]] = field(default_factory=list)
    """(message JSON, created_at) per entry; entry i has seq i + 1."""
    state: FoldState | None = None


@dataclass
class _Data:
    lock: threading.Lock = field(default_factory=threading.Lock)
    conversations: dict[tuple[str, str], _Conversation] = field(default_factory=dict)
    leases: dict[tuple[str, str], tuple[str, float]] = field(default_factory=dict)
    """(owner, time.monotonic() expiry) per conversation."""


class MemoryStore(BaseStore):
    """Conversations in this process's memory, lost when it exits.

    Messages are kept as JSON text, so what comes back is exactly what a persistent store would
    return, and mutating a message after appending it changes nothing in the log.

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

    def with_namespace(self, namespace: str) -> Self:
        """A store over the same memory, scoped to ``namespace``."""
        other = type(self)(namespace=namespace)
        other._data = self._data
        return other

    def _key(self, conversation_id: str) -> tuple[str, str]:
        self._check_open()
        return (self._namespace, validate_conversation_id(conversation_id))

    def append(self, conversation_id: str, messages: Sequence[Mapping[str, Any]]) -> list[int]:
        """See :meth:`chatfold.stores.base.Store.append`."""
        key = self._key(conversation_id)
        encoded = encode_messages(messages)
        now = time.time()
        with self._data.lock:
            conv = self._data.conversations.setdefault(key, _Conversation())
            first = len(conv.log) + 1
            conv.log.extend((text, now) for text in encoded)
        return list(range(first, first + len(encoded)))

    def entries(
        self, conversation_id: str, *, after: int = 0, limit: int | None = None
    ) -> list[LogEntry]:
        """See :meth:`chatfold.stores.base.Store.entries`."""
        key = self._key(conversation_id)
        check_entries_args(after, limit)
        with self._data.lock:
            conv = self._data.conversations.get(key)
            end = None if limit is None else after + limit
            rows = [] if conv is None else conv.log[after:end]
        return [
            LogEntry(seq=after + 1 + i, message=decode_message(text), created_at=at)
            for i, (text, at) in enumerate(rows)
        ]

    def last_seq(self, conversation_id: str) -> int:
        """See :meth:`chatfold.stores.base.Store.last_seq`."""
        key = self._key(conversation_id)
        with self._data.lock:
            conv = self._data.conversations.get(key)
            return 0 if conv is None else len(conv.log)

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
