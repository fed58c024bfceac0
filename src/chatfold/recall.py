"""Recall: bring folded-away raw messages back from the lossless archive.

A summary keeps the gist; the log keeps every message. Recall searches the messages a fold
has covered (``seq <= covered_through``, pinned ones excluded) for the latest user message
and puts the best hits right after the summary as **one** marked system message, bounded by
``Policy.recall_tokens`` (by default a quarter of the trigger in a conversation whose store can
search: see :meth:`~chatfold.Policy.with_auto_recall`; 0 turns it off).

One ranking contract for every store. A store indexes each message at append time under the
terms of :func:`message_terms` and answers :meth:`search` with :class:`Postings`: for each
query term, the entries up to ``through_seq`` that contain it (with their lengths), leaving
out terms found in more than ``max_df`` of them (too common to pick a message, and the bound
that keeps a search's cost independent of the archive's size). :func:`rank` turns postings
into a BM25 ranking, the same for every store.

Terms (:mod:`chatfold._terms`): text is NFKC-normalised and case-folded; runs of letters and
digits become words (English stop words dropped, a plural ``s`` removed), and runs of CJK
characters become overlapping character bigrams (a lone character stays a unigram), so Chinese
needs no dictionary. A message's terms are distinct (term frequency saturates at 1: chat
messages are short).

Queries are read more closely than messages (:func:`query_groups`; the index does not change):
the words of the request itself are dropped ("do you remember what I said", 之前, 多少, 什么),
a Chinese bigram touching a particle or pronoun (的, 了, 吗, 我...) is not searched unless a
character would be left out of every bigram, and an English word is searched with its
inflections as one term (paint: painted, painting), so "When did she paint it?" finds "I
painted that lake sunrise".

What is placed: hits best first while they fit, none scoring below a fifth of the best
(:data:`MIN_SCORE_RATIO`: a message sharing only a common word with the query is not worth its
tokens); a hit ending with a question comes with the next message, its answer
(:data:`ANSWER_NEXT`); whole units only (a recalled tool result comes with its tool call, both
rendered as text inside the one message, so no tool message can be orphaned); nothing from the
recent window (it is searched only up to ``covered_through``), no pinned message, and no
message whose every term the summary already holds. Each hit carries its position ``[#seq]``
under a line with the day it was appended. The message is a system message marked
``is_recall``: :func:`~chatfold.to_openai` drops the marker, and
:func:`~chatfold.to_anthropic` moves it into ``system`` after the summary, as it does the
summary itself.

Standard library only; the stores and :mod:`chatfold.session` call in here.
"""

from __future__ import annotations

import functools
import heapq
import math
import time
from collections.abc import Awaitable, Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ._errors import InvalidArgumentError
from ._summary import clip_to_budget
from ._terms import (
    message_terms,
    query_groups,
    scope_token,
    terms,
)
from .messages import (
    content_text,
    format_messages,
    is_tool_result,
    tool_call_ids,
    tool_result_ids,
)
from .tokens import TokenCounter

__all__ = [
    "MAX_DF",
    "RECALL_KEY",
    "TOOL_NAME",
    "Postings",
    "Recall",
    "RecallHit",
    "RecallTool",
    "message_terms",
    "rank",
    "scope_token",
    "terms",
]

RECALL_KEY = "is_recall"
"""Marker of the recall message (dropped by :func:`~chatfold.to_openai`, like ``is_summary``)."""

MAX_DF = 500
"""A query term found in more archived messages than this is not scored (see the module doc)."""
K1 = 1.2
B = 0.75
TOOL_NAME = "search_conversation_history"

# ---------------------------------------------------------------------------------------------
# the ranking contract


@dataclass(frozen=True)
class Postings:
    """A store's answer to :meth:`search`: what the shared scorer needs, nothing more."""

    docs: int = 0
    """Entries in the conversation (every appended message, indexed or empty)."""
    total_length: int = 0
    """Sum of the entries' lengths (distinct terms), for the average length."""
    hits: Mapping[str, Sequence[tuple[int, int]]] = field(default_factory=dict)
    """Query term -> ``(seq, length)`` of each entry with ``seq <= through_seq`` holding it,
    ascending by seq; terms held by no such entry map to ``()``."""
    common: frozenset[str] = frozenset()
    """Query terms held by more than ``max_df`` entries up to ``through_seq``: not listed."""


def check_search_args(terms_: Sequence[str], through_seq: int, max_df: int) -> list[str]:
    """Validate the arguments of a store's ``search``; return the distinct terms in order.

    Raises:
        InvalidArgumentError: ``terms_`` is a string or holds something that is not a
            non-empty string, ``through_seq`` is not an integer >= 0 or ``max_df`` not >= 1.
    """
    if isinstance(terms_, str):
        raise InvalidArgumentError(
            "terms", "must be a sequence of strings, not one string (split it with terms())")
    if any(not isinstance(t, str) or not t for t in terms_):
        raise InvalidArgumentError("terms", "every term must be a non-empty string")
    if isinstance(through_seq, bool) or not isinstance(through_seq, int) or through_seq < 0:
        raise InvalidArgumentError("through_seq", f"must be an integer >= 0, got {through_seq!r}")
    if isinstance(max_df, bool) or not isinstance(max_df, int) or max_df < 1:
        raise InvalidArgumentError("max_df", f"must be an integer >= 1, got {max_df!r}")
    return list(dict.fromkeys(terms_))


def merge_groups(postings: Postings, groups: Sequence[Sequence[str]]) -> Postings:
    """One posting list per group of variants (the union of theirs, by seq), keyed by the
    group's first term; a group with a common variant is common."""
    hits: dict[str, Sequence[tuple[int, int]]] = {}
    common = set()
    for group in groups:
        lists = [postings.hits.get(t, ()) for t in group]
        if any(t in postings.common for t in group):
            common.add(group[0])
            continue
        if len([x for x in lists if x]) <= 1:
            hits[group[0]] = next((x for x in lists if x), ())
        else:
            hits[group[0]] = sorted({h for x in lists for h in x})
    return Postings(docs=postings.docs, total_length=postings.total_length, hits=hits,
                    common=frozenset(common))


def rank(
    postings: Postings,
    *,
    through_seq: int,
    exclude: Iterable[int] = (),
    limit: int | None = None,
) -> list[tuple[int, float]]:
    """BM25 over the postings: ``(seq, score)``, best first (ties: the later message first).

    ``N`` is ``through_seq`` (the entries searched), a term's document frequency is the
    length of its posting list, and term frequency saturates at 1.
    """
    n = max(1, through_seq)
    avg = postings.total_length / postings.docs if postings.docs else 1.0
    avg = avg or 1.0
    skip = set(exclude)
    scores: dict[int, float] = {}
    # score += idf * (k1 + 1) / (1 + k1 * (1 - b + b * length / avg)), constants hoisted.
    c1, c2 = 1 + K1 * (1 - B), K1 * B / avg
    for hits in postings.hits.values():
        df = len(hits)
        if not df:
            continue
        w = math.log(1 + (n - df + 0.5) / (df + 0.5)) * (K1 + 1)
        for seq, length in hits:
            if seq <= through_seq and seq not in skip:
                scores[seq] = scores.get(seq, 0.0) + w / (c1 + c2 * length)
    order = lambda kv: (kv[1], kv[0])  # noqa: E731 - best score, then the later message
    if limit is None:
        return sorted(scores.items(), key=order, reverse=True)
    return heapq.nlargest(limit, scores.items(), key=order)


# ---------------------------------------------------------------------------------------------
# recall in the context


@dataclass(frozen=True)
class RecallHit:
    """One recalled message (with the rest of its tool-call unit, if any)."""

    seq: int
    """The hit's position in the log."""
    seqs: tuple[int, ...]
    """Every log entry rendered for it (a tool result comes with its call)."""
    score: float
    """Its BM25 score."""
    created_at: float
    """When it was appended (seconds since the epoch)."""
    text: str
    """Its line in the recall message (``[#seq] role: text``, under a line with its date)."""


@dataclass(frozen=True)
class Recall:
    """What a context's recall found and placed (``message is None``: nothing placed)."""

    query: str = ""
    """The text searched for."""
    hits: tuple[RecallHit, ...] = ()
    """The hits placed, in log order."""
    tokens: int = 0
    """Tokens of the recall message."""
    message: dict[str, Any] | None = None
    """The recall message (with the ``is_recall`` marker), or None."""
    candidates: int = 0
    """Ranked candidates considered (at most :data:`CANDIDATES`), before the budget and the
    de-duplication against the summary."""

    @property
    def seqs(self) -> tuple[int, ...]:
        """Every log entry recalled, in order."""
        return tuple(sorted({s for h in self.hits for s in h.seqs}))


HEADERS = {
    "en": ("Recalled from earlier in this conversation (verbatim messages found in the archive; "
           "#n = position; dates are UTC):"),
    "zh": "从本对话早先的原始消息中检索到的内容（#n 为消息序号；日期为 UTC）：",
}
MIN_HIT_TOKENS = 24
"""A hit is cut to fit the remaining budget, but never shorter than this."""
CANDIDATES = 64
"""Ranked candidates considered per recall (read lazily, best first, until the budget is full)."""
UNIT_WINDOW = 4
"""Entries read on each side of a hit to find the rest of its tool-call unit."""
MIN_SCORE_RATIO = 0.2
"""A hit scoring below this share of the best one is not placed (it would spend tokens on a
message that shares little with the query)."""
ANSWER_NEXT = True
"""A hit that ends with a question comes with the message right after it (its answer, unless
that is a tool message or already placed): a recalled question alone is half a fact."""


@dataclass(frozen=True)
class _Search:
    terms: list[str]
    through_seq: int


@dataclass(frozen=True)
class _ReadAt:
    seqs: tuple[int, ...]


Step = _Search | _ReadAt


def latest_user_text(messages: Iterable[Mapping[str, Any]]) -> str:
    """Text of the last user message that is not a tool result (``""`` when none)."""
    # From the end: a turn reads only back to its last user message, not the whole tail.
    for m in reversed(messages if isinstance(messages, Sequence) else list(messages)):
        if m.get("role") == "user" and not is_tool_result(m):
            return content_text(m.get("content"))
    return ""


def _unit(entries: Mapping[int, Any], seq: int, excluded: set[int]) -> list[int]:
    """The seqs of the hit's tool-call unit found in ``entries`` (at least the hit itself)."""
    m = entries[seq].message
    ids: set[str] = set()
    start = seq
    if is_tool_result(m):
        wanted = set(tool_result_ids(m))
        for s in range(seq - 1, seq - UNIT_WINDOW - 1, -1):
            e = entries.get(s)
            if e is None or s in excluded:
                break
            if wanted & set(tool_call_ids(e.message)):
                start = s
                ids = set(tool_call_ids(e.message))
                break
            if not is_tool_result(e.message):
                break
    else:
        ids = set(tool_call_ids(m))
    out = list(range(start, seq + 1))
    if ids:
        for s in range(seq + 1, seq + UNIT_WINDOW + 1):
            e = entries.get(s)
            if e is None or s in excluded or not set(tool_result_ids(e.message)) & ids:
                break
            out.append(s)
    return [s for s in out if s not in excluded]


def _day(at: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(at))


def render_hits(hits: Sequence[RecallHit], header: str | None = None) -> str:
    """The hits in log order, under a line for each day they were appended on (UTC): the
    date once per day, not once per hit, so it costs few tokens."""
    lines = [] if header is None else [header]
    day = ""
    for h in sorted(hits, key=lambda h: h.seq):
        if _day(h.created_at) != day:
            day = _day(h.created_at)
            lines.append(day + ":")
        lines.append(h.text)
    return "\n".join(lines)


@functools.lru_cache(maxsize=64)
def _summary_terms(summary: str) -> frozenset[str]:
    # A summary is the same for many turns and up to a few thousand tokens: index it once.
    return frozenset(terms(summary))


def _recall_steps(
    query: str,
    *,
    through_seq: int,
    excluded: Iterable[int],
    budget: int,
    counter: TokenCounter,
    language: Literal["zh", "en"],
    summary: str,
    max_hits: int | None = None,
) -> Generator[Step, Any, Recall]:
    """The recall, written once: it yields store requests and the driver answers them."""
    groups = query_groups(query)
    if budget <= 0 or through_seq <= 0 or not groups:
        return Recall(query=query)
    skip = set(excluded)
    wanted = list(dict.fromkeys(t for g in groups for t in g))
    postings: Postings = yield _Search(wanted, through_seq)
    ranked = rank(merge_groups(postings, groups), through_seq=through_seq, exclude=skip,
                  limit=CANDIDATES)
    if not ranked:
        return Recall(query=query)
    header = HEADERS[language]
    base = counter.count_message({"role": "system", "content": header})
    if base + MIN_HIT_TOKENS > budget:
        return Recall(query=query, candidates=len(ranked))
    known = _summary_terms(summary) if summary else frozenset()
    used: set[int] = set()
    days: set[str] = set()
    chosen: list[RecallHit] = []
    left = budget - base
    # Candidates are read best first, a batch of about as many as could fit at a time, until
    # the budget is full: the work depends on the budget, not on how many messages matched.
    fetched: dict[int, Any] = {}
    batch = max(4, left // (2 * MIN_HIT_TOKENS))
    floor = ranked[0][1] * MIN_SCORE_RATIO
    for i, (seq, score) in enumerate(ranked):
        if left < MIN_HIT_TOKENS or (max_hits is not None and len(chosen) >= max_hits):
            break
        if score < floor:
            break
        if seq in used:
            continue
        if seq not in fetched:
            # With the message after each (a question's answer): no extra round trip for it.
            ahead = (s + k for s, _ in ranked[i : i + batch] for k in (0, 1)
                     if ANSWER_NEXT or not k)
            want = tuple(dict.fromkeys(s for s in ahead if s <= through_seq and s not in fetched))
            fetched.update((e.seq, e) for e in (yield _ReadAt(want)))
            if seq not in fetched:
                continue
        m = fetched[seq].message
        if is_tool_result(m) or tool_call_ids(m):
            # A tool call and its results are one unit: read the neighbours to find the rest.
            near = range(max(1, seq - UNIT_WINDOW), min(through_seq, seq + UNIT_WINDOW) + 1)
            missing = tuple(s for s in near if s not in fetched)
            if missing:
                fetched.update((e.seq, e) for e in (yield _ReadAt(missing)))
        entries = fetched
        unit = _unit(entries, seq, skip)
        if any(s in used for s in unit):
            continue
        own = message_terms(m)
        if not own or (known and known.issuperset(own)):
            continue  # the summary already says it
        nxt = unit[-1] + 1
        if ANSWER_NEXT and nxt <= through_seq and nxt not in skip and nxt not in used and \
                content_text(entries[unit[-1]].message.get("content")).rstrip().endswith(
                    ("?", "？")):
            if nxt not in fetched:
                fetched.update((e.seq, e) for e in (yield _ReadAt((nxt,))))
            e = fetched.get(nxt)
            if e is not None and not is_tool_result(e.message) and not tool_call_ids(e.message):
                unit = [*unit, nxt]
        body = format_messages([entries[s].message for s in unit]).replace("\n", "\n  ")
        line = f"[#{seq}] " + body
        day = _day(fetched[seq].created_at)
        extra = 0 if day in days else counter.count(day + ":") + 1  # its date line
        cost = counter.count(line) + 1 + extra  # + the newline
        if cost > left:
            line = clip_to_budget(line, left - 1 - extra, counter)
            cost = counter.count(line) + 1 + extra
            if not line or cost < MIN_HIT_TOKENS or cost > left:
                continue
        used.update(unit)
        days.add(day)
        chosen.append(RecallHit(seq=seq, seqs=tuple(unit), score=score,
                                created_at=fetched[seq].created_at, text=line))
        left -= cost
    chosen.sort(key=lambda h: h.seq)
    while chosen:
        content = render_hits(chosen, header)
        message = {"role": "system", "content": content, RECALL_KEY: True}
        tokens = counter.count_message(message)
        if tokens <= budget:
            return Recall(query=query, hits=tuple(chosen), tokens=tokens, message=message,
                          candidates=len(ranked))
        # A counter need not be additive: drop the weakest hit until the message fits.
        chosen.remove(min(chosen, key=lambda h: h.score))
    return Recall(query=query, candidates=len(ranked))


def can_search(store: object) -> bool:
    """True when ``store`` has a search index recall can use (``search`` and ``entries_at``,
    not left as :class:`~chatfold.stores.BaseStore`'s unimplemented stubs): every built-in
    store has one; a custom store written before recall may not."""
    from .stores.base import BaseStore  # stores import this module: import on use

    return all(
        callable(getattr(store, name, None))
        and getattr(type(store), name, None) is not getattr(BaseStore, name)
        for name in ("search", "entries_at"))


def run_recall(store: Any, conversation_id: str, **kwargs: Any) -> Recall:
    """Drive :func:`_recall_steps` against a sync store (``search`` and ``entries_at``)."""
    steps = _recall_steps(**kwargs)
    answer: Any = None
    try:
        while True:
            step = steps.send(answer)
            if isinstance(step, _Search):
                answer = store.search(conversation_id, step.terms, through_seq=step.through_seq,
                                      max_df=MAX_DF)
            else:
                answer = store.entries_at(conversation_id, step.seqs)
    except StopIteration as stop:
        result: Recall = stop.value
        return result


async def arun_recall(store: Any, conversation_id: str, **kwargs: Any) -> Recall:
    """Drive :func:`_recall_steps` against an async store (``asearch``, ``aentries_at``)."""
    steps = _recall_steps(**kwargs)
    answer: Any = None
    try:
        while True:
            step = steps.send(answer)
            if isinstance(step, _Search):
                answer = await store.asearch(conversation_id, step.terms,
                                             through_seq=step.through_seq, max_df=MAX_DF)
            else:
                answer = await store.aentries_at(conversation_id, step.seqs)
    except StopIteration as stop:
        result: Recall = stop.value
        return result


# ---------------------------------------------------------------------------------------------
# recall as a tool

_DESCRIPTION = (
    "Search the earlier part of this conversation, which has been summarized, for the exact "
    "messages about a topic (names, numbers, dates, what a tool returned). Returns the best "
    "matching messages verbatim with their position (#n) and date."
)
_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "Words to look for (any language)."},
        "limit": {"type": "integer", "minimum": 1, "maximum": 20, "default": 5,
                  "description": "Most messages to return."},
    },
    "required": ["query"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class RecallTool:
    """``search_conversation_history`` for an agent: schemas for both APIs and the handlers.

    Pass ``openai`` in ``tools=`` of a Chat Completions call (or ``anthropic`` to the Messages
    API); when the model calls the tool, answer with ``handler(**arguments)`` (or ``await
    ahandler(...)`` with an :class:`~chatfold.AsyncConversation`).
    """

    openai: dict[str, Any]
    """Chat Completions tool schema."""
    anthropic: dict[str, Any]
    """Messages API tool schema."""
    handler: Callable[..., str]
    """``handler(query, limit=5) -> str``: the tool result text."""
    ahandler: Callable[..., Awaitable[str]]
    """Async twin of ``handler``."""

    name: str = TOOL_NAME


def tool_schemas() -> tuple[dict[str, Any], dict[str, Any]]:
    """The OpenAI and Anthropic schemas of ``search_conversation_history``."""
    openai = {"type": "function", "function": {
        "name": TOOL_NAME, "description": _DESCRIPTION, "parameters": _PARAMETERS}}
    anthropic = {"name": TOOL_NAME, "description": _DESCRIPTION, "input_schema": _PARAMETERS}
    return openai, anthropic


def check_tool_args(query: object, limit: object) -> tuple[str, int]:
    """Validate a model's tool arguments.

    Raises:
        InvalidArgumentError: ``query`` is not a string or ``limit`` not an integer in 1..20.
    """
    if not isinstance(query, str):
        raise InvalidArgumentError("query", f"must be a string, got {type(query).__name__}")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 20:
        raise InvalidArgumentError("limit", f"must be an integer from 1 to 20, got {limit!r}")
    return query, limit


def tool_text(result: Recall, language: Literal["zh", "en"]) -> str:
    """The tool result for ``result``: its hits, or a plain "nothing found"."""
    if not result.hits:
        return ("没有找到相关的早先消息。" if language == "zh"
                else "No earlier message matches that query.")
    return render_hits(result.hits)
