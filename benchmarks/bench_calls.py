"""Summarizer calls: every LoCoMo conversation replayed as one long chat, seed against chatfold.

Issue 6, item 2. Each of LoCoMo's conversations is replayed message by message (speaker A as
the user, speaker B as the assistant) through a fold at trigger 3,000 tokens, keep 4, with
the same instant deterministic summarizer (chatfold's extractive summarizer: the seed's rows
ask it for 400 tokens, chatfold's for its policy's automatic cap) behind every policy:

* **seed (reference code)**: the seed's code itself (``benchmarks/seed_reference.py``): it
  estimates 0.6 token per character, folds whenever its estimate of the context exceeds
  3,000, and keeps exactly the last 4 messages.
* **seed policy, chatfold planner**: the same policy expressed with chatfold's planner
  (``chatfold.cli.replay.seed_folder``): unit-safe, otherwise the seed's rules.
* **chatfold**: ``Folder`` with ``Policy(trigger_tokens=3000, keep=4)`` (its default target:
  the summary's cap plus a twentieth of the trigger; a fold must land at the target or free
  ``Policy.min_gain``), counting with the
  default heuristic, and the same with the exact o200k_base counter; and chatfold at the
  budget the seed really used (its 3,000 estimated tokens converted to real ones).

A second, synthetic replay has long messages (about 500 tokens each, like tool results or
pasted documents), where the summary plus the last 4 messages sit near the trigger.

All token figures are measured with one ruler (o200k_base when it loads offline), whatever
counter a policy used to decide.

    python benchmarks/bench_calls.py [--quick] [--out DIR] [--data PATH]
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import _common as c
from chatfold import Folder, Policy
from chatfold.cli.replay import ReplayReport, replay, seed_folder
from chatfold.summarizers.extractive import ExtractiveSummarizer
from chatfold.tokens import default_counter

TRIGGER = 3000
KEEP = 4
SEED = "seed (reference code)"
SEED_PLANNER = "seed policy, chatfold planner"
CF = "chatfold (heuristic counter)"
CF_EXACT = "chatfold (o200k counter)"


@dataclass
class Row:
    """One policy's totals over all conversations."""

    name: str
    trigger: int
    """The policy's trigger (the sawtooth ceiling is computed with its gap)."""
    calls: int = 0
    input_tokens: int = 0
    peaks: list[int] = field(default_factory=list)
    means: list[float] = field(default_factory=list)
    prompt_tokens: int = 0
    full_prompt_tokens: int = 0
    orphan_contexts: int = 0
    own_peaks: list[int] = field(default_factory=list)
    per_conv_calls: list[int] = field(default_factory=list)
    gaps: list[int] = field(default_factory=list)
    """Messages between consecutive folds."""
    ceiling: float = float("nan")
    """The sawtooth ceiling on folds: tokens freed by all folds over the trigger-target gap
    (in the policy's own counter); NaN for policies with no target (the seed)."""
    least_freed: float = float("nan")
    """The fewest tokens one fold freed, as a multiple of the gap (> 1 for a fold that
    reached the target)."""
    held_up: int = 0
    """Folds the kept messages held above the target (they free at least ``min_gain``)."""
    folds: int = 0
    series: list[int] = field(default_factory=list)
    """Context tokens after each message of the first conversation (for the figure)."""

    def add(self, report: ReplayReport, calls: int, input_tokens: int,
            own_peak: int | None = None, freed: list[int] | None = None) -> None:
        if not self.per_conv_calls:
            self.series = [t.context_tokens for t in report.turns]
        self.calls += calls
        self.per_conv_calls.append(calls)
        self.input_tokens += input_tokens
        self.peaks.append(report.peak_context_tokens)
        self.means.append(report.mean_context_tokens)
        self.prompt_tokens += report.prompt_tokens
        self.full_prompt_tokens += report.full_history_prompt_tokens
        self.orphan_contexts += report.orphan_contexts
        points = report.fold_points
        self.folds += len(points)
        self.gaps.extend(b - a for a, b in zip(points, points[1:], strict=False))
        if freed is not None:
            # Sawtooth: every fold frees at least the gap, so folds <= sum(freed) / gap.
            gap = gap_of(self.trigger)
            ceiling = sum(freed) / gap
            self.ceiling = ceiling if self.ceiling != self.ceiling else self.ceiling + ceiling
            least = min(freed) / gap if freed else float("nan")
            if least == least and not self.least_freed < least:
                self.least_freed = least
        if own_peak is not None:
            self.own_peaks.append(own_peak)

    def cells(self) -> list[Any]:
        return [
            self.name, self.calls, self.folds, self.ceiling, self.least_freed,
            float(c.median(self.gaps)), self.input_tokens,
            max(self.peaks), c.mean(self.means), self.prompt_tokens,
            1 - c.ratio(self.prompt_tokens, self.full_prompt_tokens), self.orphan_contexts,
        ]


HEADERS = ["policy", "summarizer calls", "folds", "sawtooth ceiling on folds",
           "least freed by a fold (× gap)",
           "median messages between folds", "tokens sent to summarizer",
           "peak context", "mean context", "prompt tokens", "saved vs full history",
           "orphan contexts"]


def gap_of(trigger: int) -> int:
    policy = Policy(trigger_tokens=trigger)
    return policy.fold_trigger - policy.target


class Recorder:
    """``on_result`` for a Folder: the tokens each fold freed, in the folder's own counter."""

    def __init__(self) -> None:
        self.freed: list[int] = []

        self.held_up = 0
        """Folds that could not reach the target (the kept messages held the context up)."""

    def __call__(self, result: Any) -> None:
        if result.folded:
            self.freed.append(result.tokens_before - result.tokens_after)
            self.held_up += int(result.over_target)


def run_policies(convs: list[list[c.Message]], ruler: Any, effective: int | None,
                 progress: Callable[[int], None] | None = None) -> dict[str, Row]:
    eff_name = f"chatfold (o200k counter), trigger {effective or 0:,} = the seed's real budget"
    rows = {
        SEED: Row(SEED, TRIGGER), SEED_PLANNER: Row(SEED_PLANNER, TRIGGER),
        CF: Row(CF, TRIGGER), CF_EXACT: Row(CF_EXACT, TRIGGER),
    }
    if effective is not None:
        rows["eff"] = Row(eff_name, effective)
    for n, messages in enumerate(convs):
        llm = c.SeedTextSummarizer(ExtractiveSummarizer(), ruler)
        seed_ref: Any = c.SeedReferenceFolder(llm, max_tokens=TRIGGER, keep=KEEP)
        report = replay(messages, seed_ref, name="seed", counter=ruler)
        rows[SEED].add(report, llm.calls, llm.input_tokens, seed_ref.own_peak)

        for key, make in (
            (SEED_PLANNER, lambda s, r: seed_folder(s, max_tokens=TRIGGER, keep=KEEP)),
            (CF, lambda s, r: Folder(s, Policy(trigger_tokens=TRIGGER, keep=KEEP), on_result=r)),
            (CF_EXACT, lambda s, r: Folder(s, Policy(trigger_tokens=TRIGGER, keep=KEEP),
                                           counter=ruler, on_result=r)),
            ("eff", lambda s, r: Folder(s, Policy(trigger_tokens=effective or 1, keep=KEEP),
                                        counter=ruler, on_result=r)),
        ):
            if key not in rows:
                continue
            s = c.CountingSummarizer(ExtractiveSummarizer(), ruler)
            rec = Recorder()
            report = replay(messages, make(s, rec), name=key, counter=ruler)
            rows[key].add(report, s.calls, s.input_tokens,
                          freed=None if key == SEED_PLANNER else rec.freed)
            rows[key].held_up += rec.held_up
        if progress is not None:
            progress(n)
    return {r.name: r for r in rows.values()}


def trigger_sweep(convs: list[list[c.Message]], ruler: Any,
                  triggers: tuple[int, ...]) -> list[list[Any]]:
    """chatfold (exact counter) at each trigger: folds against the sawtooth ceiling."""
    out = []
    for trigger in triggers:
        row = Row(f"trigger {trigger}", trigger)
        for messages in convs:
            s = c.CountingSummarizer(ExtractiveSummarizer(), ruler)
            rec = Recorder()
            folder = Folder(s, Policy(trigger_tokens=trigger, keep=KEEP), counter=ruler,
                            on_result=rec)
            row.add(replay(messages, folder, counter=ruler), s.calls, s.input_tokens,
                    freed=rec.freed)
            row.held_up += rec.held_up
        out.append([trigger, gap_of(trigger), row.folds, row.ceiling,
                    c.ratio(row.folds, row.ceiling), row.least_freed, row.held_up,
                    max(row.peaks), row.calls])
        print(f"  sweep: trigger {trigger:,} done", file=sys.stderr)
    return out


def plot(rows: dict[str, Row], out: Any, effective: int) -> str:
    """A figure of the context size over the first conversation; the Markdown that shows it
    ("" when matplotlib is not installed)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return ""
    fig, ax = plt.subplots(figsize=(9, 3.6), dpi=110)
    ax.plot(rows[SEED].series, linewidth=1.1,
            label=f"{SEED}: its 3,000 is about {effective:,} real tokens")
    ax.plot(rows[CF_EXACT].series, linewidth=1.1, label=CF_EXACT)
    ax.axhline(TRIGGER, color="grey", linestyle="--", linewidth=0.8)
    ax.axhline(Policy(trigger_tokens=TRIGGER).target, color="grey", linestyle=":",
               linewidth=0.8)
    ax.text(0, TRIGGER + 40, "trigger 3,000", fontsize=8, color="grey")
    ax.text(0, Policy(trigger_tokens=TRIGGER).target + 40, "chatfold's target", fontsize=8,
            color="grey")
    ax.set_xlabel("message")
    ax.set_ylabel("context tokens (o200k)")
    ax.set_title("LoCoMo conversation 1 replayed: context after each message")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    path = out / "calls_context.png"
    fig.savefig(path)
    plt.close(fig)
    try:
        shown = path.resolve().relative_to(c.ROOT)
    except ValueError:
        shown = path.name
    return f"![context size over LoCoMo conversation 1]({shown})"


def long_messages(n: int) -> list[c.Message]:
    """A chat whose every message is about 500 tokens (pasted documents, tool output)."""
    out = []
    for i in range(n):
        m = c.synthetic_message(i, words=190)
        out.append({"role": m["role"], "content": m["content"]})
    return out


def main() -> None:
    args = c.make_parser(__doc__.splitlines()[0], data=True).parse_args()
    samples = c.locomo_samples(args.data)
    ruler, ruler_name = c.true_counter()
    heuristic = default_counter()
    if args.quick:
        samples = samples[:1]
    convs = [c.locomo_conversation(s) for s in samples]
    if args.quick:
        convs = [m[:120] for m in convs]
    history = [c.context_tokens(m, ruler) for m in convs]
    heuristic_history = [c.context_tokens(m, heuristic) for m in convs]
    # The seed's 3,000 "tokens" are fewer real ones: its trigger in the ruler's units, measured
    # on these conversations, so chatfold can also run at the budget the seed really used.
    true_total = sum(history)
    seed_total = sum(c.seed_estimate([x]) for m in convs for x in m)
    effective = int(TRIGGER * true_total / seed_total)

    def progress(n: int) -> None:
        print(f"  conversation {n + 1}/{len(convs)}", file=sys.stderr)

    rows = run_policies(convs, ruler, effective, progress)
    names = list(rows)
    seed_row, cf, exact, eff = (rows[SEED], rows[CF], rows[CF_EXACT], rows[names[-1]])
    args.out.mkdir(parents=True, exist_ok=True)
    figure = plot(rows, args.out, effective)
    long = [long_messages(40 if args.quick else 200)]
    long_rows = run_policies(long, ruler, None)
    long_seed, long_cf = long_rows[SEED], long_rows[CF]
    long_tokens = c.context_tokens(long[0], ruler)
    full = cf.full_prompt_tokens
    gap = gap_of(TRIGGER)
    per_conv = [[i + 1, len(convs[i]), history[i], heuristic_history[i],
                 *(r.per_conv_calls[i] for r in rows.values())]
                for i in range(len(convs))]
    sweep = trigger_sweep(convs, ruler, (1_500, 3_000, 5_000, 8_000) if not args.quick
                          else (1_500, 3_000))
    if ruler_name != "o200k_base":
        note = (f"\n\n**Note:** o200k_base could not be loaded offline, so the ruler is "
                f"{ruler_name} and the \"o200k counter\" rows use it too.")
    else:
        note = ""
    body = f"""
{len(convs)} LoCoMo conversation(s) ({sum(map(len, convs)):,} messages, {true_total:,}
tokens), each replayed message by message as one chat; trigger {TRIGGER:,}, keep {KEEP};
chatfold's target is its default ({Policy(trigger_tokens=TRIGGER).target:,} at trigger
{TRIGGER:,}: the summary's cap, {Policy(trigger_tokens=TRIGGER).summary_max_tokens:,}, plus a
twentieth of the trigger). Summarizer: chatfold's `ExtractiveSummarizer` behind every policy
(asked for 400 tokens by the seed's rows, for the policy's cap by chatfold's); the seed's text
input is parsed
back into the previous summary and the messages, so only the policy differs. Token figures
are **{ruler_name}** tokens. "Tokens sent to summarizer" is the previous summary plus the
transcript of the evicted messages, at every call. A model call is counted at every user
message followed by an assistant message; "full history" sends every earlier message at each
of those calls ({full:,} prompt tokens in all).{note}

{c.table(HEADERS, [r.cells() for r in rows.values()], digits=2)}

{figure}

"Seed policy, chatfold planner" measures its summary cap in the seed's units too (400 of them
is about 170 real tokens), so most of its folds re-ask for a shorter summary: 2 calls per fold.

**What the fold guarantees about calls: a sawtooth.** The context climbs to the fold trigger
T, a fold brings it down, and a fold that reaches the target frees more than the gap
T − target ({gap:,} tokens at trigger {TRIGGER:,}): it runs only when the context exceeds T.
A fold that cannot reach the target (the kept messages hold the context above it) runs only
if it frees at least `Policy.min_gain` (a tenth of the trigger). The tokens freed by all
folds add up to what came in and is no longer in the context, c₀ + H − c_end (c₀ the pinned
head, H the history, c_end the final context). So, when every fold reaches the target,

    folds ≤ (c₀ + H − c_end) / (T − target) = sum of tokens freed / gap,

the **sawtooth ceiling** in the table (in each policy's own counter; "least freed" is then
above 1 gap), and folds ≤ (c₀ + H − c_end) / min_gain always. There is no matching floor: a
fold may free much more than the gap (a short summary), so (H − T) / gap, which earlier
versions of this page called a bound, is neither a floor nor a ceiling. chatfold (o200k
counter) made {exact.folds} folds against a ceiling of {exact.ceiling:.1f}
({exact.held_up} held above the target); the least-freeing fold freed
{exact.least_freed:.2f}× the gap. Summarizer calls are folds plus re-asks for an overlong
summary. `tests/test_sawtooth.py` checks the relation (and that no context is over the
trigger when the kept messages fit) on random chats across triggers. Across triggers on
these conversations (o200k counter):

{c.table(["trigger", "gap", "folds", "sawtooth ceiling", "folds / ceiling",
          "least freed (× gap)", "folds held above the target", "peak context",
          "summarizer calls"], sweep, digits=2)}

**The seed.** Its 0.6-token-per-character rule over-counts this English text
{c.ratio(seed_total, true_total):.1f}× (against {ruler_name}), so it folds when the context is
far below its nominal {TRIGGER:,} tokens: its own estimate peaked at
{max(seed_row.own_peaks) if seed_row.own_peaks else 0:,} "tokens" while the real peak was
{max(seed_row.peaks):,}. At the same nominal budget it made
{c.ratio(seed_row.calls, exact.calls):.1f}× chatfold's calls and sent
{c.ratio(seed_row.input_tokens, exact.input_tokens):.1f}× the tokens to the summarizer; its
prompts are cheaper only because its contexts are smaller than the budget asked for. Given the
budget the seed really used (trigger {effective:,} real tokens), chatfold made {eff.calls} calls
to the seed's {seed_row.calls}: on LoCoMo's short turns the seed's summary plus 4 messages stay
well below its trigger, so its missing target costs little there, while chatfold keeps more
recent messages verbatim (it fills its target; the seed keeps exactly 4), so each of its
folds may free less.

**Long messages.** A synthetic chat of {len(long[0])} messages of about
{long_tokens // len(long[0])} tokens each ({long_tokens:,} tokens): the summary plus the last
4 messages are near the seed's (over-counted) trigger, and with no target below it the seed
folds again almost at once: {long_seed.calls} calls, a median of
{float(c.median(long_seed.gaps)):.0f} message(s) between folds. chatfold made {long_cf.calls}
(heuristic counter; {long_rows[CF_EXACT].calls} with o200k), a median of
{float(c.median(long_cf.gaps)):.0f} messages between folds: a fold must free the
trigger−target gap, so it waits until enough has piled up before the window.

{c.table(HEADERS, [r.cells() for r in long_rows.values()], digits=2)}

Per LoCoMo conversation (history tokens in {ruler_name} and in chatfold's heuristic):

{c.table(["conv", "messages", "history tokens", "heuristic tokens",
          *(f"calls: {name}" for name in rows)], per_conv, digits=1)}
"""
    headline = {
        "counter": ruler_name,
        "conversations": len(convs),
        "history_tokens": true_total,
        "sawtooth_ceiling": exact.ceiling,
        "least_freed_gaps": exact.least_freed,
        "sweep": sweep,
        "calls": {r.name: r.calls for r in rows.values()},
        "input_tokens": {r.name: r.input_tokens for r in rows.values()},
        "peak_context": {r.name: max(r.peaks) for r in rows.values()},
        "mean_context": {r.name: c.mean(r.means) for r in rows.values()},
        "prompt_tokens": {r.name: r.prompt_tokens for r in rows.values()},
        "full_history_prompt_tokens": full,
        "seed_calls": seed_row.calls,
        "chatfold_calls": cf.calls,
        "chatfold_exact_calls": exact.calls,
        "chatfold_folds": exact.folds,
        "chatfold_saved": 1 - c.ratio(cf.prompt_tokens, full),
        "seed_overcount": c.ratio(seed_total, true_total),
        "effective_trigger": effective,
        "chatfold_effective_calls": eff.calls,
        "long_seed_calls": long_seed.calls,
        "long_chatfold_calls": long_cf.calls,
        "long_messages": len(long[0]),
    }
    c.write_results("calls", "Summarizer calls on LoCoMo (issue 6, item 2)", body, headline,
                    args.out, quick=args.quick)


if __name__ == "__main__":
    main()
