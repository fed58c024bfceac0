"""The runnable example of each integration page runs, offline, and shows chatfold's summary."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs" / "integrations"
NEEDS = {"langchain": "langchain", "openai_agents": "agents", "pydantic_ai": "pydantic_ai",
         "llama_index": "llama_index.core"}


@pytest.mark.parametrize("page", sorted(NEEDS))
def test_page_example_runs(page: str, tmp_path: Path) -> None:
    pytest.importorskip(NEEDS[page])
    text = (DOCS / f"{page}.md").read_text(encoding="utf-8")
    example = re.search(r"```python\n(.*?)```", text, re.S)
    assert example is not None, f"docs/integrations/{page}.md has no python example"
    script = tmp_path / "example.py"
    script.write_text(example.group(1), encoding="utf-8")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "Summary of the earlier conversation:" in out.stdout
