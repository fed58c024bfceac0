"""The SQLite store's search index for recall: an FTS5 table filled at append time.

Each entry's terms, prefixed with the conversation's scope token, go to an external-content
FTS5 table (``ascii`` tokenizer: every non-ASCII character is part of a token, so Chinese
bigrams stay whole); a narrow table holds each entry's length for BM25, and a per-conversation
row its totals. Everything here runs inside the caller's transaction and connection.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from chatfold.recall import Postings, scope_token
from chatfold.stores._search import backfill, postings, scoped_terms

__all__ = ["SEQ_BITS", "backfill_search", "delete_index", "index_rows", "search"]

SEQ_BITS = 32
"""A search row's id is ``conversation number << 32 | seq``: one conversation's entries are one
contiguous id range, so a search reads its own rows only, up to ``through_seq``, with no join."""


def index_rows(
    conn: sqlite3.Connection, ns: str, cid: str, rows: Sequence[tuple[int, Mapping[str, Any]]]
) -> None:
    """Index log entries ``(seq, message)`` for search (inside the caller's transaction).

    Each entry's terms, prefixed with the conversation's scope token, go to an external-content
    FTS5 table (``ascii`` tokenizer: every non-ASCII character is part of a token, so Chinese
    bigrams stay whole) whose content is ``chatfold_search_text``; the narrow
    ``chatfold_search_lengths`` holds each entry's length for BM25.
    """
    docs, total = scoped_terms(ns, cid, rows)
    texts = [(seq, " ".join(terms)) for seq, terms in docs]
    lengths = [(seq, len(terms)) for seq, terms in docs]
    conn.execute(
        "INSERT INTO chatfold_search_convs (namespace, id, docs, length) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (namespace, id) DO UPDATE SET docs = docs + excluded.docs, "
        "length = length + excluded.length",
        (ns, cid, len(rows), total),
    )
    if not texts:
        return
    (number,) = conn.execute(
        "SELECT no FROM chatfold_search_convs WHERE namespace = ? AND id = ?", (ns, cid)
    ).fetchone()
    base = number << SEQ_BITS
    conn.executemany(
        "INSERT INTO chatfold_search_text (id, terms) VALUES (?, ?)",
        [(base + seq, text) for seq, text in texts],
    )
    conn.executemany(
        "INSERT INTO chatfold_fts (rowid, terms) VALUES (?, ?)",
        [(base + seq, text) for seq, text in texts],
    )
    conn.executemany(
        "INSERT INTO chatfold_search_lengths (id, length) VALUES (?, ?)",
        [(base + seq, n) for seq, n in lengths],
    )


def backfill_search(conn: sqlite3.Connection) -> None:
    """Index every entry already in the file (migration 4), a conversation at a time."""
    backfill(
        conn,
        "SELECT seq, message FROM chatfold_entries WHERE namespace = ? AND conversation_id = ? "
        "ORDER BY seq",
        index_rows,
    )


def search(
    conn: sqlite3.Connection, ns: str, cid: str, wanted: list[str], *, through_seq: int,
    max_df: int,
) -> Postings:
    """The postings of ``wanted`` (checked terms) in ``cid``'s entries through ``through_seq``.

    See :meth:`chatfold.stores.base.Store.search`.
    """
    row = conn.execute(
        "SELECT no, docs, length FROM chatfold_search_convs WHERE namespace = ? AND id = ?",
        (ns, cid),
    ).fetchone()
    if row is None:
        return Postings(hits={t: () for t in wanted})
    lo = int(row[0]) << SEQ_BITS
    hi = lo + min(through_seq, (1 << SEQ_BITS) - 1)
    if not wanted:
        return Postings(docs=int(row[1]), total_length=int(row[2]))
    scope = scope_token(ns, cid)
    matches = [f'"{scope}{t}"' for t in wanted]
    # Two statements for the whole query. First each term's count, in C and bounded:
    # a common term costs max_df + 1 steps at most...
    one = (
        "SELECT count(*) FROM (SELECT rowid FROM chatfold_fts WHERE chatfold_fts "
        "MATCH ? AND rowid BETWEEN ? AND ? LIMIT ?)"
    )
    counts = conn.execute(
        " UNION ALL ".join(f"SELECT {i}, * FROM ({one})" for i in range(len(wanted))),
        [v for m in matches for v in (m, lo, hi, max_df + 1)],
    ).fetchall()
    found: dict[str, list[tuple[int, int]] | None] = {}
    listed = []
    for i, n in counts:
        found[wanted[i]] = None if n > max_df else []
        if 0 < n <= max_df:
            listed.append(i)
    # ...then the entries (and lengths) of the terms that are not too common.
    if listed:
        rows = conn.execute(
            " UNION ALL ".join(
                f"SELECT {i}, chatfold_fts.rowid, l.length FROM chatfold_fts CROSS JOIN "
                "chatfold_search_lengths l ON l.id = chatfold_fts.rowid WHERE "
                "chatfold_fts MATCH ? AND chatfold_fts.rowid BETWEEN ? AND ?"
                for i in listed
            ),
            [v for i in listed for v in (matches[i], lo, hi)],
        ).fetchall()
        for i, rowid, length in rows:
            got = found[wanted[i]]
            assert got is not None  # listed terms are the ones not too common
            got.append((int(rowid) - lo, int(length)))
    return postings(int(row[1]), int(row[2]), found, max_df)


def delete_index(conn: sqlite3.Connection, ns: str, cid: str) -> None:
    """Remove ``cid``'s entries from the index (inside the caller's transaction)."""
    row = conn.execute(
        "SELECT no FROM chatfold_search_convs WHERE namespace = ? AND id = ?",
        (ns, cid),
    ).fetchone()
    if row is None:
        return
    lo = int(row[0]) << SEQ_BITS
    span = (lo, lo + (1 << SEQ_BITS) - 1)
    conn.execute(
        "INSERT INTO chatfold_fts (chatfold_fts, rowid, terms) SELECT 'delete', "
        "id, terms FROM chatfold_search_text WHERE id BETWEEN ? AND ?",
        span,
    )
    for table in ("chatfold_search_text", "chatfold_search_lengths"):
        conn.execute(f"DELETE FROM {table} WHERE id BETWEEN ? AND ?", span)
    conn.execute("DELETE FROM chatfold_search_convs WHERE no = ?", (row[0],))
