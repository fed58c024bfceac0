"""Items of the summary being built, the previous summary parsed back, and the merge."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

from .dates import leading_date
from .lexicon import (
    _COLON,
    _DECISIONS,
    _FACTS,
    _MAX_ITEM_CHARS,
    _NEAR_DUP_BUCKET,
    _NOTES,
    _PREFS,
    _REMINDER_MARKS,
    _ROLE_TAGS,
    _TASKS,
)
from .sentences import _HAS_WORD, _SPACES, _dedup_key, _trim, split_sentences
from .slots import _slots, _without_clauses

# Attributes a person states once per task (each trip's budget, each job's deadline); a new value
# replaces the old only when the statement says it changes. A name, a home, a phone number are
# the person's own: the newest one is the one that holds.
_PER_TASK = frozenset({"budget", "deadline", "headcount", "destination"})
_DIGIT = re.compile(r"\d|[一二两三四五六七八九十百千万]")
_UPDATE = re.compile(
    r"改成|改为|改到|换成|变成|变为|更新|调整|调到|提高到|增加到|降到|减少到|加到|延到|推迟|提前到"
    r"|涨到|升到|砍到|压到|缩减到|现在|其实|不是.{0,12}而是|不再"
    r"|(?i:\b(?:now|actually|instead|update[ds]?|changed?|raised?|lowered?|increased?|reduced?"
    r"|moved|no longer|any ?more|new|revised|extended|pushed|cut|dropped|bumped|trimmed|upped"
    r"|doubled|halved|postponed|rescheduled|delayed|switched)\b)"
)

# ---------------------------------------------------------------------------------------------
# items


class _Shape(NamedTuple):
    """What an item's text alone decides: its clauses, the slots they fill, its key."""

    parts: list[str]
    slots: list[tuple[tuple[str, ...], int, str]]
    key: str


# The user's tag in each language ("User: ", "用户："): written nowhere (see _Item.text).
_USER_TAGS = frozenset(f"{tags['user']}{_COLON[lang]}" for lang, tags in _ROLE_TAGS.items())


@dataclass(slots=True)
class _Item:
    """One statement of the summary being built."""

    tag: str
    """Who said it, as shown (``"User: "``), or ``""``."""
    role: str
    """``user``, ``assistant``, ``tool``, ``summary`` (from the previous summary), ..."""
    body: str
    section: int
    score: float
    order: int
    """Position in the conversation: previous-summary items are negative, newer is larger."""
    key: str
    """Normalised text, for duplicates."""
    parts: list[str] = field(default_factory=list)
    """Clauses, with separators at odd indexes (only for statements that fill slots)."""
    slots: list[tuple[tuple[str, ...], int, str]] = field(default_factory=list)
    """(slot, clause index, subject text) for each slot a clause fills."""
    removed: set[int] = field(default_factory=set)
    """Clauses replaced by newer statements."""
    cost: int = 0
    dropped: bool = False
    date: str | None = None
    """ISO day the statement was made, when the conversation carries dates."""
    replaces: bool = False
    """It filled a slot an older statement held (that statement's clause was removed)."""
    event: float | None = None
    """A carried one-off event: its score without the incumbency bonus (else None)."""
    standing: bool = False
    """A new statement of what stays true until said otherwise."""
    msg: int = -1
    """The message it comes from in this fold (-1: carried from the previous summary)."""
    yields: bool = False
    """Carried, and rewritten by a decision of this fold: the decision claims the room first."""

    @property
    def text(self) -> str:
        # The user's own statements go untagged: a line without a tag is theirs, and the tag
        # on every line was 7-8% of the summary (both languages, measured on the read probes).
        return self.body if self.tag in _USER_TAGS else self.tag + self.body

    @property
    def tagged(self) -> str:
        """The line with its speaker's tag, whoever spoke (a paragraph's sentence)."""
        return self.tag + self.body

    @classmethod
    def make(
        cls,
        tag: str,
        body: str,
        section: int,
        score: float,
        order: int,
        role: str,
        slot: bool,
        cache: dict[tuple[str, str, bool], _Shape] | None = None,
        *,
        date: str | None = None,
        speaker: str = "",
        said_by: str = "",
    ) -> _Item:
        """The item for ``body``; ``cache`` keeps the clause and key work of one fold, so a
        statement said again costs a lookup (the parts are only read, never changed).
        ``said_by``: whose words a carried statement is (``assistant`` for an "Assistant: "
        line), so that the assistant's "my name is…" never fills the user's slot."""
        who = said_by or role
        cache_key = (body, f"{who}\n{speaker}", slot)
        shape = cache.get(cache_key) if cache is not None else None
        if shape is None:
            parts, slots = _slots(body, who, speaker) if slot else ([], [])
            shape = _Shape(parts, slots, _dedup_key(body))
            if cache is not None:
                cache[cache_key] = shape
        return cls(tag, role, body, section, score, order, shape.key, shape.parts, shape.slots,
                   date=date)


_HEADING = re.compile(
    r"\s*(?:#{1,6}\s*)?\**\s*(?P<title>facts|preferences|decisions|open\s+tasks|事实|偏好|决定|待办)"
    r"\s*\**\s*(?:[:：]\s*\**\s*(?P<rest>.*)|\**\s*)",
    re.I,
)
_HEADING_SECTION = {
    "facts": _FACTS,
    "preferences": _PREFS,
    "decisions": _DECISIONS,
    "open tasks": _TASKS,
    "事实": _FACTS,
    "偏好": _PREFS,
    "决定": _DECISIONS,
    "待办": _TASKS,
}
_BULLET = re.compile(r"^\s*(?:[-*•·]|\d{1,3}[.)、])\s*")
_SUMMARY_PREFIX = re.compile(
    r"^\s*(?:历史摘要|(?i:summary(?:\s+of\s+(?:the\s+)?earlier\s+conversation)?))\s*[:：]\s*"
)


def _previous_items(summary: str) -> list[tuple[str, int | None, str | None]]:
    """(text, section or None to classify, ISO day or None) for each statement of the previous
    summary. A line without a date prefix has the date of the line above it in its section
    (dates are rendered once per run of lines of the same day), and a date without a year the
    year of the date above it."""
    out: list[tuple[str, int | None, str | None]] = []
    summary = _SUMMARY_PREFIX.sub("", summary)
    section: int | None = None
    day: str | None = None
    for line in summary.splitlines():
        heading = _HEADING.fullmatch(line)
        if heading:
            section = _HEADING_SECTION[_SPACES.sub(" ", heading.group("title").casefold())]
            line = heading.group("rest") or ""  # "Facts: the user lives in Oslo." on one line
            day = None
        if line.strip() in _NOTES:
            continue  # our own "nothing to keep" note is not a fact to carry forward
        if section is not None and line.strip():
            text = _SPACES.sub(" ", _BULLET.sub("", line)).strip()
            found, text = leading_date(text, int(day[:4]) if day else None)
            day = found or day
            if _HAS_WORD.search(text):
                out.append((_trim(text, _MAX_ITEM_CHARS * 2), section, day))
        elif line.strip():
            for s in split_sentences(line):
                found, s = leading_date(s, int(day[:4]) if day else None)
                day = found or day
                out.append((s, None, day))
    return out


def _is_tool_line(body: str) -> bool:
    return body.startswith(("Tool ", "工具 ", "Tool result", "工具结果"))


def _previous_role(tag: str, body: str) -> str:
    if tag.startswith(("Assistant", "助手")):
        return "assistant"
    if _CHOICE_LINE.match(body) or body.endswith(_REMINDER_MARKS):
        # "User chose: the blue logo", "User asked: use grams for recipes", a reminder the
        # assistant set or promised: worth a decision in every fold.
        return "decision"
    return "tool" if _is_tool_line(body) else "user"


# A decision line the summarizer wrote ("User agreed: …", "Maria chose: …", "用户选择：…").
_CHOICE_LINE = re.compile(r"^[^:：\n]{1,24}?(?: agreed| chose| asked|同意|选择|要求)[:：]")

def _merge(items: list[_Item]) -> list[_Item]:
    """Drop duplicates and superseded statements; items come oldest first."""
    by_key: dict[str, _Item] = {}
    by_slot: dict[tuple[str, ...], tuple[_Item, int]] = {}
    by_attr: dict[tuple[str, ...], tuple[str, ...]] = {}  # (attr, who, name) → its latest slot
    buckets: dict[str, list[_Item]] = {}
    for it in items:  # collected in conversation order, oldest first
        if not it.key:
            it.dropped = True
            continue
        old = by_key.get(it.key)
        if old is not None and not old.dropped:
            # Same statement again: keep the newest, with the best score and a known section.
            it.score = max(it.score, old.score)
            if it.section == _FACTS:
                it.section = old.section
            old.dropped = True
        by_key[it.key] = it
        for bucket_key in (it.key[:8], it.key[-8:]):
            bucket = buckets.setdefault(bucket_key, [])
            for other in bucket[-_NEAR_DUP_BUCKET:]:
                if other.dropped or other is it:
                    continue
                short, long_ = (it, other) if len(it.key) < len(other.key) else (other, it)
                # Lengths first: most pairs differ too much for the substring test to matter.
                if len(short.key) >= 0.6 * len(long_.key) and short.key in long_.key:
                    short.dropped = True
                    long_.score = max(long_.score, short.score)
            bucket.append(it)
        if it.dropped:
            continue
        for slot, clause, _ in it.slots:
            held = by_slot.get(slot)
            if held is None and slot[0] == "attr" and _UPDATE.search(it.body):
                # "The deadline got pushed" changes the deadline just named ("the project
                # deadline"): a change of an attribute without its qualifier, or with one the
                # latest value lacked, is a change of that attribute's latest value.
                latest = by_attr.get(slot[:3])
                if latest is not None and (not slot[3] or not latest[3]):
                    slot = latest
                    held = by_slot.get(slot)
            if slot[0] == "attr":
                by_attr[slot[:3]] = slot
            if held is None or held[0].dropped or held == (it, clause):
                by_slot[slot] = (it, clause)
                continue
            if (slot[0] in ("prefhead", "role") or (slot[0] == "attr" and slot[2] in _PER_TASK)) \
                    and not _UPDATE.search(it.body):
                # A budget or a date with no word of change is the next task's, not a new value
                # of the last one's (one trip's hotel budget, then the next trip's): both stay.
                by_slot[slot] = (it, clause)
                continue
            older = held[0]
            if it.role == "assistant" and older.role == "user" and older.order >= 0:
                # The assistant repeating what the user just said: keep the user's words.
                it.removed.add(clause)
                continue
            older.removed.add(held[1])  # a newer statement fills the same slot
            # It replaced the value unless the older clause only named the attribute ("年底团建
            # 预算批下来了，总共 23600 块"): then the change still looks for the value.
            it.replaces = it.replaces or _DIGIT.search(older.parts[2 * held[1]]) is not None
            it.score = max(it.score, older.score)  # and is as important as the one it replaces
            by_slot[slot] = (it, clause)
    kept = []
    # A long history says the same statement again and again, and each copy loses the same
    # clauses: each distinct (statement, clauses removed) is rebuilt once.
    rebuilt: dict[tuple[str, frozenset[int]], str] = {}
    for it in items:
        if it.removed and not it.dropped:
            done = (it.body, frozenset(it.removed))
            body = rebuilt.get(done)
            if body is None:
                subjects = {clause: subject for _, clause, subject in it.slots}
                body = rebuilt[done] = _without_clauses(it.parts, it.removed, subjects)
            it.body = body
            it.dropped = not it.body
        if not it.dropped:
            kept.append(it)
    return kept


