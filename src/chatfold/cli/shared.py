"""What every command shares: exit codes, one-line errors, the Click group class, the options
(policy, summarizer, counter, file) and the objects they build, and console output helpers.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import click
from rich.console import Console

from .._errors import (
    ChatfoldError,
    InvalidPolicyError,
    MissingDependencyError,
    SummarizerError,
    UnknownPluginError,
)
from .._registry import get_summarizer
from ..fold import Policy
from ..tokens import TokenCounter, get_counter
from .files import (
    ConversationFile,
    dumps,
    read_conversation,
)

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "EXIT_INPUT",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "PROGRESS_MIN_MESSAGES",
    "ChatfoldGroup",
    "build_counter",
    "build_policy",
    "build_summarizer",
    "counter_option",
    "env_var",
    "err_console",
    "error",
    "exit_code",
    "file_argument",
    "fmt_number",
    "json_option",
    "load_conversation",
    "note",
    "out_console",
    "policy_options",
    "progress",
    "status",
    "summarizer_options",
    "to_json",
]

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK = 0
EXIT_USAGE = 1
EXIT_INPUT = 2
EXIT_INTERRUPTED = 130

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


def exit_code(exc: ChatfoldError) -> int:
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
            with _lenient_output():
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
            error(str(exc))
            return exit_code(exc)
        except RecursionError:
            # The readers bound nesting; this is the last guard against a traceback.
            error("the input is nested too deeply to process")
            return EXIT_INPUT
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


@contextlib.contextmanager
def _lenient_output() -> Iterator[None]:
    """Text that cannot be encoded (a file name with undecodable bytes, say) is written with
    backslash escapes instead of failing the command; inside a JSON string that is a valid
    escape, so JSON output stays JSON."""
    restore = []
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        errors = getattr(stream, "errors", None)
        if callable(reconfigure) and errors == "strict":
            with contextlib.suppress(Exception):
                reconfigure(errors="backslashreplace")
                restore.append(reconfigure)
    try:
        yield
    finally:
        for reconfigure in restore:
            with contextlib.suppress(Exception):
                reconfigure(errors="strict")


def to_json(data: Any) -> str:
    """``data`` as standard JSON for stdout (see :func:`~chatfold.cli.files.dumps`)."""
    return dumps(data, indent=2)


def error(message: str) -> None:
    click.echo(f"Error: {message}", err=True)


def note(message: str) -> None:
    click.echo(message, err=True)


# ---------------------------------------------------------------------------------------------
# shared options


def env_var(name: str) -> str:
    return f"CHATFOLD_{name}"


def policy_options(f: F) -> F:
    """``--trigger --target --keep --summary-max --language`` (defaults from ``CHATFOLD_*``)."""
    options = [
        click.option("--trigger", type=click.IntRange(min=1), default=3000, show_default=True,
                     envvar=env_var("TRIGGER"), show_envvar=True,
                     help="Fold when the context exceeds this many tokens."),
        click.option("--target", type=click.IntRange(min=1), default=None,
                     show_default="summary cap + 10% of --trigger", envvar=env_var("TARGET"),
                     show_envvar=True,
                     help="Tokens to land at after a fold."),
        click.option("--keep", type=click.IntRange(min=0), default=4, show_default=True,
                     envvar=env_var("KEEP"), show_envvar=True,
                     help="Recent messages always kept verbatim (whole tool-call units)."),
        click.option("--summary-max", type=click.IntRange(min=16), default=None,
                     show_default="400 + a tenth of the trigger, at most 40% of it",
                     envvar=env_var("SUMMARY_MAX"), show_envvar=True,
                     help="Hard cap on the summary, in tokens."),
        click.option("--language", type=click.Choice(["auto", "zh", "en"]), default="auto",
                     show_default=True, envvar=env_var("LANGUAGE"), show_envvar=True,
                     help="Language of the summary and its prefix."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def summarizer_options(f: F) -> F:
    """``--summarizer --model --base-url`` (defaults from ``CHATFOLD_*``)."""
    options = [
        click.option("--summarizer", default="extractive", show_default=True,
                     envvar=env_var("SUMMARIZER"), show_envvar=True,
                     help="Who writes the summary: extractive (offline, no key), openai (any "
                     "OpenAI-compatible endpoint), anthropic, or a plugin's name."),
        click.option("--model", default=None, envvar=env_var("MODEL"), show_envvar=True,
                     help="Model of the openai/anthropic summarizer."),
        click.option("--base-url", default=None, envvar=env_var("BASE_URL"), show_envvar=True,
                     help="Endpoint of the summarizer, e.g. http://127.0.0.1:11434/v1 "
                     "(keys come from OPENAI_API_KEY / ANTHROPIC_API_KEY / CHATFOLD_API_KEY)."),
        click.option("--retries", type=click.IntRange(min=0), default=None,
                     show_default="2", envvar=env_var("RETRIES"), show_envvar=True,
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
        envvar=env_var("COUNTER"), show_envvar=True,
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


def load_conversation(file: str, sample: str | None) -> ConversationFile:
    stdin = sys.stdin
    conv = read_conversation(file, sample=sample, stdin=stdin)
    if conv.format == "locomo" and conv.samples > 1 and sample is None:
        note(f"{conv.source}: LoCoMo file with {conv.samples} conversations; using "
              f"{conv.sample} (choose another with --sample)")
    return conv


class _Console(Console):
    """rich exits 1 when the reader of stdout goes away; the group treats that as success."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError


def err_console() -> Console:
    return _Console(file=sys.stderr, highlight=False)


def out_console() -> Console:
    return _Console(file=sys.stdout, highlight=False, soft_wrap=False)


@contextlib.contextmanager
def progress(total: int, label: str, *, force: bool = False
              ) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr (only on a terminal, and only for long runs)."""
    err = err_console()
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
def status(message: str, enabled: bool) -> Iterator[None]:
    err = err_console()
    if not enabled or not err.is_terminal:
        yield
        return
    with err.status(message):
        yield


def fmt_number(n: float) -> str:
    return f"{n:,.0f}" if float(n).is_integer() else f"{n:,.1f}"
