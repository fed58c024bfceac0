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

    python benchmarks/bench_latency.py [--quick] [--out DIR]
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

import _common as c
from chatfold import Policy
from chatfold.session import Conversation
from chatfold.stores import MemoryStore
from chatfold.summarizers.extractive import ExtractiveSummarizer


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


def main() -> None:
    p = c.make_parser(__doc__.splitlines()[0], data=True)
    p.add_argument("--sequential", action="store_true",
                   help="run the two modes one after the other instead of side by side")
    args = p.parse_args()
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
{policy.target:,}, keep 4 (heuristic counter); messages: {source}. A turn appends the user's
message and gets the context (timed), then the model's answer takes a simulated {think} s before
it is appended. "Blocked turns" waited for a fold (at least {BLOCKED:.0%} of a summarizer
call, {delay * BLOCKED * 1e3:.0f} ms). Context tokens are the
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
    headline = {
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
