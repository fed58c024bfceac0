"""The PostgreSQL store's search index for recall: a ``tsvector`` column with a GIN index.

Each entry's terms, prefixed with the conversation's scope token, are stored as lexemes exactly
(``array_to_tsvector``: no parser, no stemming, so Chinese bigrams stay whole); a stats row per
conversation holds the totals for BM25. Everything here runs on the caller's connection,
inside its transaction where it has one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from chatfold.recall import Postings, scope_token
from chatfold.stores._search import backfill, postings, scoped_terms

if TYPE_CHECKING:
    import psycopg

__all__ = ["backfill_search", "delete_index", "index_rows", "search"]


def index_rows(
    conn: psycopg.Connection[Any], ns: str, cid: str,
    rows: Sequence[tuple[int, Mapping[str, Any]]],
) -> None:
    """Index log entries ``(seq, message)`` for search (inside the caller's transaction).

    Each entry's terms, prefixed with the conversation's scope token, are stored as lexemes
    exactly (``array_to_tsvector``: no parser, no stemming, so Chinese bigrams stay whole) in
    a ``tsvector`` column with a GIN index.
    """
    entries, total = scoped_terms(ns, cid, rows)
    docs = [(ns, cid, seq, len(terms), terms) for seq, terms in entries]
    if docs:
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO chatfold_search (namespace, conversation_id, seq, length, terms) "
                "VALUES (%s, %s, %s, %s, array_to_tsvector(%s::text[]))",
                docs,
            )
    conn.execute(
        "INSERT INTO chatfold_search_stats (namespace, id, docs, length) "
        "VALUES (%s, %s, %s, %s) ON CONFLICT (namespace, id) DO UPDATE "
        "SET docs = chatfold_search_stats.docs + EXCLUDED.docs, "
        "length = chatfold_search_stats.length + EXCLUDED.length",
        (ns, cid, len(rows), total),
    )


def backfill_search(conn: psycopg.Connection[Any]) -> None:
    """Index every entry already stored (migration 3), a conversation at a time."""
    backfill(
        conn,
        "SELECT seq, message FROM chatfold_entries WHERE namespace = %s "
        "AND conversation_id = %s ORDER BY seq",
        index_rows,
    )


def search(
    conn: psycopg.Connection[Any], ns: str, cid: str, wanted: list[str], *, through_seq: int,
    max_df: int,
) -> Postings:
    """The postings of ``wanted`` (checked terms) in ``cid``'s entries through ``through_seq``.

    See :meth:`chatfold.stores.base.Store.search`.
    """
    row = conn.execute(
        "SELECT docs, length FROM chatfold_search_stats WHERE namespace = %s AND id = %s",
        (ns, cid),
    ).fetchone()
    if row is None:
        return Postings(hits={t: () for t in wanted})
    # One round trip: each term's entries through the GIN index (a term is letters
    # and digits only, so quoting it makes a one-lexeme tsquery), max_df + 1 at most,
    # unordered so that the heap scan of a common term stops there (sorted by postings()).
    scope = scope_token(ns, cid)
    queries = [f"'{scope}{t}'" for t in wanted]
    rows = conn.execute(
        "SELECT q.term, s.seq, s.length FROM unnest(%s::text[], %s::text[]) "
        "AS q(term, query) CROSS JOIN LATERAL (SELECT seq, length FROM chatfold_search "
        "WHERE terms @@ q.query::tsquery "
        "AND namespace = %s AND conversation_id = %s AND seq <= %s "
        "LIMIT %s) AS s",
        (wanted, queries, ns, cid, through_seq, max_df + 1),
    ).fetchall()
    found: dict[str, list[tuple[int, int]]] = {t: [] for t in wanted}
    for term, seq, length in rows:
        found[str(term)].append((int(seq), int(length)))
    return postings(int(row[0]), int(row[1]), found, max_df)


def delete_index(conn: psycopg.Connection[Any], ns: str, cid: str) -> None:
    """Remove ``cid``'s entries from the index (inside the caller's transaction)."""
    conn.execute(
        "DELETE FROM chatfold_search WHERE namespace = %s AND conversation_id = %s",
        (ns, cid),
    )
    conn.execute(
        "DELETE FROM chatfold_search_stats WHERE namespace = %s AND id = %s", (ns, cid)
    )
