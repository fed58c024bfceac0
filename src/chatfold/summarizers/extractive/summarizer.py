"""The ExtractiveSummarizer class: collect, merge, cap, render."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from itertools import chain, islice
from typing import Any, NamedTuple

from ..._errors import InvalidArgumentError
from ...messages import content_text
from ...tokens import default_counter
from ..base import BaseSummarizer, SummaryRequest
from ..prompts import SECTION_TITLES
from .anchored import prefer_newer
from .changes import (
    _HAN,
    _REVISED_WEIGHT,
    _arabic,
    _says_change,
    _values,
    correct_slips,
    end_states,
    hand_overs,
    replace_instructions,
    reported_values,
    says_settled,
    supersede_changes,
    supersede_tool_pairs,
    supersede_tool_state,
    tool_pairs,
    tool_updates,
    zh_moves,
)
from .changes import (
    _Shape as _ChangeShape,
)
from .dates import leading_date, message_date, render_date
from .differences import said_differences, supersede_differences
from .items import _is_tool_line, _Item, _merge, _previous_items, _previous_role, _Shape
from .lexicon import (
    _ASKED,
    _ATTR_WEIGHT,
    _CARRY_HELD,
    _CARRY_SHARE,
    _COLON,
    _DECISIONS,
    _DONE_MARK,
    _FACTS,
    _IDLE_CLAUSE_SCORE,
    _JACCARD_DUP,
    _JACCARD_MIN_TOKENS,
    _MAX_ITEM_CHARS,
    _MAX_MISSES,
    _NOTHING_TO_KEEP,
    _PREFS,
    _PREVIOUS_FLOOR,
    _REMINDER_MARK,
    _REMINDER_MARKS,
    _ROLE_TAGS,
    _TASKS,
    _TO_CHOOSE,
    _TOOL_RESULT_WORD,
    _TOOL_WORD,
    DEFAULT_INCUMBENT_BONUS,
    DEFAULT_MIN_SCORE,
    DEFAULT_TOOL_RESULT_CHARS,
    _is_pleasantry,
)
from .quantities import correct_quantities
from .render import _as_sentence, _discount_repeats, _fit, _render
from .restated import restated_values
from .scoring import (
    _DIGITS,
    _ID_TOKEN,
    _YOUR_FACT,
    USER_FACTOR,
    _is_question,
    _score_all,
    own_errand,
)
from .sentences import (
    _compress,
    _normalise,
    _strip_filler,
    _strip_vocative,
    join_bare_corrections,
    join_bare_reminders,
    join_bare_report,
    join_pointing,
    opens_with_report,
    plain_spelling,
    split_sentences,
    split_stated_question,
)
from .slots import _CLAUSE_SPLIT, _TERMINAL
from .threads import (
    CALL_OFF,
    CANCEL,
    TokenMemo,
    _stem,
    acceptance_rest,
    acknowledged,
    alternatives,
    anaphoric_pick,
    answers_about_user,
    as_choice,
    asks_for_information,
    asks_for_options,
    asks_reminder,
    awaits_choice,
    cancels,
    changes_world,
    chosen_option,
    commits,
    concluded_pick,
    confirmed_choice,
    confirms,
    content_tokens,
    defers,
    described_pick,
    did_for_user,
    fulfils,
    implied_things,
    is_acceptance,
    labelled_pick,
    later_pick,
    listed_options,
    listing_intro,
    lists_options,
    looks_up,
    named_pick,
    names_thing,
    offered_options,
    offers_options,
    offers_reminder,
    ordinal_pick,
    own_options,
    points_back,
    priced_pick,
    promises_only,
    promises_reminder,
    proposal,
    question_answered,
    report_adds,
    request_parts,
    shared_numbers,
    standing_terms,
    user_done,
    weighed_options,
)
from .tools import _is_tool_block, _render_args, _render_result, _result_text, _ToolLine

_AGREED = {"en": " agreed", "zh": "同意"}
_CHOSE = {"en": " chose", "zh": "选择"}
_LEARNED = "learned"  # the role of a user's question joined with the answer a tool found
# The user speaking of themselves ("My flight is at 6", "我下周出差"): a fact the assistant
# noted, not an instruction it took on.
_SELF_LEAD = re.compile(r"(?i:(?:i|i'm|i've|i'd|my|we|we're|our)\b)|我")
_NOTED_OVERLAP = 2  # content words an acknowledgement's restatement shares with what it restates
_ANSWER = {"en": " → ", "zh": "→"}
_DECISION_BONUS = 1.5  # an accepted proposal: the user's choice, as durable as a decision
_DECISION_FLOOR = 5.0  # and worth at least a plain fact, whatever its words
_OPEN_TASK_BONUS = 2.0  # the user's errand kept open: above a statement of the same worth
_DONE_BONUS = 0.3  # a statement that fulfilled a request stays a candidate, just above small talk
_CONTEXT = {"en": " — ", "zh": "。"}  # an errand, then what it is about
_NUMBERS = re.compile(r"\d+")
_REMINDER_WORDS = content_tokens("keep list forget forgetting remind reminder urgent")
_DONE_FACTOR = 0.8  # a done request is history: kept below the open ones and the facts it rivals
# A question or ask the reply itself answered ("can you write a closure in Python? (done)"):
# what was discussed, kept only while nothing said of the user or the world needs the room.
_ANSWERED_FACTOR = 0.35
# What a read-only tool returned ("Tool search_hotels(…) → …"): can be fetched again, and stale
# once the talk moved on; what was picked from it is kept as a decision.
_LOOKUP_FACTOR = 0.35
# A tool's result saying it made or changed something (after the call's arrow).
_TOOL_DID = re.compile(
    r"→\s*(?:\W*\w+\W+){0,3}?(?i:(?:deployed|wrote|written|created|sent|booked|scheduled|paid"
    r"|saved|updated|uploaded|published|released|merged|opened|filed|submitted|registered"
    r"|transferred|confirmed|reserved|ordered|renewed|cancelled|canceled)\b)"
    r"|→[^\n]*?(?:已|成功)(?:发布|部署|创建|发送|预订|预约|支付|缴费|保存|提交|更新|写入|取消|下单)"
    r"|(?:发布|部署|创建|发送|预订|预约|支付|缴费|保存|提交|下单)成功")
_CONFIRMED_FLOOR = 7.5  # an assistant's confirmation with a reference: what "my X is Y" scores
_ANSWER_FLOOR = 7.5  # the user's answer about their own, with a value: what "my X is Y" scores
# A new statement of what stays true may take the place of this many kept one-off events a fold
# (one had let in one of three facts told together; three: read and held-out probes a little
# better, LoCoMo retention and drift unchanged).
_STANDING_SWAPS = 3
_INCUMBENT_MAX_SHARE = 1.5  # the incumbency bonus is at most this share of the item's own score
_HISTORY = "history"  # the role of a carried item that is history: it holds no place
_DONE_SAYS_IT = 0.5  # a report holding this share of the request's words says what was done
_REPORT_SHARE = 0.6  # a report beside its kept request: this share of the request's worth
_BARE_REPORT_CHARS = 40  # a report this short with nothing of its own is the request's "done"
_MIN_CANDIDATES = 160  # new statements built into items: at least this many, or half the cap
_TASK_WINDOW = 16  # a new request is looked for fulfilment in the next this many statements
# "Caroline: …" or "User: …" at the start of a previous summary's line.
_SPEAKER_TAG = re.compile(
    r"^(?:User|Assistant|用户|助手|[A-Z][A-Za-z.'-]{1,20}(?: [A-Z][A-Za-z.'-]{1,20})?)\s*[:：]\s*"
)
_ROLE_WORDS = frozenset({"User", "Assistant", "用户", "助手"})


def _speaker_of(tag: str) -> str:
    """The participant's name in a line tag (``"Caroline: "`` → ``"Caroline"``), or ``""``
    for the plain roles."""
    name = tag.rstrip(" :：")
    return "" if not name or name in _ROLE_WORDS else name


def _repeats(words: frozenset[str], kept: Mapping[str, list[frozenset[str]]]) -> bool:
    """True when ``words`` overlap an item already kept by at least _JACCARD_DUP (Jaccard):
    the same content words, phrased another way. Checked only against the kept items that
    share a word (``kept`` indexes them by word), so the cost is the summary's size at most."""
    seen: set[int] = set()
    for w in words:
        for other in kept.get(w, ()):
            if id(other) in seen:
                continue
            seen.add(id(other))
            both = len(words & other)
            if both >= _JACCARD_DUP * (len(words) + len(other) - both):
                return True
    return False


_WAITING = "waiting"  # the score role of an offer a fold ended on (kept under Open tasks)
_WAITING_SCORE = 5.0  # about a plain fact's worth: it must reach the next fold
_CHOOSING = "choosing"  # the score role of options offered and not yet picked (Open tasks)
# A choice left open is what the next turns are about: worth a statement of fact with a value.
_CHOOSING_SCORE = 8.0
_MAX_OPTION_CHARS = 60  # each option of a choice left open, as kept
_OPTION_SEP = " | "  # (options hold commas and semicolons of their own)
_TO_CHOOSE_HEADS = {lang: f"{tags['user']}{_TO_CHOOSE[lang]}{_COLON[lang]}"
                    for lang, tags in _ROLE_TAGS.items()}  # "User to choose from: "


def _choice(asked: list[str], reply: str) -> tuple[str, str, bool] | None:
    """(the option chosen, the question's core, whether the reply said only that) when
    ``reply`` picks one option of the assistant's last either-or question, else None."""
    for sentence in reversed(asked):
        found = alternatives(sentence)
        if found is not None:
            picked = chosen_option(reply, found[1])
            return None if picked is None else (picked[0], found[0], picked[1])
    return named_pick(asked, reply)


class _Piece(NamedTuple):
    role: str
    text: str
    date: str | None
    name: str
    msg: int


class _Row(NamedTuple):
    tag: str
    body: str
    role: str
    """``user``, ``assistant``, ``tool``, or ``summary`` for a previous-summary line."""
    section: int | None
    """The section a previous summary filed it under, or a decision's; None: classify."""
    date: str | None
    msg: int
    speaker: str
    score_role: str
    """Whose words they are for scoring (``decision`` for an accepted proposal)."""


def _drop_said(rows: list[_Row], msg: int, said: str, *, inside: bool) -> None:
    """Remove the last row of message ``msg`` (the latest one) that is ``said`` (the offer a
    decision now holds) or, with ``inside``, that holds it among more (the listing a pick was
    made from)."""
    j = len(rows) - 1
    while j >= 0 and rows[j].msg == msg:
        body = rows[j].body
        if (said in body and body != said) if inside else body == said:
            del rows[j]
            return
        j -= 1


# What points back at the sentence before: "book it", "提醒你办这个".
_POINTER = re.compile(r"(?i:\b(?:it|that|this|them)\b)|它|这个|那个|这件事|这事")
_CODE_REPLY = {"en": "Here is the code.", "zh": "这是代码。"}
_CHOICE_LEAD = re.compile(r"^[^:：]{1,24}[:：]\s*")


# A clause saying what is not done yet: "域名还没弄", "the domain is still to do"; every match
# holds one of the keys (a substring test in C rules most reports out).
_NOT_YET_CLAUSE = re.compile(
    r"[^，,。.;；!！?？]*(?:还没|还未|尚未|(?i:\bstill (?:to do|need|have to|open|pending)\b"
    r"|\bnot (?:yet|done)\b|\bhaven't\b))[^，,。.;；!！?？]*")
_NOT_YET_KEYS = ("还", "尚", "still", "not ", "haven't")


def _chose(lang: str, option: str, at: _Piece, name: str = "", more: str = "") -> _Row:
    """The decision row "User chose: <option><more>", said at ``at`` (by ``name`` if named)."""
    who = name or _ROLE_TAGS[lang]["user"]
    return _Row("", f"{who}{_CHOSE[lang]}{_COLON[lang]}{option}{more}", "user", _DECISIONS,
                at.date, at.msg, name, "decision")


def _one_choice_each(rows: list[_Row], n_previous: int, lang: str) -> list[_Row]:
    """``rows`` with one line for a choice this fold made twice: the user's pick and the
    assistant's confirmation of it ("用户选择：石墨文档" beside "用户选择：石墨文档，界面干净…")
    keep the line that says more (the earlier of two alike)."""
    head = f"{_ROLE_TAGS[lang]['user']}{_CHOSE[lang]}{_COLON[lang]}"
    picks = [(i, r.body[len(head):].strip().casefold()) for i, r in enumerate(rows)
             if i >= n_previous and r.score_role == "decision" and r.body.startswith(head)]
    if len(picks) < 2:
        return rows
    said_in = {i for i, said in picks for j, other in picks
               if i != j and said and said in other and (len(said) < len(other) or j < i)}
    return [r for i, r in enumerate(rows) if i not in said_in] if said_in else rows


def _without_confirming(split: list[str], k: int, option: str) -> list[str]:
    """``split`` without sentence ``k`` when it only names ``option`` ("Bunny.net it is."):
    the decision says it; a longer sentence keeps what more it says."""
    return split[:k] + split[k + 1:] if len(split[k]) <= len(option) + 16 else split


def _not_yet_words(report: str, memo: TokenMemo) -> frozenset[str]:
    """The words of what ``report`` says is not done yet ("域名还没弄": "域名")."""
    if not any(k in report for k in _NOT_YET_KEYS):
        return frozenset()
    return frozenset().union(*(memo[m.group()] for m in _NOT_YET_CLAUSE.finditer(report)))


def _closed_tasks(
    rows: Sequence[_Row], scores: Sequence[Any], n_previous: int, memo: TokenMemo,
    attached: Mapping[int, frozenset[str]], replies: Mapping[int, str],
) -> dict[int, int]:
    """{request row: the later row that fulfils it}. A carried-forward open task may be closed
    by any new statement; a new request by one of the next ``_TASK_WINDOW`` statements, or by
    the user calling it off or doing it themselves at any later point of the fold."""
    closed: dict[int, int] = {}
    # A long history repeats its requests: (request, later, its role, the words looked for).
    verdicts: dict[tuple[str, str, str, frozenset[str]], bool] = {}
    requests = [
        i for i, (row, scored) in enumerate(zip(rows, scores, strict=True))
        if (scored.section if row.section is None else row.section) == _TASKS
        and row.role in ("user", "summary")
    ]
    if not requests:
        return closed
    # The first message of this fold the user wrote: what comes before it answers the last fold.
    opening = min((r.msg for r in rows[n_previous:] if r.role == "user"), default=len(rows))
    # Who can close a request: the assistant or a tool doing it, the user calling it off or
    # saying it is done (only the user's rows after the first request can).
    doers = [j for j in range(max(n_previous, requests[0] + 1), len(rows))
             if rows[j].role in ("assistant", "tool")
             or (rows[j].role == "user" and (CANCEL.search(rows[j].body)
                                             or user_done(rows[j].body)))]
    if not doers:
        return closed
    users = [j for j in doers if rows[j].role == "user"]
    # What the user chose after asking ("用户选择：如家每晚800元") says what the report will
    # name: "帮我订一家浦东的酒店" is done by "已为您预订如家，订单号H123456".
    # Only an offer taken or an option picked (a carried "User chose: …" line is one too, see
    # items._previous_role): a carried "Let's use Vercel" or "I decided to spend time with my
    # pets" names nothing an errand's report would; nor does an ask taken on ("User asked: no
    # Amazon links for shop supplies").
    decisions = [d for d, r in enumerate(rows)
                 if r.score_role == "decision" and r.section == _DECISIONS]
    # What was chosen, without who chose it ("User chose: ", "用户选择：").
    choice_words = {d: memo[_CHOICE_LEAD.sub("", rows[d].body)] for d in decisions}
    sole_of: dict[int, int | None] = {}
    not_yet_of: dict[int, frozenset[str]] = {}

    def not_yet(j: int) -> frozenset[str]:
        """What the user's row ``j`` says is not done yet (once per row)."""
        if j not in not_yet_of:
            not_yet_of[j] = _not_yet_words(rows[j].body, memo)
        return not_yet_of[j]

    def sole_task(j: int) -> int | None:
        """The one request the user's report ``j`` names most words of, None on a tie: a
        report of one thing sharing a word with two tasks closes neither by that word."""
        if j not in sole_of:
            report = memo[rows[j].body] | implied_things(rows[j].body)
            ranked = sorted(((names_thing(memo[rows[r].body], report), r) for r in requests
                             if r < j), reverse=True)
            best = ranked[0] if ranked and ranked[0][0] else None
            tie = best is not None and len(ranked) > 1 and ranked[1][0] == best[0]
            sole_of[j] = None if best is None or tie else best[1]
        return sole_of[j]

    for i in requests:
        row = rows[i]
        # What asks to be reminded ("keep it on the list", "don't let me forget") names
        # nothing of the errand: "keep me going" shares no word with it.
        own = memo[row.body] - _REMINDER_WORDS
        if not own:
            continue
        theirs = own_errand(row.body)
        # A choice made after the request, or, both carried (their order lost), one that
        # names something of the request. A new choice is near: after a new request, among
        # the statements that may fulfil it; after a carried one, at the fold's start (a pick
        # of what the last fold ended on). It lends its words to what is said after it only:
        # a pick far away ("it's a yoga studio") names nothing of "renew the car insurance".
        near_end = i + 1 + _TASK_WINDOW if i >= n_previous else n_previous + _TASK_WINDOW
        lent = [(d if d >= n_previous else -1, choice_words[d]) for d in decisions
                if i < d < near_end or (i < n_previous and d < n_previous
                                        and not choice_words[d].isdisjoint(own))]
        parts = request_parts(row.body, memo.__getitem__)
        reported: frozenset[str] = frozenset()
        limit = len(rows) if i < n_previous else i + 1 + _TASK_WINDOW
        near = doers[bisect_right(doers, i) : bisect_left(doers, limit)]
        set_already = row.body.endswith(_REMINDER_MARKS)
        for j in near + users[bisect_left(users, max(limit, i + 1)) :]:
            if set_already and rows[j].role == "assistant":
                continue  # its reminder is set: only the user's report or a tool closes it
            if rows[j].role == "user" and not_yet(j) & own:
                continue  # "糕点盒已经订好了，域名还没弄": the domain is still to do
            if theirs and rows[j].role == "assistant" and not confirms(rows[j].body) \
                    and not opens_with_report(rows[j].body):
                continue  # advice on the user's own errand ("得赶紧把查重做了") does not do it
            wanted = own.union(*(w for d, w in lent if d < j)) if lent else own
            later = memo[rows[j].body] | attached.get(rows[j].msg, frozenset())
            if rows[j].role == "user":
                later |= implied_things(rows[j].body)
            # The very next message answering it ("帮我订票" → "订好了：G102次…") needs only
            # one word in common; a later one, two.
            # A carried question is answered by the reply this fold opens with, when the last
            # fold ended on the question ("Can you explain decorators?" | fold | the answer).
            # (Not one the assistant took on or the user put off, "User asked: …": its reply
            # came in its own fold.)
            adjacent = (rows[j].msg == row.msg + 1) if i >= n_previous else (
                rows[j].msg < opening and rows[j].role == "assistant"
                and row.score_role != "decision" and asks_for_information(row.body))
            if adjacent and not wanted & later and rows[j].msg in replies \
                    and asks_for_information(row.body) \
                    and not promises_only(replies[rows[j].msg]):
                # "Can you explain decorators?": the answer names them somewhere in the
                # reply, not necessarily in its first sentences.
                later = later | memo[replies[rows[j].msg]]
            next_to = i >= n_previous and rows[j].msg - row.msg <= 2
            # The user's next turn after the reply, reporting it done in words of its own
            # ("need to submit the FAFSA…" → "submitted it last night!!", "得去银行转存" →
            # "弄好了，存的3年大额存单"): the errand just said, unless it names another task.
            # It must name something of it or point back at it ("…it", "弄好了"), and a
            # pointer points at one errand only when one was given: "I called my mom last
            # night" reports another call, "emailed it" after a list of three says not which.
            follow_up = False
            # A task of a list named by its code ("2) send the W-9 to the Alvarez job" … "W-9 is
            # out already, emailed it"): the report is about it, whichever came last.
            coded = next_to and rows[j].role == "user" and _coded(row.body, rows[j].body) \
                and not any(_coded(rows[r].body, rows[j].body) for r in requests
                            if r < j and r != i)
            if next_to and rows[j].role == "user" and rows[j].msg > row.msg \
                    and (coded or bisect_right(requests, i) == bisect_left(requests, j)) \
                    and user_done(rows[j].body):
                named = coded or names_thing(own, later) > 0
                alone = not any(rows[r].msg == row.msg for r in requests if r != i)
                others = any(names_thing(memo[rows[r].body], later)
                             for r in requests if r < j and r != i)
                follow_up = (named or (alone and points_back(rows[j].body))) \
                    and (coded or sole_task(j) == i or not others)
            if not adjacent and not follow_up and not wanted & later \
                    and not (next_to and rows[j].role == "user" and CALL_OFF.search(rows[j].body)) \
                    and not shared_numbers(row.body, rows[j].body) \
                    and not (rows[j].role == "assistant" and confirms(rows[j].body)
                             # a reference with no word in common: the latest request's
                             and bisect_right(requests, i) == bisect_left(requests, j)):
                continue
            sole = rows[j].role == "user" and not adjacent and sole_task(j) == i
            pair = (row.body, rows[j].body, rows[j].role, wanted)
            done = True if follow_up else (
                verdicts.get(pair) if not adjacent and not sole else None)
            if done is None:
                # Calling it off names the task itself, not what was chosen since: "算了，还是
                # 用Netlify部署" takes back a decision, it calls off no errand.
                # "Never mind, they called" takes back what was asked last, or the one task
                # it names: not any task it shares a word with.
                done = (rows[j].role == "user" and cancels(
                    row.body, memo[row.body], rows[j].body,
                    latest=bisect_right(requests, i) == bisect_left(requests, j),
                    next_to=next_to,
                    sole=sole_task(j) == i)) \
                    or fulfils(row.body, wanted, rows[j].body, rows[j].role, adjacent=adjacent,
                               later_tokens=later, sole=sole)
                if not adjacent and not sole:
                    verdicts[pair] = done
            if done:
                if parts and not follow_up \
                        and not (rows[j].role == "user" and CANCEL.search(rows[j].body)):
                    # Each thing asked must be reported: "Flights booked: TP123" leaves "…and
                    # a hotel" to do.
                    reported |= later
                    if not all(part & reported for part in parts):
                        continue
                closed[i] = j
                if rows[j].role == "assistant" and asks_reminder(row.body):
                    # The reminder is set; the user may yet report the errand itself done.
                    set_already = True
                    continue
                break
    return closed


# What opens a to-do list: "my list for this week, keep it for me:", "errands today:",
# "这周要干的事帮我记一下：", "待办：".
_TODO_INTRO = re.compile(
    r"(?i:\b(?:to-?dos?|to do|(?:my|the|our|this week's|today's|tomorrow's) list|list for"
    r"|errands|things (?:i |we )?(?:need |have |got )?to do|checklist|tasks? for"
    r"|keep (?:it|this|these|track of (?:it|this|these))(?: for me)?|remember (?:these|this)"
    r"|remind me (?:of|about) (?:these|this))\b[^:]{0,40}:\s*$)"
    r"|(?:要干的事|要做的事|要办的事|待办|清单|(?i:todo)|几件事|帮我记(?:一下|着|住)?|记一下)"
    r"[^：:]{0,20}[：:]\s*$")


_MAX_TODO_INTRO = 80
# Its lines: "1) …", "2. …", "- …", "• …", "3、…" each on a line of its own.
_LIST_LINE = re.compile(r"\n\s*(?:\d{1,2}[.)、]|[-*•])\s*\S")


def _todo_list(split: list[str], text: str) -> int:
    """Where the items of a to-do list the user gives start in ``split`` (the sentence after
    its introduction), or ``len(split)`` when there is none ("Remember this: my blood type is
    O negative" lists nothing)."""
    if _LIST_LINE.search(text) is None:
        return len(split)
    for k, sentence in enumerate(split[:-1]):
        if len(sentence) <= _MAX_TODO_INTRO and _TODO_INTRO.search(sentence):
            return k + 1
    return len(split)


# A code a task is named by: letters and a number ("W-9", "I-9"), or five or more letters and
# digits with at least two of each ("7KQM224", "UA828"); not a time ("10am") or a count.
_CODE_NAME = re.compile(
    r"(?<![\w-])(?:[A-Za-z]{1,4}-\d[\w-]*"
    r"|(?=(?:[A-Za-z]*\d){2})(?=(?:\d*[A-Za-z]){2})[A-Za-z0-9]{5,})(?![\w-])")


def _coded(task: str, report: str) -> bool:
    """Whether ``report`` names a code ``task`` holds."""
    if not _DIGITS.search(report):
        return False
    said = {c.upper() for c in _CODE_NAME.findall(report)}
    return bool(said) and any(c.upper() in said for c in _CODE_NAME.findall(task))


# What the user told before asking for something: "It's a 2019 Mazda CX-5, plate 7KXR219, can
# you format it as a short email?".
_STATED_BEFORE_ASK = re.compile(
    r"^(.*?\S)\s*[,;]\s+(?:(?:can|could|would|will) you|please)\b[^?]*\?\s*$", re.IGNORECASE)


def _done_factor(request: str) -> float:
    # An ask answered in the chat is history, unless it told a code of the user's own on the
    # way ("帮我给HR写封邮件，…工号HZ20417", "order W-58213"): then it is kept as a done one.
    return _DONE_FACTOR if changes_world(request) or _OWN_CODE.search(request) \
        else _ANSWERED_FACTOR


# (capitals, then three digits or more: "HZ20417", "W-58213"; six or more capitals and digits
# mixed, a plate or a serial: "7KXR219"; not "Porto2026-06-24")
_OWN_CODE = re.compile(r"(?<![A-Za-z0-9])(?:[A-Z]{1,4}-?\d{3,}"
                       r"|(?=[A-Z0-9]*[A-Z])(?=[A-Z0-9]*\d)[A-Z0-9]{6,})(?![A-Za-z0-9])")


# A listing's introduction that says it offers options: "Three options:", "A few ideas:",
# "Here are two good fits:", "给你三个选择：". ("Still under review: application SP-7719." and
# "INV-2291: total $1,846.20" give a value after a label.)
_OFFERS = re.compile(
    r"(?i:\b(?:options?|ideas?|choices?|picks?|fits|suggestions?|candidates|alternatives"
    r"|here are|a few|several|some|two|three|four|five|both)\b)"
    r"|选择|选项|推荐|建议|方案|以下|如下|可选"
    r"|[两二三四五六七八九十几多]\s*[个家种款条套位项处间]")


# "1) UA 1187 … 2) DL 402 …": an enumerated item's mark, in a reply or a tool's result.
_ITEM_MARK = re.compile(r"(?:^|\s)(?:[1-9][.)]|\([1-9]\))\s+")


def _not_offered(reply: list[str]) -> bool:
    """True when the assistant's reply (its sentences) offers no options to pick from."""
    if _ITEM_MARK.search(" ".join(reply)) is not None:
        return False  # "1) UA 1187 … 2) DL 402 …"
    if len(listed_options(reply)) < 2:
        return True
    # "Still under review: application SP-7719.": a label and its value, not "Three options:".
    head = reply[0].split(":", 1)[0].split("：", 1)[0]
    return head != reply[0] and _OFFERS.search(head) is None


_NUMBER_TOKEN = re.compile(r"\d+(?:[:.,]\d+)*")


def _numbers_of(text: str) -> set[str]:
    return {n.lstrip("0").replace(",", "") or "0" for n in _NUMBER_TOKEN.findall(text)}


def _tool_option(found: str, option: str) -> str | None:
    """The item of a tool's enumerated result (``found``: "→ 1) UA 1187 dep 07:05, $312/pp 2)
    DL 402 …") that the assistant's wording of an option ("the United one leaves at 7:05am
    ($312 each)") speaks of: the one sharing the most numbers with it, when one does."""
    marks = list(_ITEM_MARK.finditer(found))
    if len(marks) < 2:
        return None
    wanted = _numbers_of(option)
    if not wanted:
        return None
    scored = []
    for m, nxt in zip(marks, [*marks[1:], None], strict=True):
        item = found[m.end(): nxt.start() if nxt else len(found)].strip(" ;,.")
        scored.append((len(_numbers_of(item) & wanted), item))
    scored.sort(key=lambda t: -t[0])
    best, item = scored[0]
    if best == 0 or scored[1][0] == best or item in option:
        return None
    return item


@lru_cache(maxsize=1024)
def _alone(body: str) -> tuple[int, bool]:
    """The section and standing of the user's sentence ``body`` scored alone. (Cached: a long
    history repeats its requests, and scoring one text alone costs a scan.)"""
    scored = _score_all([body], ["user"])[0]
    return scored.section, scored.standing


def _plain_request(body: str) -> bool:
    """True when the user's sentence ``body`` is a request or a task of theirs that does not
    already hold until done (an errand, a reminder): what a promise to do it keeps open."""
    section, standing = _alone(body)
    return section == _TASKS and not standing


def _asks_to_know(sentence: str) -> bool:
    """A question or an ask for information (the caller checks it names something: "how are
    you?" does not)."""
    return _is_question(sentence) or asks_for_information(sentence)


class ExtractiveSummarizer(BaseSummarizer):
    """The embedded summarizer: picks the informative sentences, needs no key and no network.

    Deterministic: the same request always gives the same summary. Chinese and English.

    Args:
        count: Counts a text's tokens for the cap; pass the fold's ``counter.count`` so the
            cap holds exactly. Defaults to chatfold's default counter.
        min_score: New sentences scoring below this are dropped as small talk.
        tool_result_chars: A tool result is trimmed to about this many characters.
        incumbent_bonus: How firmly an item of the previous summary holds its place against
            new statements (see :data:`DEFAULT_INCUMBENT_BONUS`). At the default, a new
            statement of what stays true ("my blood type is O negative", a habit, a short
            answer about the user) that outscores a kept one-off event on its own score takes
            that event's place, one a fold; a larger bonus holds events by the difference.

    Example:
        >>> from chatfold.summarizers.base import SummaryRequest
        >>> s = ExtractiveSummarizer()
        >>> req = SummaryRequest("事实：\\n- 用户：我住在北京。",
        ...     [{"role": "user", "content": "你好！我上个月搬到上海了。"}], "zh", max_tokens=80)
        >>> print(s.summarize(req))
        事实：
        - 我上个月搬到上海了。
    """

    def __init__(
        self,
        *,
        count: Callable[[str], int] | None = None,
        min_score: float = DEFAULT_MIN_SCORE,
        tool_result_chars: int = DEFAULT_TOOL_RESULT_CHARS,
        incumbent_bonus: float = DEFAULT_INCUMBENT_BONUS,
    ) -> None:
        self._count = count if count is not None else default_counter().count
        self._explicit_count = count is not None
        self.min_score = min_score
        self.tool_result_chars = tool_result_chars
        bonus = incumbent_bonus
        if isinstance(bonus, bool) or not isinstance(bonus, int | float) or not 0 <= bonus < 1e6:
            raise InvalidArgumentError(
                "incumbent_bonus", f"must be a number >= 0, got {incumbent_bonus!r}")
        self.incumbent_bonus = float(bonus)

    def summarize(self, request: SummaryRequest) -> str:
        """Return the new summary for ``request``: previous summary merged with new messages.

        Args:
            request: Previous summary, newly evicted messages, language, cap and style.

        Returns:
            The summary text (sections, or one paragraph for ``style="paragraph"``), within
            ``request.max_tokens`` (``target_tokens`` on a re-ask) as counted by ``count``.
        """
        lang = request.language if request.language in SECTION_TITLES else "en"
        budget = request.max_tokens
        if request.attempt >= 2 and request.target_tokens:
            budget = min(budget, request.target_tokens)
        memo = TokenMemo()
        items = self._collect(request, lang, max(budget, 0), memo)
        merged = correct_quantities(_merge(items))
        correct_slips(merged)
        # What the user's messages and the tools' results say of values, read once.
        users = {i: content_text(m.get("content")) for i, m in enumerate(request.messages)
                 if m.get("role") == "user"}
        settled = frozenset(i for i, text in users.items() if says_settled(text))
        differences = {i: (text, found) for i, text in users.items()
                       if (found := said_differences(text))}
        if differences:
            supersede_differences(merged, differences)
        reported = {i: pairs for i, m in enumerate(request.messages) if m.get("role") == "tool"
                    and (pairs := tool_pairs(content_text(m.get("content"))))}
        if reported:
            supersede_tool_pairs(merged, reported)
        shaped: dict[str, _ChangeShape] = {}  # (what the update passes compare, made once)
        answers = {i: content_text(m.get("content")) for i, m in enumerate(request.messages)
                   if m.get("role") == "assistant"}
        kept = restated_values(supersede_changes(merged, settled, shaped, answers), shaped)
        reported_values(kept)
        hand_overs(kept)
        kept = end_states(replace_instructions(kept))
        kept = supersede_tool_state(kept)
        tool_updates(kept)
        zh_moves(kept)
        prefer_newer(kept)
        # The fold's own counter, when it sends one, makes the cap exact.
        count = request.count if request.count is not None and not self._explicit_count \
            else self._count
        return self._render_capped(kept, lang, request.style, max(budget, 0), count, memo)

    # asummarize is BaseSummarizer's: summarize in a worker thread, so a large fold never
    # holds up the event loop.

    # -- collecting -----------------------------------------------------------------------

    def _collect(
        self, request: SummaryRequest, lang: str, budget: int, memo: TokenMemo
    ) -> list[_Item]:
        rows: list[_Row] = []
        # A stray summary message among the evicted ones is merged like the previous summary,
        # never summarized as a system note (the seed silently dropped all but the last).
        summaries = [
            content_text(m.get("content")) for m in request.messages if m.get("is_summary")
        ]
        summaries.append(request.previous_summary or "")
        previous = [item for summary in summaries for item in _previous_items(summary)]
        names: set[str] = set()
        last_day: str | None = None
        tags = {role: f"{tag}{_COLON[lang]}" for role, tag in _ROLE_TAGS[lang].items()}
        for text, section, day in previous:
            tag_match = _SPEAKER_TAG.match(text)
            tag = tag_match.group() if tag_match else ""
            speaker = _speaker_of(tag)
            if speaker:
                names.add(speaker.casefold())
            if day and (last_day is None or day > last_day):
                last_day = day
            body = text[len(tag) :]
            role = _previous_role(tag, body)
            if not tag and role == "user" and section is not None:
                tag = tags["user"]  # the user's lines are written untagged (items._USER_TAGS)
            rows.append(_Row(tag, body, "summary", section, day, -1, speaker, role))
        n_previous = len(rows)
        pieces = list(self._pieces(request.messages, lang, last_day))
        names.update(p.name.casefold() for p in pieces if p.name)
        known = frozenset(names)
        # A message said again is split once per fold (the user's own way: see below).
        sentences: dict[tuple[bool, str], list[str]] = {}
        last_assistant: list[str] = []  # sentences of the latest assistant message
        last_msg = -1
        # An offer the last fold ended on, still waiting for its answer: the first message of
        # this fold answers it ("Shall I book the Hotel Arts?" | fold | "Yes, let's go with
        # that."). It lives one fold: answered here or not, it leaves.
        waiting = [j for j, r in enumerate(rows)
                   if r.section == _TASKS and r.score_role == "assistant"]
        if waiting:
            last_assistant = split_sentences(rows[waiting[-1]].body)
            rows = [r for j, r in enumerate(rows) if j not in waiting]
            n_previous = len(rows)
        # Options the user asked for and has not picked from ("User to choose from: A | B | C")
        # live until a later message picks one ("team voted for the Middle Eastern place"),
        # folds later; a listing of this fold left unpicked becomes one at its end.
        open_choices: dict[int, list[str]] = {}
        for j, r in enumerate(rows):
            head = next((h for h in _TO_CHOOSE_HEADS.values() if r.body.startswith(h)), None)
            if head is not None:
                open_choices[j] = r.body[len(head):].split(_OPTION_SEP)
                rows[j] = r._replace(score_role=_CHOOSING)
        picked_choices: set[int] = set()
        # Whether the user's latest message picked, or answered, anything (a carried choice
        # left open may be concluded by the assistant's next words when it did not).
        user_picked = False

        def open_or_pending() -> list[tuple[int, list[str]]]:
            """The choices still to make: carried ones by row, this fold's listings by -1 - k."""
            out = [(j, o) for j, o in open_choices.items() if j not in picked_choices]
            return out + [(-1 - k, x[0]) for k, x in enumerate(pending)]

        def chose(j: int, option: str, at: _Piece) -> None:
            """The user's choice of ``option`` from choice ``j`` (see ``open_or_pending``)."""
            rows.append(_chose(lang, option, at))
            if j < 0:
                del pending[-1 - j]
            else:
                picked_choices.add(j)
        offered = listed_options(last_assistant) \
            if waiting and offers_options(" ".join(last_assistant)) else []
        # Listings of this fold not picked from yet: (the options, their message, its date).
        pending: list[tuple[list[str], int, str | None]] = \
            [(offered, -1, None)] if 2 <= len(offered) <= 6 else []
        last_user = ""
        attached: dict[int, frozenset[str]] = {}
        replies: dict[int, str] = {}  # each assistant message's whole text, by message
        # A listing the user answered without a pick ("the pool closes at 6 and I don't own a
        # bike"): the assistant's next words may say what that leaves ("Then the elliptical
        # it is", "那就用DNSPod免费版").
        unpicked: list[str] = []  # the options of that listing
        turn: list[int] = []  # the rows of the user's latest turn, for an acknowledgement
        asked_turn: list[int] = []  # the rows of the user's turn the assistant last replied to
        asking: int | None = None  # the row of the user's latest question, until answered
        said_last: list[int] = []  # the rows of the user's latest message
        looked_up = False  # a tool was called since that question
        joined = False  # a question was moved to its answer (its row left empty)
        tool_found = ""  # what the last tool call returned, until the user's next message
        own_listed: list[str] = []  # the options the user's latest message listed

        def heard(before: int) -> Iterable[str]:
            """What was said before piece ``before`` (read only when a pick pattern matched:
            not copied out piece by piece)."""
            return chain(summaries, (q.text for q in islice(pieces, before)))

        for n_piece, p in enumerate(pieces):
            concluded = False
            if p.role == "tool":
                if said_last and not looked_up:
                    # Only now is the user's question worth finding: a tool was asked.
                    asking = next((j for j in reversed(said_last)
                                   if _asks_to_know(rows[j].body) and memo[rows[j].body]), None)
                    looked_up = asking is not None
                rows.append(_Row("", p.text, "tool", None, p.date, p.msg, "", "tool"))
                tool_found = p.text
                turn = []
                continue
            # A named participant is a person speaking for themselves (LoCoMo's two friends,
            # a group chat): scored like the user, shown by name.
            tag = f"{p.name}{_COLON[lang]}" if p.name else tags.get(p.role, "")
            score_role = "user" if p.name else p.role
            split = sentences.get((p.role == "user", p.text))
            if split is None:
                cut = (_compress(_strip_vocative(_strip_filler(s), known), p.role == "user")
                       for s in split_sentences(p.text))
                split = join_bare_corrections(join_bare_reminders([s for s in cut if s]))
                if p.role == "user":
                    # (Not the assistant's "UA 2417 leaves at 7:05, shall I book it?": its
                    # offer is the whole sentence.)
                    split = join_pointing(split_stated_question(split))
                elif p.role == "assistant":
                    split = join_bare_report(split)
                sentences[(p.role == "user", p.text)] = split
            replying = (p.role == "user" and bool(last_assistant) and p.msg == last_msg + 1
                        and bool(split or p.text.strip()))
            if replying and asked_turn and not p.name and defers(p.text):
                joined |= self._put_off(rows, asked_turn, replies.get(last_msg, ""), memo,
                                        p.msg, lang)
            if unpicked and p.role == "assistant" and not p.name and p.msg == last_msg + 1:
                for sentence in split[:2]:
                    option = concluded_pick(unpicked, sentence)
                    if option is not None:
                        rows.append(_chose(lang, option, p))
                        break
            unpicked = []
            decided = False
            # "Let's go with the Hilton" after a listing: a pick of one option, not a yes to all.
            # ("B." alone is no sentence, a list marker's shape, but picks "Option B".)
            picked = _choice(last_assistant, split[0] if split else p.text.strip()) \
                if replying else None
            at = 0  # the sentence of the reply that picks
            options = listed_options(last_assistant) if replying and picked is None and split \
                else []
            own = False
            if replying and picked is None and split and len(options) < 2 and own_listed:
                # "一个是乐刻 月卡199 一个是威尔士 年卡要4800 选哪个" … "那就便宜的那个": the
                # options the user listed themselves.
                options = own_listed
                own = True
            if 2 <= len(options) <= 6:
                # A pick by place may come after the reasons: "Pool would be nice but not at
                # that price. Let's do the first one." The last one that picks counts.
                for k in range(min(len(split), 4) - 1, -1, -1):
                    picked = ordinal_pick(last_assistant, options, split[k]) or described_pick(
                        options, split[k]) or priced_pick(options, split[k], bare=own) \
                        or labelled_pick(options, split[k])
                    if picked is None and k:
                        option = anaphoric_pick(options, split[k - 1], split[k])
                        picked = None if option is None else (option, option, True)
                    if picked is not None:
                        at = k
                        break
            if (
                replying
                and split
                and picked is None
                # Before filler stripping: "Yes please." must not become "please."
                and (is_acceptance(split[0]) or is_acceptance(split_sentences(p.text)[0]))
            ):
                offer = proposal(last_assistant)
                listing = next((o for o, msg, _ in pending if msg == last_msg), [])
                if offer is not None and lists_options(offer, listing):
                    offer = None  # "Three options: A; B; and C." "Yeah, …": nothing chosen
                if offer is not None:
                    # The assistant's offer and the user's yes: one decision.
                    who = p.name or _ROLE_TAGS[lang]["user"]
                    choice = as_choice(offer)
                    body = f"{who}{_AGREED[lang]}{_COLON[lang]}{choice}"
                    ref = _tool_option(tool_found, choice) if tool_found else None
                    if ref is not None:
                        body += f" [{ref}]"
                    # (From the words as said: "Great idea!" stripped of "Great" is no "idea!".)
                    said_first = split_sentences(p.text)[0]
                    rest = acceptance_rest(said_first if is_acceptance(said_first) else split[0])
                    if not content_tokens(rest) <= content_tokens(offer):
                        body += f" ({rest})"  # "OK, book it for 3 nights": what it adds
                    if choice != offer:
                        # The offer now lives in the decision: not a second time as a fact.
                        _drop_said(rows, last_msg, offer, inside=False)
                    # "Want a reminder to book the retest?" "yes pls": the errand is the
                    # user's and still to do, with a reminder set.
                    sec = _TASKS if offers_reminder(choice) else _DECISIONS
                    at_offer = last_assistant.index(offer) if offer in last_assistant else 0
                    if sec == _TASKS and at_offer and _POINTER.search(choice):
                        # "…rabies booster for Miso in 11 months. Want a reminder to book it?":
                        # the errand names its thing.
                        before = last_assistant[at_offer - 1]
                        body += f" ({before.rstrip('.。 ')})" if lang == "en" \
                            else f"（{before.rstrip('.。 ')}）"
                        _drop_said(rows, last_msg, before, inside=False)
                    if sec == _TASKS:
                        body += _REMINDER_MARK[lang]
                    rows.append(_Row("", body, "user", sec, p.date, p.msg, p.name,
                                     "decision"))
                    split = split[1:]
                    decided = True
            elif picked is not None:
                # "Window or aisle?" then "Aisle, please.": the user's choice, one decision.
                option, core, alone = picked
                # The assistant's wording of an option a tool found keeps the tool's own
                # reference: "the United one at 7:05am" is "UA 1187 dep 07:05".
                ref = _tool_option(tool_found, option) if tool_found else None
                more = "" if ref is None else f" [{ref}]"
                if core != option:
                    more += f" ({core})" if lang == "en" else f"（{core}）"
                elif 2 <= len(listing := options or listed_options(last_assistant)) <= 6 \
                        and any(option in o or o in option for o in listing):
                    # The listing it was picked from, one option a sentence or all in one:
                    # what was not chosen need not stay, nor the line that introduced it.
                    rows[:] = [r for r in rows if r.msg != last_msg or not (
                        any(o in r.body for o in listing) or listing_intro(r.body))]
                else:
                    # The listing it was picked from: what was not chosen need not stay.
                    _drop_said(rows, last_msg, option, inside=True)
                rows.append(_chose(lang, option, p, p.name, more))
                decided = True
                if alone:
                    split = split[:at] + split[at + 1:]
            elif replying and split and (
                    asked := question_answered(last_assistant, split[0],
                                               more=len(split) > 1)) is not None:
                # "What is your budget for the trip?" then "Around $2,000.": the answer means
                # nothing without its question, which goes with it.
                split = [f"{asked}{_ANSWER[lang]}{split[0]}", *split[1:]]
            if replying and not decided and not p.name:
                unpicked = options if split else listed_options(last_assistant)
            if p.role == "user" and not p.name:
                if p.msg != last_msg:
                    user_picked = False
                user_picked |= decided
                if decided and replying:  # the listing just answered was picked from
                    pending = [x for x in pending if x[1] != last_msg]
                choices = open_or_pending()
                for k, sentence in enumerate(split if choices else []):
                    found = next(((j, o) for j, opts in choices
                                  if (o := later_pick(opts, sentence)) is not None), None)
                    if found is None and k:
                        # "…loved the granite slabs. Let's go with that one.": the option the
                        # sentence before names.
                        found = next(((j, o) for j, opts in choices if (
                            o := anaphoric_pick(opts, split[k - 1], sentence)) is not None), None)
                    if found is not None:
                        chose(*found, p)
                        user_picked = True
                        break
                if lang == "en" and not user_picked and not decided:
                    # "supabase and neon feel like overkill, sqlite it is": a name said before.
                    for k, sentence in enumerate(split[:4]):
                        option = confirmed_choice(sentence, lang, heard(n_piece), "", named=True)
                        if option is not None:
                            rows.append(_chose(lang, option, p))
                            user_picked = True
                            split = _without_confirming(split, k, option)
                            break
            if p.role == "assistant" and not p.name and p.msg == last_msg + 1 and turn \
                    and not user_picked and (pending or len(open_choices) > len(picked_choices)):
                # "就它了，我让我妈注册一下" after "User to choose from: 中国银行电汇 | Wise | …"
                # carried, or a listing turns ago: "就用Wise。" says which one the user meant.
                choices = open_or_pending()
                for sentence in split[:2]:
                    found = next(((j, o) for j, opts in choices
                                  if (o := concluded_pick(opts, sentence)) is not None), None)
                    if found is not None:
                        chose(*found, p)
                        concluded = True
                        break
            if p.role == "assistant" and not p.name and p.msg == last_msg + 1 and turn \
                    and not concluded and not last_user.rstrip().endswith(("?", "？")):
                # "the lowest fee one then" … "Zettle it is.": the assistant names the pick
                # (one the user's words did not: "就最便宜那家吧" … "好，就定顺丰同城。").
                for k, sentence in enumerate(split[:2]):
                    option = confirmed_choice(sentence, lang, heard(n_piece), last_user, p.text)
                    if option is not None and user_picked and (
                            option.lower() in last_user.lower()
                            or any(option.lower() in r.body.lower() for r in rows
                                   if r.msg == last_msg and r.section == _DECISIONS)):
                        break
                    if option is not None:
                        rows.append(_chose(lang, option, p))
                        split = _without_confirming(split, k, option)
                        break
            if p.role == "assistant" and not p.name and turn and p.msg == last_msg + 1:
                joined |= self._take_on(rows, turn, p, lang, memo)
            if p.role == "assistant" and not p.name and asking is not None and looked_up \
                    and split and not awaits_choice(split) and _not_offered(split):
                # "where's the flour order?" (a lookup) "It shipped, UPS PRO 1Z9F44A2037, ETA
                # Thursday.": what the user asked to know, kept with what they learned. Only
                # when a tool was asked first: in small talk a question and a number are chat.
                # (Options found are offered, not learned: the user's pick comes next.)
                said = next((j for j, s in enumerate(split[:2]) if _DIGITS.search(s)), None)
                if said is not None:
                    # One line where the answer was said (a newer value than what the user
                    # said in between); the question's own row is left empty and skipped.
                    row = rows[asking]
                    # (Emptied, not deleted: a pick may still drop rows before it.)
                    rows[asking] = row._replace(body="")
                    joined = True
                    # Asked and answered: a fact now, no open task.
                    body = f"{row.body.rstrip()}{_ANSWER[lang]}{split[said]}"
                    rows.append(row._replace(body=body, section=_FACTS, date=p.date, msg=p.msg,
                                             score_role=_LEARNED))
                    split = split[:said] + split[said + 1:]
            if p.role == "assistant":
                asking = None
                said_last = []
                looked_up = False
                last_assistant = split
                # (Not any question with an "or": "Happy to. …: are you still driving the
                # Mazda?" lists nothing to choose from.)
                offered = offered_options(p.text, split) if split and not p.name and (
                    asks_for_options(last_user) or offers_options(split[0])) else []
                if 2 <= len(offered) <= 6:
                    pending.append((offered, p.msg, p.date))
                replies[p.msg] = p.text
                if "```" in p.text:
                    # The code it wrote is no sentence, but says what request it answers.
                    attached[p.msg] = memo[p.text]
                    if not split:
                        split = [_CODE_REPLY[lang]]  # a reply of code alone still answers
            elif p.role == "user":
                last_assistant = []
                tool_found = ""
                last_user = p.text
                # Asked which or not ("面了两个人，一个小林…要六千五；一个小许…要四千五"), a
                # choice to make; priced in digits ("要六千五" is 6500 to compare).
                own_listed = own_options(_arabic(p.text)) \
                    if not p.name and own_options(p.text) else []
                weighed = weighed_options(p.text) if not p.name else []
                if weighed:
                    # Options the user weighs themselves stay open until a later message
                    # picks one ("Decided, we're doing the pottery painting").
                    pending.append((weighed, p.msg, p.date))
            if p.role == "user" and not p.name:
                if p.msg != last_msg + 1:
                    turn = []
                turn += range(len(rows), len(rows) + len(split))
                said_last = list(range(len(rows), len(rows) + len(split)))
                asking = None
            else:
                if p.role == "assistant" and not p.name:
                    asked_turn = turn if p.msg == last_msg + 1 else []
                turn = []
            last_msg = p.msg
            listed = _todo_list(split, p.text) if p.role == "user" and not p.name \
                else len(split)
            rows.extend(
                _Row(tag, s, p.role, None, p.date, p.msg, p.name, score_role)
                for s in split[:listed]
            )
            # A to-do list the user gives ("my list for this week, keep it for me: 1) renew
            # the car registration 2) …", "这周要干的事帮我记一下：1. …"): each line is a task
            # asked to be kept, however it is worded.
            if listed < len(split):
                asked = f"{_ROLE_TAGS[lang]['user']}{_ASKED[lang]}{_COLON[lang]}"
                rows.extend(_Row("", asked + s, "user", _TASKS, p.date, p.msg, "", "decision")
                            for s in split[listed:])
        if picked_choices:
            rows = [r for j, r in enumerate(rows) if j not in picked_choices]
            n_previous -= len(picked_choices)
        # (An offer made without a question mark too: "建议用pt-online-schema-change在线改表…",
        # "I'd go with the Hilton.": the user's "行，就这么办" comes with the next fold.)
        ends_on_offer = bool(pieces) and pieces[-1].role == "assistant" \
            and not pieces[-1].name and (awaits_choice(last_assistant) or (
                proposal(last_assistant) is not None  # (a listing is kept as options)
                and not any(msg == pieces[-1].msg for _, msg, _ in pending)))
        if ends_on_offer:
            # The fold ends on an offer or a choice put to the user: its answer is in the
            # window and comes with the next fold, which needs the offer to make a decision.
            offer = " ".join(last_assistant)[:_MAX_ITEM_CHARS]
            rows.append(_Row(tags["assistant"], offer, "assistant", _TASKS, pieces[-1].date,
                             pieces[-1].msg, "", _WAITING))
        listings: list[tuple[int, list[str]]] = []
        for options, msg, date in pending:
            if ends_on_offer and msg == pieces[-1].msg:
                continue  # carried as the offer waiting for its answer
            listings.append((msg, options))
            kept = [o if len(o) <= _MAX_OPTION_CHARS else o[:_MAX_OPTION_CHARS].rstrip() + "…"
                    for o in options]
            rows.append(_Row("", _TO_CHOOSE_HEADS[lang] + _OPTION_SEP.join(kept), "user", _TASKS,
                             date, msg, "", _CHOOSING))
        if joined:
            rows = rows[:n_previous] + [r for r in rows[n_previous:] if r.body]
        rows = _one_choice_each(rows, n_previous, lang)
        # The listing's own sentences: its options now live in one line. (They stay rows until
        # then: what they report may close the request that asked for them.)
        listed_rows = {i for i, r in enumerate(rows) if i >= n_previous and r.score_role
                       != _CHOOSING and any(r.msg == msg and (any(o in r.body for o in options)
                                                              or listing_intro(r.body))
                                            for msg, options in listings)}
        # A carried-forward statement is scored as what it was: the user's words, the
        # assistant's, a tool line; an untagged one (an LLM's summary) as a fact about the user.
        scores = _score_all(
            [r.body for r in rows],
            ["user" if r.score_role in ("decision", _LEARNED, _CHOOSING) else r.score_role
             for r in rows]
        )
        closed = _closed_tasks(rows, scores, n_previous, memo, attached, replies)
        # What fulfilled a request is worth what was asked: "订单号H123456" as much as the booking.
        fulfilled = {j: scores[i].score * _DONE_FACTOR for i, j in closed.items()}
        absorbed: set[int] = set()
        # The last row the assistant or a tool said: a user's question before it was answered.
        replied = max((i for i, r in enumerate(rows) if r.role in ("assistant", "tool")),
                      default=-1)
        chosen: list[tuple[float, int, _Row, int, bool]] = []
        events: dict[int, float] = {}  # carried one-off events: their score without the bonus
        standing: set[int] = set()  # new statements of what stays true
        shapes: dict[tuple[str, str, bool], _Shape] = {}
        for i, (row, scored) in enumerate(zip(rows, scores, strict=True)):
            order = i - n_previous  # previous-summary items come first, with negative orders
            if i in listed_rows:
                continue
            answered = False  # the user's short answer about their own, with its question
            score = scored.score
            if row.score_role == _WAITING:
                score = _WAITING_SCORE
            elif row.score_role == _CHOOSING:
                score = max(score, _CHOOSING_SCORE)
            sec = scored.section if row.section is None else row.section
            if i in closed:
                # A request fulfilled: dropped when it was called off or the report says what
                # was done ("Booked a table for 4 at Nobu…"); else kept as done, since what the
                # user asked for ("浦东新区, 860元以内, 2月5日") is what the report leaves out.
                by = rows[closed[i]]
                wanted = memo[row.body]
                reminded = by.role == "assistant" and asks_reminder(row.body)
                if (by.role == "user" and CANCEL.search(by.body)) or (not reminded and (
                    len(wanted & memo[by.body]) >= _DONE_SAYS_IT * len(wanted)
                    # "Please update my address to 12 Oak St.": kept, it replaces the old value
                    and not _says_change(row.body)
                    # "It's a 2019 Mazda CX-5, plate 7KXR219, can you format it as an email?":
                    # the user's own code is the user's to keep, not the draft's
                    and not (by.role == "assistant" and _OWN_CODE.search(row.body))
                )):
                    continue
                if reminded:
                    # The reminder is set or promised: the errand stays open, marked so.
                    row = row._replace(body=row.body.rstrip() + _REMINDER_MARK[lang])
                    sec = _TASKS
                else:
                    body = row.body.rstrip()
                    for mark in _REMINDER_MARKS:
                        body = body.removesuffix(mark)
                    score *= _done_factor(body)
                    # The user's report of it with values of its own ("submitted it last
                    # night!! confirmation number is F-77Q31K"): one line says what was asked
                    # and what came of it, and the two never part.
                    told = [k for k in range(i + 1, len(rows)) if by.role == "user"
                            and rows[k].msg == by.msg != row.msg and rows[k].role == "user"
                            and _ANSWER[lang] not in rows[k].body  # (an offer taken: its own)
                            and _values(rows[k].body)[0] - _values(body)[0]]
                    merged = _ANSWER[lang].join(
                        [body, "; ".join(rows[k].body.rstrip() for k in told)])
                    if told and len(merged) <= _MAX_ITEM_CHARS:
                        body = merged
                        score = max(score, *(scores[k].score for k in told))
                        absorbed.update(told)
                    row = row._replace(body=body + _DONE_MARK[lang])
                    sec = _FACTS
                # The request, kept, says what was asked; its report adds the order number:
                # worth keeping, below what the user said.
                fulfilled[closed[i]] *= _REPORT_SHARE
                if by.role != "tool" and len(by.body) <= _BARE_REPORT_CHARS and not (
                    # Values: numbers, codes, names: what a report can add to its request.
                    _values(by.body)[0] - _values(row.body)[0]
                ) and not (
                    # The user's own report tells what they did: "I bought Anna a scarf".
                    by.role == "user" and report_adds(wanted, memo[by.body])
                ):
                    absorbed.add(closed[i])  # "Here's a queue:", "Reminder set.": said by "done"
            elif i in absorbed:
                continue
            role = row.role
            if role == "tool":
                sec = _FACTS  # a call and what it returned: a fact, whatever its words
            # History rather than memory: what a read-only tool returned, and the user's
            # question to the assistant once answered ("Any flights to Vienna on May 26?": the
            # answer holds what it found). Kept while there is room, never held in place.
            history = False
            if row.score_role == "tool" and looks_up(row.body):
                score *= _LOOKUP_FACTOR
                history = True
            elif (row.score_role == "user" and not row.speaker and sec == _FACTS
                  and (role == "summary" or i < replied) and _is_question(row.body)):
                stated = _STATED_BEFORE_ASK.match(row.body)
                if stated is not None and _OWN_CODE.search(stated.group(1)):
                    # "It's a 2019 Mazda CX-5, plate 7KXR219, can you format it as an email?",
                    # answered: the ask is history, the code the user stated of their own is not.
                    row = row._replace(body=stated.group(1) + ".")
                    score = _score_all([row.body], ["user"])[0].score
                else:
                    score *= _ANSWERED_FACTOR
                    history = True
            elif row.score_role == _LEARNED:
                # What the user asked to know and a tool found ("where's the flour order? → It
                # shipped, PRO 1Z9F44A2037"): worth their own answer to a question, this fold.
                score = max(score, _ANSWER_FLOOR)
                answered = True
            elif row.score_role == "user" and answers_about_user(row.body):
                # What the user told of their own when asked ("Where will you be flying
                # from? → Boston."): as much theirs as "my X is Y" said unasked.
                score = max(score, _ANSWER_FLOOR)
                answered = True
            elif row.score_role == "tool" and _TOOL_DID.search(row.body) \
                    and _DIGITS.search(row.body[row.body.find("→"):]):
                # What a tool made or changed for the user, with its reference ("→ Deployed
                # billing-api v2.14.3 … Rollback id: rb-55821", "→ 已发布 v3.8.0"): what the
                # assistant's confirmation of it is worth.
                score = max(score, _CONFIRMED_FLOOR)
                answered = True
            elif row.score_role == "assistant" and confirms(row.body):
                # What was made for the user, with the reference to quote ("Booking reference
                # HX-5521", "Created JIRA-2291"): as much the user's memory as a fact they
                # stated, and as lasting.
                score = max(score, _CONFIRMED_FLOOR)
                answered = True
            elif row.score_role == "assistant" and role == "summary" and not (
                    did_for_user(row.body) or _YOUR_FACT.search(row.body)):
                # The assistant's own words, kept before: what it relayed or explained ("In
                # Lisbon on June 14: high 15°C", "Hotel Mar €126") stays while there is room,
                # but only what it did for the user or told of the user's own holds its place.
                history = True
            if row.score_role == "decision":
                # What the user agreed to or chose is worth a fact however few its features
                # ("用户同意：订西湖边的香格里拉酒店" has no name or number the scorer sees).
                score = max(score + _DECISION_BONUS, _DECISION_FLOOR)
                if not row.speaker:
                    # The user's pick of what the assistant offered holds until taken back,
                    # as "my X is Y" does (a friend's "sounds good" in a group chat need not).
                    score += _ATTR_WEIGHT * USER_FACTOR
            if role == "summary":
                if row.body.endswith(_DONE_MARK[lang]) and _ANSWER[lang] not in row.body:
                    # (A task with the user's report of it, values and all, is a fact of theirs:
                    # "…转存 → 存的3年大额存单，利率2.15% (done)" is not discounted again.)
                    factor = _done_factor(row.body)  # was discounted when it closed
                    score *= factor
                    history = factor == _ANSWERED_FACTOR
                # Kept by an earlier fold: never treated as small talk, and it holds its place
                # against a newcomer that does not score clearly higher: by the bonus, but by at
                # most a share of its own score, so an item let in while the summary had room to
                # spare ("**PEP 3115** - Metaclasses") does not hold off a fact worth far more.
                score = max(score, _PREVIOUS_FLOOR)
                if row.score_role == "user" and not row.speaker and _DIGITS.search(row.body) \
                        and _says_change(row.body) == 2:
                    # A value the user said was changed ("…改到周四10:40了", "Contractor
                    # revised it to 18,900") was worth stating once more when it was said;
                    # read back, it still is. (Not what merely holds now: "…现在18900".)
                    score += _REVISED_WEIGHT
                if not history:
                    if not scored.durable:
                        events[order] = score  # what happened once, before its bonus
                    score += min(self.incumbent_bonus, _INCUMBENT_MAX_SHARE * score)
            elif i in fulfilled:
                # It fulfilled a request: what was done is worth keeping, as a fact.
                score = max(score, self.min_score + _DONE_BONUS, fulfilled[i])
                if sec == _TASKS:
                    sec = _FACTS
            elif score < self.min_score and role != "tool":
                continue  # small talk; every tool call stays a candidate, however plain
            if role == "summary" and sec == _TASKS and not row.speaker \
                    and row.score_role != "assistant":
                # The user's errand still to do is what an assistant is for: once kept, it
                # outranks a statement of the same worth until it is done or called off.
                score += _OPEN_TASK_BONUS
            if history and role == "summary":
                row = row._replace(role=_HISTORY)  # no first claim on the cap either
            elif role != "summary" and (
                    # What the user agreed to or chose, and what the assistant told of the
                    # user's own ("Your Pro plan renews on January 15"), stay true as the
                    # user's own words do; so do asks for good and what the user avoids.
                    (row.score_role == "decision" and not row.speaker)
                    or (row.score_role in ("user", "assistant") and sec in (
                        _FACTS, _PREFS, _DECISIONS, _TASKS) and (scored.standing or answered))):
                standing.add(order)
            chosen.append((score, order, row, sec, scored.hints_slot))
        # Only the best new statements can ever fit the cap: the rest are not built into items
        # (clauses, slots, keys), which a long fold would pay for nothing. Carried items and
        # tool lines always stay; the cut grows with the cap, so a larger cap sees more.
        limit = max(_MIN_CANDIDATES, budget // 2)
        new = [c for c in chosen if c[2].role not in ("summary", "tool", _HISTORY)]
        if len(new) > limit:
            best = sorted(new, key=lambda c: (-c[0], -c[1]))[:limit]
            floor = (best[-1][0], best[-1][1])
            chosen = [c for c in chosen if c[2].role in ("summary", "tool", _HISTORY)
                      or (c[0], c[1]) >= floor]
        items = []
        for score, order, row, sec, slot in chosen:
            item = _Item.make(row.tag, row.body, sec, score, order, row.role, slot, shapes,
                              date=row.date, speaker=row.speaker,
                              said_by="assistant" if row.score_role == "assistant" else "")
            item.event = events.get(order)
            item.standing = order in standing
            item.msg = row.msg
            items.append(item)
        return items

    @staticmethod
    def _take_on(rows: list[_Row], turn: list[int], reply: _Piece, lang: str,
                 memo: TokenMemo) -> bool:
        """The user's words the assistant's acknowledgement restates ("Understood. All recipe
        quantities in grams going forward."): an ask taken on, kept as "User asked: …" and
        worth a decision in every fold; a fact the user told of themselves stays their fact.
        An errand the assistant promised to do ("Sure, I'll look for food handler renewal
        classes…") is kept so too, under open tasks, until it is reported done; so is what it
        promised to remind the user of ("I'll remind you before then"), marked so. The errand
        takes with it the other sentences of its message that the promise also restates
        ("Jonah's food handler card expires on the 30th. I need to get him into a renewal
        class"): its own words may say "him" or "that". True when rows were emptied (joined to
        the errand)."""
        ack = acknowledged(reply.text)
        restated = ack[0] if ack is not None else commits(reply.text)
        if restated is None:
            return False
        for_good = ack is not None and ack[1]
        said = memo[restated]
        said_stems = {_stem(w) for w in said}
        shared = [(len(memo[rows[j].body] & said), j) for j in turn if rows[j].role == "user"]
        need = 1 if for_good else _NOTED_OVERLAP
        tag = f"{_ROLE_TAGS[lang]['user']}{_ASKED[lang]}{_COLON[lang]}"
        top = sorted(shared, reverse=True)[:2]
        reminds = promises_reminder(reply.text)
        for n, j in top:
            row = rows[j]
            # ("Got it, I'll remind you Thursday": a reminder, no rule taken on for good.)
            # (Nor "Don't let me forget to renew…": a reminder asked for is a task.)
            if ack is not None and n >= need and not _SELF_LEAD.match(row.body) \
                    and not asks_reminder(row.body) \
                    and not _is_pleasantry(_normalise(row.body)) and (
                    for_good or (standing_terms(row.body) and not reminds)):
                rows[j] = _Row("", tag + row.body, "user", _PREFS, row.date, row.msg, "",
                               "decision")
        # One errand a promise: the request it names most of; else, when it promises to
        # remind, what it is about. (An errand of the user's own, "I still need to cancel
        # Hulu", already holds until done: it only takes its context.)
        found = [(_alone(rows[j].body), j) for _, j in top if rows[j].section is None and len(
            {_stem(w) for w in memo[rows[j].body]} & said_stems) >= _NOTED_OVERLAP]
        pick = next(((alone, j) for alone, j in found if alone[0] == _TASKS), None)
        if pick is None and found:
            # The promise restates a message whose errand names less of it than its context
            # does ("The dog license renewal opens Monday at 8am… I have to get Biscuit
            # registered before the 15th." "I'll flag it Monday morning…").
            pick = next(((alone, k) for k in turn if rows[k].msg == rows[found[0][1]].msg
                         and rows[k].section is None and rows[k].role == "user"
                         and (alone := _alone(rows[k].body))[0] == _TASKS
                         and {_stem(w) for w in memo[rows[k].body]} & said_stems), None)
        reminder = pick is None and bool(found) and reminds
        if reminder:
            pick = found[0]
        if pick is None:
            return False
        (_, standing), j = pick
        row = rows[j]
        about = [k for k in turn if k != j and rows[k].msg == row.msg
                 and rows[k].role == "user" and rows[k].section is None
                 and rows[k].body and not _asks_to_know(rows[k].body)
                 and {_stem(w) for w in memo[rows[k].body]} & said_stems
                 and _alone(rows[k].body)[0] != _TASKS]
        context = [rows[k].body for k in about]
        for k in about:
            rows[k] = rows[k]._replace(body="")
        if standing:
            # Already held until done, and scored on how it opens ("I have to get Isla
            # into…"): what it is about comes after it.
            if context:
                # (A Chinese errand ends on its own full stop: "…要续保。今年想…", not "。。".)
                body = row.body.rstrip("。") if lang == "zh" else row.body
                rows[j] = row._replace(body=_CONTEXT[lang].join([body, *context]))
            return bool(about)
        lead, mark = (row.tag, _REMINDER_MARK[lang]) if reminder else (tag, "")
        body = " ".join(b for _, b in sorted([(j, row.body), *zip(about, context, strict=True)]))
        rows[j] = _Row("", lead + body + mark, "user", _TASKS, row.date, row.msg, "", "decision")
        return bool(about)

    @staticmethod
    def _put_off(rows: list[_Row], answered: list[int], reply: str, memo: TokenMemo,
                 msg: int, lang: str) -> bool:
        """The user puts off (in message ``msg``) what they raised ("I need a plumber this
        week" … "Happy to find one. What's your zip code?" … "later, gotta run"): it stays to
        do, kept as "User asked: …" (worth a decision in every fold) and moved to where it was
        put off (the reply before is no report of it done). What they said: the sentence the
        assistant's question or offer took up most, or all of it when short and none was.
        True when a row was moved (its old place left empty)."""
        if "?" not in reply and "？" not in reply:
            return False
        wanted = {_stem(w) for w in memo[reply]}
        said = [(len({_stem(w) for w in memo[rows[j].body]} & wanted), j) for j in answered
                if rows[j].role == "user" and rows[j].section is None and rows[j].body
                and _alone(rows[j].body)[0] != _TASKS]
        if not said:
            return False
        n, j = max(said)
        taken = [j] if n else [k for _, k in said]
        body = " ".join(rows[k].body for k in taken)
        if len(body) > _MAX_ITEM_CHARS:
            return False
        tag = f"{_ROLE_TAGS[lang]['user']}{_ASKED[lang]}{_COLON[lang]}"
        rows.append(rows[taken[-1]]._replace(tag="", body=tag + body, section=_TASKS, msg=msg,
                                             score_role="decision"))
        for k in taken:
            rows[k] = rows[k]._replace(body="")
        return True

    def _pieces(
        self, messages: Sequence[Mapping[str, Any]], lang: str, day: str | None = None
    ) -> Iterable[_Piece]:
        """Pieces in conversation order: each message's text, and each tool call as one line.

        ``day`` is the date in force before the first message (the newest one of the previous
        summary): a session's date, given on its first message, holds for the messages after
        it, which may be folded later.
        """
        pieces: list[tuple[str, str | _ToolLine, str | None, str, int]] = []
        calls: dict[str, _ToolLine] = {}
        # A long history repeats its tool calls and results: each distinct JSON text is parsed
        # and rendered once per fold.
        results: dict[str, str] = {}
        arg_texts: dict[str, str] = {}

        def render_args(args: object) -> str:
            if not isinstance(args, str):
                return _render_args(args)
            text = arg_texts.get(args)
            if text is None:
                text = arg_texts[args] = _render_args(args)
            return text

        def add(role: str, piece: str | _ToolLine, name: str = "") -> None:
            if isinstance(piece, str) and role in ("user", "assistant"):
                piece = plain_spelling(piece)
            pieces.append((role, piece, day, name, index))

        for index, message in enumerate(messages):
            if message.get("is_summary"):
                continue  # merged as a previous summary by _collect
            role = str(message.get("role") or "")
            content = message.get("content")
            day = message_date(message) or day
            name = message.get("name")
            name = name.strip() if isinstance(name, str) and role in ("user", "assistant") else ""
            if (
                type(content) is str
                and role not in ("tool", "function")
                and not message.get("tool_calls")
                and not message.get("function_call")
            ):
                if content:
                    dated, content = leading_date(content)
                    day = dated or day
                    add(role, content, name)  # the common case: plain text only
                continue
            if role in ("tool", "function"):
                call_id = str(message.get("tool_call_id") or "")
                self._attach(
                    pieces, calls, results, call_id, _result_text(content), message.get("name"),
                    day, index,
                )
                continue
            if isinstance(content, list):
                plain = [p for p in content if not _is_tool_block(p)]
                text = content_text(plain)
            else:
                text = content_text(content)
            if text:
                dated, text = leading_date(text)
                day = dated or day
                add(role, text, name)
            if isinstance(content, list):
                for part in content:
                    if not isinstance(part, Mapping):
                        continue
                    if part.get("type") == "tool_use":
                        line = _ToolLine(str(part.get("name")), render_args(part.get("input")))
                        calls[str(part.get("id"))] = line
                        add("tool", line)
                    elif part.get("type") == "tool_result":
                        self._attach(
                            pieces,
                            calls,
                            results,
                            str(part.get("tool_use_id")),
                            _result_text(part.get("content")),
                            None,
                            day,
                            index,
                        )
            for call in message.get("tool_calls") or ():
                fn = call.get("function") if isinstance(call, Mapping) else None
                if not isinstance(fn, Mapping):
                    continue
                line = _ToolLine(str(fn.get("name")), render_args(fn.get("arguments")))
                calls[str(call.get("id"))] = line
                add("tool", line)
            fc = message.get("function_call")
            if isinstance(fc, Mapping):
                line = _ToolLine(str(fc.get("name")), render_args(fc.get("arguments")))
                calls[f"function:{fc.get('name')}"] = line
                add("tool", line)
        for role, piece, when, who, index in pieces:
            if isinstance(piece, str):
                yield _Piece(role, piece, when, who, index)
            else:
                yield _Piece("tool", self._tool_text(piece, lang), when, "", index)

    def _attach(
        self,
        pieces: list[tuple[str, str | _ToolLine, str | None, str, int]],
        calls: dict[str, _ToolLine],
        results: dict[str, str],
        call_id: str,
        result: str,
        name: object,
        day: str | None,
        index: int,
    ) -> None:
        line = calls.get(call_id) or (calls.get(f"function:{name}") if name else None)
        rendered = results.get(result)
        if rendered is None:
            rendered = results[result] = _render_result(result, self.tool_result_chars)
        if line is not None:
            line.result = rendered if line.result is None else f"{line.result} | {rendered}"
        elif rendered:
            orphan = _ToolLine(str(name) if name else "", "", rendered)
            pieces.append(("tool", orphan, day, "", index))

    @staticmethod
    def _tool_text(line: _ToolLine, lang: str) -> str:
        if not line.name:
            return f"{_TOOL_RESULT_WORD[lang]}{_COLON[lang]}{line.result}"
        text = f"{_TOOL_WORD[lang]} {line.name}({line.args})"
        if line.result:
            text += f" → {line.result}"
        return text

    # -- rendering under the cap --------------------------------------------------------------

    def _render_capped(self, items: list[_Item], lang: str, style: str, budget: int,
                       count: Callable[[str], int], memo: TokenMemo) -> str:
        paragraph = style == "paragraph"
        if not items:
            return _fit(_NOTHING_TO_KEEP[lang], budget, count)
        _discount_repeats(items)
        ranked = sorted(items, key=lambda it: (-it.score, -it.order))
        titles = SECTION_TITLES[lang]
        header_cost = [count(f"{t}{_COLON[lang].strip()}\n") + 1 for t in titles]
        date_costs: dict[str, tuple[int, int]] = {}

        def date_cost(day: str) -> tuple[int, int]:
            """A day's prefix without its year, and what its year adds."""
            cost = date_costs.get(day)
            if cost is None:
                short = count(f"[{render_date(day, lang, False)}] ")
                whole = count(f"[{render_date(day, lang)}] ")
                cost = date_costs[day] = (short, max(whole - short, 0))
            return cost

        line_costs: dict[int, int] = {}

        def line_cost(it: _Item) -> int:
            """``it``'s bullet line, counted once however often it is weighed."""
            cost = line_costs.get(id(it))
            if cost is None:
                cost = line_costs[id(it)] = count(f"- {it.text}\n")
            return cost

        # (Each section's heading counts too: lines that fit alone may not under their headings.)
        headings = 0 if paragraph else sum(header_cost[s] for s in {it.section for it in items})
        if sum(map(line_cost, items)) + headings > budget:
            # (Chinese, not just other than ASCII: "€1,450" and "—" are written in English too.)
            # Over the cap, a long Chinese statement gives up its idle clauses before any
            # statement is dropped whole: "…一年1280，然后保证续保只有一年" keeps its value,
            # "吓死我了" and "所以我就是想问" go. Chinese runs a whole message into one sentence
            # of commas; an English statement is one sentence already, and what its clauses
            # add is as often what a later question asks (measured: LoCoMo drift fell).
            # (Not a tool line, an answer joined to its question, a listing of options, nor a
            # task, whose words name what is to be done.) In either language, a question its
            # answer restates and a tool's result fields its call gave go too.
            # (About 7% more lines in the same room, on the read probes.)
            for it in items:
                if it.role != "tool" and it.section != _TASKS and _HAN.search(it.body) \
                        and "→" not in it.body and "|" not in it.body:
                    trimmed = _without_idle_clauses(it.body)
                elif "→" in it.body and it.section == _FACTS:
                    trimmed = _answer_only(it.body) if not _is_tool_line(it.body) \
                        else _result_news(it.body)
                else:
                    continue
                if trimmed != it.body:
                    it.body = trimmed
                    del line_costs[id(it)]

        def room_for(it: _Item) -> int:
            """What ``it`` adds to the summary: its line (cached on it), its section's heading
            and its date, each the first time they appear."""
            if paragraph:
                it.cost = count(_as_sentence(it.tagged, lang))
                extra = it.cost
            else:
                it.cost = line_cost(it)
                extra = it.cost + (0 if it.section in opened else header_cost[it.section])
            if it.date and (it.section, it.date) not in dated:
                short, year = date_cost(it.date)
                # A section writes each year once (render's _new_year): an estimate the final
                # fit below makes exact.
                extra += short + (0 if (it.section, it.date[:4]) in dated else year)
            return extra

        def gives_way(v: _Item, score: float) -> bool:
            """A kept one-off event worth less than ``score`` on its own (see the swap)."""
            return v.event is not None and v.event + firmer < score

        # A firmer summary than the default (a larger incumbent_bonus) holds its events by the
        # difference too.
        firmer = max(0.0, self.incumbent_bonus - DEFAULT_INCUMBENT_BONUS)
        chosen: list[_Item] = []
        taken: set[int] = set()
        opened: set[int] = set()
        dated: set[tuple[int, str]] = set()
        covered: set[str] = set()
        # A time or a count the kept items do not hold: "Reminder set: call the dentist
        # tomorrow at 9am" beside "Remind me to call the dentist tomorrow" adds the when.
        covered_numbers: set[str] = set()
        deferred: list[_Item] = []
        repeated: set[int] = set()
        kept_words: dict[str, list[frozenset[str]]] = {}
        used = 0
        # Carried-forward items first claim up to _CARRY_SHARE of the cap among themselves
        # (highest value first, then newest), so one fold of new material can evict at most
        # the rest: old facts leave lowest value first and oldest first, never all at once.
        carried = [it for it in ranked if it.role == "summary" and not it.yields]
        # ...and up to _CARRY_HELD of what they take: the rest of them, the least worth, meet
        # the new material on score alone, so a fold lets in what outscores them.
        # (The best of them is always held: one fold never evicts them all.)
        costs = [line_cost(it) for it in carried]
        held = max(int(_CARRY_HELD * sum(costs)), costs[0] if costs else 0)
        first = min(int(budget * _CARRY_SHARE), held)
        passes = ((carried, first), (ranked, budget), (deferred, budget))
        for pass_items, limit in passes:
            misses = 0
            for it in pass_items:
                if id(it) in taken:
                    continue
                ids = {t.lstrip("0") for t in _ID_TOKEN.findall(it.text) if len(t) >= 3}
                if pass_items is not deferred and ids and ids <= covered:
                    deferred.append(it)  # says nothing a better item has not said already
                    repeated.add(id(it))
                    continue
                numbers = frozenset(_NUMBERS.findall(it.text))
                if it.role != "tool":
                    words = memo[it.body]
                    if (len(words) >= _JACCARD_MIN_TOKENS and ids <= covered
                            and numbers <= covered_numbers and _repeats(words, kept_words)):
                        # "I totally agree the trip was fun" beside "Totally agree…"; not
                        # "每晚预算590元" beside "每晚预算1780元": other numbers, another fact.
                        repeated.add(id(it))
                        continue
                else:
                    words = frozenset()
                extra = room_for(it)
                if used + extra <= limit:
                    used += extra
                    chosen.append(it)
                    taken.add(id(it))
                    opened.add(it.section)
                    if it.date:
                        dated.update(((it.section, it.date), (it.section, it.date[:4])))
                    covered |= ids
                    covered_numbers |= numbers
                    if len(words) >= _JACCARD_MIN_TOKENS:
                        for w in words:
                            kept_words.setdefault(w, []).append(words)
                    misses = 0
                else:
                    misses += 1
                    if misses > _MAX_MISSES or limit - used < 3:
                        break  # full: the rest would only be counted for nothing
        # A summary full of kept outings must still let in what stays true ("My blood type is
        # O negative", "Where will you be flying from? → Boston."): a new standing statement
        # that outscores a kept one-off event on its own score takes that event's place, at
        # most _STANDING_SWAPS a fold, weakest event first.
        swaps = _STANDING_SWAPS
        kept_events = [v.event for v in chosen if v.event is not None]
        bar = min(kept_events) + firmer if kept_events else float("inf")
        for it in ranked:
            if swaps == 0 or it.score <= bar:
                break  # ranked by score: no later item outscores a kept event either
            if not it.standing or id(it) in taken or id(it) in repeated:
                continue
            extra = room_for(it)
            victims = sorted((v for v in chosen if gives_way(v, it.score)),
                             key=lambda v: (v.score, v.order))
            freed = 0
            gone: list[_Item] = []
            for v in victims:
                if gone and used - freed + extra <= budget:
                    break
                gone.append(v)
                freed += v.cost
            if not gone or used - freed + extra > budget:
                continue
            chosen = [v for v in chosen if all(v is not g for g in gone)]
            # It ranks where the event it replaced did: the final trim below must not undo it.
            it.score = max(it.score, max(g.score for g in gone))
            chosen.append(it)
            taken.add(id(it))
            opened.add(it.section)
            if it.date:
                dated.update(((it.section, it.date), (it.section, it.date[:4])))
            used += extra - freed
            swaps -= 1
        chosen.sort(key=lambda it: (-it.score, -it.order))
        text = _render(chosen, lang, paragraph)
        # The counter need not be additive: drop the weakest until the whole text fits.
        while chosen and count(text) > budget:
            weakest = chosen[-1]
            events = [v for v in chosen if gives_way(v, weakest.score)]
            if weakest.standing and events:
                # What stays true outweighs a kept outing here too (see the swap above).
                victim = min(events, key=lambda v: (v.score, v.order))
                chosen = [v for v in chosen if v is not victim]
            else:
                chosen.pop()
            text = _render(chosen, lang, paragraph)
        if chosen:
            return text
        best = ranked[0]
        return _fit(best.tagged if paragraph else _render([best], lang, False), budget, count)


def _answer_only(body: str) -> str:
    """The answer of a question joined to it ("what's ours → Your Hartley's account number is
    HF-08812."), when it gives every value the question did (or, when it gave none, most of
    the words it named) and says enough on its own (four words or values); else ``body``.

    Example:
        >>> _answer_only("can you check AA 2291? → AA 2291 now departs at 9:15 from gate B7.")
        'AA 2291 now departs at 9:15 from gate B7.'
    """
    asked, sep, answer = body.partition("→")
    answer = answer.strip()
    if not sep or "→" in answer or not answer or answer.endswith(
            tuple(_DONE_MARK.values()) + _REMINDER_MARKS):
        return body
    values, given = _values(answer)[0], _values(asked)[0]
    words, named = content_tokens(answer), content_tokens(asked)
    if not values >= given or not values or len(words) + len(values) < _SELF_CONTAINED:
        return body
    if not given and 2 * len(named & words) < len(named):
        return body  # (the question names what the answer is of: "仓库那批货到哪了？")
    return answer


_SELF_CONTAINED = 4
_TOOL_CALL = re.compile(r"(?s)^(?P<head>\S+ [\w.-]+\()(?P<args>.*?)(?P<mid>\) ?→ ?)(?P<result>.*)$")


def _result_news(body: str) -> str:
    """A tool line whose result does not repeat the fields its call gave.

    Example:
        >>> _result_news("Tool set_qty(item=butter, qty=14kg) → status=updated, item=butter, "
        ...              "qty=14kg, effective=next delivery")
        'Tool set_qty(item=butter, qty=14kg) → status=updated, effective=next delivery'
    """
    m = _TOOL_CALL.match(body)
    if m is None:
        return body
    given = {a.strip() for a in m.group("args").split(", ")}
    fields = m.group("result").split(", ")
    if len(fields) < 2 or not all("=" in f for f in fields):
        return body
    news = [f for f in fields if f.strip() not in given]
    if not news or len(news) == len(fields):
        return body
    return f"{m.group('head')}{m.group('args')}{m.group('mid')}{', '.join(news)}"


def _without_idle_clauses(body: str) -> str:
    """``body`` without the clauses that give no value and score under
    :data:`~.lexicon._IDLE_CLAUSE_SCORE` on their own; the first clause, which says what the
    rest is of, always stays. A statement of fewer than three clauses is kept whole.

    Example:
        >>> _without_idle_clauses("我妈上礼拜感冒发烧去社区医院挂水，我特地跟护士说了她对头孢过敏，"
        ...                       "幸好我看了一眼瓶子，吓死我了")
        '我妈上礼拜感冒发烧去社区医院挂水，我特地跟护士说了她对头孢过敏，幸好我看了一眼瓶子'
    """
    parts = _CLAUSE_SPLIT.split(body)
    clauses = parts[0::2]
    if len(clauses) < 3:
        return body
    # (cheapest test first: a digit or a Latin name keeps a clause without scoring it)
    weigh = [i for i in range(1, len(clauses)) if not _VALUE_MARK.search(clauses[i])]
    if not weigh:
        return body
    scores = _score_all([clauses[i] for i in weigh], ["user"] * len(weigh))
    idle = {i for i, scored in zip(weigh, scores, strict=True)
            if scored.score < _IDLE_CLAUSE_SCORE and not _values(clauses[i])[0]}
    if not idle:
        return body
    keep = [i for i in range(len(clauses)) if i not in idle]
    text = clauses[0]
    for i in keep[1:]:
        text += parts[2 * i - 1] + clauses[i]
    if keep[-1] != len(clauses) - 1:
        end = _TERMINAL.search(clauses[-1])
        text = text.rstrip(" ,，;；") + (end.group() if end else "")
    return text


# A digit, or a name or a term in Latin letters inside Chinese ("Glen Waverley 的房子", "HR 的
# offer", which the Chinese value patterns do not read): a clause that gives a value.
_VALUE_MARK = re.compile(r"\d|[A-Za-z]{2,}")
