"""``chatfold simulate``: replay a conversation message by message and report the costs.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path

import click
from rich.table import Table

from .._errors import MissingDependencyError
from ..fold import Folder, Policy
from .files import ConversationFileError
from .replay import ReplayReport, SeedCounter, replay, seed_folder
from .shared import (
    EXIT_OK,
    build_counter,
    build_policy,
    build_summarizer,
    counter_option,
    file_argument,
    fmt_number,
    json_option,
    load_conversation,
    note,
    out_console,
    policy_options,
    progress,
    summarizer_options,
    to_json,
)

__all__ = ["plot_replays", "simulate", "sparkline"]

_BLOCKS = " ▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[int], *, width: int = 72, top: int | None = None) -> str:
    """Values as a one-line bar chart (each column is the max of its bucket)."""
    if not values:
        return ""
    n = len(values)
    cols = min(width, n)
    peak = max(top or 0, max(values), 1)
    out = []
    for c in range(cols):
        lo, hi = c * n // cols, max((c + 1) * n // cols, c * n // cols + 1)
        v = max(values[lo:hi])
        out.append(_BLOCKS[min(len(_BLOCKS) - 1, round(v / peak * (len(_BLOCKS) - 1)))])
    return "".join(out)


def _rows(report: ReplayReport) -> dict[str, str]:
    return {
        "messages replayed": f"{len(report.turns):,}",
        "model calls": f"{report.model_calls:,}",
        "folds": f"{report.folds:,}",
        "summarizer calls": f"{report.summarizer_calls:,}",
        "tokens sent to the summarizer": f"{report.summarizer_input_tokens:,}",
        "peak context": f"{report.peak_context_tokens:,}",
        "mean context": fmt_number(round(report.mean_context_tokens, 1)),
        "prompt tokens (all model calls)": f"{report.prompt_tokens:,}",
        "same, sending everything": f"{report.full_history_prompt_tokens:,}",
        "saved": f"{100 * report.savings:.1f}%",
        "contexts a provider rejects": f"{report.orphan_contexts:,}",
        "time": f"{report.seconds:.2f}s",
    }


def plot_replays(reports: Sequence[ReplayReport], path: str, *, title: str) -> None:
    """Context tokens per message, trigger and target lines, fold points marked (PNG)."""
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise MissingDependencyError("simulate --plot", "plot") from exc
    fig = Figure(figsize=(10, 4.8), dpi=110)
    ax = fig.subplots()
    colors = ["tab:blue", "tab:orange", "tab:purple"]
    main = reports[0]
    for k, report in enumerate(reports):
        color = colors[k % len(colors)]
        xs = [t.index for t in report.turns]
        ys = [t.context_tokens for t in report.turns]
        label = f"{report.name}: context"
        if k:
            label += f" (its trigger: {report.trigger_tokens:,} in its own count)"
        ax.plot(xs, ys, color=color, lw=1.1, label=label)
        fx = [t.index for t in report.turns if t.folded]
        fy = [t.context_tokens for t in report.turns if t.folded]
        ax.scatter(fx, fy, color=color, marker="v" if k == 0 else "x", s=28, zorder=3,
                   label=f"{report.name}: fold ({len(fx)})")
    ax.axhline(main.trigger_tokens, color="tab:red", ls="--", lw=1,
               label=f"trigger {main.trigger_tokens:,}")
    ax.axhline(main.target_tokens, color="tab:green", ls=":", lw=1.2,
               label=f"target {main.target_tokens:,}")
    ax.set_xlabel("message")
    ax.set_ylabel(f"context tokens ({main.counter_name})")
    ax.set_title(title)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize=8, ncols=2)
    fig.tight_layout()
    with warnings.catch_warnings():
        # A glyph missing from the default font (a CJK file name) must not fail the plot.
        warnings.filterwarnings("ignore", message="Glyph .* missing from", category=UserWarning)
        try:
            fig.savefig(path, format="png")
        except OSError as exc:
            raise ConversationFileError(path, f"cannot write the plot: {exc}") from exc


@click.command()
@file_argument
@json_option
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), default=None,
              metavar="PNG", help="Draw context tokens per message to this PNG "
              "(needs the 'plot' extra).")
@click.option("--compare", is_flag=True,
              help="Also replay the seed article's policy (maybe_compress with max_tokens = "
              "--trigger, counting 0.6 token per character) and show both.")
@summarizer_options
@policy_options
@counter_option
def simulate(file: str, sample: str | None, as_json: bool, plot_path: str | None,
             compare: bool, summarizer: str, model: str | None, base_url: str | None,
             retries: int | None, trigger: int, target: int | None, keep: int,
             summary_max: int | None, language: str, counter_name: str) -> int:
    """Replay a conversation message by message and report what folding costs and saves.

    Before each model call (wherever the next message is the assistant's) the context is what
    a chat app would send: context tokens per message (a sawtooth between target and
    trigger), summarizer calls and the tokens sent to the summarizer, and the prompt tokens of
    all model calls against sending the whole history each time. Reads LoCoMo files too.

    \b
    Examples:
      chatfold simulate chat.jsonl
      chatfold simulate locomo10.json --sample 3 --trigger 3000 --plot sawtooth.png
      chatfold simulate chat.json --compare --json > replay.json
    """
    counter = build_counter(counter_name)
    policy = build_policy(trigger, target, keep, summary_max, language)
    if plot_path and not Path(plot_path).resolve().parent.is_dir():
        # Fail before a long replay, not after it.
        raise ConversationFileError(plot_path, "cannot write the plot: no such folder")
    conv = load_conversation(file, sample)
    engine = build_summarizer(summarizer, model=model, base_url=base_url, counter=counter,
                              retries=retries)
    remote = summarizer != "extractive"
    reports = []
    runs: list[tuple[str, Folder]] = [("chatfold", Folder(engine, policy, counter=counter))]
    if compare:
        seed_engine = engine
        if summarizer == "extractive":
            seed_engine = build_summarizer("extractive", model=None, base_url=None,
                                           counter=SeedCounter())
        runs.append(("seed", seed_folder(seed_engine, max_tokens=trigger, keep=keep)))
    for name, folder in runs:
        with progress(len(conv.messages), f"replaying ({name})", force=remote) as update:
            reports.append(replay(conv.messages, folder, name=name, progress=update,
                                  counter=counter))
    label = conv.source if conv.format != "locomo" else f"{conv.source} [{conv.sample}]"
    if plot_path:
        plot_replays(reports, plot_path, title=f"{Path(label).name}: context per message")
    if as_json:
        data = {
            "file": conv.source, "format": conv.format, "sample": conv.sample,
            "counter": counter.name, "summarizer": summarizer,
            "policy": {"trigger": policy.trigger_tokens, "target": policy.target,
                       "keep": policy.keep, "summary_max": policy.summary_max_tokens},
            "plot": plot_path,
            "reports": {r.name: r.to_dict() for r in reports},
        }
        click.echo(to_json(data))
    else:
        _print_simulation(label, reports, policy, summarizer)
        if plot_path:
            note(f"plot written to {plot_path}")
    return EXIT_OK


def _print_simulation(label: str, reports: Sequence[ReplayReport], policy: Policy,
                      summarizer: str) -> None:
    out = out_console()
    main = reports[0]
    click.echo(f"{label}: {len(main.turns):,} messages, {main.history_tokens:,} tokens "
               f"(counter: {main.counter_name}); summarizer: {summarizer}")
    click.echo(f"chatfold policy: trigger {policy.trigger_tokens:,}, target {policy.target:,}, "
               f"keep {policy.keep}, summary cap {policy.summary_max_tokens:,}")
    if len(reports) > 1:
        click.echo(f"seed policy: fold whenever over {policy.trigger_tokens:,} at 0.6 token "
                   f"per character, keep exactly {policy.keep}; measured with "
                   f"{main.counter_name}")
    table = Table(show_edge=False, pad_edge=False)
    table.add_column("")
    for r in reports:
        table.add_column(r.name, justify="right")
    rows = [_rows(r) for r in reports]
    for key in rows[0]:
        table.add_row(key, *(row[key] for row in rows))
    out.print(table)
    top = max(max(policy.trigger_tokens, r.peak_context_tokens) for r in reports)
    for r in reports:
        line = sparkline([t.context_tokens for t in r.turns], top=top)
        click.echo(f"{r.name:>8} context per message (0-{top:,}): {line}")
