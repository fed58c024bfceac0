"""What the SQL stores share about schema migrations: a migration is a tuple of steps, each an
SQL statement or a function of the connection (a backfill), run in order inside the
migration's transaction (the store's ``migrate`` opens it and bumps the version with it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["apply_steps"]


def apply_steps(conn: Any, steps: Sequence[str | Callable[[Any], None]]) -> None:
    """Run one migration's ``steps`` on ``conn``, in order."""
    for step in steps:
        if callable(step):
            step(conn)
        else:
            conn.execute(step)
