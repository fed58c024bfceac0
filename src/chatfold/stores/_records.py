"""What goes in and out of a store, checked and serialised the same way by every backend.

Conversation ids and namespaces are validated here; messages are encoded to compact JSON and
decoded back; a stored fold state is rebuilt and checked field by field; the arguments of the
store methods are validated before any I/O. A stored value that parses but is not what
chatfold writes raises :class:`DamagedRecordError`, which the stores' error boundary
(:meth:`chatfold.stores.base.BaseStore._translate`) turns into
:class:`~chatfold.StoreCorruptError`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from chatfold._errors import (
    InvalidArgumentError,
    InvalidConversationIdError,
    InvalidMessageError,
)
from chatfold.stores.state import FoldState

__all__ = [
    "MAX_ID_LENGTH",
    "DamagedRecordError",
    "check_entries_args",
    "check_lease_args",
    "check_new_state",
    "check_seqs",
    "decode_message",
    "encode_message",
    "encode_messages",
    "state_from_record",
    "validate_conversation_id",
    "validate_namespace",
]

MAX_ID_LENGTH = 200
"""Longest conversation id or namespace accepted."""

_ID_RE = re.compile(rf"[A-Za-z0-9_:@-][A-Za-z0-9._:@-]{{0,{MAX_ID_LENGTH - 1}}}")


_VALID_IDS: dict[str, None] = {}
"""Ids already checked (bounded): a conversation's every store call checks the same id."""


def _check_id(value: object, what: str) -> str:
    if type(value) is str and value in _VALID_IDS:
        return value
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
    if type(value) is str:
        if len(_VALID_IDS) >= 4096:
            _VALID_IDS.clear()
        _VALID_IDS[value] = None
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
    if type(message) is not dict:
        if not isinstance(message, Mapping):
            raise InvalidMessageError(index, f"expected a mapping, got {type(message).__name__}")
        message = dict(message)  # json serialises dicts only
    try:
        text = _JSON_UTF8.encode(message)
    except (TypeError, ValueError) as exc:
        raise InvalidMessageError(index, f"not JSON-serialisable: {exc}") from exc
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            # Lone surrogates cannot be stored as UTF-8 text; \\u escapes keep them exactly.
            text = _JSON_ASCII.encode(message)
    return text


# Made once: json.dumps() with options builds a new encoder on every call (a turn's hot path).
_JSON_UTF8 = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_JSON_ASCII = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"), allow_nan=False)


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
    """A stored value parsed, but is not what chatfold writes. The stores' error boundary
    (``BaseStore._translate``) turns it into :class:`~chatfold.StoreCorruptError` naming the
    store."""


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


def check_seqs(seqs: Sequence[int]) -> list[int]:
    """Validate the ``seqs`` of :meth:`Store.entries_at`; return them distinct and ascending.

    Raises:
        InvalidArgumentError: A seq is not a positive integer.
    """
    for s in seqs:
        if not _is_int(s) or s < 1:
            raise InvalidArgumentError("seqs", f"must be positive integers, got {s!r}")
    return sorted(set(seqs))


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
