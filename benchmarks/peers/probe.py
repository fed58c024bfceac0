"""Probe: replay one synthetic conversation with tool calls through every peer.

Runs inside the peers environment (``benchmarks/peers/setup.sh``)::

    benchmarks/.venv-peers/bin/python benchmarks/peers/probe.py [--messages 200]

It checks that each peer installs, imports and runs offline with a trivial deterministic
summarizer (the first 200 characters of the prompt), and prints per peer and per mode:
summarizer calls, tokens sent to the summarizer, peak and mean context tokens, contexts a
provider would reject (orphan tool results, unanswered tool calls) and microseconds per step.
It is a smoke test of the adapters, not the benchmark: its figures are not quoted.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from adapters import (
    PEERS,
    TEXT_SOURCE,
    context_tokens,
    dangling_tool_calls,
    message_text,
    orphan_tool_results,
    peer_import_errors,
    peer_versions,
)

Message = dict[str, Any]

_WORDS = [
    *("the", "plan", "budget", "flight", "hotel", "invoice", "report", "meeting", "deadline"),
    *("client", "server", "database", "query", "result", "error", "retry", "latency", "cache"),
    *("window", "summary", "order", "refund", "address", "schedule", "weather", "museum"),
    *("ticket", "train", "station", "coffee", "review", "draft", "version", "release", "bug"),
    "patch",
]
_CITIES = ["Berlin", "Lisbon", "Osaka", "Austin", "Nairobi", "Oslo", "Lima", "Hanoi"]
_TOOLS = ["search_flights", "get_weather", "lookup_order", "run_query"]


def _words(rng: random.Random, lo: int, hi: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(lo, hi)))


def synthetic_conversation(n: int = 200, seed: int = 7, tool_share: float = 0.35) -> list[Message]:
    """A deterministic chat of about ``n`` messages: a system prompt, user/assistant turns,
    and turns where the assistant calls one or two tools (parallel calls) before answering.
    Each user turn states one fact ("order 1042 ships to Osaka") so retention can be checked.
    """
    rng = random.Random(seed)
    messages: list[Message] = [
        {
            "role": "system",
            "content": "You are a concise travel and operations assistant. " + _words(rng, 30, 40),
        }
    ]
    call_no = 0
    turn = 0
    while len(messages) < n:
        turn += 1
        fact = f"order {1000 + turn} ships to {rng.choice(_CITIES)}"
        messages.append({"role": "user", "content": f"Note: {fact}. " + _words(rng, 15, 70)})
        if rng.random() < tool_share:
            calls = []
            for _ in range(rng.choice((1, 1, 2))):
                call_no += 1
                args = {"city": rng.choice(_CITIES), "day": rng.randint(1, 28)}
                calls.append(
                    {
                        "id": f"call_{call_no}",
                        "type": "function",
                        "function": {"name": rng.choice(_TOOLS), "arguments": json.dumps(args)},
                    }
                )
            text = _words(rng, 3, 10) if rng.random() < 0.3 else None
            messages.append({"role": "assistant", "content": text, "tool_calls": calls})
            for call in calls:
                messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": call["id"],
                        "content": json.dumps({"ok": True, "data": _words(rng, 40, 200)}),
                    }
                )
        messages.append({"role": "assistant", "content": _words(rng, 20, 110)})
    return messages


def chars4(text: str) -> int:
    """The probe's token counter: four characters a token."""
    return len(text) // 4


def first_200(prompt_text: str) -> str:
    """The probe's summarizer: instant and deterministic."""
    return prompt_text[:200]


def replay(
    runner_cls: Any,
    conversation: list[Message],
    *,
    trigger: int,
    keep: int,
    count: Callable[[str], int],
    model_turns_only: bool,
) -> dict[str, Any]:
    """Replay ``conversation`` through one peer; return its figures."""
    runner = runner_cls(first_200, trigger, keep, count, model_turns_only=model_turns_only)
    step_ns: list[int] = []
    sizes: list[int] = []
    orphans = dangling = 0
    max_len = 0
    try:
        for message in conversation:
            start = time.perf_counter_ns()
            context = runner.step(message)
            step_ns.append(time.perf_counter_ns() - start)
            if model_turns_only and not runner.last_step_was_model_turn:
                continue  # only contexts that would be sent to the model are measured
            sizes.append(context_tokens(context, count))
            orphans += bool(orphan_tool_results(context))
            dangling += bool(dangling_tool_calls(context))
            max_len = max(max_len, len(context))
    finally:
        runner.close()
    summarizer_us = runner.summarizer.seconds * 1e6
    return {
        "peer": runner_cls.name,
        "mode": "model-turns" if model_turns_only else "every-step",
        "calls": runner.calls,
        "summarizer_in_tokens": runner.summarizer.input_tokens,
        "contexts": len(sizes),
        "peak_tokens": max(sizes, default=0),
        "mean_tokens": round(statistics.fmean(sizes), 1) if sizes else 0,
        "final_tokens": sizes[-1] if sizes else 0,
        "max_messages": max_len,
        "orphan_contexts": orphans,
        "dangling_contexts": dangling,
        "us_per_step_median": round(statistics.median(step_ns) / 1e3, 1),
        "us_per_step_mean": round((sum(step_ns) / 1e3 - summarizer_us) / len(step_ns), 1),
        "framework_us_per_step": round(runner.framework_us / len(step_ns), 1),
    }


def overhead(
    runner_cls: Any, sizes: tuple[int, ...], *, keep: int, window: int = 50
) -> dict[str, Any]:
    """Framework microseconds per step under the trigger (no fold can happen), as the history
    grows: the median over the ``window`` steps that end at each size."""
    conversation = synthetic_conversation(max(sizes), seed=11)
    runner = runner_cls(first_200, 10**9, keep, chars4)
    per_step: list[float] = []
    try:
        for message in conversation:
            before = runner.framework_ns
            runner.step(message)
            per_step.append((runner.framework_ns - before) / 1e3)
    finally:
        runner.close()
    row: dict[str, Any] = {"peer": runner_cls.name, "calls": runner.calls}
    for size in sizes:
        row[f"us_at_{size}"] = round(statistics.median(per_step[max(0, size - window) : size]), 1)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=200)
    parser.add_argument("--trigger", type=int, default=3000)
    parser.add_argument("--keep", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--overhead-sizes",
        default="100,1000",
        help="history sizes for the under-trigger overhead table ('' to skip)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object per run")
    parser.add_argument(
        "--check",
        action="store_true",
        help="only print versions and import errors; exit 1 if a peer fails",
    )
    args = parser.parse_args(argv)

    if args.check:
        errors = peer_import_errors()
        print(f"versions: {json.dumps(peer_versions(), sort_keys=True)}; text: {TEXT_SOURCE}")
        for name, error in errors.items():
            print(f"{name}: {error or 'ok'}")
        return 1 if any(errors.values()) else 0

    conversation = synthetic_conversation(args.messages, args.seed)
    total = context_tokens(conversation, chars4)
    n_tool = sum(m["role"] == "tool" for m in conversation)
    print(f"# python {platform.python_version()}, {os.cpu_count()} cores")
    print(f"# versions: {json.dumps(peer_versions(), sort_keys=True)}")
    print(f"# message text and transcripts: {TEXT_SOURCE}")
    print(
        f"# conversation: {len(conversation)} messages ({n_tool} tool results), "
        f"{total} tokens (len//4 of message_text); trigger {args.trigger}, keep {args.keep}; "
        f"summarizer = first 200 chars"
    )
    errors = peer_import_errors()
    rows = []
    for name, cls in PEERS.items():
        if errors.get(name):
            print(f"{name}: NOT RUN, import failed: {errors[name]}")
            continue
        for model_turns_only in (False, True):
            try:
                rows.append(
                    replay(
                        cls,
                        conversation,
                        trigger=args.trigger,
                        keep=args.keep,
                        count=chars4,
                        model_turns_only=model_turns_only,
                    )
                )
            except Exception as exc:  # a peer that breaks is a finding: report it, go on
                print(f"{name}: FAILED during replay: {type(exc).__name__}: {exc}")
    sizes = tuple(int(x) for x in args.overhead_sizes.split(",") if x.strip())
    over = []
    if sizes:
        for name, cls in PEERS.items():
            if not errors.get(name):
                try:
                    over.append(overhead(cls, sizes, keep=args.keep))
                except Exception as exc:
                    print(f"{name}: FAILED during overhead run: {type(exc).__name__}: {exc}")
    if args.json:
        for row in [*rows, *over]:
            print(json.dumps(row))
        return 0
    cols = [
        "peer",
        "mode",
        "calls",
        "summarizer_in_tokens",
        "contexts",
        "peak_tokens",
        "mean_tokens",
        "final_tokens",
        "max_messages",
        "orphan_contexts",
        "dangling_contexts",
        "us_per_step_median",
        "us_per_step_mean",
        "framework_us_per_step",
    ]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for row in rows:
        print("| " + " | ".join(str(row[c]) for c in cols) + " |")
    # the same replay's reference: full history, and the token share of tool results
    tool_tokens = sum(chars4(message_text(m)) for m in conversation if m["role"] == "tool")
    print(f"# full history at the end: {total} tokens; tool results {tool_tokens} tokens of it")
    if over:
        print("\n# framework us per step under the trigger (median of the 50 steps up to n)")
        ocols = list(over[0])
        print("| " + " | ".join(ocols) + " |")
        print("|" + "---|" * len(ocols))
        for row in over:
            print("| " + " | ".join(str(row[c]) for c in ocols) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
