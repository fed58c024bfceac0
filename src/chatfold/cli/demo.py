"""``chatfold demo``: fold the bundled conversation offline.
"""

from __future__ import annotations

import click

__all__ = ["demo"]

@click.command()
def demo() -> int:
    """Fold the bundled bilingual conversation offline and show the result.

    No key and no network: the embedded extractive summarizer writes the summary.

    \b
    Examples:
      chatfold demo
    """
    from .._demo import main as demo_main

    return demo_main()
