"""The PostgreSQL store's search index for recall: a ``tsvector`` column with a GIN index.

Each entry's terms, prefixed with the conversation's scope token, are stored as lexemes exactly
(``array_to_tsvector``: no parser, no stemming, so Chinese bigrams stay whole); a stats row per
conversation holds the totals for BM25. Everything here runs on the caller's connection,
inside its transaction where it has one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from chatfold.recall import Postings, message_terms, scope_token
from chatfold.stores._records import decode_message

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
    scope = scope_token(ns, cid)
    docs = []
    total = 0
    for seq, message in rows:
        found = message_terms(message)
        total += len(found)
        if found:
            docs.append((ns, cid, seq, len(found), [scope + t for t in found]))
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
    conversations = conn.execute("SELECT namespace, id FROM chatfold_conversations").fetchall()
    for ns, cid in conversations:
        rows = conn.execute(
            "SELECT seq, message FROM chatfold_entries WHERE namespace = %s "
            "AND conversation_id = %s ORDER BY seq",
            (ns, cid),
        ).fetchall()
        index_rows(conn, ns, cid, [(int(seq), decode_message(text)) for seq, text in rows])


def search(
    conn: psycopg.Connection[Any], ns: str, cid: str, wanted: list[str], *, through_seq: int,
    max_df: int,
) -> Postings:
    """The postings of ``wanted`` (checked terms) in ``cid``'s entries through ``through_seq``.

    See :meth:`chatfold.stores.base.Store.search`.
    """
    scope = scope_token(ns, cid)
    hits: dict[str, tuple[tuple[int, int], ...]] = {}
    common: set[str] = set()
    row = conn.execute(
        "SELECT docs, length FROM chatfold_search_stats WHERE namespace = %s AND id = %s",
        (ns, cid),
    ).fetchone()
    if row is None:
        return Postings(hits={t: () for t in wanted})
    # One round trip: each term's entries through the GIN index (a term is letters
    # and digits only, so quoting it makes a one-lexeme tsquery), max_df + 1 at most,
    # unordered so that the heap scan of a common term stops there (sorted below).
    queries = [f"'{scope}{t}'" for t in wanted]
    found = conn.execute(
        "SELECT q.term, s.seq, s.length FROM unnest(%s::text[], %s::text[]) "
        "AS q(term, query) CROSS JOIN LATERAL (SELECT seq, length FROM chatfold_search "
        "WHERE terms @@ q.query::tsquery "
        "AND namespace = %s AND conversation_id = %s AND seq <= %s "
        "LIMIT %s) AS s",
        (wanted, queries, ns, cid, through_seq, max_df + 1),
    ).fetchall()
    by_term: dict[str, list[tuple[int, int]]] = {t: [] for t in wanted}
    for term, seq, length in found:
        by_term[str(term)].append((int(seq), int(length)))
    for term, got in by_term.items():
        if len(got) > max_df:
            common.add(term)
        else:
            hits[term] = tuple(sorted(got))
    return Postings(docs=int(row[0]), total_length=int(row[1]), hits=hits,
                    common=frozenset(common))


def delete_index(conn: psycopg.Connection[Any], ns: str, cid: str) -> None:
    """Remove ``cid``'s entries from the index (inside the caller's transaction)."""
    conn.execute(
        "DELETE FROM chatfold_search WHERE namespace = %s AND conversation_id = %s",
        (ns, cid),
    )
    conn.execute(
        "DELETE FROM chatfold_search_stats WHERE namespace = %s AND id = %s", (ns, cid)
    )
