"""``chatfold compress``: fold a conversation file and write it back (or a provider request).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

import click

from ..fold import Folder, FoldResult, Policy
from ..messages import (
    to_anthropic,
    to_openai,
)
from ..tokens import TokenCounter
from .files import (
    ConversationFile,
    dump_conversation,
    write_conversation,
)
from .replay import replay
from .shared import (
    EXIT_OK,
    build_counter,
    build_policy,
    build_summarizer,
    counter_option,
    file_argument,
    load_conversation,
    note,
    policy_options,
    progress,
    status,
    summarizer_options,
    to_json,
)

__all__ = ["compress"]

@click.command()
@file_argument
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              help="Write here instead of stdout (same format as the input).")
@click.option("--to", "to", type=click.Choice(["openai", "anthropic"]), default=None,
              help="Write a provider-ready request instead: openai (messages without "
              "chatfold's keys) or anthropic (a Messages API body with 'system').")
@click.option("--force", is_flag=True,
              help="Fold even under the trigger (like the seed's compress()).")
@click.option("--incremental", is_flag=True,
              help="Fold message by message as a chat app would have, instead of once.")
@summarizer_options
@policy_options
@counter_option
def compress(file: str, sample: str | None, output: str | None, to: str | None, force: bool,
             incremental: bool, summarizer: str, model: str | None, base_url: str | None,
             retries: int | None, trigger: int, target: int | None, keep: int,
             summary_max: int | None, language: str, counter_name: str) -> int:
    """Fold a conversation file and write the folded conversation.

    FILE is an OpenAI-format JSON list, a JSON object with "messages", JSONL (one message per
    line), a LoCoMo file, or - for stdin. The output has the input's format (a LoCoMo file
    gives a JSON list) and can be compressed again: the summary rolls forward.

    \b
    Examples:
      chatfold compress chat.json -o folded.json
      cat chat.jsonl | chatfold compress - --trigger 8000 --keep 6
      chatfold compress chat.json --to anthropic > request.json
      chatfold compress chat.json --summarizer openai --model gpt-4o-mini
    """
    counter = build_counter(counter_name)
    policy = build_policy(trigger, target, keep, summary_max, language)
    conv = load_conversation(file, sample)
    engine = build_summarizer(summarizer, model=model, base_url=base_url, counter=counter,
                              retries=retries)
    folder = Folder(engine, policy, counter=counter)
    remote = summarizer != "extractive"
    if incremental:
        with progress(len(conv.messages), "folding", force=remote) as update:
            report = replay(conv.messages, folder, name="chatfold", progress=update)
        messages = report.final_context
        note(f"replayed {len(report.turns)} messages: {report.folds} fold(s), "
              f"{report.summarizer_calls} summarizer call(s); {report.history_tokens:,} -> "
              f"{folder.count(messages):,} tokens ({counter.name})")
    else:
        with status("folding…", remote):
            result = folder.fold(conv.messages, force=force)
        messages = result.messages
        note(_describe_fold(result, policy, counter))
    text = _render_output(conv, messages, to)
    write_conversation(text, output, stdout=sys.stdout)
    return EXIT_OK


def _describe_fold(result: FoldResult, policy: Policy, counter: TokenCounter) -> str:
    if result.folded:
        return (f"folded {result.messages_folded} messages: {result.tokens_before:,} -> "
                f"{result.tokens_after:,} tokens ({counter.name}; trigger "
                f"{policy.trigger_tokens:,}, target {policy.target:,}), "
                f"{result.summarizer_calls} summarizer call(s), {result.seconds:.2f}s")
    why = {
        "under_trigger": f"under the trigger ({result.tokens_before:,} <= "
                         f"{policy.trigger_tokens:,} tokens, {counter.name}); use --force "
                         "to fold anyway",
        "nothing_to_fold": "nothing to fold (only pinned and recent messages)",
        "gain_too_small": "a fold would free too little yet; unchanged",
    }
    return why.get(result.reason, result.reason) + " — written unchanged"


def _render_output(conv: ConversationFile, messages: Sequence[Mapping[str, Any]],
                   to: str | None) -> str:
    if to == "anthropic":
        return to_json(to_anthropic(messages)) + "\n"
    if to == "openai":
        return dump_conversation(conv, to_openai(messages))
    return dump_conversation(conv, messages)
