"""The offline summarizer is deterministic across processes: no output depends on the order of
a set of strings, which changes with Python's hash seed."""

from __future__ import annotations

import os
import subprocess
import sys

_SCRIPT = """
from chatfold import SummaryRequest
from chatfold._demo import load_sample
from chatfold.summarizers.extractive import ExtractiveSummarizer
msgs = [m for m in load_sample() if m.get("role") != "system"]
summary = ""
for i in range(0, len(msgs), 6):
    summary = ExtractiveSummarizer().summarize(
        SummaryRequest(summary, tuple(msgs[i:i + 6]), "zh", 300))
print(summary)
"""


def _run(seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    return subprocess.run([sys.executable, "-c", _SCRIPT], env=env, check=True,
                          capture_output=True, text=True, timeout=120).stdout


def test_the_same_fold_in_processes_with_other_hash_seeds_gives_the_same_summary() -> None:
    # The bundled sample has tool calls, Chinese and English: every pass runs on it, fold
    # after fold, each carrying the summary before.
    first = _run("1")
    assert first.strip()
    for seed in ("2", "3", "12345"):
        assert _run(seed) == first
