"""Which language a conversation is in, by script (zh or en), for prompts and prefixes."""

from __future__ import annotations

import re
from typing import Literal

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]+")

# Scan at most this many characters: the language is clear long before, and the check runs
# on every fold.
_SAMPLE_CHARS = 20_000


def detect_language(text: str, default: Literal["zh", "en"] = "en") -> Literal["zh", "en"]:
    """``"zh"`` when Chinese characters make up a real share of the text, else ``"en"``.

    A Chinese sentence with English terms in it ("帮我把 README 翻译成英文") is Chinese; an
    English one with a Chinese name in it is English. Han characters are weighed against Latin
    words: a Chinese clause carries more characters than an English one carries words.

    Example:
        >>> detect_language("帮我把 README 翻译成英文")
        'zh'
        >>> detect_language("Please call 张伟 tomorrow about the contract")
        'en'
    """
    found = script_of(text)
    return default if found is None else found


def script_of(text: str) -> Literal["zh", "en"] | None:
    """Like :func:`detect_language`, but ``None`` when ``text`` has no letters at all."""
    sample = text[:_SAMPLE_CHARS]
    han = len(_HAN.findall(sample))
    words = len(_LATIN_WORD.findall(sample))
    if han == 0 and words == 0:
        return None
    return "zh" if han >= words and han >= 2 else "en"
