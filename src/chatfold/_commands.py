"""The Click application behind ``chatfold`` (needs the ``cli`` extra: Click and rich).

Commands only parse options, call the public API and print the result: results go to stdout,
progress and diagnostics to stderr. :class:`ChatfoldGroup` maps outcomes to exit codes:
0 success, 1 usage error, 2 input error, 130 interrupted; an expected error prints one line.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar, cast

import click
from rich.console import Console
from rich.table import Table

from . import __version__
from ._errors import (
    ChatfoldError,
    ContextOverflowError,
    InvalidMessageError,
    InvalidPolicyError,
    MissingDependencyError,
    StoreError,
    SummarizerError,
    UnknownPluginError,
)
from ._io import (
    ConversationFile,
    ConversationFileError,
    dump_conversation,
    read_conversation,
    write_conversation,
)
from ._registry import get_summarizer
from ._simulate import ReplayReport, SeedCounter, replay, seed_folder
from .fold import Folder, FoldResult, Policy, plan_fold
from .messages import (
    format_messages,
    iter_parts,
    provider_problems,
    split_units,
    to_anthropic,
    to_openai,
)
from .tokens import TokenCounter, get_counter

__all__ = ["ChatfoldGroup", "cli"]

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK = 0
EXIT_USAGE = 1
EXIT_INPUT = 2
EXIT_INTERRUPTED = 130

BUILTIN_SUMMARIZERS = ("extractive", "openai", "anthropic")
DEFAULT_SYSTEM_PROMPT = "You are a helpful assistant."
PROGRESS_MIN_MESSAGES = 200
"""A replay shows a progress bar from this many messages (or with a remote summarizer)."""

_POLICY_FLAGS = {
    "trigger_tokens": "--trigger",
    "target_tokens": "--target",
    "keep": "--keep",
    "summary_max_tokens": "--summary-max",
    "language": "--language",
}


# ---------------------------------------------------------------------------------------------
# the group: exit codes, one-line errors, logging to stderr


def _exit_code(exc: ChatfoldError) -> int:
    if isinstance(exc, (InvalidPolicyError, MissingDependencyError, UnknownPluginError)):
        return EXIT_USAGE
    return EXIT_INPUT


class _StderrHandler(logging.Handler):
    """Writes chatfold's log records to the *current* ``sys.stderr`` (test runners swap it)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record)
            if record.levelno >= logging.WARNING:
                text = f"{record.levelname.lower()}: {text}"
            sys.stderr.write(text + "\n")
        except Exception:  # logging must never break the command
            self.handleError(record)


class ChatfoldGroup(click.Group):
    """A Click group that maps outcomes to chatfold's exit codes.

    Click exits 2 on a usage error; chatfold's convention is 1 for usage and 2 for bad input,
    so ``main`` runs Click in non-standalone mode and decides the code itself.
    """

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("%(message)s"))
        logger = logging.getLogger("chatfold")
        logger.addHandler(handler)
        level = logger.level
        if not logger.level:
            logger.setLevel(logging.WARNING)
        try:
            code = self._run(args, prog_name, complete_var, extra)
        finally:
            logger.removeHandler(handler)
            logger.setLevel(level)
        if not standalone_mode:
            return code
        sys.exit(code)

    def _run(self, args: Sequence[str] | None, prog_name: str | None,
             complete_var: str | None, extra: dict[str, Any]) -> int:
        try:
            rv = super().main(args=args, prog_name=prog_name, complete_var=complete_var,
                              standalone_mode=False, **extra)
        except click.UsageError as exc:
            exc.show()
            return EXIT_USAGE
        except click.ClickException as exc:
            exc.show()
            return exc.exit_code
        except click.Abort:
            click.echo("Aborted.", err=True)
            return EXIT_INTERRUPTED
        except KeyboardInterrupt:
            click.echo("\nInterrupted.", err=True)
            return EXIT_INTERRUPTED
        except ChatfoldError as exc:
            _error(str(exc))
            return _exit_code(exc)
        except SystemExit as exc:
            # Outside standalone mode Click only exits itself after stdout's reader went
            # away (EPIPE, `chatfold simulate x | head`): not an error of ours.
            return EXIT_OK if exc.code == 1 else int(exc.code or 0)
        except BrokenPipeError:
            # The reader went away (`chatfold inspect x | head`): not an error of ours.
            with contextlib.suppress(OSError):
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
            return EXIT_OK
        if isinstance(rv, int):
            return rv
        return EXIT_OK


def _error(message: str) -> None:
    click.echo(f"Error: {message}", err=True)


def _note(message: str) -> None:
    click.echo(message, err=True)


# ---------------------------------------------------------------------------------------------
# shared options


def _env(name: str) -> str:
    return f"CHATFOLD_{name}"


def policy_options(f: F) -> F:
    """``--trigger --target --keep --summary-max --language`` (defaults from ``CHATFOLD_*``)."""
    options = [
        click.option("--trigger", type=click.IntRange(min=1), default=3000, show_default=True,
                     envvar=_env("TRIGGER"), show_envvar=True,
                     help="Fold when the context exceeds this many tokens."),
        click.option("--target", type=click.IntRange(min=1), default=None,
                     show_default="60% of --trigger", envvar=_env("TARGET"), show_envvar=True,
                     help="Tokens to land at after a fold."),
        click.option("--keep", type=click.IntRange(min=0), default=4, show_default=True,
                     envvar=_env("KEEP"), show_envvar=True,
                     help="Recent messages always kept verbatim (whole tool-call units)."),
        click.option("--summary-max", type=click.IntRange(min=16), default=None,
                     show_default="400, or a third of the target if smaller",
                     envvar=_env("SUMMARY_MAX"), show_envvar=True,
                     help="Hard cap on the summary, in tokens."),
        click.option("--language", type=click.Choice(["auto", "zh", "en"]), default="auto",
                     show_default=True, envvar=_env("LANGUAGE"), show_envvar=True,
                     help="Language of the summary and its prefix."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def summarizer_options(f: F) -> F:
    """``--summarizer --model --base-url`` (defaults from ``CHATFOLD_*``)."""
    options = [
        click.option("--summarizer", default="extractive", show_default=True,
                     envvar=_env("SUMMARIZER"), show_envvar=True,
                     help="Who writes the summary: extractive (offline, no key), openai (any "
                     "OpenAI-compatible endpoint), anthropic, or a plugin's name."),
        click.option("--model", default=None, envvar=_env("MODEL"), show_envvar=True,
                     help="Model of the openai/anthropic summarizer."),
        click.option("--base-url", default=None, envvar=_env("BASE_URL"), show_envvar=True,
                     help="Endpoint of the summarizer, e.g. http://127.0.0.1:11434/v1 "
                     "(keys come from OPENAI_API_KEY / ANTHROPIC_API_KEY / CHATFOLD_API_KEY)."),
        click.option("--retries", type=click.IntRange(min=0), default=None,
                     show_default="2", envvar=_env("RETRIES"), show_envvar=True,
                     help="Retries of a remote summarizer call that failed for a passing "
                     "reason (timeout, 429, 5xx, connection)."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def counter_option(f: F) -> F:
    """``--counter`` (default from ``CHATFOLD_COUNTER``)."""
    return click.option(
        "--counter", "counter_name", default="heuristic", show_default=True,
        envvar=_env("COUNTER"), show_envvar=True,
        help="Token counter: heuristic (no dependency), o200k_base, cl100k_base, or "
        "hf:/path/to/tokenizer.json.",
    )(f)


def file_argument(f: F) -> F:
    """The ``FILE`` argument and ``--sample`` (LoCoMo files hold several conversations)."""
    f = click.option("--sample", default=None, metavar="K", show_default="the first",
                     help="LoCoMo file: which conversation (index or sample_id).")(f)
    return click.argument("file", type=click.Path(dir_okay=True, allow_dash=True))(f)


def json_option(f: F) -> F:
    """``--json``: machine-readable output."""
    return click.option("--json", "as_json", is_flag=True,
                        help="Print the result as JSON.")(f)


def build_policy(trigger: int, target: int | None, keep: int, summary_max: int | None,
                 language: str) -> Policy:
    """The policy the options describe; a bad combination is a usage error naming the flag."""
    try:
        return Policy(trigger_tokens=trigger, target_tokens=target, keep=keep,
                      summary_max_tokens=summary_max or 0,  # 0: the policy's auto cap
                      language=language,  # type: ignore[arg-type]
                      on_overflow="keep")
    except InvalidPolicyError as exc:
        flag = _POLICY_FLAGS.get(exc.option, exc.option)
        raise click.UsageError(f"{flag}: {exc.problem}") from exc


def build_counter(name: str) -> TokenCounter:
    """The counter named by ``--counter``; an unknown or unloadable one is a usage error."""
    try:
        counter: TokenCounter = get_counter(name)
    except MissingDependencyError:
        raise
    except (ChatfoldError, ValueError, LookupError, OSError) as exc:
        raise click.UsageError(f"--counter {name}: {exc}") from exc
    return counter


def build_summarizer(name: str, *, model: str | None, base_url: str | None,
                     counter: TokenCounter, retries: int | None = None) -> object:
    """The summarizer named by ``--summarizer`` with its options."""
    options: dict[str, Any] = {}
    if name == "anthropic" and not model:
        raise click.UsageError("--summarizer anthropic needs --model (or CHATFOLD_MODEL)")
    if name == "extractive":
        options["count"] = counter.count
    else:
        if model:
            options["model"] = model
        if base_url:
            options["base_url"] = base_url
        if retries is not None:
            options["max_retries"] = retries
    try:
        return get_summarizer(name, **options)
    except (MissingDependencyError, UnknownPluginError):
        raise
    except (SummarizerError, ValueError, TypeError) as exc:
        raise click.UsageError(f"--summarizer {name}: {exc}") from exc


def _load(file: str, sample: str | None) -> ConversationFile:
    stdin = sys.stdin
    conv = read_conversation(file, sample=sample, stdin=stdin)
    if conv.format == "locomo" and conv.samples > 1 and sample is None:
        _note(f"{conv.source}: LoCoMo file with {conv.samples} conversations; using "
              f"{conv.sample} (choose another with --sample)")
    return conv


class _Console(Console):
    """rich exits 1 when the reader of stdout goes away; the group treats that as success."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError


def _err_console() -> Console:
    return _Console(file=sys.stderr, highlight=False)


def _out_console() -> Console:
    return _Console(file=sys.stdout, highlight=False, soft_wrap=False)


@contextlib.contextmanager
def _progress(total: int, label: str, *, force: bool = False
              ) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr (only on a terminal, and only for long runs)."""
    err = _err_console()
    if not err.is_terminal or (total < PROGRESS_MIN_MESSAGES and not force):
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), TimeElapsedColumn(), console=err,
                  transient=True) as bar:
        task = bar.add_task(label, total=total)

        def update(done: int, all_: int) -> None:
            bar.update(task, completed=done, total=all_)

        yield update


@contextlib.contextmanager
def _status(message: str, enabled: bool) -> Iterator[None]:
    err = _err_console()
    if not enabled or not err.is_terminal:
        yield
        return
    with err.status(message):
        yield


def _fmt(n: float) -> str:
    return f"{n:,.0f}" if float(n).is_integer() else f"{n:,.1f}"


# ---------------------------------------------------------------------------------------------
# the group


@click.group(cls=ChatfoldGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="chatfold")
@click.option("-v", "--verbose", count=True,
              help="Log each fold to stderr (-vv: every decision).")
def cli(verbose: int) -> None:
    """Keep LLM conversations inside a token budget by rolling summarization.

    The system prompt is pinned, all older history folds into one rolling summary, and the
    last messages stay verbatim. Every option can also be set with a CHATFOLD_* variable.

    \b
    Examples:
      chatfold demo
      chatfold inspect chat.json
      chatfold compress chat.json -o folded.json
      chatfold simulate chat.jsonl --compare --plot sawtooth.png
      chatfold chat --model qwen2.5:7b --base-url http://127.0.0.1:11434/v1
    """
    if verbose:
        logging.getLogger("chatfold").setLevel(logging.INFO if verbose == 1 else logging.DEBUG)


# ---------------------------------------------------------------------------------------------
# demo


@cli.command()
def demo() -> int:
    """Fold the bundled bilingual conversation offline and show the result.

    No key and no network: the embedded extractive summarizer writes the summary.

    \b
    Examples:
      chatfold demo
    """
    from ._demo import main as demo_main

    return demo_main()


# ---------------------------------------------------------------------------------------------
# compress


@cli.command()
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
    conv = _load(file, sample)
    engine = build_summarizer(summarizer, model=model, base_url=base_url, counter=counter,
                              retries=retries)
    folder = Folder(engine, policy, counter=counter)
    remote = summarizer != "extractive"
    if incremental:
        with _progress(len(conv.messages), "folding", force=remote) as update:
            report = replay(conv.messages, folder, name="chatfold", progress=update)
        messages = report.final_context
        _note(f"replayed {len(report.turns)} messages: {report.folds} fold(s), "
              f"{report.summarizer_calls} summarizer call(s); {report.history_tokens:,} -> "
              f"{folder.count(messages):,} tokens ({counter.name})")
    else:
        with _status("folding…", remote):
            result = folder.fold(conv.messages, force=force)
        messages = result.messages
        _note(_describe_fold(result, policy, counter))
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
        return json.dumps(to_anthropic(messages), ensure_ascii=False, indent=2) + "\n"
    if to == "openai":
        return dump_conversation(conv, to_openai(messages))
    return dump_conversation(conv, messages)


# ---------------------------------------------------------------------------------------------
# inspect


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


@cli.command()
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
    conv = _load(file, sample)
    data = {"file": conv.source, "format": conv.format, **_inspect(conv.messages, policy,
                                                                   counter)}
    if as_json:
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        _print_inspection(data)
    rejected = any(p["severity"] == "error" for p in data["problems"])
    return EXIT_INPUT if strict and rejected else EXIT_OK


def _print_inspection(data: dict[str, Any]) -> None:
    out = _out_console()
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


# ---------------------------------------------------------------------------------------------
# simulate

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
        "mean context": _fmt(round(report.mean_context_tokens, 1)),
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


@cli.command()
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
    conv = _load(file, sample)
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
        with _progress(len(conv.messages), f"replaying ({name})", force=remote) as update:
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
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        _print_simulation(label, reports, policy, summarizer)
        if plot_path:
            _note(f"plot written to {plot_path}")
    return EXIT_OK


def _print_simulation(label: str, reports: Sequence[ReplayReport], policy: Policy,
                      summarizer: str) -> None:
    out = _out_console()
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


# ---------------------------------------------------------------------------------------------
# chat


_CHAT_HELP = """commands:
  /summary     the current rolling summary
  /transcript  every message so far (nothing is ever lost)
  /fold        fold now, even under the trigger
  /stats       tokens by part and what folding has cost
  /quit        leave (Ctrl-C and Ctrl-D too; everything is saved)"""


def _gauge(used: int, limit: int, width: int = 20) -> str:
    share = used / limit if limit else 0.0
    filled = min(width, round(share * width))
    return f"[{'█' * filled}{'░' * (width - filled)}] {used:,}/{limit:,} tokens ({share:.0%})"


class _ChatModel:
    """Replies through an OpenAI-compatible endpoint with the ``openai`` SDK."""

    def __init__(self, model: str, base_url: str | None, api_key: str, timeout: float) -> None:
        try:
            import openai
        except ImportError as exc:
            raise MissingDependencyError("chatfold chat", "openai") from exc
        self.model = model
        self.base_url = base_url
        self._openai = openai
        self.client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout,
                                    max_retries=1)

    def reply(self, messages: list[dict[str, Any]]) -> str:
        openai = self._openai
        where = self.base_url or "OpenAI"
        try:
            response = self.client.chat.completions.create(
                model=self.model, messages=cast(Any, messages))
        except openai.APIConnectionError as exc:
            raise SummarizerError(f"the model endpoint {where} could not be reached "
                                  f"({type(exc).__name__}): check --base-url") from exc
        except openai.APIStatusError as exc:
            raise SummarizerError(f"the model endpoint {where} answered {exc.status_code}: "
                                  f"{_short(exc.message)}", status_code=exc.status_code) from exc
        except openai.OpenAIError as exc:
            raise SummarizerError(f"the model call failed: {_short(str(exc))}") from exc
        if not response.choices:
            raise SummarizerError("the model returned no choices")
        return response.choices[0].message.content or ""


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@cli.command()
@click.option("--db", type=click.Path(dir_okay=False), default=None, envvar=_env("DB"),
              show_envvar=True, show_default="~/.chatfold/chatfold.db",
              help="SQLite file holding the conversation.")
@click.option("--session", "session_id", default="default", show_default=True,
              envvar=_env("SESSION"), show_envvar=True,
              help="Conversation id: the same id resumes the conversation.")
@click.option("--model", default=None, envvar=_env("MODEL"), show_envvar=True,
              help="Model that replies (required).")
@click.option("--base-url", default=None, envvar=[_env("BASE_URL"), "OPENAI_BASE_URL"],
              show_envvar=True, help="OpenAI-compatible endpoint (key: CHATFOLD_API_KEY or "
              "OPENAI_API_KEY; a local server needs none).")
@click.option("--system", "system_prompt", default=DEFAULT_SYSTEM_PROMPT, show_default=True,
              help="System prompt (pinned, never folded).")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=120.0, show_default=True,
              help="Seconds to wait for a reply.")
@click.option("--summarizer", default="extractive", show_default=True,
              envvar=_env("SUMMARIZER"), show_envvar=True,
              help="Who writes the summary: extractive (offline), openai (the same endpoint), "
              "anthropic, or a plugin's name.")
@click.option("--summary-model", default=None, show_default="--model",
              help="Model of the openai/anthropic summarizer.")
@policy_options
@counter_option
def chat(db: str | None, session_id: str, model: str | None, base_url: str | None,
         system_prompt: str, timeout: float, summarizer: str, summary_model: str | None,
         trigger: int, target: int | None, keep: int, summary_max: int | None, language: str,
         counter_name: str) -> int:
    """Chat with a model, the conversation stored in SQLite and kept within the budget.

    Every message is saved before the model is called, so Ctrl-C never loses anything; the
    same --session resumes it. After each turn a gauge shows the context against the
    trigger. Type /help for the commands (/summary, /transcript, /fold, /stats, /quit).

    \b
    Examples:
      chatfold chat --model qwen2.5:7b --base-url http://127.0.0.1:11434/v1
      OPENAI_API_KEY=... chatfold chat --model gpt-4o-mini --session trip --trigger 8000
      chatfold chat --model deepseek-chat --base-url https://api.deepseek.com/v1 \\
          --summarizer openai
    """
    from .session import Conversation, default_store_path

    if not model:
        raise click.UsageError("chat needs --model (or CHATFOLD_MODEL)")
    api_key = os.environ.get(_env("API_KEY")) or os.environ.get("OPENAI_API_KEY")
    if not api_key:
        if not base_url:
            raise click.UsageError(
                "chat needs an API key for OpenAI (OPENAI_API_KEY or CHATFOLD_API_KEY), or "
                "--base-url for a local server")
        api_key = "not-needed"
    counter = build_counter(counter_name)
    policy = build_policy(trigger, target, keep, summary_max, language)
    engine = build_summarizer(summarizer, model=summary_model or model, base_url=base_url,
                              counter=counter)
    llm = _ChatModel(model, base_url, api_key, timeout)
    path = Path(db) if db else default_store_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConversationFileError(str(path), f"cannot create its folder: {exc}") from exc
    from .stores import SQLiteStore

    store = SQLiteStore(str(path))
    conv = Conversation(session_id, store=store, summarizer=engine, policy=policy,
                        system=system_prompt, counter=counter)
    try:
        return _chat_loop(conv, llm, path, remote=summarizer != "extractive")
    finally:
        with contextlib.suppress(Exception):
            conv.close()


def _chat_loop(conv: Any, llm: _ChatModel, path: Path, *, remote: bool) -> int:
    stdin = sys.stdin
    interactive = stdin.isatty()
    stats = conv.stats()
    _note(f"chatfold chat — session {conv.conversation_id!r} in {path} "
          f"({stats.logged_messages} message(s) so far); /help for commands")
    failed = False
    try:
        while True:
            if interactive:
                try:
                    line = input("you> ")
                except EOFError:
                    break
            else:
                raw = stdin.readline()
                if not raw:
                    break
                line = raw.rstrip("\n")
            text = line.strip()
            if not text:
                continue
            if text.startswith("/"):
                if _chat_command(conv, text):
                    break
                continue
            # Saved before the model is called: an interrupt or a failure loses nothing.
            conv.append({"role": "user", "content": line})
            try:
                with _status("folding…", remote and _over(conv)):
                    context = conv.context()
                with _status("thinking…", True):
                    answer = llm.reply(context)
            except (SummarizerError, StoreError, ContextOverflowError,
                    InvalidMessageError) as exc:
                failed = True
                _error(f"{exc} (your message is saved)")
                continue
            conv.append({"role": "assistant", "content": answer})
            click.echo(answer)
            _print_gauge(conv)
    except KeyboardInterrupt:
        _note(f"\ninterrupted — session {conv.conversation_id!r} is saved in {path}")
        return EXIT_INTERRUPTED
    return EXIT_INPUT if failed else EXIT_OK


def _over(conv: Any) -> bool:
    stats = conv.stats()
    return bool(stats.total_tokens > conv.policy.trigger_tokens)


def _print_gauge(conv: Any) -> None:
    stats = conv.stats()
    _note(f"context {_gauge(stats.total_tokens, conv.policy.trigger_tokens)} · summary "
          f"{stats.summary_tokens:,} · {stats.context_messages} message(s) in context, "
          f"{stats.logged_messages} logged · {stats.folds} fold(s)")


def _chat_command(conv: Any, text: str) -> bool:
    """Run a /command; True means quit."""
    command = text.split()[0].lower()
    if command in ("/quit", "/exit", "/q"):
        return True
    if command == "/help":
        click.echo(_CHAT_HELP)
    elif command == "/summary":
        conv.stats()  # refresh the view from the store
        click.echo(conv.summary or "(no summary yet: the conversation is under the trigger)")
    elif command == "/transcript":
        click.echo(format_messages(conv.transcript()))
    elif command == "/fold":
        started = time.perf_counter()
        result = conv.fold(force=True)
        if result.folded:
            click.echo(f"folded {result.messages_folded} message(s): {result.tokens_before:,} "
                       f"-> {result.tokens_after:,} tokens ({time.perf_counter() - started:.2f}s)")
        else:
            click.echo(f"nothing folded ({result.reason.replace('_', ' ')})")
        _print_gauge(conv)
    elif command == "/stats":
        stats = conv.stats()
        rows = {
            "context tokens": f"{stats.total_tokens:,} / {conv.policy.trigger_tokens:,} "
                              f"(target {conv.policy.target:,})",
            "pinned tokens": f"{stats.pinned_tokens:,}",
            "summary tokens": f"{stats.summary_tokens:,}",
            "recent tokens": f"{stats.recent_tokens:,}",
            "messages in context": f"{stats.context_messages}",
            "messages logged": f"{stats.logged_messages}",
            "folds": f"{stats.folds}",
            "summarizer calls": f"{stats.summarizer_calls}",
            "last fold": "-" if stats.last_fold_seconds is None
            else f"{stats.last_fold_seconds:.2f}s",
            "counter": str(getattr(conv.counter, "name", "?")),
        }
        if stats.last_error:
            rows["last fold error"] = stats.last_error
        width = max(map(len, rows))
        click.echo("\n".join(f"{k:<{width}}  {v}" for k, v in rows.items()))
    else:
        _error(f"unknown command {command}; /help lists them")
    return False
