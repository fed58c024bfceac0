"""The package's sources hold no control characters: a ``\\b`` written through a non-raw
string once became a backspace inside a regex (``(?i:\\x08remind)``), invisible on screen,
and silently turned an English rule off."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def test_sources_hold_no_control_characters() -> None:
    files = sorted((ROOT / "src" / "chatfold").rglob("*.py")) + sorted(
        (ROOT / "benchmarks").glob("*.py"))
    assert files
    bad = []
    for path in files:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _CONTROL.search(line):
                bad.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()!r}")
    assert bad == []
