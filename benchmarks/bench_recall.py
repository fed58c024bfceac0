"""Recall (issue 12): retention at the same budget with and without recall, and its cost.

1. **Retention on LoCoMo.** Each conversation is replayed message by message into a stored
   conversation (``MemoryStore``, extractive summarizer, ``keep=4``, inline folds) at a total
   budget of 2,000 and of 4,000 tokens: once without recall (``Policy(trigger_tokens=budget)``)
   and once with ``recall_tokens`` = a share of the budget (the fold then runs at ``budget -
   recall_tokens``, so the whole context stays within the same budget). Each QA item of
   categories 1-4 is then asked: the context for that question (``context(query=question)``)
   is scored with ``bench_retention``'s answer-token recall ("old facts": evidence all in the
   first half of the conversation). Tokens spent on recall are the recall message's.
2. **Cost of ``context()`` with recall** at 1,000 / 10,000 / 100,000 archived messages on each
   store (PostgreSQL and Redis when ``CHATFOLD_TEST_POSTGRES_URL`` / ``CHATFOLD_TEST_REDIS_URL``
   are set, e.g. under ``scripts/with-services.sh``): the archive is LoCoMo's messages cycled,
   folded away (fold state ``covered_through`` = the archive), a few recent messages after it;
   ``context(query=q)`` is timed with recall off and on over distinct LoCoMo questions (no
   cache hit), and the median difference is what recall adds.

    python benchmarks/bench_recall.py [--quick] [--out DIR] [--data PATH] [--shares 0.25]
        [--budgets 2000,4000] [--sizes 1000,10000,100000] [--stores sqlite,postgres]
        [--skip-retention] [--skip-cost]
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import _common as c
from bench_retention import CATEGORIES, KEEP, Item, Score, first_half, qa_items, score_context
from chatfold import Policy
from chatfold.session import Conversation
from chatfold.stores import BaseStore, FoldState, MemoryStore, SQLiteStore
from chatfold.summarizers.extractive import ExtractiveSummarizer

NO_RECALL = "chatfold + extractive, no recall"


def with_recall(share: float) -> str:
    return f"chatfold + extractive + recall ({share:.0%} of the budget)"


def replay_conversation(messages: Sequence[c.Message], budget: int, recall: int) -> Conversation:
    conv = Conversation(f"b{uuid.uuid4().hex[:8]}", store=MemoryStore(),
                        summarizer=ExtractiveSummarizer(),
                        policy=Policy(trigger_tokens=budget, keep=KEEP, recall_tokens=recall))
    for m in messages:
        conv.append(m)
        conv.context()
    return conv


def score_with_queries(conv: Conversation, items: Sequence[Item], score: Score, ruler: Any,
                       old: set[str], spent: list[int]) -> None:
    for it in items:
        context = conv.raw_context(query=it.question)
        score_context([it], context, score, ruler, old)
        spent.append(conv.last_recall.tokens)


# ---------------------------------------------------------------------------------------------
# cost


def open_stores(tmp: str) -> dict[str, Callable[[], BaseStore]]:
    stores: dict[str, Callable[[], BaseStore]] = {
        "memory": MemoryStore,
        "sqlite": lambda: SQLiteStore(os.path.join(tmp, f"{uuid.uuid4().hex[:8]}.db")),
    }
    pg = os.environ.get("CHATFOLD_TEST_POSTGRES_URL")
    if pg:
        from chatfold.stores.postgres import PostgresStore

        stores["postgres"] = lambda: PostgresStore(pg, namespace=f"b{uuid.uuid4().hex[:8]}")
    rd = os.environ.get("CHATFOLD_TEST_REDIS_URL")
    if rd:
        from chatfold.stores.redis import RedisStore

        stores["redis"] = lambda: RedisStore(rd, namespace=f"b{uuid.uuid4().hex[:8]}")
    return stores


def build_archive(store: BaseStore, corpus: Sequence[c.Message], n: int) -> None:
    batch = 500
    for start in range(0, n, batch):
        store.append("a", [
            {"role": corpus[i % len(corpus)]["role"], "content": corpus[i % len(corpus)]["content"]}
            for i in range(start, min(n, start + batch))
        ])
    store.save_state("a", FoldState(summary="The users talked about their lives.",
                                    covered_through=n, version=1, language="en"),
                     expected_version=0)
    if store.name == "postgres":  # fresh planner statistics, as autovacuum would gather
        import psycopg

        with psycopg.connect(os.environ["CHATFOLD_TEST_POSTGRES_URL"], autocommit=True) as conn:
            conn.execute("ANALYZE chatfold_search, chatfold_entries")
    store.append("a", [{"role": "user", "content": "Good morning!"},
                       {"role": "assistant", "content": "Morning! How are you?"},
                       {"role": "user", "content": "Fine. A question about the past."}])


def time_context(conv: Conversation, queries: Sequence[str]) -> list[float]:
    out = []
    for q in queries:
        t0 = time.perf_counter()
        conv.context(query=q)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> None:
    p = c.make_parser(__doc__.splitlines()[0], data=True)
    p.add_argument("--shares", default="0.25",
                   help="comma-separated shares of the budget given to recall (default 0.25)")
    p.add_argument("--sizes", default="",
                   help="archive sizes for the cost part (default 1000,10000,100000)")
    p.add_argument("--budgets", default="",
                   help="comma-separated total budgets for the retention part (default 2000,4000)")
    p.add_argument("--stores", default="",
                   help="comma-separated stores for the cost part (default: every one available)")
    p.add_argument("--skip-retention", action="store_true")
    p.add_argument("--skip-cost", action="store_true")
    args = p.parse_args()
    samples = c.locomo_samples(args.data)
    ruler, ruler_name = c.true_counter()
    shares = [float(s) for s in args.shares.split(",")]
    budgets = (1000, 2000) if args.quick else (2000, 4000)
    if args.budgets:
        budgets = tuple(int(b) for b in args.budgets.split(","))
    sizes = (200, 1000) if args.quick else (1000, 10_000, 100_000)
    if args.sizes:
        sizes = tuple(int(s) for s in args.sizes.split(","))
    if args.quick:
        samples = samples[:1]
    strategies = [NO_RECALL, *(with_recall(s) for s in shares)]
    headline: dict[str, Any] = {"budgets": list(budgets), "shares": shares,
                                "counter": ruler_name}
    sections = []

    if not args.skip_retention:
        scores = {(b, s): Score() for b in budgets for s in strategies}
        spent: dict[tuple[int, str], list[int]] = {(b, s): [] for b in budgets
                                                   for s in strategies}
        n_items = 0
        for n, sample in enumerate(samples):
            messages = c.locomo_conversation(sample, dia_ids=True)
            if args.quick:
                messages = messages[:150]
            items = qa_items(sample)
            n_items += len(items)
            old = first_half(messages)
            for b in budgets:
                for s, share in zip(strategies, [0.0, *shares], strict=True):
                    conv = replay_conversation(messages, b, int(b * share))
                    score_with_queries(conv, items, scores[(b, s)], ruler, old, spent[(b, s)])
            print(f"  conversation {n + 1}/{len(samples)}: {len(messages)} messages, "
                  f"{len(items)} QA items", file=sys.stderr)
        cats = list(CATEGORIES)
        for b in budgets:
            rows = []
            for s in strategies:
                sc = scores[(b, s)]
                old_r = sc.old_recall / sc.old_n if sc.old_n else float("nan")
                rows.append([s, round(c.mean(sc.context_tokens)), round(c.mean(spent[(b, s)])),
                             *(sc.share(sc.recall, k) for k in cats), sc.share(sc.recall, None),
                             old_r])
                headline[f"recall@{b}:{s}"] = sc.share(sc.recall, None)
                headline[f"old@{b}:{s}"] = old_r
                headline[f"tokens@{b}:{s}"] = c.mean(sc.context_tokens)
                headline[f"recall_tokens@{b}:{s}"] = c.mean(spent[(b, s)])
            sections.append(f"""
### Budget {b:,} tokens

{c.table(["strategy", "mean context tokens", "mean recall tokens",
          *(f"{k} {CATEGORIES[k]}" for k in cats), "all 1-4", "old facts"], rows, digits=3)}
""")
        sections.insert(0, f"""
### Retention on LoCoMo at the same total budget

{len(samples)} conversation(s), {n_items:,} QA items of categories 1-4, answer-token recall
(mean over items; scoring of `bench_retention.py`). Context tokens are {ruler_name} tokens and
include the recall message; the budget is the trigger in chatfold's own (heuristic) count.
""")

    if not args.skip_cost:
        corpus = [m for s in samples for m in c.locomo_conversation(s)]
        questions = [it.question for s in samples for it in qa_items(s)]
        n_q = 30 if args.quick else 200
        rows = []
        with tempfile.TemporaryDirectory() as tmp:
            chosen = set(args.stores.split(",")) if args.stores else None
            for name, factory in open_stores(tmp).items():
                if chosen is not None and name not in chosen:
                    continue
                base_added: float | None = None
                for size in sizes:
                    store = factory()
                    t0 = time.perf_counter()
                    build_archive(store, corpus, size)
                    built = time.perf_counter() - t0
                    kw: dict[str, Any] = {"store": store, "summarizer": ExtractiveSummarizer()}
                    off = Conversation("a", policy=Policy(trigger_tokens=4000), **kw)
                    on = Conversation("a", policy=Policy(trigger_tokens=4000,
                                                          recall_tokens=1000), **kw)
                    off.context()
                    on.context(query="warm up")
                    queries = questions[:n_q]
                    t_off = time_context(off, queries)
                    t_on = time_context(on, queries)
                    hits = on.last_recall
                    added = c.median(t_on) - c.median(t_off)
                    if base_added is None:
                        base_added = added
                    growth = added / base_added if base_added > 0 else float("nan")
                    rows.append([name, f"{size:,}", c.median(t_off), c.median(t_on),
                                 c.percentile(t_on, 95), added, growth, built])
                    headline[f"context_ms@{name}:{size}:off"] = c.median(t_off)
                    headline[f"context_ms@{name}:{size}:on"] = c.median(t_on)
                    headline[f"added_ms@{name}:{size}"] = added
                    print(f"  {name} {size}: off {c.median(t_off):.2f} ms, on "
                          f"{c.median(t_on):.2f} ms ({len(hits.hits)} hits last)",
                          file=sys.stderr)
                    store.delete("a")
                    store.close()
        sections.append(f"""
### Cost of `context()` with recall

Median milliseconds per `context(query=...)` over {n_q} distinct LoCoMo questions, recall off
(`recall_tokens=0`) and on (`recall_tokens=1000`), on an archive of N folded-away messages
(LoCoMo's messages cycled) plus 3 recent ones; "added" is the difference of the medians,
"growth" the added cost relative to the smallest archive (linear growth would be the ratio of
the sizes). "build s" is the time to append the archive (indexing included) in batches of 500.

{c.table(["store", "archived", "off ms", "on ms", "on p95 ms", "added ms", "growth",
          "build s"], rows, digits=2)}

A search reads, per query term, at most `max_df` + 1 (501) postings, and a recall reads about
a budget's worth of candidate messages, so the work is bounded whatever the archive's size:
a term found in more than 500 of the archived messages is not scored. SQLite reads each
conversation's postings by rowid range out of FTS5 and counts a common term in C before
reading it; Redis binary-searches its per-term posting strings inside one Lua script;
PostgreSQL's GIN index yields every posting of a term (the heap scan stops after 501 rows),
which is why its cost grows most (statistics gathered with `ANALYZE` after the bulk load, as
autovacuum would).
""")

    c.write_results("recall", "Recall from the archive (issue 12)", "".join(sections), headline,
                    args.out, quick=args.quick)


if __name__ == "__main__":
    main()
