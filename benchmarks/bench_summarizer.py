"""Summarizer speed: how long the embedded extractive summarizer takes to fold a long history.

Issue 3: "folding a 20k-token history should take milliseconds". Each case builds one
``SummaryRequest`` with about ``--tokens`` tokens of evicted messages (and a 400-token
previous summary, as in a rolling fold) and times ``ExtractiveSummarizer().summarize`` on it:
median and best of 7 runs, in one process. For scale, the same history is also formatted and
estimated by the seed's ``_estimate_tokens(_fmt(...))`` (what the seed does on every turn) in
the same runs.

Cases: LoCoMo's first conversation (English), and the bundled bilingual sample conversation
(Chinese and English, with tool calls) repeated with varied numbers until it reaches the size.

    python benchmarks/bench_summarizer.py [--quick] [--out DIR] [--data PATH]
"""

from __future__ import annotations

import json
import time
from typing import Any

import _common as c
from chatfold import SummaryRequest
from chatfold._demo import load_sample
from chatfold.summarizers.extractive import ExtractiveSummarizer
from chatfold.tokens import default_counter

import seed_reference as seed

RUNS = 7


def _grow(base: list[dict[str, Any]], tokens: int) -> list[dict[str, Any]]:
    """Repeat ``base`` (tool-call ids and numbers varied per copy) up to ``tokens`` tokens."""
    counter = default_counter()
    out: list[dict[str, Any]] = []
    total = 0
    copy = 0
    while total < tokens:
        for m in base:
            text = json.dumps(m, ensure_ascii=False).replace("call_", f"call{copy}_")
            for digit in "0123456789":
                text = text.replace(f"{digit}日", f"{(int(digit) + copy) % 28 + 1}日")
            msg = json.loads(text)
            out.append(msg)
            total += counter.count_message(msg)
            if total >= tokens:
                break
        copy += 1
    return out


def _previous_summary(messages: list[dict[str, Any]], language: str) -> str:
    return ExtractiveSummarizer().summarize(
        SummaryRequest("", messages[:60], language, 400))  # type: ignore[arg-type]


def _time(fn: Any) -> list[float]:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return times


def main() -> None:
    p = c.make_parser(__doc__.splitlines()[0], data=True)
    p.add_argument("--tokens", type=int, default=20_000, help="history size per case")
    args = p.parse_args()
    size = 1_500 if args.quick else args.tokens
    counter = default_counter()

    cases: list[tuple[str, str, list[dict[str, Any]]]] = []
    sample = [m for m in load_sample() if m.get("role") != "system"]
    cases.append(("bundled sample, zh/en with tool calls", "zh", _grow(sample, size)))
    if args.data.exists():
        cut: list[dict[str, Any]] = []
        total = 0
        used = 0
        for sample in c.locomo_samples(args.data):
            used += 1
            for m in c.locomo_conversation(sample):
                cut.append(m)
                total += counter.count_message(m)
                if total >= size:
                    break
            if total >= size:
                break
        cases.append((f"LoCoMo conversation{'s' if used > 1 else ''} 1"
                      f"{f'-{used}' if used > 1 else ''} (en)", "en", cut))

    rows = []
    headline: dict[str, Any] = {"tokens": size, "runs": RUNS}
    for name, lang, messages in cases:
        tokens = sum(counter.count_message(m) for m in messages)
        previous = _previous_summary(messages, lang)
        request = SummaryRequest(previous, messages, lang, 400)  # type: ignore[arg-type]
        summarizer = ExtractiveSummarizer()
        summarizer.summarize(request)  # warm regex caches, as a running service would be
        ours = _time(lambda s=summarizer, r=request: s.summarize(r))  # type: ignore[misc]
        seeds = _time(lambda m=messages: seed._estimate_tokens(seed._fmt(m)))  # type: ignore[misc]
        summary_tokens = counter.count(summarizer.summarize(request))
        rows.append([name, f"{len(messages):,}", f"{tokens:,}", f"{c.median(ours):.1f}",
                     f"{min(ours):.1f}", f"{tokens / c.median(ours):,.0f}",
                     f"{summary_tokens}", f"{c.median(seeds):.2f}"])
        headline[name] = {"messages": len(messages), "tokens": tokens,
                          "median_ms": c.median(ours), "best_ms": min(ours),
                          "summary_tokens": summary_tokens,
                          "seed_estimate_ms": c.median(seeds)}
    body = (
        "Median and best of "
        f"{RUNS} runs of `ExtractiveSummarizer().summarize(request)` on one request holding "
        f"about {size:,} tokens of evicted messages plus a 400-token previous summary (cap "
        "400). The last column is the seed's `_estimate_tokens(_fmt(messages))` on the same "
        "messages, for scale: the work the seed does on every turn just to decide whether "
        "to fold.\n\n"
        + c.table(["case", "messages", "tokens", "median ms", "best ms", "tokens / ms",
                   "summary tokens", "seed estimate ms"], rows)
    )
    c.write_results("summarizer", "Extractive summarizer speed (issue 3)", body, headline,
                    args.out, quick=args.quick)


if __name__ == "__main__":
    main()
