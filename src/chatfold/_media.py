"""What images, documents and files in a content list cost in tokens.

``message_text()`` describes a media part in a few words ("[image]"), which is right for a
transcript but not for a budget: a 3 MB image or a 300 KB document would cost a handful of
tokens. :func:`media_tokens` adds what the provider really charges, as far as the part shows
it: the text of documents and text files, PDFs by page, images by OpenAI's tile rule or
Anthropic's width x height / 750 from the real size in the image's header.
"""

from __future__ import annotations

import binascii
import math
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

OPENAI_IMAGE_BASE: Final = 85
"""OpenAI: tokens of any image (all of a ``detail: low`` one)."""
OPENAI_IMAGE_TILE: Final = 170
"""OpenAI, high detail: tokens per 512 px tile of the scaled image."""
ANTHROPIC_IMAGE_MAX: Final = 1600
"""Anthropic: images are scaled to at most about 1.15 megapixels, about 1,600 tokens."""
UNKNOWN_IMAGE_SIDE: Final = 1024
"""An image whose size cannot be read (a remote URL) is counted as this many pixels square."""
PDF_PAGE_TOKENS: Final = 3000
"""A PDF page: Anthropic publishes 1,500-3,000 text tokens a page plus an image of each page
(up to about 1,600); OpenAI also sends the extracted text and an image of each page."""
BINARY_BYTES_PER_TOKEN: Final = 4
"""Other binary files whose text cannot be read: about 4 bytes a token, as for text."""

_TEXT_TYPES: Final = ("text/", "application/json", "application/xml", "application/x-yaml",
                      "application/yaml", "application/csv", "application/javascript")


def _openai_image(width: int, height: int, detail: object) -> int:
    """OpenAI's published rule: ``low`` is 85; otherwise fit in 2048x2048, shrink the short
    side to 768, and charge 170 per 512 px tile plus 85."""
    if detail == "low":
        return OPENAI_IMAGE_BASE
    w, h = float(width), float(height)
    if max(w, h) > 2048:
        scale = 2048 / max(w, h)
        w, h = w * scale, h * scale
    if min(w, h) > 768:
        scale = 768 / min(w, h)
        w, h = w * scale, h * scale
    tiles = math.ceil(w / 512) * math.ceil(h / 512)
    return OPENAI_IMAGE_BASE + OPENAI_IMAGE_TILE * tiles


def _anthropic_image(width: int, height: int) -> int:
    """Anthropic's published rule: ``width * height / 750``, after scaling the long edge to at
    most 1568 px; about 1,600 at most."""
    w, h = float(width), float(height)
    if max(w, h) > 1568:
        scale = 1568 / max(w, h)
        w, h = w * scale, h * scale
    return max(1, min(ANTHROPIC_IMAGE_MAX, math.ceil(w * h / 750)))


def image_tokens(width: int, height: int, provider: str = "openai",
                 detail: object = "auto") -> int:
    """Tokens of a ``width`` x ``height`` image by the provider's published rule.

    Args:
        width: Pixels.
        height: Pixels.
        provider: ``"openai"`` (512 px tiles: 170 each plus 85; ``detail="low"``: 85) or
            ``"anthropic"`` (``width * height / 750``, long edge scaled to 1568 px).
        detail: OpenAI's ``detail`` (``"low"``, ``"high"`` or ``"auto"``, counted as high).

    Example:
        >>> image_tokens(1024, 1024), image_tokens(1024, 1024, detail="low")
        (765, 85)
        >>> image_tokens(1000, 1000, "anthropic")
        1334
    """
    width, height = max(1, int(width)), max(1, int(height))
    if provider == "anthropic":
        return _anthropic_image(width, height)
    return _openai_image(width, height, detail)


def _split_data_url(url: str) -> tuple[str, str] | None:
    """``(media type, base64 payload)`` of a ``data:...;base64,`` URL, else None."""
    if not url.startswith("data:"):
        return None
    head, sep, payload = url.partition(",")
    if not sep or not head.endswith(";base64"):
        return None
    return head[5:].split(";", 1)[0].lower(), payload


def _b64_prefix(payload: str, chars: int) -> bytes:
    """The first bytes of a base64 payload (about ``chars * 3 / 4``), b"" if it is not base64."""
    chunk = payload[: chars - chars % 4].strip()
    try:
        return binascii.a2b_base64(chunk[: len(chunk) - len(chunk) % 4])
    except (binascii.Error, ValueError):
        return b""


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length field
            i += 2
            continue
        length = int.from_bytes(data[i + 2 : i + 4], "big")
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7,
                      0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            height = int.from_bytes(data[i + 5 : i + 7], "big")
            width = int.from_bytes(data[i + 7 : i + 9], "big")
            return (width, height) if width and height else None
        i += 2 + length
    return None


def image_size(data: bytes) -> tuple[int, int] | None:
    """``(width, height)`` from the header of PNG, GIF, WebP or JPEG bytes, else None.

    Only the first bytes are needed (a JPEG's size comes after its metadata segments).

    Example:
        >>> image_size(b"GIF89a" + bytes([16, 0, 32, 0]))
        (16, 32)
    """
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        return int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP" and len(data) >= 30:
        chunk = data[12:16]
        if chunk == b"VP8 " and data[23:26] == b"\x9d\x01\x2a":
            return (int.from_bytes(data[26:28], "little") & 0x3FFF,
                    int.from_bytes(data[28:30], "little") & 0x3FFF)
        if chunk == b"VP8L" and data[20] == 0x2F:
            bits = int.from_bytes(data[21:25], "little")
            return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
        if chunk == b"VP8X":
            return (int.from_bytes(data[24:27], "little") + 1,
                    int.from_bytes(data[27:30], "little") + 1)
        return None
    if data[:2] == b"\xff\xd8":
        return _jpeg_size(data)
    return None


def _b64_image_size(payload: str) -> tuple[int, int] | None:
    size = image_size(_b64_prefix(payload, 64))
    if size is None and payload[:4] == "/9j/":
        # A JPEG's size comes after its metadata (EXIF, thumbnails): read further, up to 1 MB.
        limit, chars = min(len(payload), 1 << 20), 4096
        while size is None:
            size = _jpeg_size(_b64_prefix(payload, chars))
            if chars >= limit:
                break
            chars *= 4
    return size


def _image_cost(payload: str | None, provider: str, detail: object) -> int:
    """An image's tokens: from its real size when the base64 header gives it; otherwise, for
    inline data, as if each decoded byte were a pixel of a square image (compressed images
    are about 0.2-1 byte a pixel); a remote image counts as 1024x1024."""
    size = _b64_image_size(payload) if payload else None
    if size is None:
        if payload:
            side = max(1, math.isqrt(len(payload) * 3 // 4))
            size = (side, side)
        else:
            size = (UNKNOWN_IMAGE_SIDE, UNKNOWN_IMAGE_SIDE)
    return image_tokens(size[0], size[1], provider, detail)


def _binary_cost(payload: str, media_type: str, count: Callable[[str], int]) -> int:
    """A base64 file's tokens: text files decoded and counted, PDFs by their pages, other
    data by its size."""
    if media_type.startswith(_TEXT_TYPES):
        try:
            data = binascii.a2b_base64(payload)
        except (binascii.Error, ValueError):
            data = b""
        return count(data.decode("utf-8", "replace"))
    size = len(payload) * 3 // 4
    if media_type == "application/pdf" or payload[:6] == "JVBERi":  # %PDF-
        try:
            data = binascii.a2b_base64(payload)
        except (binascii.Error, ValueError):
            data = b""
        pages = len(_PDF_PAGE.findall(data))
        if pages:
            return pages * PDF_PAGE_TOKENS
    return math.ceil(size / BINARY_BYTES_PER_TOKEN)


_PDF_PAGE: Final = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")


def _part_cost(part: Mapping[str, Any], count: Callable[[str], int]) -> int:
    kind = part.get("type")
    if kind in ("image_url", "input_image"):  # OpenAI
        url = part.get("image_url")
        detail = part.get("detail", "auto")
        if isinstance(url, Mapping):
            detail = url.get("detail", detail)
            url = url.get("url")
        split = _split_data_url(url) if isinstance(url, str) else None
        return _image_cost(split[1] if split else None, "openai", detail)
    if kind == "image":  # Anthropic
        source = part.get("source")
        data = source.get("data") if isinstance(source, Mapping) else None
        return _image_cost(data if isinstance(data, str) else None, "anthropic", None)
    if kind == "document":  # Anthropic
        n = sum(count(str(part[k])) for k in ("title", "context") if part.get(k))
        source = part.get("source")
        if not isinstance(source, Mapping):
            return n
        data = source.get("data")
        if source.get("type") == "text" and isinstance(data, str):
            return n + count(data)
        if source.get("type") == "content" and isinstance(source.get("content"), list):
            inner = source["content"]
            text = "\n".join(str(p.get("text", "")) for p in inner
                             if isinstance(p, Mapping) and p.get("type") == "text")
            return n + count(text) + media_tokens(inner, count)
        if source.get("type") == "base64" and isinstance(data, str):
            return n + _binary_cost(data, str(source.get("media_type", "")).lower(), count)
        return n
    if kind in ("file", "input_file"):  # OpenAI chat completions / responses
        f = part.get("file") if kind == "file" else part
        data = f.get("file_data") if isinstance(f, Mapping) else None
        if not isinstance(data, str):
            return 0  # an uploaded file's id: its size is not known here
        split = _split_data_url(data)
        media_type, payload = split if split else ("", data)
        if not media_type and isinstance(f, Mapping):
            name = str(f.get("filename") or "").lower()
            media_type = "application/pdf" if name.endswith(".pdf") else (
                "text/plain" if name.endswith((".txt", ".md", ".csv", ".json")) else "")
        return _binary_cost(payload, media_type, count)
    if kind == "tool_result" and isinstance(part.get("content"), list):
        return media_tokens(part["content"], count)
    return 0


def media_tokens(content: Iterable[object], count: Callable[[str], int] | None = None) -> int:
    """Tokens of the media in a content list, beyond the few words ``message_text`` gives them.

    * Images (OpenAI ``image_url`` / ``input_image``; Anthropic ``image``): by the provider's
      published rule (:func:`image_tokens`), from the image's real size when a base64 PNG,
      JPEG, GIF or WebP header gives it. Otherwise inline data counts as a square image of
      one pixel per decoded byte, and a remote URL as a 1024x1024 image (765 tokens at
      OpenAI, 1,399 at Anthropic).
    * Documents (Anthropic ``document``): text sources (and a title or context) are counted
      as text; base64 sources as files.
    * Files (OpenAI ``file`` / ``input_file`` with ``file_data``): text types are decoded and
      counted; a PDF costs 3,000 tokens a page (pages found in its bytes); other data one
      token per 4 bytes. A file given by id only adds nothing: its size is not known here.
    * Anthropic ``tool_result`` blocks: the media inside them.

    Args:
        content: A message's content list.
        count: Counts text (default: the shared heuristic).

    Example:
        >>> media_tokens([{"type": "image_url", "image_url": {"url": "https://x.test/a.png",
        ...                                                   "detail": "low"}}])
        85
    """
    if count is None:
        from .tokens import DEFAULT_COUNTER  # tokens.py imports this module at load

        count = DEFAULT_COUNTER.count
    total = 0
    for part in content:
        if isinstance(part, Mapping):
            total += _part_cost(part, count)
    return total


