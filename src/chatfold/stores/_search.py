"""What the SQL stores' search indexes share: the terms an entry is indexed under, the postings
a query gets back, and filling an index from the entries already stored.

Each store keeps its index its own way (``_sqlite_search.py``: FTS5; ``_postgres_search.py``:
a ``tsvector`` column with a GIN index); the terms (:func:`chatfold.recall.message_terms`,
prefixed with the conversation's scope token) and the shape of the answer are the same.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from chatfold.recall import Postings, message_terms, scope_token
from chatfold.stores._records import decode_message

__all__ = ["backfill", "postings", "scoped_terms"]


def scoped_terms(
    ns: str, cid: str, rows: Sequence[tuple[int, Mapping[str, Any]]]
) -> tuple[list[tuple[int, list[str]]], int]:
    """The terms each log entry ``(seq, message)`` is indexed under, and their number in all.

    Returns:
        ``(seq, terms)`` of each entry that has terms (prefixed with the conversation's scope
        token, so one index serves every conversation), and the sum of every entry's term
        count (the conversation's total length, for BM25).
    """
    scope = scope_token(ns, cid)
    docs = []
    total = 0
    for seq, message in rows:
        found = message_terms(message)
        total += len(found)
        if found:
            docs.append((seq, [scope + t for t in found]))
    return docs, total


def postings(
    docs: int, total_length: int, found: Mapping[str, Sequence[tuple[int, int]] | None],
    max_df: int,
) -> Postings:
    """A search's answer from what the index gave for each wanted term.

    Args:
        docs: Entries in the conversation.
        total_length: Sum of their lengths.
        found: Each wanted term's ``(seq, length)`` pairs (any order, at most ``max_df + 1``
            needed), or ``None`` for a term the index already counted as too common.
        max_df: A term held by more entries than this is common, not listed.
    """
    hits: dict[str, tuple[tuple[int, int], ...]] = {}
    common: set[str] = set()
    for term, got in found.items():
        if got is None or len(got) > max_df:
            common.add(term)
        else:
            hits[term] = tuple(sorted(got))
    return Postings(docs=docs, total_length=total_length, hits=hits, common=frozenset(common))


def backfill(
    conn: Any, select_entries: str,
    index_rows: Callable[[Any, str, str, list[tuple[int, Mapping[str, Any]]]], None],
) -> None:
    """Index every entry already stored (the migration that adds an index), a conversation at
    a time.

    Args:
        conn: The store's connection (``sqlite3`` or ``psycopg``), inside the migration's
            transaction.
        select_entries: The query of one conversation's ``seq, message`` in seq order, with
            the namespace and the id as its two parameters.
        index_rows: The store's indexing of entries ``(seq, message)``.
    """
    conversations = conn.execute("SELECT namespace, id FROM chatfold_conversations").fetchall()
    for ns, cid in conversations:
        rows = conn.execute(select_entries, (ns, cid)).fetchall()
        index_rows(conn, ns, cid, [(int(seq), decode_message(text)) for seq, text in rows])
