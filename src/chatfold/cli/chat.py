"""``chatfold chat``: chat with a model, the conversation stored and kept within budget."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path
from typing import Any, cast

import click

from .._errors import (
    ContextOverflowError,
    InvalidMessageError,
    MissingDependencyError,
    StoreError,
    SummarizerError,
)
from ..messages import format_messages
from ..summarizers._http import HTTPFailures, RetryPolicy, display_host
from ..summarizers.openai import LOCAL_API_KEY, OPENAI_ERROR_RULES, OPENAI_URL
from .files import ConversationFileError
from .shared import (
    DEFAULT_SYSTEM_PROMPT,
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    build_counter,
    build_policy,
    build_summarizer,
    counter_option,
    env_var,
    error,
    note,
    policy_options,
    status,
)

__all__ = ["chat"]

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
    """Replies through an OpenAI-compatible endpoint: the ``openai`` SDK's client behind the
    summarizers' HTTP layer (one error boundary, the same messages and bounded retries)."""

    def __init__(self, model: str, base_url: str | None, api_key: str, timeout: float) -> None:
        try:
            import openai
        except ImportError as exc:
            raise MissingDependencyError("chatfold chat", "openai") from exc
        self.model = model
        self.client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout,
                                    max_retries=0)  # the failures below count retries
        self.failures = HTTPFailures(
            provider=f"OpenAI-compatible API at {display_host(base_url, OPENAI_URL)}",
            model=model, sdk_errors=openai.OpenAIError, rules=OPENAI_ERROR_RULES,
            secrets=() if api_key == LOCAL_API_KEY else (api_key,),
            retry=RetryPolicy(max_retries=1), timeout=timeout)

    def reply(self, messages: list[dict[str, Any]]) -> str:
        def attempt() -> str:
            response = self.client.chat.completions.create(
                model=self.model, messages=cast(Any, messages))
            if not response.choices:
                raise SummarizerError(f"{self.failures.provider} returned no choices",
                                      retryable=False)
            return response.choices[0].message.content or ""

        return self.failures.call(attempt)


@click.command()
@click.option("--db", type=click.Path(dir_okay=False), default=None, envvar=env_var("DB"),
              show_envvar=True, show_default="~/.chatfold/chatfold.db",
              help="SQLite file holding the conversation.")
@click.option("--session", "session_id", default="default", show_default=True,
              envvar=env_var("SESSION"), show_envvar=True,
              help="Conversation id: the same id resumes the conversation.")
@click.option("--model", default=None, envvar=env_var("MODEL"), show_envvar=True,
              help="Model that replies (required).")
@click.option("--base-url", default=None, envvar=[env_var("BASE_URL"), "OPENAI_BASE_URL"],
              show_envvar=True, help="OpenAI-compatible endpoint (key: CHATFOLD_API_KEY or "
              "OPENAI_API_KEY; a local server needs none).")
@click.option("--system", "system_prompt", default=DEFAULT_SYSTEM_PROMPT, show_default=True,
              help="System prompt (pinned, never folded).")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=120.0, show_default=True,
              help="Seconds to wait for a reply.")
@click.option("--summarizer", default="extractive", show_default=True,
              envvar=env_var("SUMMARIZER"), show_envvar=True,
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
    from ..session import Conversation, default_store_path

    if not model:
        raise click.UsageError("chat needs --model (or CHATFOLD_MODEL)")
    api_key = os.environ.get(env_var("API_KEY")) or os.environ.get("OPENAI_API_KEY")
    if not api_key:
        if not base_url:
            raise click.UsageError(
                "chat needs an API key for OpenAI (OPENAI_API_KEY or CHATFOLD_API_KEY), or "
                "--base-url for a local server")
        api_key = LOCAL_API_KEY
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
    from ..stores import SQLiteStore

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
    # Bytes that are not UTF-8 arrive as lone surrogates, which the append then refuses
    # with one clear line, instead of a UnicodeDecodeError ending the chat.
    with contextlib.suppress(Exception):
        stdin.reconfigure(errors="surrogateescape")  # type: ignore[union-attr]
    interactive = stdin.isatty()
    stats = conv.stats()
    note(f"chatfold chat — session {conv.conversation_id!r} in {path} "
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
            try:
                conv.append({"role": "user", "content": line})
            except InvalidMessageError as exc:  # text that is not valid Unicode, say
                failed = True
                error(f"{exc.problem} (not sent, not saved)")
                continue
            try:
                with status("folding…", remote and _over(conv)):
                    context = conv.context()
                with status("thinking…", True):
                    answer = llm.reply(context)
            except (SummarizerError, StoreError, ContextOverflowError,
                    InvalidMessageError) as exc:
                failed = True
                error(f"{exc} (your message is saved)")
                continue
            conv.append({"role": "assistant", "content": answer})
            click.echo(answer)
            _print_gauge(conv)
    except KeyboardInterrupt:
        note(f"\ninterrupted — session {conv.conversation_id!r} is saved in {path}")
        return EXIT_INTERRUPTED
    return EXIT_INPUT if failed else EXIT_OK


def _over(conv: Any) -> bool:
    stats = conv.stats()
    return bool(stats.total_tokens > conv.policy.trigger_tokens)


def _print_gauge(conv: Any) -> None:
    stats = conv.stats()
    note(f"context {_gauge(stats.total_tokens, conv.policy.trigger_tokens)} · summary "
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
        error(f"unknown command {command}; /help lists them")
    return False
