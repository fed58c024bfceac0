"""What every benchmark shares: options, result files, statistics, token counters, scoring.

Each benchmark is a script (``python benchmarks/bench_X.py [--quick] [--out DIR]``) that writes
``X.md`` (human-readable, with the command that made it, the core count and the date) and
``X.json`` (the headline figures, read by ``run_all.py`` to build the table at the top of
``BENCHMARKS.md``) into ``benchmarks/results/`` or ``--out``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib.util
import json
import math
import os
import platform
import re
import shlex
import statistics
import string
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
"""The repository's root."""
BENCH_DIR = ROOT / "benchmarks"
RESULTS_DIR = BENCH_DIR / "results"
"""Where the committed results live."""
DEFAULT_LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo10.json"
"""LoCoMo (``../shared/data/locomo/`` from the repository's root); never copied into the repo."""

if importlib.util.find_spec("chatfold") is None:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT / "src"))
if str(BENCH_DIR) not in sys.path:
    sys.path.insert(0, str(BENCH_DIR))

Message = dict[str, Any]


# ---------------------------------------------------------------------------------------------
# options and result files


def make_parser(description: str, *, data: bool = False) -> argparse.ArgumentParser:
    """The options every benchmark takes (``--quick``, ``--out``; ``--data`` for LoCoMo)."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--quick", action="store_true",
                   help="tiny inputs, a few seconds: a smoke test, figures not meaningful")
    p.add_argument("--out", type=Path, default=RESULTS_DIR,
                   help="directory for the results files (default: benchmarks/results)")
    if data:
        p.add_argument("--data", type=Path, default=DEFAULT_LOCOMO,
                       help="LoCoMo's locomo10.json (default: ../shared/data/locomo/)")
    return p


def command_line() -> str:
    """The command that is running, as it would be typed from the repository's root."""
    script = Path(sys.argv[0]).resolve()
    try:
        shown = str(script.relative_to(ROOT))
    except ValueError:
        shown = str(script)
    args = []
    skip = False
    for a in sys.argv[1:]:
        if skip:  # an --out path is where the file went, not how the figures were made
            skip = False
            continue
        if a == "--out":
            skip = True
            continue
        if a.startswith("--out="):
            continue
        args.append(a)
    return " ".join(["python", shown, *map(shlex.quote, args)])


def machine() -> dict[str, Any]:
    """Facts about the run that the figures depend on."""
    return {
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
        "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def write_results(name: str, title: str, body: str, headline: Mapping[str, Any],
                  out: Path, *, quick: bool) -> Path:
    """Write ``name.md`` (a header naming the command, cores and date, then ``body``) and
    ``name.json`` (``headline`` plus the same facts) into ``out``; returns the ``.md`` path."""
    out.mkdir(parents=True, exist_ok=True)
    facts = machine()
    cmd = command_line()
    header = (
        f"## {title}\n\n"
        f"`{cmd}` · {facts['cpu_count']} cores · Python {facts['python']} · "
        f"{facts['platform']} · {facts['date']}"
        + (" · **quick mode: tiny inputs, figures not meaningful**" if quick else "")
        + "\n\n"
    )
    path = out / f"{name}.md"
    path.write_text(header + body.strip() + "\n", encoding="utf-8")
    data = {"name": name, "title": title, "command": cmd, "quick": quick, **facts,
            "headline": dict(headline)}
    (out / f"{name}.json").write_text(
        json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {path}", file=sys.stderr)
    return path


# ---------------------------------------------------------------------------------------------
# statistics and tables


def median(values: Iterable[float]) -> float:
    vals = list(values)
    return statistics.median(vals) if vals else float("nan")


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100), nearest-rank: a value that was actually observed."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def mean(values: Iterable[float]) -> float:
    vals = list(values)
    return sum(vals) / len(vals) if vals else float("nan")


def fmt(value: Any, digits: int = 1) -> str:
    """A number for a table: thousands separators, ``digits`` decimals for floats."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        return f"{value:,.{digits}f}"
    return str(value)


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]], digits: int = 1) -> str:
    """A Markdown table; numeric cells right-aligned."""
    rows = [list(r) for r in rows]
    numeric = [all(isinstance(r[i], int | float) or r[i] is None for r in rows) if rows else False
               for i in range(len(headers))]
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(fmt(c, digits) for c in r) + " |")
    return "\n".join(lines)


def ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


# ---------------------------------------------------------------------------------------------
# token counters


def true_counter() -> tuple[Any, str]:
    """The counter that figures are reported in: o200k_base when it works offline, else
    chatfold's heuristic. Returns ``(counter, name)``."""
    from chatfold.tokens import default_counter

    try:
        from chatfold.tokens import TiktokenCounter

        counter = TiktokenCounter("o200k_base")
        counter.count("probe: does the encoding load offline? 你好")
        return counter, "o200k_base"
    except Exception as exc:  # the encoding file could not be loaded (no network, no package)
        print(f"o200k_base unavailable ({type(exc).__name__}: {exc}); using the heuristic",
              file=sys.stderr)
        return default_counter(), "chatfold heuristic (o200k_base unavailable offline)"


def context_tokens(messages: Sequence[Mapping[str, Any]], counter: Any) -> int:
    """Tokens of a context as ``counter`` counts messages."""
    return sum(counter.count_message(m) for m in messages)


# ---------------------------------------------------------------------------------------------
# SQuAD-style answer normalisation (used by the retention benchmarks)

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = set(string.punctuation) | set("‘’“”–—…")


def normalize_answer(text: str) -> str:
    """Lowercase, drop punctuation and articles, collapse spaces (SQuAD's normalisation)."""
    text = str(text).lower()
    text = "".join(" " if ch in _PUNCT else ch for ch in text)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def answer_tokens(text: str) -> list[str]:
    return normalize_answer(text).split()


def token_recall(answer: str, context_tokens_set: set[str]) -> float:
    """Share of the answer's normalised tokens present in the context's token set."""
    toks = answer_tokens(answer)
    if not toks:
        return 1.0
    return sum(1 for t in toks if t in context_tokens_set) / len(toks)


# ---------------------------------------------------------------------------------------------
# deterministic synthetic text

_WORD_TEXT = (
    "the a plan budget flight hotel invoice report meeting deadline client server database query "
    "result error retry latency cache window summary order refund address schedule weather "
    "museum ticket train station coffee review draft version release bug patch customer "
    "Tuesday Friday March Berlin Lisbon Osaka Alice Bob 42 1,250 3.5 we should could will "
    "please thanks because after before and or but not"
)
_WORDS = _WORD_TEXT.split()
_ZH = "我们明天下午三点在会议室讨论预算报告客户希望周五之前收到发票数据库查询变慢了需要排查缓存"


def synthetic_message(i: int, words: int = 24) -> Message:
    """A deterministic chat message (English with some Chinese), about ``words`` words long."""
    role = "user" if i % 2 == 0 else "assistant"
    picked = [_WORDS[(i * 7 + k * 13 + (i // 5) * k) % len(_WORDS)] for k in range(words)]
    text = " ".join(picked).capitalize() + "."
    if i % 3 == 0:
        start = (i * 5) % (len(_ZH) - 12)
        text += " " + _ZH[start:start + 12] + "。"
    return {"role": role, "content": f"[{i}] {text}"}


def load_json(path: Path) -> Any:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


# ---------------------------------------------------------------------------------------------
# LoCoMo


def locomo_samples(path: Path) -> list[dict[str, Any]]:
    """The LoCoMo samples (a clear exit if the data set is not where it should be)."""
    if not Path(path).exists():
        raise SystemExit(f"LoCoMo not found at {path}: pass --data PATH/locomo10.json")
    data = load_json(path)
    return list(data) if isinstance(data, list) else [data]


def locomo_conversation(sample: Mapping[str, Any], *, dia_ids: bool = False) -> list[Message]:
    """One sample as OpenAI-format messages (chatfold's loader: speaker_a is the user, each
    session's first message starts with its date)."""
    from chatfold.cli.files import locomo_messages

    return locomo_messages(sample, dia_ids=dia_ids)


# ---------------------------------------------------------------------------------------------
# summarizers and the faithful seed as a replayable folder

SEED_CAP_TOKENS = 400
"""Summary cap given to the extractive summarizer behind the seed (chatfold's default cap), so
that both policies get summaries of the same length and only the policy differs."""


class CountingSummarizer:
    """Wraps a chatfold summarizer; counts calls and the tokens of what it reads (previous
    summary + transcript of the evicted messages), in ``counter``'s units."""

    accepts_request = True

    def __init__(self, inner: Any, counter: Any) -> None:
        self.inner = inner
        self.counter = counter
        self.calls = 0
        self.input_tokens = 0

    def summarize(self, request: Any) -> str:
        self.calls += 1
        text = request.transcript()
        if request.previous_summary:
            text = request.previous_summary + "\n" + text
        self.input_tokens += self.counter.count(text)
        return str(self.inner.summarize(request))


_SEED_LINE = re.compile(r"^(user|assistant|system|tool|developer|function): ", re.M)


def seed_text_to_request(text: str, max_tokens: int, language: str = "en") -> Any:
    """The seed's summarizer input (``已有摘要: …\\n新增对话:\\n<_fmt lines>``) as a
    :class:`chatfold.SummaryRequest`, so a chatfold summarizer can serve the seed."""
    from chatfold import SummaryRequest

    previous = ""
    transcript = text
    if text.startswith("已有摘要: "):
        head, sep, rest = text.partition("\n新增对话:\n")
        if sep:
            previous = head[len("已有摘要: "):]
            transcript = rest
            for prefix in ("历史摘要: ", "历史摘要："):
                previous = previous.removeprefix(prefix)
    messages: list[Message] = []
    starts = [m.start() for m in _SEED_LINE.finditer(transcript)]
    if not starts or starts[0] != 0:
        starts = [0, *starts]
    for a, b in zip(starts, [*starts[1:], len(transcript)], strict=True):
        chunk = transcript[a:b].rstrip("\n")
        m = _SEED_LINE.match(chunk)
        role = m.group(1) if m else "user"
        body = chunk[m.end():] if m else chunk
        if role not in ("user", "assistant"):
            role = "user"
        messages.append({"role": role, "content": body})
    return SummaryRequest(previous_summary=previous, messages=tuple(messages),
                          language=language, max_tokens=max_tokens)  # type: ignore[arg-type]


class SeedTextSummarizer:
    """The seed's ``llm`` (``summarize(text) -> str``) served by a chatfold summarizer: the
    seed's text is parsed back into the previous summary and the evicted messages."""

    def __init__(self, inner: Any, counter: Any, *, cap: int = SEED_CAP_TOKENS) -> None:
        self.inner = inner
        self.counter = counter
        self.cap = cap
        self.calls = 0
        self.input_tokens = 0

    def summarize(self, text: str) -> str:
        self.calls += 1
        self.input_tokens += self.counter.count(text)
        return str(self.inner.summarize(seed_text_to_request(text, self.cap)))


class SeedReferenceFolder:
    """The faithful seed (``benchmarks/seed_reference.maybe_compress``) behind the part of the
    :class:`chatfold.Folder` interface that :func:`chatfold.cli.replay.replay` uses."""

    def __init__(self, llm: SeedTextSummarizer, *, max_tokens: int = 3000, keep: int = 4) -> None:
        from chatfold import Policy
        from chatfold.cli.replay import SeedCounter

        self.llm = llm
        self.max_tokens = max_tokens
        self.keep = keep
        self.counter = SeedCounter()
        self.own_peak = 0
        """The largest context as the seed itself estimates it (its ``max_tokens`` units)."""
        # replay() reads the trigger and the target from here; the seed has no target.
        self.policy = Policy(trigger_tokens=max_tokens, target_tokens=max_tokens, keep=keep,
                             summary_max_tokens=min(SEED_CAP_TOKENS, max_tokens - 1))

    def fold(self, messages: Sequence[Mapping[str, Any]], **_: Any) -> Any:
        from chatfold import FoldResult

        import seed_reference

        before = self.llm.calls
        out = seed_reference.maybe_compress(list(messages), self.llm,
                                            max_tokens=self.max_tokens, keep=self.keep)
        folded = self.llm.calls > before
        self.own_peak = max(self.own_peak, seed_estimate(out))
        return FoldResult(messages=out, folded=folded, reason="folded" if folded else
                          "under_trigger", tokens_before=0, tokens_after=0,
                          summarizer_calls=self.llm.calls - before)


def seed_estimate(messages: Sequence[Mapping[str, Any]]) -> int:
    """The seed's own count of a context: ``_estimate_tokens(_fmt(messages))``."""
    import seed_reference

    return seed_reference._estimate_tokens(seed_reference._fmt(list(messages)))


Timer = Callable[[], float]
