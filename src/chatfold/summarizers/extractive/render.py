"""Rendering the chosen items under the token cap."""

from __future__ import annotations

from collections.abc import Callable

from ..prompts import SECTION_TITLES
from .dates import render_date
from .items import _Item
from .lexicon import _COLON, _FULL_STOP, _REPEAT_DISCOUNT
from .scoring import _DIGITS


def _discount_repeats(items: list[_Item]) -> None:
    """Lower the score of statements that repeat a newer one with other numbers.

    "Go with version 2.31" then "go with version 2.37": the newest keeps its score and each
    older variant counts less, so a repeated template cannot fill the whole summary. Nothing is
    dropped here; variants only lose when room is short.
    """
    seen: dict[str, int] = {}
    for it in sorted(items, key=lambda i: -i.order):
        skeleton = _DIGITS.sub("", it.key)
        k = seen.get(skeleton, 0)
        seen[skeleton] = k + 1
        it.score *= _REPEAT_DISCOUNT**k


def _render(items: list[_Item], lang: str, paragraph: bool) -> str:
    """One line per item (``- …``) under its section's heading, or one paragraph.

    Within a section, items run by day (undated first) and as they were said within a day
    (carried lines first, in the order they had): the next fold reads them in time order, so
    a later statement is the one that changes an older one, not the one that ranks higher. A
    ``[day]`` prefix opens each run of the same day, so a date costs its tokens once, and its
    year is written where the section's year changes.
    """
    ordered = sorted(items, key=lambda it: (it.section, it.date or "", it.order))
    if paragraph:
        sep = "" if lang == "zh" else " "
        out = []
        day: str | None = None
        for it in ordered:
            # (In a paragraph every sentence keeps its speaker: no line says whose it is.)
            text = _as_sentence(it.tagged, lang)
            if it.date and it.date != day:
                text = f"[{render_date(it.date, lang, _new_year(it.date, day))}] {text}"
            day = it.date or day
            out.append(text)
        return sep.join(out)
    titles = SECTION_TITLES[lang]
    colon = _COLON[lang].strip()
    blocks: list[str] = []
    current = -1
    lines: list[str] = []
    day = None
    for it in ordered:
        if it.section != current:
            if lines:
                blocks.append("\n".join(lines))
            current = it.section
            lines = [f"{titles[current]}{colon}"]
            day = None
        if it.date and it.date != day:
            lines.append(f"- [{render_date(it.date, lang, _new_year(it.date, day))}] {it.text}")
        else:
            lines.append(f"- {it.text}")
        day = it.date or day
    if lines:
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _new_year(day: str, before: str | None) -> bool:
    """Whether ``day`` is written with its year: the first of its section, or in another year
    than the date above it."""
    return before is None or day[:4] != before[:4]


def _as_sentence(text: str, lang: str) -> str:
    if text[-1:] in '.!?;。！？；…)）"”':
        return text
    return text + _FULL_STOP[lang]


def _fit(text: str, budget: int, count: Callable[[str], int]) -> str:
    """``text``, cut (with an ellipsis) to the longest prefix within ``budget`` tokens."""
    if count(text) <= budget:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(text[:mid].rstrip() + "…") <= budget:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + "…" if lo else ""


