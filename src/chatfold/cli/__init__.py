"""The ``chatfold`` command: fold, inspect and simulate conversation files; chat with a budget.

The package holds the Click application (:mod:`~chatfold.cli.app`), the options every
command shares (:mod:`~chatfold.cli.shared`), one module per command (``compress``,
``inspect``, ``simulate``, ``chat``, ``demo``), the conversation-file reader
(:mod:`~chatfold.cli.files`) and the replay behind ``simulate`` (:mod:`~chatfold.cli.replay`).
The commands need the ``cli`` extra (Click and rich); this module imports neither, so that
without the extra ``chatfold`` can still say what to install instead of failing with a
traceback.

Exit codes: 0 success, 1 usage error (bad option, missing extra), 2 input error (unreadable
file, malformed message, unreachable endpoint, failed summarizer), 130 interrupted.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import NoReturn

__all__ = ["INSTALL_HINT", "main"]

INSTALL_HINT = (
    "chatfold: the command line needs the 'cli' extra (Click and rich): "
    "pip install 'chatfold[cli]'\n"
)
"""What ``chatfold`` prints when the ``cli`` extra is missing."""


def main(argv: Sequence[str] | None = None) -> NoReturn:
    """Run the ``chatfold`` command line (the console script's entry point).

    Args:
        argv: Arguments (default ``sys.argv[1:]``).
    """
    try:
        import click  # noqa: F401
        import rich  # noqa: F401
    except ImportError:
        sys.stderr.write(INSTALL_HINT)
        raise SystemExit(1) from None
    from .app import cli

    cli.main(args=list(argv) if argv is not None else None, prog_name="chatfold")
    raise SystemExit(0)  # cli.main exits by itself; this line only satisfies NoReturn


if __name__ == "__main__":
    main()
