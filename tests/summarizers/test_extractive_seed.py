"""The offline summarizer is deterministic across processes: no output depends on the order of
a set of strings, which changes with Python's hash seed."""

from __future__ import annotations

import json
import os
import subprocess
import sys

_SAMPLE = """
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

_GIVEN = """
import json, sys
from chatfold import SummaryRequest
from chatfold.summarizers.extractive import ExtractiveSummarizer
msgs = json.load(sys.stdin)
print(ExtractiveSummarizer().summarize(SummaryRequest("", tuple(msgs), "en", 400)))
"""


def _run(seed: str, script: str = _SAMPLE, given: str = "") -> str:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    return subprocess.run([sys.executable, "-c", script], env=env, check=True, input=given,
                          capture_output=True, text=True, timeout=120).stdout


def test_the_same_fold_in_processes_with_other_hash_seeds_gives_the_same_summary() -> None:
    # The bundled sample has tool calls, Chinese and English: every pass runs on it, fold
    # after fold, each carrying the summary before.
    first = _run("1")
    assert first.strip()
    for seed in ("2", "3", "12345"):
        assert _run(seed) == first


def test_a_correction_naming_two_near_values_rewrites_neither_whatever_the_hash_seed() -> None:
    # "March" is a near miss of both "Marco" and "Marcy", all said before the correction: which
    # one a slip "meant" was the first found in a set, so it changed with the hash seed.
    messages = [
        {"role": "user", "content": "Marco moves into the Marcy Avenue flat on 12 March."},
        {"role": "assistant", "content": "Noted: Marco moves into Marcy Avenue on 12 March."},
        {"role": "user", "content": "small correction on Marcy Avenue: it's 3 keys, not 2, "
                                    "and Marco wants a fob as well."},
    ]
    given = json.dumps(messages)
    first = _run("1", _GIVEN, given)
    assert "12 March" in first and "Marcy Avenue" in first, first
    assert "12 Marc" not in first.replace("12 March", "") and "Marco Avenue" not in first, first
    for seed in ("2", "3", "4", "5"):
        assert _run(seed, _GIVEN, given) == first
