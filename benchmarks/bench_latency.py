"""Turn latency: how long a user's turn waits for the context, inline against background folds.

Issue 6, item 5. A summarizer that takes 0.5 s (the extractive summarizer plus a sleep) folds a
500-turn replay through ``Conversation`` with a ``MemoryStore``. A turn is: append the user's
message, get the context (**timed**: this is what the user waits for before the model can
even start), then the model "answers" (a simulated 0.1 s, during which a background fold can
run), and its answer is appended.

* ``fold_mode="inline"``: the fold runs inside ``context()``, so a turn that crosses the
  trigger waits for the whole summarizer call (the seed's behaviour).
* ``fold_mode="background"``: ``context()`` returns the current context at once and folds in a
  thread; a turn waits only when the context would exceed the hard limit
  (trigger + half the trigger-target gap) before the fold has landed.

The two modes run at the same time in two threads of one process (they mostly sleep, and
this halves the benchmark's wall time); each has its own conversation and summarizer.

Two more sections time chatfold's own work per turn, with a new message object every turn (as
in real use, so no per-message cache answers for it):

* **The hot path** (issue 13, item 2): ``Conversation`` + ``MemoryStore`` on a folded history
  (trigger 3,000, keep 4), one append + one ``context()`` per turn, against the floor of a turn
  (counting the new message) measured in the same loop.
* **SQLite durability** (issue 13, item 4): the same turn on a ``SQLiteStore`` file on disk
  with ``synchronous="FULL"`` (the default) and ``"NORMAL"``, against ``MemoryStore``.

    python benchmarks/bench_latency.py [--quick] [--out DIR] [--only-turns]
"""

from __future__ import annotations

import gc
import itertools
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import _common as c
from chatfold import Policy
from chatfold.session import Conversation
from chatfold.stores import MemoryStore, SQLiteStore
from chatfold.summarizers.extractive import ExtractiveSummarizer
from chatfold.tokens import default_counter


class SlowSummarizer:
    """The extractive summarizer, made to take ``delay`` seconds like an LLM call."""

    accepts_request = True

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.inner = ExtractiveSummarizer()
        self.calls = 0

    def summarize(self, request: Any) -> str:
        self.calls += 1
        started = time.perf_counter()
        text = self.inner.summarize(request)
        left = self.delay - (time.perf_counter() - started)
        if left > 0:
            time.sleep(left)
        return text


BLOCKED = 0.1
"""A turn that waited at least this share of a summarizer call waited for a fold."""


@dataclass
class ModeResult:
    mode: str
    waits: list[float]
    context_tokens: list[int]
    folds: int
    calls: int
    seconds: float
    blocked_turns: int


def turn_texts(n_turns: int, data: Any) -> tuple[list[tuple[str, str]], str]:
    """``n_turns`` (user, assistant) text pairs: LoCoMo's dialogue when available (its
    conversations one after another, consecutive messages paired), else synthetic messages."""
    texts: list[str] = []
    if data is not None and data.exists():
        for sample in c.locomo_samples(data):
            texts.extend(str(m["content"]) for m in c.locomo_conversation(sample))
            if len(texts) >= 2 * n_turns:
                return ([(texts[2 * i], texts[2 * i + 1]) for i in range(n_turns)],
                        "LoCoMo dialogue (consecutive messages as user / assistant)")
    texts = [c.synthetic_message(i)["content"] for i in range(2 * n_turns)]
    return [(texts[2 * i], texts[2 * i + 1]) for i in range(n_turns)], "synthetic messages"


def run_mode(mode: str, pairs: list[tuple[str, str]], policy: Policy, delay: float,
             think: float, out: dict[str, ModeResult]) -> None:
    summarizer = SlowSummarizer(delay)
    conv = Conversation(f"latency-{mode}", store=MemoryStore(), summarizer=summarizer,
                        policy=policy, system="You are a helpful assistant.",
                        fold_mode=mode)  # type: ignore[arg-type]
    waits: list[float] = []
    tokens: list[int] = []
    blocked = 0
    clock = time.perf_counter
    started = clock()
    for user, assistant in pairs:
        t0 = clock()
        conv.append({"role": "user", "content": user})
        context = conv.context()
        wait = clock() - t0
        waits.append(wait)
        if wait >= delay * BLOCKED:
            blocked += 1
        tokens.append(sum(conv.counter.count_message(m) for m in context))
        time.sleep(think)  # the model writes its answer
        conv.append({"role": "assistant", "content": assistant})
    conv.wait()
    stats = conv.stats()
    out[mode] = ModeResult(mode, waits, tokens, stats.folds, summarizer.calls,
                           clock() - started, blocked)
    conv.close()


class InstantSummarizer:
    """A summarizer that answers at once: the turn sections time chatfold, not a model."""

    accepts_request = True

    def summarize(self, request: Any) -> str:
        return "The user and the assistant discussed budgets, flights and a database bug."


_UNSEEN = itertools.count(1)


def time_turns(store: Any, history: int, turns: int, counted: list[float] | None = None
               ) -> list[float]:
    """Seconds per turn (one append of a new message object + one ``context()``) of a
    conversation on ``store`` that already holds ``history`` messages (folded, untimed).
    With ``counted``, the floor of each turn (counting a new message alone: another message,
    whose text was never counted, since counts are cached by text) is timed in the same loop."""
    conv = Conversation("turns", store=store, summarizer=InstantSummarizer(),
                        policy=Policy(trigger_tokens=3000, keep=4, recall_tokens=0),
                        system="You are a helpful assistant.")
    conv.append([c.synthetic_message(i) for i in range(history)])
    conv.context()
    counter = default_counter()
    # Texts never counted before, by this call or an earlier one (counts are cached by text).
    first = 10**6 * next(_UNSEEN)
    new = [c.synthetic_message(i) for i in range(first, first + turns)]
    unseen = [c.synthetic_message(i) for i in range(first + turns, first + 2 * turns)]
    clock = time.perf_counter
    out = []
    gc.collect()
    for m, other in zip(new, unseen, strict=True):
        fresh = dict(m)  # a new object (and text) every turn, as a real reply is
        t0 = clock()
        conv.append(fresh)
        conv.context()
        out.append(clock() - t0)
        if counted is not None:
            t0 = clock()
            counter.count_message(other)
            counted.append(clock() - t0)
    conv.close()
    return out


def turn_sections(quick: bool) -> tuple[str, dict[str, Any]]:
    """The hot-path and SQLite-durability sections: Markdown and headline figures."""
    history, turns, repeats = (200, 100, 2) if quick else (1_000, 400, 5)
    disk_turns = 20 if quick else 100
    hot: list[float] = []
    floor: list[float] = []
    for _ in range(repeats):
        hot += time_turns(MemoryStore(), history, turns, floor)
    hot_us, floor_us = c.median(hot) * 1e6, c.median(floor) * 1e6

    # On disk (the system temp dir), not tmpfs: fsync is what FULL pays for.
    where = Path(tempfile.mkdtemp(prefix="chatfold-durability-"))
    per: dict[str, list[float]] = {"FULL": [], "NORMAL": [], "memory": []}
    try:
        for rep in range(repeats):
            for level in ("FULL", "NORMAL"):
                store = SQLiteStore(where / f"{level}-{rep}.db", synchronous=level)  # type: ignore[arg-type]
                per[level] += time_turns(store, history, disk_turns)
            per["memory"] += time_turns(MemoryStore(), history, disk_turns)
    finally:
        shutil.rmtree(where, ignore_errors=True)
    us = {k: c.median(v) * 1e6 for k, v in per.items()}
    rows = [
        ['`SQLiteStore(synchronous="FULL")` (default)', us["FULL"], us["FULL"] / us["memory"],
         "a crash of the process, of the OS, a power loss"],
        ['`SQLiteStore(synchronous="NORMAL")`', us["NORMAL"], us["NORMAL"] / us["memory"],
         "a crash of the process; an OS crash or power loss may lose the last commits "
         "(never corrupts the file)"],
        ["`MemoryStore` (reference)", us["memory"], 1.0, "nothing (not persisted)"],
    ]
    body = f"""
### The hot path: `Conversation` + `MemoryStore`, folded history, a new message object per turn

A conversation of {history:,} messages, folded (trigger 3,000, keep 4, an instant
summarizer, recall off: the fold's own path; auto recall adds a search per new user message,
measured in the overhead and recall sections); each turn appends a new message (a new object
with a new text) and gets the context; median over {repeats} × {turns} turns. The floor of a
turn is counting one new message (a text never counted, so the count cache cannot answer),
timed in the same loop.

{c.table(["", "µs/turn", "× the floor"], [
    ["`Conversation` + `MemoryStore` turn", hot_us, hot_us / floor_us],
    ["floor: count the new message", floor_us, 1.0]], digits=1)}

### SQLite durability: `synchronous`

The same turn ({disk_turns} turns × {repeats} repeats, history {history:,}) on a SQLite file in
the system temp directory (a real disk here: every `FULL` commit waits for `fsync`).

{c.table(["store", "µs/turn", "× MemoryStore", "an acknowledged append survives"], rows,
         digits=1)}
"""
    headline = {
        "hot_path_us_per_turn": hot_us, "hot_path_floor_us": floor_us,
        "hot_path_over_floor": hot_us / floor_us,
        "sqlite_full_us_per_turn": us["FULL"], "sqlite_normal_us_per_turn": us["NORMAL"],
        "memory_us_per_turn": us["memory"], "sqlite_full_over_normal": us["FULL"] / us["NORMAL"],
    }
    return body, headline


def main() -> None:
    p = c.make_parser(__doc__.splitlines()[0], data=True)
    p.add_argument("--sequential", action="store_true",
                   help="run the two modes one after the other instead of side by side")
    p.add_argument("--only-turns", action="store_true",
                   help="only the hot-path and SQLite-durability sections (no inline/background)")
    args = p.parse_args()
    turns_body, turns_headline = turn_sections(args.quick)
    if args.only_turns:
        print(turns_body)
        for key, value in turns_headline.items():
            print(f"{key}: {value:.2f}")
        return
    if args.quick:
        delay, n_turns, think, trigger = 0.05, 60, 0.01, 1000
    else:
        delay, n_turns, think, trigger = 0.5, 500, 0.1, 2000
    policy = Policy(trigger_tokens=trigger, keep=4)
    pairs, source = turn_texts(n_turns, args.data)
    results: dict[str, ModeResult] = {}
    threads = [threading.Thread(target=run_mode, name=f"bench-{mode}",
                                args=(mode, pairs, policy, delay, think, results))
               for mode in ("inline", "background")]
    for t in threads:
        t.start()
        if args.sequential:
            t.join()
    for t in threads:
        t.join()
    if set(results) != {"inline", "background"}:
        raise SystemExit("a mode failed; see the traceback above")

    inline, background = results["inline"], results["background"]
    p95_note = (", so the p95 is a summarizer call"
                if c.percentile(inline.waits, 95) >= delay * 0.5 else "")
    hard_limit = trigger + max(1, (trigger - policy.target) // 2)
    rows = []
    for mode in ("inline", "background"):
        r = results[mode]
        ms = [w * 1e3 for w in r.waits]
        rows.append([f"`fold_mode=\"{mode}\"`", c.percentile(ms, 50), c.percentile(ms, 95),
                     max(ms), r.blocked_turns, r.folds, r.calls, max(r.context_tokens),
                     c.mean(r.context_tokens)])
    p95_in = c.percentile([w * 1e3 for w in inline.waits], 95)
    p95_bg = c.percentile([w * 1e3 for w in background.waits], 95)
    body = f"""
{n_turns} turns; the summarizer takes {delay} s per call; policy: trigger {trigger:,}, target
{policy.target:,}, keep 4 (heuristic counter), recall on as by default (a quarter of the
trigger: each new user message is searched for in the archive); messages: {source}. A turn
appends the user's message and gets the context (timed), then the model's answer takes a
simulated {think} s before it is appended. "Blocked turns" waited for a fold (at least
{BLOCKED:.0%} of a summarizer call, {delay * BLOCKED * 1e3:.0f} ms). Context tokens are the
context handed to the model at each turn (the background mode lets it run over the trigger, up
to the hard limit of {hard_limit:,}, while a fold is in flight).

{c.table(["mode", "p50 wait (ms)", "p95 wait (ms)", "max wait (ms)", "blocked turns",
          "folds", "summarizer calls", "peak context", "mean context"], rows, digits=2)}

Inline folding makes every turn that crosses the trigger wait for a whole summarizer call
(here {inline.blocked_turns} of {n_turns} turns{p95_note}). In the
background the fold overlaps the model's answer; a turn blocks only if the context reaches the
hard limit before the fold lands, which with a {think} s model answer (far quicker than real
models) happened {background.blocked_turns} time(s), for at most
{max(background.waits) * 1e3:.0f} ms.
"""
    body += turns_body
    headline = {
        **turns_headline,
        "turns": n_turns, "delay_s": delay, "think_s": think, "trigger": trigger,
        "inline_p50_ms": c.percentile([w * 1e3 for w in inline.waits], 50),
        "inline_p95_ms": p95_in, "inline_max_ms": max(inline.waits) * 1e3,
        "background_p50_ms": c.percentile([w * 1e3 for w in background.waits], 50),
        "background_p95_ms": p95_bg, "background_max_ms": max(background.waits) * 1e3,
        "inline_folds": inline.folds, "background_folds": background.folds,
        "background_blocked_turns": background.blocked_turns,
        "inline_blocked_turns": inline.blocked_turns,
        "background_peak_context": max(background.context_tokens),
        "inline_peak_context": max(inline.context_tokens),
    }
    c.write_results("latency", "Turn latency, inline against background folding "
                    "(issue 6, item 5)", body, headline, args.out, quick=args.quick)


if __name__ == "__main__":
    main()
