"""Dates: what day each statement was made, when the conversation says so.

A conversation carries dates in two ways: a message key (``timestamp``, ``created_at`` or
``date``: an ISO string or Unix seconds/milliseconds), or a dated first message of a session
(``"[8 May 2023] Hi!"``, ``"[2023-05-08 14:00] ..."``, as LoCoMo-style loaders write it). A
date applies to its message and to the messages after it until the next date. Items are
rendered with a compact ``[8 May 2023]`` (``[2023年5月8日]`` in Chinese) prefix, shown once
per run of lines with the same date, its year only where a section's year changes (``[9 May]``
below it), and parsed back from the previous summary.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Mapping
from typing import Any

_MONTHS = {
    m: i + 1
    for i, names in enumerate(
        ("jan january", "feb february", "mar march", "apr april", "may", "jun june",
         "jul july", "aug august", "sep sept september", "oct october", "nov november",
         "dec december")
    )
    for m in names.split()
}
_MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August",
                "September", "October", "November", "December")
_MONTH_WORD = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ISO = re.compile(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})")
_ZH = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")
_DAY_MONTH = re.compile(rf"(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH_WORD})\.?,?\s+(\d{{4}})", re.I)
_MONTH_DAY = re.compile(rf"({_MONTH_WORD})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})", re.I)
_LEADING = re.compile(r"\s*\[([^\[\]\n]{3,48})\]\s*")
# A day without its year ("8 May", "5月8日"): a summary writes the year once per section.
_ZH_NO_YEAR = re.compile(r"(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")
_DAY_MONTH_NO_YEAR = re.compile(rf"(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH_WORD})\.?", re.I)
_KEYS = ("timestamp", "created_at", "date", "sent_at", "ts")


def _iso(year: int, month: int, day: int) -> str | None:
    try:
        return _dt.date(year, month, day).isoformat()
    except ValueError:
        return None


def parse_date(value: object) -> str | None:
    """The ISO day (``"2023-05-08"``) a value names, or None.

    Example:
        >>> parse_date("1:56 pm on 8 May, 2023"), parse_date("2024-03-05T10:00:00Z")
        ('2023-05-08', '2024-03-05')
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, _dt.date):  # a datetime (a framework's message metadata) or a date
        return value.isoformat()[:10]
    if isinstance(value, (int, float)):
        seconds = value / 1000 if value > 1e11 else value  # milliseconds since the epoch
        try:
            return _dt.datetime.fromtimestamp(seconds, _dt.UTC).date().isoformat()
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str) or len(value) > 64:
        return None
    for rx, order in ((_ISO, (1, 2, 3)), (_ZH, (1, 2, 3))):
        m = rx.search(value)
        if m:
            return _iso(*(int(m.group(i)) for i in order))
    m = _DAY_MONTH.search(value)
    if m:
        return _iso(int(m.group(3)), _MONTHS[m.group(2).lower()], int(m.group(1)))
    m = _MONTH_DAY.search(value)
    if m:
        return _iso(int(m.group(3)), _MONTHS[m.group(1).lower()], int(m.group(2)))
    return None


def message_date(message: Mapping[str, Any]) -> str | None:
    """The day a message's timestamp key gives, or None."""
    for key in _KEYS:
        if key in message:
            day = parse_date(message[key])
            if day:
                return day
    return None


def leading_date(text: str, year: int | None = None) -> tuple[str | None, str]:
    """(ISO day, rest of the text) when ``text`` starts with a bracketed date, else (None, text).
    With ``year`` (the year of the summary line above), a day without one counts in it.

    Example:
        >>> leading_date("[8 May 2023] Hi!"), leading_date("[9 May] Bye.", 2023)
        (('2023-05-08', 'Hi!'), ('2023-05-09', 'Bye.'))
    """
    m = _LEADING.match(text)
    if m:
        day = parse_date(m.group(1))
        if day is None and year is not None:
            day = _in_year(m.group(1).strip(), year)
        if day:
            return day, text[m.end():]
    return None, text


def _in_year(value: str, year: int) -> str | None:
    """The ISO day of a day and month written without a year ("9 May", "5月9日")."""
    m = _ZH_NO_YEAR.fullmatch(value)
    if m:
        return _iso(year, int(m.group(1)), int(m.group(2)))
    m = _DAY_MONTH_NO_YEAR.fullmatch(value)
    if m:
        return _iso(year, _MONTHS[m.group(2).lower()], int(m.group(1)))
    return None


def render_date(day: str, lang: str, with_year: bool = True) -> str:
    """``"8 May 2023"`` (``"2023年5月8日"`` in Chinese): short, and each part a word a question
    about the date would use; ``"8 May"`` (``"5月8日"``) without its year."""
    year, month, dd = (int(x) for x in day.split("-"))
    if lang == "zh":
        return f"{year}年{month}月{dd}日" if with_year else f"{month}月{dd}日"
    return f"{dd} {_MONTH_NAMES[month - 1]} {year}" if with_year \
        else f"{dd} {_MONTH_NAMES[month - 1]}"
