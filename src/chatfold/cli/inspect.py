"""``chatfold inspect``: what a conversation is made of, and what a provider would reject.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import click
from rich.table import Table

from ..fold import Policy, plan_fold
from ..messages import (
    iter_parts,
    provider_problems,
    split_units,
)
from ..tokens import TokenCounter
from .shared import (
    EXIT_INPUT,
    EXIT_OK,
    build_counter,
    build_policy,
    counter_option,
    file_argument,
    json_option,
    load_conversation,
    out_console,
    policy_options,
    to_json,
)

__all__ = ["inspect"]

def _problem(severity: str, provider: str, index: int | None, text: str) -> dict[str, Any]:
    return {"severity": severity, "provider": provider, "index": index, "problem": text}


def _inspect(messages: Sequence[Mapping[str, Any]], policy: Policy,
             counter: TokenCounter) -> dict[str, Any]:
    counts = [counter.count_message(m) for m in messages]
    total = sum(counts)
    now = plan_fold(messages, policy, counter, counts=counts)
    plan = plan_fold(messages, policy, counter, force=True, counts=counts)
    parts = {
        "pinned": list(plan.pinned),
        "summary": list(plan.summaries),
        "recent": list(plan.recent),
        "rest": list(plan.old),
    }

    def part(indices: list[int]) -> dict[str, Any]:
        return {"messages": len(indices), "tokens": sum(counts[i] for i in indices),
                "indices": indices}

    units = split_units(messages)
    answered: dict[str, int] = {}
    for i, m in enumerate(messages):
        for p in iter_parts(m):
            if p.kind == "tool_result" and p.id is not None:
                answered.setdefault(p.id, i)
    calls: list[dict[str, Any]] = []
    for i, m in enumerate(messages):
        if m.get("role") != "assistant":
            continue
        for p in iter_parts(m):
            if p.kind == "tool_call" and p.type != "function_call":
                result = answered.get(str(p.id))
                calls.append({"id": str(p.id), "name": p.name, "call_index": i,
                              "result_index": result if result is not None and result > i
                              else None})
    problems = [_problem(p.severity, p.provider, p.index, p.problem)
                for p in provider_problems(messages)]
    summaries = list(plan.summaries)
    if len(summaries) > 1:
        problems.append(_problem(
            "warning", "all", summaries[1], f"{len(summaries)} summary messages: the next "
            "fold merges them into one"))
    if summaries and summaries[0] != len(plan.pinned) and plan.pinned and \
            summaries[0] < max(plan.pinned):
        problems.append(_problem("info", "all", summaries[0],
                                 "the summary is not right after the pinned head"))
    if plan.overflow:
        problems.append(_problem(
            "warning", "all", None, f"pinned messages plus the latest unit exceed the target "
            f"({policy.target:,} tokens): no fold can reach it"))
    return {
        "messages": len(messages),
        "tokens": total,
        "counter": counter.name,
        "policy": {"trigger": policy.trigger_tokens, "target": policy.target,
                   "keep": policy.keep, "summary_max": policy.summary_max_tokens},
        "over_trigger": total > policy.trigger_tokens,
        "would_fold_now": now.should_fold,
        "fold_decision": now.reason,
        "language": plan.language,
        "parts": {name: part(idx) for name, idx in parts.items()},
        "units": {"count": len(units),
                  "multi_message": sum(1 for a, b in units if b - a > 1)},
        "tool_calls": calls,
        "problems": problems,
    }


@click.command()
@file_argument
@json_option
@click.option("--strict", is_flag=True,
              help="Exit 2 when a provider would reject the conversation.")
@policy_options
@counter_option
def inspect(file: str, sample: str | None, as_json: bool, strict: bool, trigger: int,
            target: int | None, keep: int, summary_max: int | None, language: str,
            counter_name: str) -> int:
    """Show what a conversation is made of and what a provider would reject.

    Parts: the pinned head, the summary, the recent window a fold would keep verbatim, and the
    rest (what a fold would summarize), with tokens by part; units and tool-call pairs; and
    problems: orphan tool results, unanswered tool calls, unknown keys, system messages in
    the middle (Anthropic accepts none there).

    \b
    Examples:
      chatfold inspect chat.json
      chatfold inspect folded.jsonl --counter o200k_base
      chatfold inspect chat.json --json | jq .problems
      chatfold inspect chat.json --strict && echo "provider-safe"
    """
    counter = build_counter(counter_name)
    policy = build_policy(trigger, target, keep, summary_max, language)
    conv = load_conversation(file, sample)
    data = {"file": conv.source, "format": conv.format, **_inspect(conv.messages, policy,
                                                                   counter)}
    if as_json:
        click.echo(to_json(data))
    else:
        _print_inspection(data)
    rejected = any(p["severity"] == "error" for p in data["problems"])
    return EXIT_INPUT if strict and rejected else EXIT_OK


def _print_inspection(data: dict[str, Any]) -> None:
    out = out_console()
    policy = data["policy"]
    click.echo(f"{data['file']} ({data['format']}): {data['messages']} messages, "
               f"{data['tokens']:,} tokens (counter: {data['counter']})")
    state = "over the trigger" if data["over_trigger"] else "under the trigger"
    decision = "a fold would run now" if data["would_fold_now"] else (
        f"no fold now ({data['fold_decision'].replace('_', ' ')})")
    click.echo(f"policy: trigger {policy['trigger']:,}, target {policy['target']:,}, keep "
               f"{policy['keep']}, summary cap {policy['summary_max']:,} — {state}; {decision}")
    table = Table(title=None, show_edge=False, pad_edge=False)
    table.add_column("part")
    table.add_column("messages", justify="right")
    table.add_column("tokens", justify="right")
    table.add_column("share", justify="right")
    labels = {"pinned": "pinned", "summary": "summary", "recent": "recent (kept verbatim)",
              "rest": "rest (a fold summarizes)"}
    total = max(1, data["tokens"])
    for name, label in labels.items():
        p = data["parts"][name]
        table.add_row(label, str(p["messages"]), f"{p['tokens']:,}",
                      f"{100 * p['tokens'] / total:.0f}%")
    out.print(table)
    units = data["units"]
    calls = data["tool_calls"]
    paired = sum(1 for c in calls if c["result_index"] is not None)
    click.echo(f"units: {units['count']} ({units['multi_message']} tool-call unit(s)); "
               f"tool calls: {len(calls)}, {paired} with their result")
    problems = [p for p in data["problems"] if p["severity"] != "info"]
    notes = [p for p in data["problems"] if p["severity"] == "info"]
    if not problems:
        click.echo("problems: none (a provider would accept this list)")
    else:
        click.echo(f"problems: {len(problems)}")
        for p in problems:
            where = f"message {p['index']}" if p["index"] is not None else "conversation"
            click.echo(f"  {p['severity']} [{p['provider']}] {where}: {p['problem']}")
    for p in notes:
        where = f"message {p['index']}" if p["index"] is not None else "conversation"
        click.echo(f"  note [{p['provider']}] {where}: {p['problem']}")
