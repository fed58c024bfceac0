"""The ``chatfold`` Click application: the group and its commands (one module each).

Commands only parse options, call the public API and print the result: results go to stdout,
progress and diagnostics to stderr. :class:`~chatfold.cli.shared.ChatfoldGroup` maps outcomes
to exit codes: 0 success, 1 usage error, 2 input error, 130 interrupted; an expected error
prints one line.
"""

from __future__ import annotations

import logging

import click

from .. import __version__
from .chat import chat
from .compress import compress
from .demo import demo
from .inspect import inspect
from .shared import ChatfoldGroup
from .simulate import simulate

__all__ = ["cli"]


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


for _command in (chat, compress, demo, inspect, simulate):
    cli.add_command(_command)
