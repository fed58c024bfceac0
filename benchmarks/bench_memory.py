"""Memory: what a long chat leaves allocated once its history is folded away (issue 13, item 3).

Each scenario runs in a fresh process, twice: once plain (time per turn, RSS) and once under
``tracemalloc`` (bytes allocated by Python, exactly). A scenario feeds N new messages turn by
turn, the caller keeping only what the library returned (the folded context, or the
conversation object), then drops its own copy of the input, collects garbage, and reports:

* **retained**: bytes still allocated after the loop (tracemalloc), beyond what was allocated
  before it; the context handed back is counted in it (it is what the caller keeps).
* **peak**: the most bytes allocated at once during the loop (tracemalloc).
* **RSS**: the process's resident memory after the loop and its high-water mark (from
  ``/proc/self/status``; coarse: the allocator does not return every freed page).
* **µs/turn**: median time of one turn (append + fold or context), in the plain run.

Scenarios (the summarizer is instant):

* ``folder-4kb``: 20,000 messages of about 4 KB (about 2,500 heuristic tokens: many numbers)
  through ``Folder`` at trigger 12,000: the issue's case (the old process-wide count cache
  kept them all, 82 MiB).
* ``seed-4kb``: the same through the seed's ``maybe_compress`` (the reference: it caches
  nothing).
* ``folder-100k``: 100,000 short messages through ``Folder`` at trigger 3,000.
* ``folder-100k-under``: 100,000 short messages under the trigger: the whole history is the
  context, so the caller keeps it; retained is measured beyond the history itself, i.e. what
  the folder adds to it (its memo of the counts).
* ``conversation-100k``: 100,000 short messages through ``Conversation`` + ``MemoryStore`` at
  trigger 3,000; the store archives every message by design, so retained includes the archive.

    python benchmarks/bench_memory.py [--quick] [--out DIR]
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import _common as c

import seed_reference as seed

SCENARIOS = ("folder-4kb", "seed-4kb", "folder-100k", "folder-100k-under", "conversation-100k")
TRIGGER = 3000
TRIGGER_4KB = 12_000
MIB = 1024 * 1024


class Instant:
    """chatfold's summarizer protocol and the seed's ``summarize(text)``, instantly."""

    accepts_request = True

    def summarize(self, request: Any) -> str:
        return "The user and the assistant discussed budgets, flights and a database bug."


class InstantText:
    def summarize(self, text: str) -> str:
        return "The user and the assistant discussed budgets, flights and a database bug."


def rss() -> tuple[float, float]:
    """Resident and peak resident MiB of this process (Linux), NaN elsewhere."""
    now = peak = float("nan")
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    now = int(line.split()[1]) / 1024
                elif line.startswith("VmHWM:"):
                    peak = int(line.split()[1]) / 1024
    except OSError:
        pass
    return now, peak


def messages(n: int, words: int) -> list[c.Message]:
    return [c.synthetic_message(i, words=words) for i in range(n)]


def scenario(name: str, quick: bool) -> tuple[Callable[[list[c.Message]], Any],
                                               list[c.Message], bool]:
    """(a loop that returns what the caller keeps, the messages it feeds, whether the caller
    keeps the whole input as its context)."""
    from chatfold import Folder, Policy
    from chatfold.session import Conversation
    from chatfold.stores import MemoryStore

    big = name.endswith("4kb")
    n = (400 if big else 3000) if quick else (20_000 if big else 100_000)
    msgs = messages(n, 600 if big else 24)
    system = {"role": "system", "content": "You are a helpful assistant."}
    under = name.endswith("under")
    trigger = 10**9 if under else TRIGGER_4KB if big else TRIGGER

    if name.startswith("folder"):
        folder = Folder(Instant(), Policy(trigger_tokens=trigger, keep=4))

        def run(msgs: list[c.Message]) -> Any:
            context: list[Any] = [system]
            times = TIMES
            clock = time.perf_counter
            for m in msgs:
                t0 = clock()
                context.append(m)
                result = folder.fold(context)
                if result.folded:
                    context = list(result.messages)
                times.append(clock() - t0)
            return context, folder

    elif name.startswith("seed"):
        llm = InstantText()

        def run(msgs: list[c.Message]) -> Any:
            context: list[Any] = [system]
            times = TIMES
            clock = time.perf_counter
            for m in msgs:
                t0 = clock()
                context.append(m)
                context = seed.maybe_compress(context, llm, max_tokens=trigger)
                times.append(clock() - t0)
            return context

    else:
        conv = Conversation("bench", store=MemoryStore(), summarizer=Instant(),
                            policy=Policy(trigger_tokens=TRIGGER, keep=4),
                            system=system["content"])

        def run(msgs: list[c.Message]) -> Any:
            times = TIMES
            clock = time.perf_counter
            for m in msgs:
                t0 = clock()
                conv.append(m)
                conv.context()
                times.append(clock() - t0)
            return conv

    return run, msgs, under


TIMES: list[float] = []


def child(name: str, traced: bool, quick: bool) -> dict[str, Any]:
    """Run one scenario in this (fresh) process."""
    run, msgs, under = scenario(name, quick)
    fed = sum(len(str(m["content"])) for m in msgs)
    gc.collect()
    if traced:
        tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0] if traced else 0
    rss_before, _ = rss()
    kept = run(msgs)
    if not under:
        del msgs  # the caller keeps only what the library returned
    gc.collect()
    out: dict[str, Any] = {"messages": len(TIMES), "fed_mib": fed / MIB}
    if traced:
        current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        out.update(retained_mib=(current - before) / MIB, peak_mib=(peak - before) / MIB)
    else:
        now, high = rss()
        out.update(rss_mib=now, rss_growth_mib=now - rss_before, rss_peak_mib=high,
                   us_per_turn=c.median(TIMES) * 1e6)
    del kept
    return out


def measure(name: str, quick: bool) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for traced in (False, True):
        cmd = [sys.executable, __file__, "--child", name] + (["--traced"] if traced else [])
        if quick:
            cmd.append("--quick")
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=c.BENCH_DIR)
        if proc.returncode != 0:
            raise SystemExit(f"scenario {name} failed:\n{proc.stderr}")
        result.update(json.loads(proc.stdout.strip().splitlines()[-1]))
    print(f"  {name}: {result}", file=sys.stderr)
    return result


def main() -> None:
    p = c.make_parser(__doc__.splitlines()[0])
    p.add_argument("--child", choices=SCENARIOS, help=None)
    p.add_argument("--traced", action="store_true", help=None)
    args = p.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.traced, args.quick)))
        return
    res = {name: measure(name, args.quick) for name in SCENARIOS}
    rows = [[name, r["messages"], r["fed_mib"], r["retained_mib"], r["peak_mib"], r["rss_mib"],
             r["rss_peak_mib"], r["us_per_turn"]] for name, r in res.items()]
    f4, s4 = res["folder-4kb"], res["seed-4kb"]
    under = res["folder-100k-under"]
    body = f"""
{__doc__.split("Scenarios", 1)[0].split(chr(10), 2)[2].strip()}

{c.table(["scenario", "messages", "text fed (MiB)", "retained (MiB)", "peak (MiB)",
          "RSS after (MiB)", "RSS high-water (MiB)", "µs/turn (median)"], rows, digits=2)}

**Read off the table.** Folding {f4["messages"]:,} messages of about 4 KB
({f4["fed_mib"]:,.0f} MiB of text) through a `Folder` leaves {f4["retained_mib"]:,.2f} MiB
allocated (the folded context, the folder's memo of it and the count cache, which holds two
integers per text and no text); the seed, which caches nothing, leaves
{s4["retained_mib"]:,.2f} MiB. A folded-away message is freed as soon as the caller drops it:
nothing in chatfold refers to it (`tests/test_tokens.py` checks this with weak references).
Under the trigger the folder adds {under["retained_mib"] / max(under["messages"], 1) * MIB:,.0f}
bytes a message to the history the caller holds anyway (its memo: the list of the messages
and their counts). The `Conversation` row includes the `MemoryStore`'s archive of every
message, which is what that store is for.

Scenarios:

{__doc__.split("Scenarios (the summarizer is instant):", 1)[1].split("    python", 1)[0].strip()}
"""
    headline = {name: r for name, r in res.items()}
    c.write_results("memory", "Memory after a long chat (issue 13, item 3)", body, headline,
                    args.out, quick=args.quick)


if __name__ == "__main__":
    main()
