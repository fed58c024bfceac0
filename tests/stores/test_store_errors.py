"""Errors at the store boundary: every library exception is mapped, passwords never leak,
missing extras are named, and ids and messages are checked before any I/O."""

from __future__ import annotations

import builtins
import json
import sqlite3
import sys
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from chatfold import (
    InvalidConversationIdError,
    InvalidMessageError,
    MissingDependencyError,
    StoreCorruptError,
    StoreError,
    StoreUnavailableError,
)
from chatfold.stores import FoldState, MemoryStore, PostgresStore, RedisStore, SQLiteStore
from chatfold.stores import postgres as postgres_module
from chatfold.stores import redis as redis_module
from chatfold.stores import sqlite as sqlite_module
from chatfold.stores.base import (
    DamagedRecordError,
    decode_message,
    encode_message,
    mask_password,
    state_from_record,
    validate_conversation_id,
)

_LIBRARIES = {"sqlite3", "psycopg", "psycopg_pool", "redis"}


def _exception_classes(*modules: Any) -> list[type[BaseException]]:
    found: set[type[BaseException]] = set()
    for module in modules:
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Exception)
                and value.__module__.split(".")[0] in _LIBRARIES
            ):
                found.add(value)
    return sorted(found, key=lambda c: (c.__module__, c.__qualname__))


def _instance(cls: type[BaseException]) -> BaseException:
    # Most take a message; redirect errors parse "slot host:port"; a few take nothing.
    for args in (("boom",), ("3999 127.0.0.1:6381",), ()):
        try:
            return cls(*args)
        except (TypeError, ValueError):
            continue
    raise AssertionError(f"cannot build {cls}")


def test_every_sqlite3_exception_is_mapped() -> None:
    classes = _exception_classes(sqlite3)
    assert sqlite3.OperationalError in classes and len(classes) >= 9
    for cls in classes:
        if cls is sqlite3.Warning:
            continue  # a warning class, never raised by the calls the store makes
        assert isinstance(sqlite_module.translate_error(_instance(cls), "x.db"), StoreError), cls


def test_sqlite_error_codes_choose_the_class() -> None:
    def error(code: int, text: str = "boom") -> sqlite3.Error:
        exc = sqlite3.OperationalError(text)
        exc.sqlite_errorcode = code  # type: ignore[attr-defined]  # set by sqlite3 when raised
        return exc

    translate = sqlite_module.translate_error
    assert isinstance(translate(error(sqlite3.SQLITE_NOTADB), "f"), StoreCorruptError)
    assert isinstance(translate(error(sqlite3.SQLITE_CORRUPT), "f"), StoreCorruptError)
    assert isinstance(translate(error(sqlite3.SQLITE_CANTOPEN), "f"), StoreUnavailableError)
    assert isinstance(translate(error(sqlite3.SQLITE_BUSY), "f"), StoreUnavailableError)
    assert isinstance(translate(error(sqlite3.SQLITE_IOERR | 0x100), "f"), StoreUnavailableError)
    assert isinstance(translate(error(1, "no such table: x"), "f"), StoreCorruptError)
    assert type(translate(error(1, "syntax"), "f")) is StoreError
    assert translate(ValueError("not ours"), "f") is None
    assert isinstance(translate(json.JSONDecodeError("bad", "{", 0), "f"), StoreCorruptError)


def test_every_psycopg_exception_is_mapped() -> None:
    psycopg = pytest.importorskip("psycopg")
    psycopg_pool = pytest.importorskip("psycopg_pool")
    classes = _exception_classes(psycopg, psycopg.errors, psycopg_pool)
    assert len(classes) > 200
    for cls in classes:
        if not issubclass(cls, psycopg.Error):
            continue  # psycopg.Warning: never raised
        error = postgres_module.translate_error(_instance(cls), "postgresql://u:***@h/db")
        assert isinstance(error, StoreError), cls
    translate = postgres_module.translate_error
    assert isinstance(translate(psycopg.OperationalError("x"), "h"), StoreUnavailableError)
    assert isinstance(translate(psycopg_pool.PoolTimeout("x"), "h"), StoreUnavailableError)
    assert isinstance(translate(psycopg.errors.UndefinedTable("x"), "h"), StoreCorruptError)
    assert type(translate(psycopg.errors.SerializationFailure("x"), "h")) is StoreError
    assert type(translate(psycopg.errors.UniqueViolation("x"), "h")) is StoreError
    assert translate(ValueError("not ours"), "h") is None


def test_every_redis_exception_is_mapped() -> None:
    redis = pytest.importorskip("redis")
    classes = _exception_classes(redis.exceptions, redis)
    assert len(classes) > 20
    for cls in classes:
        error = redis_module.translate_error(_instance(cls), "redis://h")
        assert isinstance(error, StoreError), cls
    errors = redis.exceptions
    translate = redis_module.translate_error
    for unavailable in (errors.ConnectionError, errors.TimeoutError, errors.AuthenticationError):
        assert isinstance(translate(unavailable("x"), "h"), StoreUnavailableError)
    assert isinstance(translate(errors.ResponseError("WRONGTYPE x"), "h"), StoreCorruptError)
    assert type(translate(errors.ResponseError("ERR x"), "h")) is StoreError
    assert translate(ValueError("not ours"), "h") is None


@pytest.mark.parametrize(
    ("location", "masked"),
    [
        ("postgresql://bob:hunter2@db:5432/app", "postgresql://bob:***@db:5432/app"),
        (
            "postgres://bob:p%40ss@db/app?sslmode=require",
            "postgres://bob:***@db/app?sslmode=require",
        ),
        ("redis://:hunter2@127.0.0.1:6379/0", "redis://:***@127.0.0.1:6379/0"),
        ("rediss://user:hunter2@host:6380", "rediss://user:***@host:6380"),
        (
            "host=db user=bob password=hunter2 dbname=app",
            "host=db user=bob password=*** dbname=app",
        ),
        ("host=db password = 'hun ter2' dbname=app", "host=db password = *** dbname=app"),
        ("postgresql://db/app?password=hunter2&x=1", "postgresql://db/app?password=***&x=1"),
        ("postgresql://bob@db/app", "postgresql://bob@db/app"),
        ("/var/lib/chatfold/chatfold.db", "/var/lib/chatfold/chatfold.db"),
    ],
)
def test_passwords_are_masked(location: str, masked: str) -> None:
    assert mask_password(location) == masked


def _block_import(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    real_import = builtins.__import__

    def fake_import(module: str, *args: Any, **kwargs: Any) -> Any:
        if module == name or module.startswith(name + "."):
            raise ImportError(f"No module named {module!r}")
        return real_import(module, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)


def test_missing_postgres_extra_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    _block_import(monkeypatch, "psycopg")
    with pytest.raises(MissingDependencyError) as info:
        PostgresStore("postgresql://127.0.0.1:1/x")
    assert info.value.extra == "postgres"
    assert "chatfold[postgres]" in str(info.value)


def test_missing_redis_extra_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    _block_import(monkeypatch, "redis")
    with pytest.raises(MissingDependencyError) as info:
        RedisStore("redis://127.0.0.1:1/0")
    assert info.value.extra == "redis"


def test_importing_the_stores_loads_no_client_library() -> None:
    import subprocess

    code = (
        "import sys, chatfold.stores\n"
        "assert 'psycopg' not in sys.modules and 'redis' not in sys.modules, sys.modules.keys()\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_id_validation() -> None:
    assert validate_conversation_id("a-b.c:d@e") == "a-b.c:d@e"
    with pytest.raises(InvalidConversationIdError, match=r"not starting with '\.'"):
        validate_conversation_id(".a")
    with pytest.raises(InvalidConversationIdError) as info:
        validate_conversation_id("x" * 10_000)
    assert len(str(info.value)) < 300  # a huge id is not copied into the message
    assert isinstance(info.value, ValueError)


def test_message_encoding() -> None:
    assert encode_message({"content": "你好 🙂"}) == '{"content":"你好 🙂"}'
    assert encode_message(MappingProxyType({"role": "user"})) == '{"role":"user"}'
    lone = {"content": "\ud83d broken surrogate"}
    assert decode_message(encode_message(lone)) == lone
    with pytest.raises(InvalidMessageError, match="JSON"):
        encode_message({"x": float("inf")})
    with pytest.raises(InvalidMessageError, match="mapping") as info:
        encode_message(["role", "user"], 3)
    assert info.value.index == 3


def test_appending_something_that_is_not_a_list_of_messages_is_a_message_error(
    fast_dir: Path,
) -> None:
    for store in (MemoryStore(), SQLiteStore(fast_dir / "a.db")):
        with store:
            for bad in (None, 5, object(), "hello", {"role": "user", "content": "x"}):
                with pytest.raises(InvalidMessageError, match="list of messages"):
                    store.append("c1", bad)  # type: ignore[arg-type]
            assert store.entries("c1") == []


def test_decoding_a_value_that_is_not_a_message_or_a_state_is_a_damaged_record() -> None:
    for text in ("[1, 2]", "5", "null", '"text"'):
        with pytest.raises(DamagedRecordError, match="not an object"):
            decode_message(text)
    for text in ("[]", '{"summary": 5}', '{"pinned_seqs": 3}', '{"pinned_seqs": ["a"]}',
                 '{"covered_through": "7"}', '{"version": true}', '{"folds": null}'):
        with pytest.raises(DamagedRecordError, match="fold state"):
            state_from_record(1, text)
    assert state_from_record(3, '{"summary": "ok", "pinned_seqs": [1]}').version == 3


@pytest.mark.parametrize(
    ("table", "column", "value"),
    [
        ("chatfold_entries", "message", "[1, 2]"),
        ("chatfold_entries", "message", "not json"),
        ("chatfold_states", "state", '{"summary": ["a"], "covered_through": 1}'),
        ("chatfold_states", "state", "[]"),
    ],
)
def test_damaged_sqlite_rows_raise_the_corruption_error(
    fast_dir: Path, table: str, column: str, value: str
) -> None:
    from chatfold.session import Conversation

    path = fast_dir / "damaged.db"
    with SQLiteStore(path) as store:
        store.append("c1", [{"role": "user", "content": "hello"}])
        store.save_state("c1", FoldState(summary="s", covered_through=0, version=1),
                         expected_version=0)
    conn = sqlite3.connect(path)
    conn.execute(f"UPDATE {table} SET {column} = ?", (value,))  # the damage
    conn.commit()
    conn.close()
    with SQLiteStore(path) as store:
        with pytest.raises(StoreCorruptError, match=str(path)):
            store.entries("c1") if table == "chatfold_entries" else store.load_state("c1")
        with pytest.raises(StoreCorruptError):
            Conversation("c1", store=store).context()
